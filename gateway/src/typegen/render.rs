//! Writes a `Catalog` as the TypeScript module supabase-js expects (`createClient<Database>`):
//! the layout of `supabase gen types typescript` (a `Database` type with each schema's Tables,
//! Views, Functions, Enums and CompositeTypes, the `Tables<>`/`TablesInsert<>`/... helpers and
//! the `Constants` enum values), with every list in a fixed order so the output diffs cleanly.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::model::{Catalog, Column, Function, Identity, Relation, Relationship, TypeKind};

/// Where lines are wrapped, as the formatter of supabase's own output does.
const LINE_WIDTH: usize = 80;

/// The schema the helper types default to, as in supabase-js.
const DEFAULT_SCHEMA: &str = "public";

const JSON_TYPE: &str = "export type Json =
  | string
  | number
  | boolean
  | null
  | { [key: string]: Json | undefined }
  | Json[]
";

/// The generated module.
pub fn render(catalog: &Catalog) -> String {
    let names = Names::new(catalog);
    let mut out = String::new();
    out.push_str(JSON_TYPE);
    out.push_str("\nexport type Database = {\n");
    for schema in &catalog.schemas {
        line(&mut out, 1, &format!("{}: {{", key(&schema.name)));

        section(&mut out, "Tables", schema.tables.is_empty());
        for table in &schema.tables {
            relation(&mut out, &names, table, true);
        }
        close(&mut out, 2);

        section(&mut out, "Views", schema.views.is_empty());
        for view in &schema.views {
            relation(&mut out, &names, view, false);
        }
        close(&mut out, 2);

        section(&mut out, "Functions", schema.functions.is_empty());
        let mut overloads: BTreeMap<&str, Vec<&Function>> = BTreeMap::new();
        for function in &schema.functions {
            overloads.entry(&function.name).or_default().push(function);
        }
        for (name, overloads) in overloads {
            function(&mut out, &names, name, &overloads);
        }
        close(&mut out, 2);

        section(&mut out, "Enums", schema.enums.is_empty());
        for item in &schema.enums {
            let variants: Vec<String> = item.labels.iter().map(|label| quote(label)).collect();
            union(&mut out, 3, &key(&item.name), &variants);
        }
        close(&mut out, 2);

        section(
            &mut out,
            "CompositeTypes",
            schema.composite_types.is_empty(),
        );
        for item in &schema.composite_types {
            line(&mut out, 3, &format!("{}: {{", key(&item.name)));
            for (name, type_oid) in &item.attributes {
                let ts = names.type_of(*type_oid);
                line(&mut out, 4, &format!("{}: {ts} | null", key(name)));
            }
            close(&mut out, 3);
        }
        close(&mut out, 2);

        close(&mut out, 1);
    }
    out.push_str("}\n");
    out.push_str(&helpers());
    constants(&mut out, catalog);
    out
}

fn line(out: &mut String, depth: usize, text: &str) {
    for _ in 0..depth {
        out.push_str("  ");
    }
    out.push_str(text);
    out.push('\n');
}

fn close(out: &mut String, depth: usize) {
    line(out, depth, "}");
}

/// Opens one of a schema's five maps; an empty one says so the way TypeScript allows.
fn section(out: &mut String, name: &str, empty: bool) {
    line(out, 2, &format!("{name}: {{"));
    if empty {
        line(out, 3, "[_ in never]: never");
    }
}

/// `name: A | B`, or one variant per line when that does not fit.
fn union(out: &mut String, depth: usize, name: &str, variants: &[String]) {
    let single = format!("{name}: {}", variants.join(" | "));
    if depth * 2 + single.len() <= LINE_WIDTH || variants.len() < 2 {
        line(out, depth, &single);
    } else {
        line(out, depth, &format!("{name}:"));
        for variant in variants {
            line(out, depth + 1, &format!("| {variant}"));
        }
    }
}

fn relation(out: &mut String, names: &Names<'_>, relation: &Relation, is_table: bool) {
    line(out, 3, &format!("{}: {{", key(&relation.name)));
    object(
        out,
        4,
        "Row",
        relation
            .columns
            .iter()
            .map(|column| row_field(names, column)),
    );
    if is_table {
        object(
            out,
            4,
            "Insert",
            relation
                .columns
                .iter()
                .map(|column| insert_field(names, column)),
        );
        object(
            out,
            4,
            "Update",
            relation
                .columns
                .iter()
                .map(|column| update_field(names, column)),
        );
    } else if relation.updatable {
        object(
            out,
            4,
            "Insert",
            relation
                .columns
                .iter()
                .map(|column| view_write_field(names, column)),
        );
        object(
            out,
            4,
            "Update",
            relation
                .columns
                .iter()
                .map(|column| view_write_field(names, column)),
        );
    }
    relationships(out, &relation.relationships);
    close(out, 3);
}

