//! Reads a `Catalog` from PostgreSQL's system catalogs: the relations, columns, foreign keys,
//! functions, enums and composite types of the requested schemas, and every type by OID.
//! One read-only snapshot, so the pieces agree with each other.

use std::collections::{BTreeMap, BTreeSet};

use tokio_postgres::{Client, IsolationLevel};

use super::TypegenError;
use super::model::{
    Argument, Catalog, Column, CompositeType, Enum, Function, Identity, PgType, Relation,
    Relationship, Schema, TypeKind,
};

/// Tables, partitioned and foreign tables, views and materialized views. A view is writable
/// for the generator when PostgreSQL can update and delete through it (bits 4 and 16).
const RELATIONS: &str = "
SELECT c.oid, n.nspname::text, c.relname::text, c.relkind IN ('v', 'm') AS is_view,
       (pg_relation_is_updatable(c.oid::regclass, false) & 20) = 20 AS updatable
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'p', 'f', 'v', 'm')";

/// Columns of those relations and attributes of standalone composite types. A domain
/// declared NOT NULL makes its columns non-null too.
const COLUMNS: &str = "
SELECT a.attrelid, a.attname::text, a.atttypid,
       NOT (a.attnotnull OR (t.typtype = 'd' AND t.typnotnull)) AS nullable,
       a.atthasdef, a.attidentity::text,
       CASE WHEN c.relkind IN ('v', 'm')
            THEN pg_column_is_updatable(c.oid::regclass, a.attnum, false)
            ELSE true END AS updatable
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_type t ON t.oid = a.atttypid
WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'p', 'f', 'v', 'm', 'c')
  AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attrelid, a.attnum";

/// Foreign keys between relations of the same schema (supabase-js embeds along these). One
/// to one when a unique index (not partial) covers exactly the referencing columns.
const FOREIGN_KEYS: &str = "
SELECT con.conrelid, con.conname::text, ref.relname::text,
       ARRAY(SELECT a.attname::text
             FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, position)
             JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
             ORDER BY k.position) AS columns,
       ARRAY(SELECT a.attname::text
             FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, position)
             JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum
             ORDER BY k.position) AS referenced_columns,
       EXISTS (SELECT 1 FROM pg_index i
               WHERE i.indrelid = con.conrelid AND i.indisunique AND i.indpred IS NULL
                 AND i.indkey::int2[] @> con.conkey AND i.indkey::int2[] <@ con.conkey)
         AS one_to_one
FROM pg_constraint con
JOIN pg_class c ON c.oid = con.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_class ref ON ref.oid = con.confrelid
WHERE con.contype = 'f' AND n.nspname = ANY($1) AND ref.relnamespace = c.relnamespace";

/// Plain functions; trigger functions are not callable over rest/v1.
const FUNCTIONS: &str = "
SELECT n.nspname::text, p.proname::text, p.prorettype, p.proretset,
       COALESCE(p.proallargtypes, p.proargtypes::oid[]) AS arg_types,
       COALESCE(p.proargmodes::text[], array_fill('i'::text, ARRAY[p.pronargs::int])) AS arg_modes,
       COALESCE(p.proargnames, ARRAY[]::text[]) AS arg_names,
       p.pronargdefaults
FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = ANY($1) AND p.prokind = 'f'
  AND p.prorettype NOT IN ('trigger'::regtype, 'event_trigger'::regtype)";

/// Every type, with the class of row types (to tell standalone composite types apart).
const TYPES: &str = "
SELECT t.oid, n.nspname::text, t.typname::text, t.typtype::text, t.typcategory::text,
       t.typelem, t.typbasetype, t.typrelid, COALESCE(c.relkind::text, '') AS relkind
FROM pg_type t
JOIN pg_namespace n ON n.oid = t.typnamespace
LEFT JOIN pg_class c ON c.oid = t.typrelid";

const ENUM_LABELS: &str =
    "SELECT enumtypid, enumlabel::text FROM pg_enum ORDER BY enumtypid, enumsortorder";

const SCHEMAS: &str = "SELECT nspname::text FROM pg_namespace WHERE nspname = ANY($1)";

/// OID of `record`, the return type of functions with OUT or TABLE parameters.
const RECORD_OID: u32 = 2249;

