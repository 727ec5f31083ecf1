//! What rest/v1 knows about the database: relations, columns, keys, relationships and
//! routines of the exposed schemas.
//!
//! Loaded at start-up by [`introspect::load`], swapped atomically by [`reload`] when
//! PostgreSQL sends `NOTIFY pgrst, 'reload schema'` (an event trigger does so after every
//! DDL statement). Requests hold an `Arc` of the cache they started with, so a reload never
//! disturbs a request in flight.

#[cfg(test)]
pub mod fixtures;
pub mod introspect;
pub mod node_tree;
pub mod relationships;
pub mod reload;

use std::collections::HashMap;

use super::request::media::MediaType;
use super::settings::RestConfig;

/// `schema.name` of a relation or routine.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QualifiedName {
    pub schema: String,
    pub name: String,
}

impl QualifiedName {
    pub fn new(schema: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            schema: schema.into(),
            name: name.into(),
        }
    }
}

impl std::fmt::Display for QualifiedName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.schema, self.name)
    }
}

/// A table, view, materialized view, foreign table or partitioned table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    pub name: QualifiedName,
    pub description: Option<String>,
    /// Views and materialized views.
    pub is_view: bool,
    pub insertable: bool,
    pub updatable: bool,
    pub deletable: bool,
    /// Primary-key columns, sorted by name (views: derived from their base tables).
    pub primary_key: Vec<String>,
    /// A plain table (not partitioned) with no rules and no `BEFORE INSERT … FOR EACH ROW`
    /// trigger: an `INSERT` of one row inserts exactly that row or fails, and nothing but
    /// `AFTER` triggers runs after its `RETURNING` (docs/decisions/0003-insert-without-cte.md).
    pub plain_inserts: bool,
    /// Columns in attribute order.
    pub columns: Vec<Column>,
}

impl Relation {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|column| column.name == name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub description: Option<String>,
    pub nullable: bool,
    /// Type as PostgREST reports it: base type of domains over catalog types, no typmod for
    /// catalog types, schema-qualified otherwise.
    pub data_type: String,
    /// `format_type(atttypid, atttypmod)`: the declared type.
    pub nominal_type: String,
    pub max_length: Option<i32>,
    pub default: Option<String>,
    pub enum_values: Vec<String>,
    /// Stored generated column (cannot be written).
    pub generated: bool,
    /// The type by name, without a typmod (`pg_catalog.bpchar`), when `json_to_record` reads
    /// this column's JSON values through the type's text input: every type but arrays,
    /// composites, `json` and `jsonb` (and domains over them, with a typmod or over another
    /// domain).
    pub text_input_type: Option<String>,
    /// The data representation of the column's domain, if any.
    pub representation: Representation,
}

/// PostgREST's "data representations": implicit casts through a function between a domain
/// and `json` or `text` (`CREATE CAST (color AS json) WITH FUNCTION … AS IMPLICIT`), which
/// the authenticator may execute. A column of such a domain is selected through
/// `to_json`, its filter values (text from the query string) are read through `from_text`
/// and its fields in a write's body (read as `json`) through `from_json`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Representation {
    pub to_json: Option<QualifiedName>,
    pub from_text: Option<QualifiedName>,
    pub from_json: Option<QualifiedName>,
}

impl Column {
    /// JSON path steps (`->`) can be applied directly to these.
    pub fn is_json(&self) -> bool {
        matches!(self.data_type.as_str(), "json" | "jsonb")
    }
}

