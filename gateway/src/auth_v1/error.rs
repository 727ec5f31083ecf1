//! Every auth/v1 failure, written in GoTrue's wire format.
//!
//! GoTrue picks the body by the request's `X-Supabase-Api-Version` header: from
//! `2024-01-01` on (what auth-js always sends) it is `{"code":"<error_code>","message":…}`
//! and the response echoes the header; without it the legacy
//! `{"code":<status>,"error_code":…,"msg":…}` (plus `error_id` on 5xx). Both carry
//! `x-sb-error-code`. Weak passwords add `weak_password.reasons`. Internal causes are logged
//! with the request and never sent to the client.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use serde_json::{Value, json};

use crate::identity::TokenError;
use crate::identity::jwt::VerifyError;
use crate::identity::time_claims::TimeClaimError;

/// The API version of the request, as GoTrue determines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiVersion {
    /// No (or an unparsable, or an older) `X-Supabase-Api-Version`.
    Initial,
    /// `2024-01-01` or later.
    V20240101,
}

impl ApiVersion {
    pub fn from_header(value: Option<&str>) -> Self {
        let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
            return Self::Initial;
        };
        match chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d") {
            Ok(date) if date >= chrono::NaiveDate::from_ymd_opt(2024, 1, 1).unwrap_or_default() => {
                Self::V20240101
            }
            _ => Self::Initial,
        }
    }
}

/// One auth/v1 failure: HTTP status, GoTrue error code, message.
#[derive(Debug, Clone)]
pub struct AuthError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// `weak_password` reasons (422 only).
    pub weak_password: Option<Vec<&'static str>>,
}

impl std::fmt::Display for AuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status.as_u16(),
            self.code,
            self.message
        )
    }
}

impl std::error::Error for AuthError {}

pub type AuthResult<T> = Result<T, AuthError>;

impl AuthError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            weak_password: None,
        }
    }

    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }

    pub fn validation(message: impl Into<String>) -> Self {
        Self::bad_request("validation_failed", message)
    }

    pub fn unprocessable(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, code, message)
    }

    pub fn forbidden(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, code, message)
    }

    pub fn not_found(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, code, message)
    }

    pub fn too_many(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::TOO_MANY_REQUESTS, code, message)
    }

    /// The user this request was working on was deleted by another request meanwhile.
    pub fn user_gone() -> Self {
        Self::not_found("user_not_found", "User not found")
    }

    /// The user an access token names does not exist (any more).
    pub fn token_user_gone() -> Self {
        Self::forbidden(
            "user_not_found",
            "User from sub claim in JWT does not exist",
        )
    }

    /// The session an access token names does not exist (any more).
    pub fn token_session_gone() -> Self {
        Self::forbidden(
            "session_not_found",
            "Session from session_id claim in JWT does not exist",
        )
    }

    pub fn invalid_credentials() -> Self {
        Self::bad_request("invalid_credentials", "Invalid login credentials")
    }

    pub fn otp_expired() -> Self {
        Self::forbidden("otp_expired", "Token has expired or is invalid")
    }

    pub fn email_link_expired() -> Self {
        Self::forbidden("otp_expired", "Email link is invalid or has expired")
    }

    pub fn request_rate_limit() -> Self {
        Self::too_many("over_request_rate_limit", "Request rate limit reached")
    }

    pub fn email_rate_limit() -> Self {
        Self::too_many("over_email_send_rate_limit", "email rate limit exceeded")
    }

    pub fn weak_password(message: String, reasons: Vec<&'static str>) -> Self {
        Self {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code: "weak_password",
            message,
            weak_password: Some(reasons),
        }
    }

    /// A failure of ours: the cause is logged here, the client gets `message` only.
    pub fn internal(message: &str, cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "{message}");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "unexpected_failure",
            message,
        )
    }

    /// The OAuth word GoTrue puts in `error=` of redirects for this status.
    pub fn oauth_error(&self) -> Option<&'static str> {
        match self.status.as_u16() {
            400 => Some("invalid_request"),
            401 => Some("unauthorized_client"),
            403 => Some("access_denied"),
            500 => Some("server_error"),
            503 => Some("temporarily_unavailable"),
            _ => None,
        }
    }

    /// The JSON body for `version`.
    pub fn body(&self, version: ApiVersion, request_id: Option<&str>) -> Value {
        let mut body = match version {
            ApiVersion::V20240101 => json!({"code": self.code, "message": self.message}),
            ApiVersion::Initial => {
                let mut body = json!({
                    "code": self.status.as_u16(),
                    "error_code": self.code,
                    "msg": self.message,
                });
                if self.status.is_server_error()
                    && let Some(id) = request_id
                {
                    body["error_id"] = json!(id);
                }
                body
            }
        };
        if let Some(reasons) = &self.weak_password {
            body["weak_password"] = json!({ "reasons": reasons });
        }
        body
    }

    pub fn response(&self, version: ApiVersion, request_id: Option<&str>) -> HttpResponse {
        let mut response = HttpResponse::build(self.status);
        response.insert_header(("x-sb-error-code", self.code));
        if version == ApiVersion::V20240101 {
            response.insert_header(("x-supabase-api-version", "2024-01-01"));
        }
        response.json(self.body(version, request_id))
    }
}

