//! `POST /signup`: new e-mail (or phone) accounts with a password, and anonymous sign-in
//! (a sign-up without e-mail and phone), as GoTrue's `signup.go` and `anonymous.go`.
//!
//! With confirmations on (the default) the answer is the unconfirmed user and a
//! confirmation mail goes out; with `ENABLE_EMAIL_AUTOCONFIRM` it is a session. Signing up
//! again with a confirmed address answers a fake fresh user (confirmations on) or 422
//! `user_already_exists` (autoconfirm), exactly as GoTrue, so the API does not tell who
//! has an account. The password is hashed whether or not the account exists.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::error::{AuthError, AuthResult};
use super::mailing::{self, Flow};
use super::model::User;
use super::rate_limit::Limit;
use super::session::{self, AuthMethod};
use super::store::{self, AuditEntry, NewUser, Tx};
use super::{
    AuthState, Ctx, Reply, parse_json, read_body, respond, validate_email, validate_phone,
};
use crate::identity::secrets;
use crate::state::AppState;

#[derive(Debug, Default, Deserialize)]
pub struct SignupParams {
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub phone: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
    #[serde(default)]
    pub data: Option<Map<String, Value>>,
    #[serde(default)]
    pub channel: Option<String>,
    #[serde(default)]
    pub code_challenge: Option<String>,
    #[serde(default)]
    pub code_challenge_method: Option<String>,
}

pub async fn handler(
    http: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let body = read_body(payload).await?;
        let params: SignupParams = parse_json(&body)?;
        signup(&state.auth, &ctx, params).await
    }
    .await;
    respond(&ctx, result)
}

/// GoTrue's PKCE parameter rules: both or neither, and a well-formed challenge.
pub fn check_pkce_params(challenge: Option<&str>, method: Option<&str>) -> AuthResult<()> {
    let challenge = challenge.unwrap_or_default();
    let method = method.unwrap_or_default();
    if challenge.is_empty() != method.is_empty() {
        return Err(AuthError::validation(
            "PKCE flow requires code_challenge_method and code_challenge",
        ));
    }
    if !challenge.is_empty() {
        secrets::check_code_challenge(challenge).map_err(AuthError::validation)?;
        if secrets::ChallengeMethod::parse(method).is_none() {
            return Err(AuthError::validation(format!(
                "unsupported code_challenge method {method:?}"
            )));
        }
    }
    Ok(())
}

/// Records a PKCE flow for `user` when the request carries a code challenge.
pub async fn save_flow_state(
    tx: &Tx<'_>,
    user_id: Uuid,
    provider: &str,
    method: AuthMethod,
    challenge: Option<&str>,
    challenge_method: Option<&str>,
) -> AuthResult<()> {
    if let (Some(challenge), Some(challenge_method)) = (
        challenge.filter(|c| !c.is_empty()),
        challenge_method.and_then(secrets::ChallengeMethod::parse),
    ) {
        store::insert_flow_state(
            tx,
            user_id,
            provider,
            method.as_str(),
            challenge,
            challenge_method.as_str(),
        )
        .await?;
    }
    Ok(())
}

/// GoTrue's identity data for an e-mail/phone identity: `sub`, `email`/`phone`,
/// verification flags, then the sign-up data that does not clash.
pub fn identity_data(
    user_id: Uuid,
    email: Option<&str>,
    phone: Option<&str>,
    data: &Map<String, Value>,
) -> Value {
    let mut identity = Map::new();
    identity.insert("sub".into(), json!(user_id));
    if let Some(email) = email {
        identity.insert("email".into(), json!(email));
    }
    if let Some(phone) = phone {
        identity.insert("phone".into(), json!(phone));
    }
    identity.insert("email_verified".into(), json!(false));
    identity.insert("phone_verified".into(), json!(false));
    for (key, value) in data {
        identity.entry(key.clone()).or_insert_with(|| value.clone());
    }
    Value::Object(identity)
}

pub fn audit_entry<'a>(
    user: &'a User,
    action: &'static str,
    ctx: &'a Ctx,
    traits: Option<Value>,
) -> AuditEntry<'a> {
    AuditEntry {
        actor_id: user.id,
        actor_username: if user.phone().is_empty() {
            user.email()
        } else {
            user.phone()
        },
        action,
        traits,
        ip: &ctx.client_ip,
    }
}