/// `Name: { fields }` over several lines, or `Name: {}`.
fn object(out: &mut String, depth: usize, name: &str, fields: impl Iterator<Item = String>) {
    let fields: Vec<String> = fields.collect();
    if fields.is_empty() {
        line(out, depth, &format!("{name}: {{}}"));
        return;
    }
    line(out, depth, &format!("{name}: {{"));
    for field in fields {
        line(out, depth + 1, &field);
    }
    close(out, depth);
}

fn nullable(ts: String, nullable: bool) -> String {
    if nullable { format!("{ts} | null") } else { ts }
}

/// What a select returns.
fn row_field(names: &Names<'_>, column: &Column) -> String {
    let ts = nullable(names.type_of(column.type_oid), column.nullable);
    format!("{}: {ts}", key(&column.name))
}

/// What an insert takes: a column may be left out when the database fills it in.
fn insert_field(names: &Names<'_>, column: &Column) -> String {
    if column.identity == Identity::Always {
        return format!("{}?: never", key(&column.name));
    }
    let optional = column.nullable || column.has_default || column.identity != Identity::None;
    let ts = nullable(names.type_of(column.type_oid), column.nullable);
    format!(
        "{}{}: {ts}",
        key(&column.name),
        if optional { "?" } else { "" }
    )
}

/// What an update takes: any column, none required.
fn update_field(names: &Names<'_>, column: &Column) -> String {
    if column.identity == Identity::Always {
        return format!("{}?: never", key(&column.name));
    }
    let ts = nullable(names.type_of(column.type_oid), column.nullable);
    format!("{}?: {ts}", key(&column.name))
}

/// A column written through an updatable view: optional, and `never` when not writable.
fn view_write_field(names: &Names<'_>, column: &Column) -> String {
    if !column.updatable {
        return format!("{}?: never", key(&column.name));
    }
    format!(
        "{}?: {} | null",
        key(&column.name),
        names.type_of(column.type_oid)
    )
}

fn relationships(out: &mut String, relationships: &[Relationship]) {
    if relationships.is_empty() {
        line(out, 4, "Relationships: []");
        return;
    }
    line(out, 4, "Relationships: [");
    for relationship in relationships {
        line(out, 5, "{");
        line(
            out,
            6,
            &format!("foreignKeyName: {}", quote(&relationship.foreign_key_name)),
        );
        line(
            out,
            6,
            &format!("columns: {}", string_tuple(&relationship.columns)),
        );
        line(
            out,
            6,
            &format!("isOneToOne: {}", relationship.is_one_to_one),
        );
        line(
            out,
            6,
            &format!(
                "referencedRelation: {}",
                quote(&relationship.referenced_relation)
            ),
        );
        line(
            out,
            6,
            &format!(
                "referencedColumns: {}",
                string_tuple(&relationship.referenced_columns)
            ),
        );
        line(out, 5, "},");
    }
    line(out, 4, "]");
}

fn string_tuple(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|item| quote(item)).collect();
    format!("[{}]", items.join(", "))
}

/// A function's overloads: their argument objects as a union, the first one's result.
fn function(out: &mut String, names: &Names<'_>, name: &str, overloads: &[&Function]) {
    line(out, 3, &format!("{}: {{", key(name)));
    let mut args: Vec<Vec<String>> = overloads
        .iter()
        .map(|overload| {
            overload
                .args
                .iter()
                .map(|arg| {
                    let optional = if arg.has_default { "?" } else { "" };
                    format!(
                        "{}{optional}: {}",
                        key(&arg.name),
                        names.type_of(arg.type_oid)
                    )
                })
                .collect()
        })
        .collect();
    // Overloads in a fixed order; the first one's result stands for all (as PostgREST
    // resolves a call to one of them by its arguments, the results should agree).
    let mut order: Vec<usize> = (0..overloads.len()).collect();
    order.sort_by(|a, b| args[*a].cmp(&args[*b]));
    let first = overloads[order[0]];
    args = order.iter().map(|index| args[*index].clone()).collect();

    if args.len() == 1 {
        let fields = &args[0];
        if fields.is_empty() {
            line(out, 4, "Args: Record<PropertyKey, never>");
        } else {
            object(out, 4, "Args", fields.iter().cloned());
        }
    } else {
        let variants: Vec<String> = args
            .iter()
            .map(|fields| {
                if fields.is_empty() {
                    "Record<PropertyKey, never>".to_owned()
                } else {
                    format!("{{ {} }}", fields.join("; "))
                }
            })
            .collect();
        union(out, 4, "Args", &variants);
    }

    let set = if first.returns_set { "[]" } else { "" };
    let columns: Vec<String> = if first.result_columns.is_empty() {
        match names.row_of(first.return_type) {
            Some(relation) => relation
                .columns
                .iter()
                .map(|column| row_field(names, column))
                .collect(),
            None => {
                line(
                    out,
                    4,
                    &format!("Returns: {}{set}", names.type_of(first.return_type)),
                );
                close(out, 3);
                return;
            }
        }
    } else {
        first
            .result_columns
            .iter()
            .map(|(name, type_oid)| format!("{}: {}", key(name), names.type_of(*type_oid)))
            .collect()
    };
    line(out, 4, "Returns: {");
    for column in columns {
        line(out, 5, &column);
    }
    line(out, 4, &format!("}}{set}"));
    close(out, 3);
}