/// GoTrue's messages for an e-mail or a phone that another user has.
pub const DUPLICATE_EMAIL: &str = "A user with this email address has already been registered";
pub const DUPLICATE_PHONE: &str = "Phone number already registered by another user";

/// What a request gets for a NUL character in its text or JSON values.
pub const NUL_CHARACTER: &str = "Text and JSON values must not contain the NUL character (\\u0000)";

impl From<tokio_postgres::Error> for AuthError {
    fn from(error: tokio_postgres::Error) -> Self {
        // Rust strings are valid UTF-8, so the only text PostgreSQL refuses is the NUL
        // character (22021 in text, 22P05 as `\u0000` in JSON): the request's input, which
        // GoTrue lets fail as a 500, is answered as the validation error it is.
        if let Some("22021" | "22P05") = error.as_db_error().map(|db| db.code().code()) {
            return AuthError::validation(NUL_CHARACTER);
        }
        // An address another request wrote between this one's check and its own write (the
        // writes that create users are serialized per address; changes of address are not):
        // the answer the check gives once that request has committed.
        match error.as_db_error().and_then(|db| db.constraint()) {
            Some("users_email_partial_key") => {
                return AuthError::unprocessable("email_exists", DUPLICATE_EMAIL);
            }
            Some("users_phone_key") => {
                return AuthError::unprocessable("phone_exists", DUPLICATE_PHONE);
            }
            _ => {}
        }
        // A row this request adds belongs to a user or session another request deleted after
        // this one had read it (a user deleted by an admin during an enrollment, a sign-out
        // during an MFA verification): the answer once that deletion has committed.
        if let Some(db) = error.as_db_error()
            && db.code().code() == "23503"
            && let Some(gone) = db.constraint().and_then(deleted_parent)
        {
            return gone;
        }
        let detail = match error.as_db_error() {
            Some(db) => format!(
                "{} {}{}",
                db.code().code(),
                db.message(),
                db.detail().map(|d| format!(" ({d})")).unwrap_or_default()
            ),
            None => format!("{error:?}"),
        };
        AuthError::internal("Database error", detail)
    }
}

/// The answer for a foreign key of auth's tables whose parent row is gone.
fn deleted_parent(constraint: &str) -> Option<AuthError> {
    match constraint {
        // Only the signed-in user enrolls a factor: what the token's next request gets.
        "mfa_factors_user_id_fkey" => Some(AuthError::token_user_gone()),
        "identities_user_id_fkey" | "sessions_user_id_fkey" | "one_time_tokens_user_id_fkey" => {
            Some(AuthError::user_gone())
        }
        "refresh_tokens_session_id_fkey" | "mfa_amr_claims_session_id_fkey" => {
            Some(AuthError::token_session_gone())
        }
        _ => None,
    }
}

