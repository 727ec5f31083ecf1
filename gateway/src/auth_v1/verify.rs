//! `GET /verify` (links opened from mails) and `POST /verify` (OTP codes and token hashes
//! sent by the client), as GoTrue's `verify.go`, for `signup`, `invite`, `recovery`,
//! `magiclink`, `email_change` and `email` (a code of either kind).
//!
//! GET always answers 303: to `redirect_to` (allow-listed, else the site URL) with the
//! session in the fragment (implicit flow), with `?code=` (PKCE, link token prefixed
//! `pkce_`), or with `error`, `error_code` and `error_description` in the fragment (and
//! the query in PKCE). A first e-mail-change confirmation with secure e-mail change on
//! answers a `message` instead.

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use serde::Deserialize;
use serde_json::json;

use super::error::{AuthError, AuthResult};
use super::mailing::{self, Flow};
use super::model::User;
use super::rate_limit::Limit;
use super::session::{self, AuthMethod};
use super::signup::audit_entry;
use super::store::{self, Col, OneTimeTokenType, TokenColumn, Tx};
use super::{AuthState, Ctx, Reply, parse_json, read_body, respond, validate_email};
use crate::identity::secrets::{self, PKCE_PREFIX};
use crate::state::AppState;

/// GoTrue's message for the first half of a double-confirmed e-mail change.
pub const SINGLE_CONFIRMATION: &str =
    "Confirmation link accepted. Please proceed to confirm link sent to the other email";

#[derive(Debug, Default, Deserialize)]
pub struct VerifyParams {
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub token: Option<String>,
    #[serde(default)]
    pub token_hash: Option<String>,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub phone: Option<String>,
    #[serde(default)]
    pub redirect_to: Option<String>,
}

/// What a verification did.
enum Verified {
    /// The user is verified; sign them in.
    User(Box<User>, String),
    /// First half of a secure e-mail change.
    SingleConfirmation,
}

pub async fn get_handler(http: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    respond(&ctx, verify_get(&state.auth, &ctx).await)
}

pub async fn post_handler(
    http: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let body = read_body(payload).await?;
        let params: VerifyParams = parse_json(&body)?;
        verify_post(&state.auth, &ctx, params).await
    }
    .await;
    respond(&ctx, result)
}

async fn verify_get(state: &AuthState, ctx: &Ctx) -> AuthResult<Reply> {
    state.check_rate(Limit::Verify, ctx, None)?;
    let kind = ctx.query("type").unwrap_or_default().to_owned();
    let token = ctx.query("token").unwrap_or_default().to_owned();
    if kind.is_empty() {
        return Err(AuthError::validation("Verify requires a verification type"));
    }
    if token.is_empty() {
        return Err(AuthError::validation(
            "Verify requires a token or a token hash",
        ));
    }
    let redirect_to = state.redirects.resolve(ctx.redirect_to.as_deref());
    let flow = if token.starts_with(PKCE_PREFIX) {
        Flow::Pkce
    } else {
        Flow::Implicit
    };
    let method = match flow {
        Flow::Pkce => Some(AuthMethod::parse(&kind).ok_or_else(|| {
            AuthError::validation(format!("unsupported authentication method {kind:?}"))
        })?),
        Flow::Implicit => None,
    };
    let outcome: AuthResult<String> = async {
        let mut connection = state.connection().await?;
        let tx = connection.transaction().await?;
        let verified = match kind.as_str() {
            "signup" | "invite" | "recovery" | "magiclink" | "email_change" => {
                let user = by_token_hash(state, &tx, &kind, &token).await?;
                apply(state, &tx, ctx, user, &kind, &token).await?
            }
            _ => return Err(AuthError::validation("Unsupported verification type")),
        };
        let location = match verified {
            Verified::SingleConfirmation => {
                message_redirect(&redirect_to, SINGLE_CONFIRMATION, flow)
            }
            Verified::User(user, kind) => match (flow, method) {
                (Flow::Pkce, Some(method)) => {
                    let code = store::issue_auth_code(&tx, user.id, method.as_str())
                        .await?
                        .ok_or_else(|| {
                            AuthError::bad_request(
                                "flow_state_not_found",
                                "No associated flow state found. No valid flow state found for user.",
                            )
                        })?;
                    with_query(&redirect_to, &[("code", &code)])
                }
                _ => {
                    let token = session::issue(state, &tx, user.id, AuthMethod::Otp, ctx).await?;
                    session::fragment_redirect(&redirect_to, &token, &kind)
                }
            },
        };
        tx.commit().await?;
        Ok(location)
    }
    .await;
    match outcome {
        Ok(location) => Ok(Reply::Redirect(location)),
        Err(error) => Ok(Reply::Redirect(error_redirect(&redirect_to, &error, flow))),
    }
}

