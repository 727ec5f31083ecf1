//! SQL for reads, in the shape PostgREST generates.
//!
//! ```sql
//! WITH pgrst_source AS ( <node query> ) [, pgrst_source_count AS ( <count query> )]
//! SELECT <total> AS total_result_set, pg_catalog.count(_postgrest_t) AS page_total,
//!        <body> AS body, <response.headers GUC>, <response.status GUC>
//! FROM ( SELECT * FROM pgrst_source ) _postgrest_t
//! ```
//!
//! Embedded resources are lateral subqueries: to-one ones become `row_to_json(…)::jsonb`,
//! to-many ones `json_agg(…)::jsonb` (so embedded objects have jsonb key order, as in
//! PostgREST), and the root array is built by `json_agg` in the database.

use std::borrow::Cow;

use super::fragment::{SqlBuilder, ident, qualified};
use crate::rest_v1::plan::read::{
    ChildNode, ColumnRef, Condition, OrderBy, OrderPlan, Qualifier, ReadNode, SelectPlan,
};
use crate::rest_v1::request::ast::{
    Direction, FtsOperator, IsValue, JoinType, JsonKey, JsonStep, LogicOperator, Nulls, Operation,
    Operator, Quantifier,
};
use crate::rest_v1::schema_cache::{Cardinality, QualifiedName, Relationship};

/// What the response body is built as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyFormat {
    /// `application/json`: an array.
    Array {
        strip_nulls: bool,
    },
    /// `application/vnd.pgrst.object+json`: the first row (the caller checks there is one).
    Object {
        strip_nulls: bool,
    },
    Csv,
    /// `application/geo+json` (needs PostGIS for `ST_AsGeoJSON`).
    GeoJson,
    /// A media type handler of the database (`schema_cache::MediaHandler`): the aggregate
    /// over the rows, cast to `row_type` when the handler is for one relation; a scalar
    /// function's value is instead cast to the handler (`sql::call`).
    Handler {
        function: QualifiedName,
        row_type: Option<QualifiedName>,
    },
    /// HEAD: no body.
    None,
}

/// Which total, if any, the statement computes itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountMode {
    None,
    /// Exact count, with the count CTE limited to `limit` rows when set (estimated).
    Exact {
        limit: Option<i64>,
    },
}

/// The whole read statement.
pub fn read_statement(
    root: &ReadNode,
    body: BodyFormat,
    count: CountMode,
    has_range: bool,
) -> SqlBuilder {
    let mut sql = SqlBuilder::with_capacity(1024);
    sql.push("WITH pgrst_source AS ( ");
    node_query(&mut sql, root, None);
    sql.push(" )");
    let total = match count {
        CountMode::None => "null::bigint",
        // Without a limit anywhere, the page is the whole result.
        CountMode::Exact { limit: None } if !has_range => "pg_catalog.count(_postgrest_t)",
        CountMode::Exact { limit } => {
            sql.push(", pgrst_source_count AS ( ");
            count_query(&mut sql, root, None);
            if let Some(limit) = limit {
                sql.push(" LIMIT ").param(limit.to_string());
            }
            sql.push(" )");
            "(SELECT pg_catalog.count(*) FROM pgrst_source_count)"
        }
    };
    sql.push(" SELECT ")
        .push(total)
        .push(" AS total_result_set, pg_catalog.count(_postgrest_t) AS page_total, ")
        .push(&body_expression(&body))
        .push(
            " AS body, nullif(current_setting('response.headers', true), '') AS response_headers, ",
        )
        .push("nullif(current_setting('response.status', true), '') AS response_status ")
        .push("FROM ( SELECT * FROM pgrst_source ) _postgrest_t");
    sql
}

/// The count query alone, for `EXPLAIN` (planned and estimated counts).
pub fn count_statement(root: &ReadNode) -> SqlBuilder {
    let mut sql = SqlBuilder::new();
    count_query(&mut sql, root, None);
    sql
}

pub(crate) fn body_expression(body: &BodyFormat) -> Cow<'static, str> {
    Cow::Borrowed(match body {
        BodyFormat::Array { strip_nulls: false } => "coalesce(json_agg(_postgrest_t), '[]')::text",
        BodyFormat::Array { strip_nulls: true } => {
            "coalesce(json_strip_nulls(json_agg(_postgrest_t)), '[]')::text"
        }
        BodyFormat::Object { strip_nulls: false } => {
            "coalesce(json_agg(_postgrest_t)->0, 'null')::text"
        }
        BodyFormat::Object { strip_nulls: true } => {
            "coalesce(json_strip_nulls(json_agg(_postgrest_t)->0), 'null')::text"
        }
        BodyFormat::Csv => concat!(
            "(SELECT coalesce(string_agg(a.k, ','), '') FROM (SELECT json_object_keys(r)::text AS k ",
            "FROM (SELECT row_to_json(hh) AS r FROM pgrst_source AS hh LIMIT 1) s) a) || E'\\n' || ",
            "coalesce(string_agg(substring(_postgrest_t::text, 2, length(_postgrest_t::text) - 2), E'\\n'), '')"
        ),
        BodyFormat::GeoJson => concat!(
            "json_build_object('type', 'FeatureCollection', 'features', ",
            "coalesce(json_agg(ST_AsGeoJSON(_postgrest_t)::json), '[]'))::text"
        ),
        BodyFormat::Handler { function, row_type } => {
            let function = qualified(&function.schema, &function.name);
            return Cow::Owned(match row_type {
                Some(row_type) => format!(
                    "{function}(_postgrest_t::{})",
                    qualified(&row_type.schema, &row_type.name)
                ),
                None => format!("{function}(_postgrest_t)"),
            });
        }
        BodyFormat::None => "''::text",
    })
}

