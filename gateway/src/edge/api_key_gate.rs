//! API-key gate in front of the services, as Supabase's API gateway does it.
//!
//! Supabase puts every service behind a gateway that checks the `apikey` (header, or query
//! parameter for websockets) on `/rest/v1`, `/auth/v1` and `/realtime/v1`, leaves the
//! e-mail-link and browser-redirect endpoints of auth open, and lets storage and functions
//! verify tokens themselves. It also turns the opaque keys into JWTs for the services
//! behind it: when `Authorization` is missing (or carries an `sb_` key), the request
//! proceeds as `Bearer <service_role JWT>` for `sb_secret_…`, `Bearer <anon JWT>` for
//! `sb_publishable_…`, and `Bearer <apikey>` for a legacy JWT key.
//!
//! The result is stored in the request as [`Credentials`] for the services to read. Before
//! any of that, the gate refuses request heads over the edge's size limits
//! ([`super::request_limits`]).

use std::borrow::Cow;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{Method, header};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, HttpResponse, web};
use secrecy::ExposeSecret;
use serde_json::json;

use super::request_limits;
use super::slow_clients::{self, BodyTimedOut};
use crate::identity::{ApiKeyKind, ProjectKeys};
use crate::state::AppState;

/// What the gateway learned about the caller before any service runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    /// Which project key was presented, if any valid one was.
    pub api_key: Option<ApiKeyKind>,
    /// The bearer token the services must verify (see the module docs for the mapping).
    pub bearer: Option<String>,
}

/// Whether a path needs a valid `apikey`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    KeyRequired,
    Open,
}

/// Paths under `/auth/v1` that browsers reach from e-mail links and redirects, without
/// headers; plus the health check.
const OPEN_AUTH_PATHS: &[&str] = &[
    "/auth/v1/verify",
    "/auth/v1/callback",
    "/auth/v1/authorize",
    "/auth/v1/.well-known/jwks.json",
    "/auth/v1/health",
];

pub fn gate_for(method: &Method, path: &str) -> Gate {
    if method == Method::OPTIONS {
        return Gate::Open;
    }
    let under = |prefix: &str| {
        path.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    if OPEN_AUTH_PATHS.contains(&path) {
        return Gate::Open;
    }
    if under("/rest/v1") || under("/auth/v1") || under("/realtime/v1") {
        Gate::KeyRequired
    } else {
        Gate::Open
    }
}

/// Why a request was refused at the gate. Bodies are those of Supabase's gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateRejection {
    Missing,
    Invalid,
}

impl GateRejection {
    pub fn response(self) -> HttpResponse {
        let body = match self {
            GateRejection::Missing => json!({
                "message": "No API key found in request",
                "hint": "No `apikey` request header or url param was found."
            }),
            GateRejection::Invalid => json!({
                "message": "Invalid API key",
                "hint": "Double check your Supabase `anon` or `service_role` API key."
            }),
        };
        HttpResponse::Unauthorized().json(body)
    }
}

/// Pure part of the gate: from the presented key and Authorization header to credentials.
pub fn resolve(
    keys: &ProjectKeys,
    gate: Gate,
    apikey: Option<&str>,
    authorization: Option<&str>,
) -> Result<Credentials, GateRejection> {
    let kind = match apikey {
        Some(key) => match keys.classify(key) {
            Some(kind) => Some(kind),
            None if gate == Gate::KeyRequired => return Err(GateRejection::Invalid),
            None => None,
        },
        None if gate == Gate::KeyRequired => return Err(GateRejection::Missing),
        None => None,
    };

    let presented_bearer = authorization
        .and_then(|value| {
            value
                .strip_prefix("Bearer ")
                .or_else(|| value.strip_prefix("bearer "))
        })
        .map(str::trim)
        .filter(|token| !token.is_empty());
    let bearer = match presented_bearer {
        Some(token) if !token.starts_with("sb_") => Some(token.to_owned()),
        // No usable Authorization: act with the key's own role.
        _ => match (kind, apikey) {
            (Some(ApiKeyKind::Secret), _) => {
                Some(keys.service_role_key().expose_secret().to_owned())
            }
            (Some(ApiKeyKind::Publishable), _) => Some(keys.anon_key().to_owned()),
            (Some(_), Some(key)) => Some(key.to_owned()),
            _ => presented_bearer
                .and_then(|token| keys.classify(token))
                .map(|kind| match kind {
                    ApiKeyKind::Secret => keys.service_role_key().expose_secret().to_owned(),
                    _ => keys.anon_key().to_owned(),
                }),
        },
    };
    Ok(Credentials {
        api_key: kind,
        bearer,
    })
}