async fn verify_post(state: &AuthState, ctx: &Ctx, params: VerifyParams) -> AuthResult<Reply> {
    state.check_rate(Limit::Verify, ctx, None)?;
    let kind = params.kind.clone().unwrap_or_default();
    if kind.is_empty() {
        return Err(AuthError::validation("Verify requires a verification type"));
    }
    let token = params.token.clone().unwrap_or_default();
    let token_hash = params.token_hash.clone().unwrap_or_default();
    if token.is_empty() == token_hash.is_empty() {
        return Err(AuthError::validation(
            "Verify requires either a token or a token hash",
        ));
    }
    let email = params.email.clone().unwrap_or_default();
    let phone = params.phone.clone().unwrap_or_default();
    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    let verified = if !token.is_empty() {
        if !phone.is_empty() && email.is_empty() {
            super::validate_phone(&phone)?;
            // No SMS sender: no phone OTP was ever issued, so none matches.
            return Err(AuthError::otp_expired());
        }
        if phone.is_empty() && !email.is_empty() {
            let email = validate_email(&email).map_err(|_| {
                AuthError::unprocessable("validation_failed", "Invalid email format")
            })?;
            let hash = secrets::token_hash(&email, &token);
            let (user, kind) = by_email_and_otp(state, &tx, &kind, &email, &hash).await?;
            apply(state, &tx, ctx, user, &kind, &hash).await?
        } else {
            return Err(AuthError::validation(
                "Only an email address or phone number should be provided on verify",
            ));
        }
    } else {
        if !email.is_empty() || !phone.is_empty() || params.redirect_to.is_some() {
            return Err(AuthError::validation(
                "Only the token_hash and type should be provided",
            ));
        }
        let user = by_token_hash(state, &tx, &kind, &token_hash).await?;
        let kind = if kind == "email" {
            if user.recovery_token == token_hash
                || user.recovery_token == format!("{PKCE_PREFIX}{token_hash}")
            {
                "magiclink".to_owned()
            } else {
                "signup".to_owned()
            }
        } else {
            kind
        };
        apply(state, &tx, ctx, user, &kind, &token_hash).await?
    };
    match verified {
        Verified::SingleConfirmation => {
            tx.commit().await?;
            Ok(Reply::Json(
                json!({"msg": SINGLE_CONFIRMATION, "code": "200"}),
            ))
        }
        Verified::User(user, _) => {
            let token = session::issue(state, &tx, user.id, AuthMethod::Otp, ctx).await?;
            tx.commit().await?;
            Ok(Reply::Json(token))
        }
    }
}

/// GoTrue's `verifyTokenHash`: the user whose stored link token is `hash`, unexpired.
async fn by_token_hash(state: &AuthState, tx: &Tx<'_>, kind: &str, hash: &str) -> AuthResult<User> {
    let bare = hash.strip_prefix(PKCE_PREFIX).unwrap_or(hash);
    let column = match kind {
        "email" => TokenColumn::ConfirmationOrRecovery,
        "signup" | "invite" => TokenColumn::Confirmation,
        "recovery" | "magiclink" => TokenColumn::Recovery,
        "email_change" => TokenColumn::EmailChange,
        _ => return Err(AuthError::validation("Invalid email verification type")),
    };
    let user = store::user_by_token(tx, column, bare)
        .await?
        .ok_or_else(AuthError::email_link_expired)?;
    if user.is_banned(Utc::now()) {
        return Err(AuthError::forbidden("user_banned", "User is banned"));
    }
    let matches = |stored: &str| stored == bare || stored == format!("{PKCE_PREFIX}{bare}");
    let sent_at = match kind {
        "email" if matches(&user.recovery_token) => user.recovery_sent_at,
        "email" | "signup" | "invite" => user.confirmation_sent_at,
        "recovery" | "magiclink" => user.recovery_sent_at,
        _ => user.email_change_sent_at,
    };
    if mailing::is_expired(state, sent_at) {
        return Err(AuthError::email_link_expired());
    }
    Ok(user)
}

