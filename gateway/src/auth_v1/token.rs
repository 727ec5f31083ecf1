//! `POST /token?grant_type=password|refresh_token|pkce`: sessions from a password, a
//! refresh token or a PKCE auth code (GoTrue's `token.go`, `token_refresh.go`).
//!
//! Refresh tokens rotate. A rotated (revoked) token is still answered with the session's
//! current token when it is the direct parent of that token (the client may have lost the
//! previous answer) or when it was revoked less than `REFRESH_TOKEN_REUSE_INTERVAL` ago
//! (two tabs racing); older reuse is treated as theft: the whole session — every refresh
//! token and every access token of it — is revoked and the answer is 400
//! `refresh_token_already_used`. Only token digests are stored; a child token is derived
//! from its parent with a keyed HMAC, which is what lets the server hand the current token
//! back to a racing client without ever storing it.
//!
//! The common refresh — a live token of a live session — is one statement and one round
//! trip ([`store::ROTATE_REFRESH_TOKEN_SQL`]); a concurrent rotation of the same token
//! waits for it in the database and then falls to the general grant. The general grant
//! (reuse, every error answer) is a transaction of its own; concurrent general grants of
//! one token wait in a short retry loop (row lock `NOWAIT`) instead of holding pool
//! connections.

use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use hmac::{Hmac, Mac};
use secrecy::ExposeSecret;
use serde::Deserialize;
use serde_json::json;
use sha2::Sha256;

use super::error::{AuthError, AuthResult};
use super::rate_limit::Limit;
use super::session::{self, AuthMethod};
use super::signup::audit_entry;
use super::store::{self, LockResult, Rotation};
use super::{AuthState, Ctx, Reply, parse_json, read_body, respond, validate_phone};
use crate::identity::secrets;
use crate::state::AppState;

/// How long concurrent refreshes of one token keep retrying (GoTrue: 5 s).
const RETRY_FOR: Duration = Duration::from_secs(5);
/// How far back along a session's token chain a racing client may be.
const MAX_CHAIN: usize = 16;

pub async fn handler(
    http: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let body = read_body(payload).await?;
        match ctx.query("grant_type").unwrap_or_default() {
            "password" => password_grant(&state.auth, &ctx, &body).await,
            "refresh_token" => refresh_grant(&state.auth, &ctx, &body).await,
            "pkce" => pkce_grant(&state.auth, &ctx, &body).await,
            "id_token" | "web3" => {
                state.auth.check_rate(Limit::Token, &ctx, None)?;
                Err(AuthError::bad_request(
                    "provider_disabled",
                    "Sign in with this provider is not enabled on this server",
                ))
            }
            _ => Err(AuthError::bad_request(
                "invalid_credentials",
                "unsupported_grant_type",
            )),
        }
    }
    .await;
    respond(&ctx, result)
}

#[derive(Debug, Default, Deserialize)]
struct PasswordParams {
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    phone: Option<String>,
    #[serde(default)]
    password: Option<String>,
}

async fn password_grant(state: &AuthState, ctx: &Ctx, body: &[u8]) -> AuthResult<Reply> {
    let params: PasswordParams = parse_json(body)?;
    let email = params.email.unwrap_or_default();
    let phone = params.phone.unwrap_or_default();
    state.check_rate(
        Limit::Token,
        ctx,
        Some(&email).filter(|e| !e.is_empty()).map(String::as_str),
    )?;
    let config = state.config();
    if !email.is_empty() && !phone.is_empty() {
        return Err(AuthError::validation(
            "Only an email address or phone number should be provided on login.",
        ));
    }
    let password = params.password.unwrap_or_default();
    // The lookup and the hashing hold no transaction: a sign-in waiting for the hashing
    // pool must not keep a database connection (GoTrue, too, authenticates first).
    let lookup = state.connection().await?;
    let aud = &config.jwt_aud;
    let user = if !email.is_empty() {
        if !config.email_enabled {
            return Err(AuthError::unprocessable(
                "email_provider_disabled",
                "Email logins are disabled",
            ));
        }
        store::user_by_email(&lookup, &email, aud).await?
    } else if !phone.is_empty() {
        if !config.phone_enabled {
            return Err(AuthError::unprocessable(
                "phone_provider_disabled",
                "Phone logins are disabled",
            ));
        }
        match validate_phone(&phone) {
            Ok(phone) => store::user_by_phone(&lookup, &phone, aud).await?,
            Err(_) => None,
        }
    } else {
        return Err(AuthError::validation("missing email or phone"));
    };
    drop(lookup);
    // The same bcrypt work whether or not the account exists.
    let hash = user.as_ref().and_then(|u| u.encrypted_password.clone());
    let valid = state.hasher.verify(&password, hash.as_deref()).await?;
    let Some(user) = user.filter(|user| user.has_password()) else {
        return Err(AuthError::invalid_credentials());
    };
    if user.is_banned(Utc::now()) {
        return Err(AuthError::bad_request("user_banned", "User is banned"));
    }
    if !valid {
        return Err(AuthError::invalid_credentials());
    }
    if !email.is_empty() && !user.is_confirmed() {
        return Err(AuthError::bad_request(
            "email_not_confirmed",
            "Email not confirmed",
        ));
    }
    if !phone.is_empty() && !user.is_phone_confirmed() {
        return Err(AuthError::bad_request(
            "phone_not_confirmed",
            "Phone not confirmed",
        ));
    }
    let weak = state
        .password_rules
        .check(&password)
        .err()
        .and_then(|error| {
            error
                .weak_password
                .map(|reasons| json!({"reasons": reasons, "message": error.message}))
        });
    let provider = if email.is_empty() { "phone" } else { "email" };
    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    store::audit(
        &tx,
        audit_entry(&user, "login", ctx, Some(json!({"provider": provider}))),
    )
    .await?;
    // A user deleted since the look-up above has no account to sign in to.
    let mut token = session::issue(state, &tx, user.id, AuthMethod::Password, ctx)
        .await
        .map_err(|error| match error.code {
            "user_not_found" => AuthError::invalid_credentials(),
            _ => error,
        })?;
    tx.commit().await?;
    if let Some(weak) = weak {
        token["weak_password"] = weak;
    }
    Ok(Reply::Json(token))
}

