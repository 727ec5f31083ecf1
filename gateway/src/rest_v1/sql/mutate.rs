//! SQL for table writes, in the shape PostgREST generates:
//!
//! ```sql
//! WITH pgrst_source AS ( INSERT … | UPDATE … | DELETE … RETURNING … )
//! SELECT null::bigint AS total_result_set, pg_catalog.count(_postgrest_t) AS page_total,
//!        <Location parts> AS header, <body> AS body, <GUCs>, <inserted rows> AS response_inserted
//! FROM ( <representation read, or SELECT * FROM pgrst_source> ) _postgrest_t
//! ```
//!
//! The body is one `json` parameter, read with `json_to_record[set]` and the columns'
//! declared types, so values convert exactly as PostgreSQL converts JSON.
//!
//! Two common writes take shorter forms with the same answers: one object inserted into a
//! plain table with `return=minimal` goes without the CTE ([`Returnings::ResponseSettings`]),
//! and one object `POST`ed reads its fields from a one-row `VALUES` instead of
//! `json_to_record` when every field goes to its column's text input (`MutatePlan::values`).
//!
//! Why it works this way: docs/decisions/0003-insert-without-cte.md and
//! docs/decisions/0004-insert-from-values.md.

use super::fragment::{SqlBuilder, ident, qualified};
use super::read::{
    BodyFormat, Context, body_expression, filter_value, node_query, render_condition,
};
use crate::rest_v1::execute::ResultShape;
use crate::rest_v1::plan::mutate::{
    MutatePlan, Mutation, PayloadColumn, PutKey, Returnings, TextValue,
};
use crate::rest_v1::plan::read::Qualifier;
use crate::rest_v1::request::preferences::Resolution;

/// `set_config` counters of really inserted rows: +1 per payload row, −1 per row that
/// went through `DO UPDATE`.
const COUNT_INSERT: &str = "set_config('pgrst.inserted', (coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0) + 1)::text, true) <> '0'";
const UNCOUNT_UPDATE: &str = "set_config('pgrst.inserted', (coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0) - 1)::text, true) <> '-1'";

/// The response GUCs as PostgREST's statements read them.
const RESPONSE_GUCS: &str = "nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status";

/// The whole write statement and the shape of its result.
pub fn mutate_statement(plan: &MutatePlan, body: &BodyFormat) -> (SqlBuilder, ResultShape) {
    let mut sql = SqlBuilder::with_capacity(1024);
    if plan.returnings == Returnings::ResponseSettings
        && let Mutation::Insert {
            on_conflict: None,
            put_keys,
        } = &plan.mutation
    {
        insert(&mut sql, plan, None, put_keys);
        return (sql, ResultShape::GucsPerRow);
    }
    sql.push("WITH pgrst_source AS ( ");
    match &plan.mutation {
        Mutation::Insert {
            on_conflict,
            put_keys,
        } => insert(&mut sql, plan, on_conflict.as_ref(), put_keys),
        Mutation::Update => update(&mut sql, plan),
        Mutation::Delete => delete(&mut sql, plan),
    }
    sql.push(" ) SELECT null::bigint AS total_result_set, pg_catalog.count(_postgrest_t) AS page_total, ");
    match &plan.location_keys {
        Some(keys) => {
            sql.push(concat!(
                "CASE WHEN pg_catalog.count(_postgrest_t) = 1 THEN coalesce((",
                "WITH data AS (SELECT row_to_json(_) AS row FROM pgrst_source AS _ LIMIT 1) ",
                "SELECT array_agg(json_data.key || '=' || coalesce('eq.' || json_data.value, 'is.null')) ",
                "FROM data CROSS JOIN json_each_text(data.row) AS json_data WHERE json_data.key = ANY("
            ))
            .typed_param(crate::rest_v1::sql::read::array_literal(keys), "text[]")
            .push(")), array[]::text[]) ELSE array[]::text[] END");
        }
        None => {
            sql.push("array[]::text[]");
        }
    }
    sql.push(" AS header, ");
    let representation = plan
        .representation
        .as_ref()
        .filter(|_| *body != BodyFormat::None);
    sql.push(&if representation.is_some() {
        body_expression(body)
    } else {
        "''::text".into()
    });
    sql.push(" AS body, ")
        .push(RESPONSE_GUCS)
        .push(", ")
        .push(if plan.count_inserts {
            "nullif(current_setting('pgrst.inserted', true), '')::int"
        } else {
            "NULL::int"
        })
        .push(" AS response_inserted FROM ( ");
    match representation {
        Some(node) => node_query(&mut sql, node, None),
        None => {
            sql.push("SELECT * FROM pgrst_source");
        }
    }
    sql.push(" ) _postgrest_t");
    (sql, ResultShape::Summary)
}