/// SQL text of a node's qualifier.
fn qualifier_sql(qualifier: &Qualifier) -> String {
    match qualifier {
        Qualifier::Table(name) => qualified(&name.schema, &name.name),
        Qualifier::Alias(alias) => ident(alias),
    }
}

/// `<q>."col"` with its JSON path.
fn column_expression(sql: &mut SqlBuilder, qualifier: &str, column: &ColumnRef) {
    if column.json_path.is_empty() {
        // The common case, written in place.
        sql.push(qualifier).push(".").ident(&column.name);
        return;
    }
    let base = format!("{qualifier}.{}", ident(&column.name));
    json_path(sql, &base, column.is_json(), &column.json_path);
}

/// A selected column: through its data representation's function (domain → `json`) when it
/// has one, JSON path included, as PostgREST applies it.
fn output_expression(sql: &mut SqlBuilder, qualifier: &str, column: &ColumnRef) {
    match &column.transform {
        Some(function) => {
            sql.push(&qualified(&function.schema, &function.name))
                .push("(");
            column_expression(sql, qualifier, column);
            sql.push(")");
        }
        None => column_expression(sql, qualifier, column),
    }
}

/// A filter's value from the query string: through the data representation's function
/// (`text` → domain) in `parser` when there is one, else left for the server to type.
pub(crate) fn filter_value(sql: &mut SqlBuilder, parser: Option<&QualifiedName>, value: String) {
    match parser {
        Some(function) => {
            sql.push(&qualified(&function.schema, &function.name))
                .push("(")
                .typed_param(value, "text")
                .push(")");
        }
        None => {
            sql.param(value);
        }
    }
}

fn json_path(sql: &mut SqlBuilder, base: &str, is_json: bool, path: &[JsonStep]) {
    if path.is_empty() {
        sql.push(base);
        return;
    }
    if is_json {
        sql.push(base);
    } else {
        sql.push("to_jsonb(").push(base).push(")");
    }
    for step in path {
        sql.push(match step {
            JsonStep::Arrow(_) => "->",
            JsonStep::DoubleArrow(_) => "->>",
        });
        match step.key() {
            JsonKey::Key(key) => {
                sql.param(key.clone());
            }
            JsonKey::Index(index) => {
                sql.typed_param(format!("{index:+}"), "int");
            }
        }
    }
}

fn select_item(sql: &mut SqlBuilder, qualifier: &str, item: &SelectPlan) {
    match item {
        SelectPlan::Star => {
            sql.push(qualifier).push(".*");
        }
        SelectPlan::Column {
            column,
            alias,
            cast,
            aggregate,
            aggregate_cast,
        } => {
            if aggregate_cast.is_some() {
                sql.push("CAST( ");
            }
            if let Some(aggregate) = aggregate {
                sql.push(&aggregate.name().to_uppercase()).push("(");
            }
            if cast.is_some() {
                sql.push("CAST( ");
            }
            output_expression(sql, qualifier, column);
            if let Some(cast) = cast {
                // The parser only lets letters, digits, `_`, `$` and spaces through.
                sql.push(" AS ").push(cast).push(" )");
            }
            if aggregate.is_some() {
                sql.push(")");
            }
            if let Some(cast) = aggregate_cast {
                sql.push(" AS ").push(cast).push(" )");
            }
            if let Some(alias) = alias {
                sql.push(" AS ").ident(alias);
            }
        }
        SelectPlan::Count { alias, cast } => {
            if cast.is_some() {
                sql.push("CAST( ");
            }
            sql.push("COUNT(").push(qualifier).push(".*)");
            if let Some(cast) = cast {
                sql.push(" AS ").push(cast).push(" )");
            }
            if let Some(alias) = alias {
                sql.push(" AS ").ident(alias);
            }
        }
    }
}

/// The output column names of a child, as its parent sees them in the lateral join.
fn output_columns(node: &ReadNode) -> Vec<String> {
    let mut names: Vec<String> = node
        .select
        .iter()
        .filter(|item| !matches!(item, SelectPlan::Star))
        .map(SelectPlan::output_name)
        .collect();
    for child in &node.children {
        if child.spread {
            names.extend(output_columns(&child.node));
        } else if !child.node.is_empty() {
            names.push(child.output_name().to_owned());
        }
    }
    names
}