#[derive(Debug, Default, Deserialize)]
struct RefreshParams {
    #[serde(default)]
    refresh_token: Option<String>,
}

/// The child of a refresh token: HMAC-SHA256 with a key derived from the JWT secret,
/// 32 hex characters.
pub fn child_token(state: &AuthState, parent: &str) -> String {
    let secret = state.keys.jwt_secret().expose_secret();
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
        return secrets::generate_refresh_token();
    };
    mac.update(b"cielo-refresh-token-child:");
    mac.update(parent.as_bytes());
    hex::encode(&mac.finalize().into_bytes()[..16])
}

async fn refresh_grant(state: &AuthState, ctx: &Ctx, body: &[u8]) -> AuthResult<Reply> {
    let params: RefreshParams = parse_json(body)?;
    state.check_rate(Limit::Token, ctx, None)?;
    let presented = params.refresh_token.unwrap_or_default();
    if presented.is_empty() {
        // GoTrue answers this one OAuth-style.
        return Err(AuthError::bad_request(
            "validation_failed",
            "refresh_token required",
        ));
    }
    if presented.len() < 12 {
        return Err(AuthError::validation("Refresh token is not valid"));
    }
    let presented_digest = secrets::refresh_token_digest(&presented);
    let child = child_token(state, &presented);
    let child_digest = secrets::refresh_token_digest(&child);
    // The common case — a live token of a live session — in one statement.
    let rotation = store::rotate_refresh_token(
        &state.connection().await?,
        &presented_digest,
        &child_digest,
        &ctx.client_ip,
        ctx.ip_for_db(),
        ctx.user_agent.as_deref(),
    )
    .await?;
    if let Rotation::Rotated {
        user,
        session_id,
        aal,
        amr,
    } = rotation
    {
        let response =
            session::token_response_with_amr(state, &user, session_id, &aal, amr, &child)?;
        return Ok(Reply::Json(response));
    }
    // Everything else (reuse, errors) in the general grant, retried while a concurrent
    // grant holds the token.
    let started = std::time::Instant::now();
    loop {
        match refresh_once(state, ctx, &presented).await? {
            Some(reply) => return Ok(reply),
            None if started.elapsed() < RETRY_FOR => {
                let pause = 10 + rand::random::<u64>() % 20;
                tokio::time::sleep(Duration::from_millis(pause)).await;
            }
            None => {
                return Err(AuthError::new(
                    StatusCode::CONFLICT,
                    "conflict",
                    "Too many concurrent token refresh requests on the same session or refresh token",
                ));
            }
        }
    }
}

