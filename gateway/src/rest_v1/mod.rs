//! rest/v1: the PostgREST-compatible API.
//!
//! A request goes through one pipeline, each stage in its own module:
//!
//! 1. [`crate::identity`]: the bearer token (after the gateway's API-key mapping) → role
//!    and claims, refusals in PostgREST's words ([`error`]);
//! 2. [`request`]: path, profile headers, query string, `Prefer`, `Range`, `Accept` →
//!    [`request::api_request::ApiRequest`];
//! 3. [`plan`]: names resolved against the [`schema_cache`];
//! 4. [`sql`]: the plan as one parameterised statement;
//! 5. [`execute`]: one transaction as the request's role;
//! 6. [`response`]: status, `Content-Range`, preference and GUC headers, body;
//! 7. [`error`]: every failure in PostgREST's error shape.

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

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

use actix_web::http::Method;
use actix_web::{HttpRequest, HttpResponse, web};

use self::error::ApiError;
use self::execute::RequestContext;
use self::request::api_request::{ApiRequest, RawRequest, Resource};
use self::schema_cache::SchemaCache;
use self::sql::fragment::{ident, push_ident, qualified};
use crate::db::api_pool::ApiPool;
use crate::db::batches::TransactionBatches;
use crate::identity::{self, Identity, IdentityContext};
use crate::state::AppState;

pub fn routes(config: &mut web::ServiceConfig) {
    config.service(web::scope("/rest/v1").default_service(web::to(handle)));
}

/// Everything a stage after parsing needs.
#[derive(Debug)]
pub struct Request {
    pub api: ApiRequest,
    pub auth: Identity,
    pub cache: Arc<SchemaCache>,
    /// Shared with the statements' futures, which need it for as long as they run.
    pub context: Arc<RequestContext>,
    /// This worker's `authenticator` pool.
    pub pool: ApiPool,
    /// This worker's implicit transactions, batched on that pool when it is busy.
    pub batches: Rc<TransactionBatches>,
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
    let cache = state.schema_cache.get();
    let now = chrono::Utc::now().timestamp();
    let auth = identity::identify(
        http,
        &IdentityContext {
            verifier: state.keys.verifier(),
            anon_role: &cache.config.anon_role,
        },
        now,
    )?;

    let headers = request_headers(http);
    let path = http
        .uri()
        .path()
        .strip_prefix("/rest/v1")
        .unwrap_or_default();
    // The API gateway consumed `apikey`; it is never a filter.
    let query = without_apikey(http.query_string());
    let raw = RawRequest {
        method: http.method(),
        path,
        query: &query,
        headers: &headers,
    };
    let api = ApiRequest::parse(&raw, &cache.config)?;
    let context = Arc::new(request_context(&api, &auth, &cache, &headers));
    let pool = http
        .app_data::<web::Data<ApiPool>>()
        .ok_or_else(|| ApiError::Internal("no API pool on this worker".into()))?
        .get_ref()
        .clone();
    let batches = http
        .app_data::<Rc<TransactionBatches>>()
        .ok_or_else(|| ApiError::Internal("no API pool on this worker".into()))?
        .clone();
    let request = Request {
        api,
        auth,
        cache,
        context,
        pool,
        batches,
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
fn without_apikey(query: &str) -> Cow<'_, str> {
    // A plain scan: `str::contains` sets up a substring searcher per call.
    if !query
        .as_bytes()
        .windows(6)
        .any(|window| window == b"apikey")
    {
        return Cow::Borrowed(query);
    }
    Cow::Owned(
        query
            .split('&')
            .filter(|pair| pair.split('=').next() != Some("apikey"))
            .collect::<Vec<_>>()
            .join("&"),
    )
}

/// The request's headers with UTF-8 values, in request order. Header names are lower case
/// already (the HTTP layer normalises them).
fn request_headers(http: &HttpRequest) -> Vec<(&str, &str)> {
    http.headers()
        .iter()
        .filter_map(|(name, value)| {
            std::str::from_utf8(value.as_bytes())
                .ok()
                .map(|value| (name.as_str(), value))
        })
        .collect()
}

/// The transaction settings of a request, as PostgREST sets them.
fn request_context(
    api: &ApiRequest,
    auth: &Identity,
    cache: &SchemaCache,
    headers: &[(&str, &str)],
) -> RequestContext {
    let mut search_path = String::with_capacity(64);
    for schema in std::iter::once(&api.schema).chain(&cache.config.extra_search_path) {
        if !search_path.is_empty() {
            search_path.push_str(", ");
        }
        push_ident(&mut search_path, schema);
    }
    let mut header_pairs = Vec::with_capacity(headers.len());
    let mut cookie_pairs = Vec::new();
    for &(name, value) in headers {
        if name == "cookie" {
            for pair in value.split(';') {
                if let Some((key, cookie)) = pair.split_once('=') {
                    cookie_pairs.push((key.trim(), cookie.trim()));
                }
            }
        } else {
            header_pairs.push((name, value));
        }
    }
    RequestContext {
        search_path,
        role_settings: cache
            .role_settings
            .get(&auth.role)
            .cloned()
            .unwrap_or_default(),
        role: auth.role.clone(),
        claims: Arc::clone(&auth.claims_json),
        method: api.method.to_string(),
        path: if api.path.is_empty() {
            "/".to_owned()
        } else {
            api.path.clone()
        },
        headers: json_object(header_pairs),
        cookies: json_object(cookie_pairs),
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

/// A JSON object of string pairs with keys in order, the last value of a repeated key
/// winning (as PostgREST's maps of headers and cookies).
fn json_object(mut pairs: Vec<(&str, &str)>) -> String {
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    let mut out = String::with_capacity(
        2 + pairs
            .iter()
            .map(|(k, v)| k.len() + v.len() + 6)
            .sum::<usize>(),
    );
    out.push('{');
    for (index, (key, value)) in pairs.iter().enumerate() {
        if pairs.get(index + 1).is_some_and(|next| next.0 == *key) {
            continue;
        }
        if out.len() > 1 {
            out.push(',');
        }
        push_json_string(&mut out, key);
        out.push(':');
        push_json_string(&mut out, value);
    }
    out.push('}');
    out
}

/// A JSON string literal. Header values are nearly always plain text, so they are checked
/// in one pass and copied; only the rest goes through the JSON serialiser's escaping.
fn push_json_string(out: &mut String, text: &str) {
    let plain = !text.bytes().fold(false, |special, b| {
        special | (b < 0x20) | (b == b'"') | (b == b'\\')
    });
    if plain {
        out.push('"');
        out.push_str(text);
        out.push('"');
    } else {
        out.push_str(&serde_json::Value::from(text).to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_objects_are_sorted_escaped_and_keep_the_last_repeat() {
        let text = json_object(vec![
            ("x-b", "2"),
            ("accept", "*/*"),
            ("x-b", "3"),
            ("x-q", "say \"hi\"\\\n\u{1}"),
        ]);
        assert_eq!(
            text,
            r#"{"accept":"*/*","x-b":"3","x-q":"say \"hi\"\\\n\u0001"}"#
        );
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["x-q"], "say \"hi\"\\\n\u{1}");
        assert_eq!(json_object(Vec::new()), "{}");
    }
}