/// `SELECT … FROM … WHERE … GROUP BY … ORDER BY … LIMIT …` of one node. `parent` is the
/// SQL qualifier of the parent node (for join conditions).
pub(crate) fn node_query(
    sql: &mut SqlBuilder,
    node: &ReadNode,
    parent: Option<(&str, &ChildNode)>,
) {
    let qualifier = qualifier_sql(&node.qualifier);
    let in_to_many_spread = parent.is_some_and(|(_, child)| child.spread && !child.to_one);
    let hoisting = parent.is_some_and(|(_, child)| child.spread && child.to_one);

    // SELECT list.
    let mut items: Vec<SqlBuilder> = Vec::new();
    let mut group_by: Vec<SqlBuilder> = Vec::new();
    let own_aggregates = node.has_aggregates() && !hoisting;
    for item in &node.select {
        let mut fragment = SqlBuilder::new();
        if hoisting && item.is_aggregate() {
            // Aggregates inside a to-one spread are applied by the parent: select the input.
            hoisted_input(&mut fragment, &qualifier, item);
        } else {
            select_item(&mut fragment, &qualifier, item);
            if own_aggregates && !item.is_aggregate() {
                group_by.push(group_key(&qualifier, item));
            }
        }
        items.push(fragment);
    }
    if in_to_many_spread {
        // Order helpers: the spread's arrays are ordered by these columns.
        if let Some((_, child)) = parent {
            for (index, term) in node.order.iter().enumerate() {
                let mut fragment = SqlBuilder::new();
                order_expression(&mut fragment, &qualifier, &term.by);
                fragment
                    .push(" AS ")
                    .ident(&order_helper_name(child, term, index));
                items.push(fragment);
            }
        }
    }
    let aggregated_here = node.has_aggregates()
        || node
            .children
            .iter()
            .any(|child| child.spread && child.to_one && child.node.has_aggregates());
    for child in &node.children {
        let agg = ident(&child.agg_alias);
        if child.spread && child.node.select.contains(&SelectPlan::Star) {
            // Only to-one spreads keep `*` (the planner expands it elsewhere): every column
            // of the lateral join, nested embeds included.
            let mut fragment = SqlBuilder::new();
            fragment.push(&format!("{agg}.*"));
            items.push(fragment);
        } else if child.spread {
            for item in &child.node.select {
                let name = item.output_name();
                let mut fragment = SqlBuilder::new();
                if child.to_one && item.is_aggregate() {
                    hoisted_aggregate(&mut fragment, &agg, item);
                } else {
                    fragment.push(&format!("{agg}.{}", ident(&name)));
                    if aggregated_here {
                        let mut key = SqlBuilder::new();
                        key.push(&format!("{agg}.{}", ident(&name)));
                        group_by.push(key);
                    }
                }
                items.push(fragment);
            }
            for grandchild in &child.node.children {
                for name in if grandchild.spread {
                    output_columns(&grandchild.node)
                } else if grandchild.node.is_empty() {
                    Vec::new()
                } else {
                    vec![grandchild.output_name().to_owned()]
                } {
                    let mut fragment = SqlBuilder::new();
                    fragment.push(&format!("{agg}.{}", ident(&name)));
                    items.push(fragment);
                }
            }
        } else if !child.node.is_empty() {
            let mut fragment = SqlBuilder::new();
            if child.to_one {
                fragment.push(&format!(
                    "row_to_json({agg}.*)::jsonb AS {}",
                    ident(child.output_name())
                ));
            } else {
                fragment.push(&format!(
                    "COALESCE( {agg}.{agg}, '[]') AS {}",
                    ident(child.output_name())
                ));
            }
            if aggregated_here {
                let mut key = SqlBuilder::new();
                key.ident(child.output_name());
                group_by.push(key);
            }
            items.push(fragment);
        }
    }
    sql.push("SELECT ");
    if items.is_empty() {
        sql.push(&qualifier).push(".*");
    }
    join_fragments(sql, items, ", ");

    // FROM.
    sql.push(" FROM ");
    from_clause(sql, node, parent);

    for child in &node.children {
        lateral_join(sql, child, &qualifier);
    }

    // WHERE: the node's conditions, then the join conditions.
    let mut conditions: Vec<SqlBuilder> = Vec::new();
    for condition in &node.conditions {
        let mut fragment = SqlBuilder::new();
        render_condition(&mut fragment, &qualifier, condition, node, Context::Main);
        conditions.push(fragment);
    }
    if let Some((parent_qualifier, child)) = parent {
        conditions.extend(join_conditions(child, &qualifier, parent_qualifier));
    }
    if !conditions.is_empty() {
        sql.push(" WHERE ");
        join_fragments(sql, conditions, " AND ");
    }

    if !group_by.is_empty() {
        sql.push(" GROUP BY ");
        join_fragments(sql, group_by, ", ");
    }

    if !node.order.is_empty() && !in_to_many_spread {
        sql.push(" ORDER BY ");
        let terms: Vec<SqlBuilder> = node
            .order
            .iter()
            .map(|term| {
                let mut fragment = SqlBuilder::new();
                order_term(&mut fragment, &qualifier, term);
                fragment
            })
            .collect();
        join_fragments(sql, terms, ", ");
    }

    range_clause(sql, node.limit, node.offset);
}

