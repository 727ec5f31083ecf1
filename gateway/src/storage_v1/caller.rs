//! Who a storage request acts as, and the database context it runs in. The token comes
//! from the edge's mapping of `apikey`/`Authorization` ([`crate::identity`]); without one
//! Supabase's gateway would still send an empty bearer, which Storage refuses with
//! `Invalid Compact JWS`, so that is the answer on routes that need a token. Every
//! statement then runs in a transaction whose first statement applies the settings
//! Supabase Storage sets (role, the `request.jwt*` claims RLS policies read,
//! `storage.operation`, and `storage.allow_delete_query` so the API may delete rows);
//! [`Scope::enter`] applies them and may be called again inside the same transaction to
//! switch between the caller and the service role.

use std::sync::Arc;

use actix_web::HttpRequest;
use serde_json::{Map, Value};
use tokio_postgres::Transaction;

use super::StorageState;
use super::error::{StorageError, StorageResult, database_error};
use crate::identity::jwt::VerifyError;
use crate::identity::time_claims::TimeClaimError;
use crate::identity::{self, IdentityContext, IdentityError, TokenError};

/// The identity a statement runs with.
#[derive(Debug, Clone)]
pub struct Caller {
    pub role: String,
    /// The token's `sub`, when there is one.
    pub sub: Option<String>,
    /// The verified claims as JSON text (`request.jwt.claims`).
    pub claims_json: Arc<str>,
    /// The raw token (`request.jwt`), empty without one.
    pub token: Arc<str>,
}

/// Whether a route needs a valid token or falls back to `anon`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenRule {
    Required,
    /// A missing or invalid token acts as `anon` (Storage's `allowInvalidJwt` routes).
    Optional,
}

impl Caller {
    /// The request's caller, from the bearer token the edge mapped.
    pub fn of(request: &HttpRequest, state: &StorageState, rule: TokenRule) -> StorageResult<Self> {
        let context = IdentityContext {
            verifier: state.keys.verifier(),
            anon_role: &state.anon_role,
        };
        let bearer = request
            .extensions_credentials()
            .filter(|token| !token.trim().is_empty());
        let Some(bearer) = bearer else {
            return match rule {
                TokenRule::Required => Err(StorageError::access_denied("Invalid Compact JWS")),
                TokenRule::Optional => Ok(Self::anon(&state.anon_role)),
            };
        };
        match identity::authenticate(&context, Some(&bearer), chrono::Utc::now().timestamp()) {
            Ok(identity) => {
                let sub = identity
                    .claims
                    .get("sub")
                    .and_then(Value::as_str)
                    .filter(|sub| !sub.is_empty())
                    .map(str::to_owned);
                Ok(Self {
                    role: identity.role,
                    sub,
                    claims_json: identity.claims_json,
                    token: bearer.into(),
                })
            }
            Err(_) if rule == TokenRule::Optional => Ok(Self::anon(&state.anon_role)),
            Err(error) => Err(StorageError::access_denied(jose_message(error))),
        }
    }

    fn anon(anon_role: &str) -> Self {
        let mut claims = Map::new();
        claims.insert("role".into(), Value::String(anon_role.to_owned()));
        Self {
            role: anon_role.to_owned(),
            sub: None,
            claims_json: Value::Object(claims).to_string().into(),
            token: "".into(),
        }
    }

    /// The service role, for the lookups Storage makes on its own behalf.
    pub fn service() -> Self {
        Self {
            role: "service_role".to_owned(),
            sub: None,
            claims_json: r#"{"role":"service_role"}"#.into(),
            token: "".into(),
        }
    }

    pub fn is_service(&self) -> bool {
        self.role == "service_role"
    }

    /// `storage.objects.owner`: the `sub` when it is a UUID.
    pub fn owner_uuid(&self) -> Option<uuid::Uuid> {
        self.sub
            .as_deref()
            .and_then(|sub| uuid::Uuid::parse_str(sub).ok())
    }
}

