//! Catalog queries that build the [`SchemaCache`].
//!
//! Everything is read in one read-only transaction with an empty `search_path`, so
//! `format_type` qualifies every type outside `pg_catalog` (`public.mood`), as PostgREST
//! reports them. Privileges never filter the cache: whether a role may read something is
//! the database's decision at request time.

use std::collections::HashMap;

use tokio_postgres::{Client, Row};

use super::node_tree::{ViewColumn, view_columns};
use super::relationships::{self, ForeignKey, KeyConstraint, ViewInfo};
use super::{
    Column, HandlerTarget, MediaHandler, MediaHandlers, QualifiedName, Relation, Relationship,
    Representation, Routine, RoutineParam, RoutineReturn, SchemaCache, Volatility,
};
use crate::config::RestSettings;
use crate::rest_v1::request::media::MediaType;
use crate::rest_v1::settings::RestConfig;

/// PostgREST's in-database configuration: `pgrst.*` settings of the authenticator role;
/// the database-specific value wins over the global one.
const IN_DATABASE_CONFIG: &str = "
SELECT split_part(setting, '=', 1), substr(setting, strpos(setting, '=') + 1)
  FROM pg_catalog.pg_db_role_setting s
  JOIN pg_catalog.pg_roles r ON r.oid = s.setrole
  CROSS JOIN LATERAL unnest(s.setconfig) AS setting
 WHERE r.rolname = $1
   AND s.setdatabase IN (0, (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()))
   AND setting LIKE 'pgrst.%'
 ORDER BY s.setdatabase";

const RELATIONS: &str = "
SELECT c.oid::int8, n.nspname::text, c.relname::text, c.relkind::text, d.description,
       c.relkind IN ('r', 'p')
         OR (c.relkind IN ('v', 'f') AND (pg_catalog.pg_relation_is_updatable(c.oid::regclass, true) & 8) = 8),
       c.relkind IN ('r', 'p')
         OR (c.relkind IN ('v', 'f') AND (pg_catalog.pg_relation_is_updatable(c.oid::regclass, true) & 4) = 4),
       c.relkind IN ('r', 'p')
         OR (c.relkind IN ('v', 'f') AND (pg_catalog.pg_relation_is_updatable(c.oid::regclass, true) & 16) = 16),
       coalesce((SELECT array_agg(a.attname::text ORDER BY a.attname)
                   FROM pg_catalog.pg_constraint k
                   JOIN pg_catalog.pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = ANY (k.conkey)
                  WHERE k.conrelid = c.oid AND k.contype = 'p'), '{}'),
       -- tgtype 7: a ROW (1), BEFORE (2), INSERT (4) trigger, enabled or not.
       c.relkind = 'r' AND NOT c.relhasrules
         AND NOT EXISTS (SELECT FROM pg_catalog.pg_trigger t
                          WHERE t.tgrelid = c.oid AND (t.tgtype & 7) = 7)
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_catalog.pg_description d
         ON d.objoid = c.oid AND d.classoid = 'pg_catalog.pg_class'::regclass AND d.objsubid = 0
 WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p')
   AND NOT c.relispartition
   AND n.nspname = ANY ($1::text[])";

