//! Functions written in Rust and registered by name, served behind the same contract as
//! Edge Functions (JWT check, error codes). The product registers its own here; a name
//! registered natively is served before the functions directory is looked at.

use std::collections::HashMap;
use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, web};
use futures_util::future::LocalBoxFuture;

use crate::identity::Identity;

/// What a native function receives for one invocation.
pub struct Invocation {
    /// The request as the client sent it (method, headers, query).
    pub request: HttpRequest,
    /// The body, streamed.
    pub body: web::Payload,
    /// The path after `/functions/v1/<name>` (empty, or starting with `/`).
    pub sub_path: String,
    /// The verified caller when the function verifies JWTs (`None` for a preflight);
    /// `None` for a function that does not.
    pub caller: Option<Identity>,
}

impl std::fmt::Debug for Invocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Invocation")
            .field("request", &self.request)
            .field("sub_path", &self.sub_path)
            .field("caller", &self.caller)
            .finish_non_exhaustive()
    }
}

/// A function implemented in the gateway. Its answer goes to the client unchanged (a
/// non-2xx is the function's own error, `FunctionsHttpError` to supabase-js).
pub trait NativeFunction: Send + Sync + 'static {
    /// Whether a valid JWT is required, as `verify_jwt` is for Edge Functions.
    fn verify_jwt(&self) -> bool {
        true
    }

    fn call(&self, invocation: Invocation) -> LocalBoxFuture<'static, HttpResponse>;
}

/// The native functions by name.
#[derive(Clone, Default)]
pub struct NativeFunctions {
    by_name: HashMap<String, Arc<dyn NativeFunction>>,
}

impl std::fmt::Debug for NativeFunctions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.by_name.keys()).finish()
    }
}

impl NativeFunctions {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `function` as `name` (replacing any earlier one).
    pub fn register(&mut self, name: &str, function: impl NativeFunction) -> &mut Self {
        self.by_name.insert(name.to_owned(), Arc::new(function));
        self
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn NativeFunction>> {
        self.by_name.get(name).cloned()
    }
}
