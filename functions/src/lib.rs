//! The functions/v1 contract shared by the gateway and the function runtime.
//!
//! supabase-js (`functions-js`) tells three failures apart: the request never reached the
//! runtime (`FunctionsFetchError`), the runtime's relay failed (`FunctionsRelayError`,
//! signalled by the response header `x-relay-error: true` whatever the status), and the
//! function answered a non-2xx status (`FunctionsHttpError`). Errors raised by the runtime
//! itself carry a JSON body `{"code","message"}` and an `sb-error-code` header, as Supabase's
//! edge runtime writes them; this enum is the one place that maps each failure to its status,
//! code, message and headers.
//!
//! [`ai`] is the client of the AI providers (OpenAI-compatible servers) and the star
//! arithmetic that generation functions build on.

pub mod ai;

use serde_json::{Value, json};

/// Response header that marks a failure of the relay between gateway and runtime.
pub const RELAY_ERROR_HEADER: &str = "x-relay-error";
/// Response header naming the runtime's error code.
pub const SB_ERROR_CODE_HEADER: &str = "sb-error-code";
/// Status the edge runtime uses when a worker hits a resource limit (not an IANA status).
pub const WORKER_LIMIT_STATUS: u16 = 546;
/// Methods a function can be invoked with; any other gets [`FunctionError::MethodNotAllowed`].
pub const ALLOWED_METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/// Failures produced by the functions gateway/runtime rather than by a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionError {
    /// No function with that name is deployed.
    NotFound,
    /// `verify_jwt` is on and the request carries no bearer token.
    MissingAuthorization,
    /// `verify_jwt` is on and the bearer token is not a valid JWT of the project.
    InvalidJwt,
    /// A method edge functions do not accept (see [`ALLOWED_METHODS`]).
    MethodNotAllowed,
    /// The function threw before answering, or its worker died while answering.
    WorkerError,
    /// The function could not start.
    BootError,
    /// The function ran out of its time budget.
    IdleTimeout,
    /// The function's worker ran out of memory.
    WorkerLimit,
    /// The relay to the runtime failed.
    Relay,
}

impl FunctionError {
    pub fn status(self) -> u16 {
        match self {
            FunctionError::NotFound => 404,
            FunctionError::MissingAuthorization | FunctionError::InvalidJwt => 401,
            FunctionError::MethodNotAllowed => 405,
            FunctionError::WorkerError => 500,
            FunctionError::BootError => 503,
            FunctionError::IdleTimeout => 504,
            FunctionError::WorkerLimit => WORKER_LIMIT_STATUS,
            FunctionError::Relay => 502,
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            FunctionError::NotFound => "NOT_FOUND",
            FunctionError::MissingAuthorization | FunctionError::InvalidJwt => "UNAUTHORIZED",
            FunctionError::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            FunctionError::WorkerError => "WORKER_ERROR",
            FunctionError::BootError => "BOOT_ERROR",
            FunctionError::IdleTimeout => "IDLE_TIMEOUT",
            FunctionError::WorkerLimit => "WORKER_LIMIT",
            FunctionError::Relay => "RELAY_ERROR",
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            FunctionError::NotFound => "Requested function was not found",
            FunctionError::MissingAuthorization => "Missing authorization header",
            FunctionError::InvalidJwt => "Invalid JWT",
            FunctionError::MethodNotAllowed => "Method not allowed",
            FunctionError::WorkerError => "Function exited due to an error (please check logs)",
            FunctionError::BootError => "Worker failed to boot (please check logs)",
            FunctionError::IdleTimeout => "Function timed out",
            FunctionError::WorkerLimit => {
                "Worker failed to respond due to a resource limit (please check logs)"
            }
            FunctionError::Relay => "Relay error invoking the function",
        }
    }

    /// Whether functions-js must see `x-relay-error: true`.
    pub fn is_relay_error(self) -> bool {
        matches!(self, FunctionError::Relay)
    }

    /// The `sb-error-code` header's value; the JWT check answers without one, as Supabase's
    /// relay does.
    pub fn sb_error_code(self) -> Option<&'static str> {
        match self {
            FunctionError::MissingAuthorization | FunctionError::InvalidJwt => None,
            other => Some(other.code()),
        }
    }

    /// The JSON body. The JWT check's refusals carry the numeric status as `code`, as
    /// Supabase's relay writes them (`{"code":401,"message":"Invalid JWT"}`).
    pub fn body(self) -> Value {
        match self {
            FunctionError::MissingAuthorization | FunctionError::InvalidJwt => {
                json!({"code": self.status(), "message": self.message()})
            }
            _ => json!({"code": self.code(), "message": self.message()}),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [FunctionError; 9] = [
        FunctionError::NotFound,
        FunctionError::MissingAuthorization,
        FunctionError::InvalidJwt,
        FunctionError::MethodNotAllowed,
        FunctionError::WorkerError,
        FunctionError::BootError,
        FunctionError::IdleTimeout,
        FunctionError::WorkerLimit,
        FunctionError::Relay,
    ];

    #[test]
    fn not_found_matches_the_edge_runtime() {
        let error = FunctionError::NotFound;
        assert_eq!(error.status(), 404);
        assert_eq!(
            error.body(),
            json!({"code": "NOT_FOUND", "message": "Requested function was not found"})
        );
        assert!(!error.is_relay_error());
    }

    #[test]
    fn only_relay_failures_set_the_relay_header() {
        for error in [
            FunctionError::NotFound,
            FunctionError::WorkerError,
            FunctionError::BootError,
            FunctionError::IdleTimeout,
        ] {
            assert!(!error.is_relay_error(), "{error:?}");
        }
        assert!(FunctionError::Relay.is_relay_error());
    }

    #[test]
    fn runtime_failures_use_the_edge_runtime_statuses_and_codes() {
        let table = [
            (FunctionError::MethodNotAllowed, 405, "METHOD_NOT_ALLOWED"),
            (FunctionError::WorkerError, 500, "WORKER_ERROR"),
            (FunctionError::BootError, 503, "BOOT_ERROR"),
            (FunctionError::IdleTimeout, 504, "IDLE_TIMEOUT"),
            (FunctionError::WorkerLimit, 546, "WORKER_LIMIT"),
            (FunctionError::Relay, 502, "RELAY_ERROR"),
        ];
        for (error, status, code) in table {
            assert_eq!(error.status(), status, "{error:?}");
            assert_eq!(error.sb_error_code(), Some(code), "{error:?}");
            assert_eq!(error.body()["code"], code, "{error:?}");
            assert_eq!(error.body()["message"], error.message(), "{error:?}");
        }
    }

    #[test]
    fn jwt_refusals_are_401_with_a_numeric_code_and_no_sb_error_code() {
        assert_eq!(
            FunctionError::MissingAuthorization.body(),
            json!({"code": 401, "message": "Missing authorization header"})
        );
        assert_eq!(
            FunctionError::InvalidJwt.body(),
            json!({"code": 401, "message": "Invalid JWT"})
        );
        assert_eq!(FunctionError::InvalidJwt.sb_error_code(), None);
    }

    #[test]
    fn every_status_is_an_error_status() {
        for error in ALL {
            assert!(error.status() >= 400, "{error:?}");
        }
    }
}
