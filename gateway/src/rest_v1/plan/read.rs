//! The read plan: the requested select tree with every name resolved against the schema
//! cache — relations, relationships, embed paths of filters, orders and ranges.
//!
//! Pure: no I/O. Errors come in PostgREST's order: unknown table (PGRST205), unknown embed
//! path (PGRST108), relationships (PGRST200/201), related order (PGRST108/118), aggregates
//! (PGRST123/127).

use super::fuzzy::FuzzySet;
use super::relationship;
use crate::rest_v1::error::ApiError;
use crate::rest_v1::request::ast::{
    Aggregate, Direction, Embed, Field, Filter, IsValue, JoinType, JsonStep, LogicOperator,
    LogicTree, Nulls, Operation, OrderTarget, OrderTerm, SelectItem,
};
use crate::rest_v1::request::query_params::{QueryParams, RangeParam};
use crate::rest_v1::schema_cache::{
    Cardinality, QualifiedName, Relation, Relationship, SchemaCache,
};

/// How a node's columns are qualified in SQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Qualifier {
    /// The root and many-to-many targets: `"schema"."table"`.
    Table(QualifiedName),
    /// Other embedded nodes: `"clients_1"`.
    Alias(String),
}

/// A column (possibly a computed column) with an optional JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnRef {
    pub name: String,
    pub json_path: Vec<JsonStep>,
    /// Declared type when the column is known to the cache (computed columns are not).
    pub column_type: Option<String>,
    /// The data representation function this reference goes through (PostgREST's
    /// `cfTransform`): in a select, domain → `json` around the column; in a filter,
    /// `text` → domain around the value. Order terms use the raw column.
    pub transform: Option<QualifiedName>,
}

