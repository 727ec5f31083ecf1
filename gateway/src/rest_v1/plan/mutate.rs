//! Plans of table writes: INSERT (POST, also upserts and PUT), UPDATE (PATCH), DELETE.
//!
//! Errors in PostgREST's order: read-plan errors of the representation, PGRST105 (PUT
//! filters), PGRST204 (unknown payload column).

use std::collections::BTreeSet;

use actix_web::http::Method;

use super::read::{Condition, ReadNode, SelectPlan, plan_representation, root_conditions};
use crate::rest_v1::error::ApiError;
use crate::rest_v1::request::api_request::ApiRequest;
use crate::rest_v1::request::ast::{Operation, Operator};
use crate::rest_v1::request::payload::Payload;
use crate::rest_v1::request::preferences::{Missing, Resolution, Return};
use crate::rest_v1::schema_cache::{
    Cardinality, QualifiedName, Relation, Relationship, SchemaCache,
};

/// What a write returns from the table (`RETURNING`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Returnings {
    /// `RETURNING 1`: only the count matters.
    One,
    /// `RETURNING "s"."t".*`
    All,
    /// `RETURNING` these columns (sorted).
    Columns(Vec<String>),
    /// `RETURNING` the response GUCs, with no CTE around the `INSERT`: one object inserted
    /// into a plain table with nothing returned to the client. Its one row is the count and
    /// carries what PostgREST's outer `SELECT` would read
    /// (docs/decisions/0003-insert-without-cte.md).
    ResponseSettings,
}

/// A payload column with the type it is read as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayloadColumn {
    pub name: String,
    /// Declared type, typmod included (`character varying(20)`).
    pub sql_type: String,
    /// Default expression, for `Prefer: missing=default`.
    pub default: Option<String>,
    /// The data representation's `json` → domain function: the field is then read as
    /// `json` and passed through it.
    pub json_parser: Option<QualifiedName>,
}

/// One field of an object inserted with `VALUES`: the text its column's type reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextValue {
    /// The column's [`Column::text_input_type`](crate::rest_v1::schema_cache::Column).
    pub type_name: String,
    /// `None`: JSON `null`.
    pub text: Option<String>,
}

/// A primary-key value of a PUT's URL, which the payload's row must have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PutKey {
    pub column: String,
    pub value: String,
    /// The key column's data representation `text` → domain function, which reads the
    /// value as it reads any filter's.
    pub text_parser: Option<QualifiedName>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mutation {
    Insert {
        /// Conflict target and resolution of an upsert.
        on_conflict: Option<(Vec<String>, Resolution)>,
        /// PUT: the primary-key values from the URL, applied to the payload rows.
        put_keys: Vec<PutKey>,
    },
    Update,
    Delete,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MutatePlan {
    pub table: QualifiedName,
    pub mutation: Mutation,
    pub columns: Vec<PayloadColumn>,
    pub payload: Option<Payload>,
    /// `Prefer: missing=default` (POST and PATCH).
    pub missing_default: bool,
    /// The WHERE of UPDATE and DELETE.
    pub conditions: Vec<Condition>,
    pub returnings: Returnings,
    /// The read over the returned rows (`return=representation` only).
    pub representation: Option<ReadNode>,
    /// `select=*` without embedding (a relation's media type handler may answer).
    pub selects_whole_rows: bool,
    /// Primary-key columns for `Location` (`return=headers-only` inserts).
    pub location_keys: Option<Vec<String>>,
    /// Count really inserted rows (merge-duplicates upserts and PUT) for 200 vs 201.
    pub count_inserts: bool,
    /// The one object's fields in `columns` order, when the insert reads them from
    /// `VALUES` rather than through `json_to_record`
    /// (docs/decisions/0004-insert-from-values.md).
    pub values: Option<Vec<TextValue>>,
}

impl MutatePlan {
    /// `UPDATE` or `DELETE` when the statement would have no `WHERE` clause. Supabase loads
    /// pg-safeupdate for the API's database role, which refuses such statements with 21000
    /// "… requires a WHERE clause", so an unfiltered `PATCH` or `DELETE` cannot empty a table.
    /// A `PATCH` with nothing to set runs no `UPDATE` and is not refused.
    pub fn unfiltered_command(&self) -> Option<&'static str> {
        if !self.conditions.is_empty() {
            return None;
        }
        match self.mutation {
            Mutation::Delete => Some("DELETE"),
            Mutation::Update if !self.columns.is_empty() => Some("UPDATE"),
            _ => None,
        }
    }
}