/// A column of a domain type has the type under all of its domains when that type is
/// built in (a domain over a domain over `tsvector` is a `tsvector` column), as in PostgREST.
const COLUMNS: &str = "
WITH RECURSIVE domain_bases AS (
  SELECT oid, typbasetype AS base FROM pg_catalog.pg_type WHERE typtype = 'd'
  UNION ALL
  SELECT d.oid, b.typbasetype
    FROM domain_bases d
    JOIN pg_catalog.pg_type b ON b.oid = d.base AND b.typtype = 'd'
)
SELECT a.attrelid::int8, a.attname::text, col.description,
       NOT (a.attnotnull OR (t.typtype = 'd' AND t.typnotnull)),
       CASE
         WHEN t.typtype = 'd' AND ub.typnamespace = 'pg_catalog'::regnamespace
           THEN pg_catalog.format_type(ub.oid, NULL)
         WHEN t.typtype <> 'd' AND t.typnamespace = 'pg_catalog'::regnamespace
           THEN pg_catalog.format_type(a.atttypid, NULL)
         ELSE pg_catalog.format_type(a.atttypid, a.atttypmod)
       END,
       pg_catalog.format_type(a.atttypid, a.atttypmod),
       information_schema._pg_char_max_length(
         information_schema._pg_truetypid(a.*, t.*), information_schema._pg_truetypmod(a.*, t.*)),
       CASE
         WHEN a.attgenerated = 's' THEN NULL
         WHEN a.attidentity <> '' THEN
           pg_catalog.format('nextval(%L)', pg_catalog.pg_get_serial_sequence(
             pg_catalog.format('%I.%I', n.nspname, c.relname), a.attname)::regclass)
         ELSE coalesce(pg_catalog.pg_get_expr(ad.adbin, ad.adrelid),
                       CASE WHEN t.typtype = 'd' THEN t.typdefault END)
       END,
       coalesce(ARRAY(SELECT e.enumlabel::text FROM pg_catalog.pg_enum e
                       WHERE e.enumtypid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
                       ORDER BY e.enumsortorder), '{}'),
       a.attgenerated = 's',
       -- json_to_record gives a value of any other type to the type's text input; these it
       -- converts by their structure. A domain's typmod would apply as an explicit cast does
       -- (cutting too long a value), also one on a domain below it: those keep json_to_record.
       CASE WHEN t.typcategory NOT IN ('A', 'C')
             AND t.oid NOT IN ('pg_catalog.json'::pg_catalog.regtype, 'pg_catalog.jsonb'::pg_catalog.regtype)
             AND NOT (t.typtype = 'd' AND (t.typcategory = 'U' OR t.typtypmod >= 0 OR bt.typtype = 'd'))
            THEN pg_catalog.quote_ident(tn.nspname) || '.' || pg_catalog.quote_ident(t.typname)
       END,
       a.atttypid::int8
  FROM pg_catalog.pg_attribute a
  JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
  JOIN pg_catalog.pg_namespace tn ON tn.oid = t.typnamespace
  LEFT JOIN pg_catalog.pg_type bt ON t.typtype = 'd' AND bt.oid = t.typbasetype
  LEFT JOIN (domain_bases db JOIN pg_catalog.pg_type ub ON ub.oid = db.base AND ub.typtype <> 'd')
         ON db.oid = t.oid
  LEFT JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
  LEFT JOIN pg_catalog.pg_description col
         ON col.objoid = c.oid AND col.classoid = 'pg_catalog.pg_class'::regclass AND col.objsubid = a.attnum
 WHERE a.attnum > 0 AND NOT a.attisdropped
   AND c.relkind IN ('r', 'v', 'm', 'f', 'p') AND NOT c.relispartition
   AND n.nspname = ANY ($1::text[])
 ORDER BY a.attrelid, a.attnum";

/// Data representations, as PostgREST's `dataRepresentations` finds them: implicit casts
/// through a function the authenticator (`$1`, PostgREST's loading role) may execute, from a
/// domain to `json` or from `json` or `text` to a domain (PostgREST also loads domain →
/// `text`, which it never uses).
const DATA_REPRESENTATIONS: &str = "
SELECT CASE WHEN s.typtype = 'd' THEN c.castsource ELSE c.casttarget END::int8,
       CASE WHEN s.typtype = 'd' THEN 'to_json'
            WHEN c.castsource = 'pg_catalog.json'::pg_catalog.regtype THEN 'from_json'
            ELSE 'from_text'
       END,
       pn.nspname::text, p.proname::text
  FROM pg_catalog.pg_cast c
  JOIN pg_catalog.pg_type s ON s.oid = c.castsource
  JOIN pg_catalog.pg_type d ON d.oid = c.casttarget
  JOIN pg_catalog.pg_proc p ON p.oid = c.castfunc
  JOIN pg_catalog.pg_namespace pn ON pn.oid = p.pronamespace
 WHERE c.castcontext = 'i' AND c.castmethod = 'f'
   AND pg_catalog.has_function_privilege($1, c.castfunc, 'execute')
   AND ((s.typtype = 'd' AND c.casttarget = 'pg_catalog.json'::pg_catalog.regtype)
     OR (d.typtype = 'd' AND c.castsource IN ('pg_catalog.json'::pg_catalog.regtype,
                                             'pg_catalog.text'::pg_catalog.regtype)))";

