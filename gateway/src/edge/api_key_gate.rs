//! API-key gate in front of the services, as Supabase's API gateway does it.
//!
//! Supabase puts every service behind a gateway that checks the `apikey` (header, or query
//! parameter for websockets) on `/rest/v1`, `/auth/v1` and `/realtime/v1`, leaves the
//! e-mail-link and browser-redirect endpoints of auth open, and lets storage and functions
//! verify tokens themselves. This middleware decides by path whether a key is required,
//! has the key checked and mapped to a bearer token ([`crate::identity::request`]), stores
//! the resulting [`crate::identity::Credentials`] in the request for the services, and
//! answers refusals with the gateway's bodies. Before any of that, it refuses request heads
//! over the edge's size limits ([`super::request_limits`]); after, it paces the body
//! ([`super::slow_clients`]).

use std::borrow::Cow;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{Method, header};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, HttpResponse, web};
use serde_json::json;

use super::request_limits;
use super::slow_clients::{self, BodyTimedOut};
use crate::identity::request::{Gate, GateRejection, resolve};
use crate::state::AppState;

/// Paths under `/auth/v1` that browsers reach from e-mail links and redirects, without
/// headers; plus the health check.
const OPEN_AUTH_PATHS: &[&str] = &[
    "/auth/v1/verify",
    "/auth/v1/callback",
    "/auth/v1/authorize",
    "/auth/v1/.well-known/jwks.json",
    "/auth/v1/health",
];

/// Whether a request with this method and path needs a valid `apikey`.
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

/// A refusal as Supabase's gateway words it.
fn refusal(rejection: GateRejection) -> HttpResponse {
    let body = match rejection {
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
/// valid key where one is required, stores [`crate::identity::Credentials`] for the services, and answers
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
            .into_response(refusal(rejection))
            .map_into_right_body()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
