//! auth/v1: the GoTrue-compatible authentication API.
//!
//! Each endpoint lives in the module of its concern (`signup`, `token`, `verify`, `user`,
//! `otp`, `admin`, …): the actix handler turns the HTTP request into a [`Ctx`] and a body,
//! the concern's service function does the work in one database transaction through
//! [`store`] (the only SQL), and every failure is an [`error::AuthError`] written in
//! GoTrue's wire format. Shared pieces: [`session`] issues sessions and JWTs, [`authn`]
//! checks bearer tokens, [`password`] hashes off the async workers, [`rate_limit`],
//! [`redirect`], [`crate::identity::secrets`], and the mailer in [`crate::mail`].

pub mod admin;
pub mod authn;
pub mod db_encryption;
pub mod disabled;
pub mod error;
pub mod mailing;
pub mod mfa;
pub mod model;
pub mod otp;
pub mod password;
pub mod rate_limit;
pub mod redirect;
pub mod session;
pub mod signup;
pub mod store;
pub mod token;
pub mod user;
pub mod verify;

use std::sync::Arc;
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use self::disabled::Feature;
use self::error::{ApiVersion, AuthError, AuthResult};
use self::password::{PasswordHasher, PasswordRules};
use self::rate_limit::{Limit, RateLimits};
use self::redirect::RedirectPolicy;
use crate::config::{AuthSettings, Settings};
use crate::db::thread_pools::ThreadPools;
use crate::identity::{Credentials, ProjectKeys, signing_keys};
use crate::mail::Mailer;
use crate::mail::templates::{TemplateError, Templates};
use crate::state::{AppState, VERSION};
use crate::telemetry::RequestId;

/// GoTrue's request body limit.
const MAX_BODY_BYTES: usize = 1 << 20;

/// Everything auth/v1 keeps between requests.
#[derive(Debug)]
pub struct AuthState {
    pub settings: Arc<Settings>,
    /// Shared connections for background work (signing keys).
    pub pool: deadpool_postgres::Pool,
    /// Request connections, per thread.
    pub pools: ThreadPools,
    pub keys: ProjectKeys,
    pub hasher: PasswordHasher,
    pub limits: RateLimits,
    pub mailer: Mailer,
    pub templates: Templates,
    pub redirects: RedirectPolicy,
    pub password_rules: PasswordRules,
}

#[derive(Debug, thiserror::Error)]
pub enum AuthStartError {
    #[error(transparent)]
    Mail(#[from] crate::mail::MailError),
    #[error(transparent)]
    Template(#[from] TemplateError),
    #[error(transparent)]
    SigningKeys(#[from] signing_keys::SigningKeyError),
    #[error("could not start the password hashing threads: {0}")]
    Hasher(#[source] std::io::Error),
}

impl AuthState {
    /// Builds the state, loads (or creates) the managed signing keys and starts the
    /// background upkeep (key reloads, idle rate-limit buckets).
    pub async fn start(
        settings: Arc<Settings>,
        keys: ProjectKeys,
        pool: deadpool_postgres::Pool,
        pools: ThreadPools,
    ) -> Result<Arc<Self>, AuthStartError> {
        let auth = &settings.auth;
        let state = Arc::new(Self {
            pool: pool.clone(),
            pools,
            hasher: PasswordHasher::new(auth.hash_concurrency).map_err(AuthStartError::Hasher)?,
            limits: RateLimits::new(&auth.rate_limits),
            mailer: Mailer::from_settings(&settings.smtp)?,
            templates: Templates::load(&auth.templates)?,
            redirects: RedirectPolicy::new(
                settings.api.site_url.clone(),
                settings.api.additional_redirect_urls.clone(),
            ),
            password_rules: PasswordRules {
                min_length: auth.password_min_length,
                required_characters: auth.password_required_characters.clone(),
            },
            keys: keys.clone(),
            settings: settings.clone(),
        });
        if !keys.ring_is_configured() {
            signing_keys::bootstrap(&pool, &keys, &settings.jwt.signing_alg).await?;
            tokio::spawn(signing_keys::keep_current(pool, keys));
        }
        let upkeep = Arc::downgrade(&state);
        tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_secs(60));
            loop {
                every.tick().await;
                match upkeep.upgrade() {
                    Some(state) => state.limits.forget_idle(),
                    None => return,
                }
            }
        });
        Ok(state)
    }

    pub fn config(&self) -> &AuthSettings {
        &self.settings.auth
    }

    /// One transaction for a request.
    pub async fn connection(&self) -> AuthResult<deadpool_postgres::Object> {
        let pool = self
            .pools
            .current()
            .map_err(|error| AuthError::internal("Database error", error))?;
        Ok(pool.get().await?)
    }

    /// 429 `over_request_rate_limit` when the client (or the address) is over `limit`.
    pub fn check_rate(&self, limit: Limit, ctx: &Ctx, email: Option<&str>) -> AuthResult<()> {
        if self.limits.allow_request(limit, &ctx.client_ip, email) {
            Ok(())
        } else {
            Err(AuthError::request_rate_limit())
        }
    }
}

/// What a handler needs to know about the HTTP request.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub version: ApiVersion,
    pub client_ip: String,
    pub user_agent: Option<String>,
    pub request_id: Option<String>,
    /// `redirect_to` of the query string (or GoTrue's `redirect_to` header).
    pub redirect_to: Option<String>,
    /// The bearer token of the `Authorization` header, after the API gateway's mapping of
    /// opaque keys.
    pub bearer: Option<String>,
    pub query: Vec<(String, String)>,
    pub path: String,
}