fn range_clause(sql: &mut SqlBuilder, limit: Option<i64>, offset: i64) {
    match limit {
        Some(limit) => {
            sql.push(" LIMIT ")
                .param(limit.to_string())
                .push(" OFFSET ")
                .param(offset.to_string());
        }
        None if offset > 0 => {
            sql.push(" LIMIT ALL OFFSET ").param(offset.to_string());
        }
        None => {}
    }
}

/// Appends fragments separated by `separator`.
fn join_fragments(sql: &mut SqlBuilder, fragments: Vec<SqlBuilder>, separator: &str) {
    sql.push_separated(fragments, separator, |sql, fragment| {
        sql.extend(fragment);
    });
}

fn group_key(qualifier: &str, item: &SelectPlan) -> SqlBuilder {
    let mut key = SqlBuilder::new();
    match item {
        SelectPlan::Column {
            alias: Some(alias), ..
        } => {
            key.ident(alias);
        }
        SelectPlan::Column { column, cast, .. } => {
            if cast.is_some() {
                key.push("CAST( ");
            }
            column_expression(&mut key, qualifier, column);
            if let Some(cast) = cast {
                key.push(" AS ").push(cast).push(" )");
            }
        }
        SelectPlan::Star => {
            key.push(qualifier).push(".*");
        }
        SelectPlan::Count { .. } => {}
    }
    key
}

/// Inside a to-one spread: the aggregate's input under the aggregate's output name.
fn hoisted_input(sql: &mut SqlBuilder, qualifier: &str, item: &SelectPlan) {
    let name = item.output_name();
    match item {
        SelectPlan::Column { column, cast, .. } => {
            if cast.is_some() {
                sql.push("CAST( ");
            }
            output_expression(sql, qualifier, column);
            if let Some(cast) = cast {
                sql.push(" AS ").push(cast).push(" )");
            }
        }
        _ => {
            sql.push(qualifier);
        }
    }
    sql.push(" AS ").ident(&name);
}

/// In the parent of a to-one spread: the aggregate over the spread's column.
fn hoisted_aggregate(sql: &mut SqlBuilder, agg: &str, item: &SelectPlan) {
    let name = item.output_name();
    let (function, aggregate_cast) = match item {
        SelectPlan::Column {
            aggregate,
            aggregate_cast,
            ..
        } => (
            aggregate.map(|a| a.name().to_uppercase()),
            aggregate_cast.clone(),
        ),
        SelectPlan::Count { cast, .. } => (Some("COUNT".to_owned()), cast.clone()),
        SelectPlan::Star => (None, None),
    };
    if aggregate_cast.is_some() {
        sql.push("CAST( ");
    }
    sql.push(&function.unwrap_or_default())
        .push("(")
        .push(&format!("{agg}.{}", ident(&name)))
        .push(")");
    if let Some(cast) = aggregate_cast {
        sql.push(" AS ").push(&cast).push(" )");
    }
    sql.push(" AS ").ident(&name);
}

fn order_helper_name(child: &ChildNode, term: &OrderPlan, index: usize) -> String {
    let column = match &term.by {
        OrderBy::Column(column) | OrderBy::Related { column, .. } => column.name.clone(),
    };
    format!("{}_{}_{}", child.agg_alias, column, index + 1)
}

fn order_expression(sql: &mut SqlBuilder, qualifier: &str, by: &OrderBy) {
    match by {
        OrderBy::Column(column) => column_expression(sql, qualifier, column),
        OrderBy::Related { agg_alias, column } => column_expression(sql, &ident(agg_alias), column),
    }
}

fn order_term(sql: &mut SqlBuilder, qualifier: &str, term: &OrderPlan) {
    order_expression(sql, qualifier, &term.by);
    order_modifiers(sql, term);
}

fn order_modifiers(sql: &mut SqlBuilder, term: &OrderPlan) {
    match term.direction {
        Some(Direction::Asc) => {
            sql.push(" ASC");
        }
        Some(Direction::Desc) => {
            sql.push(" DESC");
        }
        None => {}
    }
    match term.nulls {
        Some(Nulls::First) => {
            sql.push(" NULLS FIRST");
        }
        Some(Nulls::Last) => {
            sql.push(" NULLS LAST");
        }
        None => {}
    }
}