/// GoTrue's `verifyUserAndToken` for e-mail OTPs; returns the user and the effective type.
async fn by_email_and_otp(
    state: &AuthState,
    tx: &Tx<'_>,
    kind: &str,
    email: &str,
    hash: &str,
) -> AuthResult<(User, String)> {
    let aud = &state.config().jwt_aud;
    let user = if kind == "email_change" {
        match store::user_by_token(tx, TokenColumn::EmailChange, hash).await? {
            Some(user) if user.email_change == email || user.email() == email => Some(user),
            _ => None,
        }
    } else {
        store::user_by_email(tx, email, aud).await?
    };
    let user = user.ok_or_else(AuthError::otp_expired)?;
    // A code is spent once: a request verifying the same code at the same time holds the
    // row until it ends; the code is checked against the row as that request left it.
    let user = store::lock_user(tx, user.id)
        .await?
        .ok_or_else(AuthError::otp_expired)?;
    if user.is_banned(Utc::now()) {
        return Err(AuthError::forbidden("user_banned", "User is banned"));
    }
    let valid = |stored: &str, sent_at| mailing::otp_matches(state, hash, stored, sent_at);
    let kind = match kind {
        "email" => {
            if valid(&user.confirmation_token, user.confirmation_sent_at) {
                "signup"
            } else if valid(&user.recovery_token, user.recovery_sent_at) {
                "magiclink"
            } else {
                return Err(AuthError::otp_expired());
            }
        }
        "signup" | "invite" if valid(&user.confirmation_token, user.confirmation_sent_at) => kind,
        "recovery" | "magiclink" if valid(&user.recovery_token, user.recovery_sent_at) => kind,
        "email_change"
            if valid(&user.email_change_token_current, user.email_change_sent_at)
                || valid(&user.email_change_token_new, user.email_change_sent_at) =>
        {
            kind
        }
        "signup" | "invite" | "recovery" | "magiclink" | "email_change" => {
            return Err(AuthError::otp_expired());
        }
        _ => return Err(AuthError::validation("Unsupported verification type")),
    };
    Ok((user, kind.to_owned()))
}

/// Applies a verified token of `kind` to the user.
async fn apply(
    state: &AuthState,
    tx: &Tx<'_>,
    ctx: &Ctx,
    user: User,
    kind: &str,
    token: &str,
) -> AuthResult<Verified> {
    match kind {
        "signup" | "invite" => {
            if !user.has_password() && user.invited_at.is_some() {
                // Invited users get a random password until the app lets them choose one.
                let hash = state.hasher.hash(&secrets::generate_password()).await?;
                store::update_user(tx, user.id, &[(Col::EncryptedPassword, &hash)]).await?;
            }
            store::audit(
                tx,
                audit_entry(
                    &user,
                    "user_signedup",
                    ctx,
                    Some(json!({"provider": "email"})),
                ),
            )
            .await?;
            store::confirm_email(tx, user.id).await?;
        }
        "recovery" | "magiclink" => {
            let empty = "";
            store::update_user(tx, user.id, &[(Col::RecoveryToken, &empty)]).await?;
            store::clear_one_time_tokens(tx, user.id).await?;
            if user.is_confirmed() {
                store::audit(tx, audit_entry(&user, "login", ctx, None)).await?;
            } else {
                store::audit(
                    tx,
                    audit_entry(
                        &user,
                        "user_signedup",
                        ctx,
                        Some(json!({"provider": "email"})),
                    ),
                )
                .await?;
                store::confirm_email(tx, user.id).await?;
            }
        }
        "email_change" => {
            if !email_change(state, tx, ctx, &user, token).await? {
                return Ok(Verified::SingleConfirmation);
            }
        }
        _ => return Err(AuthError::validation("Unsupported verification type")),
    }
    store::refresh_providers(tx, user.id).await?;
    let user = store::reload(tx, user.id).await?;
    Ok(Verified::User(Box::new(user), kind.to_owned()))
}

/// GoTrue's `emailChangeVerify`; false when only the first of two confirmations arrived.
async fn email_change(
    state: &AuthState,
    tx: &Tx<'_>,
    ctx: &Ctx,
    user: &User,
    token: &str,
) -> AuthResult<bool> {
    let config = state.config();
    let bare = token.strip_prefix(PKCE_PREFIX).unwrap_or(token);
    let matches = |stored: &str| stored == bare || stored == format!("{PKCE_PREFIX}{bare}");
    if !config.autoconfirm
        && config.secure_email_change
        && user.email_change_confirm_status == 0
        && !user.email().is_empty()
    {
        let one = 1i32;
        let empty = "";
        if matches(&user.email_change_token_current) {
            store::update_user(
                tx,
                user.id,
                &[
                    (Col::EmailChangeConfirmStatus, &one),
                    (Col::EmailChangeTokenCurrent, &empty),
                ],
            )
            .await?;
            store::clear_one_time_token(tx, user.id, OneTimeTokenType::EmailChangeCurrent).await?;
        } else {
            store::update_user(
                tx,
                user.id,
                &[
                    (Col::EmailChangeConfirmStatus, &one),
                    (Col::EmailChangeTokenNew, &empty),
                ],
            )
            .await?;
            store::clear_one_time_token(tx, user.id, OneTimeTokenType::EmailChangeNew).await?;
        }
        return Ok(false);
    }
    confirm_email_change(tx, ctx, user).await?;
    Ok(true)
}

