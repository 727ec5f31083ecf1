//! Sessions: creating them (session row, refresh token, AMR claim), and the access token
//! GoTrue issues for them.
//!
//! Access-token claims are exactly GoTrue's `AccessTokenClaims`: `iss`, `sub`, `aud`
//! (one string), `exp`, `iat`, `email`, `phone` (`""` when unset), `app_metadata`,
//! `user_metadata`, `role`, `aal`, `amr` (newest first), `session_id`, `is_anonymous`.
//! They are signed with the key ring's signing key (HS256 secret, or a keyed RS256/ES256
//! key with its `kid`).

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use uuid::Uuid;

use super::error::{AuthError, AuthResult};
use super::model::User;
use super::store::{self, Tx};
use super::{AuthState, Ctx};
use crate::identity::secrets;

/// GoTrue's authentication methods (the `amr` claim).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMethod {
    Password,
    Otp,
    MagicLink,
    Recovery,
    Invite,
    EmailSignup,
    EmailChange,
    Anonymous,
    TokenRefresh,
}

impl AuthMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            AuthMethod::Password => "password",
            AuthMethod::Otp => "otp",
            AuthMethod::MagicLink => "magiclink",
            AuthMethod::Recovery => "recovery",
            AuthMethod::Invite => "invite",
            AuthMethod::EmailSignup => "email/signup",
            AuthMethod::EmailChange => "email_change",
            AuthMethod::Anonymous => "anonymous",
            AuthMethod::TokenRefresh => "token_refresh",
        }
    }

    /// As GoTrue's `ParseAuthenticationMethod` (any `…signup` is `email/signup`).
    pub fn parse(raw: &str) -> Option<Self> {
        if raw.ends_with("signup") {
            return Some(AuthMethod::EmailSignup);
        }
        match raw {
            "password" => Some(AuthMethod::Password),
            "otp" => Some(AuthMethod::Otp),
            "magiclink" => Some(AuthMethod::MagicLink),
            "recovery" => Some(AuthMethod::Recovery),
            "invite" => Some(AuthMethod::Invite),
            "email_change" => Some(AuthMethod::EmailChange),
            "anonymous" => Some(AuthMethod::Anonymous),
            "token_refresh" => Some(AuthMethod::TokenRefresh),
            _ => None,
        }
    }
}

/// The claims of a user access token, valid `lifetime_secs` from `now`.
pub fn access_claims(
    issuer: &str,
    lifetime_secs: i64,
    user: &User,
    session_id: Uuid,
    aal: &str,
    amr: Vec<Value>,
    now: DateTime<Utc>,
) -> Value {
    let iat = now.timestamp();
    let exp = iat + lifetime_secs;
    json!({
        "iss": issuer,
        "sub": user.id,
        "aud": user.aud,
        "exp": exp,
        "iat": iat,
        "email": user.email(),
        "phone": user.phone(),
        "app_metadata": if user.app_metadata.is_object() { user.app_metadata.clone() } else { json!({}) },
        "user_metadata": if user.user_metadata.is_object() { user.user_metadata.clone() } else { json!({}) },
        "role": user.role,
        "aal": aal,
        "amr": amr,
        "session_id": session_id,
        "is_anonymous": user.is_anonymous,
    })
}

/// Signs claims with the current signing key.
pub fn sign(state: &AuthState, claims: &Value) -> AuthResult<String> {
    state
        .keys
        .ring()
        .load()
        .signing
        .sign(claims)
        .map_err(|error| AuthError::internal("error generating jwt token", error))
}

/// The token response (`AccessTokenResponse`) for a session.
pub async fn token_response(
    state: &AuthState,
    tx: &Tx<'_>,
    user: &User,
    session_id: Uuid,
    aal: &str,
    refresh_token: &str,
) -> AuthResult<Value> {
    let amr = store::amr_claims(tx, session_id).await?;
    token_response_with_amr(state, user, session_id, aal, amr, refresh_token)
}

