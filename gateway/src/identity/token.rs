//! A bearer token verified: its signature against the project's keys ([`super::jwt`]) and
//! its time claims ([`super::time_claims`]). The claims come back exactly as signed; what
//! they mean (a role, a user, a session) is for the caller.

use serde_json::Value;

use super::jwt::{JwtVerifier, VerifyError};
use super::time_claims::{self, TimeClaimError};

/// Why a bearer token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenError {
    /// The signature could not be verified.
    Signature(VerifyError),
    /// The time claims do not hold.
    TimeClaims(TimeClaimError),
}

/// Checks the signature, then the time claims (a payload that is not a JSON object has
/// none); returns the claims.
pub fn verify_token(verifier: &JwtVerifier, token: &str, now: i64) -> Result<Value, TokenError> {
    let claims = verifier.verify(token).map_err(TokenError::Signature)?;
    if let Value::Object(map) = &claims {
        time_claims::check(map, now).map_err(TokenError::TimeClaims)?;
    }
    Ok(claims)
}
