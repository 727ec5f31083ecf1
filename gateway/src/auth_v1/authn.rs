//! Who calls an endpoint that needs a user or an admin, checked as GoTrue does.
//!
//! The bearer token (after the API gateway's mapping of opaque keys) must verify with the
//! project's keys and its time claims must hold ([`crate::identity::verify_token`];
//! refusals are 403 `bad_jwt`, see [`super::error`]). For user endpoints `sub` must be
//! an existing user and `session_id`, when present, an existing session: signing out makes
//! the access tokens of that session useless at once. Admin endpoints need one of the
//! admin roles (`service_role`, `supabase_admin`).

use chrono::Utc;
use serde_json::Value;
use uuid::Uuid;

use super::error::{AuthError, AuthResult};
use super::model::User;
use super::store::{self, Session, Tx};
use super::{AuthState, Ctx};
use crate::identity;

/// A signed-in caller.
#[derive(Debug, Clone)]
pub struct Caller {
    pub claims: Value,
    pub user: User,
    pub session: Option<Session>,
}

/// The bearer token, or 401 `no_authorization`.
pub fn bearer(ctx: &Ctx) -> AuthResult<&str> {
    ctx.bearer
        .as_deref()
        .filter(|token| !token.is_empty())
        .ok_or_else(|| {
            AuthError::new(
                actix_web::http::StatusCode::UNAUTHORIZED,
                "no_authorization",
                "This endpoint requires a valid Bearer token",
            )
        })
}

/// Verifies signature and time claims; returns the claims.
pub fn verify_token(state: &AuthState, token: &str) -> AuthResult<Value> {
    Ok(identity::verify_token(
        state.keys.verifier(),
        token,
        Utc::now().timestamp(),
    )?)
}

/// The signed-in user and session of the request (GoTrue's `requireAuthentication`).
pub async fn require_user(state: &AuthState, ctx: &Ctx, tx: &Tx<'_>) -> AuthResult<Caller> {
    caller(state, ctx, tx, false).await
}

/// `require_user` with the user's row locked until the transaction ends. Requests that spend
/// or replace something of the user's (a reauthentication nonce, a mailed token) then run one
/// after the other, each seeing what the one before committed.
pub async fn require_user_for_update(
    state: &AuthState,
    ctx: &Ctx,
    tx: &Tx<'_>,
) -> AuthResult<Caller> {
    caller(state, ctx, tx, true).await
}

async fn caller(state: &AuthState, ctx: &Ctx, tx: &Tx<'_>, lock: bool) -> AuthResult<Caller> {
    let claims = verify_token(state, bearer(ctx)?)?;
    let subject = claims
        .get("sub")
        .and_then(Value::as_str)
        .filter(|sub| !sub.is_empty())
        .ok_or_else(|| AuthError::forbidden("bad_jwt", "invalid claim: missing sub claim"))?;
    let user_id = Uuid::parse_str(subject).map_err(|_| {
        AuthError::bad_request("bad_jwt", "invalid claim: sub claim must be a UUID")
    })?;
    let user = if lock {
        store::lock_user(tx, user_id).await?
    } else {
        store::user_by_id(tx, user_id).await?
    };
    let user = user.ok_or_else(AuthError::token_user_gone)?;
    let session = match claims.get("session_id").and_then(Value::as_str) {
        Some(raw) if !raw.is_empty() && raw != Uuid::nil().to_string() => {
            let id = Uuid::parse_str(raw).map_err(|_| {
                AuthError::forbidden("bad_jwt", "invalid claim: session_id claim must be a UUID")
            })?;
            let session = store::session_by_id(tx, id)
                .await?
                .ok_or_else(AuthError::token_session_gone)?;
            Some(session)
        }
        _ => None,
    };
    if user.is_banned(Utc::now()) {
        return Err(AuthError::forbidden("user_banned", "User is banned"));
    }
    Ok(Caller {
        claims,
        user,
        session,
    })
}

/// The admin's claims (GoTrue's `requireAdminCredentials`).
pub fn require_admin(state: &AuthState, ctx: &Ctx) -> AuthResult<Value> {
    let claims = verify_token(state, bearer(ctx)?)?;
    let role = claims
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if state.config().admin_roles.iter().any(|admin| admin == role) {
        Ok(claims)
    } else {
        Err(AuthError::forbidden("not_admin", "User not allowed"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::TokenError;
    use crate::identity::time_claims;
    use serde_json::json;

    const NOW: i64 = 1_800_000_000;

    /// The time claims check with its refusals as auth/v1 words them (GoTrue's).
    fn check_time_claims(claims: &Value, now: i64) -> AuthResult<()> {
        let claims = claims.as_object().cloned().unwrap_or_default();
        time_claims::check(&claims, now).map_err(|error| TokenError::TimeClaims(error).into())
    }

    #[test]
    fn time_claims_allow_thirty_seconds_of_skew() {
        assert!(check_time_claims(&json!({"exp": NOW - 20}), NOW).is_ok());
        let error = check_time_claims(&json!({"exp": NOW - 31}), NOW).unwrap_err();
        assert_eq!(error.code, "bad_jwt");
        assert!(error.message.ends_with("token is expired"));
        assert!(check_time_claims(&json!({"nbf": NOW + 60}), NOW).is_err());
        assert!(check_time_claims(&json!({"iat": NOW + 60}), NOW).is_err());
        assert!(check_time_claims(&json!({"exp": "soon"}), NOW).is_err());
        assert!(check_time_claims(&json!({}), NOW).is_ok());
    }
}
