//! auth/v1: the GoTrue-compatible authentication API.
//!
//! So far it answers the health check as GoTrue does; unknown paths get GoTrue's plain
//! 404. Sign-up, tokens, users and the admin API live here as they are built.

use actix_web::{HttpResponse, web};
use serde_json::json;

use crate::state::VERSION;

pub fn routes(config: &mut web::ServiceConfig) {
    config.service(
        web::scope("/auth/v1")
            .route("/health", web::get().to(health))
            .default_service(web::to(not_found)),
    );
}

/// `GET /auth/v1/health`, shaped like GoTrue's.
async fn health() -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "version": format!("cielo-{VERSION}"),
        "name": "GoTrue",
        "description": "GoTrue is a user registration and authentication API",
    }))
}

/// GoTrue's router answers unknown paths with Go's default plain-text 404.
async fn not_found() -> HttpResponse {
    HttpResponse::NotFound()
        .content_type("text/plain; charset=utf-8")
        .body("404 page not found\n")
}
