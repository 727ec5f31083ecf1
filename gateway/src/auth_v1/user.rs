//! The signed-in user's own endpoints: `GET`/`PUT /user`, `POST /logout`,
//! `GET /reauthenticate` (GoTrue's `user.go`, `logout.go`, `reauthenticate.go`).
//!
//! `PUT /user` changes metadata at once; a new password is checked for strength and must
//! differ from the old one (with `SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION`, a
//! session older than 24 hours must also present the reauthentication nonce) and ends the
//! user's other sessions; a new e-mail is only requested here and confirmed through the
//! mailed link(s) — on both addresses with secure e-mail change.

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::authn::{self, Caller};
use super::error::{AuthError, AuthResult, DUPLICATE_EMAIL};
use super::mailing::{self, Flow};
use super::rate_limit::Limit;
use super::session::AuthMethod;
use super::signup::{audit_entry, check_pkce_params, save_flow_state};
use super::store::{self, Col, Tx};
use super::{
    AuthState, Ctx, Reply, parse_json, read_body, respond, validate_email, validate_phone,
};
use crate::identity::secrets;
use crate::state::AppState;

pub async fn get_handler(http: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let auth = &state.auth;
        let mut connection = auth.connection().await?;
        let tx = connection.transaction().await?;
        let caller = authn::require_user(auth, &ctx, &tx).await?;
        let token_aud = match caller.claims.get("aud") {
            Some(Value::String(aud)) => Some(aud.clone()),
            Some(Value::Array(items)) => items.first().and_then(Value::as_str).map(str::to_owned),
            _ => None,
        };
        if token_aud.as_deref() != Some(auth.config().jwt_aud.as_str()) {
            return Err(AuthError::validation(
                "Token audience doesn't match request audience",
            ));
        }
        tx.commit().await?;
        Ok(Reply::Json(caller.user.to_json()))
    }
    .await;
    respond(&ctx, result)
}

pub async fn logout_handler(http: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    respond(&ctx, logout(&state.auth, &ctx).await)
}

async fn logout(state: &AuthState, ctx: &Ctx) -> AuthResult<Reply> {
    #[derive(PartialEq)]
    enum Scope {
        Global,
        Local,
        Others,
    }
    let scope = match ctx.query("scope").unwrap_or_default() {
        "" | "global" => Scope::Global,
        "local" => Scope::Local,
        "others" => Scope::Others,
        other => {
            return Err(AuthError::validation(format!(
                "Unsupported logout scope {other:?}"
            )));
        }
    };
    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    let caller = authn::require_user(state, ctx, &tx).await?;
    store::audit(&tx, audit_entry(&caller.user, "logout", ctx, None)).await?;
    match (&caller.session, scope) {
        (Some(session), Scope::Local) => store::delete_session(&tx, session.id).await?,
        (Some(session), Scope::Others) => {
            store::delete_sessions(&tx, caller.user.id, Some(session.id)).await?
        }
        _ => store::delete_sessions(&tx, caller.user.id, None).await?,
    }
    tx.commit().await?;
    Ok(Reply::NoContent)
}

pub async fn reauthenticate_handler(http: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let auth = &state.auth;
        let mut connection = auth.connection().await?;
        let tx = connection.transaction().await?;
        let caller = authn::require_user_for_update(auth, &ctx, &tx).await?;
        let user = &caller.user;
        if user.email().is_empty() && user.phone().is_empty() {
            return Err(AuthError::validation(
                "Reauthentication requires the user to have an email or a phone number",
            ));
        }
        if !user.email().is_empty() {
            if !user.is_confirmed() {
                return Err(AuthError::unprocessable(
                    "email_not_confirmed",
                    "Please verify your email first.",
                ));
            }
        } else {
            return Err(AuthError::unprocessable(
                "phone_provider_disabled",
                "Reauthentication by SMS is not available",
            ));
        }
        store::audit(
            &tx,
            audit_entry(user, "user_reauthenticate_requested", &ctx, None),
        )
        .await?;
        mailing::send_reauthentication(auth, &tx, user).await?;
        tx.commit().await?;
        Ok(Reply::Json(json!({})))
    }
    .await;
    respond(&ctx, result)
}