/// Every foreign key of the database, with both sides' columns in key order, and whether
/// the referencing columns are exactly a primary key or unique constraint (one-to-one).
const FOREIGN_KEYS: &str = "
SELECT c.conname::text,
       c.conrelid::int8, tn.nspname::text, t.relname::text,
       c.confrelid::int8, fn.nspname::text, f.relname::text,
       ARRAY(SELECT k.attnum::int2 FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord) ORDER BY k.ord),
       ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
               JOIN pg_catalog.pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
              ORDER BY k.ord),
       ARRAY(SELECT k.attnum::int2 FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, ord) ORDER BY k.ord),
       ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, ord)
               JOIN pg_catalog.pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum
              ORDER BY k.ord),
       EXISTS (SELECT 1 FROM pg_catalog.pg_constraint u
                WHERE u.conrelid = c.conrelid AND u.contype IN ('p', 'u')
                  AND ARRAY(SELECT x FROM unnest(u.conkey) x ORDER BY x)
                    = ARRAY(SELECT x FROM unnest(c.conkey) x ORDER BY x))
  FROM pg_catalog.pg_constraint c
  JOIN pg_catalog.pg_class t ON t.oid = c.conrelid
  JOIN pg_catalog.pg_namespace tn ON tn.oid = t.relnamespace
  JOIN pg_catalog.pg_class f ON f.oid = c.confrelid
  JOIN pg_catalog.pg_namespace fn ON fn.oid = f.relnamespace
 WHERE c.contype = 'f' AND c.conparentid = 0
 ORDER BY c.conrelid, c.conname";

/// Primary keys of tables anywhere (views in exposed schemas may expose them).
const PRIMARY_KEYS: &str = "
SELECT c.conname::text, c.conrelid::int8,
       ARRAY(SELECT k.attnum::int2 FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord) ORDER BY k.ord),
       ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
               JOIN pg_catalog.pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
              ORDER BY k.ord)
  FROM pg_catalog.pg_constraint c
 WHERE c.contype = 'p'";

const VIEWS: &str = "
SELECT c.oid::int8, n.nspname::text, c.relname::text, r.ev_action::text
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_catalog.pg_rewrite r ON r.ev_class = c.oid AND r.rulename = '_RETURN'
 WHERE c.relkind IN ('v', 'm') AND n.nspname = ANY ($1::text[])";

/// Functions `f(some_table) RETURNS [SETOF] other_table`: computed relationships.
const COMPUTED_RELATIONSHIPS: &str = "
SELECT pn.nspname::text, p.proname::text,
       an.nspname::text, ac.relname::text,
       rn.nspname::text, rc.relname::text,
       NOT p.proretset OR p.prorows = 1
  FROM pg_catalog.pg_proc p
  JOIN pg_catalog.pg_namespace pn ON pn.oid = p.pronamespace
  JOIN pg_catalog.pg_type at ON at.oid = p.proargtypes[0]
  JOIN pg_catalog.pg_class ac ON ac.oid = at.typrelid
  JOIN pg_catalog.pg_namespace an ON an.oid = ac.relnamespace
  JOIN pg_catalog.pg_type rt ON rt.oid = p.prorettype
  JOIN pg_catalog.pg_class rc ON rc.oid = rt.typrelid
  JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace
 WHERE p.pronargs = 1 AND p.prokind = 'f'
   AND ac.relkind IN ('r', 'v', 'm', 'f', 'p')
   AND rc.relkind IN ('r', 'v', 'm', 'f', 'p')";

