//! Small schema caches for unit tests of planning, built by hand.

use std::collections::HashMap;

use super::{Column, QualifiedName, Relation, Relationship, SchemaCache};
use crate::rest_v1::settings::{RestConfig, TxEnd};

/// A nullable `integer` column; tests change what they need with `..integer_column(name)`.
pub fn integer_column(name: &str) -> Column {
    Column {
        name: name.into(),
        description: None,
        nullable: true,
        data_type: "integer".into(),
        nominal_type: "integer".into(),
        max_length: None,
        default: None,
        enum_values: Vec::new(),
        generated: false,
        text_input_type: Some("pg_catalog.int4".into()),
        representation: Default::default(),
    }
}

/// A plain table `schema.name` with primary key `id` and these columns.
pub fn table(schema: &str, name: &str, columns: Vec<Column>) -> Relation {
    Relation {
        name: QualifiedName::new(schema, name),
        description: None,
        is_view: false,
        insertable: true,
        updatable: true,
        deletable: true,
        primary_key: vec!["id".into()],
        plain_inserts: true,
        columns,
    }
}

/// A cache exposing schema `s` with these relations and relationships.
pub fn cache(
    relations: Vec<Relation>,
    relationships: HashMap<QualifiedName, Vec<Relationship>>,
    aggregates_enabled: bool,
) -> SchemaCache {
    SchemaCache {
        config: RestConfig {
            schemas: vec!["s".into()],
            extra_search_path: Vec::new(),
            max_rows: None,
            anon_role: "anon".into(),
            aggregates_enabled,
            plan_enabled: false,
            tx_end: TxEnd::Commit,
            pre_request: None,
        },
        relations: relations
            .into_iter()
            .map(|relation| (relation.name.clone(), relation))
            .collect(),
        relationships,
        routines: HashMap::new(),
        role_settings: HashMap::new(),
        schema_descriptions: HashMap::new(),
        media_handlers: Default::default(),
    }
}
