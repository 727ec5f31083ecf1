//! Settings of the whole stack, read from environment variables (and a `.env` file).
//!
//! Names follow Supabase's self-hosting `.env` wherever one exists (`JWT_SECRET`,
//! `ANON_KEY`, `SERVICE_ROLE_KEY`, `SITE_URL`, `API_EXTERNAL_URL`, `POSTGRES_PASSWORD`,
//! `SMTP_*`, ...), so an existing self-hosting configuration carries over. Every setting
//! has a default that gives a working local stack; [`variables`] lists them all, and
//! `docs/configuration.md` is generated from that list.
//!
//! Parsing is a pure function of a variable lookup so it can be tested without touching
//! the process environment. Secrets are wrapped in [`SecretString`] so `Debug` never
//! prints them.

use std::net::IpAddr;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use url::Url;

use crate::edge::request_limits::{HARD_MAX_HEADER_SIZE, HARD_MAX_URI_LENGTH, HeadLimits};
use crate::edge::slow_clients::ClientTimeouts;

mod ai;

pub use ai::default_model_path;
mod auth;
pub mod storage;
pub mod variables;

use variables::{self as var, Variable};

/// Default port of the HTTP API and web app (Supabase local development uses the same).
pub const DEFAULT_API_PORT: u16 = 54321;
/// Default port of the embedded PostgreSQL cluster.
pub const DEFAULT_DB_PORT: u16 = 54322;

/// Everything the gateway needs to start.
#[derive(Debug, Clone)]
pub struct Settings {
    pub api: ApiSettings,
    pub rest: RestSettings,
    pub functions: FunctionsSettings,
    pub database: DatabaseSettings,
    pub jwt: JwtSettings,
    pub auth: AuthSettings,
    pub smtp: SmtpSettings,
    pub log: LogSettings,
    /// Which model writes generated text, and how to reach it (`AI_*`); handed to the
    /// functions crate.
    pub ai: functions::ai::AiSettings,
    /// The package index `cielo model fetch` downloads models from (`AI_MODEL_INDEX_URL`).
    pub model_index_url: String,
    /// Longest text a model writes for one zone of a plan, in tokens (`AI_ZONE_MAX_TOKENS`).
    pub ai_zone_max_tokens: u32,
    /// Where postgres_changes come from (`REALTIME_*`).
    pub realtime: RealtimeSettings,
    /// Where storage/v1 keeps bytes and its limits (Supabase Storage's variables).
    pub storage: storage::StorageSettings,
    /// Where the gateway keeps its state: the embedded cluster, the generated JWT secret.
    pub data_dir: PathBuf,
    /// Load the demo (a teacher with a filled week, an admin, a content creator; see
    /// `sql/seed/demo.sql`) into a database that never had it, when `serve` starts
    /// (`SEED_DEMO`, default true for local development; compose.yaml and the tests turn it
    /// off). The demo accounts share a published password: never enable it in production.
    pub seed_demo: bool,
}

#[derive(Debug, Clone)]
pub struct RealtimeSettings {
    /// Per-socket limits (`REALTIME_MAX_*`).
    pub max_events_per_second: usize,
    pub max_joins_per_second: usize,
    pub max_channels_per_client: usize,
    /// The logical replication slot postgres_changes are read from (`None`: one named after
    /// the database).
    pub slot_name: Option<String>,
    /// A slot further behind than this many megabytes is dropped.
    pub slot_max_lag_mb: u32,
}

#[derive(Debug, Clone)]
pub struct ApiSettings {
    /// Address the HTTP server binds (`API_HOST`, default all IPv4 interfaces).
    pub host: IpAddr,
    /// `API_PORT`, default 54321. `0` asks the OS for a free port (tests).
    pub port: u16,
    /// Public base URL of the API as clients reach it (`API_EXTERNAL_URL`).
    pub external_url: Url,
    /// URL of the web app; e-mail links and redirects go here (`SITE_URL`).
    pub site_url: Url,
    /// Extra redirect targets allowed besides `SITE_URL` (`ADDITIONAL_REDIRECT_URLS`,
    /// comma separated, globs allowed).
    pub additional_redirect_urls: Vec<String>,
    /// Built web app served at `/` (`WEB_DIR`, default `frontend/dist`).
    pub web_dir: PathBuf,
    /// Seconds to let in-flight requests finish on shutdown (`SHUTDOWN_TIMEOUT`).
    pub shutdown_timeout: Duration,
    /// Serve the dev inbox to non-loopback clients too (`INBOX_ALLOW_REMOTE`).
    pub inbox_allow_remote: bool,
    /// Require a project API key on /rest/v1, /auth/v1 and /realtime/v1, as Supabase's
    /// hosted and self-hosted gateways do (`API_KEY_REQUIRED`). Supabase CLI's local stack
    /// does not; set it to false to behave like that one.
    pub api_key_required: bool,
    /// What a request head may weigh (`API_MAX_URI_LENGTH`, default 16 KiB, and
    /// `API_MAX_HEADER_SIZE`, default 32 KiB, as Supabase's edge allows); see
    /// [`crate::edge::request_limits`].
    pub head_limits: HeadLimits,
    /// How long a client may take to send its request head (`API_HEAD_TIMEOUT`, default 5 s)
    /// and each 2 KiB of its body (`API_BODY_TIMEOUT`, default 30 s); see
    /// [`crate::edge::slow_clients`].
    pub client_timeouts: ClientTimeouts,
}

/// rest/v1 settings, named as PostgREST's environment variables are in Supabase's
/// self-hosting `.env`.
#[derive(Debug, Clone)]
pub struct RestSettings {
    /// Schemas reachable through rest/v1 (`PGRST_DB_SCHEMAS`, comma separated; the first
    /// is the default when no `Accept-Profile`/`Content-Profile` header is sent).
    pub schemas: Vec<String>,
    /// Schemas appended to each request's `search_path` (`PGRST_DB_EXTRA_SEARCH_PATH`).
    pub extra_search_path: Vec<String>,
    /// Most rows a read returns (`PGRST_DB_MAX_ROWS`; Supabase's default is 1000).
    pub max_rows: Option<u64>,
    /// Role of requests without a JWT (`PGRST_DB_ANON_ROLE`).
    pub anon_role: String,
    /// Allow `count()`, `sum()`… in `select` (`PGRST_DB_AGGREGATES_ENABLED`).
    pub aggregates_enabled: bool,
    /// Serve `application/vnd.pgrst.plan` (EXPLAIN) responses (`PGRST_DB_PLAN_ENABLED`).
    pub plan_enabled: bool,
    /// How transactions end (`PGRST_DB_TX_END`): `commit`, `commit-allow-override`,
    /// `rollback`, `rollback-allow-override`.
    pub tx_end: String,
    /// Function called at the start of every request (`PGRST_DB_PRE_REQUEST`).
    pub pre_request: Option<String>,
    /// Largest request body accepted, in bytes (`REST_MAX_BODY_SIZE`, default 10 MiB);
    /// larger bodies get 413 before anything is parsed.
    pub max_body_size: usize,
}

