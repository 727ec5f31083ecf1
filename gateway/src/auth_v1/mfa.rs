//! Multi-factor authentication with TOTP, as GoTrue's `mfa.go`: `POST /factors` (enroll),
//! `POST /factors/{id}/challenge`, `POST /factors/{id}/verify`, `DELETE /factors/{id}`
//! (unenroll), and the admin's `GET /admin/users/{id}/factors` and
//! `DELETE /admin/users/{id}/factors/{factor_id}`.
//!
//! A TOTP factor is an RFC 6238 secret (160 random bits; SHA-1, 6 digits, 30-second steps,
//! one step of clock skew either way, as GoTrue's pquerna/otp), shown once at enrollment
//! as base32, as an `otpauth://` URI and as that URI's QR code (SVG; auth-js turns it into
//! a `data:` URI). Verifying a challenge marks the factor verified, adds `totp` to the
//! session's `amr`, raises the session to `aal2` with a new refresh token, ends the user's
//! sessions still below `aal2` and drops their other unverified TOTP factors. With a
//! verified factor, enrolling another needs `aal2` (403) and so does unenrolling a
//! verified one (422), both `insufficient_aal`. Phone and WebAuthn factors are not offered
//! (their enroll and verify switches are off, as GoTrue's defaults).
//!
//! Secrets are stored as GoTrue stores them: base32 in `auth.mfa_factors.secret`, or, with
//! `SECURITY_DB_ENCRYPTION_ENCRYPT`, GoTrue's encrypted form ([`db_encryption`]); secrets
//! in plaintext or under an older key are encrypted again at their next verification.
//!
//! `challengeAndVerify` of auth-js is a challenge followed by a verify: GoTrue has no
//! endpoint of its own for it.

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::{DateTime, Utc};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use rand::RngCore;
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::authn::{self, Caller};
use super::db_encryption;
use super::error::{AuthError, AuthResult};
use super::rate_limit::Limit;
use super::signup::audit_entry;
use super::store::{self, Factor, Tx};
use super::{AuthState, Ctx, Reply, parse_json, read_body, respond, session};
use crate::identity::secrets;
use crate::state::AppState;

/// Seconds of one TOTP step.
const PERIOD: u64 = 30;
/// Digits of a TOTP code.
const DIGITS: u8 = 6;
/// Bytes of a new TOTP secret (pquerna/otp's default).
const SECRET_BYTES: usize = 20;
/// Pixels per QR module (GoTrue's `DefaultQRSize`).
const QR_MODULE_SIZE: u32 = 3;

// ---------------------------------------------------------------------------------------
// TOTP

/// The TOTP generator for a raw secret. Secrets shorter than RFC 4226's 128 bits are
/// accepted, as GoTrue accepts whatever secret a factor was imported with.
fn totp(secret: &[u8]) -> totp_rs::Totp {
    totp_rs::Builder::new()
        .with_algorithm(totp_rs::Algorithm::SHA1)
        .with_digits(DIGITS)
        .with_skew(1)
        .with_step_duration(PERIOD)
        .with_secret(secret.to_vec())
        .build_noncompliant()
}

/// Decodes a stored base32 secret (padding, case and spaces forgiven, as pquerna/otp).
fn decode_secret(secret_base32: &str) -> Option<Vec<u8>> {
    let normalized: String = secret_base32
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '=')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    totp_rs::Secret::try_from_base32(normalized)
        .ok()
        .map(|secret| secret.as_bytes().to_vec())
        .filter(|bytes| !bytes.is_empty())
}

/// The code of a base32 secret at `unix_time` (what an authenticator app shows).
pub fn totp_code(secret_base32: &str, unix_time: u64) -> Option<String> {
    decode_secret(secret_base32).map(|secret| totp(&secret).generate(unix_time).to_string())
}

/// Whether `code` is the TOTP of the base32 secret at `unix_time`, one step either way.
pub fn totp_matches(secret_base32: &str, code: &str, unix_time: u64) -> bool {
    decode_secret(secret_base32)
        .is_some_and(|secret| totp(&secret).check(code.trim(), unix_time).is_some())
}