fn table(plan: &MutatePlan) -> String {
    qualified(&plan.table.schema, &plan.table.name)
}

fn returning(sql: &mut SqlBuilder, plan: &MutatePlan) {
    let table = table(plan);
    sql.push(" RETURNING ");
    match &plan.returnings {
        Returnings::One => {
            sql.push("1");
        }
        Returnings::All => {
            sql.push(&table).push(".*");
        }
        Returnings::Columns(columns) => {
            sql.push_separated(columns, ", ", |sql, column| {
                sql.push(&table).push(".").ident(column);
            });
        }
        Returnings::ResponseSettings => {
            sql.push(RESPONSE_GUCS);
        }
    }
}

/// `FROM (SELECT $1::json AS json_data) pgrst_payload, [defaults,] LATERAL (…) pgrst_body`
fn payload_source(sql: &mut SqlBuilder, plan: &MutatePlan) {
    let Some(payload) = &plan.payload else {
        return;
    };
    let json = if plan.missing_default {
        "jsonb"
    } else {
        "json"
    };
    sql.push(" FROM (SELECT ")
        .typed_param(payload.json.clone(), json)
        .push(" AS json_data) pgrst_payload, ");
    let mut source = "pgrst_payload.json_data";
    if plan.missing_default {
        sql.push("LATERAL (SELECT ");
        if payload.object {
            defaults_object(sql, &plan.columns);
            sql.push(" || pgrst_payload.json_data AS val) pgrst_json_defs, ");
        } else {
            sql.push("jsonb_agg(");
            defaults_object(sql, &plan.columns);
            sql.push(" || elem) AS val FROM jsonb_array_elements(pgrst_payload.json_data) elem) pgrst_json_defs, ");
        }
        source = "pgrst_json_defs.val";
    }
    if plan.columns.is_empty() {
        if payload.object {
            sql.push("LATERAL (SELECT FROM (values(1)) _ ) pgrst_body");
        } else {
            sql.push(&format!(
                "LATERAL (SELECT FROM {json}_array_elements({source}) _ ) pgrst_body"
            ));
        }
        return;
    }
    let function = match (payload.object, plan.missing_default) {
        (true, false) => "json_to_record",
        (false, false) => "json_to_recordset",
        (true, true) => "jsonb_to_record",
        (false, true) => "jsonb_to_recordset",
    };
    sql.push("LATERAL (SELECT ")
        .push_separated(&plan.columns, ", ", |sql, column| {
            // A data representation's field is read as `json` and parsed by its function.
            if let Some(function) = &column.json_parser {
                sql.push(&qualified(&function.schema, &function.name))
                    .push("(")
                    .ident(&column.name)
                    .push(") AS ");
            }
            sql.ident(&column.name);
        })
        .push(" FROM ")
        .push(function)
        .push("(")
        .push(source)
        .push(") AS _(")
        .push_separated(&plan.columns, ", ", |sql, column| {
            // Declared types come from the catalog (`format_type`), which quotes where needed.
            let sql_type = match column.json_parser {
                Some(_) => "json",
                None => &column.sql_type,
            };
            sql.ident(&column.name).push(" ").push(sql_type);
        })
        .push(") ) pgrst_body");
}

/// `jsonb_build_object('col', <default>, …)` for payload columns that have a default. The
/// defaults are the catalog's own expressions.
fn defaults_object(sql: &mut SqlBuilder, columns: &[PayloadColumn]) {
    sql.push("jsonb_build_object(");
    let mut first = true;
    for column in columns {
        if let Some(default) = &column.default {
            if !first {
                sql.push(", ");
            }
            first = false;
            sql.typed_param(column.name.clone(), "text")
                .push(", ")
                .push(default);
        }
    }
    sql.push(")");
}