/// The words of the JWT library Supabase Storage uses, which clients and tests match on.
pub fn jose_message(error: IdentityError) -> &'static str {
    match error {
        IdentityError::EmptyToken
        | IdentityError::Token(TokenError::Signature(
            VerifyError::Parts(_) | VerifyError::Malformed,
        )) => "Invalid Compact JWS",
        IdentityError::Token(TokenError::Signature(VerifyError::Unsecured)) => {
            "\"alg\" (Algorithm) Header Parameter value not allowed"
        }
        IdentityError::Token(TokenError::Signature(_)) => "signature verification failed",
        IdentityError::Token(TokenError::TimeClaims(TimeClaimError::Expired)) => {
            "\"exp\" claim timestamp check failed"
        }
        IdentityError::Token(TokenError::TimeClaims(TimeClaimError::NotYetValid)) => {
            "\"nbf\" claim timestamp check failed"
        }
        IdentityError::Token(TokenError::TimeClaims(_)) => "JWT Claims Set is invalid",
        IdentityError::ClaimsNotObject | IdentityError::Audience => {
            "JWT Claims Set must be a top-level JSON object"
        }
    }
}

trait CredentialsExt {
    fn extensions_credentials(&self) -> Option<String>;
}

impl CredentialsExt for HttpRequest {
    fn extensions_credentials(&self) -> Option<String> {
        use actix_web::HttpMessage;
        self.extensions()
            .get::<identity::Credentials>()
            .and_then(|credentials| credentials.bearer.clone())
    }
}

/// What every statement of a request's transaction is told about the request.
#[derive(Debug, Clone)]
pub struct Scope {
    /// Supabase's operation name, e.g. `storage.object.upload`.
    pub operation: &'static str,
    pub method: String,
    pub path: String,
    /// The request headers as a JSON object (`request.headers`).
    pub headers: String,
}

pub(super) const SETTINGS: &str = "SELECT pg_catalog.set_config('role', $1, true), \
     pg_catalog.set_config('request.jwt.claim.role', $1, true), \
     pg_catalog.set_config('request.jwt.claim.sub', $2, true), \
     pg_catalog.set_config('request.jwt.claims', $3, true), \
     pg_catalog.set_config('request.jwt', $4, true), \
     pg_catalog.set_config('request.method', $5, true), \
     pg_catalog.set_config('request.path', $6, true), \
     pg_catalog.set_config('request.headers', $7, true), \
     pg_catalog.set_config('storage.operation', $8, true), \
     pg_catalog.set_config('storage.allow_delete_query', 'true', true)";

impl Scope {
    pub fn of(request: &HttpRequest, operation: &'static str) -> Self {
        let headers: Map<String, Value> = request
            .headers()
            .iter()
            .filter(|(name, _)| *name != "cookie")
            .filter_map(|(name, value)| {
                value
                    .to_str()
                    .ok()
                    .map(|value| (name.as_str().to_owned(), Value::String(value.to_owned())))
            })
            .collect();
        Self {
            operation,
            method: request.method().as_str().to_owned(),
            path: request
                .uri()
                .path_and_query()
                .map_or_else(|| request.path().to_owned(), |pq| pq.as_str().to_owned()),
            headers: Value::Object(headers).to_string(),
        }
    }

    /// Switches the transaction to `caller` (transaction-local settings).
    pub async fn enter(&self, tx: &Transaction<'_>, caller: &Caller) -> StorageResult<()> {
        tx.execute(
            SETTINGS,
            &[
                &caller.role,
                &caller.sub.as_deref().unwrap_or(""),
                &&*caller.claims_json,
                &&*caller.token,
                &self.method,
                &self.path,
                &self.headers,
                &self.operation,
            ],
        )
        .await
        .map(drop)
        .map_err(|error| database_error(&error, StorageError::resource_exists))
    }
}