/// What Go's `url.URL` leaves alone in a path (and `?`, which it escapes).
const GO_PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~')
    .remove(b'$')
    .remove(b'&')
    .remove(b'+')
    .remove(b',')
    .remove(b'/')
    .remove(b':')
    .remove(b';')
    .remove(b'=')
    .remove(b'@');

/// What Go's `url.PathEscape` leaves alone (pquerna/otp escapes query values with it).
const GO_PATH_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~')
    .remove(b'$')
    .remove(b'&')
    .remove(b'+')
    .remove(b':')
    .remove(b'=')
    .remove(b'@');

/// The `otpauth://` URI authenticator apps read, byte for byte as pquerna/otp (GoTrue's
/// library) writes it: `otpauth://totp/<issuer>:<account>?algorithm=SHA1&digits=6&
/// issuer=<issuer>&period=30&secret=<base32>`.
pub fn otpauth_uri(issuer: &str, account: &str, secret: &str) -> String {
    let label = format!("/{issuer}:{account}");
    format!(
        "otpauth://totp{}?algorithm=SHA1&digits={DIGITS}&issuer={}&period={PERIOD}&secret={}",
        utf8_percent_encode(&label, GO_PATH),
        utf8_percent_encode(issuer, GO_PATH_SEGMENT),
        utf8_percent_encode(secret, GO_PATH_SEGMENT),
    )
}

/// The URI's QR code as SVG (error correction H, as GoTrue). Colours are named, not `#…`:
/// auth-js puts the SVG into a `data:` URI as it is, where `#` would end the image.
pub fn qr_svg(uri: &str) -> AuthResult<String> {
    use qrcode::render::svg;
    let code = qrcode::QrCode::with_error_correction_level(uri.as_bytes(), qrcode::EcLevel::H)
        .map_err(|error| match error {
            // The request's issuer (the rest of the URI is bounded): bad input, which GoTrue
            // lets fail as a 500.
            qrcode::types::QrError::DataTooLong => {
                AuthError::validation("The issuer is too long for the factor's QR code")
            }
            error => AuthError::internal("Error generating QR Code", error),
        })?;
    Ok(code
        .render::<svg::Color<'_>>()
        .module_dimensions(QR_MODULE_SIZE, QR_MODULE_SIZE)
        .dark_color(svg::Color("black"))
        .light_color(svg::Color("white"))
        .build())
}

// ---------------------------------------------------------------------------------------
// Shared checks

/// The signed-in, non-anonymous caller (GoTrue's `requireAuthentication` and
/// `requireNotAnonymous`).
async fn caller(state: &AuthState, ctx: &Ctx, tx: &Tx<'_>) -> AuthResult<Caller> {
    let caller = authn::require_user(state, ctx, tx).await?;
    let anonymous = caller
        .claims
        .get("is_anonymous")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if anonymous {
        return Err(AuthError::forbidden(
            "no_authorization",
            "Anonymous user not allowed to perform these actions",
        ));
    }
    Ok(caller)
}

/// The caller's session; GoTrue answers 500 when the token names none.
fn require_session(caller: &Caller, message: &str) -> AuthResult<store::Session> {
    caller
        .session
        .clone()
        .ok_or_else(|| AuthError::internal(message, "the access token has no session_id"))
}

fn is_aal2(session: &store::Session) -> bool {
    session.aal == "aal2"
}

/// The factor of `user_id` named in the path (GoTrue's `loadFactor`).
async fn load_factor(tx: &Tx<'_>, user_id: Uuid, raw: &str) -> AuthResult<Factor> {
    let id = Uuid::parse_str(raw)
        .map_err(|_| AuthError::not_found("validation_failed", "factor_id must be an UUID"))?;
    store::owned_factor(tx, user_id, id)
        .await?
        .ok_or_else(|| AuthError::not_found("mfa_factor_not_found", "Factor not found"))
}