/// functions/v1 settings: where Edge Functions live and how their workers are limited.
#[derive(Debug, Clone)]
pub struct FunctionsSettings {
    /// The functions directory (`FUNCTIONS_DIR`, default `supabase/functions`).
    pub dir: PathBuf,
    /// The Deno binary (`DENO_PATH`); `None`: the one `scripts/npm-install.sh` installs,
    /// else `deno` on `PATH`.
    pub deno_path: Option<PathBuf>,
    /// How long a function may take to answer and finish (`FUNCTIONS_TIMEOUT`, 150 s).
    pub timeout: Duration,
    /// V8 heap limit of each worker in MiB (`FUNCTIONS_MEMORY_LIMIT_MB`, 256).
    pub memory_limit_mb: u32,
    /// Function names relayed to an external URL (`FUNCTIONS_PROXY`).
    pub proxies: Vec<(String, Url)>,
}

#[derive(Debug, Clone)]
pub struct DatabaseSettings {
    /// An existing server to use instead of the embedded cluster (`DATABASE_URL`). The role
    /// in it must be able to create roles, schemas and extensions (a superuser, like
    /// Supabase's `postgres`).
    pub url: Option<SecretString>,
    /// Port of the embedded cluster (`DB_PORT`).
    pub port: u16,
    /// Password of the embedded cluster's `postgres` superuser (`POSTGRES_PASSWORD`).
    pub password: SecretString,
    /// Password the API pool's `authenticator` role logs in with (`AUTHENTICATOR_PASSWORD`;
    /// default: the password of `DATABASE_URL`, else `POSTGRES_PASSWORD`).
    pub authenticator_password: SecretString,
    /// Directory holding `initdb` and `postgres` (`PG_BIN_DIR`; default: searched).
    pub pg_bin_dir: Option<PathBuf>,
    /// Connections in the API pool (`DB_POOL_SIZE`, default 10 like PostgREST).
    pub pool_size: usize,
    /// How long a request waits for a pooled connection (`DB_POOL_TIMEOUT`, seconds).
    pub pool_timeout: Duration,
    /// Whether rest/v1 writes sent to a connection together are group-committed: each
    /// commits without waiting for its WAL flush and one flush after them all is waited for
    /// before any is answered (`DB_GROUP_COMMIT`, default true; see `db::batches`).
    pub group_commit: bool,
}

#[derive(Debug, Clone)]
pub struct JwtSettings {
    /// HS256 secret shared by every service (`JWT_SECRET`); generated and kept in the data
    /// directory when unset.
    pub secret: Option<SecretString>,
    /// Lifetime of user access tokens in seconds (`JWT_EXPIRY`, alias `JWT_EXP`).
    pub expiry: Duration,
    /// Legacy anon API key (`ANON_KEY`); derived from the secret when unset.
    pub anon_key: Option<SecretString>,
    /// Legacy service_role API key (`SERVICE_ROLE_KEY`); derived when unset.
    pub service_role_key: Option<SecretString>,
    /// Opaque publishable key `sb_publishable_…` (`PUBLISHABLE_KEY`); derived when unset.
    pub publishable_key: Option<SecretString>,
    /// Opaque secret key `sb_secret_…` (`SECRET_KEY`); derived when unset.
    pub secret_key: Option<SecretString>,
    /// Public keys (a JWKS, as JSON or `@/path/to/file`) accepted for RS256/ES256 tokens
    /// besides the HS256 secret (`JWT_JWKS`).
    pub jwks: Option<String>,
    /// The project's own private keys as GoTrue reads them (`JWT_KEYS`, alias
    /// `GOTRUE_JWT_KEYS`): a JSON array of JWKs (or `@/path/to/file`), the one whose
    /// `key_ops` has `sign` signs user tokens. When set, the managed signing keys are off.
    pub keys: Option<String>,
    /// Algorithm of the managed signing key created at first start when none is in use
    /// (`JWT_SIGNING_ALG`: `HS256` (default, the shared secret), `ES256` or `RS256`).
    pub signing_alg: String,
}

