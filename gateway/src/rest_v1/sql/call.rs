//! SQL for function calls, in the shape PostgREST generates:
//!
//! ```sql
//! WITH pgrst_source AS ( <call> ) [, pgrst_source_count AS ( <count query> )]
//! SELECT <total> AS total_result_set, <page total> AS page_total, array[]::text[] AS header,
//!        <body> AS body, <GUCs>, NULL::int AS response_inserted
//! FROM ( <read over pgrst_source> ) _postgrest_t
//! ```
//!
//! `<call>` passes arguments in named notation (`"a" := …`), only those the client gave,
//! so omitted parameters take their defaults. Scalars are wrapped as `pgrst_scalar`.

use super::fragment::{SqlBuilder, ident, qualified};
use super::read::{BodyFormat, CountMode, count_query, node_query};
use crate::rest_v1::plan::call::{CallArgs, CallPlan};
use crate::rest_v1::schema_cache::RoutineParam;

/// The whole call statement. `body` is the negotiated format (`None` for HEAD).
pub fn call_statement(
    plan: &CallPlan,
    body: &BodyFormat,
    count: CountMode,
    has_range: bool,
) -> SqlBuilder {
    let mut sql = SqlBuilder::new();
    sql.push("WITH pgrst_source AS ( ");
    call(&mut sql, plan);
    sql.push(" )");
    let total = match count {
        CountMode::None => "null::bigint".to_owned(),
        CountMode::Exact { .. } if !has_range && !casts_scalar(plan, body) => {
            "pg_catalog.count(_postgrest_t)".to_owned()
        }
        CountMode::Exact { .. } => {
            sql.push(", pgrst_source_count AS ( ");
            count_query(&mut sql, &plan.read, None);
            sql.push(" )");
            "(SELECT pg_catalog.count(*) FROM pgrst_source_count)".to_owned()
        }
    };
    let single = !plan.routine.returns.set_of;
    sql.push(" SELECT ")
        .push(&total)
        .push(" AS total_result_set, ")
        .push(if single {
            "1::bigint"
        } else {
            "pg_catalog.count(_postgrest_t)"
        })
        .push(" AS page_total, array[]::text[] AS header, ")
        .push(&body_expression(plan, body))
        .push(
            " AS body, nullif(current_setting('response.headers', true), '') AS response_headers, ",
        )
        .push("nullif(current_setting('response.status', true), '') AS response_status, ")
        .push("NULL::int AS response_inserted FROM ( ");
    node_query(&mut sql, &plan.read, None);
    sql.push(" ) _postgrest_t");
    sql
}

/// Whether the body is a single scalar cast to a media type handler's domain: one row per
/// row read, no aggregate (so no count over the same rows either).
fn casts_scalar(plan: &CallPlan, body: &BodyFormat) -> bool {
    matches!(body, BodyFormat::Handler { .. }) && plan.scalar && !plan.routine.returns.set_of
}

/// The body of a call's response: bare values for scalars, objects for composites; a
/// media type handler gets a single scalar itself (cast to the handler's domain, or
/// aggregated), anything else as the rows.
fn body_expression(plan: &CallPlan, body: &BodyFormat) -> String {
    if plan.routine.returns.is_void {
        return "''::text".to_owned();
    }
    let set_of = plan.routine.returns.set_of;
    if let BodyFormat::Handler { function, .. } = body
        && casts_scalar(plan, body)
    {
        return format!(
            "{}(_postgrest_t.pgrst_scalar)",
            qualified(&function.schema, &function.name)
        );
    }
    if !plan.scalar {
        let single_row = !set_of;
        return super::read::body_expression(&match body {
            BodyFormat::Array { strip_nulls } if single_row => BodyFormat::Object {
                strip_nulls: *strip_nulls,
            },
            other => other.clone(),
        })
        .into_owned();
    }
    let (aggregate, strip) = match body {
        BodyFormat::None => return "''::text".to_owned(),
        BodyFormat::Array { strip_nulls } if set_of => {
            ("json_agg(_postgrest_t.pgrst_scalar)", *strip_nulls)
        }
        BodyFormat::Array { strip_nulls } | BodyFormat::Object { strip_nulls } => {
            ("json_agg(_postgrest_t.pgrst_scalar)->0", *strip_nulls)
        }
        BodyFormat::Csv | BodyFormat::GeoJson | BodyFormat::Handler { .. } => {
            return super::read::body_expression(body).into_owned();
        }
    };
    let empty = if aggregate.ends_with("->0") {
        "'null'"
    } else {
        "'[]'"
    };
    if strip {
        format!("coalesce(json_strip_nulls({aggregate}), {empty})::text")
    } else {
        format!("coalesce({aggregate}, {empty})::text")
    }
}