/// 422 `mfa_factor_name_conflict`: the user already has a factor with this name.
fn name_conflict(friendly_name: &str) -> AuthError {
    AuthError::unprocessable(
        "mfa_factor_name_conflict",
        format!("A factor with the friendly name {friendly_name:?} for this user already exists"),
    )
}

/// GoTrue's answer when a factor type's challenges and verification are switched off.
fn verify_disabled(state: &AuthState, factor: &Factor) -> Option<AuthError> {
    match factor.factor_type.as_str() {
        "totp" if state.config().mfa.totp_verify_enabled => None,
        "totp" => Some(AuthError::unprocessable(
            "mfa_totp_verify_not_enabled",
            "MFA verification is disabled for TOTP",
        )),
        "phone" => Some(AuthError::unprocessable(
            "mfa_phone_verify_not_enabled",
            "MFA verification is disabled for Phone",
        )),
        _ => Some(AuthError::unprocessable(
            "mfa_webauthn_verify_not_enabled",
            "MFA verification is disabled for WebAuthn",
        )),
    }
}

// ---------------------------------------------------------------------------------------
// POST /factors

#[derive(Debug, Default, Deserialize)]
struct EnrollParams {
    #[serde(default)]
    friendly_name: Option<String>,
    #[serde(default)]
    factor_type: Option<String>,
    #[serde(default)]
    issuer: Option<String>,
}

pub async fn enroll_handler(
    http: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let body = read_body(payload).await?;
        let auth = &state.auth;
        let mut connection = auth.connection().await?;
        let tx = connection.transaction().await?;
        let caller = caller(auth, &ctx, &tx).await?;
        let session = require_session(
            &caller,
            "A valid session and a registered user are required to enroll a factor",
        )?;
        let params: EnrollParams = parse_json(&body)?;
        match params.factor_type.as_deref().unwrap_or_default() {
            "totp" if auth.config().mfa.totp_enroll_enabled => {}
            "totp" => {
                return Err(AuthError::unprocessable(
                    "mfa_totp_enroll_not_enabled",
                    "MFA enroll is disabled for TOTP",
                ));
            }
            "phone" => {
                return Err(AuthError::unprocessable(
                    "mfa_phone_enroll_not_enabled",
                    "MFA enroll is disabled for Phone",
                ));
            }
            "webauthn" => {
                return Err(AuthError::unprocessable(
                    "mfa_webauthn_enroll_not_enabled",
                    "MFA enroll is disabled for WebAuthn",
                ));
            }
            _ => {
                return Err(AuthError::validation(
                    "factor_type needs to be totp, phone, or webauthn",
                ));
            }
        }
        let reply = enroll_totp(auth, &ctx, &tx, &caller, &session, params).await?;
        tx.commit().await?;
        Ok(reply)
    }
    .await;
    respond(&ctx, result)
}

/// The default issuer: the site URL's host (with its port), as GoTrue.
fn site_issuer(state: &AuthState) -> String {
    let site = &state.settings.api.site_url;
    match (site.host_str(), site.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_owned(),
        _ => String::new(),
    }
}

/// GoTrue's `validateFactors`: abandoned enrollments go, then the name must be free and
/// the limits respected, and a user with a verified factor needs an `aal2` session.
async fn check_new_factor(
    state: &AuthState,
    tx: &Tx<'_>,
    user_id: Uuid,
    session: &store::Session,
    friendly_name: &str,
) -> AuthResult<()> {
    let config = &state.config().mfa;
    store::lock_factors(tx, user_id).await?;
    store::delete_expired_factors(tx, config.factor_expiry).await?;
    let factors = store::factors(tx, user_id).await?;
    if factors.iter().any(|f| f.friendly_name == friendly_name) {
        return Err(name_conflict(friendly_name));
    }
    let verified = factors.iter().filter(|f| f.is_verified()).count();
    if factors.len() >= config.max_enrolled_factors || verified >= config.max_verified_factors {
        return Err(AuthError::unprocessable(
            "too_many_enrolled_mfa_factors",
            "Maximum number of verified factors reached, unenroll to continue",
        ));
    }
    if verified > 0 && !is_aal2(session) {
        return Err(AuthError::forbidden(
            "insufficient_aal",
            "AAL2 required to enroll a new factor",
        ));
    }
    Ok(())
}