pub fn plan_mutation(
    cache: &SchemaCache,
    relation: &Relation,
    request: &ApiRequest,
    payload: Option<Payload>,
) -> Result<MutatePlan, ApiError> {
    let preferences = &request.preferences;
    let representation = plan_representation(
        cache,
        &request.schema,
        relation,
        &request.query,
        cache.config.aggregates_enabled,
    )?;

    let put_keys = if request.method == Method::PUT {
        put_keys(relation, request)?
    } else {
        Vec::new()
    };

    let columns: Vec<PayloadColumn> = match &payload {
        Some(payload) => payload
            .keys
            .iter()
            .map(|key| {
                relation
                    .column(key)
                    .map(|column| PayloadColumn {
                        name: column.name.clone(),
                        sql_type: column.nominal_type.clone(),
                        default: column.default.clone(),
                        json_parser: column.representation.from_json.clone(),
                    })
                    .ok_or_else(|| ApiError::UnknownColumn {
                        column: key.clone(),
                        table: relation.name.name.clone(),
                    })
            })
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };

    let wants_rows = matches!(
        preferences.representation,
        Some(Return::Representation | Return::HeadersOnly)
    );
    let single_object = payload.as_ref().is_some_and(|payload| payload.object);
    let returnings = if wants_rows {
        returnings(relation, &representation)
    } else if request.method == Method::POST
        && preferences.resolution.is_none()
        && single_object
        && relation.plain_inserts
    {
        Returnings::ResponseSettings
    } else {
        Returnings::One
    };

    let missing_default = preferences.missing == Some(Missing::Default)
        && matches!(request.method, Method::POST | Method::PATCH);
    // POST only: PUT compares the body's key with the URL's before the other fields are
    // converted, and `json_to_record` converts every field first (a bad value is its
    // error, not PGRST115).
    let values = match &payload {
        Some(payload) if request.method == Method::POST && !missing_default => {
            text_values(relation, &columns, payload)
        }
        _ => None,
    };

    let mutation = match request.method {
        Method::POST => Mutation::Insert {
            on_conflict: preferences.resolution.and_then(|resolution| {
                let target = match &request.query.on_conflict {
                    Some(columns) => columns.clone(),
                    None => relation.primary_key.clone(),
                };
                (!target.is_empty()).then_some((target, resolution))
            }),
            put_keys: Vec::new(),
        },
        Method::PUT => Mutation::Insert {
            on_conflict: Some((relation.primary_key.clone(), Resolution::MergeDuplicates)),
            put_keys,
        },
        Method::PATCH => Mutation::Update,
        _ => Mutation::Delete,
    };
    let count_inserts = matches!(
        &mutation,
        Mutation::Insert {
            on_conflict: Some((_, Resolution::MergeDuplicates)),
            ..
        }
    );
    let location_keys = (request.method == Method::POST
        && preferences.representation == Some(Return::HeadersOnly)
        && !relation.primary_key.is_empty())
    .then(|| relation.primary_key.clone());

    Ok(MutatePlan {
        table: relation.name.clone(),
        conditions: match mutation {
            Mutation::Update | Mutation::Delete => root_conditions(relation, &request.query),
            Mutation::Insert { .. } => Vec::new(),
        },
        mutation,
        columns,
        payload,
        missing_default,
        returnings,
        selects_whole_rows: representation.selects_whole_rows(),
        representation: (preferences.representation == Some(Return::Representation))
            .then_some(representation),
        location_keys,
        count_inserts,
        values,
    })
}

/// The object's fields for `INSERT … VALUES`, in `columns` order, when each would reach its
/// column as `json_to_record` hands it over: every column's type reads JSON values through
/// its text input (not through a data representation's `json` parser), and every field has
/// a text form ([`Payload::text_field`]).
fn text_values(
    relation: &Relation,
    columns: &[PayloadColumn],
    payload: &Payload,
) -> Option<Vec<TextValue>> {
    if columns.is_empty() {
        return None;
    }
    columns
        .iter()
        .map(|column| {
            if column.json_parser.is_some() {
                return None;
            }
            Some(TextValue {
                type_name: relation.column(&column.name)?.text_input_type.clone()?,
                text: payload.text_field(&column.name)?,
            })
        })
        .collect()
}

