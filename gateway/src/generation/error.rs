//! The answers of the generation functions when they refuse or fail: a JSON body
//! `{code, message}` with the status the functions' contract gives each case (see
//! `docs/ai.md`). The codes are what clients branch on; the messages are for people.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use functions::ai::{ProviderError, TimeoutPhase};
use serde_json::{Value, json};

/// Why a generation was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum GenerationError {
    /// The body is not a valid request (malformed JSON, a field missing or out of range, too
    /// large).
    #[error("{0}")]
    InvalidRequest(String),
    /// A requested OA is not a learning objective of that level and subject.
    #[error("{0}")]
    UnknownObjective(String),
    /// No signed-in user (no token, the anon key, or a token without a user).
    #[error("Debes iniciar sesión para generar con IA")]
    NotAuthenticated,
    /// The demo has no stars left for a generation.
    #[error("Estrellas Cielo agotadas")]
    StarsExhausted,
    /// An anonymous visitor used today's free generations (hers, or her address's).
    #[error(
        "Se acabaron las generaciones gratuitas de hoy: crea una cuenta para seguir planificando con IA"
    )]
    VisitorLimit,
    /// The demo ended or was suspended.
    #[error("La demo de Estrellas Cielo no está activa")]
    DemoExpired,
    #[error("generation functions take POST")]
    MethodNotAllowed,
    /// The request id was already used by another user.
    #[error("this request id was already used by another user")]
    RequestIdConflict,
    /// The function needs a model and none is configured.
    #[error("no AI model is configured on this server")]
    ModelUnavailable,
    /// The model failed; nothing is charged.
    #[error("{0}")]
    Provider(ProviderError),
    /// The database failed; nothing is charged.
    #[error("database error: {0}")]
    Database(String),
}

impl GenerationError {
    pub fn status(&self) -> StatusCode {
        match self {
            GenerationError::InvalidRequest(_) | GenerationError::UnknownObjective(_) => {
                StatusCode::BAD_REQUEST
            }
            GenerationError::NotAuthenticated => StatusCode::UNAUTHORIZED,
            GenerationError::StarsExhausted => StatusCode::PAYMENT_REQUIRED,
            GenerationError::DemoExpired => StatusCode::FORBIDDEN,
            GenerationError::VisitorLimit => StatusCode::TOO_MANY_REQUESTS,
            GenerationError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            GenerationError::RequestIdConflict => StatusCode::CONFLICT,
            GenerationError::ModelUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            GenerationError::Provider(ProviderError::Timeout(_)) => StatusCode::GATEWAY_TIMEOUT,
            GenerationError::Provider(_) => StatusCode::BAD_GATEWAY,
            GenerationError::Database(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            GenerationError::InvalidRequest(_) => "invalid_request",
            GenerationError::UnknownObjective(_) => "unknown_objective",
            GenerationError::NotAuthenticated => "not_authenticated",
            GenerationError::StarsExhausted => "stars_exhausted",
            GenerationError::DemoExpired => "demo_expired",
            GenerationError::VisitorLimit => "visitor_limit",
            GenerationError::MethodNotAllowed => "method_not_allowed",
            GenerationError::RequestIdConflict => "request_id_conflict",
            GenerationError::ModelUnavailable => "model_unavailable",
            GenerationError::Provider(ProviderError::Timeout(_)) => "provider_timeout",
            GenerationError::Provider(_) => "provider_error",
            GenerationError::Database(_) => "internal_error",
        }
    }

    /// `{code, message}`. A database failure's details stay in the log.
    pub fn body(&self) -> Value {
        let message = match self {
            GenerationError::Database(_) => "the generation could not be completed".to_owned(),
            GenerationError::Provider(ProviderError::Timeout(TimeoutPhase::Total)) => {
                "the AI model did not finish in time; nothing was charged".to_owned()
            }
            GenerationError::Provider(error) => format!("{error}; nothing was charged"),
            other => other.to_string(),
        };
        json!({ "code": self.code(), "message": message })
    }

    pub fn response(&self) -> HttpResponse {
        if let GenerationError::Database(error) = self {
            tracing::error!(%error, "generation failed on the database");
        }
        HttpResponse::build(self.status()).json(self.body())
    }
}

impl From<deadpool_postgres::PoolError> for GenerationError {
    fn from(error: deadpool_postgres::PoolError) -> Self {
        GenerationError::Database(error.to_string())
    }
}

impl From<tokio_postgres::Error> for GenerationError {
    fn from(error: tokio_postgres::Error) -> Self {
        GenerationError::Database(error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_statuses_and_codes() {
        let cases = [
            (
                GenerationError::InvalidRequest("x".into()),
                400,
                "invalid_request",
            ),
            (
                GenerationError::UnknownObjective("x".into()),
                400,
                "unknown_objective",
            ),
            (GenerationError::NotAuthenticated, 401, "not_authenticated"),
            (GenerationError::StarsExhausted, 402, "stars_exhausted"),
            (GenerationError::DemoExpired, 403, "demo_expired"),
            (GenerationError::VisitorLimit, 429, "visitor_limit"),
        ];
        for (error, status, code) in cases {
            assert_eq!(error.status().as_u16(), status);
            assert_eq!(error.body()["code"], code);
        }
    }

    #[test]
    fn database_details_are_not_sent() {
        let body = GenerationError::Database("password authentication failed".into()).body();
        assert!(!body["message"].as_str().unwrap().contains("password"));
    }
}