/// A function's result is described by the type under its domains (a function may return
/// `SETOF some_domain` where the domain is over a table's row type), as PostgREST does.
const ROUTINES: &str = "
WITH RECURSIVE base_types AS (
  SELECT oid, typbasetype, coalesce(nullif(typbasetype, 0), oid) AS base
    FROM pg_catalog.pg_type
   WHERE oid IN (SELECT prorettype FROM pg_catalog.pg_proc)
  UNION ALL
  SELECT t.oid, b.typbasetype, coalesce(nullif(b.typbasetype, 0), b.oid)
    FROM base_types t
    JOIN pg_catalog.pg_type b ON b.oid = t.typbasetype
)
SELECT pn.nspname::text, p.proname::text, d.description, p.provolatile::text, p.proretset,
       p.pronargs::int4, p.pronargdefaults::int4,
       coalesce((SELECT json_agg(json_build_object(
                    'name', coalesce(arg.name, ''),
                    'type', pg_catalog.format_type(arg.type, NULL),
                    'oid', arg.type::int8,
                    'mode', coalesce(arg.mode, 'i')) ORDER BY arg.ord)
                   FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
                               p.proargnames, p.proargmodes::text[])
                        WITH ORDINALITY AS arg(type, name, mode, ord)), '[]')::text,
       pg_catalog.format_type(p.prorettype, NULL),
       rt.typtype::text,
       rn.nspname::text, rc.relname::text,
       p.prorettype = 'pg_catalog.void'::regtype,
       coalesce(p.proconfig, '{}')
  FROM pg_catalog.pg_proc p
  JOIN pg_catalog.pg_namespace pn ON pn.oid = p.pronamespace
  JOIN base_types bt ON bt.oid = p.prorettype AND bt.typbasetype = 0
  JOIN pg_catalog.pg_type rt ON rt.oid = bt.base
  LEFT JOIN pg_catalog.pg_class rc ON rc.oid = rt.typrelid
  LEFT JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace
  LEFT JOIN pg_catalog.pg_description d
         ON d.objoid = p.oid AND d.classoid = 'pg_catalog.pg_proc'::regclass AND d.objsubid = 0
 WHERE p.prokind = 'f' AND pn.nspname = ANY ($1::text[])
   AND p.prorettype <> 'pg_catalog.trigger'::regtype
 ORDER BY pn.nspname, p.proname, p.pronargs";

/// Media type handlers (PostgREST's `mediaHandlers`): aggregates of the exposed schemas
/// over one relation's row type (or `anyelement`) whose result is a domain named like a
/// media type; and functions of the exposed schemas returning such a domain (not `SETOF`),
/// whose handler is the domain itself. Columns: handler schema and name, target schema and
/// name, the media type as looked up (lower-cased), the media type answered.
const MEDIA_HANDLERS: &str = r"
WITH all_relations AS (
  SELECT reltype FROM pg_catalog.pg_class WHERE relkind IN ('v', 'r', 'm', 'f', 'p')
  UNION
  SELECT oid FROM pg_catalog.pg_type WHERE typname = 'anyelement'
),
media_types AS (
  SELECT t.oid, t.typname, lower(t.typname) AS lookup_name, t.typnamespace,
         CASE t.typname WHEN '*/*' THEN 'application/octet-stream' ELSE t.typname END AS resolved
    FROM pg_catalog.pg_type t
   WHERE t.typbasetype <> 0
     AND (t.typname ~* '^[A-Za-z0-9.-]+/[A-Za-z0-9.\+-]+$' OR t.typname = '*/*')
)
SELECT ps.nspname::text, p.proname::text, ans.nspname::text, an.typname::text,
       mt.lookup_name::text, mt.resolved::text
  FROM media_types mt
  JOIN pg_catalog.pg_proc p ON p.prorettype = mt.oid
  JOIN pg_catalog.pg_namespace ps ON ps.oid = p.pronamespace
  JOIN pg_catalog.pg_aggregate agg ON agg.aggfnoid = p.oid
  JOIN pg_catalog.pg_type an ON an.oid = p.proargtypes[0]
  JOIN pg_catalog.pg_namespace ans ON ans.oid = an.typnamespace
 WHERE ps.nspname = ANY ($1::text[]) AND p.pronargs = 1
   AND an.oid IN (SELECT reltype FROM all_relations)