impl ColumnRef {
    pub fn is_json(&self) -> bool {
        matches!(self.column_type.as_deref(), Some("json" | "jsonb"))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectPlan {
    Star,
    Column {
        column: ColumnRef,
        /// Explicit output name (user alias, or the implicit name of a JSON path).
        alias: Option<String>,
        cast: Option<String>,
        aggregate: Option<Aggregate>,
        aggregate_cast: Option<String>,
    },
    Count {
        alias: Option<String>,
        cast: Option<String>,
    },
}

impl SelectPlan {
    pub fn is_aggregate(&self) -> bool {
        matches!(
            self,
            SelectPlan::Count { .. }
                | SelectPlan::Column {
                    aggregate: Some(_),
                    ..
                }
        )
    }

    /// The key this item has in the output object.
    pub fn output_name(&self) -> String {
        match self {
            SelectPlan::Star => "*".to_owned(),
            SelectPlan::Column {
                column,
                alias,
                aggregate,
                ..
            } => alias.clone().unwrap_or_else(|| match aggregate {
                Some(aggregate) => aggregate.name().to_owned(),
                None => column.name.clone(),
            }),
            SelectPlan::Count { alias, .. } => alias.clone().unwrap_or_else(|| "count".to_owned()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    Filter {
        column: ColumnRef,
        negated: bool,
        operation: Operation,
    },
    /// `embed=is.null` / `embed=not.is.null`: whether the embedded resource exists.
    EmbedIsNull { agg_alias: String, negated: bool },
    Tree {
        negated: bool,
        operator: LogicOperator,
        children: Vec<Condition>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderBy {
    Column(ColumnRef),
    /// A column of a to-one child, read from its lateral join.
    Related {
        agg_alias: String,
        column: ColumnRef,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderPlan {
    pub by: OrderBy,
    pub direction: Option<Direction>,
    pub nulls: Option<Nulls>,
}

/// One node of the read tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadNode {
    pub relation: QualifiedName,
    pub qualifier: Qualifier,
    pub select: Vec<SelectPlan>,
    pub conditions: Vec<Condition>,
    pub order: Vec<OrderPlan>,
    pub limit: Option<i64>,
    pub offset: i64,
    pub children: Vec<ChildNode>,
    pub depth: usize,
    /// Read from the `pgrst_source` CTE (the rows a write returned, or a function's result)
    /// instead of the relation itself; the qualifier is then the alias.
    pub from_cte: bool,
}

impl ReadNode {
    /// A root node of `relation` that selects, filters and orders nothing (a context for
    /// conditions; a start for nodes built by hand).
    pub fn empty(relation: QualifiedName, qualifier: Qualifier) -> Self {
        Self {
            relation,
            qualifier,
            select: Vec::new(),
            conditions: Vec::new(),
            order: Vec::new(),
            limit: None,
            offset: 0,
            children: Vec::new(),
            depth: 0,
            from_cte: false,
        }
    }

    pub fn has_aggregates(&self) -> bool {
        self.select.iter().any(SelectPlan::is_aggregate)
    }

    /// `select=*` (or no `select`) and nothing embedded: the rows are the relation's own,
    /// so a media type handler of the relation may take them.
    pub fn selects_whole_rows(&self) -> bool {
        matches!(self.select.as_slice(), [SelectPlan::Star]) && self.children.is_empty()
    }

    /// True when this node's rows are aggregated: by its own aggregates, or by those of
    /// its to-one spreads, which are applied at this node's level (hoisted).
    pub fn aggregates_here(&self) -> bool {
        self.has_aggregates()
            || self
                .children
                .iter()
                .any(|child| child.spread && child.to_one && child.node.aggregates_here())
    }

    /// True when nothing is selected here or below (`rel()`): only the join remains.
    pub fn is_empty(&self) -> bool {
        self.select.is_empty() && self.children.iter().all(|child| child.node.is_empty())
    }
}

/// An embedded resource and how it joins its parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildNode {
    pub node: ReadNode,
    pub relationship: Relationship,
    pub join: JoinType,
    /// Relation name as written in `select`.
    pub name: String,
    pub alias: Option<String>,
    /// Alias of the lateral join: `<parent>_<name or alias>_<depth>`.
    pub agg_alias: String,
    pub spread: bool,
    pub to_one: bool,
}

impl ChildNode {
    pub fn output_name(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.name)
    }
}

/// Settings that shape a read plan.
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    pub max_rows: Option<u64>,
    pub aggregates_enabled: bool,
}

/// Builds the plan for reading `table` in `schema`. `top_range` is the root's range
/// after intersecting `limit`/`offset` with the `Range` header.
pub fn plan_read(
    cache: &SchemaCache,
    schema: &str,
    table: &str,
    query: &QueryParams,
    top_range: (Option<i64>, i64),
    options: ReadOptions,
) -> Result<ReadNode, ApiError> {
    let relation = find_relation(cache, schema, table)?;
    plan_read_of(cache, schema, relation, query, top_range, options)
}

/// PGRST205 with a "Perhaps you meant" hint.
pub fn find_relation<'c>(
    cache: &'c SchemaCache,
    schema: &str,
    table: &str,
) -> Result<&'c Relation, ApiError> {
    cache.relation(schema, table).ok_or_else(|| {
        let names = cache.relation_names(schema);
        ApiError::TableNotFound {
            table: QualifiedName::new(schema, table),
            suggestion: FuzzySet::new(names.iter().copied())
                .best_match(table, 0.75)
                .map(str::to_owned),
        }
    })
}

/// Like [`plan_read`] for an already resolved relation (also used over RPC results).
pub fn plan_read_of(
    cache: &SchemaCache,
    schema: &str,
    relation: &Relation,
    query: &QueryParams,
    top_range: (Option<i64>, i64),
    options: ReadOptions,
) -> Result<ReadNode, ApiError> {
    // 1. The tree of the select parameter, with unresolved children.
    let mut root = Draft::new(&query.select);

    // 2. Filters, logic trees, orders and ranges go to the nodes their path names.
    for (path, filter) in &query.filters {
        root.at_path(path)?.filters.push(filter.clone());
    }
    for (path, tree) in &query.logic {
        root.at_path(path)?.logic.push(tree.clone());
    }
    for (path, terms) in &query.order {
        let node = root.at_path(path)?;
        // The first `order` for a path wins.
        if node.order.is_none() {
            node.order = Some(terms.clone());
        }
    }
    for RangeParam {
        path,
        limit,
        offset,
    } in &query.ranges
    {
        if path.is_empty() {
            continue;
        }
        let node = root.at_path(path)?;
        node.limit = *limit;
        node.offset = *offset;
    }

    // 3. Resolve relationships and build the final tree.
    let planner = Planner {
        cache,
        schema,
        options,
    };
    let mut node = root.resolve(&planner, relation, 0, None, false)?;
    node.limit = top_range.0;
    node.offset = top_range.1;
    apply_max_rows(&mut node, options.max_rows);
    Ok(node)
}

/// What every node of one plan shares.
#[derive(Debug, Clone, Copy)]
struct Planner<'c> {
    cache: &'c SchemaCache,
    schema: &'c str,
    options: ReadOptions,
}

/// The select tree while paths are being attached.
#[derive(Debug)]
struct Draft {
    items: Vec<SelectItem>,
    children: Vec<(Embed, Draft)>,
    filters: Vec<Filter>,
    logic: Vec<LogicTree>,
    order: Option<Vec<OrderTerm>>,
    limit: Option<i64>,
    offset: Option<i64>,
}

impl Draft {
    fn new(select: &[SelectItem]) -> Self {
        let mut items = Vec::new();
        let mut children = Vec::new();
        for item in select {
            match item {
                SelectItem::Embed(embed) => {
                    let child = Draft::new(&embed.select);
                    children.push((embed.clone(), child));
                }
                other => items.push(other.clone()),
            }
        }
        Self {
            items,
            children,
            filters: Vec::new(),
            logic: Vec::new(),
            order: None,
            limit: None,
            offset: None,
        }
    }

    /// The node at `path` (by alias or relation name); PGRST108 when a segment is not
    /// embedded. Touched children move to the front, as in PostgREST.
    fn at_path(&mut self, path: &[String]) -> Result<&mut Draft, ApiError> {
        let Some((first, rest)) = path.split_first() else {
            return Ok(self);
        };
        let position = self
            .children
            .iter()
            .position(|(embed, _)| {
                embed.alias.as_deref() == Some(first.as_str()) || embed.relation == *first
            })
            .ok_or_else(|| ApiError::NotEmbedded(first.clone()))?;
        let child = self.children.remove(position);
        self.children.insert(0, child);
        self.children[0].1.at_path(rest)
    }

    /// The plan of this node over `relation`, its embeds resolved first (so their errors
    /// come first, as in PostgREST). `expand_star`: turn `*` into explicit columns.
    fn resolve(
        self,
        planner: &Planner<'_>,
        relation: &Relation,
        depth: usize,
        qualifier: Option<Qualifier>,
        expand_star: bool,
    ) -> Result<ReadNode, ApiError> {
        let own_aggregates = self.items.iter().any(|item| {
            matches!(
                item,
                SelectItem::Count { .. }
                    | SelectItem::Field {
                        aggregate: Some(_),
                        ..
                    }
            )
        });
        let mut children = Vec::new();
        for (embed, draft) in self.children {
            children.push(draft.resolve_embed(
                planner,
                relation,
                depth + 1,
                embed,
                expand_star || own_aggregates,
            )?);
        }

        let mut select = select_plans(relation, &self.items);
        let has_aggregates = check_aggregates(&select, &children, planner.options)?;
        // With aggregates, `*` becomes explicit columns so they can be grouped by; with a
        // data representation, so that its columns go through their functions.
        let has_representation = relation
            .columns
            .iter()
            .any(|c| c.representation.to_json.is_some());
        if (has_aggregates || expand_star || has_representation)
            && select.contains(&SelectPlan::Star)
        {
            select = star_expanded(relation, select);
        }

        let mut conditions: Vec<Condition> = Vec::new();
        for filter in &self.filters {
            conditions.push(condition(relation, &children, filter));
        }
        for tree in &self.logic {
            conditions.push(logic_condition(relation, &children, tree));
        }

        let order = order_plans(
            planner.cache,
            relation,
            &children,
            self.order.unwrap_or_default(),
        )?;

        Ok(ReadNode {
            relation: relation.name.clone(),
            qualifier: qualifier.unwrap_or_else(|| Qualifier::Table(relation.name.clone())),
            select,
            conditions,
            order,
            limit: self.limit,
            offset: self.offset.unwrap_or(0),
            children,
            depth,
            from_cte: false,
        })
    }

    /// This draft as the child `embed` of a node over `parent`: the relationship it names,
    /// how its columns are qualified, and its own plan. `expand_star`: `*` must become
    /// explicit columns here too (the parent or an ancestor aggregates, or is a to-many
    /// spread).
    fn resolve_embed(
        self,
        planner: &Planner<'_>,
        parent: &Relation,
        depth: usize,
        embed: Embed,
        expand_star: bool,
    ) -> Result<ChildNode, ApiError> {
        let relationship = relationship::find(
            planner.cache,
            planner.schema,
            &parent.name,
            &embed.relation,
            embed.hint.as_deref(),
        )?;
        let foreign = relationship.foreign_table().clone();
        let qualifier = match &relationship {
            Relationship::ForeignKey {
                cardinality: Cardinality::ManyToMany(_),
                ..
            } => Qualifier::Table(foreign.clone()),
            _ => Qualifier::Alias(format!("{}_{depth}", foreign.name)),
        };
        let agg_alias = format!("{}_{}_{depth}", parent.name.name, embed.output_name());
        let Some(foreign_relation) = planner.cache.relations.get(&foreign) else {
            return Err(ApiError::Internal(format!(
                "relation {foreign} missing from the schema cache"
            )));
        };
        // `*` becomes explicit columns under aggregates (to group by them) and in to-many
        // spreads (each column becomes an array).
        let node = self.resolve(
            planner,
            foreign_relation,
            depth,
            Some(qualifier),
            expand_star || (embed.spread && !relationship.is_to_one()),
        )?;
        Ok(ChildNode {
            to_one: relationship.is_to_one(),
            node,
            relationship,
            join: embed.join.unwrap_or(JoinType::Left),
            name: embed.relation.clone(),
            alias: embed.alias.clone(),
            agg_alias,
            spread: embed.spread,
        })
    }
}

/// The select items of a node over `relation`, embeds left out (they are its children).
fn select_plans(relation: &Relation, items: &[SelectItem]) -> Vec<SelectPlan> {
    items
        .iter()
        .filter_map(|item| match item {
            SelectItem::Star => Some(SelectPlan::Star),
            SelectItem::Field {
                field,
                alias,
                cast,
                aggregate,
                aggregate_cast,
            } => {
                let column = output_column(relation, field);
                // Through a representation, the column keeps its name, not the function's.
                let representation_alias =
                    (aggregate.is_none() && column.transform.is_some()).then(|| field.name.clone());
                Some(SelectPlan::Column {
                    column,
                    // An aggregate is named after its function, even over a JSON path.
                    alias: alias
                        .clone()
                        .or_else(|| aggregate.is_none().then(|| implicit_json_alias(field))?)
                        .or(representation_alias),
                    cast: cast.clone(),
                    aggregate: *aggregate,
                    aggregate_cast: aggregate_cast.clone(),
                })
            }
            SelectItem::Count { alias, cast } => Some(SelectPlan::Count {
                alias: alias.clone(),
                cast: cast.clone(),
            }),
            SelectItem::Embed(_) => None,
        })
        .collect()
}

/// Whether a node aggregates (itself or through its spreads), refused when aggregates are
/// off (PGRST123) or come through a to-many spread (PGRST127).
fn check_aggregates(
    select: &[SelectPlan],
    children: &[ChildNode],
    options: ReadOptions,
) -> Result<bool, ApiError> {
    let has_aggregates = select.iter().any(SelectPlan::is_aggregate)
        || children
            .iter()
            .any(|child| child.spread && child.node.has_aggregates());
    if has_aggregates && !options.aggregates_enabled {
        return Err(ApiError::AggregatesDisabled);
    }
    for child in children {
        // A to-one spread's aggregates are hoisted up to the to-many spread, and stop
        // there: PGRST127 as well.
        if child.spread && !child.to_one && child.node.aggregates_here() {
            return Err(ApiError::NotImplemented(
                "Aggregates are not implemented for one-to-many or many-to-many spreads.".into(),
            ));
        }
    }
    Ok(has_aggregates)
}

/// `select` with `*` replaced by every column of `relation`, each through its data
/// representation (and under its own name) when it has one.
fn star_expanded(relation: &Relation, select: Vec<SelectPlan>) -> Vec<SelectPlan> {
    select
        .into_iter()
        .flat_map(|item| match item {
            SelectPlan::Star => relation
                .columns
                .iter()
                .map(|c| SelectPlan::Column {
                    column: output_column(relation, &Field::column(c.name.clone())),
                    alias: c.representation.to_json.as_ref().map(|_| c.name.clone()),
                    cast: None,
                    aggregate: None,
                    aggregate_cast: None,
                })
                .collect(),
            other => vec![other],
        })
        .collect()
}

/// The `order` terms of a node over `relation`; a related order must name a to-one
/// embed (PGRST108, PGRST118).
fn order_plans(
    cache: &SchemaCache,
    relation: &Relation,
    children: &[ChildNode],
    terms: Vec<OrderTerm>,
) -> Result<Vec<OrderPlan>, ApiError> {
    let mut order = Vec::new();
    for term in terms {
        let by = match &term.target {
            OrderTarget::Field(field) => OrderBy::Column(column_ref(relation, field)),
            OrderTarget::Related {
                relation: name,
                field,
            } => {
                let child = children
                    .iter()
                    .find(|child| {
                        child.alias.as_deref() == Some(name.as_str()) || child.name == *name
                    })
                    .ok_or_else(|| ApiError::NotEmbedded(name.clone()))?;
                if !child.to_one {
                    return Err(ApiError::RelatedOrderNotToOne {
                        relation: name.clone(),
                        parent: relation.name.name.clone(),
                    });
                }
                let child_relation = cache.relations.get(child.relationship.foreign_table());
                OrderBy::Related {
                    agg_alias: child.agg_alias.clone(),
                    column: match child_relation {
                        Some(child_relation) => column_ref(child_relation, field),
                        None => ColumnRef {
                            name: field.name.clone(),
                            json_path: field.json_path.clone(),
                            column_type: None,
                            transform: None,
                        },
                    },
                }
            }
        };
        order.push(OrderPlan {
            by,
            direction: term.direction,
            nulls: term.nulls,
        });
    }
    Ok(order)
}

/// The root filters and logic trees of a query as conditions on `relation` (the WHERE
/// of an UPDATE or DELETE).
pub fn root_conditions(relation: &Relation, query: &QueryParams) -> Vec<Condition> {
    let filters = query
        .filters
        .iter()
        .filter(|(path, _)| path.is_empty())
        .map(|(_, filter)| condition(relation, &[], filter));
    let trees = query
        .logic
        .iter()
        .filter(|(path, _)| path.is_empty())
        .map(|(_, tree)| logic_condition(relation, &[], tree));
    filters.chain(trees).collect()
}

/// The read plan over the rows a write returns: root filters and ranges belong to the
/// write itself, so they are left out; embeds, their filters and `order` apply.
pub fn plan_representation(
    cache: &SchemaCache,
    schema: &str,
    relation: &Relation,
    query: &QueryParams,
    aggregates_enabled: bool,
) -> Result<ReadNode, ApiError> {
    let mut representation = query.clone();
    representation.filters.retain(|(path, _)| !path.is_empty());
    representation.logic.retain(|(path, _)| !path.is_empty());
    representation.ranges.clear();
    let mut node = plan_read_of(
        cache,
        schema,
        relation,
        &representation,
        (None, 0),
        ReadOptions {
            max_rows: None,
            aggregates_enabled,
        },
    )?;
    node.qualifier = Qualifier::Alias(relation.name.name.clone());
    node.from_cte = true;
    Ok(node)
}

fn column_ref(relation: &Relation, field: &Field) -> ColumnRef {
    ColumnRef {
        name: field.name.clone(),
        json_path: field.json_path.clone(),
        column_type: relation.column(&field.name).map(|c| c.data_type.clone()),
        transform: None,
    }
}

/// A selected column: through its domain's `json` representation, if any.
fn output_column(relation: &Relation, field: &Field) -> ColumnRef {
    ColumnRef {
        transform: relation
            .column(&field.name)
            .and_then(|c| c.representation.to_json.clone()),
        ..column_ref(relation, field)
    }
}

/// A filtered column: its values are read through its domain's `text` representation, if
/// any (the query string is text; the `json` one is never tried instead).
fn filter_column(relation: &Relation, field: &Field) -> ColumnRef {
    ColumnRef {
        transform: relation
            .column(&field.name)
            .and_then(|c| c.representation.from_text.clone()),
        ..column_ref(relation, field)
    }
}

/// A JSON path selects under the last key of the path (or the last key before a trailing
/// index, else the column name).
fn implicit_json_alias(field: &Field) -> Option<String> {
    if field.json_path.is_empty() {
        return None;
    }
    let key = field
        .json_path
        .iter()
        .rev()
        .find_map(|step| match step.key() {
            crate::rest_v1::request::ast::JsonKey::Key(key) => Some(key.clone()),
            crate::rest_v1::request::ast::JsonKey::Index(_) => None,
        });
    Some(key.unwrap_or_else(|| field.name.clone()))
}

/// A filter, or an embed-existence test when it is `is.null` on an embed's name.
fn condition(relation: &Relation, children: &[ChildNode], filter: &Filter) -> Condition {
    if filter.field.json_path.is_empty()
        && matches!(filter.operation, Operation::Is(IsValue::Null))
        && let Some(child) = children.iter().find(|child| {
            child.alias.as_deref() == Some(filter.field.name.as_str())
                || child.name == filter.field.name
        })
    {
        return Condition::EmbedIsNull {
            agg_alias: child.agg_alias.clone(),
            negated: filter.negated,
        };
    }
    Condition::Filter {
        column: filter_column(relation, &filter.field),
        negated: filter.negated,
        operation: filter.operation.clone(),
    }
}

fn logic_condition(relation: &Relation, children: &[ChildNode], tree: &LogicTree) -> Condition {
    match tree {
        LogicTree::Leaf(filter) => condition(relation, children, filter),
        LogicTree::Node {
            negated,
            operator,
            children: nodes,
        } => Condition::Tree {
            negated: *negated,
            operator: *operator,
            children: nodes
                .iter()
                .map(|node| logic_condition(relation, children, node))
                .collect(),
        },
    }
}

/// `db-max-rows` caps every node, root and embedded.
fn apply_max_rows(node: &mut ReadNode, max_rows: Option<u64>) {
    if let Some(max) = max_rows.and_then(|max| i64::try_from(max).ok()) {
        node.limit = Some(node.limit.map_or(max, |limit| limit.min(max)));
    }
    for child in &mut node.children {
        apply_max_rows(&mut child.node, max_rows);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::rest_v1::request::query_params::ParseMode;
    use crate::rest_v1::schema_cache::fixtures::{cache, integer_column, table};
    use crate::rest_v1::schema_cache::{Column, Representation};

    fn plan_in(cache: &SchemaCache, table: &str, query: &str) -> Result<ReadNode, ApiError> {
        let query = QueryParams::parse(query, ParseMode::Relation).unwrap();
        let options = ReadOptions {
            max_rows: None,
            aggregates_enabled: cache.config.aggregates_enabled,
        };
        plan_read(cache, "s", table, &query, (None, 0), options)
    }

    // Data representations.

    /// `s.t(id, colour)`, `colour` of a domain with json and text representations.
    fn colour_cache() -> SchemaCache {
        let colour = Column {
            nominal_type: "public.colour".into(),
            text_input_type: None,
            representation: Representation {
                to_json: Some(QualifiedName::new("public", "colour_json")),
                from_text: Some(QualifiedName::new("public", "colour_text")),
                from_json: Some(QualifiedName::new("public", "colour_from_json")),
            },
            ..integer_column("colour")
        };
        let id = integer_column("id");
        cache(
            vec![table("s", "t", vec![id, colour])],
            HashMap::new(),
            false,
        )
    }

    fn plan(query: &str) -> ReadNode {
        plan_in(&colour_cache(), "t", query).unwrap()
    }

    fn selected(node: &ReadNode) -> Vec<(String, Option<String>, Option<String>)> {
        node.select
            .iter()
            .map(|item| match item {
                SelectPlan::Column { column, alias, .. } => (
                    column.name.clone(),
                    alias.clone(),
                    column.transform.as_ref().map(|f| f.name.clone()),
                ),
                other => (other.output_name(), None, None),
            })
            .collect()
    }

    fn transform(name: &str) -> Option<String> {
        Some(name.to_owned())
    }

    #[test]
    fn a_represented_column_is_selected_through_its_json_function_under_its_name() {
        let node = plan("select=id,colour,c:colour");
        assert_eq!(
            selected(&node),
            [
                ("id".into(), None, None),
                (
                    "colour".into(),
                    transform("colour"),
                    transform("colour_json")
                ),
                ("colour".into(), transform("c"), transform("colour_json")),
            ]
        );
    }

    #[test]
    fn star_is_expanded_when_a_column_has_a_representation() {
        for query in ["select=*", ""] {
            assert_eq!(
                selected(&plan(query)),
                [
                    ("id".into(), None, None),
                    (
                        "colour".into(),
                        transform("colour"),
                        transform("colour_json")
                    ),
                ]
            );
        }
    }

    #[test]
    fn filters_parse_their_values_with_the_text_function_and_orders_use_the_column() {
        let node = plan("select=id&colour=eq.00FF00&order=colour");
        let Condition::Filter { column, .. } = &node.conditions[0] else {
            panic!("{:?}", node.conditions);
        };
        assert_eq!(
            column.transform,
            Some(QualifiedName::new("public", "colour_text"))
        );
        let OrderBy::Column(column) = &node.order[0].by else {
            panic!("{:?}", node.order);
        };
        assert_eq!(column.transform, None);
    }

    // Aggregates and spreads.

    fn foreign_key(table: &str, foreign_table: &str, cardinality: Cardinality) -> Relationship {
        Relationship::ForeignKey {
            table: QualifiedName::new("s", table),
            foreign_table: QualifiedName::new("s", foreign_table),
            is_self: false,
            cardinality,
            table_is_view: false,
            foreign_table_is_view: false,
        }
    }

    /// `factories` 1-n `processes` n-1 `categories`.
    fn factories_cache() -> SchemaCache {
        let columns = |names: &[&str]| names.iter().map(|name| integer_column(name)).collect();
        let relations = vec![
            table("s", "factories", columns(&["id", "size"])),
            table(
                "s",
                "processes",
                columns(&["id", "factory_id", "category_id", "size"]),
            ),
            table("s", "categories", columns(&["id", "size"])),
        ];
        let factory_key = vec![("id".to_owned(), "factory_id".to_owned())];
        let category_key = vec![("category_id".to_owned(), "id".to_owned())];
        let relationships = HashMap::from([
            (
                QualifiedName::new("s", "factories"),
                vec![foreign_key(
                    "factories",
                    "processes",
                    Cardinality::OneToMany {
                        constraint: "processes_factory_id_fkey".into(),
                        columns: factory_key.clone(),
                    },
                )],
            ),
            (
                QualifiedName::new("s", "processes"),
                vec![foreign_key(
                    "processes",
                    "categories",
                    Cardinality::ManyToOne {
                        constraint: "processes_category_id_fkey".into(),
                        columns: category_key,
                    },
                )],
            ),
        ]);
        cache(relations, relationships, true)
    }

    #[test]
    fn aggregates_hoisted_from_a_to_one_spread_into_a_to_many_spread_are_not_implemented() {
        for select in [
            "select=id,...processes(id,...categories(size.sum()))",
            "select=id,...processes(...categories(count()))",
            "select=id,...processes(size.sum())",
        ] {
            assert!(
                matches!(
                    plan_in(&factories_cache(), "factories", select),
                    Err(ApiError::NotImplemented(_))
                ),
                "{select}"
            );
        }
    }

    #[test]
    fn aggregates_below_a_non_spread_embed_stay_in_that_embed() {
        let plan = plan_in(
            &factories_cache(),
            "factories",
            "select=id,...processes(id,categories(size.sum()))",
        )
        .unwrap();
        assert!(plan.children[0].node.children[0].node.has_aggregates());
    }
}