/// One attempt; `None` when the token row is locked by a concurrent refresh.
async fn refresh_once(state: &AuthState, ctx: &Ctx, presented: &str) -> AuthResult<Option<Reply>> {
    let config = state.config();
    let digest = secrets::refresh_token_digest(presented);
    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    let token = match store::lock_refresh_token(&tx, &digest).await? {
        LockResult::Busy => return Ok(None),
        LockResult::NotFound => {
            return Err(AuthError::bad_request(
                "refresh_token_not_found",
                "Invalid Refresh Token: Refresh Token Not Found",
            ));
        }
        LockResult::Found(token) => token,
    };
    let user = match token.user_id {
        Some(id) => store::user_by_id(&tx, id).await?,
        None => None,
    };
    let Some(user) = user else {
        return Err(AuthError::bad_request(
            "refresh_token_not_found",
            "Invalid Refresh Token: Refresh Token Not Found",
        ));
    };
    let now = Utc::now();
    if user.is_banned(now) {
        return Err(AuthError::bad_request(
            "user_banned",
            "Invalid Refresh Token: User Banned",
        ));
    }
    let session = match token.session_id {
        Some(id) => store::session_by_id(&tx, id).await?,
        None => None,
    };
    let Some(session) = session else {
        return Err(AuthError::bad_request(
            "session_not_found",
            "Invalid Refresh Token: No Valid Session Found",
        ));
    };
    if session.not_after.is_some_and(|not_after| now > not_after) {
        return Err(AuthError::bad_request(
            "session_expired",
            "Invalid Refresh Token: Session Expired",
        ));
    }

    let issued = if token.revoked {
        let active = store::active_refresh_token(&tx, session.id).await?;
        let reuse_until = token.updated_at
            + chrono::Duration::from_std(config.refresh_token_reuse_interval).unwrap_or_default();
        let child_of_presented = active
            .as_ref()
            .is_some_and(|(_, parent)| parent.as_deref() == Some(token.digest.as_str()));
        let within_interval = now <= reuse_until;
        let current = match &active {
            Some((active_digest, _)) if child_of_presented || within_interval => {
                current_token(state, presented, active_digest)
            }
            _ => None,
        };
        match current {
            Some(current) => current,
            None => {
                if config.refresh_token_rotation {
                    store::delete_session(&tx, session.id).await?;
                    store::audit(&tx, audit_entry(&user, "token_revoked", ctx, None)).await?;
                    tx.commit().await?;
                    tracing::warn!(session = %session.id, "refresh token reuse: session revoked");
                }
                return Err(AuthError::bad_request(
                    "refresh_token_already_used",
                    "Invalid Refresh Token: Already Used",
                ));
            }
        }
    } else {
        let child = child_token(state, presented);
        store::revoke_refresh_token(&tx, token.id).await?;
        store::insert_refresh_token(
            &tx,
            user.id,
            session.id,
            &secrets::refresh_token_digest(&child),
            Some(&token.digest),
        )
        .await?;
        store::audit(&tx, audit_entry(&user, "token_revoked", ctx, None)).await?;
        child
    };
    store::audit(&tx, audit_entry(&user, "token_refreshed", ctx, None)).await?;
    store::touch_session(&tx, session.id, ctx.ip_for_db(), ctx.user_agent.as_deref()).await?;
    let response =
        session::token_response(state, &tx, &user, session.id, &session.aal, &issued).await?;
    tx.commit().await?;
    Ok(Some(Reply::Json(response)))
}

/// The session's current token, derived from the presented one along the chain.
fn current_token(state: &AuthState, presented: &str, active_digest: &str) -> Option<String> {
    let mut candidate = presented.to_owned();
    for _ in 0..MAX_CHAIN {
        candidate = child_token(state, &candidate);
        if secrets::refresh_token_digest(&candidate) == active_digest {
            return Some(candidate);
        }
    }
    None
}

#[derive(Debug, Default, Deserialize)]
struct PkceParams {
    #[serde(default)]
    auth_code: Option<String>,
    #[serde(default)]
    code_verifier: Option<String>,
}

async fn pkce_grant(state: &AuthState, ctx: &Ctx, body: &[u8]) -> AuthResult<Reply> {
    let params: PkceParams = parse_json(body)?;
    state.check_rate(Limit::Token, ctx, None)?;
    let auth_code = params.auth_code.unwrap_or_default();
    let verifier = params.code_verifier.unwrap_or_default();
    if auth_code.is_empty() || verifier.is_empty() {
        return Err(AuthError::validation(
            "invalid request: both auth code and code verifier should be non-empty",
        ));
    }
    let not_found = || {
        AuthError::not_found(
            "flow_state_not_found",
            "invalid flow state, no valid flow state found",
        )
    };
    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    // Taken out of the table: a replayed code finds nothing (the row comes back only if
    // this request fails and rolls back).
    let flow = store::take_flow_state(&tx, &auth_code)
        .await?
        .ok_or_else(not_found)?;
    let user_id = flow.user_id.ok_or_else(not_found)?;
    let expiry = chrono::Duration::from_std(state.config().flow_state_expiry).unwrap_or_default();
    let started = match flow.auth_code_issued_at {
        Some(issued) if flow.authentication_method == AuthMethod::MagicLink.as_str() => issued,
        _ => flow.created_at,
    };
    if Utc::now() > started + expiry {
        return Err(AuthError::unprocessable(
            "flow_state_expired",
            "invalid flow state, flow state has expired",
        ));
    }
    let method = secrets::ChallengeMethod::parse(&flow.code_challenge_method)
        .unwrap_or(secrets::ChallengeMethod::Plain);
    if !secrets::verify_pkce(&flow.code_challenge, method, &verifier) {
        return Err(AuthError::bad_request(
            "bad_code_verifier",
            "code challenge does not match previously saved code verifier",
        ));
    }
    let user = store::user_by_id(&tx, user_id)
        .await?
        .ok_or_else(not_found)?;
    let method = AuthMethod::parse(&flow.authentication_method).unwrap_or(AuthMethod::Otp);
    store::audit(
        &tx,
        audit_entry(
            &user,
            "login",
            ctx,
            Some(json!({"provider_type": method.as_str()})),
        ),
    )
    .await?;
    let token = session::issue(state, &tx, user.id, method, ctx).await?;
    tx.commit().await?;
    Ok(Reply::Json(token))
}
