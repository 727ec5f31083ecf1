//! The functions/v1 contract shared by the gateway and the function runtime.
//!
//! supabase-js (`functions-js`) tells three failures apart: the request never reached the
//! runtime (`FunctionsFetchError`), the runtime's relay failed (`FunctionsRelayError`,
//! signalled by the response header `x-relay-error: true` whatever the status), and the
//! function answered a non-2xx status (`FunctionsHttpError`). Errors raised by the runtime
//! itself carry a JSON body `{"code","message"}` and an `sb-error-code` header.

pub mod ai;

use serde_json::{Value, json};

/// Response header that marks a failure of the relay between gateway and runtime.
pub const RELAY_ERROR_HEADER: &str = "x-relay-error";
/// Response header naming the runtime's error code.
pub const SB_ERROR_CODE_HEADER: &str = "sb-error-code";

/// Failures produced by the functions gateway/runtime rather than by a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionError {
    /// No function with that name is deployed.
    NotFound,
    /// The function threw before answering.
    WorkerError,
    /// The function could not start.
    BootError,
    /// The function ran out of its time budget.
    IdleTimeout,
    /// The relay to the runtime failed.
    Relay,
}

impl FunctionError {
    pub fn status(self) -> u16 {
        match self {
            FunctionError::NotFound => 404,
            FunctionError::WorkerError => 500,
            FunctionError::BootError => 503,
            FunctionError::IdleTimeout => 504,
            FunctionError::Relay => 502,
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            FunctionError::NotFound => "NOT_FOUND",
            FunctionError::WorkerError => "WORKER_ERROR",
            FunctionError::BootError => "BOOT_ERROR",
            FunctionError::IdleTimeout => "IDLE_TIMEOUT",
            FunctionError::Relay => "RELAY_ERROR",
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            FunctionError::NotFound => "Requested function was not found",
            FunctionError::WorkerError => "Function exited due to an error (please check logs)",
            FunctionError::BootError => "Function failed to start (please check logs)",
            FunctionError::IdleTimeout => "Function timed out",
            FunctionError::Relay => "Relay error invoking the function",
        }
    }

    /// Whether functions-js must see `x-relay-error: true`.
    pub fn is_relay_error(self) -> bool {
        matches!(self, FunctionError::Relay)
    }

    pub fn body(self) -> Value {
        json!({"code": self.code(), "message": self.message()})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