async fn enroll_totp(
    state: &AuthState,
    ctx: &Ctx,
    tx: &Tx<'_>,
    caller: &Caller,
    session: &store::Session,
    params: EnrollParams,
) -> AuthResult<Reply> {
    let user = &caller.user;
    let friendly_name = params.friendly_name.unwrap_or_default();
    let issuer = params
        .issuer
        .filter(|issuer| !issuer.is_empty())
        .unwrap_or_else(|| site_issuer(state));
    check_new_factor(state, tx, user.id, session, &friendly_name).await?;
    // pquerna/otp needs an issuer and an account name (the e-mail; phone users have none).
    if issuer.is_empty() || user.email().is_empty() {
        return Err(AuthError::internal(
            "Error generating QR Code",
            "TOTP keys need an issuer and an e-mail address",
        ));
    }
    let mut raw = [0u8; SECRET_BYTES];
    rand::rng().fill_bytes(&mut raw);
    let secret = totp_rs::Secret::from(raw).to_base32();
    let uri = otpauth_uri(&issuer, user.email(), &secret);
    let qr_code = qr_svg(&uri)?;
    let id = Uuid::new_v4();
    let stored = db_encryption::seal(
        &id.to_string(),
        &secret,
        state.config().db_encryption.as_ref(),
    );
    store::insert_totp_factor(tx, id, user.id, &friendly_name, &stored).await?;
    store::audit(
        tx,
        audit_entry(
            user,
            "factor_in_progress",
            ctx,
            Some(json!({"factor_id": id})),
        ),
    )
    .await?;
    Ok(Reply::Json(json!({
        "id": id,
        "type": "totp",
        "friendly_name": friendly_name,
        "totp": {"qr_code": qr_code, "secret": secret, "uri": uri},
    })))
}

// ---------------------------------------------------------------------------------------
// POST /factors/{id}/challenge

pub async fn challenge_handler(
    http: HttpRequest,
    path: web::Path<String>,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let auth = &state.auth;
        let mut connection = auth.connection().await?;
        let tx = connection.transaction().await?;
        let caller = caller(auth, &ctx, &tx).await?;
        let factor = load_factor(&tx, caller.user.id, &path).await?;
        auth.check_rate(Limit::MfaChallenge, &ctx, None)?;
        if let Some(error) = verify_disabled(auth, &factor) {
            return Err(error);
        }
        let ip = ctx.ip_for_db().unwrap_or("0.0.0.0");
        let (id, created_at) = store::insert_challenge(&tx, factor.id, ip).await?;
        store::audit(
            &tx,
            audit_entry(
                &caller.user,
                "challenge_created",
                &ctx,
                Some(json!({"factor_id": factor.id, "factor_status": factor.status})),
            ),
        )
        .await?;
        tx.commit().await?;
        let expires_at = expires_at(auth, created_at);
        Ok(Reply::Json(
            json!({"id": id, "type": factor.factor_type, "expires_at": expires_at.timestamp()}),
        ))
    }
    .await;
    respond(&ctx, result)
}

fn expires_at(state: &AuthState, created_at: DateTime<Utc>) -> DateTime<Utc> {
    created_at + chrono::Duration::from_std(state.config().mfa.challenge_expiry).unwrap_or_default()
}

// ---------------------------------------------------------------------------------------
// POST /factors/{id}/verify

#[derive(Debug, Default, Deserialize)]
struct VerifyParams {
    #[serde(default)]
    challenge_id: Option<Uuid>,
    #[serde(default)]
    code: Option<String>,
}

