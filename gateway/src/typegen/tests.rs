use super::model::*;
use super::render::render;

const BOOL: u32 = 16;
const INT8: u32 = 20;
const INT4: u32 = 23;
const TEXT: u32 = 25;
const NUMERIC: u32 = 1700;
const TIMESTAMPTZ: u32 = 1184;
const UUID: u32 = 2950;
const JSONB: u32 = 3802;
const TEXT_ARRAY: u32 = 1009;
const TSRANGE: u32 = 3908;
const VOID: u32 = 2278;
const ROLE: u32 = 90_001;
const ROLE_ARRAY: u32 = 90_002;
const OTHER_ENUM: u32 = 90_003;
const EMAIL: u32 = 90_004;
const COURSE_ROW: u32 = 90_005;
const COURSES: u32 = 90_100;

fn base(name: &str) -> PgType {
    PgType {
        schema: "pg_catalog".into(),
        name: name.into(),
        kind: TypeKind::Base,
    }
}

fn types() -> std::collections::BTreeMap<u32, PgType> {
    let mut types = std::collections::BTreeMap::new();
    for (oid, name) in [
        (BOOL, "bool"),
        (INT8, "int8"),
        (INT4, "int4"),
        (TEXT, "text"),
        (NUMERIC, "numeric"),
        (TIMESTAMPTZ, "timestamptz"),
        (UUID, "uuid"),
        (JSONB, "jsonb"),
        (VOID, "void"),
    ] {
        types.insert(oid, base(name));
    }
    types.insert(
        TEXT_ARRAY,
        PgType {
            kind: TypeKind::Array { element: TEXT },
            ..base("_text")
        },
    );
    types.insert(
        TSRANGE,
        PgType {
            kind: TypeKind::Other,
            ..base("tsrange")
        },
    );
    types.insert(
        ROLE,
        PgType {
            schema: "public".into(),
            name: "app_role".into(),
            kind: TypeKind::Enum(vec!["admin".into(), "teacher".into()]),
        },
    );
    types.insert(
        ROLE_ARRAY,
        PgType {
            schema: "public".into(),
            name: "_app_role".into(),
            kind: TypeKind::Array { element: ROLE },
        },
    );
    types.insert(
        OTHER_ENUM,
        PgType {
            schema: "auth".into(),
            name: "factor_type".into(),
            kind: TypeKind::Enum(vec!["totp".into(), "phone".into()]),
        },
    );
    types.insert(
        EMAIL,
        PgType {
            schema: "public".into(),
            name: "email".into(),
            kind: TypeKind::Domain { base: TEXT },
        },
    );
    types.insert(
        COURSE_ROW,
        PgType {
            schema: "public".into(),
            name: "courses".into(),
            kind: TypeKind::Composite { relid: COURSES },
        },
    );
    types
}

fn column(name: &str, type_oid: u32) -> Column {
    Column {
        name: name.into(),
        type_oid,
        nullable: false,
        has_default: false,
        identity: Identity::None,
        updatable: true,
    }
}

fn catalog(tables: Vec<Relation>) -> Catalog {
    Catalog {
        schemas: vec![Schema {
            name: "public".into(),
            tables,
            ..Schema::default()
        }],
        types: types(),
    }
}

fn table(name: &str, columns: Vec<Column>) -> Relation {
    Relation {
        oid: COURSES,
        name: name.into(),
        columns,
        relationships: Vec::new(),
        updatable: false,
    }
}

/// The lines of `section` (`Row`, `Insert`, `Update`) of the first table, trimmed.
fn section(output: &str, section: &str) -> Vec<String> {
    let start = output
        .find(&format!("{section}: {{\n"))
        .unwrap_or_else(|| panic!("no {section} in\n{output}"));
    output[start..]
        .lines()
        .skip(1)
        .map(str::trim)
        .take_while(|line| *line != "}")
        .map(str::to_owned)
        .collect()
}

#[test]
fn postgres_types_map_to_what_supabase_js_receives() {
    let output = render(&catalog(vec![table(
        "t",
        vec![
            column("flag", BOOL),
            column("big", INT8),
            column("small", INT4),
            column("amount", NUMERIC),
            column("name", TEXT),
            column("at", TIMESTAMPTZ),
            column("id", UUID),
            column("data", JSONB),
            column("tags", TEXT_ARRAY),
            column("role", ROLE),
            column("roles", ROLE_ARRAY),
            column("factor", OTHER_ENUM),
            column("email", EMAIL),
            column("period", TSRANGE),
            column("missing", 12_345),
        ],
    )]));
    assert_eq!(
        section(&output, "Row"),
        [
            "flag: boolean",
            "big: number",
            "small: number",
            "amount: number",
            "name: string",
            "at: string",
            "id: string",
            "data: Json",
            "tags: string[]",
            "role: Database[\"public\"][\"Enums\"][\"app_role\"]",
            "roles: Database[\"public\"][\"Enums\"][\"app_role\"][]",
            "factor: \"totp\" | \"phone\"",
            "email: string",
            "period: unknown",
            "missing: unknown",
        ]
    );
}

