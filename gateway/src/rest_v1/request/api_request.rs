//! One typed rest/v1 request, from the parts of an HTTP request.
//!
//! Checks come in PostgREST's order: path (PGRST125), schema profile (PGRST106), method
//! (PGRST101/PGRST117), query string (PGRST100), range (PGRST103).

use actix_web::http::Method;

use super::media::{MediaType, parse_accept};
use super::preferences::Preferences;
use super::query_params::{ParseMode, QueryParams};
use super::range::{RowRange, top_range};
use crate::rest_v1::error::ApiError;
use crate::rest_v1::settings::RestConfig;

/// What the path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resource {
    /// `/rest/v1/`: the OpenAPI document.
    Root,
    /// `/rest/v1/<table or view>`
    Relation(String),
    /// `/rest/v1/rpc/<function>`
    Routine(String),
}

/// The HTTP request as rest/v1 needs it (so this stays testable without a server).
#[derive(Debug, Clone)]
pub struct RawRequest<'a> {
    pub method: &'a Method,
    /// Path after `/rest/v1`, still percent-encoded (`/todos`, `/rpc/f`, `/`).
    pub path: &'a str,
    pub query: &'a str,
    /// Lower-case header names with their values, in order.
    pub headers: &'a [(&'a str, &'a str)],
}

impl RawRequest<'_> {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }

    fn headers_named<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s str> + 's {
        self.headers
            .iter()
            .filter(move |(n, _)| *n == name)
            .map(|(_, v)| *v)
    }
}

#[derive(Debug, Clone)]
pub struct ApiRequest {
    pub method: Method,
    pub resource: Resource,
    /// The schema the request acts on.
    pub schema: String,
    /// Whether to answer with `Content-Profile` (profile header sent, or several schemas).
    pub content_profile: bool,
    pub query: QueryParams,
    pub preferences: Preferences,
    pub accept: Vec<MediaType>,
    /// The body's type (`application/json` when absent).
    pub content_type: MediaType,
    /// The root range (after `limit`/`offset` and `Range`).
    pub range: RowRange,
    /// `request.path` as PostgreSQL sees it: `/todos`.
    pub path: String,
}

impl ApiRequest {
    pub fn parse(raw: &RawRequest<'_>, config: &RestConfig) -> Result<Self, ApiError> {
        let resource = resource(raw.path)?;

        let profile_header = if matches!(
            *raw.method,
            Method::POST | Method::PATCH | Method::PUT | Method::DELETE
        ) {
            "content-profile"
        } else {
            "accept-profile"
        };
        let default_schema = config
            .schemas
            .first()
            .cloned()
            .unwrap_or_else(|| "public".to_owned());
        let (schema, negotiated) = match raw.header(profile_header) {
            Some(requested) => {
                if !config.schemas.iter().any(|s| s == requested) {
                    return Err(ApiError::InvalidSchema {
                        schema: requested.to_owned(),
                        exposed: config.schemas.clone(),
                    });
                }
                (requested.to_owned(), true)
            }
            None => (default_schema, false),
        };

        check_method(raw.method, &resource)?;

        let mode = match (&resource, raw.method) {
            (Resource::Routine(_), &Method::GET | &Method::HEAD) => ParseMode::RpcRead,
            _ => ParseMode::Relation,
        };
        let query = QueryParams::parse(raw.query, mode)?;
        let (limit, offset) = query.root_range();
        let range = top_range(
            raw.method == Method::GET,
            raw.header("range"),
            limit,
            offset,
        )?;

        Ok(ApiRequest {
            method: raw.method.clone(),
            content_profile: negotiated || config.schemas.len() > 1,
            schema,
            query,
            preferences: Preferences::parse(raw.headers_named("prefer")),
            accept: parse_accept(raw.header("accept")),
            content_type: raw
                .header("content-type")
                .map_or(MediaType::Json, MediaType::decode),
            range,
            path: raw.path.to_owned(),
            resource,
        })
    }
}

/// Percent-decodes one path segment (`+` is a plus sign in a path, not a space).
fn decode_segment(segment: &str) -> String {
    if !segment.contains('%') {
        return segment.to_owned();
    }
    url::form_urlencoded::parse(format!("x={}", segment.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, value)| value.into_owned())
        .unwrap_or_default()
}