/// Reads the catalog of `schemas` (each must exist).
pub async fn catalog(client: &mut Client, schemas: &[String]) -> Result<Catalog, TypegenError> {
    let transaction = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await?;

    let found: BTreeSet<String> = transaction
        .query(SCHEMAS, &[&schemas])
        .await?
        .iter()
        .map(|row| row.get(0))
        .collect();
    if let Some(missing) = schemas.iter().find(|name| !found.contains(*name)) {
        return Err(TypegenError::NoSuchSchema(missing.clone()));
    }

    let mut labels: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for row in transaction.query(ENUM_LABELS, &[]).await? {
        labels.entry(row.get(0)).or_default().push(row.get(1));
    }

    let mut types = BTreeMap::new();
    // Standalone composite types of the requested schemas: (schema, name, class OID).
    let mut composites: Vec<(String, String, u32)> = Vec::new();
    for row in transaction.query(TYPES, &[]).await? {
        let oid: u32 = row.get(0);
        let schema: String = row.get(1);
        let name: String = row.get(2);
        let typtype: String = row.get(3);
        let category: String = row.get(4);
        let element: u32 = row.get(5);
        let base: u32 = row.get(6);
        let relid: u32 = row.get(7);
        let relkind: String = row.get(8);
        let kind = match typtype.as_str() {
            "e" => TypeKind::Enum(labels.remove(&oid).unwrap_or_default()),
            "d" => TypeKind::Domain { base },
            "c" => {
                if relkind == "c" && schemas.contains(&schema) {
                    composites.push((schema.clone(), name.clone(), relid));
                }
                TypeKind::Composite { relid }
            }
            "b" if category == "A" && element != 0 => TypeKind::Array { element },
            "b" | "p" => TypeKind::Base,
            _ => TypeKind::Other,
        };
        types.insert(oid, PgType { schema, name, kind });
    }

    let mut columns: BTreeMap<u32, Vec<Column>> = BTreeMap::new();
    for row in transaction.query(COLUMNS, &[&schemas]).await? {
        let identity: String = row.get(5);
        columns.entry(row.get(0)).or_default().push(Column {
            name: row.get(1),
            type_oid: row.get(2),
            nullable: row.get(3),
            has_default: row.get(4),
            identity: match identity.as_str() {
                "a" => Identity::Always,
                "d" => Identity::ByDefault,
                _ => Identity::None,
            },
            updatable: row.get(6),
        });
    }

    let mut relationships: BTreeMap<u32, Vec<Relationship>> = BTreeMap::new();
    for row in transaction.query(FOREIGN_KEYS, &[&schemas]).await? {
        relationships
            .entry(row.get(0))
            .or_default()
            .push(Relationship {
                foreign_key_name: row.get(1),
                referenced_relation: row.get(2),
                columns: row.get(3),
                referenced_columns: row.get(4),
                is_one_to_one: row.get(5),
            });
    }

    let mut by_schema: BTreeMap<String, Schema> = schemas
        .iter()
        .map(|name| {
            let schema = Schema {
                name: name.clone(),
                ..Schema::default()
            };
            (name.clone(), schema)
        })
        .collect();

    for row in transaction.query(RELATIONS, &[&schemas]).await? {
        let oid: u32 = row.get(0);
        let schema_name: String = row.get(1);
        let is_view: bool = row.get(3);
        let mut relation = Relation {
            oid,
            name: row.get(2),
            columns: columns.remove(&oid).unwrap_or_default(),
            relationships: relationships.remove(&oid).unwrap_or_default(),
            updatable: is_view && row.get::<_, bool>(4),
        };
        relation.columns.sort_by(|a, b| a.name.cmp(&b.name));
        relation.relationships.sort();
        if let Some(schema) = by_schema.get_mut(&schema_name) {
            if is_view {
                schema.views.push(relation);
            } else {
                schema.tables.push(relation);
            }
        }
    }

    for row in transaction.query(FUNCTIONS, &[&schemas]).await? {
        let schema_name: String = row.get(0);
        if let Some(function) = function(&row)
            && let Some(schema) = by_schema.get_mut(&schema_name)
        {
            schema.functions.push(function);
        }
    }

    for pg_type in types.values() {
        if let TypeKind::Enum(labels) = &pg_type.kind
            && let Some(schema) = by_schema.get_mut(&pg_type.schema)
        {
            schema.enums.push(Enum {
                name: pg_type.name.clone(),
                labels: labels.clone(),
            });
        }
    }
    for (schema_name, name, relid) in composites {
        if let Some(schema) = by_schema.get_mut(&schema_name) {
            let attributes = columns
                .remove(&relid)
                .unwrap_or_default()
                .into_iter()
                .map(|column| (column.name, column.type_oid))
                .collect();
            schema
                .composite_types
                .push(CompositeType { name, attributes });
        }
    }

    transaction.commit().await?;

    let mut schemas: Vec<Schema> = by_schema.into_values().collect();
    for schema in &mut schemas {
        schema.tables.sort_by(|a, b| a.name.cmp(&b.name));
        schema.views.sort_by(|a, b| a.name.cmp(&b.name));
        schema.functions.sort_by(|a, b| a.name.cmp(&b.name));
        schema.enums.sort_by(|a, b| a.name.cmp(&b.name));
        schema.composite_types.sort_by(|a, b| a.name.cmp(&b.name));
    }
    Ok(Catalog { schemas, types })
}

/// A function as rest/v1 calls it, or `None` when it cannot be called with named arguments
/// (unnamed inputs, unless it is the only one).
fn function(row: &tokio_postgres::Row) -> Option<Function> {
    let name: String = row.get(1);
    let return_type: u32 = row.get(2);
    let returns_set: bool = row.get(3);
    let arg_types: Vec<u32> = row.get(4);
    let arg_modes: Vec<String> = row.get(5);
    let arg_names: Vec<String> = row.get(6);
    let defaults = usize::try_from(row.get::<_, i16>(7)).unwrap_or(0);

    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for (index, type_oid) in arg_types.iter().enumerate() {
        let arg_name = arg_names.get(index).cloned().unwrap_or_default();
        match arg_modes.get(index).map(String::as_str).unwrap_or("i") {
            "i" | "v" => inputs.push((arg_name, *type_oid)),
            "b" => {
                inputs.push((arg_name.clone(), *type_oid));
                outputs.push((arg_name, *type_oid));
            }
            _ => outputs.push((arg_name, *type_oid)),
        }
    }
    if inputs.len() > 1 && inputs.iter().any(|(name, _)| name.is_empty()) {
        return None;
    }
    // The last `pronargdefaults` inputs have defaults.
    let first_default = inputs.len().saturating_sub(defaults);
    let args = inputs
        .into_iter()
        .enumerate()
        .map(|(index, (name, type_oid))| Argument {
            name,
            type_oid,
            has_default: index >= first_default,
        })
        .collect();
    let result_columns = if return_type == RECORD_OID {
        outputs
    } else {
        Vec::new()
    };
    Some(Function {
        name,
        args,
        result_columns,
        return_type,
        returns_set,
    })
}