pub async fn verify_handler(
    http: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let body = read_body(payload).await?;
        let auth = &state.auth;
        let mut connection = auth.connection().await?;
        let tx = connection.transaction().await?;
        let caller = caller(auth, &ctx, &tx).await?;
        let factor = load_factor(&tx, caller.user.id, &path).await?;
        auth.check_rate(Limit::MfaVerify, &ctx, None)?;
        let params: VerifyParams = parse_json(&body)?;
        let code = params.code.unwrap_or_default();
        if code.is_empty() && factor.factor_type != "webauthn" {
            return Err(AuthError::validation("Code needs to be non-empty"));
        }
        if let Some(error) = verify_disabled(auth, &factor) {
            return Err(error);
        }
        // GoTrue's `validateChallenge`.
        let challenge = match params.challenge_id {
            Some(id) => store::challenge(&tx, factor.id, id).await?,
            None => None,
        };
        let Some(challenge) = challenge else {
            return Err(AuthError::unprocessable(
                "mfa_factor_not_found",
                "MFA factor with the provided challenge ID not found",
            ));
        };
        if challenge.verified || challenge.ip != ctx.ip_for_db().unwrap_or("0.0.0.0") {
            return Err(AuthError::unprocessable(
                "mfa_ip_address_mismatch",
                "Challenge and verify IP addresses mismatch.",
            ));
        }
        if Utc::now() > expires_at(auth, challenge.created_at) {
            // The expired challenge is removed even though the request fails.
            store::delete_challenge(&tx, challenge.id).await?;
            tx.commit().await?;
            return Err(AuthError::unprocessable(
                "mfa_challenge_expired",
                format!(
                    "MFA challenge {} has expired, verify against another challenge or create a new challenge.",
                    challenge.id
                ),
            ));
        }
        let encryption = auth.config().db_encryption.as_ref();
        let (secret, reencrypt) =
            db_encryption::open(&factor.id.to_string(), &factor.secret, encryption)
                .map_err(|error| {
                    AuthError::internal("Database error verifying MFA TOTP secret", error)
                })?;
        let now = Utc::now().timestamp().max(0) as u64;
        if !totp_matches(&secret, &code, now) {
            return Err(AuthError::unprocessable(
                "mfa_verification_failed",
                "Invalid TOTP code entered",
            ));
        }
        if reencrypt {
            let sealed = db_encryption::seal(&factor.id.to_string(), &secret, encryption);
            store::set_factor_secret(&tx, factor.id, &sealed).await?;
        }
        let token = raise_to_aal2(auth, &ctx, &tx, &caller, &factor, challenge.id).await?;
        tx.commit().await?;
        Ok(Reply::Json(token))
    }
    .await;
    respond(&ctx, result)
}

/// A verified challenge: the factor is verified, the session `aal2` with `totp` in its
/// `amr` and a new refresh token (GoTrue's `updateMFASessionAndClaims`), weaker sessions
/// end and abandoned TOTP enrollments go. Returns the new session.
///
/// The new refresh token is random, not derived from the session's `aal1` token, so that
/// token can never be exchanged for the `aal2` one (presenting it again counts as reuse).
async fn raise_to_aal2(
    state: &AuthState,
    ctx: &Ctx,
    tx: &Tx<'_>,
    caller: &Caller,
    factor: &Factor,
    challenge_id: Uuid,
) -> AuthResult<Value> {
    let user_id = caller.user.id;
    let session = require_session(caller, "Cannot read SessionId claim as UUID")?;
    store::audit(
        tx,
        audit_entry(
            &caller.user,
            "verification_attempted",
            ctx,
            Some(json!({
                "factor_id": factor.id,
                "challenge_id": challenge_id,
                "factor_type": factor.factor_type,
            })),
        ),
    )
    .await?;
    store::verify_challenge(tx, challenge_id).await?;
    if !factor.is_verified() {
        store::set_factor_verified(tx, factor.id).await?;
    }
    // The session's row before its claims and tokens, the order of the transactions that
    // end sessions (a sign-out at the same moment waits, or is waited for).
    store::set_session_aal(tx, session.id, "aal2", Some(factor.id)).await?;
    store::add_amr_claim(tx, session.id, "totp").await?;
    let refresh_token = secrets::generate_refresh_token();
    let parent = store::active_refresh_token(tx, session.id)
        .await?
        .map(|(digest, _)| digest);
    store::revoke_session_tokens(tx, session.id).await?;
    store::insert_refresh_token(
        tx,
        user_id,
        session.id,
        &secrets::refresh_token_digest(&refresh_token),
        parent.as_deref(),
    )
    .await?;
    store::audit(tx, audit_entry(&caller.user, "token_revoked", ctx, None)).await?;
    let user = store::reload(tx, user_id).await?;
    let token =
        session::token_response(state, tx, &user, session.id, "aal2", &refresh_token).await?;
    store::delete_sessions_below_aal2(tx, user_id).await?;
    store::delete_unverified_factors(tx, user_id, &factor.factor_type).await?;
    Ok(token)
}

