//! rest/v1: the PostgREST-compatible API.
//!
//! A request goes through one pipeline, each stage in its own module:
//!
//! 1. [`auth`]: the bearer token (after the gateway's API-key mapping) → role and claims;
//! 2. [`request`]: path, profile headers, query string, `Prefer`, `Range`, `Accept` →
//!    [`request::api_request::ApiRequest`];
//! 3. [`plan`]: names resolved against the [`schema_cache`];
//! 4. [`sql`]: the plan as one parameterised statement;
//! 5. [`execute`]: one transaction as the request's role;
//! 6. [`response`]: status, `Content-Range`, preference and GUC headers, body;
//! 7. [`error`]: every failure in PostgREST's error shape.

pub mod auth;
pub mod call;
pub mod error;
pub mod execute;
pub mod openapi;
pub mod plan;
pub mod read;
pub mod request;
pub mod response;
pub mod schema_cache;
pub mod settings;
pub mod sql;
pub mod write;

use std::collections::BTreeMap;
use std::sync::Arc;

use actix_web::http::Method;
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};

use self::auth::RequestAuth;
use self::error::ApiError;
use self::execute::RequestContext;
use self::request::api_request::{ApiRequest, RawRequest, Resource};
use self::schema_cache::SchemaCache;
use self::sql::fragment::{ident, qualified};
use crate::api_key::Credentials;
use crate::db::api_pool::ApiPool;
use crate::state::AppState;

pub fn routes(config: &mut web::ServiceConfig) {
    config.service(web::scope("/rest/v1").default_service(web::to(handle)));
}

/// Everything a stage after parsing needs.
#[derive(Debug)]
pub struct Request {
    pub api: ApiRequest,
    pub auth: RequestAuth,
    pub cache: Arc<SchemaCache>,
    pub context: RequestContext,
    /// This worker's `authenticator` pool.
    pub pool: ApiPool,
}

async fn handle(
    http: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    match pipeline(&http, payload, &state).await {
        Ok(response) => response,
        Err(error) => error.response(),
    }
}

/// The whole body, refused with 413 as soon as it grows past `limit`.
async fn read_body(mut payload: web::Payload, limit: usize) -> Result<web::BytesMut, ApiError> {
    use futures_util::StreamExt;
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|error| ApiError::InvalidBody(error.to_string()))?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::PayloadTooLarge(limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

async fn pipeline(
    http: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
) -> Result<HttpResponse, ApiError> {
    let body = read_body(payload, state.settings.rest.max_body_size).await?;
    let bearer = http
        .extensions()
        .get::<Credentials>()
        .and_then(|credentials| credentials.bearer.clone());
    let cache = state.schema_cache.get();
    let now = chrono::Utc::now().timestamp();
    let auth = auth::authenticate(
        bearer.as_deref(),
        state.keys.verifier(),
        &cache.config.anon_role,
        now,
    )?;

    let headers = lowercase_headers(http);
    let path = http
        .uri()
        .path()
        .strip_prefix("/rest/v1")
        .unwrap_or_default()
        .to_owned();
    // The API gateway consumed `apikey`; it is never a filter.
    let query = without_apikey(http.query_string());
    let raw = RawRequest {
        method: http.method(),
        path: &path,
        query: &query,
        headers: &headers,
    };
    let api = ApiRequest::parse(&raw, &cache.config)?;
    let context = request_context(&api, &auth, &cache, &headers);
    let pool = http
        .app_data::<web::Data<ApiPool>>()
        .ok_or_else(|| ApiError::Internal("no API pool on this worker".into()))?
        .get_ref()
        .clone();
    let request = Request {
        api,
        auth,
        cache,
        context,
        pool,
    };

    match (&request.api.resource, request.api.method.clone()) {
        (Resource::Root, Method::GET | Method::HEAD) => openapi::handle(&request, state).await,
        (Resource::Root, Method::OPTIONS) => Ok(response::options("OPTIONS,GET,HEAD")),
        (Resource::Relation(name), Method::GET | Method::HEAD) => {
            read::handle(&request, name).await
        }
        (Resource::Relation(name), Method::OPTIONS) => read::options(&request, name),
        (Resource::Relation(name), Method::POST | Method::PATCH | Method::PUT | Method::DELETE) => {
            write::handle(&request, name, &body).await
        }
        (Resource::Routine(name), Method::OPTIONS) => call::options(&request, name),
        (Resource::Routine(name), _) => call::handle(&request, name, &body).await,
        (_, method) => Err(ApiError::UnsupportedMethod(method.to_string())),
    }
}

/// The query string without `apikey=` parameters (the gateway's, as with Supabase's).
fn without_apikey(query: &str) -> String {
    if !query.contains("apikey") {
        return query.to_owned();
    }
    query
        .split('&')
        .filter(|pair| pair.split('=').next() != Some("apikey"))
        .collect::<Vec<_>>()
        .join("&")
}

/// Header names lower-cased, in request order.
fn lowercase_headers(http: &HttpRequest) -> Vec<(String, String)> {
    http.headers()
        .iter()
        .filter_map(|(name, value)| {
            value
                .to_str()
                .ok()
                .map(|value| (name.as_str().to_ascii_lowercase(), value.to_owned()))
        })
        .collect()
}

/// The transaction settings of a request, as PostgREST sets them.
fn request_context(
    api: &ApiRequest,
    auth: &RequestAuth,
    cache: &SchemaCache,
    headers: &[(String, String)],
) -> RequestContext {
    let mut search_path = vec![ident(&api.schema)];
    search_path.extend(
        cache
            .config
            .extra_search_path
            .iter()
            .map(|schema| ident(schema)),
    );
    let mut header_map: BTreeMap<&str, &str> = BTreeMap::new();
    let mut cookies: BTreeMap<&str, &str> = BTreeMap::new();
    for (name, value) in headers {
        if name == "cookie" {
            for pair in value.split(';') {
                if let Some((key, cookie)) = pair.split_once('=') {
                    cookies.insert(key.trim(), cookie.trim());
                }
            }
        } else {
            header_map.insert(name, value);
        }
    }
    RequestContext {
        search_path: search_path.join(", "),
        role_settings: cache
            .role_settings
            .get(&auth.role)
            .cloned()
            .unwrap_or_default(),
        role: auth.role.clone(),
        claims: auth.claims_json.to_string(),
        method: api.method.to_string(),
        path: if api.path.is_empty() {
            "/".to_owned()
        } else {
            api.path.clone()
        },
        headers: serde_json::to_string(&header_map).unwrap_or_else(|_| "{}".to_owned()),
        cookies: serde_json::to_string(&cookies).unwrap_or_else(|_| "{}".to_owned()),
        timezone: api.preferences.timezone.clone(),
        anonymous: auth.anonymous,
        pre_request: cache.config.pre_request.as_deref().map(|name| {
            let call = match name.split_once('.') {
                Some((schema, function)) => qualified(schema, function),
                None => ident(name),
            };
            format!("SELECT {call}()")
        }),
        function_settings: Vec::new(),
    }
}