/// Creates a user with its e-mail or phone identity (GoTrue's `signupNewUser` +
/// `createNewIdentity`); the user metadata becomes the identity data, as GoTrue's
/// `RemoveUnconfirmedIdentities` leaves it.
pub async fn create_user(
    state: &AuthState,
    tx: &Tx<'_>,
    email: Option<&str>,
    phone: Option<&str>,
    password_hash: Option<String>,
    data: &Map<String, Value>,
) -> AuthResult<User> {
    let id = Uuid::new_v4();
    let provider = if email.is_some() { "email" } else { "phone" };
    let identity = identity_data(id, email, phone, data);
    let new = NewUser {
        id,
        aud: state.config().jwt_aud.clone(),
        role: state.config().default_role.clone(),
        email: email.map(str::to_owned),
        phone: phone.map(str::to_owned),
        password_hash,
        app_metadata: json!({"provider": provider, "providers": [provider]}),
        user_metadata: identity.clone(),
        is_anonymous: false,
    };
    store::insert_user(tx, &new).await?;
    store::insert_identity(tx, id, provider, &id.to_string(), &identity).await?;
    store::reload(tx, id).await
}

async fn signup(state: &AuthState, ctx: &Ctx, params: SignupParams) -> AuthResult<Reply> {
    let email = params.email.clone().unwrap_or_default();
    let phone = params.phone.clone().unwrap_or_default();
    if email.is_empty() && phone.is_empty() {
        return anonymous(state, ctx, params).await;
    }
    state.check_rate(
        Limit::Otp,
        ctx,
        Some(&email).filter(|e| !e.is_empty()).map(String::as_str),
    )?;
    let config = state.config();
    if config.disable_signup {
        return Err(AuthError::unprocessable(
            "signup_disabled",
            "Signups not allowed for this instance",
        ));
    }
    let password = params.password.clone().unwrap_or_default();
    if password.is_empty() {
        return Err(AuthError::validation("Signup requires a valid password"));
    }
    state.password_rules.check(&password)?;
    if !email.is_empty() && !phone.is_empty() {
        return Err(AuthError::validation(
            "Only an email address or phone number should be provided on signup.",
        ));
    }
    if !phone.is_empty()
        && params
            .code_challenge
            .as_deref()
            .is_some_and(|c| !c.is_empty())
    {
        return Err(AuthError::validation(
            "PKCE not supported for phone signups",
        ));
    }
    check_pkce_params(
        params.code_challenge.as_deref(),
        params.code_challenge_method.as_deref(),
    )?;
    let data = params.data.clone().unwrap_or_default();
    let flow = Flow::from_challenge(params.code_challenge.as_deref());

    let (email, phone) = if !email.is_empty() {
        if !config.email_enabled {
            return Err(AuthError::bad_request(
                "email_provider_disabled",
                "Email signups are disabled",
            ));
        }
        (Some(validate_email(&email)?), None)
    } else {
        if !config.phone_enabled {
            return Err(AuthError::bad_request(
                "phone_provider_disabled",
                "Phone signups are disabled",
            ));
        }
        (None, Some(validate_phone(&phone)?))
    };
    let provider = if email.is_some() { "email" } else { "phone" };
    // Hash before the transaction (it is slow) and for existing users too (timing).
    let hash = state.hasher.hash(&password).await?;

    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    let aud = &config.jwt_aud;
    if let Some(address) = email.as_deref().or(phone.as_deref()) {
        store::lock_address(&tx, address).await?;
    }
    let existing = match (&email, &phone) {
        (Some(email), _) => store::user_by_email(&tx, email, aud).await?,
        (None, Some(phone)) => store::user_by_phone(&tx, phone, aud).await?,
        _ => None,
    };
    let user = match existing {
        Some(user)
            if (provider == "email" && user.is_confirmed())
                || (provider == "phone" && user.is_phone_confirmed()) =>
        {
            store::audit(
                &tx,
                audit_entry(
                    &user,
                    "user_repeated_signup",
                    ctx,
                    Some(json!({"provider": provider})),
                ),
            )
            .await?;
            tx.commit().await?;
            if config.autoconfirm || config.phone_autoconfirm {
                return Err(AuthError::unprocessable(
                    "user_already_exists",
                    "User already registered",
                ));
            }
            return Ok(Reply::Json(
                user.obfuscated_json(&Value::Object(data), provider),
            ));
        }
        // Unconfirmed: the claimed identity is not proven, so the row is left as it is and
        // the confirmation is sent again.
        Some(user) => user,
        None => {
            create_user(
                state,
                &tx,
                email.as_deref(),
                phone.as_deref(),
                Some(hash),
                &data,
            )
            .await?
        }
    };

    if provider == "email" && !user.is_confirmed() {
        if config.autoconfirm {
            store::audit(
                &tx,
                audit_entry(
                    &user,
                    "user_signedup",
                    ctx,
                    Some(json!({"provider": provider})),
                ),
            )
            .await?;
            store::confirm_email(&tx, user.id).await?;
        } else {
            store::audit(
                &tx,
                audit_entry(
                    &user,
                    "user_confirmation_requested",
                    ctx,
                    Some(json!({"provider": provider})),
                ),
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
    } else if provider == "phone" && !user.is_phone_confirmed() {
        if config.phone_autoconfirm {
            store::audit(
                &tx,
                audit_entry(
                    &user,
                    "user_signedup",
                    ctx,
                    Some(json!({"provider": provider})),
                ),
            )
            .await?;
            let now = chrono::Utc::now();
            store::update_user(&tx, user.id, &[(store::Col::PhoneConfirmedAt, &now)]).await?;
        } else {
            return Err(AuthError::new(
                actix_web::http::StatusCode::INTERNAL_SERVER_ERROR,
                "sms_send_failed",
                "Error sending confirmation OTP to provider: no SMS provider is configured",
            ));
        }
    }

    let user = store::reload(&tx, user.id).await?;
    if user.is_confirmed() || user.is_phone_confirmed() {
        store::audit(
            &tx,
            audit_entry(&user, "login", ctx, Some(json!({"provider": provider}))),
        )
        .await?;
        let token = session::issue(state, &tx, user.id, AuthMethod::Password, ctx).await?;
        tx.commit().await?;
        return Ok(Reply::Json(token));
    }
    tx.commit().await?;
    let mut body = user.to_json();
    if user.invited_at.is_some() {
        body["user_metadata"] = json!({});
        body["identities"] = json!([]);
    }
    Ok(Reply::Json(body))
}

/// GoTrue's `SignupAnonymously`.
async fn anonymous(state: &AuthState, ctx: &Ctx, params: SignupParams) -> AuthResult<Reply> {
    let config = state.config();
    if !config.anonymous_enabled {
        return Err(AuthError::unprocessable(
            "anonymous_provider_disabled",
            "Anonymous sign-ins are disabled",
        ));
    }
    state.check_rate(Limit::Anonymous, ctx, None)?;
    if config.disable_signup {
        return Err(AuthError::unprocessable(
            "signup_disabled",
            "Signups not allowed for this instance",
        ));
    }
    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    let id = Uuid::new_v4();
    let new = NewUser {
        id,
        aud: config.jwt_aud.clone(),
        role: config.default_role.clone(),
        email: None,
        phone: None,
        password_hash: None,
        app_metadata: json!({}),
        user_metadata: Value::Object(params.data.unwrap_or_default()),
        is_anonymous: true,
    };
    store::insert_user(&tx, &new).await?;
    let token = session::issue(state, &tx, id, AuthMethod::Anonymous, ctx).await?;
    tx.commit().await?;
    Ok(Reply::Json(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_data_is_gotrues() {
        let id = Uuid::nil();
        let mut data = Map::new();
        data.insert("nombre".into(), json!("Ana"));
        data.insert("email".into(), json!("spoof@x.cl"));
        let identity = identity_data(id, Some("ana@colegio.cl"), None, &data);
        assert_eq!(
            identity,
            json!({
                "sub": id, "email": "ana@colegio.cl", "email_verified": false,
                "phone_verified": false, "nombre": "Ana"
            })
        );
    }

    #[test]
    fn pkce_params_come_in_pairs() {
        let challenge = "a".repeat(43);
        assert!(check_pkce_params(None, None).is_ok());
        assert!(check_pkce_params(Some(""), Some("")).is_ok());
        assert!(check_pkce_params(Some(&challenge), Some("s256")).is_ok());
        assert_eq!(
            check_pkce_params(Some(&challenge), None)
                .unwrap_err()
                .message,
            "PKCE flow requires code_challenge_method and code_challenge"
        );
        assert!(check_pkce_params(Some("short"), Some("s256")).is_err());
        assert!(check_pkce_params(Some(&challenge), Some("md5")).is_err());
    }
}