// ---------------------------------------------------------------------------------------
// DELETE /factors/{id}

pub async fn unenroll_handler(
    http: HttpRequest,
    path: web::Path<String>,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let auth = &state.auth;
        let mut connection = auth.connection().await?;
        let tx = connection.transaction().await?;
        let caller = caller(auth, &ctx, &tx).await?;
        let factor = load_factor(&tx, caller.user.id, &path).await?;
        let session = require_session(
            &caller,
            "A valid session and factor are required to unenroll a factor",
        )?;
        if factor.is_verified() && !is_aal2(&session) {
            return Err(AuthError::unprocessable(
                "insufficient_aal",
                "AAL2 required to unenroll verified factor",
            ));
        }
        store::delete_factor(&tx, caller.user.id, &factor).await?;
        store::audit(
            &tx,
            audit_entry(
                &caller.user,
                "factor_unenrolled",
                &ctx,
                Some(json!({
                    "factor_id": factor.id,
                    "factor_status": factor.status,
                    "session_id": session.id,
                })),
            ),
        )
        .await?;
        tx.commit().await?;
        Ok(Reply::Json(json!({"id": factor.id})))
    }
    .await;
    respond(&ctx, result)
}

// ---------------------------------------------------------------------------------------
// Admin

/// `GET /admin/users/{id}/factors` (`delete` is `None`): the user's factors;
/// `DELETE /admin/users/{id}/factors/{factor_id}`: removes one (its sessions go back to
/// `aal1`) and answers with it.
/// What an admin does with a user's factors.
#[derive(Debug, Clone, Copy)]
pub enum AdminFactorAction<'a> {
    List,
    Delete {
        factor: &'a str,
    },
    /// `PUT`: a new friendly name (`phone` only applies to phone factors, which are not
    /// offered).
    Update {
        factor: &'a str,
        friendly_name: &'a str,
    },
}

