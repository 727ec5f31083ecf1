//! Tokens of realtime/v1 checked as Supabase Realtime checks them: a signature by the
//! project's keys (the gateway's one verifier), then `role` and `exp` present and `exp`
//! ahead of now — without the 30 s leeway of the other services, as Realtime has none.

use realtime::{Authorizer, Claims, TokenRefusal};
use serde_json::Value;

use crate::identity::ProjectKeys;
use crate::identity::jwt::VerifyError;

#[derive(Clone)]
pub struct GatewayTokens {
    keys: ProjectKeys,
}

impl std::fmt::Debug for GatewayTokens {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("GatewayTokens")
            .finish_non_exhaustive()
    }
}

impl GatewayTokens {
    pub fn new(keys: ProjectKeys) -> Self {
        Self { keys }
    }
}

impl Authorizer for GatewayTokens {
    fn verify(&self, token: &str, now: i64) -> Result<Claims, TokenRefusal> {
        let claims = self
            .keys
            .verifier()
            .verify(token)
            .map_err(|error| match error {
                VerifyError::Parts(_) | VerifyError::Malformed | VerifyError::Unsecured => {
                    TokenRefusal::Malformed
                }
                VerifyError::NoSuitableKey | VerifyError::BadSignature => {
                    TokenRefusal::BadSignature
                }
            })?;
        let role = claims.get("role").and_then(Value::as_str);
        let exp = claims.get("exp").and_then(Value::as_f64);
        let (Some(role), Some(exp)) = (role, exp) else {
            return Err(TokenRefusal::MissingRoleOrExp);
        };
        let exp = exp.round() as i64;
        if exp <= now {
            return Err(TokenRefusal::Expired {
                seconds_ago: now - exp,
            });
        }
        Ok(Claims {
            role: role.to_owned(),
            exp,
            all: claims.clone(),
        })
    }
}