UNION
SELECT ts.nspname::text, mt.typname::text, ps.nspname::text, p.proname::text,
       mt.lookup_name::text, mt.resolved::text
  FROM pg_catalog.pg_proc p
  JOIN pg_catalog.pg_namespace ps ON ps.oid = p.pronamespace
  JOIN media_types mt ON p.prorettype = mt.oid
  JOIN pg_catalog.pg_namespace ts ON ts.oid = mt.typnamespace
 WHERE ps.nspname = ANY ($1::text[]) AND NOT p.proretset AND p.prokind = 'f'
 ORDER BY 1, 2, 3, 4, 5";

/// Settings of roles the authenticator may switch to (`ALTER ROLE anon SET …`); the
/// database-specific value wins over the global one.
const ROLE_SETTINGS: &str = "
SELECT r.rolname::text, split_part(setting, '=', 1), substr(setting, strpos(setting, '=') + 1)
  FROM pg_catalog.pg_db_role_setting s
  JOIN pg_catalog.pg_roles r ON r.oid = s.setrole
  CROSS JOIN LATERAL unnest(s.setconfig) AS setting
 WHERE s.setdatabase IN (0, (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()))
   AND (r.rolname = $1 OR pg_catalog.pg_has_role($1, r.oid, 'MEMBER'))
   AND split_part(setting, '=', 1) IN (SELECT name FROM pg_catalog.pg_settings WHERE context = 'user')
   AND split_part(setting, '=', 1) NOT IN ('default_transaction_isolation', 'search_path')
 ORDER BY r.rolname, s.setdatabase, 2";

const SCHEMA_DESCRIPTIONS: &str = "
SELECT n.nspname::text, d.description
  FROM pg_catalog.pg_namespace n
  JOIN pg_catalog.pg_description d ON d.objoid = n.oid AND d.classoid = 'pg_catalog.pg_namespace'::regclass
 WHERE n.nspname = ANY ($1::text[])";