#[derive(Debug, Default, Deserialize)]
struct UpdateParams {
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    password: Option<String>,
    #[serde(default)]
    current_password: Option<String>,
    #[serde(default)]
    nonce: Option<String>,
    #[serde(default)]
    data: Option<Map<String, Value>>,
    #[serde(default)]
    app_metadata: Option<Map<String, Value>>,
    #[serde(default)]
    phone: Option<String>,
    #[serde(default)]
    code_challenge: Option<String>,
    #[serde(default)]
    code_challenge_method: Option<String>,
}

pub async fn put_handler(
    http: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let body = read_body(payload).await?;
        let params: UpdateParams = parse_json(&body)?;
        update(&state.auth, &ctx, params).await
    }
    .await;
    respond(&ctx, result)
}

/// Whether the session was started by a link or code (it may set a password without the
/// current one, as after a recovery).
fn is_recovery_session(caller: &Caller) -> bool {
    caller
        .claims
        .get("amr")
        .and_then(Value::as_array)
        .is_some_and(|amr| {
            amr.iter().any(|entry| {
                matches!(
                    entry.get("method").and_then(Value::as_str),
                    Some("otp" | "magiclink" | "recovery")
                )
            })
        })
}

async fn update(state: &AuthState, ctx: &Ctx, params: UpdateParams) -> AuthResult<Reply> {
    state.check_rate(Limit::Otp, ctx, None)?;
    let config = state.config();
    let email = match params.email.as_deref().filter(|e| !e.is_empty()) {
        Some(email) => Some(validate_email(email)?),
        None => None,
    };
    let phone = match params.phone.as_deref().filter(|p| !p.is_empty()) {
        Some(phone) => Some(validate_phone(phone)?),
        None => None,
    };
    if let Some(password) = &params.password {
        state.password_rules.check(password)?;
    }
    check_pkce_params(
        params.code_challenge.as_deref(),
        params.code_challenge_method.as_deref(),
    )?;

    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    let caller = authn::require_user_for_update(state, ctx, &tx).await?;
    let user = caller.user.clone();
    if params.app_metadata.is_some() {
        return Err(AuthError::forbidden(
            "not_admin",
            "Updating app_metadata requires admin privileges",
        ));
    }
    let aal2 = caller.session.as_ref().is_some_and(|s| s.aal == "aal2");
    if user.has_mfa_enabled() && !aal2 {
        let changes_password = params.password.as_deref().is_some_and(|p| !p.is_empty());
        let changes_email = email.as_deref().is_some_and(|e| e != user.email());
        let changes_phone = phone.as_deref().is_some_and(|p| p != user.phone());
        if changes_password || changes_email || changes_phone {
            return Err(AuthError::new(
                actix_web::http::StatusCode::UNAUTHORIZED,
                "insufficient_aal",
                "AAL2 session is required to update email or password when MFA is enabled.",
            ));
        }
    }
    if user.is_anonymous
        && params.password.as_deref().is_some_and(|p| !p.is_empty())
        && email.is_none()
        && phone.is_none()
    {
        return Err(AuthError::unprocessable(
            "validation_failed",
            "Updating password of an anonymous user without an email or phone is not allowed",
        ));
    }
    let changing_email = email.as_deref().filter(|new| *new != user.email());
    if let Some(new_email) = changing_email
        && store::email_taken(&tx, new_email, &config.jwt_aud, Some(user.id)).await?
    {
        return Err(AuthError::unprocessable("email_exists", DUPLICATE_EMAIL));
    }
    if let Some(password) = &params.password {
        change_password(state, &tx, ctx, &caller, password, &params).await?;
    }
    if let Some(data) = &params.data {
        store::merge_metadata(
            &tx,
            user.id,
            Col::UserMetaData,
            &Value::Object(data.clone()),
        )
        .await?;
    }
    if let Some(new_email) = changing_email {
        if user.is_anonymous && config.autoconfirm {
            store::update_user(&tx, user.id, &[(Col::EmailChange, &new_email)]).await?;
            let pending = store::reload(&tx, user.id).await?;
            super::verify::confirm_email_change(&tx, ctx, &pending).await?;
        } else {
            let flow = Flow::from_challenge(params.code_challenge.as_deref());
            save_flow_state(
                &tx,
                user.id,
                "email_change",
                AuthMethod::EmailChange,
                params.code_challenge.as_deref(),
                params.code_challenge_method.as_deref(),
            )
            .await?;
            let current = store::reload(&tx, user.id).await?;
            mailing::send_email_change(state, &tx, &current, new_email, flow, ctx).await?;
        }
    }
    if let Some(new_phone) = phone.as_deref().filter(|new| *new != user.phone()) {
        if !config.phone_enabled || !config.phone_autoconfirm {
            return Err(AuthError::new(
                actix_web::http::StatusCode::INTERNAL_SERVER_ERROR,
                "sms_send_failed",
                "Error sending phone change OTP: no SMS provider is configured",
            ));
        }
        let now = Utc::now();
        store::update_user(
            &tx,
            user.id,
            &[(Col::Phone, &new_phone), (Col::PhoneConfirmedAt, &now)],
        )
        .await?;
    }
    store::audit(&tx, audit_entry(&user, "user_modified", ctx, None)).await?;
    let updated = store::reload(&tx, user.id).await?;
    tx.commit().await?;
    Ok(Reply::Json(updated.to_json()))
}