#[test]
fn nullable_columns_add_null_to_every_shape() {
    let output = render(&catalog(vec![table(
        "t",
        vec![
            Column {
                nullable: true,
                ..column("note", TEXT)
            },
            column("title", TEXT),
        ],
    )]));
    assert_eq!(
        section(&output, "Row"),
        ["note: string | null", "title: string"]
    );
    assert_eq!(
        section(&output, "Insert"),
        ["note?: string | null", "title: string"]
    );
    assert_eq!(
        section(&output, "Update"),
        ["note?: string | null", "title?: string"]
    );
}

#[test]
fn insert_leaves_out_what_the_database_fills_in() {
    let output = render(&catalog(vec![table(
        "t",
        vec![
            column("required", TEXT),
            Column {
                has_default: true,
                ..column("defaulted", TIMESTAMPTZ)
            },
            Column {
                identity: Identity::ByDefault,
                ..column("by_default", INT8)
            },
            Column {
                identity: Identity::Always,
                ..column("always", INT8)
            },
            Column {
                nullable: true,
                ..column("optional", TEXT)
            },
        ],
    )]));
    assert_eq!(
        section(&output, "Insert"),
        [
            "required: string",
            "defaulted?: string",
            "by_default?: number",
            "always?: never",
            "optional?: string | null",
        ]
    );
    assert_eq!(
        section(&output, "Update"),
        [
            "required?: string",
            "defaulted?: string",
            "by_default?: number",
            "always?: never",
            "optional?: string | null",
        ]
    );
}

#[test]
fn an_empty_schema_says_never_in_each_section() {
    let output = render(&catalog(Vec::new()));
    assert_eq!(output.matches("[_ in never]: never").count(), 5, "{output}");
    assert!(
        output.contains("  public: {\n    Enums: {},\n  },\n"),
        "{output}"
    );
}

#[test]
fn foreign_keys_become_relationships() {
    let mut courses = table("courses", vec![column("teacher_id", UUID)]);
    courses.relationships.push(Relationship {
        foreign_key_name: "courses_teacher_id_fkey".into(),
        columns: vec!["teacher_id".into()],
        is_one_to_one: false,
        referenced_relation: "profiles".into(),
        referenced_columns: vec!["user_id".into()],
    });
    let output = render(&catalog(vec![courses]));
    let expected = "        Relationships: [
          {
            foreignKeyName: \"courses_teacher_id_fkey\"
            columns: [\"teacher_id\"]
            isOneToOne: false
            referencedRelation: \"profiles\"
            referencedColumns: [\"user_id\"]
          },
        ]
";
    assert!(output.contains(expected), "{output}");
}

#[test]
fn enums_are_unions_and_constants() {
    let mut catalog = catalog(Vec::new());
    catalog.schemas[0].enums.push(Enum {
        name: "app_role".into(),
        labels: vec!["admin".into(), "teacher".into()],
    });
    let output = render(&catalog);
    assert!(
        output.contains("      app_role: \"admin\" | \"teacher\"\n"),
        "{output}"
    );
    assert!(
        output.contains("      app_role: [\"admin\", \"teacher\"],\n"),
        "{output}"
    );
    assert!(output.ends_with("} as const\n"), "{output}");
}

#[test]
fn functions_render_arguments_and_results() {
    let mut catalog = catalog(vec![table("courses", vec![column("id", INT8)])]);
    catalog.schemas[0].functions = vec![
        Function {
            name: "is_admin".into(),
            args: Vec::new(),
            result_columns: Vec::new(),
            return_type: BOOL,
            returns_set: false,
        },
        Function {
            name: "my_courses".into(),
            args: vec![Argument {
                name: "since".into(),
                type_oid: TIMESTAMPTZ,
                has_default: true,
            }],
            result_columns: Vec::new(),
            return_type: COURSE_ROW,
            returns_set: true,
        },
        Function {
            name: "touch".into(),
            args: vec![Argument {
                name: "p_id".into(),
                type_oid: INT8,
                has_default: false,
            }],
            result_columns: vec![("touched".into(), INT4)],
            return_type: 2249,
            returns_set: false,
        },
    ];
    let output = render(&catalog);
    for expected in [
        "      is_admin: {\n        Args: Record<PropertyKey, never>\n        Returns: boolean\n      }\n",
        "      my_courses: {\n        Args: {\n          since?: string\n        }\n        Returns: {\n          id: number\n        }[]\n      }\n",
        "      touch: {\n        Args: {\n          p_id: number\n        }\n        Returns: {\n          touched: number\n        }\n      }\n",
    ] {
        assert!(output.contains(expected), "missing\n{expected}in\n{output}");
    }
}

#[test]
fn names_that_are_not_identifiers_are_quoted() {
    let output = render(&catalog(vec![table(
        "my-table",
        vec![column("RBD", INT4), column("first name", TEXT)],
    )]));
    assert!(output.contains("      \"my-table\": {\n"), "{output}");
    assert_eq!(
        section(&output, "Row"),
        ["RBD: number", "\"first name\": string"]
    );
}