/// auth/v1 settings, named as GoTrue's environment variables are in Supabase's
/// self-hosting `.env` (each also accepted with GoTrue's own `GOTRUE_…` name).
#[derive(Debug, Clone)]
pub struct AuthSettings {
    /// `iss` of user access tokens (`JWT_ISSUER`; default `API_EXTERNAL_URL` + `/auth/v1`).
    pub jwt_issuer: String,
    /// `aud` of user access tokens and of new users (`JWT_AUD`, default `authenticated`).
    pub jwt_aud: String,
    /// Role of new users (`JWT_DEFAULT_GROUP_NAME`, default `authenticated`).
    pub default_role: String,
    /// JWT roles allowed on `/admin/*` (`JWT_ADMIN_ROLES`).
    pub admin_roles: Vec<String>,
    /// `DISABLE_SIGNUP`: no new users except through the admin API.
    pub disable_signup: bool,
    /// `ENABLE_EMAIL_SIGNUP` (GoTrue `EXTERNAL_EMAIL_ENABLED`): the email provider.
    pub email_enabled: bool,
    /// `ENABLE_EMAIL_AUTOCONFIRM` (GoTrue `MAILER_AUTOCONFIRM`): sign-ups get a session at
    /// once instead of a confirmation mail. Off by default: the app confirms e-mail.
    pub autoconfirm: bool,
    /// `ENABLE_ANONYMOUS_USERS` (GoTrue `EXTERNAL_ANONYMOUS_USERS_ENABLED`).
    pub anonymous_enabled: bool,
    /// `ENABLE_PHONE_SIGNUP` (GoTrue `EXTERNAL_PHONE_ENABLED`): phone + password accounts.
    pub phone_enabled: bool,
    /// `ENABLE_PHONE_AUTOCONFIRM` (GoTrue `SMS_AUTOCONFIRM`). There is no SMS sender, so
    /// phone sign-ups need it.
    pub phone_autoconfirm: bool,
    /// Shortest password accepted (`PASSWORD_MIN_LENGTH`, at least 6).
    pub password_min_length: usize,
    /// Character sets a password must each use (`PASSWORD_REQUIRED_CHARACTERS`, sets
    /// separated by `:`).
    pub password_required_characters: Vec<String>,
    /// Password changes need a recent sign-in or a reauthentication nonce
    /// (`SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION`).
    pub secure_password_change: bool,
    /// Password changes need the current password
    /// (`SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD`).
    pub require_current_password: bool,
    /// E-mail changes are confirmed on both addresses (`MAILER_SECURE_EMAIL_CHANGE_ENABLED`).
    pub secure_email_change: bool,
    /// Refresh tokens rotate and reuse revokes the session
    /// (`SECURITY_REFRESH_TOKEN_ROTATION_ENABLED`).
    pub refresh_token_rotation: bool,
    /// Seconds a rotated refresh token may still be used (`SECURITY_REFRESH_TOKEN_REUSE_INTERVAL`).
    pub refresh_token_reuse_interval: Duration,
    /// Lifetime of e-mail links and OTPs (`MAILER_OTP_EXP`, seconds).
    pub otp_expiry: Duration,
    /// Digits of e-mail OTPs (`MAILER_OTP_LENGTH`, 6 to 10).
    pub otp_length: usize,
    /// Least time between two mails of one kind to one user (`SMTP_MAX_FREQUENCY`).
    pub max_frequency: Duration,
    /// PKCE auth codes expire after this (`EXTERNAL_FLOW_STATE_EXPIRY_DURATION`).
    pub flow_state_expiry: Duration,
    /// Paths of the e-mail links (`MAILER_URLPATHS_CONFIRMATION`, `_INVITE`, `_RECOVERY`,
    /// `_EMAIL_CHANGE`), resolved against `API_EXTERNAL_URL`.
    pub url_paths: MailerUrlPaths,
    /// Mail subjects and template files (`MAILER_SUBJECTS_*`, `MAILER_TEMPLATES_*`,
    /// `MAILER_TEMPLATES_DIR`).
    pub templates: MailerTemplates,
    pub rate_limits: AuthRateLimits,
    /// Multi-factor authentication (GoTrue's `MFA_*` settings).
    pub mfa: MfaSettings,
    /// Encryption of secrets at rest (GoTrue's `SECURITY_DB_ENCRYPTION_*`); `None` when
    /// neither encryption nor decryption keys are configured.
    pub db_encryption: Option<DbEncryption>,
    /// Password hashes computed at once (`AUTH_HASH_CONCURRENCY`, default: CPU count).
    pub hash_concurrency: usize,
}

#[derive(Debug, Clone)]
pub struct MailerUrlPaths {
    pub confirmation: String,
    pub invite: String,
    pub recovery: String,
    pub email_change: String,
}

/// Overrides of the built-in Spanish (Chile) mail; `None` keeps the built-in one.
#[derive(Debug, Clone, Default)]
pub struct MailerTemplates {
    pub dir: Option<PathBuf>,
    /// (template name, subject) pairs from `MAILER_SUBJECTS_*`.
    pub subjects: Vec<(String, String)>,
    /// (template name, file) pairs from `MAILER_TEMPLATES_*`.
    pub files: Vec<(String, PathBuf)>,
}

/// TOTP multi-factor authentication, named as GoTrue's `MFA_*` settings.
#[derive(Debug, Clone)]
pub struct MfaSettings {
    /// `MFA_TOTP_ENROLL_ENABLED` (default on): `POST /factors` for TOTP.
    pub totp_enroll_enabled: bool,
    /// `MFA_TOTP_VERIFY_ENABLED` (default on): challenges and verification of TOTP factors.
    pub totp_verify_enabled: bool,
    /// `MFA_MAX_ENROLLED_FACTORS` (default 10): factors of a user, verified or not.
    pub max_enrolled_factors: usize,
    /// `MFA_MAX_VERIFIED_FACTORS` (default 10): verified factors of a user.
    pub max_verified_factors: usize,
    /// `MFA_CHALLENGE_EXPIRY_DURATION` (seconds, at least and by default 300).
    pub challenge_expiry: Duration,
    /// `MFA_FACTOR_EXPIRY_DURATION` (at least and by default `300s`): unverified factors
    /// without challenges older than this are removed at the next enrollment.
    pub factor_expiry: Duration,
}

/// GoTrue's database encryption settings (`SECURITY_DB_ENCRYPTION_ENCRYPT`,
/// `_ENCRYPTION_KEY_ID`, `_ENCRYPTION_KEY`, `_DECRYPTION_KEYS`; keys are 256-bit,
/// base64url without padding).
#[derive(Clone)]
pub struct DbEncryption {
    /// Secrets written from now on are encrypted with `encryption_key`.
    pub encrypt: bool,
    pub encryption_key_id: String,
    pub encryption_key: [u8; 32],
    /// Keys that decrypt stored values, by id (the encryption key included).
    pub decryption_keys: std::collections::HashMap<String, [u8; 32]>,
}

impl std::fmt::Debug for DbEncryption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut ids: Vec<&String> = self.decryption_keys.keys().collect();
        ids.sort();
        f.debug_struct("DbEncryption")
            .field("encrypt", &self.encrypt)
            .field("encryption_key_id", &self.encryption_key_id)
            .field("decryption_key_ids", &ids)
            .finish_non_exhaustive()
    }
}

/// Rate limits, named as GoTrue's `RATE_LIMIT_*` settings.
#[derive(Debug, Clone)]
pub struct AuthRateLimits {
    /// Mails per address and hour (`RATE_LIMIT_EMAIL_SENT`).
    pub email_sent_per_hour: u32,
    /// `/token` requests per IP (and per e-mail) in 5 minutes (`RATE_LIMIT_TOKEN_REFRESH`).
    pub token_per_5_min: u32,
    /// `/verify` requests per IP in 5 minutes (`RATE_LIMIT_VERIFY`).
    pub verify_per_5_min: u32,
    /// `/signup`, `/otp`, `/magiclink`, `/recover`, `/resend`, `PUT /user` per IP (and per
    /// e-mail) in 5 minutes (`RATE_LIMIT_OTP`).
    pub otp_per_5_min: u32,
    /// Anonymous sign-ins per IP and hour (`RATE_LIMIT_ANONYMOUS_USERS`).
    pub anonymous_per_hour: u32,
    /// MFA challenges, and separately MFA verifications, per IP and minute
    /// (`MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY`).
    pub mfa_per_minute: u32,
    /// Trusted header with the client address set by a proxy in front
    /// (`RATE_LIMIT_HEADER`, e.g. `X-Forwarded-For`); without it the socket peer counts.
    pub header: Option<String>,
}