impl Ctx {
    pub fn from_request(http: &HttpRequest, settings: &AuthSettings) -> Self {
        let headers = http.headers();
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
        };
        let query: Vec<(String, String)> =
            url::form_urlencoded::parse(http.query_string().as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
        let client_ip = crate::edge::client_address::client_address(
            http,
            settings.rate_limits.header.as_deref(),
        );
        let redirect_to = header("redirect_to").or_else(|| {
            query
                .iter()
                .find(|(name, _)| name == "redirect_to")
                .map(|(_, value)| value.clone())
        });
        Self {
            version: ApiVersion::from_header(header("x-supabase-api-version").as_deref()),
            client_ip,
            user_agent: header("user-agent"),
            request_id: http
                .extensions()
                .get::<RequestId>()
                .map(ToString::to_string),
            redirect_to: redirect_to.filter(|value| !value.is_empty()),
            // Only a sent Authorization counts (opaque `sb_` keys in it mapped to their JWT):
            // GoTrue behind Supabase's gateway never takes the apikey for a user token.
            bearer: header("authorization")
                .filter(|value| !value.trim().is_empty())
                .and_then(|_| {
                    http.extensions()
                        .get::<Credentials>()
                        .and_then(|credentials| credentials.bearer.clone())
                }),
            query,
            path: http.path().to_owned(),
        }
    }