/// `character` and `bit` parameters take longer values as their varying forms do.
fn casting_type(data_type: &str) -> String {
    for (fixed, varying) in [("character", "character varying"), ("bit", "bit varying")] {
        if let Some(rest) = data_type.strip_prefix(fixed)
            && (rest.is_empty() || rest == "[]" || rest.starts_with('['))
        {
            return format!("{varying}{rest}");
        }
    }
    data_type.to_owned()
}

/// The call itself: `SELECT … FROM "s"."fn"(…) pgrst_call`, preceded by the body source
/// for JSON arguments.
fn call(sql: &mut SqlBuilder, plan: &CallPlan) {
    let function = qualified(&plan.routine.name.schema, &plan.routine.name.name);
    let mut arguments = SqlBuilder::new();
    let mut body_source: Option<SqlBuilder> = None;
    match &plan.args {
        CallArgs::None => {}
        CallArgs::Direct(values) => {
            for (index, (param, values)) in values.iter().enumerate() {
                if index > 0 {
                    arguments.push(", ");
                }
                direct_argument(&mut arguments, param, values);
            }
        }
        CallArgs::Json { payload, params } => {
            let mut source = SqlBuilder::new();
            source
                .push("(SELECT ")
                .typed_param(payload.json.clone(), "json")
                .push(" AS json_data) pgrst_payload, LATERAL (SELECT ");
            let names: Vec<String> = params.iter().map(|p| ident(&p.name)).collect();
            let definitions: Vec<String> = params
                .iter()
                .map(|p| format!("{} {}", ident(&p.name), casting_type(&p.data_type)))
                .collect();
            source.push(&format!(
                "{} FROM {}(pgrst_payload.json_data) AS _({}) LIMIT 1) pgrst_body",
                names.join(", "),
                if payload.object {
                    "json_to_record"
                } else {
                    "json_to_recordset"
                },
                definitions.join(", ")
            ));
            body_source = Some(source);
            for (index, param) in params.iter().enumerate() {
                if index > 0 {
                    arguments.push(", ");
                }
                if param.variadic {
                    arguments.push("VARIADIC ");
                }
                let name = ident(&param.name);
                arguments.push(&format!("{name} := pgrst_body.{name}"));
            }
        }
        CallArgs::Single { param, body } => {
            if param.data_type == "bytea" {
                arguments.typed_param(hex_bytea(body), "bytea");
            } else {
                arguments.typed_param(
                    String::from_utf8_lossy(body).into_owned(),
                    &casting_type(&param.data_type),
                );
            }
        }
    }

    if plan.scalar {
        sql.push("SELECT pgrst_call.pgrst_scalar FROM ");
        match body_source {
            Some(source) => {
                sql.extend(source).push(", LATERAL (SELECT ");
            }
            None => {
                sql.push("(SELECT ");
            }
        }
        sql.push(&function)
            .push("(")
            .extend(arguments)
            .push(") pgrst_scalar) pgrst_call");
    } else {
        sql.push("SELECT \"pgrst_call\".*");
        for field in &plan.computed_fields {
            sql.push(", \"pgrst_call\".").push(&ident(field));
        }
        sql.push(" FROM ");
        if let Some(source) = body_source {
            sql.extend(source).push(", LATERAL ");
        }
        sql.push(&function)
            .push("(")
            .extend(arguments)
            .push(") pgrst_call");
    }
}

