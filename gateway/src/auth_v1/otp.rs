//! Mails on request: `POST /recover`, `POST /otp` and `POST /magiclink` (magic link with a
//! 6-digit code), `POST /resend` (GoTrue's `recover.go`, `otp.go`, `magic_link.go`,
//! `resend.go`).
//!
//! None of them tells whether an address has an account: unknown addresses get the same
//! `200 {}`. A magic link for an address without a confirmed account signs it up (a random
//! password, the confirmation mail) unless `create_user` is false.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::error::{AuthError, AuthResult};
use super::mailing::{self, Flow};
use super::rate_limit::Limit;
use super::session::AuthMethod;
use super::signup::{audit_entry, check_pkce_params, create_user, save_flow_state};
use super::store;
use super::{AuthState, Ctx, Reply, parse_json, read_body, respond, validate_email};
use crate::identity::secrets;
use crate::state::AppState;

#[derive(Debug, Default, Deserialize)]
struct Params {
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    phone: Option<String>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    create_user: Option<bool>,
    #[serde(default)]
    data: Option<Map<String, Value>>,
    #[serde(default)]
    channel: Option<String>,
    #[serde(default)]
    code_challenge: Option<String>,
    #[serde(default)]
    code_challenge_method: Option<String>,
}

async fn with_params<F, Fut>(
    http: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
    work: F,
) -> HttpResponse
where
    F: FnOnce(web::Data<AppState>, Ctx, Params) -> Fut,
    Fut: std::future::Future<Output = AuthResult<Reply>>,
{
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let body = match read_body(payload).await {
        Ok(body) => body,
        Err(error) => return respond(&ctx, Err(error)),
    };
    let params = match parse_json::<Params>(&body) {
        Ok(params) => params,
        Err(error) => return respond(&ctx, Err(error)),
    };
    let result = work(state, ctx.clone(), params).await;
    respond(&ctx, result)
}

pub async fn recover_handler(
    http: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    with_params(http, payload, state, |state, ctx, params| async move {
        recover(&state.auth, &ctx, params).await
    })
    .await
}

pub async fn otp_handler(
    http: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    with_params(http, payload, state, |state, ctx, params| async move {
        otp(&state.auth, &ctx, params).await
    })
    .await
}

pub async fn magiclink_handler(
    http: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    with_params(http, payload, state, |state, ctx, params| async move {
        state
            .auth
            .check_rate(Limit::Otp, &ctx, params.email.as_deref())?;
        magic_link(&state.auth, &ctx, params).await
    })
    .await
}

pub async fn resend_handler(
    http: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    with_params(http, payload, state, |state, ctx, params| async move {
        resend(&state.auth, &ctx, params).await
    })
    .await
}

fn empty() -> AuthResult<Reply> {
    Ok(Reply::Json(json!({})))
}

fn email_logins_disabled(state: &AuthState) -> AuthResult<()> {
    if state.config().email_enabled {
        Ok(())
    } else {
        Err(AuthError::bad_request(
            "email_provider_disabled",
            "Email logins are disabled",
        ))
    }
}

async fn recover(state: &AuthState, ctx: &Ctx, params: Params) -> AuthResult<Reply> {
    state.check_rate(Limit::Otp, ctx, params.email.as_deref())?;
    email_logins_disabled(state)?;
    let email = params.email.clone().unwrap_or_default();
    if email.is_empty() {
        return Err(AuthError::validation("Password recovery requires an email"));
    }
    let email = validate_email(&email)?;
    check_pkce_params(
        params.code_challenge.as_deref(),
        params.code_challenge_method.as_deref(),
    )?;
    let flow = Flow::from_challenge(params.code_challenge.as_deref());
    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    let Some(user) = store::user_by_email(&tx, &email, &state.config().jwt_aud).await? else {
        return empty();
    };
    save_flow_state(
        &tx,
        user.id,
        "recovery",
        AuthMethod::Recovery,
        params.code_challenge.as_deref(),
        params.code_challenge_method.as_deref(),
    )
    .await?;
    store::audit(
        &tx,
        audit_entry(&user, "user_recovery_requested", ctx, None),
    )
    .await?;
    mailing::send_recovery(state, &tx, &user, flow, false, ctx).await?;
    tx.commit().await?;
    empty()
}