    pub fn query(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The client address for `inet` columns (`None` when it is not an IP literal).
    pub fn ip_for_db(&self) -> Option<&str> {
        self.client_ip
            .parse::<std::net::IpAddr>()
            .ok()
            .map(|_| self.client_ip.as_str())
    }
}

/// A successful answer.
#[derive(Debug)]
pub enum Reply {
    Json(Value),
    NoContent,
    /// 303 See Other, as GoTrue answers browser redirects.
    Redirect(String),
    /// JSON with extra headers (pagination).
    JsonWithHeaders(Value, Vec<(&'static str, String)>),
}

/// Writes a reply or an error, echoing the API version like GoTrue.
pub fn respond(ctx: &Ctx, result: AuthResult<Reply>) -> HttpResponse {
    let mut response = match result {
        Ok(Reply::Json(body)) => HttpResponse::Ok().json(body),
        Ok(Reply::JsonWithHeaders(body, headers)) => {
            let mut builder = HttpResponse::Ok();
            for (name, value) in headers {
                builder.insert_header((name, value));
            }
            builder.json(body)
        }
        Ok(Reply::NoContent) => HttpResponse::NoContent().finish(),
        Ok(Reply::Redirect(location)) => HttpResponse::SeeOther()
            .insert_header((header::LOCATION, location))
            .finish(),
        Err(error) => return error.response(ctx.version, ctx.request_id.as_deref()),
    };
    if ctx.version == ApiVersion::V20240101 {
        response.headers_mut().insert(
            header::HeaderName::from_static("x-supabase-api-version"),
            HeaderValue::from_static("2024-01-01"),
        );
    }
    response
}

/// The request body, refused with 413 past GoTrue's 1 MB limit.
pub async fn read_body(mut payload: web::Payload) -> AuthResult<web::Bytes> {
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|error| AuthError::validation(error.to_string()))?;
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(AuthError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "request_entity_too_large",
                format!("Request body too large (max {MAX_BODY_BYTES} bytes)"),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// Parses a JSON body into `T` (unknown keys ignored), or 400 `bad_json`.
pub fn parse_json<T: DeserializeOwned>(body: &[u8]) -> AuthResult<T> {
    serde_json::from_slice(body).map_err(|error| {
        AuthError::bad_request(
            "bad_json",
            format!("Could not parse request body as JSON: {error}"),
        )
    })
}

/// GoTrue's e-mail check: present, at most 255 characters, a plausible address;
/// returned lower-cased.
pub fn validate_email(email: &str) -> AuthResult<String> {
    if email.is_empty() {
        return Err(AuthError::validation("An email address is required"));
    }
    if email.len() > 255 {
        return Err(AuthError::validation("An email address is too long"));
    }
    static PATTERN: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$",
        )
        .ok()
    });
    let valid = PATTERN
        .as_ref()
        .is_some_and(|pattern| pattern.is_match(email));
    if !valid {
        return Err(AuthError::validation(
            "Unable to validate email address: invalid format",
        ));
    }
    Ok(email.to_lowercase())
}

/// GoTrue's phone check: digits only after removing `+` and spaces, E.164 length.
pub fn validate_phone(phone: &str) -> AuthResult<String> {
    let digits: String = phone
        .trim()
        .trim_start_matches('+')
        .chars()
        .filter(|c| *c != ' ')
        .collect();
    let valid = digits.len() >= 2
        && digits.len() <= 15
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !digits.starts_with('0');
    if !valid {
        return Err(AuthError::validation(
            "Invalid phone number format (E.164 required)",
        ));
    }
    Ok(digits)
}

pub fn routes(config: &mut web::ServiceConfig) {
    config.service(
        web::scope("/auth/v1")
            .route("/health", web::get().to(health))
            .route("/settings", web::get().to(settings))
            .route("/.well-known/jwks.json", web::get().to(jwks))
            .route("/signup", web::post().to(signup::handler))
            .route("/token", web::post().to(token::handler))
            .route("/verify", web::get().to(verify::get_handler))
            .route("/verify", web::post().to(verify::post_handler))
            .route("/logout", web::post().to(user::logout_handler))
            .route("/user", web::get().to(user::get_handler))
            .route("/user", web::put().to(user::put_handler))
            .route(
                "/user/identities/authorize",
                web::get().to(user::identities_handler),
            )
            .route(
                "/user/identities/{identity_id}",
                web::delete().to(user::identities_handler),
            )
            .route(
                "/reauthenticate",
                web::get().to(user::reauthenticate_handler),
            )
            .route(
                "/reauthenticate",
                web::post().to(user::reauthenticate_handler),
            )
            .route("/recover", web::post().to(otp::recover_handler))
            .route("/otp", web::post().to(otp::otp_handler))
            .route("/magiclink", web::post().to(otp::magiclink_handler))
            .route("/resend", web::post().to(otp::resend_handler))
            .route("/invite", web::post().to(admin::invite_handler))
            .route("/authorize", web::get().to(authorize))
            .route("/factors", web::post().to(mfa::enroll_handler))
            .route(
                "/factors/{factor_id}",
                web::delete().to(mfa::unenroll_handler),
            )
            .route(
                "/factors/{factor_id}/challenge",
                web::post().to(mfa::challenge_handler),
            )
            .route(
                "/factors/{factor_id}/verify",
                web::post().to(mfa::verify_handler),
            )
            .route("/admin/users", web::get().to(admin::list_handler))
            .route("/admin/users", web::post().to(admin::create_handler))
            .route("/admin/users/{id}", web::get().to(admin::get_handler))
            .route("/admin/users/{id}", web::put().to(admin::update_handler))
            .route("/admin/users/{id}", web::delete().to(admin::delete_handler))
            .route(
                "/admin/users/{id}/factors",
                web::get().to(admin::factors_handler),
            )
            .route(
                "/admin/users/{id}/factors/{factor_id}",
                web::delete().to(admin::delete_factor_handler),
            )
            .route(
                "/admin/users/{id}/factors/{factor_id}",
                web::put().to(admin::update_factor_handler),
            )
            .route(
                "/admin/generate_link",
                web::post().to(admin::generate_link_handler),
            )
            .route(
                "/admin/users/{id}/passkeys",
                web::get().to(disabled::admin_passkeys_handler),
            )
            .route(
                "/admin/users/{id}/passkeys/{passkey_id}",
                web::delete().to(disabled::admin_delete_passkey_handler),
            )
            // Features not offered: every method and path under each prefix.
            .service(disabled_feature("/sso", Feature::Saml))
            .service(disabled_feature("/passkeys", Feature::Passkeys))
            .service(disabled_feature("/oauth", Feature::OAuthServer))
            .route(
                "/.well-known/oauth-authorization-server",
                Feature::OAuthServer.handler(),
            )
            .service(disabled_feature("/user/oauth/grants", Feature::OAuthGrants))
            .service(disabled_feature("/admin/oauth", Feature::OAuthClients))
            .service(disabled_feature(
                "/admin/custom-providers",
                Feature::CustomProviders,
            ))
            .service(disabled_feature("/scim/v2", Feature::Scim))
            .default_service(web::to(not_found)),
    );
}

/// `GET /auth/v1/health`, shaped like GoTrue's.
async fn health() -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "version": format!("cielo-{VERSION}"),
        "name": "GoTrue",
        "description": "GoTrue is a user registration and authentication API",
    }))
}