/// The auth templates there are, by GoTrue's names.
pub const MAIL_TEMPLATES: &[&str] = &[
    "confirmation",
    "invite",
    "recovery",
    "magic_link",
    "email_change",
    "reauthentication",
];

#[derive(Debug, Clone)]
pub struct SmtpSettings {
    /// Real SMTP server (`SMTP_HOST`). Without it, mail goes to the built-in dev inbox.
    pub host: Option<String>,
    pub port: u16,
    pub user: Option<String>,
    pub pass: Option<SecretString>,
    /// Sender address (`SMTP_ADMIN_EMAIL`).
    pub admin_email: String,
    /// Sender display name (`SMTP_SENDER_NAME`).
    pub sender_name: String,
}

#[derive(Debug, Clone)]
pub struct LogSettings {
    /// `LOG_FORMAT=json` for one JSON object per line, anything else for human output.
    pub json: bool,
    /// Filter directives (`RUST_LOG`, else `LOG_LEVEL`, default `info`).
    pub filter: String,
}

/// A setting that could not be understood.
#[derive(Debug, thiserror::Error)]
#[error("invalid value for {name}: {reason}")]
pub struct ConfigError {
    pub name: &'static str,
    pub reason: String,
}

impl Settings {
    /// Reads settings from the process environment, after loading `.env` from the working
    /// directory (values already in the environment win, as with Docker Compose).
    pub fn from_env() -> Result<Self, ConfigError> {
        // A missing .env file is normal; a malformed one is worth a warning, not a crash.
        if let Err(error) = dotenvy::dotenv()
            && !error.not_found()
        {
            eprintln!("warning: could not read .env: {error}");
        }
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Parses settings from any variable lookup (the environment, or a map in tests).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let vars = Vars(&lookup);

        let port = vars.parse(&var::API_PORT, DEFAULT_API_PORT)?;
        let external_url = match vars.get(&var::API_EXTERNAL_URL) {
            Some(raw) => parse_url(var::API_EXTERNAL_URL.name(), &raw)?,
            None => parse_url(
                var::API_EXTERNAL_URL.name(),
                &format!("http://localhost:{port}"),
            )?,
        };
        let site_url = match vars.get(&var::SITE_URL) {
            Some(raw) => parse_url(var::SITE_URL.name(), &raw)?,
            None => external_url.clone(),
        };

        let database_url = vars.get(&var::DATABASE_URL);
        if let Some(url) = &database_url {
            validate_database_url(url)?;
        }
        let password = vars
            .get(&var::POSTGRES_PASSWORD)
            .unwrap_or_else(|| "postgres".to_owned());
        let authenticator_password = vars
            .get(&var::AUTHENTICATOR_PASSWORD)
            .or_else(|| database_url.as_deref().and_then(password_of_url))
            .unwrap_or_else(|| password.clone());

        let jwt_secret = vars.get(&var::JWT_SECRET);
        if let Some(secret) = &jwt_secret
            && secret.len() < 32
        {
            return Err(ConfigError {
                name: var::JWT_SECRET.name(),
                reason: "must be at least 32 characters long".into(),
            });
        }
        let expiry_secs: u64 = vars.parse(&var::JWT_EXPIRY, 3600)?;
        if expiry_secs < 30 {
            return Err(ConfigError {
                name: var::JWT_EXPIRY.name(),
                reason: "must be at least 30 seconds".into(),
            });
        }

        let pool_size: usize = vars.parse(&var::DB_POOL_SIZE, 10)?;
        if pool_size == 0 {
            return Err(ConfigError {
                name: var::DB_POOL_SIZE.name(),
                reason: "must be at least 1".into(),
            });
        }

        let schemas = vars
            .get(&var::PGRST_DB_SCHEMAS)
            .map(|raw| split_list(&raw))
            .unwrap_or_else(|| vec!["public".to_owned()]);
        if schemas.is_empty() {
            return Err(ConfigError {
                name: var::PGRST_DB_SCHEMAS.name(),
                reason: "must name at least one schema".into(),
            });
        }
        let max_rows: u64 = vars.parse(&var::PGRST_DB_MAX_ROWS, 1000)?;
        let head_limits = HeadLimits {
            max_uri_length: vars.parse_within(
                &var::API_MAX_URI_LENGTH,
                16 * 1024,
                HARD_MAX_URI_LENGTH,
            )?,
            max_header_size: vars.parse_within(
                &var::API_MAX_HEADER_SIZE,
                32 * 1024,
                HARD_MAX_HEADER_SIZE,
            )?,
        };
        let client_timeouts = ClientTimeouts {
            head: Duration::from_secs(vars.parse_within(&var::API_HEAD_TIMEOUT, 5, 3600)? as u64),
            body_window: Duration::from_secs(
                vars.parse_within(&var::API_BODY_TIMEOUT, 30, 3600)? as u64
            ),
        };
        let auth = auth::parse_auth(&vars, &external_url)?;
        let data_dir = vars
            .get(&var::DATA_DIR)
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(".data"));
        let ai = ai::parse_ai(&vars, &data_dir)?;
        let model_index_url = ai::parse_model_index_url(&vars)?;
        let ai_zone_max_tokens =
            u32::try_from(vars.parse_within(&var::AI_ZONE_MAX_TOKENS, 200, 8192)?).unwrap_or(200);
        let storage = storage::parse_storage(&vars, &data_dir)?;
        let realtime = RealtimeSettings {
            max_events_per_second: vars.parse_within(
                &var::REALTIME_MAX_EVENTS_PER_SECOND,
                100,
                1_000_000,
            )?,
            max_joins_per_second: vars.parse_within(
                &var::REALTIME_MAX_JOINS_PER_SECOND,
                100,
                1_000_000,
            )?,
            max_channels_per_client: vars.parse_within(
                &var::REALTIME_MAX_CHANNELS_PER_CLIENT,
                100,
                100_000,
            )?,
            slot_name: parse_slot_name(vars.get(&var::REALTIME_SLOT_NAME))?,
            slot_max_lag_mb: u32::try_from(vars.parse_within(
                &var::REALTIME_SLOT_MAX_LAG_MB,
                1024,
                1024 * 1024,
            )?)
            .unwrap_or(1024),
        };