/// How two relations are related.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cardinality {
    /// Referenced side → referencing side. Columns are `(this side, other side)`.
    OneToMany {
        constraint: String,
        columns: Vec<(String, String)>,
    },
    /// Referencing side → referenced side.
    ManyToOne {
        constraint: String,
        columns: Vec<(String, String)>,
    },
    /// Foreign key whose columns are unique. `is_parent` is true on the referenced side.
    OneToOne {
        constraint: String,
        columns: Vec<(String, String)>,
        is_parent: bool,
    },
    /// Through a junction relation.
    ManyToMany(Junction),
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Junction {
    pub table: QualifiedName,
    /// Constraint from the junction to the source relation.
    pub constraint_source: String,
    /// Constraint from the junction to the target relation.
    pub constraint_target: String,
    /// `(source column, junction column)` pairs.
    pub columns_source: Vec<(String, String)>,
    /// `(target column, junction column)` pairs.
    pub columns_target: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Relationship {
    /// Derived from foreign keys (directly or through views and junctions).
    ForeignKey {
        table: QualifiedName,
        foreign_table: QualifiedName,
        is_self: bool,
        cardinality: Cardinality,
        table_is_view: bool,
        foreign_table_is_view: bool,
    },
    /// A function `f(table) RETURNS [SETOF] other_table`.
    Computed {
        function: QualifiedName,
        table: QualifiedName,
        foreign_table: QualifiedName,
        to_one: bool,
        is_self: bool,
    },
}

impl Relationship {
    pub fn table(&self) -> &QualifiedName {
        match self {
            Relationship::ForeignKey { table, .. } | Relationship::Computed { table, .. } => table,
        }
    }

    pub fn foreign_table(&self) -> &QualifiedName {
        match self {
            Relationship::ForeignKey { foreign_table, .. }
            | Relationship::Computed { foreign_table, .. } => foreign_table,
        }
    }

    /// To-one relationships embed an object (or null); the others an array.
    pub fn is_to_one(&self) -> bool {
        match self {
            Relationship::ForeignKey { cardinality, .. } => matches!(
                cardinality,
                Cardinality::ManyToOne { .. } | Cardinality::OneToOne { .. }
            ),
            Relationship::Computed { to_one, .. } => *to_one,
        }
    }
}

/// A function callable through `/rpc`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Routine {
    pub name: QualifiedName,
    pub description: Option<String>,
    pub params: Vec<RoutineParam>,
    pub returns: RoutineReturn,
    pub volatility: Volatility,
    /// `proconfig` settings applied for the call (`statement_timeout`, ...).
    pub settings: Vec<(String, String)>,
    pub isolation_level: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutineParam {
    pub name: String,
    /// `format_type` under an empty search path: schema-qualified outside `pg_catalog`.
    pub data_type: String,
    /// The type's oid, to print it as another search path would (the OpenAPI document).
    pub type_oid: u32,
    pub required: bool,
    pub variadic: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutineReturn {
    pub set_of: bool,
    /// Returns rows of this relation (or a composite type of this name).
    pub relation: Option<QualifiedName>,
    pub composite: bool,
    pub data_type: String,
    pub is_void: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Volatility {
    Immutable,
    Stable,
    Volatile,
}

/// What a media type handler of the database serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandlerTarget {
    /// An aggregate over `anyelement`: every relation (and function result).
    AnyElement,
    /// An aggregate over this relation's row type; or, for a function returning a domain
    /// named like a media type, that function itself (PostgREST keys both by name).
    Named(QualifiedName),
}

/// A handler of one media type (PostgREST's `CustomFunc`): an aggregate whose result type
/// is a domain named like the media type (`CREATE DOMAIN "text/csv" AS text`), or that
/// domain itself, used as a cast of a scalar function's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaHandler {
    /// The aggregate, or the domain.
    pub function: QualifiedName,
    pub target: HandlerTarget,
    /// What the response says it is: the domain's name (`*/*` is sent as
    /// `application/octet-stream`).
    pub media: MediaType,
}

/// Media type handlers by what they serve and the media type they answer (the domain's
/// name, lower-cased and decoded as an `Accept` entry is). Two maps, so a request looks its
/// handlers up without building a key.
#[derive(Debug, Clone, Default)]
pub struct MediaHandlers {
    /// Handlers of one relation (or function).
    pub named: HashMap<QualifiedName, HashMap<MediaType, MediaHandler>>,
    /// Handlers over `anyelement`: every relation's.
    pub any_element: HashMap<MediaType, MediaHandler>,
}

impl MediaHandlers {
    /// Adds a handler; a later one for the same key replaces the earlier (PostgREST's map is
    /// built from its rows the same way).
    pub fn insert(&mut self, media: MediaType, handler: MediaHandler) {
        let handlers = match &handler.target {
            HandlerTarget::AnyElement => &mut self.any_element,
            HandlerTarget::Named(name) => self.named.entry(name.clone()).or_default(),
        };
        handlers.insert(media, handler);
    }
}

/// The whole cache, with the settings it was loaded under.
#[derive(Debug, Clone)]
pub struct SchemaCache {
    pub config: RestConfig,
    pub relations: HashMap<QualifiedName, Relation>,
    /// Relationships by their source relation, in PostgREST's order.
    pub relationships: HashMap<QualifiedName, Vec<Relationship>>,
    pub routines: HashMap<QualifiedName, Vec<Routine>>,
    /// `ALTER ROLE … SET` settings of the API roles, applied per request.
    pub role_settings: HashMap<String, Vec<(String, String)>>,
    /// Comments on the exposed schemas.
    pub schema_descriptions: HashMap<String, String>,
    pub media_handlers: MediaHandlers,
}

impl SchemaCache {
    pub fn relation(&self, schema: &str, name: &str) -> Option<&Relation> {
        self.relations.get(&QualifiedName::new(schema, name))
    }

    pub fn relationships_of(&self, relation: &QualifiedName) -> &[Relationship] {
        self.relationships
            .get(relation)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// Names of the relations of `schema`, for "Perhaps you meant" hints.
    pub fn relation_names(&self, schema: &str) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .relations
            .keys()
            .filter(|name| name.schema == schema)
            .map(|name| name.name.as_str())
            .collect();
        names.sort_unstable();
        names
    }
}