/// `*` when the root selects everything or embeds a computed relationship; otherwise the
/// selected columns, the columns the embeds join on and the primary key, sorted.
fn returnings(relation: &Relation, representation: &ReadNode) -> Returnings {
    let computed = representation
        .children
        .iter()
        .any(|child| matches!(child.relationship, Relationship::Computed { .. }));
    if computed || representation.select.contains(&SelectPlan::Star) {
        return Returnings::All;
    }
    let mut names: BTreeSet<String> = BTreeSet::new();
    for item in &representation.select {
        if let SelectPlan::Column { column, .. } = item {
            names.insert(column.name.clone());
        }
    }
    for child in &representation.children {
        if let Relationship::ForeignKey { cardinality, .. } = &child.relationship {
            match cardinality {
                Cardinality::ManyToOne { columns, .. }
                | Cardinality::OneToMany { columns, .. }
                | Cardinality::OneToOne { columns, .. } => {
                    names.extend(columns.iter().map(|(own, _)| own.clone()));
                }
                Cardinality::ManyToMany(junction) => {
                    names.extend(junction.columns_source.iter().map(|(own, _)| own.clone()));
                }
            }
        }
    }
    names.extend(relation.primary_key.iter().cloned());
    Returnings::Columns(names.into_iter().collect())
}

/// PUT must name exactly the primary key, each with `eq`, and no logic trees (PGRST105).
fn put_keys(relation: &Relation, request: &ApiRequest) -> Result<Vec<PutKey>, ApiError> {
    let query = &request.query;
    if !query.logic.is_empty() || relation.primary_key.is_empty() {
        return Err(ApiError::PutFilters);
    }
    let raw_keys: BTreeSet<String> = query
        .filters
        .iter()
        .map(|(path, filter)| {
            let mut key = path.join(".");
            if !key.is_empty() {
                key.push('.');
            }
            key.push_str(&filter.field.name);
            key
        })
        .collect();
    let primary_key: BTreeSet<String> = relation.primary_key.iter().cloned().collect();
    if raw_keys != primary_key {
        return Err(ApiError::PutFilters);
    }
    query
        .filters
        .iter()
        .map(|(path, filter)| match &filter.operation {
            Operation::Compare {
                operator: Operator::Eq,
                quantifier: None,
                value,
            } if path.is_empty() && !filter.negated && filter.field.json_path.is_empty() => {
                Ok(PutKey {
                    column: filter.field.name.clone(),
                    value: value.clone(),
                    text_parser: relation
                        .column(&filter.field.name)
                        .and_then(|column| column.representation.from_text.clone()),
                })
            }
            _ => Err(ApiError::PutFilters),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest_v1::request::media::MediaType;
    use crate::rest_v1::request::payload::table_body;
    use crate::rest_v1::schema_cache::fixtures::{integer_column, table};
    use crate::rest_v1::schema_cache::{Column, Representation};

    fn column(name: &str, json_parser: Option<QualifiedName>) -> (Column, PayloadColumn) {
        let column = Column {
            representation: Representation {
                from_json: json_parser.clone(),
                ..Representation::default()
            },
            ..integer_column(name)
        };
        let payload_column = PayloadColumn {
            name: name.into(),
            sql_type: "integer".into(),
            default: None,
            json_parser,
        };
        (column, payload_column)
    }

    #[test]
    fn a_field_with_a_json_parser_keeps_the_object_out_of_values() {
        let (a, a_payload) = column("a", None);
        let (colour, colour_payload) =
            column("colour", Some(QualifiedName::new("public", "colour")));
        let relation = table("s", "t", vec![a, colour]);
        let payload = table_body(
            &MediaType::Json,
            br##"{"a": 1, "colour": "#00FF00"}"##,
            None,
        )
        .unwrap();
        let plain = text_values(&relation, std::slice::from_ref(&a_payload), &payload);
        assert_eq!(
            plain,
            Some(vec![TextValue {
                type_name: "pg_catalog.int4".into(),
                text: Some("1".into()),
            }])
        );
        assert_eq!(
            text_values(&relation, &[a_payload, colour_payload], &payload),
            None
        );
    }
}
