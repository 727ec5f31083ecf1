//! What the generator knows of a database: the requested schemas' tables, views, functions,
//! enums and composite types, and every type by OID so columns and arguments can be named in
//! TypeScript. Filled by `introspect`, read by `render`; kept plain so tests build it by hand.

use std::collections::BTreeMap;

/// The schemas to render (sorted by name) and the types they mention.
#[derive(Debug, Default, Clone)]
pub struct Catalog {
    pub schemas: Vec<Schema>,
    pub types: BTreeMap<u32, PgType>,
}

/// One schema's contents, each list sorted by name.
#[derive(Debug, Default, Clone)]
pub struct Schema {
    pub name: String,
    pub tables: Vec<Relation>,
    pub views: Vec<Relation>,
    pub functions: Vec<Function>,
    pub enums: Vec<Enum>,
    pub composite_types: Vec<CompositeType>,
}

/// A table or a view.
#[derive(Debug, Default, Clone)]
pub struct Relation {
    pub oid: u32,
    pub name: String,
    /// Sorted by name.
    pub columns: Vec<Column>,
    /// Foreign keys to relations of the same schema, sorted by constraint name.
    pub relationships: Vec<Relationship>,
    /// A view PostgreSQL can update and delete through (tables always can).
    pub updatable: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    None,
    ByDefault,
    Always,
}

#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    pub type_oid: u32,
    pub nullable: bool,
    /// A default expression, including a generated column's.
    pub has_default: bool,
    pub identity: Identity,
    /// For view columns: writable through the view.
    pub updatable: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Relationship {
    pub foreign_key_name: String,
    pub columns: Vec<String>,
    /// The referencing columns are unique in their table.
    pub is_one_to_one: bool,
    pub referenced_relation: String,
    pub referenced_columns: Vec<String>,
}

/// One overload of a function callable over rest/v1 (`rpc`).
#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    /// Input arguments in declaration order.
    pub args: Vec<Argument>,
    /// `RETURNS TABLE` columns or OUT parameters; empty when the result is `return_type`.
    pub result_columns: Vec<(String, u32)>,
    pub return_type: u32,
    pub returns_set: bool,
}

#[derive(Debug, Clone)]
pub struct Argument {
    pub name: String,
    pub type_oid: u32,
    pub has_default: bool,
}

#[derive(Debug, Clone)]
pub struct Enum {
    pub name: String,
    /// In their sort order.
    pub labels: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct CompositeType {
    pub name: String,
    /// Attribute names and types, in declaration order.
    pub attributes: Vec<(String, u32)>,
}

/// A row of `pg_type`, reduced to what naming it in TypeScript needs.
#[derive(Debug, Clone)]
pub struct PgType {
    pub schema: String,
    pub name: String,
    pub kind: TypeKind,
}

#[derive(Debug, Clone)]
pub enum TypeKind {
    /// Base and pseudo types, named by `name` (`int4`, `text`, `void`, ...).
    Base,
    Enum(Vec<String>),
    Array {
        element: u32,
    },
    Domain {
        base: u32,
    },
    /// A row type: of a table or view, or a standalone composite type (`relid` is its class).
    Composite {
        relid: u32,
    },
    /// Ranges, multiranges and anything else with no TypeScript counterpart.
    Other,
}