/// The token response when the session's `amr` claims are already at hand.
pub fn token_response_with_amr(
    state: &AuthState,
    user: &User,
    session_id: Uuid,
    aal: &str,
    amr: Vec<Value>,
    refresh_token: &str,
) -> AuthResult<Value> {
    let claims = access_claims(
        &state.config().jwt_issuer,
        state.settings.jwt.expiry.as_secs() as i64,
        user,
        session_id,
        aal,
        amr,
        Utc::now(),
    );
    let access_token = sign(state, &claims)?;
    let expires_in = state.settings.jwt.expiry.as_secs() as i64;
    Ok(json!({
        "access_token": access_token,
        "token_type": "bearer",
        "expires_in": expires_in,
        "expires_at": claims["exp"],
        "refresh_token": refresh_token,
        "user": user.to_json(),
    }))
}

/// Signs `user` in: a new session with its first refresh token and the AMR claim for
/// `method`, `last_sign_in_at` updated. Returns the token response.
pub async fn issue(
    state: &AuthState,
    tx: &Tx<'_>,
    user_id: Uuid,
    method: AuthMethod,
    ctx: &Ctx,
) -> AuthResult<Value> {
    let session_id = Uuid::new_v4();
    let refresh_token = secrets::generate_refresh_token();
    let (user, amr) = store::start_session(
        tx,
        user_id,
        session_id,
        ctx.ip_for_db(),
        ctx.user_agent.as_deref(),
        &secrets::refresh_token_digest(&refresh_token),
        method.as_str(),
    )
    .await?
    .ok_or_else(AuthError::user_gone)?;
    token_response_with_amr(state, &user, session_id, "aal1", amr, &refresh_token)
}

/// The implicit-flow redirect GoTrue builds from a token response: the tokens in the
/// fragment, form-encoded with sorted keys, plus the `sb` marker and `type`.
pub fn fragment_redirect(redirect_to: &str, token: &Value, kind: &str) -> String {
    let text = |name: &str| match &token[name] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let mut pairs = vec![
        ("access_token", text("access_token")),
        ("expires_at", text("expires_at")),
        ("expires_in", text("expires_in")),
        ("refresh_token", text("refresh_token")),
        ("sb", String::new()),
        ("token_type", text("token_type")),
        ("type", kind.to_owned()),
    ];
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    let fragment: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    format!("{redirect_to}#{fragment}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_round_trip_like_gotrue() {
        for method in [
            AuthMethod::Password,
            AuthMethod::Otp,
            AuthMethod::MagicLink,
            AuthMethod::Recovery,
            AuthMethod::Invite,
            AuthMethod::EmailSignup,
            AuthMethod::EmailChange,
            AuthMethod::Anonymous,
            AuthMethod::TokenRefresh,
        ] {
            assert_eq!(AuthMethod::parse(method.as_str()), Some(method));
        }
        assert_eq!(AuthMethod::parse("signup"), Some(AuthMethod::EmailSignup));
        assert_eq!(AuthMethod::parse("sso/saml"), None);
    }

    #[test]
    fn claims_are_exactly_gotrues() {
        let user = crate::auth_v1::model::tests::sample_user();
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let session = Uuid::from_u128(7);
        let amr = vec![json!({"method": "password", "timestamp": 1_700_000_000})];
        let claims = access_claims(
            "https://api.cielo.cl/auth/v1",
            3600,
            &user,
            session,
            "aal1",
            amr,
            now,
        );
        assert_eq!(
            claims,
            json!({
                "iss": "https://api.cielo.cl/auth/v1",
                "sub": user.id,
                "aud": "authenticated",
                "exp": 1_700_003_600,
                "iat": 1_700_000_000,
                "email": "ana@colegio.cl",
                "phone": "",
                "app_metadata": {"provider": "email", "providers": ["email"]},
                "user_metadata": {},
                "role": "authenticated",
                "aal": "aal1",
                "amr": [{"method": "password", "timestamp": 1_700_000_000}],
                "session_id": session,
                "is_anonymous": false,
            })
        );
    }

    #[test]
    fn implicit_redirects_put_tokens_in_the_fragment() {
        let token = json!({
            "access_token": "a.b.c", "token_type": "bearer", "expires_in": 3600,
            "expires_at": 1700003600, "refresh_token": "r1",
        });
        assert_eq!(
            fragment_redirect("http://localhost:3000/confirm-email", &token, "signup"),
            "http://localhost:3000/confirm-email#access_token=a.b.c&expires_at=1700003600&expires_in=3600&refresh_token=r1&sb=&token_type=bearer&type=signup"
        );
    }
}