async fn otp(state: &AuthState, ctx: &Ctx, params: Params) -> AuthResult<Reply> {
    state.check_rate(Limit::Otp, ctx, params.email.as_deref())?;
    let email = params.email.clone().unwrap_or_default();
    let phone = params.phone.clone().unwrap_or_default();
    if !email.is_empty() && !phone.is_empty() {
        return Err(AuthError::validation(
            "Only an email address or phone number should be provided",
        ));
    }
    if !email.is_empty() && params.channel.as_deref().is_some_and(|c| !c.is_empty()) {
        return Err(AuthError::validation(
            "Channel should only be specified with Phone OTP",
        ));
    }
    check_pkce_params(
        params.code_challenge.as_deref(),
        params.code_challenge_method.as_deref(),
    )?;
    if params.create_user == Some(false) && !email.is_empty() {
        let exists = {
            let mut connection = state.connection().await?;
            let tx = connection.transaction().await?;
            let found = store::user_by_email(&tx, &email, &state.config().jwt_aud).await?;
            tx.commit().await?;
            found.is_some()
        };
        if !exists {
            return Err(AuthError::unprocessable(
                "otp_disabled",
                "Signups not allowed for otp",
            ));
        }
    }
    if !email.is_empty() {
        return magic_link(state, ctx, params).await;
    }
    if !phone.is_empty() {
        if !state.config().phone_enabled {
            return Err(AuthError::bad_request(
                "phone_provider_disabled",
                "Unsupported phone provider",
            ));
        }
        return Err(AuthError::new(
            actix_web::http::StatusCode::INTERNAL_SERVER_ERROR,
            "sms_send_failed",
            "Error sending sms OTP: no SMS provider is configured",
        ));
    }
    Err(AuthError::validation("One of email or phone must be set"))
}

/// GoTrue's `MagicLink`: a magic link (and code) for a confirmed account, else sign-up.
async fn magic_link(state: &AuthState, ctx: &Ctx, params: Params) -> AuthResult<Reply> {
    let config = state.config();
    if !config.email_enabled {
        return Err(AuthError::unprocessable(
            "email_provider_disabled",
            "Email logins are disabled",
        ));
    }
    let email = params.email.clone().unwrap_or_default();
    if email.is_empty() {
        return Err(AuthError::unprocessable(
            "validation_failed",
            "Password recovery requires an email",
        ));
    }
    let email = validate_email(&email)?;
    check_pkce_params(
        params.code_challenge.as_deref(),
        params.code_challenge_method.as_deref(),
    )?;
    let flow = Flow::from_challenge(params.code_challenge.as_deref());
    let challenge = params.code_challenge.as_deref();
    let challenge_method = params.code_challenge_method.as_deref();

    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    store::lock_address(&tx, &email).await?;
    let existing = store::user_by_email(&tx, &email, &config.jwt_aud).await?;
    let user = match existing {
        Some(user) if user.is_confirmed() => user,
        existing => {
            if config.disable_signup {
                return Err(AuthError::unprocessable(
                    "signup_disabled",
                    "Signups not allowed for this instance",
                ));
            }
            let user = match existing {
                Some(user) => user,
                None => {
                    let hash = state.hasher.hash(&secrets::generate_password()).await?;
                    let data = params.data.clone().unwrap_or_default();
                    create_user(state, &tx, Some(&email), None, Some(hash), &data).await?
                }
            };
            if !config.autoconfirm {
                store::audit(
                    &tx,
                    audit_entry(
                        &user,
                        "user_confirmation_requested",
                        ctx,
                        Some(json!({"provider": "email"})),
                    ),
                )
                .await?;
                save_flow_state(
                    &tx,
                    user.id,
                    "email",
                    AuthMethod::EmailSignup,
                    challenge,
                    challenge_method,
                )
                .await?;
                mailing::send_confirmation(state, &tx, &user, flow, ctx).await?;
                tx.commit().await?;
                return empty();
            }
            store::audit(
                &tx,
                audit_entry(
                    &user,
                    "user_signedup",
                    ctx,
                    Some(json!({"provider": "email"})),
                ),
            )
            .await?;
            store::confirm_email(&tx, user.id).await?;
            store::reload(&tx, user.id).await?
        }
    };
    save_flow_state(
        &tx,
        user.id,
        "magiclink",
        AuthMethod::MagicLink,
        challenge,
        challenge_method,
    )
    .await?;
    store::audit(
        &tx,
        audit_entry(&user, "user_recovery_requested", ctx, None),
    )
    .await?;
    mailing::send_recovery(state, &tx, &user, flow, true, ctx).await?;
    tx.commit().await?;
    empty()
}