/// The `apikey` header's name, built once rather than parsed from a string per request.
const APIKEY: header::HeaderName = header::HeaderName::from_static("apikey");

/// The `apikey` header, else the `apikey` query parameter (websocket clients). A header
/// that is not UTF-8 is no key; any other bytes are compared with the keys as they are.
fn presented_key(request: &ServiceRequest) -> Option<Cow<'_, str>> {
    if let Some(value) = request.headers().get(APIKEY) {
        return std::str::from_utf8(value.as_bytes())
            .ok()
            .map(Cow::Borrowed);
    }
    url::form_urlencoded::parse(request.query_string().as_bytes())
        .find(|(name, _)| name == "apikey")
        .map(|(_, value)| value)
}

/// Middleware: refuses oversized request heads ([`request_limits`]) and requests without a
/// valid key where one is required, stores [`Credentials`] for the services, and answers
/// `408` for a body that arrives too slowly ([`slow_clients`]).
pub async fn gate(
    mut request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    let Some(state) = request.app_data::<web::Data<AppState>>().cloned() else {
        return next
            .call(request)
            .await
            .map(ServiceResponse::map_into_left_body);
    };
    // The head's size is checked first, before a key or token is even looked at.
    if let Err(refusal) = request_limits::check(
        &state.settings.api.head_limits,
        request.uri(),
        request.headers(),
    ) {
        return Ok(request
            .into_response(refusal.response())
            .map_into_right_body());
    }
    let gate = if state.settings.api.api_key_required {
        gate_for(request.method(), request.path())
    } else {
        Gate::Open
    };
    let apikey = presented_key(&request);
    let authorization = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| std::str::from_utf8(value.as_bytes()).ok());
    let resolved = resolve(&state.keys, gate, apikey.as_deref(), authorization);
    match resolved {
        Ok(credentials) => {
            request.extensions_mut().insert(credentials);
            let body_window = state.settings.api.client_timeouts.body_window;
            let Some(timed_out) = slow_clients::pace_body(&mut request, body_window) else {
                return next
                    .call(request)
                    .await
                    .map(ServiceResponse::map_into_left_body);
            };
            let response = next.call(request).await?;
            if timed_out.get() {
                // The service answered a body cut short; the client hears why.
                return Ok(response
                    .into_response(BodyTimedOut::response())
                    .map_into_right_body());
            }
            Ok(response.map_into_left_body())
        }
        Err(rejection) => Ok(request
            .into_response(rejection.response())
            .map_into_right_body()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    fn keys() -> ProjectKeys {
        let settings = Settings::from_lookup(|name| {
            (name == "JWT_SECRET")
                .then(|| "super-secret-jwt-token-with-at-least-32-characters-long".to_owned())
        })
        .unwrap();
        ProjectKeys::load(&settings).unwrap()
    }

    #[test]
    fn gates_follow_supabase_routes() {
        let get = Method::GET;
        assert_eq!(gate_for(&get, "/rest/v1/"), Gate::KeyRequired);
        assert_eq!(gate_for(&get, "/rest/v1/todos"), Gate::KeyRequired);
        assert_eq!(gate_for(&get, "/auth/v1/user"), Gate::KeyRequired);
        assert_eq!(gate_for(&get, "/realtime/v1/websocket"), Gate::KeyRequired);
        assert_eq!(gate_for(&get, "/auth/v1/verify"), Gate::Open);
        assert_eq!(gate_for(&get, "/auth/v1/health"), Gate::Open);
        assert_eq!(gate_for(&get, "/auth/v1/.well-known/jwks.json"), Gate::Open);
        assert_eq!(gate_for(&get, "/storage/v1/object/x"), Gate::Open);
        assert_eq!(gate_for(&get, "/functions/v1/hello"), Gate::Open);
        assert_eq!(gate_for(&get, "/"), Gate::Open);
        assert_eq!(gate_for(&get, "/rest/v1x"), Gate::Open);
        assert_eq!(gate_for(&Method::OPTIONS, "/rest/v1/todos"), Gate::Open);
    }

    #[test]
    fn missing_and_invalid_keys_are_refused_where_required() {
        let keys = keys();
        assert_eq!(
            resolve(&keys, Gate::KeyRequired, None, None),
            Err(GateRejection::Missing)
        );
        assert_eq!(
            resolve(&keys, Gate::KeyRequired, Some("nope"), None),
            Err(GateRejection::Invalid)
        );
        let open = resolve(&keys, Gate::Open, Some("nope"), None).unwrap();
        assert_eq!(open.api_key, None);
        assert_eq!(open.bearer, None);
    }

    #[test]
    fn legacy_key_without_authorization_becomes_the_bearer() {
        let keys = keys();
        let anon = keys.anon_key().to_owned();
        let credentials = resolve(&keys, Gate::KeyRequired, Some(&anon), None).unwrap();
        assert_eq!(credentials.api_key, Some(ApiKeyKind::Anon));
        assert_eq!(credentials.bearer.as_deref(), Some(anon.as_str()));
    }

    #[test]
    fn a_user_token_in_authorization_wins() {
        let keys = keys();
        let anon = keys.anon_key().to_owned();
        let credentials = resolve(
            &keys,
            Gate::KeyRequired,
            Some(&anon),
            Some("Bearer user.jwt.token"),
        )
        .unwrap();
        assert_eq!(credentials.bearer.as_deref(), Some("user.jwt.token"));
    }

    #[test]
    fn opaque_keys_map_to_their_roles() {
        let keys = keys();
        let publishable = keys.publishable_key().to_owned();
        let secret = keys.secret_key().expose_secret().to_owned();

        let credentials = resolve(&keys, Gate::KeyRequired, Some(&publishable), None).unwrap();
        assert_eq!(credentials.api_key, Some(ApiKeyKind::Publishable));
        assert_eq!(credentials.bearer.as_deref(), Some(keys.anon_key()));

        // supabase-js sends `Authorization: Bearer <key>` when there is no session.
        let credentials = resolve(
            &keys,
            Gate::KeyRequired,
            Some(&secret),
            Some(&format!("Bearer {secret}")),
        )
        .unwrap();
        assert_eq!(credentials.api_key, Some(ApiKeyKind::Secret));
        assert_eq!(
            credentials.bearer.as_deref(),
            Some(keys.service_role_key().expose_secret())
        );

        // A user session with a publishable key keeps the user's token.
        let credentials = resolve(
            &keys,
            Gate::KeyRequired,
            Some(&publishable),
            Some("Bearer user.jwt.token"),
        )
        .unwrap();
        assert_eq!(credentials.bearer.as_deref(), Some("user.jwt.token"));
    }

    #[test]
    fn open_paths_map_an_opaque_bearer_without_apikey() {
        let keys = keys();
        let secret = keys.secret_key().expose_secret().to_owned();
        let credentials =
            resolve(&keys, Gate::Open, None, Some(&format!("Bearer {secret}"))).unwrap();
        assert_eq!(
            credentials.bearer.as_deref(),
            Some(keys.service_role_key().expose_secret())
        );
        let credentials =
            resolve(&keys, Gate::Open, None, Some("Bearer sb_secret_forged")).unwrap();
        assert_eq!(credentials.bearer, None);
    }
}
