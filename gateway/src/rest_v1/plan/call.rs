//! Plans of function calls (`/rpc/<fn>`): choosing the overload from the argument names,
//! where the arguments come from, and the read over the function's result.

use std::collections::BTreeSet;

use actix_web::http::Method;

use super::fuzzy::FuzzySet;
use super::read::{Condition, Qualifier, ReadNode, ReadOptions, SelectPlan, plan_read_of};
use crate::rest_v1::error::ApiError;
use crate::rest_v1::request::api_request::ApiRequest;
use crate::rest_v1::request::media::MediaType;
use crate::rest_v1::request::payload::{CallBody, Payload};
use crate::rest_v1::schema_cache::{
    Column, QualifiedName, Relation, Representation, Routine, RoutineParam, SchemaCache, Volatility,
};

/// How the arguments reach the function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallArgs {
    /// No arguments: `fn()`.
    None,
    /// Query-string (GET) or form arguments: parameter and its value(s) (several only for
    /// VARIADIC), in declaration order.
    Direct(Vec<(RoutineParam, Vec<String>)>),
    /// A JSON (or CSV) body read with `json_to_record`, for these parameters.
    Json {
        payload: Payload,
        params: Vec<RoutineParam>,
    },
    /// The raw body as the function's single unnamed parameter.
    Single { param: RoutineParam, body: Vec<u8> },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallPlan {
    pub routine: Routine,
    pub args: CallArgs,
    /// The read over the result (`FROM pgrst_source AS "<alias>"`).
    pub read: ReadNode,
    /// The function returns a scalar (read as `pgrst_scalar`), not rows of a composite.
    pub scalar: bool,
    pub read_only: bool,
    /// Computed columns the read selects or filters on, evaluated on the call's own rows
    /// (`pgrst_call.f`): there they have the table's row type, which an overloaded
    /// computed column needs to be resolved, where the `pgrst_source` CTE's are records.
    pub computed_fields: Vec<String>,
}

/// What the function is called with, before resolution.
#[derive(Debug, Clone)]
pub enum Invocation<'a> {
    /// GET/HEAD: arguments from the query string.
    Query(&'a [(String, String)]),
    /// POST with a body.
    Body(&'a CallBody),
}

impl Invocation<'_> {
    fn keys(&self) -> BTreeSet<String> {
        match self {
            Invocation::Query(args) => args.iter().map(|(k, _)| k.clone()).collect(),
            Invocation::Body(CallBody::Json(payload)) => payload.keys.iter().cloned().collect(),
            Invocation::Body(CallBody::Form(args)) => args.iter().map(|(k, _)| k.clone()).collect(),
            Invocation::Body(CallBody::Raw { .. }) => BTreeSet::new(),
        }
    }

    fn raw_media(&self) -> Option<&MediaType> {
        match self {
            Invocation::Body(CallBody::Raw { media, .. }) => Some(media),
            _ => None,
        }
    }
}

/// Picks the overload whose parameter names fit the argument keys (PostgREST's rules).
pub fn resolve<'c>(
    cache: &'c SchemaCache,
    schema: &str,
    name: &str,
    invocation: &Invocation<'_>,
    json_post: bool,
    single_object: bool,
) -> Result<&'c Routine, ApiError> {
    let keys = invocation.keys();
    let raw_media = invocation.raw_media();
    let qualified = QualifiedName::new(schema, name);
    let mut candidates: Vec<&Routine> = cache
        .routines
        .get(&qualified)
        .map(|list| list.iter().collect())
        .unwrap_or_default();
    // PostgREST's cache order: fewest parameters first, then description, then the
    // parameters themselves (name, type, …).
    candidates.sort_by(|a, b| {
        let key = |routine: &Routine| {
            (
                routine.params.len(),
                routine.description.clone(),
                routine
                    .params
                    .iter()
                    .map(|p| (p.name.clone(), p.data_type.clone(), p.required, p.variadic))
                    .collect::<Vec<_>>(),
            )
        };
        key(a).cmp(&key(b))
    });

    let matching: Vec<&Routine> = candidates
        .iter()
        .copied()
        .filter(|routine| {
            if single_object {
                return matches!(routine.params.as_slice(),
                    [only] if matches!(only.data_type.as_str(), "json" | "jsonb"));
            }
            if routine.params.is_empty() {
                return keys.is_empty() && raw_media.is_none();
            }
            let required: BTreeSet<&str> = routine
                .params
                .iter()
                .filter(|p| p.required)
                .map(|p| p.name.as_str())
                .collect();
            let optional: BTreeSet<&str> = routine
                .params
                .iter()
                .filter(|p| !p.required)
                .map(|p| p.name.as_str())
                .collect();
            let given: BTreeSet<&str> = keys.iter().map(String::as_str).collect();
            let rest: BTreeSet<&str> = given.difference(&optional).copied().collect();
            rest == required
                && given
                    .iter()
                    .all(|k| required.contains(k) || optional.contains(k))
        })
        .collect();
    let fallback: Vec<&Routine> = candidates
        .iter()
        .copied()
        .filter(|routine| match routine.params.as_slice() {
            [only] if only.name.is_empty() => match (raw_media, only.data_type.as_str()) {
                (None, "json" | "jsonb") => json_post,
                (Some(MediaType::TextPlain), "text")
                | (Some(MediaType::TextXml), "xml")
                | (Some(MediaType::OctetStream), "bytea") => true,
                _ => false,
            },
            _ => false,
        })
        .collect();
    match (matching.as_slice(), fallback.as_slice()) {
        ([one], _) => Ok(one),
        ([], [one]) => Ok(one),
        ([], []) => Err(not_found(cache, schema, name, &keys, raw_media, json_post)),
        (many, _) if many.len() > 1 => Err(ambiguous(many)),
        (_, many) => Err(ambiguous(many)),
    }
}

