//! rest/v1: the PostgREST-compatible API.
//!
//! So far: the readiness root `GET /rest/v1/` (an OpenAPI 2.0 document, as PostgREST
//! serves it) and PostgREST-shaped errors for everything else.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

use crate::state::{AppState, VERSION};

pub fn routes(config: &mut web::ServiceConfig) {
    config.service(
        web::scope("/rest/v1")
            .route("", web::get().to(root))
            .route("/", web::get().to(root))
            .default_service(web::to(not_implemented)),
    );
}

/// A PostgREST error body: all four keys, null when empty.
pub fn error(
    status: StatusCode,
    code: &str,
    message: &str,
    details: Option<&str>,
    hint: Option<&str>,
) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header(("Proxy-Status", format!("PostgREST; error={code}")))
        .json(json!({
            "code": code,
            "message": message,
            "details": details,
            "hint": hint,
        }))
}

/// `GET /rest/v1/`: the OpenAPI root, or 503 while the database is unreachable (the
/// client retries GETs on 503).
async fn root(request: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    if let Err(reason) = crate::health::check_database(&state).await {
        tracing::warn!(%reason, "rest/v1 root: database unavailable");
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "PGRST001",
            "Database client error. Retrying the connection.",
            Some(&reason),
            None,
        );
    }
    HttpResponse::Ok()
        .content_type("application/openapi+json; charset=utf-8")
        .json(openapi_document(&request, &state))
}

fn openapi_document(request: &HttpRequest, state: &AppState) -> Value {
    let external = &state.settings.api.external_url;
    let host = match (external.host_str(), external.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_owned(),
        _ => request.connection_info().host().to_owned(),
    };
    json!({
        "swagger": "2.0",
        "info": {
            "description": "",
            "title": "standard public schema",
            "version": VERSION,
        },
        "host": host,
        "basePath": "/rest/v1",
        "schemes": [external.scheme()],
        "consumes": ["application/json", "application/vnd.pgrst.object+json;nulls=stripped", "application/vnd.pgrst.object+json", "text/csv"],
        "produces": ["application/json", "application/vnd.pgrst.object+json;nulls=stripped", "application/vnd.pgrst.object+json", "text/csv"],
        "paths": {
            "/": {
                "get": {
                    "produces": ["application/openapi+json", "application/json"],
                    "responses": {"200": {"description": "OK"}},
                    "summary": "OpenAPI description (this document)",
                    "tags": ["Introspection"],
                }
            }
        },
        "definitions": {},
        "parameters": {},
        "externalDocs": {
            "description": "PostgREST Documentation",
            "url": "https://postgrest.org/en/latest/references/api.html",
        },
    })
}

/// Table and function endpoints are not served yet; say so in PostgREST's shape.
async fn not_implemented() -> HttpResponse {
    error(
        StatusCode::BAD_REQUEST,
        "PGRST127",
        "Feature not implemented",
        Some("Tables, views and functions are not served by this gateway yet."),
        None,
    )
}