/// `FROM` of a node: its relation (aliased), plus the junction for many-to-many, or the
/// function call for a computed relationship.
fn from_clause(sql: &mut SqlBuilder, node: &ReadNode, parent: Option<(&str, &ChildNode)>) {
    if node.from_cte {
        sql.push("\"pgrst_source\"");
        if let Qualifier::Alias(alias) = &node.qualifier {
            sql.push(" AS ").ident(alias);
        }
        return;
    }
    let table = qualified(&node.relation.schema, &node.relation.name);
    match parent.map(|(parent_qualifier, child)| (parent_qualifier, &child.relationship)) {
        Some((
            parent_qualifier,
            Relationship::Computed {
                function,
                table: origin,
                ..
            },
        )) => {
            let argument = if parent_qualifier.contains('.') {
                ident(&origin.name)
            } else {
                parent_qualifier.to_owned()
            };
            sql.push(&qualified(&function.schema, &function.name))
                .push("(")
                .push(&argument)
                .push("::")
                .push(&qualified(&origin.schema, &origin.name))
                .push(")");
            if let Qualifier::Alias(alias) = &node.qualifier {
                sql.push(" AS ").ident(alias);
            }
        }
        Some((
            _,
            Relationship::ForeignKey {
                cardinality: Cardinality::ManyToMany(junction),
                ..
            },
        )) => {
            sql.push(&table)
                .push(", ")
                .push(&qualified(&junction.table.schema, &junction.table.name));
        }
        _ => {
            sql.push(&table);
            if let Qualifier::Alias(alias) = &node.qualifier {
                sql.push(" AS ").ident(alias);
            }
        }
    }
}

/// Conditions linking a child to its parent.
fn join_conditions(
    child: &ChildNode,
    child_qualifier: &str,
    parent_qualifier: &str,
) -> Vec<SqlBuilder> {
    let mut conditions = Vec::new();
    match &child.relationship {
        Relationship::Computed { .. } => {}
        Relationship::ForeignKey { cardinality, .. } => match cardinality {
            Cardinality::ManyToOne { columns, .. }
            | Cardinality::OneToMany { columns, .. }
            | Cardinality::OneToOne { columns, .. } => {
                for (parent_column, child_column) in columns {
                    let mut fragment = SqlBuilder::new();
                    fragment.push(&format!(
                        "{child_qualifier}.{} = {parent_qualifier}.{}",
                        ident(child_column),
                        ident(parent_column)
                    ));
                    conditions.push(fragment);
                }
            }
            Cardinality::ManyToMany(junction) => {
                let junction_table = qualified(&junction.table.schema, &junction.table.name);
                for (target_column, junction_column) in &junction.columns_target {
                    let mut fragment = SqlBuilder::new();
                    fragment.push(&format!(
                        "{junction_table}.{} = {child_qualifier}.{}",
                        ident(junction_column),
                        ident(target_column)
                    ));
                    conditions.push(fragment);
                }
                for (source_column, junction_column) in &junction.columns_source {
                    let mut fragment = SqlBuilder::new();
                    fragment.push(&format!(
                        "{junction_table}.{} = {parent_qualifier}.{}",
                        ident(junction_column),
                        ident(source_column)
                    ));
                    conditions.push(fragment);
                }
            }
        },
    }
    conditions
}