/// `"a" := $1::integer`, or `VARIADIC "v" := $2::text[]` with every repeated value.
fn direct_argument(sql: &mut SqlBuilder, param: &RoutineParam, values: &[String]) {
    let name = ident(&param.name);
    if param.variadic {
        sql.push("VARIADIC ").push(&name).push(" := ").typed_param(
            super::read::array_literal(values),
            &casting_type(&param.data_type),
        );
        return;
    }
    sql.push(&name).push(" := ");
    match values.last() {
        Some(value) => {
            sql.typed_param(value.clone(), &casting_type(&param.data_type));
        }
        None => {
            sql.push("NULL");
        }
    }
}

/// `\x…`: bytea's text input form, so raw bytes travel as a text parameter.
fn hex_bytea(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(2 + bytes.len() * 2);
    text.push_str("\\x");
    for byte in bytes {
        text.push_str(&format!("{byte:02x}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest_v1::plan::read::{Qualifier, ReadNode, SelectPlan};
    use crate::rest_v1::schema_cache::{QualifiedName, Routine, RoutineReturn, Volatility};

    fn scalar_call(set_of: bool) -> CallPlan {
        let name = QualifiedName::new("test", "welcome");
        CallPlan {
            routine: Routine {
                name: name.clone(),
                description: None,
                params: Vec::new(),
                returns: RoutineReturn {
                    set_of,
                    relation: None,
                    composite: false,
                    data_type: "text".into(),
                    is_void: false,
                },
                volatility: Volatility::Stable,
                settings: Vec::new(),
                isolation_level: None,
            },
            args: CallArgs::None,
            read: ReadNode {
                select: vec![SelectPlan::Star],
                from_cte: true,
                ..ReadNode::empty(name, Qualifier::Alias("welcome".into()))
            },
            scalar: true,
            read_only: true,
            computed_fields: Vec::new(),
        }
    }

    #[test]
    fn a_single_scalar_is_cast_to_its_media_type_domain() {
        let handler = BodyFormat::Handler {
            function: QualifiedName::new("test", "text/plain"),
            row_type: Some(QualifiedName::new("test", "welcome")),
        };
        assert_eq!(
            body_expression(&scalar_call(false), &handler),
            r#""test"."text/plain"(_postgrest_t.pgrst_scalar)"#
        );
        // A set of scalars is aggregated like rows (by an `anyelement` handler).
        let aggregate = BodyFormat::Handler {
            function: QualifiedName::new("test", "outfunc_agg"),
            row_type: None,
        };
        assert_eq!(
            body_expression(&scalar_call(true), &aggregate),
            r#""test"."outfunc_agg"(_postgrest_t)"#
        );
        // Nothing is aggregated, so an exact count is taken over its own rows.
        let counted = call_statement(
            &scalar_call(false),
            &handler,
            CountMode::Exact { limit: None },
            false,
        );
        assert!(
            counted.sql().contains(
                "(SELECT pg_catalog.count(*) FROM pgrst_source_count) AS total_result_set"
            ),
            "{}",
            counted.sql()
        );
    }

    #[test]
    fn fixed_length_types_cast_as_varying() {
        assert_eq!(casting_type("character"), "character varying");
        assert_eq!(casting_type("character[]"), "character varying[]");
        assert_eq!(casting_type("bit"), "bit varying");
        assert_eq!(casting_type("character varying"), "character varying");
        assert_eq!(casting_type("bigint"), "bigint");
        assert_eq!(casting_type("bitstring"), "bitstring");
    }

    #[test]
    fn bytes_are_hex_encoded() {
        assert_eq!(hex_bytea(&[0, 255, 16]), "\\x00ff10");
    }
}