/// Reads the in-database configuration and then the whole cache, in one consistent
/// snapshot. `authenticator` is the login role of the API pool.
pub async fn load(
    client: &mut Client,
    settings: &RestSettings,
    authenticator: &str,
) -> Result<SchemaCache, tokio_postgres::Error> {
    let transaction = client.build_transaction().read_only(true).start().await?;
    transaction
        .batch_execute("SET LOCAL search_path = ''")
        .await?;
    let in_database: HashMap<String, String> = transaction
        .query(IN_DATABASE_CONFIG, &[&authenticator])
        .await?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    let config = RestConfig::new(settings, &in_database);
    let schemas = &config.schemas;
    let mut view_schemas = config.schemas.clone();
    view_schemas.extend(config.extra_search_path.iter().cloned());

    let relation_rows = transaction.query(RELATIONS, &[schemas]).await?;
    let column_rows = transaction.query(COLUMNS, &[schemas]).await?;
    let representation_rows = transaction
        .query(DATA_REPRESENTATIONS, &[&authenticator])
        .await?;
    let foreign_key_rows = transaction.query(FOREIGN_KEYS, &[]).await?;
    let primary_key_rows = transaction.query(PRIMARY_KEYS, &[]).await?;
    let view_rows = transaction.query(VIEWS, &[&view_schemas]).await?;
    let computed_rows = transaction.query(COMPUTED_RELATIONSHIPS, &[]).await?;
    let routine_rows = transaction.query(ROUTINES, &[schemas]).await?;
    let role_rows = transaction.query(ROLE_SETTINGS, &[&authenticator]).await?;
    let description_rows = transaction.query(SCHEMA_DESCRIPTIONS, &[schemas]).await?;
    let handler_rows = transaction.query(MEDIA_HANDLERS, &[schemas]).await?;
    transaction.commit().await?;

    let mut representations: HashMap<u32, Representation> = HashMap::new();
    for row in &representation_rows {
        let representation = representations.entry(oid(row, 0)).or_default();
        let function = Some(QualifiedName::new(
            row.get::<_, String>(2),
            row.get::<_, String>(3),
        ));
        match row.get::<_, &str>(1) {
            "to_json" => representation.to_json = function,
            "from_json" => representation.from_json = function,
            _ => representation.from_text = function,
        }
    }

    let mut columns_by_relation: HashMap<u32, Vec<Column>> = HashMap::new();
    for row in &column_rows {
        let representation = representations
            .get(&oid(row, 11))
            .cloned()
            .unwrap_or_default();
        columns_by_relation
            .entry(oid(row, 0))
            .or_default()
            .push(Column {
                name: row.get(1),
                description: row.get(2),
                nullable: row.get(3),
                data_type: row.get(4),
                nominal_type: row.get(5),
                max_length: row.get(6),
                default: row.get(7),
                enum_values: row.get(8),
                generated: row.get(9),
                text_input_type: row.get(10),
                representation,
            });
    }

    let mut relations: HashMap<u32, Relation> = HashMap::new();
    for row in &relation_rows {
        let relation_oid = oid(row, 0);
        let kind: String = row.get(3);
        relations.insert(
            relation_oid,
            Relation {
                name: QualifiedName::new(row.get::<_, String>(1), row.get::<_, String>(2)),
                description: row.get(4),
                is_view: kind == "v" || kind == "m",
                insertable: row.get(5),
                updatable: row.get(6),
                deletable: row.get(7),
                primary_key: row.get(8),
                plain_inserts: row.get(9),
                columns: columns_by_relation
                    .remove(&relation_oid)
                    .unwrap_or_default(),
            },
        );
    }

    let foreign_keys: Vec<ForeignKey> = foreign_key_rows
        .iter()
        .map(|row| ForeignKey {
            name: row.get(0),
            table_oid: oid(row, 1),
            table: QualifiedName::new(row.get::<_, String>(2), row.get::<_, String>(3)),
            foreign_oid: oid(row, 4),
            foreign_table: QualifiedName::new(row.get::<_, String>(5), row.get::<_, String>(6)),
            columns: zip(row.get(7), row.get(8)),
            foreign_columns: zip(row.get(9), row.get(10)),
            one_to_one: row.get(11),
        })
        .collect();
    let primary_keys: Vec<KeyConstraint> = primary_key_rows
        .iter()
        .map(|row| KeyConstraint {
            name: row.get(0),
            table_oid: oid(row, 1),
            columns: zip(row.get(2), row.get(3)),
        })
        .collect();
    let views: Vec<ViewInfo> = view_rows
        .iter()
        .map(|row| ViewInfo {
            oid: oid(row, 0),
            name: QualifiedName::new(row.get::<_, String>(1), row.get::<_, String>(2)),
            columns: view_columns(row.get::<_, &str>(3))
                .into_iter()
                .collect::<Vec<ViewColumn>>(),
        })
        .collect();
    let computed: Vec<Relationship> = computed_rows
        .iter()
        .map(|row| {
            let table = QualifiedName::new(row.get::<_, String>(2), row.get::<_, String>(3));
            let foreign_table =
                QualifiedName::new(row.get::<_, String>(4), row.get::<_, String>(5));
            Relationship::Computed {
                function: QualifiedName::new(row.get::<_, String>(0), row.get::<_, String>(1)),
                is_self: table == foreign_table,
                table,
                foreign_table,
                to_one: row.get(6),
            }
        })
        .collect();

    let derived = relationships::derive(
        &mut relations,
        &foreign_keys,
        &primary_keys,
        &views,
        computed,
        schemas,
    );

    let mut cache = SchemaCache {
        relations: relations
            .into_values()
            .map(|relation| (relation.name.clone(), relation))
            .collect(),
        relationships: derived,
        routines: HashMap::new(),
        role_settings: HashMap::new(),
        schema_descriptions: HashMap::new(),
        media_handlers: MediaHandlers::default(),
        config: config.clone(),
    };
    for row in &routine_rows {
        if let Some(routine) = routine(row) {
            cache
                .routines
                .entry(routine.name.clone())
                .or_default()
                .push(routine);
        }
    }
    for row in &role_rows {
        let role: String = row.get(0);
        let name: String = row.get(1);
        let value: String = row.get(2);
        let settings = cache.role_settings.entry(role).or_default();
        // Rows come global first, then database-specific: the later one wins.
        settings.retain(|(existing, _)| *existing != name);
        settings.push((name, value));
    }
    for row in &description_rows {
        cache.schema_descriptions.insert(row.get(0), row.get(1));
    }
    for row in &handler_rows {
        cache
            .media_handlers
            .insert(MediaType::decode(row.get(4)), media_handler(row));
    }
    Ok(cache)
}