fn constants(out: &mut String, catalog: &Catalog) {
    out.push_str("\nexport const Constants = {\n");
    for schema in &catalog.schemas {
        line(out, 1, &format!("{}: {{", key(&schema.name)));
        if schema.enums.is_empty() {
            line(out, 2, "Enums: {},");
        } else {
            line(out, 2, "Enums: {");
            for item in &schema.enums {
                let single = format!("{}: {},", key(&item.name), string_tuple(&item.labels));
                if 6 + single.len() <= LINE_WIDTH {
                    line(out, 3, &single);
                } else {
                    line(out, 3, &format!("{}: [", key(&item.name)));
                    for label in &item.labels {
                        line(out, 4, &format!("{},", quote(label)));
                    }
                    line(out, 3, "],");
                }
            }
            line(out, 2, "},");
        }
        line(out, 1, "},");
    }
    out.push_str("} as const\n");
}

/// A property name: bare when it is an identifier, quoted otherwise.
fn key(name: &str) -> String {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_' || first == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if identifier {
        name.to_owned()
    } else {
        quote(name)
    }
}

/// A TypeScript string literal.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Names types in TypeScript: built-in types by their PostgreSQL name, the rendered schemas'
/// enums, composite types and row types by their place in `Database`.
struct Names<'a> {
    catalog: &'a Catalog,
    schemas: BTreeSet<&'a str>,
    /// Tables and views of the rendered schemas by class OID: schema, section, relation.
    relations: BTreeMap<u32, (&'a str, &'static str, &'a Relation)>,
}

impl<'a> Names<'a> {
    fn new(catalog: &'a Catalog) -> Self {
        let mut relations = BTreeMap::new();
        for schema in &catalog.schemas {
            for table in &schema.tables {
                relations.insert(table.oid, (schema.name.as_str(), "Tables", table));
            }
            for view in &schema.views {
                relations.insert(view.oid, (schema.name.as_str(), "Views", view));
            }
        }
        Names {
            catalog,
            schemas: catalog
                .schemas
                .iter()
                .map(|schema| schema.name.as_str())
                .collect(),
            relations,
        }
    }

    /// The table or view whose row type `type_oid` is, when it is rendered.
    fn row_of(&self, type_oid: u32) -> Option<&'a Relation> {
        match self.catalog.types.get(&type_oid)?.kind {
            TypeKind::Composite { relid } => {
                self.relations.get(&relid).map(|(_, _, relation)| *relation)
            }
            _ => None,
        }
    }

    fn type_of(&self, type_oid: u32) -> String {
        let Some(pg_type) = self.catalog.types.get(&type_oid) else {
            return "unknown".to_owned();
        };
        match &pg_type.kind {
            TypeKind::Base => builtin(&pg_type.name).to_owned(),
            TypeKind::Array { element } => {
                let element = self.type_of(*element);
                if element.contains(" | ") {
                    format!("({element})[]")
                } else {
                    format!("{element}[]")
                }
            }
            TypeKind::Domain { base } => self.type_of(*base),
            TypeKind::Enum(labels) => {
                if self.schemas.contains(pg_type.schema.as_str()) {
                    format!(
                        "Database[{}][\"Enums\"][{}]",
                        quote(&pg_type.schema),
                        quote(&pg_type.name)
                    )
                } else {
                    let labels: Vec<String> = labels.iter().map(|label| quote(label)).collect();
                    labels.join(" | ")
                }
            }
            TypeKind::Composite { relid } => {
                if let Some((schema, section, relation)) = self.relations.get(relid) {
                    format!(
                        "Database[{}][\"{section}\"][{}][\"Row\"]",
                        quote(schema),
                        quote(&relation.name)
                    )
                } else if self.is_rendered_composite(&pg_type.schema, &pg_type.name) {
                    format!(
                        "Database[{}][\"CompositeTypes\"][{}]",
                        quote(&pg_type.schema),
                        quote(&pg_type.name)
                    )
                } else {
                    "unknown".to_owned()
                }
            }
            TypeKind::Other => "unknown".to_owned(),
        }
    }

    fn is_rendered_composite(&self, schema: &str, name: &str) -> bool {
        self.catalog.schemas.iter().any(|rendered| {
            rendered.name == schema
                && rendered
                    .composite_types
                    .iter()
                    .any(|item| item.name == name)
        })
    }
}