pub async fn admin_factors(
    state: &AuthState,
    ctx: &Ctx,
    user_id: Uuid,
    action: AdminFactorAction<'_>,
) -> AuthResult<Reply> {
    authn::require_admin(state, ctx)?;
    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    let user = store::user_by_id(&tx, user_id)
        .await?
        .ok_or_else(|| AuthError::not_found("user_not_found", "User not found"))?;
    let reply = match action {
        AdminFactorAction::List => Reply::Json(Value::Array(
            store::factors(&tx, user_id)
                .await?
                .into_iter()
                .map(|factor| factor.json)
                .collect(),
        )),
        AdminFactorAction::Delete { factor: raw } => {
            let factor = load_factor(&tx, user_id, raw).await?;
            store::audit(
                &tx,
                audit_entry(
                    &user,
                    "factor_deleted",
                    ctx,
                    Some(json!({"user_id": user_id, "factor_id": factor.id})),
                ),
            )
            .await?;
            store::delete_factor(&tx, user_id, &factor).await?;
            Reply::Json(factor.json)
        }
        AdminFactorAction::Update {
            factor: raw,
            friendly_name,
        } => {
            let mut factor = load_factor(&tx, user_id, raw).await?;
            if !friendly_name.is_empty() && friendly_name != factor.friendly_name {
                let taken = store::factors(&tx, user_id)
                    .await?
                    .iter()
                    .any(|other| other.friendly_name == friendly_name);
                if taken {
                    return Err(name_conflict(friendly_name));
                }
                factor = store::rename_factor(&tx, factor.id, friendly_name).await?;
            }
            store::audit(
                &tx,
                audit_entry(
                    &user,
                    "factor_updated",
                    ctx,
                    Some(json!({
                        "user_id": user_id,
                        "factor_id": factor.id,
                        "factor_type": factor.factor_type,
                    })),
                ),
            )
            .await?;
            Reply::Json(factor.json)
        }
    };
    tx.commit().await?;
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_issuer_too_long_for_a_qr_code_is_a_validation_error() {
        assert!(qr_svg("otpauth://totp/Cielo:ana@colegio.cl?secret=ABC").is_ok());
        let uri = format!(
            "otpauth://totp/{}:ana@colegio.cl?secret=ABC",
            "a".repeat(3000)
        );
        let error = qr_svg(&uri).unwrap_err();
        assert_eq!(
            (error.status.as_u16(), error.code),
            (400, "validation_failed")
        );
    }

    /// RFC 6238 appendix B, SHA-1, secret "12345678901234567890" (the 6-digit codes are
    /// the last six digits of the RFC's 8-digit ones).
    const RFC_SECRET: &[u8] = b"12345678901234567890";

    #[test]
    fn codes_follow_rfc_6238() {
        let base32 = totp_rs::Secret::from(RFC_SECRET).to_base32();
        assert_eq!(base32, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
        for (time, code) in [
            (59, "287082"),
            (1_111_111_109, "081804"),
            (1_111_111_111, "050471"),
            (1_234_567_890, "005924"),
            (2_000_000_000, "279037"),
        ] {
            assert_eq!(totp_code(&base32, time).as_deref(), Some(code), "{time}");
        }
    }

    #[test]
    fn one_step_of_skew_either_way() {
        let base32 = totp_rs::Secret::from(RFC_SECRET).to_base32();
        assert!(totp_matches(&base32, "081804", 1_111_111_109));
        assert!(totp_matches(&base32, "081804", 1_111_111_109 + 30));
        assert!(totp_matches(&base32, "081804", 1_111_111_109 - 30));
        assert!(!totp_matches(&base32, "081804", 1_111_111_109 + 90));
        assert!(!totp_matches(&base32, "123456", 1_111_111_109));
        assert!(!totp_matches(&base32, "81804", 1_111_111_109));
        assert!(!totp_matches(&base32, "+81804", 1_111_111_109));
        // Stored secrets are read leniently: lower case, padding.
        assert!(totp_matches(
            &format!("{}====", base32.to_lowercase()),
            "081804",
            1_111_111_109
        ));
        assert!(!totp_matches("not base32!", "081804", 1_111_111_109));
        assert!(!totp_matches("", "081804", 1_111_111_109));
    }

    #[test]
    fn otpauth_uris_are_pquernas() {
        assert_eq!(
            otpauth_uri("localhost:3000", "ana@colegio.cl", "ABC"),
            "otpauth://totp/localhost:3000:ana@colegio.cl?algorithm=SHA1&digits=6&issuer=localhost:3000&period=30&secret=ABC"
        );
        // Go escapes spaces as %20, `?` in the path, `/` in query values, and non-ASCII.
        assert_eq!(
            otpauth_uri("Cielo Chile/1", "a+b@c.cl", "ABC"),
            "otpauth://totp/Cielo%20Chile/1:a+b@c.cl?algorithm=SHA1&digits=6&issuer=Cielo%20Chile%2F1&period=30&secret=ABC"
        );
        assert_eq!(
            otpauth_uri("Año?", "x@y.cl", "ABC"),
            "otpauth://totp/A%C3%B1o%3F:x@y.cl?algorithm=SHA1&digits=6&issuer=A%C3%B1o%3F&period=30&secret=ABC"
        );
    }

    #[test]
    fn qr_codes_are_svg_fit_for_a_data_uri() {
        let svg = qr_svg("otpauth://totp/x:y?secret=ABC").unwrap();
        assert!(svg.starts_with("<?xml"), "{svg}");
        assert!(svg.contains("<svg"));
        assert!(!svg.contains('#'), "{svg}");
    }
}