        Ok(Settings {
            rest: RestSettings {
                schemas,
                extra_search_path: vars
                    .get(&var::PGRST_DB_EXTRA_SEARCH_PATH)
                    .map(|raw| split_list(&raw))
                    .unwrap_or_else(|| vec!["public".to_owned(), "extensions".to_owned()]),
                // 0 means "no limit", as an unset db-max-rows does in PostgREST.
                max_rows: (max_rows > 0).then_some(max_rows),
                anon_role: vars
                    .get(&var::PGRST_DB_ANON_ROLE)
                    .unwrap_or_else(|| "anon".to_owned()),
                aggregates_enabled: vars.flag(&var::PGRST_DB_AGGREGATES_ENABLED)?,
                plan_enabled: vars.flag(&var::PGRST_DB_PLAN_ENABLED)?,
                tx_end: vars
                    .get(&var::PGRST_DB_TX_END)
                    .unwrap_or_else(|| "commit".to_owned()),
                pre_request: vars.get(&var::PGRST_DB_PRE_REQUEST),
                max_body_size: vars.parse(&var::REST_MAX_BODY_SIZE, 10 * 1024 * 1024)?,
            },
            functions: FunctionsSettings {
                dir: vars
                    .get(&var::FUNCTIONS_DIR)
                    .map(PathBuf::from)
                    .unwrap_or_else(|| PathBuf::from("supabase/functions")),
                deno_path: vars.get(&var::DENO_PATH).map(PathBuf::from),
                timeout: Duration::from_secs(vars.parse_within(
                    &var::FUNCTIONS_TIMEOUT,
                    150,
                    86_400,
                )? as u64),
                memory_limit_mb: vars.parse(&var::FUNCTIONS_MEMORY_LIMIT_MB, 256)?,
                proxies: match vars.find(&var::FUNCTIONS_PROXY) {
                    None => Vec::new(),
                    Some((name, raw)) => parse_proxies(name, &raw)?,
                },
            },
            api: ApiSettings {
                host: vars.parse(&var::API_HOST, IpAddr::from([0, 0, 0, 0]))?,
                port,
                external_url,
                site_url,
                additional_redirect_urls: vars
                    .get(&var::ADDITIONAL_REDIRECT_URLS)
                    .map(|raw| split_list(&raw))
                    .unwrap_or_default(),
                web_dir: vars
                    .get(&var::WEB_DIR)
                    .map(PathBuf::from)
                    .unwrap_or_else(|| PathBuf::from("frontend/dist")),
                shutdown_timeout: Duration::from_secs(vars.parse(&var::SHUTDOWN_TIMEOUT, 10)?),
                inbox_allow_remote: vars.flag(&var::INBOX_ALLOW_REMOTE)?,
                api_key_required: vars.flag_or(&var::API_KEY_REQUIRED, true)?,
                head_limits,
                client_timeouts,
            },
            database: DatabaseSettings {
                url: database_url.map(SecretString::from),
                port: vars.parse(&var::DB_PORT, DEFAULT_DB_PORT)?,
                password: SecretString::from(password),
                authenticator_password: SecretString::from(authenticator_password),
                pg_bin_dir: vars.get(&var::PG_BIN_DIR).map(PathBuf::from),
                pool_size,
                pool_timeout: Duration::from_secs(vars.parse(&var::DB_POOL_TIMEOUT, 10)?),
                group_commit: vars.flag_or(&var::DB_GROUP_COMMIT, true)?,
            },
            jwt: JwtSettings {
                secret: jwt_secret.map(SecretString::from),
                expiry: Duration::from_secs(expiry_secs),
                anon_key: vars.get(&var::ANON_KEY).map(SecretString::from),
                service_role_key: vars.get(&var::SERVICE_ROLE_KEY).map(SecretString::from),
                publishable_key: vars.get(&var::PUBLISHABLE_KEY).map(SecretString::from),
                secret_key: vars.get(&var::SECRET_KEY).map(SecretString::from),
                jwks: vars.get(&var::JWT_JWKS),
                keys: vars.get(&var::JWT_KEYS),
                signing_alg: match vars
                    .get(&var::JWT_SIGNING_ALG)
                    .map(|alg| alg.to_ascii_uppercase())
                    .as_deref()
                {
                    None | Some("HS256") => "HS256".to_owned(),
                    Some(alg @ ("ES256" | "RS256")) => alg.to_owned(),
                    Some(other) => {
                        return Err(ConfigError {
                            name: var::JWT_SIGNING_ALG.name(),
                            reason: format!("{other:?}: expected HS256, ES256 or RS256"),
                        });
                    }
                },
            },
            auth,
            ai,
            smtp: SmtpSettings {
                host: vars.get(&var::SMTP_HOST),
                port: vars.parse(&var::SMTP_PORT, 587)?,
                user: vars.get(&var::SMTP_USER),
                pass: vars.get(&var::SMTP_PASS).map(SecretString::from),
                admin_email: vars
                    .get(&var::SMTP_ADMIN_EMAIL)
                    .unwrap_or_else(|| "no-reply@cielo.local".to_owned()),
                sender_name: vars
                    .get(&var::SMTP_SENDER_NAME)
                    .unwrap_or_else(|| "Cielo".to_owned()),
            },
            log: LogSettings {
                json: vars
                    .get(&var::LOG_FORMAT)
                    .is_some_and(|format| format.eq_ignore_ascii_case("json")),
                filter: vars
                    .get(&var::RUST_LOG)
                    .unwrap_or_else(|| "info".to_owned()),
            },
            model_index_url,
            ai_zone_max_tokens,
            realtime,
            storage,
            data_dir,
            seed_demo: vars.flag_or(&var::SEED_DEMO, true)?,
        })
    }

    /// True when the gateway runs its own PostgreSQL cluster.
    pub fn uses_embedded_database(&self) -> bool {
        self.database.url.is_none()
    }

    /// The dev inbox is served only when no real SMTP server is configured.
    pub fn dev_inbox_enabled(&self) -> bool {
        self.smtp.host.is_none()
    }

    /// URL of the web app and API root as printed by `status` (no trailing slash).
    pub fn api_url(&self) -> String {
        self.api
            .external_url
            .as_str()
            .trim_end_matches('/')
            .to_owned()
    }

    /// Connection string of the admin (superuser) connection, embedded or external.
    pub fn admin_database_url(&self) -> SecretString {
        match &self.database.url {
            Some(url) => url.clone(),
            None => SecretString::from(format!(
                "postgresql://postgres:{}@127.0.0.1:{}/postgres",
                percent_encode_userinfo(self.database.password.expose_secret()),
                self.database.port
            )),
        }
    }
}