/// `LEFT|INNER JOIN LATERAL ( … ) AS "agg" ON …` for one child.
fn lateral_join(sql: &mut SqlBuilder, child: &ChildNode, parent_qualifier: &str) {
    let agg = ident(&child.agg_alias);
    sql.push(match child.join {
        JoinType::Inner => " INNER JOIN LATERAL ( ",
        JoinType::Left => " LEFT JOIN LATERAL ( ",
    });
    if child.to_one {
        node_query(sql, &child.node, Some((parent_qualifier, child)));
        sql.push(" ) AS ").push(&agg).push(" ON TRUE");
        return;
    }
    sql.push(&format!("SELECT json_agg({agg})::jsonb AS {agg}"));
    if child.spread {
        // Every output column of the spread becomes an array: its own columns, and what its
        // nested embeds put in its rows (a nested spread's columns, a nested embed's object
        // or array), all in the order of the spread relationship.
        for name in output_columns(&child.node) {
            let name = ident(&name);
            sql.push(&format!(", COALESCE(json_agg({agg}.{name}"));
            if !child.node.order.is_empty() {
                sql.push(" ORDER BY ");
                for (index, term) in child.node.order.iter().enumerate() {
                    if index > 0 {
                        sql.push(", ");
                    }
                    sql.push(&format!(
                        "{agg}.{}",
                        ident(&order_helper_name(child, term, index))
                    ));
                    order_modifiers(sql, term);
                }
            }
            sql.push(&format!("),'[]')::jsonb AS {name}"));
        }
    }
    sql.push(" FROM ( ");
    node_query(sql, &child.node, Some((parent_qualifier, child)));
    sql.push(" ) AS ").push(&agg).push(" ) AS ").push(&agg);
    match child.join {
        JoinType::Inner => sql.push(&format!(" ON {agg} IS NOT NULL")),
        JoinType::Left => sql.push(" ON TRUE"),
    };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context {
    /// The main query: embed existence is read from the lateral join.
    Main,
    /// The count query: embed existence is an `EXISTS` subquery.
    Count,
}

pub(crate) fn render_condition(
    sql: &mut SqlBuilder,
    qualifier: &str,
    condition: &Condition,
    node: &ReadNode,
    context: Context,
) {
    match condition {
        Condition::Filter {
            column,
            negated,
            operation,
        } => {
            if *negated {
                sql.push("NOT ");
            }
            filter_expression(sql, qualifier, column, operation);
        }
        Condition::EmbedIsNull { agg_alias, negated } => match context {
            Context::Main => {
                sql.push(&ident(agg_alias)).push(if *negated {
                    " IS DISTINCT FROM NULL"
                } else {
                    " IS NOT DISTINCT FROM NULL"
                });
            }
            Context::Count => {
                if !*negated {
                    sql.push("NOT ");
                }
                sql.push("EXISTS (");
                if let Some(child) = node.children.iter().find(|c| c.agg_alias == *agg_alias) {
                    count_query(sql, &child.node, Some((qualifier, child)));
                } else {
                    sql.push("SELECT 1");
                }
                sql.push(")");
            }
        },
        Condition::Tree {
            negated,
            operator,
            children,
        } => {
            if *negated {
                sql.push("NOT ");
            }
            sql.push("(");
            for (index, child) in children.iter().enumerate() {
                if index > 0 {
                    sql.push(match operator {
                        LogicOperator::And => " AND ",
                        LogicOperator::Or => " OR ",
                    });
                }
                render_condition(sql, qualifier, child, node, context);
            }
            sql.push(")");
        }
    }
}

fn filter_expression(
    sql: &mut SqlBuilder,
    qualifier: &str,
    column: &ColumnRef,
    operation: &Operation,
) {
    match operation {
        Operation::Compare {
            operator,
            quantifier,
            value,
        } => {
            column_expression(sql, qualifier, column);
            sql.push(" ").push(operator.sql()).push(" ");
            // Patterns and `isdistinct` values are compared as they are, as in PostgREST.
            let (value, parser) = match operator {
                Operator::Like | Operator::Ilike => (value.replace('*', "%"), None),
                Operator::IsDistinct => (value.clone(), None),
                _ => (value.clone(), column.transform.as_ref()),
            };
            match quantifier {
                Some(Quantifier::Any) => {
                    sql.push("ANY(");
                    filter_value(sql, parser, value);
                    sql.push(")");
                }
                Some(Quantifier::All) => {
                    sql.push("ALL(");
                    filter_value(sql, parser, value);
                    sql.push(")");
                }
                None => filter_value(sql, parser, value),
            }
        }
        Operation::In(values) => {
            column_expression(sql, qualifier, column);
            if values.len() == 1 && values[0].is_empty() {
                sql.push(" = ANY('{}')");
            } else if let Some(function) = &column.transform {
                // Each element through the representation's `text` parser, as a set.
                sql.push(" = ANY ((SELECT ")
                    .push(&qualified(&function.schema, &function.name))
                    .push("(unnest(")
                    .typed_param(array_literal(values), "text[]")
                    .push("))))");
            } else {
                sql.push(" = ANY (").param(array_literal(values)).push(")");
            }
        }
        Operation::Is(value) => {
            column_expression(sql, qualifier, column);
            sql.push(match value {
                IsValue::Null => " IS NULL",
                IsValue::NotNull => " IS NOT NULL",
                IsValue::True => " IS TRUE",
                IsValue::False => " IS FALSE",
                IsValue::Unknown => " IS UNKNOWN",
            });
        }
        Operation::Fts {
            operator,
            language,
            value,
        } => {
            // Known non-tsvector columns are converted; tsvector and unknown ones used as is.
            let convert = column
                .column_type
                .as_deref()
                .is_some_and(|t| t != "tsvector" && column.json_path.is_empty());
            if convert {
                sql.push("to_tsvector(");
                if let Some(language) = language {
                    sql.typed_param(language.clone(), "regconfig").push(", ");
                }
            }
            column_expression(sql, qualifier, column);
            if convert {
                sql.push(")");
            }
            sql.push(" @@ ").push(fts_function(*operator)).push("(");
            if let Some(language) = language {
                sql.typed_param(language.clone(), "regconfig").push(", ");
            }
            sql.param(value.clone()).push(")");
        }
    }
}

fn fts_function(operator: FtsOperator) -> &'static str {
    operator.sql_function()
}

/// A PostgreSQL array literal with every element quoted: `{"a","b,c"}` (NUL, which text
/// cannot hold, is dropped).
pub fn array_literal<S: AsRef<str>>(values: impl IntoIterator<Item = S>) -> String {
    let mut literal = String::from("{");
    for (index, value) in values.into_iter().enumerate() {
        if index > 0 {
            literal.push(',');
        }
        literal.push('"');
        for c in value.as_ref().chars() {
            match c {
                '"' => literal.push_str("\\\""),
                '\\' => literal.push_str("\\\\"),
                '\0' => {}
                other => literal.push(other),
            }
        }
        literal.push('"');
    }
    literal.push('}');
    literal
}