/// Makes `email_change` the user's e-mail (identity updated, verified).
pub async fn confirm_email_change(tx: &Tx<'_>, ctx: &Ctx, user: &User) -> AuthResult<()> {
    let new_email = user.email_change.clone();
    store::audit(tx, audit_entry(user, "user_modified", ctx, None)).await?;
    let updated = store::update_identity_data(
        tx,
        user.id,
        "email",
        &json!({"email": new_email, "email_verified": true}),
    )
    .await?;
    if !updated {
        store::insert_identity(
            tx,
            user.id,
            "email",
            &user.id.to_string(),
            &json!({"sub": user.id, "email": new_email, "email_verified": true, "phone_verified": false}),
        )
        .await?;
    }
    let empty = "";
    let zero = 0i32;
    let not_anonymous = false;
    store::update_user(
        tx,
        user.id,
        &[
            (Col::Email, &new_email),
            (Col::EmailChange, &empty),
            (Col::EmailChangeTokenCurrent, &empty),
            (Col::EmailChangeTokenNew, &empty),
            (Col::EmailChangeConfirmStatus, &zero),
            (Col::IsAnonymous, &not_anonymous),
        ],
    )
    .await?;
    store::clear_one_time_tokens(tx, user.id).await?;
    if !user.is_confirmed() {
        store::confirm_email(tx, user.id).await?;
    }
    store::merge_metadata(tx, user.id, Col::UserMetaData, &json!({"email": new_email})).await?;
    Ok(())
}

fn with_query(base: &str, pairs: &[(&str, &str)]) -> String {
    match url::Url::parse(base) {
        Ok(mut url) => {
            url.query_pairs_mut().extend_pairs(pairs);
            url.to_string()
        }
        Err(_) => base.to_owned(),
    }
}

/// GoTrue's `prepErrorRedirectURL`: error in the fragment (and the query for PKCE).
pub fn error_redirect(redirect_to: &str, error: &AuthError, flow: Flow) -> String {
    let Ok(mut url) = url::Url::parse(redirect_to) else {
        return redirect_to.to_owned();
    };
    let mut fragment = url::form_urlencoded::Serializer::new(String::new());
    if let Some(word) = error.oauth_error() {
        fragment.append_pair("error", word);
    }
    fragment.append_pair("error_code", error.code);
    fragment.append_pair("error_description", &error.message);
    fragment.append_pair("sb", "");
    if flow == Flow::Pkce {
        let mut query = url.query_pairs_mut();
        if let Some(word) = error.oauth_error() {
            query.append_pair("error", word);
        }
        query.append_pair("error_code", error.code);
        query.append_pair("error_description", &error.message);
    }
    url.set_fragment(Some(&fragment.finish()));
    url.to_string()
}

/// GoTrue's `prepRedirectURL` for informational messages.
fn message_redirect(redirect_to: &str, message: &str, flow: Flow) -> String {
    let Ok(mut url) = url::Url::parse(redirect_to) else {
        return redirect_to.to_owned();
    };
    if flow == Flow::Pkce {
        url.query_pairs_mut().append_pair("message", message);
    }
    let fragment = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("message", message)
        .append_pair("sb", "")
        .finish();
    url.set_fragment(Some(&fragment));
    url.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_redirects_carry_the_error_in_the_fragment() {
        let location = error_redirect(
            "http://localhost:3000/auth",
            &AuthError::email_link_expired(),
            Flow::Implicit,
        );
        assert_eq!(
            location,
            "http://localhost:3000/auth#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb="
        );
        let location = error_redirect(
            "http://localhost:3000/auth",
            &AuthError::email_link_expired(),
            Flow::Pkce,
        );
        assert!(
            location.starts_with(
                "http://localhost:3000/auth?error=access_denied&error_code=otp_expired&"
            )
        );
    }

    #[test]
    fn pkce_success_adds_the_code() {
        assert_eq!(
            with_query("http://localhost:3000/cb?x=1", &[("code", "abc")]),
            "http://localhost:3000/cb?x=1&code=abc"
        );
        assert_eq!(
            message_redirect("http://h/x", SINGLE_CONFIRMATION, Flow::Implicit),
            "http://h/x#message=Confirmation+link+accepted.+Please+proceed+to+confirm+link+sent+to+the+other+email&sb="
        );
    }
}