fn media_handler(row: &Row) -> MediaHandler {
    let target = QualifiedName::new(row.get::<_, String>(2), row.get::<_, String>(3));
    MediaHandler {
        function: QualifiedName::new(row.get::<_, String>(0), row.get::<_, String>(1)),
        target: if target.schema == "pg_catalog" && target.name == "anyelement" {
            HandlerTarget::AnyElement
        } else {
            HandlerTarget::Named(target)
        },
        media: MediaType::decode(row.get(5)),
    }
}

fn oid(row: &Row, index: usize) -> u32 {
    u32::try_from(row.get::<_, i64>(index)).unwrap_or(0)
}

fn zip(numbers: Vec<i16>, names: Vec<String>) -> Vec<(i16, String)> {
    numbers.into_iter().zip(names).collect()
}

#[derive(serde::Deserialize)]
struct RawArg {
    name: String,
    #[serde(rename = "type")]
    data_type: String,
    oid: u32,
    mode: String,
}

fn routine(row: &Row) -> Option<Routine> {
    let args: Vec<RawArg> = serde_json::from_str(row.get::<_, &str>(7)).ok()?;
    let input_count: i32 = row.get(5);
    let defaults: i32 = row.get(6);
    let required_count = (input_count - defaults).max(0) as usize;
    let params: Vec<RoutineParam> = args
        .iter()
        .filter(|arg| matches!(arg.mode.as_str(), "i" | "b" | "v"))
        .enumerate()
        .map(|(index, arg)| RoutineParam {
            name: arg.name.clone(),
            data_type: arg.data_type.clone(),
            type_oid: arg.oid,
            required: index < required_count,
            variadic: arg.mode == "v",
        })
        .collect();
    // Callable only with every argument named, or with one unnamed argument that takes the
    // whole body (PostgREST leaves other functions out of its cache).
    let callable = params.iter().all(|param| !param.name.is_empty())
        || matches!(params.as_slice(), [only] if only.name.is_empty()
            && matches!(only.data_type.as_str(), "bytea" | "json" | "jsonb" | "text" | "xml"));
    if !callable {
        return None;
    }
    let has_out_params = args
        .iter()
        .any(|arg| matches!(arg.mode.as_str(), "o" | "b" | "t"));
    let type_kind: String = row.get(9);
    let relation = match (
        row.get::<_, Option<String>>(10),
        row.get::<_, Option<String>>(11),
    ) {
        (Some(schema), Some(name)) => Some(QualifiedName::new(schema, name)),
        _ => None,
    };
    let config: Vec<String> = row.get(13);
    let mut settings = Vec::new();
    let mut isolation_level = None;
    for entry in config {
        if let Some((name, value)) = entry.split_once('=') {
            if name == "default_transaction_isolation" {
                isolation_level = Some(value.to_owned());
            } else if matches!(
                name,
                "statement_timeout" | "plan_filter.statement_cost_limit"
            ) {
                settings.push((name.to_owned(), value.to_owned()));
            }
        }
    }
    Some(Routine {
        name: QualifiedName::new(row.get::<_, String>(0), row.get::<_, String>(1)),
        description: row.get(2),
        params,
        returns: RoutineReturn {
            set_of: row.get(4),
            composite: type_kind == "c" || has_out_params,
            relation,
            data_type: row.get(8),
            is_void: row.get(12),
        },
        volatility: match row.get::<_, &str>(3) {
            "i" => Volatility::Immutable,
            "s" => Volatility::Stable,
            _ => Volatility::Volatile,
        },
        settings,
        isolation_level,
    })
}