fn resource(path: &str) -> Result<Resource, ApiError> {
    let trimmed = path.strip_prefix('/').unwrap_or(path);
    if trimmed.is_empty() {
        return Ok(Resource::Root);
    }
    let segments: Vec<String> = trimmed.split('/').map(decode_segment).collect();
    match segments.as_slice() {
        [name] => Ok(Resource::Relation(name.clone())),
        [rpc, name] if rpc == "rpc" => Ok(Resource::Routine(name.clone())),
        _ => Err(ApiError::InvalidPath),
    }
}

fn check_method(method: &Method, resource: &Resource) -> Result<(), ApiError> {
    let allowed = match resource {
        Resource::Root => matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS),
        Resource::Relation(_) => matches!(
            *method,
            Method::GET
                | Method::HEAD
                | Method::POST
                | Method::PUT
                | Method::PATCH
                | Method::DELETE
                | Method::OPTIONS
        ),
        Resource::Routine(_) => {
            if !matches!(
                *method,
                Method::GET | Method::HEAD | Method::POST | Method::OPTIONS
            ) {
                return Err(ApiError::RpcMethod(method.to_string()));
            }
            true
        }
    };
    if allowed {
        Ok(())
    } else {
        Err(ApiError::UnsupportedMethod(method.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;
    use std::collections::HashMap;

    fn config(schemas: &str) -> RestConfig {
        let settings =
            Settings::from_lookup(|name| (name == "PGRST_DB_SCHEMAS").then(|| schemas.to_owned()))
                .unwrap();
        RestConfig::new(&settings.rest, &HashMap::new())
    }

    fn parse(
        method: Method,
        path: &str,
        query: &str,
        headers: &[(&str, &str)],
        schemas: &str,
    ) -> Result<ApiRequest, ApiError> {
        ApiRequest::parse(
            &RawRequest {
                method: &method,
                path,
                query,
                headers,
            },
            &config(schemas),
        )
    }

    #[test]
    fn paths_name_resources() {
        assert_eq!(
            parse(Method::GET, "/", "", &[], "public").unwrap().resource,
            Resource::Root
        );
        assert_eq!(
            parse(Method::GET, "", "", &[], "public").unwrap().resource,
            Resource::Root
        );
        assert_eq!(
            parse(Method::GET, "/cursos%20activos", "", &[], "public")
                .unwrap()
                .resource,
            Resource::Relation("cursos activos".into())
        );
        assert_eq!(
            parse(Method::POST, "/rpc/is_admin", "", &[], "public")
                .unwrap()
                .resource,
            Resource::Routine("is_admin".into())
        );
        assert_eq!(
            parse(Method::GET, "/a/b", "", &[], "public")
                .unwrap_err()
                .code(),
            "PGRST125"
        );
        assert_eq!(
            parse(Method::GET, "/items/", "", &[], "public")
                .unwrap_err()
                .code(),
            "PGRST125"
        );
    }

    #[test]
    fn profiles_pick_exposed_schemas_only() {
        let request = parse(
            Method::GET,
            "/t",
            "",
            &[("accept-profile", "personal")],
            "public,personal",
        )
        .unwrap();
        assert_eq!(request.schema, "personal");
        assert!(request.content_profile);
        let error = parse(
            Method::GET,
            "/t",
            "",
            &[("accept-profile", "auth")],
            "public,personal",
        )
        .unwrap_err();
        assert_eq!(error.code(), "PGRST106");
        assert_eq!(
            error.body()["hint"],
            "Only the following schemas are exposed: public, personal"
        );
        assert_eq!(error.body()["message"], "Invalid schema: auth");
        // Content-Profile is the header for writes.
        let request = parse(
            Method::POST,
            "/t",
            "",
            &[("content-profile", "personal")],
            "public,personal",
        )
        .unwrap();
        assert_eq!(request.schema, "personal");
        let request = parse(Method::GET, "/t", "", &[], "public").unwrap();
        assert!(!request.content_profile);
    }

    #[test]
    fn methods_are_checked_per_resource() {
        assert_eq!(
            parse(Method::DELETE, "/rpc/f", "", &[], "public")
                .unwrap_err()
                .code(),
            "PGRST101"
        );
        assert_eq!(
            parse(Method::POST, "/", "", &[], "public")
                .unwrap_err()
                .code(),
            "PGRST117"
        );
        let trace = Method::from_bytes(b"TRACE").unwrap();
        assert_eq!(
            parse(trace, "/t", "", &[], "public").unwrap_err().code(),
            "PGRST117"
        );
    }
}
