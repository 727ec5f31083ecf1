//! Who calls an endpoint that needs a user or an admin, checked as GoTrue does.
//!
//! The bearer token (after the API gateway's mapping of opaque keys) must verify with the
//! project's keys — the algorithm is bound to the key, `none` is never accepted — and its
//! time claims must hold within a 30-second clock skew. For user endpoints `sub` must be
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
use crate::identity::jwt::VerifyError;

/// Allowed clock difference for `exp`, `nbf` and `iat`.
const CLOCK_SKEW_SECONDS: i64 = 30;

/// A signed-in caller.
#[derive(Debug, Clone)]
pub struct Caller {
    pub claims: Value,
    pub user: User,
    pub session: Option<Session>,
}

fn bad_jwt(reason: &str) -> AuthError {
    AuthError::forbidden(
        "bad_jwt",
        format!("invalid JWT: unable to parse or verify signature, {reason}"),
    )
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
    let claims = state
        .keys
        .verifier()
        .verify(token)
        .map_err(|error| match error {
            VerifyError::Parts(_) | VerifyError::Malformed => {
                bad_jwt("token is malformed: could not base64 decode header or claims")
            }
            VerifyError::Unsecured => {
                bad_jwt("token is unverifiable: 'none' signature type is not allowed")
            }
            VerifyError::NoSuitableKey => {
                bad_jwt("token is unverifiable: no key matches the token's alg and kid")
            }
            VerifyError::BadSignature => {
                bad_jwt("token signature is invalid: signature is invalid")
            }
        })?;
    check_time_claims(&claims, Utc::now().timestamp())?;
    Ok(claims)
}

fn check_time_claims(claims: &Value, now: i64) -> AuthResult<()> {
    let number = |name: &str| -> AuthResult<Option<i64>> {
        match claims.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_i64().or_else(|| n.as_f64().map(|f| f as i64))),
            Some(_) => Err(bad_jwt(&format!(
                "token has invalid claims: could not parse '{name}'"
            ))),
        }
    };
    if let Some(exp) = number("exp")?
        && now - CLOCK_SKEW_SECONDS > exp
    {
        return Err(bad_jwt("token has invalid claims: token is expired"));
    }
    if let Some(nbf) = number("nbf")?
        && now + CLOCK_SKEW_SECONDS < nbf
    {
        return Err(bad_jwt("token has invalid claims: token is not valid yet"));
    }
    if let Some(iat) = number("iat")?
        && now + CLOCK_SKEW_SECONDS < iat
    {
        return Err(bad_jwt(
            "token has invalid claims: token used before issued",
        ));
    }
    Ok(())
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
    use serde_json::json;

    const NOW: i64 = 1_800_000_000;

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