/// `GET /auth/v1/settings`: which providers and options are on.
async fn settings(state: web::Data<AppState>) -> HttpResponse {
    let auth = state.settings.auth.clone();
    HttpResponse::Ok().json(settings_body(&auth))
}

fn settings_body(auth: &AuthSettings) -> Value {
    json!({
        "external": {
            "anonymous_users": auth.anonymous_enabled,
            "apple": false, "azure": false, "bitbucket": false, "discord": false,
            "facebook": false, "figma": false, "fly": false, "github": false, "gitlab": false,
            "google": false, "keycloak": false, "kakao": false, "linkedin": false,
            "linkedin_oidc": false, "notion": false, "slack": false, "slack_oidc": false,
            "snapchat": false, "spotify": false, "twitch": false, "twitter": false, "x": false,
            "workos": false, "zoom": false,
            "email": auth.email_enabled,
            "phone": auth.phone_enabled,
        },
        "disable_signup": auth.disable_signup,
        "mailer_autoconfirm": auth.autoconfirm,
        "phone_autoconfirm": auth.phone_autoconfirm,
        "sms_provider": "",
        "saml_enabled": false,
        "passkeys_enabled": false,
    })
}

/// `GET /auth/v1/.well-known/jwks.json`: the public signing keys (never HMAC secrets),
/// cacheable for 10 minutes as GoTrue's.
async fn jwks(state: web::Data<AppState>) -> HttpResponse {
    let keys = state.keys.ring().load().published();
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "public, max-age=600"))
        .json(json!({ "keys": keys }))
}

/// OAuth providers are not offered: GoTrue's answer for a provider that is not enabled.
async fn authorize(http: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let provider = ctx.query("provider").unwrap_or_default().to_owned();
    respond(
        &ctx,
        Err(AuthError::validation(format!(
            "Unsupported provider: provider {provider} is not enabled"
        ))),
    )
}

/// `prefix` and every path under it, whatever the method, answered as GoTrue answers a
/// feature that is switched off.
fn disabled_feature(prefix: &str, feature: Feature) -> actix_web::Scope {
    web::scope(prefix).default_service(feature.handler())
}

/// GoTrue's router answers unknown paths with Go's default plain-text 404.
async fn not_found() -> HttpResponse {
    HttpResponse::NotFound()
        .content_type("text/plain; charset=utf-8")
        .body("404 page not found\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_checked_and_lowercased() {
        assert_eq!(validate_email("Ana@Colegio.CL").unwrap(), "ana@colegio.cl");
        assert_eq!(
            validate_email("").unwrap_err().message,
            "An email address is required"
        );
        assert!(validate_email("not-an-email").is_err());
        assert!(validate_email("a@b@c.cl").is_err());
        assert!(validate_email(&format!("{}@x.cl", "a".repeat(260))).is_err());
    }

    #[test]
    fn phones_are_e164_digits() {
        assert_eq!(validate_phone("+56 9 1234 5678").unwrap(), "56912345678");
        assert!(validate_phone("12ab").is_err());
        assert!(validate_phone("+0123").is_err());
    }

    #[test]
    fn bodies_must_be_json() {
        #[derive(serde::Deserialize)]
        struct Params {
            #[allow(dead_code)]
            email: Option<String>,
        }
        assert!(parse_json::<Params>(br#"{"email":"a@b.cl","extra":1}"#).is_ok());
        let error = parse_json::<Params>(b"{nope").err().unwrap();
        assert_eq!(error.code, "bad_json");
        assert_eq!(error.status, StatusCode::BAD_REQUEST);
    }
}