/// `SELECT 1 FROM … WHERE <conditions> [AND <join>] [AND EXISTS (<inner children>)]`.
pub(crate) fn count_query(
    sql: &mut SqlBuilder,
    node: &ReadNode,
    parent: Option<(&str, &ChildNode)>,
) {
    let qualifier = qualifier_sql(&node.qualifier);
    sql.push("SELECT 1 FROM ");
    from_clause(sql, node, parent);
    let mut conditions: Vec<SqlBuilder> = Vec::new();
    for condition in &node.conditions {
        let mut fragment = SqlBuilder::new();
        render_condition(&mut fragment, &qualifier, condition, node, Context::Count);
        conditions.push(fragment);
    }
    if let Some((parent_qualifier, child)) = parent {
        conditions.extend(join_conditions(child, &qualifier, parent_qualifier));
    }
    for child in node
        .children
        .iter()
        .filter(|child| child.join == JoinType::Inner)
    {
        let mut fragment = SqlBuilder::new();
        fragment.push("EXISTS (");
        count_query(&mut fragment, &child.node, Some((&qualifier, child)));
        fragment.push(")");
        conditions.push(fragment);
    }
    if !conditions.is_empty() {
        sql.push(" WHERE ");
        join_fragments(sql, conditions, " AND ");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest_v1::request::ast::JsonStep;
    use crate::rest_v1::schema_cache::QualifiedName;

    fn colour(transform: &str) -> ColumnRef {
        ColumnRef {
            name: "colour".into(),
            json_path: Vec::<JsonStep>::new(),
            column_type: Some("integer".into()),
            transform: Some(QualifiedName::new("public", transform)),
        }
    }

    fn compare(operator: Operator, value: &str) -> Condition {
        Condition::Filter {
            column: colour("colour_text"),
            negated: false,
            operation: Operation::Compare {
                operator,
                quantifier: None,
                value: value.into(),
            },
        }
    }

    #[test]
    fn data_representations_format_selected_columns_and_parse_filter_values() {
        let node = ReadNode {
            select: vec![SelectPlan::Column {
                column: colour("colour_json"),
                alias: Some("colour".into()),
                cast: Some("text".into()),
                aggregate: None,
                aggregate_cast: None,
            }],
            conditions: vec![
                compare(Operator::Eq, "00FF00"),
                compare(Operator::Like, "*FF*"),
                compare(Operator::IsDistinct, "0"),
                Condition::Filter {
                    column: colour("colour_text"),
                    negated: true,
                    operation: Operation::In(vec!["000000".into(), "FFFFFF".into()]),
                },
            ],
            order: vec![OrderPlan {
                by: OrderBy::Column(ColumnRef {
                    transform: None,
                    ..colour("unused")
                }),
                direction: None,
                nulls: None,
            }],
            ..ReadNode::empty(
                QualifiedName::new("s", "t"),
                Qualifier::Table(QualifiedName::new("s", "t")),
            )
        };
        let mut sql = SqlBuilder::new();
        node_query(&mut sql, &node, None);
        assert_eq!(
            sql.sql(),
            concat!(
                r#"SELECT CAST( "public"."colour_json"("s"."t"."colour") AS text ) AS "colour" FROM "s"."t" "#,
                r#"WHERE "s"."t"."colour" = "public"."colour_text"($1::text) "#,
                r#"AND "s"."t"."colour" LIKE $2 "#,
                r#"AND "s"."t"."colour" IS DISTINCT FROM $3 "#,
                r#"AND NOT "s"."t"."colour" = ANY ((SELECT "public"."colour_text"(unnest($4::text[])))) "#,
                r#"ORDER BY "s"."t"."colour""#,
            )
        );
        let params: Vec<&str> = sql.params().iter().map(|p| p.0.as_str()).collect();
        assert_eq!(params, ["00FF00", "%FF%", "0", r#"{"000000","FFFFFF"}"#]);
    }

    #[test]
    fn a_media_type_handler_aggregates_the_rows() {
        let handler = |row_type: Option<QualifiedName>| BodyFormat::Handler {
            function: QualifiedName::new("test", "twkb_agg"),
            row_type,
        };
        // A relation's own handler takes its row type; an `anyelement` one the rows as read.
        assert_eq!(
            body_expression(&handler(Some(QualifiedName::new("test", "lines")))),
            r#""test"."twkb_agg"(_postgrest_t::"test"."lines")"#
        );
        assert_eq!(
            body_expression(&handler(None)),
            r#""test"."twkb_agg"(_postgrest_t)"#
        );
        let statement = read_statement(
            &ReadNode {
                select: vec![SelectPlan::Star],
                ..ReadNode::empty(
                    QualifiedName::new("test", "lines"),
                    Qualifier::Table(QualifiedName::new("test", "lines")),
                )
            },
            handler(None),
            CountMode::None,
            false,
        );
        assert!(
            statement
                .sql()
                .contains(r#""test"."twkb_agg"(_postgrest_t) AS body"#),
            "{}",
            statement.sql()
        );
    }

    #[test]
    fn array_literals_quote_every_element() {
        assert_eq!(
            array_literal(["1", "a,b", "x\"y", "back\\slash"]),
            r#"{"1","a,b","x\"y","back\\slash"}"#
        );
        assert_eq!(array_literal(Vec::<String>::new()), "{}");
        assert_eq!(
            array_literal(["", "NULL", "{}", "n\0ul"]),
            r#"{"","NULL","{}","nul"}"#
        );
    }
}

/// Spreads of to-many embeds.
#[cfg(test)]
mod spread_tests {
    use super::*;
    use crate::rest_v1::schema_cache::QualifiedName;

    fn column(name: &str) -> SelectPlan {
        SelectPlan::Column {
            column: ColumnRef {
                name: name.into(),
                json_path: Vec::new(),
                column_type: None,
                transform: None,
            },
            alias: None,
            cast: None,
            aggregate: None,
            aggregate_cast: None,
        }
    }

    fn node(table: &str, qualifier: &str, select: Vec<SelectPlan>, depth: usize) -> ReadNode {
        ReadNode {
            select,
            depth,
            ..ReadNode::empty(
                QualifiedName::new("s", table),
                Qualifier::Alias(qualifier.into()),
            )
        }
    }

    /// `parent` → `child` through the foreign key `child.parent_id`, either way round.
    fn child(
        node: ReadNode,
        parent: &str,
        agg_alias: &str,
        spread: bool,
        to_one: bool,
    ) -> ChildNode {
        let (table, foreign_table) = (QualifiedName::new("s", parent), node.relation.clone());
        let cardinality = if to_one {
            Cardinality::ManyToOne {
                constraint: "fk".into(),
                columns: vec![("id".into(), "parent_id".into())],
            }
        } else {
            Cardinality::OneToMany {
                constraint: "fk".into(),
                columns: vec![("id".into(), "parent_id".into())],
            }
        };
        ChildNode {
            name: foreign_table.name.clone(),
            relationship: Relationship::ForeignKey {
                table,
                foreign_table,
                is_self: false,
                cardinality,
                table_is_view: false,
                foreign_table_is_view: false,
            },
            node,
            join: JoinType::Left,
            alias: None,
            agg_alias: agg_alias.into(),
            spread,
            to_one,
        }
    }

    fn name_order() -> OrderPlan {
        OrderPlan {
            by: OrderBy::Column(ColumnRef {
                name: "name".into(),
                json_path: Vec::new(),
                column_type: None,
                transform: None,
            }),
            direction: None,
            nulls: None,
        }
    }

    /// `factories?select=name,...processes(name,...costs(cost),supervisors(name))`
    /// with `processes.order=name`: a to-many spread holding a to-one spread and a to-many
    /// embed.
    fn to_many_spread_with_nested_embeds() -> ReadNode {
        let mut processes = node("processes", "processes_1", vec![column("name")], 1);
        processes.order.push(name_order());
        processes.children.push(child(
            node("costs", "costs_2", vec![column("cost")], 2),
            "processes",
            "processes_costs_2",
            true,
            true,
        ));
        processes.children.push(child(
            node("supervisors", "supervisors_2", vec![column("name")], 2),
            "processes",
            "processes_supervisors_2",
            false,
            false,
        ));
        let mut factories = node("factories", "factories", vec![column("name")], 0);
        factories.qualifier = Qualifier::Table(QualifiedName::new("s", "factories"));
        factories.children.push(child(
            processes,
            "factories",
            "factories_processes_1",
            true,
            false,
        ));
        factories
    }

    #[test]
    fn a_to_many_spread_aggregates_what_its_nested_embeds_output() {
        let mut sql = SqlBuilder::new();
        node_query(&mut sql, &to_many_spread_with_nested_embeds(), None);
        let sql = sql.sql();
        // The parent reads every array of the spread's lateral join …
        assert!(sql.starts_with(concat!(
            r#"SELECT "s"."factories"."name", "factories_processes_1"."name", "#,
            r#""factories_processes_1"."cost", "factories_processes_1"."supervisors" FROM"#,
        )));
        // … which aggregates the nested spread's column and the nested embed's array like
        // its own columns, in the spread relationship's order.
        assert!(sql.contains(concat!(
            r#"LEFT JOIN LATERAL ( SELECT json_agg("factories_processes_1")::jsonb AS "factories_processes_1", "#,
            r#"COALESCE(json_agg("factories_processes_1"."name" ORDER BY "factories_processes_1"."factories_processes_1_name_1"),'[]')::jsonb AS "name", "#,
            r#"COALESCE(json_agg("factories_processes_1"."cost" ORDER BY "factories_processes_1"."factories_processes_1_name_1"),'[]')::jsonb AS "cost", "#,
            r#"COALESCE(json_agg("factories_processes_1"."supervisors" ORDER BY "factories_processes_1"."factories_processes_1_name_1"),'[]')::jsonb AS "supervisors" "#,
            r#"FROM ( SELECT "processes_1"."name", "processes_1"."name" AS "factories_processes_1_name_1", "#,
            r#""processes_costs_2"."cost", "#,
            r#"COALESCE( "processes_supervisors_2"."processes_supervisors_2", '[]') AS "supervisors" "#,
            r#"FROM "s"."processes" AS "processes_1" "#,
        )), "{sql}");
    }
}