/// Durations as GoTrue writes them (`60s`, `1m`, `1h30m`, `500ms`) or plain seconds.
pub fn parse_duration(name: &'static str, raw: &str) -> Result<Duration, ConfigError> {
    let error = || ConfigError {
        name,
        reason: format!("{raw:?}: expected seconds or a duration like 60s, 5m, 1h"),
    };
    if let Ok(seconds) = raw.parse::<u64>() {
        return Ok(Duration::from_secs(seconds));
    }
    let mut total = Duration::ZERO;
    let mut rest = raw;
    if rest.is_empty() {
        return Err(error());
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .ok_or_else(error)?;
        let value: f64 = rest[..digits].parse().map_err(|_| error())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let seconds = match &rest[..unit_len] {
            "ms" => value / 1000.0,
            "s" => value,
            "m" => value * 60.0,
            "h" => value * 3600.0,
            _ => return Err(error()),
        };
        total += Duration::from_secs_f64(seconds);
        rest = &rest[unit_len..];
    }
    Ok(total)
}

/// Lookup of listed variables that treats empty values as unset (as Compose does with
/// `VAR=`). A variable set under several names is read under the first one set, and its
/// errors name that one.
struct Vars<'a>(&'a dyn Fn(&str) -> Option<String>);

impl Vars<'_> {
    /// The first of the variable's names that is set, with its value.
    fn find(&self, variable: &Variable) -> Option<(&'static str, String)> {
        variable.names().find_map(|name| {
            (self.0)(name)
                .map(|value| value.trim().to_owned())
                .filter(|value| !value.is_empty())
                .map(|value| (name, value))
        })
    }

    fn get(&self, variable: &Variable) -> Option<String> {
        self.find(variable).map(|(_, value)| value)
    }

    /// Booleans as Compose files write them: true/false, 1/0, yes/no.
    fn flag(&self, variable: &Variable) -> Result<bool, ConfigError> {
        self.flag_or(variable, false)
    }

    fn flag_or(&self, variable: &Variable, default: bool) -> Result<bool, ConfigError> {
        let Some((name, raw)) = self.find(variable) else {
            return Ok(default);
        };
        match raw.to_ascii_lowercase().as_str() {
            "false" | "0" | "no" | "off" => Ok(false),
            "true" | "1" | "yes" | "on" => Ok(true),
            other => Err(ConfigError {
                name,
                reason: format!("{other:?}: expected true or false"),
            }),
        }
    }

    /// A whole number from 1 to `max`.
    fn parse_within(
        &self,
        variable: &Variable,
        default: usize,
        max: usize,
    ) -> Result<usize, ConfigError> {
        let value: usize = self.parse(variable, default)?;
        if value == 0 || value > max {
            return Err(ConfigError {
                name: variable.name(),
                reason: format!("{value}: must be from 1 to {max}"),
            });
        }
        Ok(value)
    }

    fn parse<T>(&self, variable: &Variable, default: T) -> Result<T, ConfigError>
    where
        T: FromStr,
        T::Err: std::fmt::Display,
    {
        match self.find(variable) {
            None => Ok(default),
            Some((name, raw)) => raw.parse().map_err(|error: T::Err| ConfigError {
                name,
                reason: format!("{raw:?}: {error}"),
            }),
        }
    }

    /// A [`parse_duration`] duration.
    fn duration(&self, variable: &Variable, default: Duration) -> Result<Duration, ConfigError> {
        match self.find(variable) {
            None => Ok(default),
            Some((name, raw)) => parse_duration(name, &raw),
        }
    }
}

/// `name=url` pairs separated by commas: function names (letters, digits, `-`, `_`) and the
/// http(s) URLs they are relayed to.
fn parse_proxies(name: &'static str, raw: &str) -> Result<Vec<(String, Url)>, ConfigError> {
    raw.split(',')
        .map(str::trim)
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (function, url) = pair.split_once('=').ok_or_else(|| ConfigError {
                name,
                reason: format!("{pair:?}: expected name=url"),
            })?;
            let function = function.trim();
            let valid = !function.is_empty()
                && !function.starts_with('_')
                && function
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_');
            if !valid {
                return Err(ConfigError {
                    name,
                    reason: format!("{function:?}: not a function name"),
                });
            }
            Ok((function.to_owned(), parse_url(name, url.trim())?))
        })
        .collect()
}

/// A replication slot's name: what PostgreSQL allows (lower-case letters, digits, `_`).
fn parse_slot_name(raw: Option<String>) -> Result<Option<String>, ConfigError> {
    let Some(name) = raw else {
        return Ok(None);
    };
    let valid = !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_');
    if valid {
        Ok(Some(name))
    } else {
        Err(ConfigError {
            name: var::REALTIME_SLOT_NAME.name(),
            reason: format!("{name:?}: lower-case letters, digits and `_`, at most 63"),
        })
    }
}

fn parse_url(name: &'static str, raw: &str) -> Result<Url, ConfigError> {
    let url = Url::parse(raw).map_err(|error| ConfigError {
        name,
        reason: format!("{raw:?}: {error}"),
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ConfigError {
            name,
            reason: format!("{raw:?}: must start with http:// or https://"),
        });
    }
    Ok(url)
}

fn validate_database_url(raw: &str) -> Result<(), ConfigError> {
    let parsed: Result<tokio_postgres::Config, _> = raw.parse();
    parsed.map(|_| ()).map_err(|error| ConfigError {
        name: var::DATABASE_URL.name(),
        reason: format!("not a PostgreSQL connection string: {error}"),
    })
}

fn password_of_url(raw: &str) -> Option<String> {
    let config: tokio_postgres::Config = raw.parse().ok()?;
    config
        .get_password()
        .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
}