fn ambiguous(candidates: &[&Routine]) -> ApiError {
    ApiError::AmbiguousFunction(
        candidates
            .iter()
            .map(|routine| {
                let params: Vec<String> = routine
                    .params
                    .iter()
                    .map(|p| format!("{} => {}", p.name, p.data_type))
                    .collect();
                format!("{}({})", routine.name, params.join(", "))
            })
            .collect(),
    )
}

/// PGRST202 with PostgREST's texts.
fn not_found(
    cache: &SchemaCache,
    schema: &str,
    name: &str,
    keys: &BTreeSet<String>,
    raw_media: Option<&MediaType>,
    json_post: bool,
) -> ApiError {
    let function = format!("{schema}.{name}");
    let listed: Vec<&str> = keys.iter().map(String::as_str).collect();
    let joined = listed.join(", ");
    let message = match (raw_media, listed.is_empty()) {
        (Some(_), _) => format!("Could not find the function {function} in the schema cache"),
        (None, true) => {
            format!("Could not find the function {function} without parameters in the schema cache")
        }
        (None, false) => {
            format!("Could not find the function {function}({joined}) in the schema cache")
        }
    };
    let searched = match raw_media {
        Some(MediaType::TextPlain) => " with a single unnamed text parameter".to_owned(),
        Some(MediaType::TextXml) => " with a single unnamed xml parameter".to_owned(),
        Some(_) => " with a single unnamed bytea parameter".to_owned(),
        None => {
            let mut text = match listed.len() {
                0 => " without parameters".to_owned(),
                1 => format!(" with parameter {joined}"),
                _ => format!(" with parameters {joined}"),
            };
            if json_post {
                text.push_str(" or with a single unnamed json/jsonb parameter");
            }
            text
        }
    };
    let details = format!(
        "Searched for the function {function}{searched}, but no matches were found in the schema cache."
    );
    let hint = if raw_media.is_some() {
        None
    } else {
        let overloads: Vec<&Routine> = cache
            .routines
            .get(&QualifiedName::new(schema, name))
            .map(|list| list.iter().collect())
            .unwrap_or_default();
        if overloads.is_empty() {
            let names: Vec<&str> = cache
                .routines
                .keys()
                .filter(|q| q.schema == schema)
                .map(|q| q.name.as_str())
                .collect();
            FuzzySet::new(names)
                .best_match(name, 0.75)
                .map(|best| format!("Perhaps you meant to call the function {schema}.{best}"))
        } else {
            let rendered: Vec<String> = overloads
                .iter()
                .map(|routine| {
                    let mut params: Vec<&str> =
                        routine.params.iter().map(|p| p.name.as_str()).collect();
                    params.sort_unstable();
                    format!("({})", params.join(", "))
                })
                .collect();
            FuzzySet::new(rendered.iter().map(String::as_str))
                .best_match(&format!("({joined})"), 0.33)
                .map(|best| format!("Perhaps you meant to call the function {function}{best}"))
        }
    };
    ApiError::FunctionNotFound {
        message,
        details,
        hint,
    }
}