async fn resend(state: &AuthState, ctx: &Ctx, params: Params) -> AuthResult<Reply> {
    let config = state.config();
    let kind = params.kind.clone().unwrap_or_default();
    let email = params.email.clone().unwrap_or_default();
    let phone = params.phone.clone().unwrap_or_default();
    match kind.as_str() {
        "signup" | "email_change" => check_pkce_params(
            params.code_challenge.as_deref(),
            params.code_challenge_method.as_deref(),
        )?,
        "sms" | "phone_change" => {}
        _ => {
            return Err(AuthError::validation(
                "Missing one of these types: signup, email_change, sms, phone_change",
            ));
        }
    }
    if email.is_empty() && kind == "signup" {
        return Err(AuthError::validation(
            "Type provided requires an email address",
        ));
    }
    if phone.is_empty() && kind == "sms" {
        return Err(AuthError::validation(
            "Type provided requires a phone number",
        ));
    }
    if !email.is_empty() && !phone.is_empty() {
        return Err(AuthError::validation(
            "Only an email address or phone number should be provided.",
        ));
    }
    if email.is_empty() && phone.is_empty() {
        return Err(AuthError::validation(
            "Missing email address or phone number",
        ));
    }
    if !phone.is_empty() {
        if !config.phone_enabled {
            return Err(AuthError::bad_request(
                "phone_provider_disabled",
                "Phone logins are disabled",
            ));
        }
        let phone = super::validate_phone(&phone)?;
        state.check_rate(Limit::Otp, ctx, None)?;
        let mut connection = state.connection().await?;
        let tx = connection.transaction().await?;
        let user = store::user_by_phone(&tx, &phone, &config.jwt_aud).await?;
        tx.commit().await?;
        // Nothing to send (unknown number, already confirmed, no pending change): GoTrue's `{}`.
        let nothing_to_send = match &user {
            None => true,
            Some(user) if kind == "sms" => user.is_phone_confirmed(),
            Some(user) => user.phone_change.is_empty(),
        };
        if nothing_to_send {
            return empty();
        }
        return Err(AuthError::new(
            actix_web::http::StatusCode::INTERNAL_SERVER_ERROR,
            "sms_send_failed",
            "Error sending sms OTP: no SMS provider is configured",
        ));
    }
    email_logins_disabled(state)?;
    let email = validate_email(&email)?;
    state.check_rate(Limit::Otp, ctx, Some(&email))?;
    let flow = Flow::from_challenge(params.code_challenge.as_deref());
    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    let Some(user) = store::user_by_email(&tx, &email, &config.jwt_aud).await? else {
        return empty();
    };
    match kind.as_str() {
        "signup" => {
            if user.is_confirmed() {
                return empty();
            }
            store::audit(
                &tx,
                audit_entry(&user, "user_confirmation_requested", ctx, None),
            )
            .await?;
            save_flow_state(
                &tx,
                user.id,
                "email",
                AuthMethod::EmailSignup,
                params.code_challenge.as_deref(),
                params.code_challenge_method.as_deref(),
            )
            .await?;
            mailing::send_confirmation(state, &tx, &user, flow, ctx).await?;
        }
        _ => {
            if user.email_change.is_empty() {
                return empty();
            }
            save_flow_state(
                &tx,
                user.id,
                "email_change",
                AuthMethod::EmailChange,
                params.code_challenge.as_deref(),
                params.code_challenge_method.as_deref(),
            )
            .await?;
            let new_email = user.email_change.clone();
            mailing::send_email_change(state, &tx, &user, &new_email, flow, ctx).await?;
        }
    }
    tx.commit().await?;
    empty()
}