fn split_list(raw: &str) -> Vec<String> {
    raw.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Percent-encodes a password for the userinfo part of a URL.
pub fn percent_encode_userinfo(raw: &str) -> String {
    url::form_urlencoded::byte_serialize(raw.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn settings(pairs: &[(&str, &str)]) -> Result<Settings, ConfigError> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Settings::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn file_backend_etag_is_md5_unless_mtime_is_asked_for() {
        use storage::{BackendSettings, FileEtag};
        let etag = |pairs: &[(&str, &str)]| match settings(pairs).unwrap().storage.backend {
            BackendSettings::File { etag, .. } => etag,
            BackendSettings::S3(_) => unreachable!("file is the default backend"),
        };
        assert_eq!(etag(&[]), FileEtag::Md5);
        assert_eq!(
            etag(&[("STORAGE_FILE_ETAG_ALGORITHM", "mtime")]),
            FileEtag::Mtime
        );
        assert_eq!(
            etag(&[("STORAGE_FILE_ETAG_ALGORITHM", "MD5")]),
            FileEtag::Md5
        );
        let error = settings(&[("STORAGE_FILE_ETAG_ALGORITHM", "sha1")]).unwrap_err();
        assert_eq!(error.name, "STORAGE_FILE_ETAG_ALGORITHM");
    }

    #[test]
    fn function_proxies_are_name_url_pairs() {
        let s = settings(&[(
            "FUNCTIONS_PROXY",
            "search=http://10.0.0.5:8000/search , stripe-hook=https://hooks.example.com/",
        )])
        .unwrap();
        let proxies: Vec<(&str, &str)> = s
            .functions
            .proxies
            .iter()
            .map(|(name, url)| (name.as_str(), url.as_str()))
            .collect();
        assert_eq!(
            proxies,
            [
                ("search", "http://10.0.0.5:8000/search"),
                ("stripe-hook", "https://hooks.example.com/")
            ]
        );
        assert!(settings(&[]).unwrap().functions.proxies.is_empty());
        for bad in [
            "search",
            "_shared=http://x",
            "a/b=http://x",
            "s=ftp://x",
            "s=not a url",
        ] {
            let error = settings(&[("FUNCTIONS_PROXY", bad)]).unwrap_err();
            assert_eq!(error.name, "FUNCTIONS_PROXY", "{bad}");
        }
    }

    #[test]
    fn defaults_give_a_local_stack() {
        let s = settings(&[]).unwrap();
        assert_eq!(s.api.port, 54321);
        assert_eq!(s.database.port, 54322);
        assert_eq!(s.api_url(), "http://localhost:54321");
        assert_eq!(s.api.site_url.as_str(), "http://localhost:54321/");
        assert_eq!(s.data_dir, PathBuf::from(".data"));
        assert!(s.uses_embedded_database());
        assert!(s.dev_inbox_enabled());
        assert_eq!(s.jwt.expiry, Duration::from_secs(3600));
        assert_eq!(s.database.password.expose_secret(), "postgres");
        assert_eq!(
            s.database.authenticator_password.expose_secret(),
            "postgres"
        );
        assert_eq!(
            s.admin_database_url().expose_secret(),
            "postgresql://postgres:postgres@127.0.0.1:54322/postgres"
        );
    }

    #[test]
    fn mfa_settings_take_gotrues_names_and_floors() {
        let s = settings(&[]).unwrap();
        assert!(s.auth.mfa.totp_enroll_enabled && s.auth.mfa.totp_verify_enabled);
        assert_eq!(s.auth.mfa.max_enrolled_factors, 10);
        assert_eq!(s.auth.mfa.challenge_expiry, Duration::from_secs(300));
        assert_eq!(s.auth.rate_limits.mfa_per_minute, 15);
        assert!(s.auth.db_encryption.is_none());
        let s = settings(&[
            ("GOTRUE_MFA_TOTP_ENROLL_ENABLED", "false"),
            ("MFA_MAX_ENROLLED_FACTORS", "2"),
            ("MFA_CHALLENGE_EXPIRY_DURATION", "60"),
            ("MFA_FACTOR_EXPIRY_DURATION", "1h"),
        ])
        .unwrap();
        assert!(!s.auth.mfa.totp_enroll_enabled);
        assert_eq!(s.auth.mfa.max_enrolled_factors, 2);
        assert_eq!(s.auth.mfa.challenge_expiry, Duration::from_secs(300));
        assert_eq!(s.auth.mfa.factor_expiry, Duration::from_secs(3600));
    }

    #[test]
    fn db_encryption_keys_are_checked() {
        let key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
        let s = settings(&[
            ("SECURITY_DB_ENCRYPTION_ENCRYPT", "true"),
            ("SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID", "k2"),
            ("SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY", key),
            (
                "SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS",
                &format!("k1:{key}"),
            ),
        ])
        .unwrap();
        let encryption = s.auth.db_encryption.unwrap();
        assert!(encryption.encrypt);
        assert_eq!(encryption.encryption_key[31], 31);
        assert_eq!(encryption.decryption_keys.len(), 2);
        assert!(!format!("{encryption:?}").contains(key));
        let error = settings(&[
            ("SECURITY_DB_ENCRYPTION_ENCRYPT", "true"),
            ("SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID", "k2"),
            ("SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY", "c2hvcnQ"),
        ])
        .unwrap_err();
        assert_eq!(error.name, "SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY");
        let error = settings(&[("SECURITY_DB_ENCRYPTION_ENCRYPT", "true")]).unwrap_err();
        assert_eq!(error.name, "SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID");
        // Decryption keys alone read encrypted values without encrypting new ones.
        let s = settings(&[(
            "SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS",
            &format!("k1:{key}"),
        )])
        .unwrap();
        assert!(!s.auth.db_encryption.unwrap().encrypt);
    }

    #[test]
    fn errors_name_the_alias_that_was_set() {
        let error = settings(&[("GOTRUE_MFA_MAX_ENROLLED_FACTORS", "many")]).unwrap_err();
        assert_eq!(error.name, "GOTRUE_MFA_MAX_ENROLLED_FACTORS");
        let error = settings(&[("GOTRUE_JWT_EXP", "soon")]).unwrap_err();
        assert_eq!(error.name, "GOTRUE_JWT_EXP");
        let error = settings(&[("GOTRUE_SITE_URL", "ftp://x")]).unwrap_err();
        assert_eq!(error.name, "SITE_URL");
    }

    #[test]
    fn api_port_moves_the_default_external_url() {
        let s = settings(&[("API_PORT", "8000")]).unwrap();
        assert_eq!(s.api_url(), "http://localhost:8000");
    }

    #[test]
    fn bad_values_name_the_variable() {
        let error = settings(&[("API_PORT", "eighty")]).unwrap_err();
        assert_eq!(error.name, "API_PORT");
        assert!(error.to_string().contains("invalid value for API_PORT"));

        let error = settings(&[("JWT_SECRET", "short")]).unwrap_err();
        assert_eq!(error.name, "JWT_SECRET");

        let error = settings(&[("SITE_URL", "ftp://x")]).unwrap_err();
        assert_eq!(error.name, "SITE_URL");

        let error = settings(&[("DATABASE_URL", "mysql://nope")]).unwrap_err();
        assert_eq!(error.name, "DATABASE_URL");
    }

    #[test]
    fn empty_values_count_as_unset() {
        let s = settings(&[("API_PORT", ""), ("DATABASE_URL", "  ")]).unwrap();
        assert_eq!(s.api.port, 54321);
        assert!(s.uses_embedded_database());
    }

    #[test]
    fn authenticator_password_follows_database_url() {
        let s = settings(&[("DATABASE_URL", "postgresql://admin:s3cr%40t@db:5432/app")]).unwrap();
        assert_eq!(s.database.authenticator_password.expose_secret(), "s3cr@t");
        assert!(!s.uses_embedded_database());
        let s = settings(&[
            ("DATABASE_URL", "postgresql://admin:x@db/app"),
            ("AUTHENTICATOR_PASSWORD", "other"),
        ])
        .unwrap();
        assert_eq!(s.database.authenticator_password.expose_secret(), "other");
    }

    #[test]
    fn jwt_exp_is_an_alias_of_jwt_expiry() {
        assert_eq!(
            settings(&[("JWT_EXP", "600")]).unwrap().jwt.expiry,
            Duration::from_secs(600)
        );
        assert_eq!(
            settings(&[("JWT_EXP", "600"), ("JWT_EXPIRY", "900")])
                .unwrap()
                .jwt
                .expiry,
            Duration::from_secs(900)
        );
    }

    #[test]
    fn rest_settings_follow_postgrest_names() {
        let s = settings(&[]).unwrap();
        assert_eq!(s.rest.schemas, ["public"]);
        assert_eq!(s.rest.extra_search_path, ["public", "extensions"]);
        assert_eq!(s.rest.max_rows, Some(1000));
        assert_eq!(s.rest.anon_role, "anon");
        assert!(!s.rest.aggregates_enabled);
        assert!(s.api.api_key_required);
        let s = settings(&[
            ("PGRST_DB_SCHEMAS", "public, personal"),
            ("PGRST_DB_MAX_ROWS", "0"),
            ("API_KEY_REQUIRED", "false"),
        ])
        .unwrap();
        assert_eq!(s.rest.schemas, ["public", "personal"]);
        assert_eq!(s.rest.max_rows, None);
        assert!(!s.api.api_key_required);
        assert_eq!(
            settings(&[("PGRST_DB_SCHEMAS", " , ")]).unwrap_err().name,
            "PGRST_DB_SCHEMAS"
        );
    }

    #[test]
    fn head_limits_default_to_the_edge_and_stay_within_the_http_layer() {
        let limits = settings(&[]).unwrap().api.head_limits;
        assert_eq!(limits.max_uri_length, 16_384);
        assert_eq!(limits.max_header_size, 32_768);
        let limits = settings(&[
            ("API_MAX_URI_LENGTH", "65534"),
            ("API_MAX_HEADER_SIZE", "8192"),
        ])
        .unwrap()
        .api
        .head_limits;
        assert_eq!(limits.max_uri_length, 65_534);
        assert_eq!(limits.max_header_size, 8192);
        for (name, value) in [
            ("API_MAX_URI_LENGTH", "65535"),
            ("API_MAX_URI_LENGTH", "0"),
            ("API_MAX_HEADER_SIZE", "131073"),
            ("API_MAX_HEADER_SIZE", "lots"),
        ] {
            assert_eq!(settings(&[(name, value)]).unwrap_err().name, name);
        }
    }

    #[test]
    fn client_timeouts_default_to_5_and_30_seconds_and_take_1_to_3600() {
        let timeouts = settings(&[]).unwrap().api.client_timeouts;
        assert_eq!(timeouts.head, Duration::from_secs(5));
        assert_eq!(timeouts.body_window, Duration::from_secs(30));
        let timeouts = settings(&[("API_HEAD_TIMEOUT", "1"), ("API_BODY_TIMEOUT", "3600")])
            .unwrap()
            .api
            .client_timeouts;
        assert_eq!(timeouts.head, Duration::from_secs(1));
        assert_eq!(timeouts.body_window, Duration::from_secs(3600));
        for (name, value) in [
            ("API_HEAD_TIMEOUT", "0"),
            ("API_HEAD_TIMEOUT", "5s"),
            ("API_BODY_TIMEOUT", "3601"),
        ] {
            assert_eq!(settings(&[(name, value)]).unwrap_err().name, name);
        }
    }

    #[test]
    fn flags_accept_compose_spellings() {
        assert!(
            settings(&[("INBOX_ALLOW_REMOTE", "TRUE")])
                .unwrap()
                .api
                .inbox_allow_remote
        );
        assert!(
            settings(&[("INBOX_ALLOW_REMOTE", "1")])
                .unwrap()
                .api
                .inbox_allow_remote
        );
        assert!(!settings(&[]).unwrap().api.inbox_allow_remote);
        assert_eq!(
            settings(&[("INBOX_ALLOW_REMOTE", "maybe")])
                .unwrap_err()
                .name,
            "INBOX_ALLOW_REMOTE"
        );
    }

    #[test]
    fn the_demo_seed_is_on_unless_turned_off() {
        assert!(settings(&[]).unwrap().seed_demo);
        assert!(!settings(&[("SEED_DEMO", "false")]).unwrap().seed_demo);
        assert_eq!(
            settings(&[("SEED_DEMO", "tal vez")]).unwrap_err().name,
            "SEED_DEMO"
        );
    }

    #[test]
    fn smtp_host_disables_the_dev_inbox() {
        assert!(
            !settings(&[("SMTP_HOST", "smtp.example.org")])
                .unwrap()
                .dev_inbox_enabled()
        );
    }

    #[test]
    fn secrets_do_not_leak_through_debug() {
        let s =
            settings(&[("JWT_SECRET", "a-very-secret-value-that-is-long-enough-1234")]).unwrap();
        assert!(!format!("{s:?}").contains("a-very-secret-value"));
    }

    #[test]
    fn embedded_url_encodes_the_password() {
        let s = settings(&[("POSTGRES_PASSWORD", "p@ss word/")]).unwrap();
        assert_eq!(
            s.admin_database_url().expose_secret(),
            "postgresql://postgres:p%40ss%20word%2F@127.0.0.1:54322/postgres"
        );
    }
}