/// Builds the call of `routine` for this request.
pub fn plan_call(
    cache: &SchemaCache,
    routine: &Routine,
    request: &ApiRequest,
    invocation: &Invocation<'_>,
    single_object: bool,
) -> Result<CallPlan, ApiError> {
    let keys = invocation.keys();
    let args = match invocation {
        Invocation::Body(CallBody::Json(payload)) if single_object => CallArgs::Single {
            param: routine.params[0].clone(),
            body: payload.json.clone().into_bytes(),
        },
        _ if routine.params.len() == 1 && routine.params[0].name.is_empty() && keys.is_empty() => {
            match invocation {
                Invocation::Body(CallBody::Raw { bytes, .. }) => CallArgs::Single {
                    param: routine.params[0].clone(),
                    body: bytes.clone(),
                },
                Invocation::Body(CallBody::Json(payload)) => CallArgs::Single {
                    param: routine.params[0].clone(),
                    body: payload.json.clone().into_bytes(),
                },
                _ => CallArgs::None,
            }
        }
        _ if routine.params.len() == 1 && routine.params[0].name.is_empty() => match invocation {
            Invocation::Body(CallBody::Json(payload)) => CallArgs::Single {
                param: routine.params[0].clone(),
                body: payload.json.clone().into_bytes(),
            },
            _ => CallArgs::None,
        },
        _ if keys.is_empty() => CallArgs::None,
        Invocation::Query(_) | Invocation::Body(CallBody::Form(_)) => CallArgs::Direct(
            routine
                .params
                .iter()
                .filter(|param| keys.contains(&param.name))
                .map(|param| {
                    let pairs: &[(String, String)] = match invocation {
                        Invocation::Query(pairs) => pairs,
                        Invocation::Body(CallBody::Form(pairs)) => pairs,
                        _ => &[],
                    };
                    let values: Vec<String> = pairs
                        .iter()
                        .filter(|(k, _)| *k == param.name)
                        .map(|(_, v)| v.clone())
                        .collect();
                    // The last occurrence wins, unless the parameter is VARIADIC.
                    let values = if param.variadic {
                        values
                    } else {
                        values.last().cloned().into_iter().collect()
                    };
                    (param.clone(), values)
                })
                .collect(),
        ),
        Invocation::Body(CallBody::Json(payload)) => CallArgs::Json {
            payload: payload.clone(),
            params: routine
                .params
                .iter()
                .filter(|param| keys.contains(&param.name))
                .cloned()
                .collect(),
        },
        Invocation::Body(CallBody::Raw { .. }) => CallArgs::None,
    };

    let scalar = !routine.returns.composite;
    let relation = result_relation(cache, routine, scalar);
    let (limit, offset) = request.range.limit_offset();
    let mut read = plan_read_of(
        cache,
        &routine.name.schema,
        &relation,
        &request.query,
        (limit, offset),
        ReadOptions {
            max_rows: cache.config.max_rows,
            aggregates_enabled: cache.config.aggregates_enabled,
        },
    )?;
    read.qualifier = Qualifier::Alias(relation.name.name.clone());
    read.from_cte = true;
    let computed_fields = if returns_table(cache, routine, scalar) {
        computed_fields(&read)
    } else {
        Vec::new()
    };

    Ok(CallPlan {
        read_only: matches!(request.method, Method::GET | Method::HEAD)
            || routine.volatility != Volatility::Volatile,
        routine: routine.clone(),
        args,
        read,
        scalar,
        computed_fields,
    })
}

/// Whether the result is rows of a table or view the cache knows, whose columns it knows.
fn returns_table(cache: &SchemaCache, routine: &Routine, scalar: bool) -> bool {
    !scalar
        && routine
            .returns
            .relation
            .as_ref()
            .is_some_and(|name| cache.relations.contains_key(name))
}

/// The root's selected and filtered fields that are not columns of the table (PostgREST
/// puts the selected and filtered fields in the call's own select list). None with `*`,
/// which the read would otherwise repeat them under: PostgREST then selects `pgrst_call.*`
/// alone too.
fn computed_fields(read: &ReadNode) -> Vec<String> {
    if read
        .select
        .iter()
        .any(|item| matches!(item, SelectPlan::Star))
    {
        return Vec::new();
    }
    fn filtered<'a>(condition: &'a Condition, names: &mut Vec<&'a str>) {
        match condition {
            Condition::Filter { column, .. } if column.column_type.is_none() => {
                names.push(&column.name);
            }
            Condition::Tree { children, .. } => {
                children.iter().for_each(|child| filtered(child, names));
            }
            Condition::Filter { .. } | Condition::EmbedIsNull { .. } => {}
        }
    }
    let mut names: Vec<&str> = read
        .select
        .iter()
        .filter_map(|item| match item {
            SelectPlan::Column { column, .. } if column.column_type.is_none() => {
                Some(column.name.as_str())
            }
            _ => None,
        })
        .collect();
    read.conditions
        .iter()
        .for_each(|condition| filtered(condition, &mut names));
    let mut fields: Vec<String> = Vec::with_capacity(names.len());
    for name in names {
        if !fields.iter().any(|field| field == name) {
            fields.push(name.to_owned());
        }
    }
    fields
}

/// The relation the result is read as: the returned table (so embeds work), else a
/// stand-in named like the type (or the function, for scalars).
fn result_relation(cache: &SchemaCache, routine: &Routine, scalar: bool) -> Relation {
    if !scalar
        && let Some(relation) = routine
            .returns
            .relation
            .as_ref()
            .and_then(|name| cache.relations.get(name))
    {
        return relation.clone();
    }
    let name = if scalar {
        routine.name.name.clone()
    } else {
        routine
            .returns
            .relation
            .as_ref()
            .map_or_else(|| "record".to_owned(), |r| r.name.clone())
    };
    Relation {
        name: QualifiedName::new(routine.name.schema.clone(), name),
        description: None,
        is_view: false,
        insertable: false,
        updatable: false,
        deletable: false,
        primary_key: Vec::new(),
        plain_inserts: false,
        columns: if scalar {
            vec![Column {
                name: "pgrst_scalar".into(),
                description: None,
                nullable: true,
                data_type: routine.returns.data_type.clone(),
                nominal_type: routine.returns.data_type.clone(),
                max_length: None,
                default: None,
                enum_values: Vec::new(),
                generated: false,
                text_input_type: None,
                representation: Representation::default(),
            }]
        } else {
            Vec::new()
        },
    }
}