/// The TypeScript type of a built-in PostgreSQL type, as supabase-js receives it in JSON.
fn builtin(name: &str) -> &'static str {
    match name {
        "bool" => "boolean",
        // int8 and numeric arrive as JSON numbers from PostgREST-compatible servers.
        "int2" | "int4" | "int8" | "float4" | "float8" | "numeric" | "oid" => "number",
        "bytea" | "bpchar" | "varchar" | "char" | "name" | "date" | "text" | "citext" | "time"
        | "timetz" | "timestamp" | "timestamptz" | "interval" | "uuid" | "inet" | "cidr"
        | "macaddr" | "vector" => "string",
        "json" | "jsonb" => "Json",
        "void" => "undefined",
        "record" => "Record<string, unknown>",
        _ => "unknown",
    }
}

/// The helpers that pick a row, insert, update, enum or composite type out of `Database`,
/// by name in the default schema or as `{ schema }, name`.
fn helpers() -> String {
    let schema = quote(DEFAULT_SCHEMA);
    format!(
        r#"
type DefaultSchema = Database[Extract<keyof Database, {schema}>]

type SchemaName = keyof Database

type Readable<S extends SchemaName> = Database[S]["Tables"] & Database[S]["Views"]

type DefaultReadable = DefaultSchema["Tables"] & DefaultSchema["Views"]

export type Tables<
  NameOrSchema extends keyof DefaultReadable | {{ schema: SchemaName }},
  Name extends NameOrSchema extends {{ schema: SchemaName }}
    ? keyof Readable<NameOrSchema["schema"]>
    : never = never,
> = NameOrSchema extends {{ schema: SchemaName }}
  ? Readable<NameOrSchema["schema"]>[Name] extends {{ Row: infer Row }}
    ? Row
    : never
  : NameOrSchema extends keyof DefaultReadable
    ? DefaultReadable[NameOrSchema] extends {{ Row: infer Row }}
      ? Row
      : never
    : never

export type TablesInsert<
  NameOrSchema extends keyof DefaultSchema["Tables"] | {{ schema: SchemaName }},
  Name extends NameOrSchema extends {{ schema: SchemaName }}
    ? keyof Database[NameOrSchema["schema"]]["Tables"]
    : never = never,
> = NameOrSchema extends {{ schema: SchemaName }}
  ? Database[NameOrSchema["schema"]]["Tables"][Name] extends {{ Insert: infer Insert }}
    ? Insert
    : never
  : NameOrSchema extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][NameOrSchema] extends {{ Insert: infer Insert }}
      ? Insert
      : never
    : never

export type TablesUpdate<
  NameOrSchema extends keyof DefaultSchema["Tables"] | {{ schema: SchemaName }},
  Name extends NameOrSchema extends {{ schema: SchemaName }}
    ? keyof Database[NameOrSchema["schema"]]["Tables"]
    : never = never,
> = NameOrSchema extends {{ schema: SchemaName }}
  ? Database[NameOrSchema["schema"]]["Tables"][Name] extends {{ Update: infer Update }}
    ? Update
    : never
  : NameOrSchema extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][NameOrSchema] extends {{ Update: infer Update }}
      ? Update
      : never
    : never

export type Enums<
  NameOrSchema extends keyof DefaultSchema["Enums"] | {{ schema: SchemaName }},
  Name extends NameOrSchema extends {{ schema: SchemaName }}
    ? keyof Database[NameOrSchema["schema"]]["Enums"]
    : never = never,
> = NameOrSchema extends {{ schema: SchemaName }}
  ? Database[NameOrSchema["schema"]]["Enums"][Name]
  : NameOrSchema extends keyof DefaultSchema["Enums"]
    ? DefaultSchema["Enums"][NameOrSchema]
    : never

export type CompositeTypes<
  NameOrSchema extends
    | keyof DefaultSchema["CompositeTypes"]
    | {{ schema: SchemaName }},
  Name extends NameOrSchema extends {{ schema: SchemaName }}
    ? keyof Database[NameOrSchema["schema"]]["CompositeTypes"]
    : never = never,
> = NameOrSchema extends {{ schema: SchemaName }}
  ? Database[NameOrSchema["schema"]]["CompositeTypes"][Name]
  : NameOrSchema extends keyof DefaultSchema["CompositeTypes"]
    ? DefaultSchema["CompositeTypes"][NameOrSchema]
    : never
"#
    )
}