impl From<deadpool_postgres::PoolError> for AuthError {
    fn from(error: deadpool_postgres::PoolError) -> Self {
        AuthError::internal("Database error", error)
    }
}

impl From<TokenError> for AuthError {
    /// A refused bearer token in GoTrue's words: 403 `bad_jwt`.
    fn from(error: TokenError) -> Self {
        let reason = match error {
            TokenError::Signature(VerifyError::Parts(_) | VerifyError::Malformed) => {
                "token is malformed: could not base64 decode header or claims".to_owned()
            }
            TokenError::Signature(VerifyError::Unsecured) => {
                "token is unverifiable: 'none' signature type is not allowed".to_owned()
            }
            TokenError::Signature(VerifyError::NoSuitableKey) => {
                "token is unverifiable: no key matches the token's alg and kid".to_owned()
            }
            TokenError::Signature(VerifyError::BadSignature) => {
                "token signature is invalid: signature is invalid".to_owned()
            }
            TokenError::TimeClaims(TimeClaimError::NotANumber(name)) => {
                format!("token has invalid claims: could not parse '{name}'")
            }
            TokenError::TimeClaims(TimeClaimError::Expired) => {
                "token has invalid claims: token is expired".to_owned()
            }
            TokenError::TimeClaims(TimeClaimError::NotYetValid) => {
                "token has invalid claims: token is not valid yet".to_owned()
            }
            TokenError::TimeClaims(TimeClaimError::IssuedInFuture) => {
                "token has invalid claims: token used before issued".to_owned()
            }
        };
        AuthError::forbidden(
            "bad_jwt",
            format!("invalid JWT: unable to parse or verify signature, {reason}"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_version_follows_the_header_date() {
        assert_eq!(ApiVersion::from_header(None), ApiVersion::Initial);
        assert_eq!(ApiVersion::from_header(Some("")), ApiVersion::Initial);
        assert_eq!(
            ApiVersion::from_header(Some("nonsense")),
            ApiVersion::Initial
        );
        assert_eq!(
            ApiVersion::from_header(Some("2023-12-31")),
            ApiVersion::Initial
        );
        assert_eq!(
            ApiVersion::from_header(Some("2024-01-01")),
            ApiVersion::V20240101
        );
        assert_eq!(
            ApiVersion::from_header(Some("2025-06-30")),
            ApiVersion::V20240101
        );
    }

    #[test]
    fn bodies_follow_gotrues_two_shapes() {
        let error = AuthError::invalid_credentials();
        assert_eq!(
            error.body(ApiVersion::V20240101, None),
            json!({"code": "invalid_credentials", "message": "Invalid login credentials"})
        );
        assert_eq!(
            error.body(ApiVersion::Initial, Some("req-1")),
            json!({"code": 400, "error_code": "invalid_credentials", "msg": "Invalid login credentials"})
        );
        let internal = AuthError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "unexpected_failure",
            "Database error",
        );
        assert_eq!(
            internal.body(ApiVersion::Initial, Some("req-1"))["error_id"],
            "req-1"
        );
    }

    #[test]
    fn weak_passwords_carry_their_reasons() {
        let error = AuthError::weak_password(
            "Password should be at least 6 characters.".into(),
            vec!["length"],
        );
        assert_eq!(error.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            error.body(ApiVersion::V20240101, None),
            json!({
                "code": "weak_password",
                "message": "Password should be at least 6 characters.",
                "weak_password": {"reasons": ["length"]}
            })
        );
    }

    #[test]
    fn oauth_words_for_redirects() {
        assert_eq!(
            AuthError::otp_expired().oauth_error(),
            Some("access_denied")
        );
        assert_eq!(
            AuthError::validation("x").oauth_error(),
            Some("invalid_request")
        );
        assert_eq!(AuthError::email_rate_limit().oauth_error(), None);
    }
}
