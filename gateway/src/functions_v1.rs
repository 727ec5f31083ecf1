//! functions/v1: invocation of edge functions, with the edge runtime's error contract.
//!
//! No function runtime is attached yet, so every name is unknown and gets the edge
//! runtime's 404 (`NOT_FOUND`), which functions-js reports as a `FunctionsHttpError`.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use functions::FunctionError;

pub fn routes(config: &mut web::ServiceConfig) {
    config.service(web::scope("/functions/v1").default_service(web::to(unknown_function)));
}

async fn unknown_function() -> HttpResponse {
    error_response(FunctionError::NotFound)
}

/// Writes a gateway-side failure the way the edge runtime does: JSON body plus the
/// `sb-error-code` header (and `x-relay-error: true` when the relay itself failed).
pub fn error_response(error: FunctionError) -> HttpResponse {
    let status = StatusCode::from_u16(error.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = HttpResponse::build(status);
    response.insert_header((functions::SB_ERROR_CODE_HEADER, error.code()));
    if error.is_relay_error() {
        response.insert_header((functions::RELAY_ERROR_HEADER, "true"));
    }
    response.json(error.body())
}
