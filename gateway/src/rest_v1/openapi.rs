//! `GET /rest/v1/`: the OpenAPI (Swagger 2.0) document PostgREST serves, listing the
//! relations and functions of the request schema that the request's role may use.

use std::collections::HashMap;

use actix_web::HttpResponse;
use actix_web::http::{Method, header};
use serde_json::{Map, Value, json};

use super::Request;
use super::error::ApiError;
use super::execute;
use super::request::media::MediaType;
use super::response::{CONTENT_PROFILE, ResponseParts};
use super::schema_cache::{
    Cardinality, Column, Relation, Relationship, Routine, RoutineParam, SchemaCache, Volatility,
};
use super::sql::fragment::SqlBuilder;
use crate::state::{AppState, VERSION};

/// Relations and functions of a schema the current role can use ("follow privileges").
const PRIVILEGES: &str = "
SELECT 'r', c.relname::text, NULL::text
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = $1 AND c.relkind IN ('r', 'v', 'm', 'f', 'p') AND NOT c.relispartition
   AND (pg_catalog.pg_has_role(c.relowner, 'USAGE')
        OR pg_catalog.has_table_privilege(c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
        OR pg_catalog.has_any_column_privilege(c.oid, 'SELECT, INSERT, UPDATE, REFERENCES'))
UNION ALL
SELECT 'f', p.proname::text, NULL::text
  FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = $1 AND pg_catalog.has_function_privilege(p.oid, 'EXECUTE')";

/// Each type oid (a JSON array) with its name as `format_type` prints it under the request's
/// search path: without the schema of a type the search path finds. By oid, as PostgREST's
/// `type::regtype::text`: reading a qualified name back would need USAGE on its schema.
const TYPE_NAMES_HEAD: &str = "
UNION ALL
SELECT 't', arg.oid, pg_catalog.format_type(arg.oid::pg_catalog.oid, NULL)
  FROM pg_catalog.json_array_elements_text(";
const TYPE_NAMES_TAIL: &str = "::json) AS arg(oid)";

/// The oids of the argument types of the schema's functions that the cache names
/// schema-qualified (it is read with an empty search path: every type outside
/// `pg_catalog`), as a JSON array.
fn qualified_argument_types(cache: &SchemaCache, schema: &str) -> String {
    let mut oids: Vec<u32> = cache
        .routines
        .iter()
        .filter(|(name, _)| name.schema == schema)
        .flat_map(|(_, routines)| routines)
        .flat_map(|routine| &routine.params)
        .filter(|param| param.data_type.contains('.'))
        .map(|param| param.type_oid)
        .collect();
    oids.sort_unstable();
    oids.dedup();
    serde_json::to_string(&oids).unwrap_or_else(|_| "[]".to_owned())
}

pub async fn handle(request: &Request, state: &AppState) -> Result<HttpResponse, ApiError> {
    let acceptable = request
        .api
        .accept
        .iter()
        .any(|media| matches!(media, MediaType::OpenApi | MediaType::Json | MediaType::Any));
    if !acceptable {
        return Err(ApiError::UnsupportedMediaType(
            request.api.accept.iter().map(MediaType::mime).collect(),
        ));
    }
    // The schema is a parameter wherever the text says `$1`.
    let mut query = SqlBuilder::new();
    for (index, part) in PRIVILEGES.split("$1").enumerate() {
        if index > 0 {
            query.param(request.api.schema.clone());
        }
        query.push(part);
    }
    // And how the request's search path prints the functions' argument types.
    query.push(TYPE_NAMES_HEAD);
    query.param(qualified_argument_types(
        &request.cache,
        &request.api.schema,
    ));
    query.push(TYPE_NAMES_TAIL);
    let rows = execute::query(&request.batches, request.context.clone(), query).await?;
    let mut relations = Vec::new();
    let mut functions = Vec::new();
    let mut type_names = HashMap::new();
    for row in rows {
        let kind: &str = row.get(0);
        let name: String = row.get(1);
        match kind {
            "r" => relations.push(name),
            "f" => functions.push(name),
            _ => {
                if let Ok(oid) = name.parse::<u32>() {
                    type_names.insert(oid, row.get(2));
                }
            }
        }
    }
    let document = document(
        &request.cache,
        &request.api.schema,
        &relations,
        &functions,
        &type_names,
        state,
    );
    let mut parts = ResponseParts::new(200);
    parts.header(
        header::CONTENT_TYPE,
        "application/openapi+json; charset=utf-8",
    );
    // The document describes one schema: with several exposed, PostgREST names it, as in
    // any other response.
    if request.api.content_profile {
        parts.header(CONTENT_PROFILE, request.api.schema.clone());
    }
    if request.api.method != Method::HEAD {
        parts.body = Some(document.to_string().into_bytes());
    }
    Ok(parts.into_response())
}

fn document(
    cache: &SchemaCache,
    schema: &str,
    relations: &[String],
    functions: &[String],
    type_names: &HashMap<u32, String>,
    state: &AppState,
) -> Value {
    let external = &state.settings.api.external_url;
    let host = match (external.host_str(), external.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_owned(),
        _ => "localhost".to_owned(),
    };
    let comment = cache.schema_descriptions.get(schema);
    let (title, description) = match comment {
        Some(text) => {
            let mut lines = text.splitn(2, '\n');
            let title = lines.next().unwrap_or_default().to_owned();
            let rest = lines
                .next()
                .unwrap_or_default()
                .trim_start_matches('\n')
                .to_owned();
            (title, rest)
        }
        None => (
            "PostgREST API".to_owned(),
            "This is a dynamic API generated by PostgREST".to_owned(),
        ),
    };

    let mut paths = Map::new();
    paths.insert(
        "/".into(),
        json!({"get": {
            "tags": ["Introspection"],
            "summary": "OpenAPI description (this document)",
            "produces": ["application/openapi+json", "application/json"],
            "responses": {"200": {"description": "OK"}}
        }}),
    );
    let mut definitions = Map::new();
    let mut parameters = base_parameters();

    let mut visible: Vec<&Relation> = relations
        .iter()
        .filter_map(|name| cache.relation(schema, name))
        .collect();
    visible.sort_by(|a, b| a.name.name.cmp(&b.name.name));
    for relation in &visible {
        let name = &relation.name.name;
        let row_filters: Vec<Value> = relation
            .columns
            .iter()
            .map(|column| {
                let key = format!("rowFilter.{name}.{}", column.name);
                let mut parameter = json!({
                    "name": column.name, "required": false, "in": "query", "type": "string",
                });
                if let Some(description) = &column.description {
                    parameter["description"] = json!(description);
                }
                parameters.insert(key.clone(), parameter);
                json!({"$ref": format!("#/parameters/{key}")})
            })
            .collect();
        parameters.insert(
            format!("body.{name}"),
            json!({"name": name, "description": name, "required": false, "in": "body",
                   "schema": {"$ref": format!("#/definitions/{name}")}}),
        );
        let (summary, details) = split_comment(relation.description.as_deref());
        let mut common = Map::new();
        common.insert("tags".into(), json!([name]));
        if let Some(summary) = summary {
            common.insert("summary".into(), json!(summary));
        }
        if let Some(details) = details {
            common.insert("description".into(), json!(details));
        }
        let reference = |key: &str| json!({"$ref": format!("#/parameters/{key}")});
        let mut get = common.clone();
        let mut get_parameters = row_filters.clone();
        for key in [
            "select",
            "order",
            "range",
            "rangeUnit",
            "offset",
            "limit",
            "preferCount",
        ] {
            get_parameters.push(reference(key));
        }
        get.insert("parameters".into(), Value::Array(get_parameters));
        get.insert(
            "responses".into(),
            json!({"200": {"description": "OK", "schema": {"type": "array", "items": {"$ref": format!("#/definitions/{name}")}}},
                   "206": {"description": "Partial Content"}}),
        );
        let mut operations = Map::new();
        operations.insert("get".into(), Value::Object(get));
        if relation.insertable || relation.updatable || relation.deletable {
            let mut post = common.clone();
            post.insert(
                "parameters".into(),
                json!([
                    reference(&format!("body.{name}")),
                    reference("select"),
                    reference("preferPost")
                ]),
            );
            post.insert(
                "responses".into(),
                json!({"201": {"description": "Created"}}),
            );
            let mut patch = common.clone();
            let mut patch_parameters = row_filters.clone();
            patch_parameters.push(reference(&format!("body.{name}")));
            patch_parameters.push(reference("preferReturn"));
            patch.insert("parameters".into(), Value::Array(patch_parameters));
            patch.insert(
                "responses".into(),
                json!({"204": {"description": "No Content"}}),
            );
            let mut delete = common.clone();
            let mut delete_parameters = row_filters;
            delete_parameters.push(reference("preferReturn"));
            delete.insert("parameters".into(), Value::Array(delete_parameters));
            delete.insert(
                "responses".into(),
                json!({"204": {"description": "No Content"}}),
            );
            operations.insert("post".into(), Value::Object(post));
            operations.insert("patch".into(), Value::Object(patch));
            operations.insert("delete".into(), Value::Object(delete));
        }
        paths.insert(format!("/{name}"), Value::Object(operations));
        definitions.insert(name.clone(), definition(cache, relation));
    }

    let mut names: Vec<&String> = functions.iter().collect();
    names.sort();
    names.dedup();
    for name in names {
        let Some(routines) = cache.routines.get(&super::schema_cache::QualifiedName::new(
            schema,
            name.clone(),
        )) else {
            continue;
        };
        let Some(routine) = routines.first() else {
            continue;
        };
        paths.insert(format!("/rpc/{name}"), rpc_path(routine, type_names));
    }

    json!({
        "swagger": "2.0",
        "info": {"title": title, "description": description, "version": VERSION},
        "externalDocs": {"description": "PostgREST Documentation", "url": "https://postgrest.org/en/v14/references/api.html"},
        "host": host,
        "basePath": "/rest/v1",
        "schemes": [external.scheme()],
        "consumes": ["application/json", "application/vnd.pgrst.object+json;nulls=stripped", "application/vnd.pgrst.object+json", "text/csv"],
        "produces": ["application/json", "application/vnd.pgrst.object+json;nulls=stripped", "application/vnd.pgrst.object+json", "text/csv"],
        "paths": paths,
        "definitions": definitions,
        "parameters": parameters,
    })
}

fn split_comment(comment: Option<&str>) -> (Option<String>, Option<String>) {
    let Some(comment) = comment else {
        return (None, None);
    };
    let mut lines = comment.splitn(2, '\n');
    let summary = lines.next().map(str::to_owned);
    let rest = lines
        .next()
        .map(|rest| rest.trim_start_matches('\n').to_owned())
        .filter(|rest| !rest.is_empty());
    (summary, rest)
}

fn base_parameters() -> Map<String, Value> {
    let prefer = |choices: &[&str]| {
        let mut value = json!({"name": "Prefer", "description": "Preference", "required": false, "in": "header", "type": "string"});
        if !choices.is_empty() {
            value["enum"] = json!(choices);
        }
        value
    };
    let query = |name: &str, description: &str| json!({"name": name, "description": description, "required": false, "in": "query", "type": "string"});
    let mut parameters = Map::new();
    parameters.insert("preferParams".into(), prefer(&[]));
    parameters.insert(
        "preferReturn".into(),
        prefer(&["return=representation", "return=minimal", "return=none"]),
    );
    parameters.insert("preferCount".into(), prefer(&["count=none"]));
    parameters.insert(
        "preferPost".into(),
        prefer(&[
            "return=representation",
            "return=minimal",
            "return=none",
            "resolution=ignore-duplicates",
            "resolution=merge-duplicates",
        ]),
    );
    parameters.insert("select".into(), query("select", "Filtering Columns"));
    parameters.insert("on_conflict".into(), query("on_conflict", "On Conflict"));
    parameters.insert("order".into(), query("order", "Ordering"));
    parameters.insert(
        "range".into(),
        json!({"name": "Range", "description": "Limiting and Pagination", "required": false, "in": "header", "type": "string"}),
    );
    parameters.insert(
        "rangeUnit".into(),
        json!({"name": "Range-Unit", "description": "Limiting and Pagination", "required": false, "in": "header", "type": "string", "default": "items"}),
    );
    parameters.insert("offset".into(), query("offset", "Limiting and Pagination"));
    parameters.insert("limit".into(), query("limit", "Limiting and Pagination"));
    parameters
}

/// Swagger type and format of a PostgreSQL type.
fn swagger_type(data_type: &str) -> (Option<&'static str>, String) {
    let kind = match data_type {
        "character varying" | "character" | "text" => Some("string"),
        "boolean" => Some("boolean"),
        "smallint" | "integer" | "bigint" => Some("integer"),
        "numeric" | "real" | "double precision" => Some("number"),
        "json" | "jsonb" => None,
        t if t.ends_with("[]") => Some("array"),
        _ => Some("string"),
    };
    let format = match data_type {
        "smallint" | "integer" => "int32".to_owned(),
        "bigint" => "int64".to_owned(),
        other => other.to_owned(),
    };
    (kind, format)
}

/// `items` of an array type: the element's Swagger type (none for `json[]`/`jsonb[]`: any).
fn array_items(data_type: &str) -> Option<Value> {
    let element = data_type.strip_suffix("[]")?;
    Some(match swagger_type(element).0 {
        Some(kind) => json!({"type": kind}),
        None => json!({}),
    })
}

fn definition(cache: &SchemaCache, relation: &Relation) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for column in &relation.columns {
        properties.insert(column.name.clone(), property(cache, relation, column));
        if !column.nullable {
            required.push(column.name.clone());
        }
    }
    let mut definition = json!({"type": "object", "properties": properties});
    if let Some(description) = &relation.description {
        definition["description"] = json!(description);
    }
    if !required.is_empty() {
        definition["required"] = json!(required);
    }
    definition
}

fn property(cache: &SchemaCache, relation: &Relation, column: &Column) -> Value {
    let (kind, format) = swagger_type(&column.data_type);
    let mut property = Map::new();
    if let Some(kind) = kind {
        property.insert("type".into(), json!(kind));
    }
    if let Some(items) = array_items(&column.data_type) {
        property.insert("items".into(), items);
    }
    property.insert("format".into(), json!(format));
    if let Some(length) = column.max_length {
        property.insert("maxLength".into(), json!(length));
    }
    if !column.enum_values.is_empty() {
        property.insert("enum".into(), json!(column.enum_values));
    }
    if let Some(default) = &column.default {
        let value = if kind == Some("string") {
            let stripped = match default.rsplit_once("::") {
                Some((value, _)) => value,
                None => default.as_str(),
            };
            Some(json!(stripped.trim_matches('\'')))
        } else {
            serde_json::from_str::<Value>(default).ok()
        };
        if let Some(value) = value {
            property.insert("default".into(), value);
        }
    }
    let mut notes = Vec::new();
    if relation.primary_key.contains(&column.name) {
        notes.push("This is a Primary Key.<pk/>".to_owned());
    }
    let foreign = foreign_key_target(cache.relationships_of(&relation.name), &column.name);
    if let Some((table, remote)) = foreign {
        notes.push(format!(
            "This is a Foreign Key to `{table}.{remote}`.<fk table='{table}' column='{remote}'/>"
        ));
    }
    let description = match (&column.description, notes.is_empty()) {
        (Some(comment), true) => Some(comment.clone()),
        (Some(comment), false) => Some(format!("{comment}\n\nNote:\n{}", notes.join("\n"))),
        (None, false) => Some(format!("Note:\n{}", notes.join("\n"))),
        (None, true) => None,
    };
    if let Some(description) = description {
        property.insert("description".into(), json!(description));
    }
    Value::Object(property)
}

/// The relation and column a single-column foreign key on `column` points to, for the
/// column's "Foreign Key to" note. Like PostgREST (`sortOn relFTableIsView`), a relationship
/// to a table wins over one to a view that exposes the same key, whatever their order.
fn foreign_key_target(relationships: &[Relationship], column: &str) -> Option<(String, String)> {
    let mut candidates: Vec<&Relationship> = relationships
        .iter()
        .filter(|relationship| matches!(relationship, Relationship::ForeignKey { .. }))
        .collect();
    candidates.sort_by_key(|relationship| {
        matches!(
            relationship,
            Relationship::ForeignKey {
                foreign_table_is_view: true,
                ..
            }
        )
    });
    candidates
        .into_iter()
        .find_map(|relationship| match relationship {
            Relationship::ForeignKey {
                foreign_table,
                cardinality:
                    Cardinality::ManyToOne { columns, .. }
                    | Cardinality::OneToOne {
                        columns,
                        is_parent: false,
                        ..
                    },
                ..
            } => match columns.as_slice() {
                [(local, remote)] if local == column => {
                    Some((foreign_table.name.clone(), remote.clone()))
                }
                _ => None,
            },
            _ => None,
        })
}

/// The `/rpc/<name>` path item. `type_names` maps argument type oids to how the request's
/// search path prints them (the cache qualifies every type outside `pg_catalog`): PostgREST
/// reads the functions for its OpenAPI document inside the request, with the request schema
/// on the search path, so an argument of type `s.mood` shows as `mood` there.
fn rpc_path(routine: &Routine, type_names: &HashMap<u32, String>) -> Value {
    let name = &routine.name.name;
    let (summary, details) = split_comment(routine.description.as_deref());
    let mut common = Map::new();
    common.insert("tags".into(), json!([format!("(rpc) {name}")]));
    if let Some(summary) = summary {
        common.insert("summary".into(), json!(summary));
    }
    if let Some(details) = details {
        common.insert("description".into(), json!(details));
    }
    common.insert(
        "produces".into(),
        json!([
            "application/json",
            "application/vnd.pgrst.object+json;nulls=stripped",
            "application/vnd.pgrst.object+json"
        ]),
    );
    common.insert("responses".into(), json!({"200": {"description": "OK"}}));
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut get_parameters = Vec::new();
    for param in &routine.params {
        let data_type = type_names
            .get(&param.type_oid)
            .map_or(param.data_type.as_str(), String::as_str);
        properties.insert(param.name.clone(), body_property(data_type));
        if param.required {
            required.push(param.name.clone());
        }
        get_parameters.push(query_parameter(param, data_type));
    }
    let mut operations = Map::new();
    if routine.volatility != Volatility::Volatile {
        let mut get = common.clone();
        get.insert("parameters".into(), Value::Array(get_parameters));
        operations.insert("get".into(), Value::Object(get));
    }
    let mut post = common;
    // PostgREST's Swagger library leaves out empty maps and lists: a function without
    // arguments has no `properties`, one without required arguments no `required`.
    let mut schema = json!({"type": "object"});
    if !properties.is_empty() {
        schema["properties"] = Value::Object(properties);
    }
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    if let Some(description) = &routine.description {
        schema["description"] = json!(description);
    }
    post.insert(
        "parameters".into(),
        json!([{"name": "args", "in": "body", "required": true, "schema": schema}, {"$ref": "#/parameters/preferParams"}]),
    );
    operations.insert("post".into(), Value::Object(post));
    Value::Object(operations)
}

/// An argument in the POST body schema: `json`/`jsonb` have no type (any JSON value), arrays
/// say what their elements are.
fn body_property(data_type: &str) -> Value {
    let (kind, format) = swagger_type(data_type);
    let mut property = Map::new();
    if let Some(kind) = kind {
        property.insert("type".into(), json!(kind));
    }
    if let Some(items) = array_items(data_type) {
        property.insert("items".into(), items);
    }
    property.insert("format".into(), json!(format));
    Value::Object(property)
}

/// An argument as a GET query parameter. A query value is text, so arrays and JSON are
/// `string`s; a VARIADIC argument may repeat (`?v=a&v=b`), which Swagger calls a `multi`
/// collection of its elements.
fn query_parameter(param: &RoutineParam, data_type: &str) -> Value {
    let (kind, format) = swagger_type(data_type);
    let mut parameter = json!({"name": param.name, "in": "query", "required": param.required});
    if param.variadic {
        let element = data_type.strip_suffix("[]").unwrap_or(data_type);
        let (element_kind, element_format) = swagger_type(element);
        let mut items = json!({"format": element_format});
        if let Some(element_kind) = element_kind {
            items["type"] = json!(element_kind);
        }
        parameter["type"] = json!(kind.unwrap_or("string"));
        parameter["collectionFormat"] = json!("multi");
        parameter["items"] = items;
    } else {
        let query_type = match kind {
            Some("array") | None => "string",
            Some(other) => other,
        };
        parameter["type"] = json!(query_type);
        parameter["format"] = json!(format);
    }
    parameter
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest_v1::schema_cache::{QualifiedName, RoutineReturn};

    fn many_to_one(target: &str, is_view: bool, local: &str, remote: &str) -> Relationship {
        Relationship::ForeignKey {
            table: QualifiedName::new("s", "projects"),
            foreign_table: QualifiedName::new("s", target),
            is_self: false,
            cardinality: Cardinality::ManyToOne {
                constraint: "projects_client_id_fkey".into(),
                columns: vec![(local.into(), remote.into())],
            },
            table_is_view: false,
            foreign_table_is_view: is_view,
        }
    }

    #[test]
    fn a_foreign_key_note_names_the_table_before_a_view_exposing_its_key() {
        let relationships = [
            many_to_one("alpha_projects", true, "client_id", "id"),
            many_to_one("clients", false, "client_id", "id"),
            many_to_one("zeta_projects", true, "client_id", "id"),
        ];
        assert_eq!(
            foreign_key_target(&relationships, "client_id"),
            Some(("clients".into(), "id".into()))
        );
        // With only views to choose from, the first one in cache order.
        assert_eq!(
            foreign_key_target(&relationships[..1], "client_id"),
            Some(("alpha_projects".into(), "id".into()))
        );
        assert_eq!(foreign_key_target(&relationships, "name"), None);
    }

    fn param(name: &str, data_type: &str, required: bool, variadic: bool) -> RoutineParam {
        RoutineParam {
            name: name.into(),
            data_type: data_type.into(),
            // Made-up oids: 1 for `s.mood`, 2 for `elsewhere.mood`, 0 for the rest.
            type_oid: match data_type {
                "s.mood" => 1,
                "elsewhere.mood" => 2,
                _ => 0,
            },
            required,
            variadic,
        }
    }

    fn routine(params: Vec<RoutineParam>, volatility: Volatility) -> Routine {
        Routine {
            name: QualifiedName::new("s", "f"),
            description: None,
            params,
            returns: RoutineReturn {
                set_of: false,
                relation: None,
                composite: false,
                data_type: "text".into(),
                is_void: false,
            },
            volatility,
            settings: Vec::new(),
            isolation_level: None,
        }
    }

    #[test]
    fn rpc_body_arguments_have_array_items_and_json_has_no_type() {
        let routine = routine(
            vec![
                param("ints", "integer[]", true, false),
                param("docs", "json[]", true, false),
                param("doc", "jsonb", false, false),
                param("mood", "s.mood", false, false),
            ],
            Volatility::Volatile,
        );
        let type_names = HashMap::from([(1, "mood".to_owned())]);
        let path = rpc_path(&routine, &type_names);
        let schema = &path["post"]["parameters"][0]["schema"];
        assert_eq!(
            schema["properties"],
            json!({
                "ints": {"type": "array", "items": {"type": "integer"}, "format": "integer[]"},
                "docs": {"type": "array", "items": {}, "format": "json[]"},
                "doc": {"format": "jsonb"},
                "mood": {"type": "string", "format": "mood"},
            })
        );
        assert_eq!(schema["required"], json!(["ints", "docs"]));
        // Volatile: POST only.
        assert!(path.get("get").is_none());
    }

    #[test]
    fn rpc_without_required_arguments_has_no_required_key_nor_empty_properties() {
        let path = rpc_path(
            &routine(vec![param("a", "text", false, false)], Volatility::Stable),
            &HashMap::new(),
        );
        let schema = path["post"]["parameters"][0]["schema"].as_object().unwrap();
        assert!(!schema.contains_key("required"));
        let path = rpc_path(&routine(Vec::new(), Volatility::Stable), &HashMap::new());
        assert_eq!(
            path["post"]["parameters"][0]["schema"],
            json!({"type": "object"})
        );
    }

    #[test]
    fn rpc_query_parameters_print_types_as_the_search_path_does_and_variadic_repeats() {
        let routine = routine(
            vec![
                param("mood", "s.mood", true, false),
                param("other", "elsewhere.mood", true, false),
                param("ints", "integer[]", true, false),
                param("v", "text[]", false, true),
            ],
            Volatility::Immutable,
        );
        let type_names = HashMap::from([(1, "mood".to_owned()), (2, "elsewhere.mood".to_owned())]);
        let path = rpc_path(&routine, &type_names);
        assert_eq!(
            path["get"]["parameters"],
            json!([
                {"name": "mood", "in": "query", "required": true, "type": "string", "format": "mood"},
                {"name": "other", "in": "query", "required": true, "type": "string", "format": "elsewhere.mood"},
                {"name": "ints", "in": "query", "required": true, "type": "string", "format": "integer[]"},
                {"name": "v", "in": "query", "required": false, "type": "array",
                 "collectionFormat": "multi", "items": {"type": "string", "format": "text"}},
            ])
        );
    }
}