async fn change_password(
    state: &AuthState,
    tx: &Tx<'_>,
    ctx: &Ctx,
    caller: &Caller,
    password: &str,
    params: &UpdateParams,
) -> AuthResult<()> {
    let config = state.config();
    let user = &caller.user;
    if config.secure_password_change {
        let recent = caller
            .session
            .as_ref()
            .is_some_and(|session| Utc::now() < session.created_at + chrono::Duration::hours(24));
        if !recent {
            let nonce = params.nonce.as_deref().unwrap_or_default();
            if nonce.is_empty() {
                return Err(AuthError::bad_request(
                    "reauthentication_needed",
                    "Password update requires reauthentication",
                ));
            }
            let hash = secrets::token_hash(user.email(), nonce);
            if !mailing::otp_matches(
                state,
                &hash,
                &user.reauthentication_token,
                user.reauthentication_sent_at,
            ) {
                return Err(AuthError::unprocessable(
                    "reauthentication_not_valid",
                    "Nonce has expired or is invalid",
                ));
            }
        }
    }
    if !password.is_empty() && user.has_password() {
        if config.require_current_password && !is_recovery_session(caller) {
            let current = params.current_password.as_deref().unwrap_or_default();
            if current.is_empty() {
                return Err(AuthError::bad_request(
                    "current_password_required",
                    "Current password required when setting new password.",
                ));
            }
            if !state
                .hasher
                .verify(current, user.encrypted_password.as_deref())
                .await?
            {
                return Err(AuthError::bad_request(
                    "current_password_invalid",
                    "Current password required when setting new password.",
                ));
            }
        }
        if state
            .hasher
            .verify(password, user.encrypted_password.as_deref())
            .await?
        {
            return Err(AuthError::unprocessable(
                "same_password",
                "New password should be different from the old password.",
            ));
        }
    }
    let hash = state.hasher.hash(password).await?;
    let empty = "";
    let none: Option<chrono::DateTime<Utc>> = None;
    store::update_user(
        tx,
        user.id,
        &[
            (Col::EncryptedPassword, &hash),
            (Col::ConfirmationToken, &empty),
            (Col::ConfirmationSentAt, &none),
            (Col::RecoveryToken, &empty),
            (Col::RecoverySentAt, &none),
            (Col::EmailChangeTokenCurrent, &empty),
            (Col::EmailChangeTokenNew, &empty),
            (Col::EmailChangeSentAt, &none),
            (Col::ReauthenticationToken, &empty),
            (Col::ReauthenticationSentAt, &none),
        ],
    )
    .await?;
    store::clear_one_time_tokens(tx, user.id).await?;
    // A new password ends every other session of the user.
    store::delete_sessions(tx, user.id, caller.session.as_ref().map(|s| s.id)).await?;
    store::audit(tx, audit_entry(user, "user_updated_password", ctx, None)).await?;
    Ok(())
}

/// `/user/identities…`: manual identity linking is not enabled (there are no OAuth
/// providers to link), answered as GoTrue does after authenticating the caller.
pub async fn identities_handler(http: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let auth = &state.auth;
        let mut connection = auth.connection().await?;
        let tx = connection.transaction().await?;
        authn::require_user(auth, &ctx, &tx).await?;
        tx.commit().await?;
        Err(AuthError::not_found(
            "manual_linking_disabled",
            "Manual linking is disabled",
        ))
    }
    .await;
    respond(&ctx, result)
}