fn insert(
    sql: &mut SqlBuilder,
    plan: &MutatePlan,
    on_conflict: Option<&(Vec<String>, Resolution)>,
    put_keys: &[PutKey],
) {
    sql.push("INSERT INTO ").push(&table(plan));
    if plan.columns.is_empty() {
        sql.push(" SELECT");
    } else {
        sql.push("(")
            .push_separated(&plan.columns, ", ", |sql, column| {
                sql.ident(&column.name);
            })
            .push(") SELECT ")
            .push_separated(&plan.columns, ", ", |sql, column| {
                sql.push("\"pgrst_body\".").ident(&column.name);
            });
    }
    match &plan.values {
        Some(values) => values_source(sql, &plan.columns, values),
        None => payload_source(sql, plan),
    }

    let mut conditions = Vec::new();
    // PUT: only payload rows whose key equals the URL's (checked before counting).
    for key in put_keys {
        let mut condition = SqlBuilder::new();
        condition.push(&format!("\"pgrst_body\".{} = ", ident(&key.column)));
        filter_value(&mut condition, key.text_parser.as_ref(), key.value.clone());
        conditions.push(condition);
    }
    if plan.count_inserts {
        let mut condition = SqlBuilder::new();
        condition.push(COUNT_INSERT);
        conditions.push(condition);
    }
    if !conditions.is_empty() {
        sql.push(" WHERE ");
        for (index, condition) in conditions.into_iter().enumerate() {
            if index > 0 {
                sql.push(" AND ");
            }
            sql.extend(condition);
        }
    }

    if let Some((target, resolution)) = on_conflict {
        let target: Vec<String> = target.iter().map(|c| ident(c)).collect();
        sql.push(&format!(" ON CONFLICT({}) ", target.join(", ")));
        if *resolution == Resolution::IgnoreDuplicates || plan.columns.is_empty() {
            sql.push("DO NOTHING");
        } else {
            sql.push("DO UPDATE SET ")
                .push_separated(&plan.columns, ", ", |sql, column| {
                    sql.ident(&column.name)
                        .push(" = EXCLUDED.")
                        .ident(&column.name);
                });
            if plan.count_inserts {
                sql.push(" WHERE ").push(UNCOUNT_UPDATE);
            }
        }
    }
    returning(sql, plan);
}

/// `FROM (VALUES (pg_catalog.concat($1::text)::pg_catalog.int4, NULL::pg_catalog.text))
/// pgrst_body("a", "b")` (docs/decisions/0004-insert-from-values.md). Each value is cast to
/// its column's type, or the `VALUES` column would be `text`, which no assignment turns into
/// an `int`.
fn values_source(sql: &mut SqlBuilder, columns: &[PayloadColumn], values: &[TextValue]) {
    sql.push(" FROM (VALUES (")
        .push_separated(values, ", ", |sql, value| {
            match &value.text {
                Some(text) => {
                    sql.push("pg_catalog.concat(")
                        .typed_param(text.clone(), "text")
                        .push(")");
                }
                None => {
                    sql.push("NULL");
                }
            }
            // The type's name comes from the catalog (`quote_ident`).
            sql.push("::").push(&value.type_name);
        })
        .push(")) pgrst_body(")
        .push_separated(columns, ", ", |sql, column| {
            sql.ident(&column.name);
        })
        .push(")");
}

fn where_conditions(sql: &mut SqlBuilder, plan: &MutatePlan) {
    if plan.conditions.is_empty() {
        return;
    }
    let table = table(plan);
    // Root conditions never involve embeds, so any node serves as their context.
    let context_node = crate::rest_v1::plan::read::ReadNode::empty(
        plan.table.clone(),
        Qualifier::Table(plan.table.clone()),
    );
    sql.push(" WHERE ");
    for (index, condition) in plan.conditions.iter().enumerate() {
        if index > 0 {
            sql.push(" AND ");
        }
        render_condition(sql, &table, condition, &context_node, Context::Main);
    }
}

fn update(sql: &mut SqlBuilder, plan: &MutatePlan) {
    if plan.columns.is_empty() {
        // Nothing to set: no UPDATE runs (and no trigger fires).
        let bare = ident(&plan.table.name);
        let selected = match &plan.returnings {
            Returnings::One | Returnings::ResponseSettings => "NULL".to_owned(),
            Returnings::All => format!("{bare}.*"),
            Returnings::Columns(columns) => columns
                .iter()
                .map(|c| format!("{bare}.{}", ident(c)))
                .collect::<Vec<_>>()
                .join(", "),
        };
        sql.push(&format!("SELECT {selected} FROM "))
            .push(&table(plan))
            .push(" WHERE false");
        return;
    }
    let sets: Vec<String> = plan
        .columns
        .iter()
        .map(|c| format!("{0} = \"pgrst_body\".{0}", ident(&c.name)))
        .collect();
    sql.push("UPDATE ")
        .push(&table(plan))
        .push(" SET ")
        .push(&sets.join(", "));
    payload_source(sql, plan);
    where_conditions(sql, plan);
    returning(sql, plan);
}

fn delete(sql: &mut SqlBuilder, plan: &MutatePlan) {
    sql.push("DELETE FROM ").push(&table(plan));
    where_conditions(sql, plan);
    returning(sql, plan);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest_v1::request::payload::Payload;
    use crate::rest_v1::schema_cache::QualifiedName;

    fn insert_of_one_object(returnings: Returnings) -> MutatePlan {
        MutatePlan {
            table: QualifiedName::new("s", "t"),
            mutation: Mutation::Insert {
                on_conflict: None,
                put_keys: Vec::new(),
            },
            columns: vec![PayloadColumn {
                name: "a".into(),
                sql_type: "integer".into(),
                default: None,
                json_parser: None,
            }],
            payload: Some(Payload {
                json: r#"{"a":1}"#.into(),
                object: true,
                keys: vec!["a".into()],
                value_spans: None,
            }),
            missing_default: false,
            conditions: Vec::new(),
            returnings,
            representation: None,
            selects_whole_rows: true,
            location_keys: None,
            count_inserts: false,
            values: None,
        }
    }

    const INSERT: &str = concat!(
        r#"INSERT INTO "s"."t"("a") SELECT "pgrst_body"."a" FROM (SELECT $1::json AS json_data) pgrst_payload, "#,
        r#"LATERAL (SELECT "a" FROM json_to_record(pgrst_payload.json_data) AS _("a" integer) ) pgrst_body"#,
    );

    #[test]
    fn an_insert_returning_the_response_gucs_has_no_cte() {
        let (sql, shape) = mutate_statement(
            &insert_of_one_object(Returnings::ResponseSettings),
            &BodyFormat::None,
        );
        assert_eq!(shape, ResultShape::GucsPerRow);
        assert_eq!(sql.sql(), format!("{INSERT} RETURNING {RESPONSE_GUCS}"));
    }

    #[test]
    fn an_object_of_text_values_is_inserted_with_values() {
        let mut plan = insert_of_one_object(Returnings::ResponseSettings);
        plan.columns.push(PayloadColumn {
            name: "b".into(),
            sql_type: "character varying(3)".into(),
            default: None,
            json_parser: None,
        });
        plan.values = Some(vec![
            TextValue {
                type_name: "pg_catalog.int4".into(),
                text: Some("1".into()),
            },
            TextValue {
                type_name: r#"pg_catalog."varchar""#.into(),
                text: None,
            },
        ]);
        const VALUES_INSERT: &str = concat!(
            r#"INSERT INTO "s"."t"("a", "b") SELECT "pgrst_body"."a", "pgrst_body"."b" "#,
            r#"FROM (VALUES (pg_catalog.concat($1::text)::pg_catalog.int4, NULL::pg_catalog."varchar")) pgrst_body("a", "b")"#,
        );
        let (sql, shape) = mutate_statement(&plan, &BodyFormat::None);
        assert_eq!(shape, ResultShape::GucsPerRow);
        assert_eq!(
            sql.sql(),
            format!("{VALUES_INSERT} RETURNING {RESPONSE_GUCS}")
        );
        let params: Vec<&str> = sql.params().iter().map(|p| p.0.as_str()).collect();
        assert_eq!(params, ["1"]);
        // Inside PostgREST's CTE, and with an upsert's conflict clause, the same source.
        plan.returnings = Returnings::One;
        plan.mutation = Mutation::Insert {
            on_conflict: Some((vec!["a".into()], Resolution::IgnoreDuplicates)),
            put_keys: Vec::new(),
        };
        let (sql, shape) = mutate_statement(&plan, &BodyFormat::None);
        assert_eq!(shape, ResultShape::Summary);
        assert!(
            sql.sql().starts_with(&format!(
                r#"WITH pgrst_source AS ( {VALUES_INSERT} ON CONFLICT("a") DO NOTHING RETURNING 1 ) SELECT "#
            )),
            "{}",
            sql.sql()
        );
    }

    #[test]
    fn a_data_representations_field_is_read_as_json_and_parsed_by_its_function() {
        let mut plan = insert_of_one_object(Returnings::ResponseSettings);
        plan.columns.push(PayloadColumn {
            name: "colour".into(),
            sql_type: "public.colour".into(),
            default: None,
            json_parser: Some(QualifiedName::new("public", "colour")),
        });
        let (sql, _) = mutate_statement(&plan, &BodyFormat::None);
        assert_eq!(
            sql.sql(),
            concat!(
                r#"INSERT INTO "s"."t"("a", "colour") SELECT "pgrst_body"."a", "pgrst_body"."colour" "#,
                r#"FROM (SELECT $1::json AS json_data) pgrst_payload, LATERAL (SELECT "a", "public"."colour"("colour") AS "colour" "#,
                r#"FROM json_to_record(pgrst_payload.json_data) AS _("a" integer, "colour" json) ) pgrst_body "#,
                "RETURNING nullif(current_setting('response.headers', true), '') AS response_headers, ",
                "nullif(current_setting('response.status', true), '') AS response_status",
            )
        );
        // PATCH reads the body the same way.
        plan.mutation = Mutation::Update;
        plan.returnings = Returnings::One;
        let (sql, _) = mutate_statement(&plan, &BodyFormat::None);
        assert!(
            sql.sql().contains(concat!(
                r#"UPDATE "s"."t" SET "a" = "pgrst_body"."a", "colour" = "pgrst_body"."colour" "#,
                r#"FROM (SELECT $1::json AS json_data) pgrst_payload, LATERAL (SELECT "a", "public"."colour"("colour") AS "colour" "#,
                r#"FROM json_to_record(pgrst_payload.json_data) AS _("a" integer, "colour" json) ) pgrst_body"#,
            )),
            "{}",
            sql.sql()
        );
    }

    #[test]
    fn a_put_key_of_a_represented_column_is_read_by_its_text_function() {
        let mut plan = insert_of_one_object(Returnings::One);
        plan.mutation = Mutation::Insert {
            on_conflict: Some((vec!["a".into()], Resolution::MergeDuplicates)),
            put_keys: vec![PutKey {
                column: "a".into(),
                value: "00FF00".into(),
                text_parser: Some(QualifiedName::new("public", "colour")),
            }],
        };
        let (sql, _) = mutate_statement(&plan, &BodyFormat::None);
        assert!(
            sql.sql().contains(r#"pgrst_body WHERE "pgrst_body"."a" = "public"."colour"($2::text) ON CONFLICT("a") DO UPDATE"#),
            "{}",
            sql.sql()
        );
        assert_eq!(sql.params()[1].0, "00FF00");
    }

    #[test]
    fn other_writes_keep_postgrests_cte_and_summary_row() {
        let (sql, shape) =
            mutate_statement(&insert_of_one_object(Returnings::One), &BodyFormat::None);
        assert_eq!(shape, ResultShape::Summary);
        assert_eq!(
            sql.sql(),
            format!(
                "WITH pgrst_source AS ( {INSERT} RETURNING 1 ) SELECT null::bigint AS total_result_set, \
                 pg_catalog.count(_postgrest_t) AS page_total, array[]::text[] AS header, ''::text AS body, \
                 {RESPONSE_GUCS}, NULL::int AS response_inserted FROM ( SELECT * FROM pgrst_source ) _postgrest_t"
            )
        );
    }
}
