//! Settings of the whole stack, read from environment variables (and a `.env` file).
//!
//! Names follow Supabase's self-hosting `.env` wherever one exists (`JWT_SECRET`,
//! `ANON_KEY`, `SERVICE_ROLE_KEY`, `SITE_URL`, `API_EXTERNAL_URL`, `POSTGRES_PASSWORD`,
//! `SMTP_*`, ...), so an existing self-hosting configuration carries over. Every setting
//! has a default that gives a working local stack; the README lists them all.
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

/// Default port of the HTTP API and web app (Supabase local development uses the same).
pub const DEFAULT_API_PORT: u16 = 54321;
/// Default port of the embedded PostgreSQL cluster.
pub const DEFAULT_DB_PORT: u16 = 54322;

/// Everything the gateway needs to start.
#[derive(Debug, Clone)]
pub struct Settings {
    pub api: ApiSettings,
    pub rest: RestSettings,
    pub database: DatabaseSettings,
    pub jwt: JwtSettings,
    pub smtp: SmtpSettings,
    pub log: LogSettings,
    /// Where the gateway keeps its state: the embedded cluster, the generated JWT secret.
    pub data_dir: PathBuf,
    /// Load the demo (a teacher with a filled week, an admin, a content creator; see
    /// `sql/seed/demo.sql`) into a database that never had it, when `serve` starts
    /// (`SEED_DEMO`, default true for local development; compose.yaml and the tests turn it
    /// off). The demo accounts share a published password: never enable it in production.
    pub seed_demo: bool,
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
}

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

        let port = vars.parse("API_PORT", DEFAULT_API_PORT)?;
        let external_url = match vars.get("API_EXTERNAL_URL") {
            Some(raw) => parse_url("API_EXTERNAL_URL", &raw)?,
            None => parse_url("API_EXTERNAL_URL", &format!("http://localhost:{port}"))?,
        };
        let site_url = match vars.get("SITE_URL") {
            Some(raw) => parse_url("SITE_URL", &raw)?,
            None => external_url.clone(),
        };

        let database_url = vars.get("DATABASE_URL");
        if let Some(url) = &database_url {
            validate_database_url(url)?;
        }
        let password = vars
            .get("POSTGRES_PASSWORD")
            .unwrap_or_else(|| "postgres".to_owned());
        let authenticator_password = vars
            .get("AUTHENTICATOR_PASSWORD")
            .or_else(|| database_url.as_deref().and_then(password_of_url))
            .unwrap_or_else(|| password.clone());

        let jwt_secret = vars.get("JWT_SECRET");
        if let Some(secret) = &jwt_secret
            && secret.len() < 32
        {
            return Err(ConfigError {
                name: "JWT_SECRET",
                reason: "must be at least 32 characters long".into(),
            });
        }
        let expiry_secs: u64 = match vars.get("JWT_EXPIRY") {
            Some(_) => vars.parse("JWT_EXPIRY", 3600)?,
            None => vars.parse("JWT_EXP", 3600)?,
        };
        if expiry_secs < 30 {
            return Err(ConfigError {
                name: "JWT_EXPIRY",
                reason: "must be at least 30 seconds".into(),
            });
        }

        let pool_size: usize = vars.parse("DB_POOL_SIZE", 10)?;
        if pool_size == 0 {
            return Err(ConfigError {
                name: "DB_POOL_SIZE",
                reason: "must be at least 1".into(),
            });
        }

        let schemas = vars
            .get("PGRST_DB_SCHEMAS")
            .map(|raw| split_list(&raw))
            .unwrap_or_else(|| vec!["public".to_owned()]);
        if schemas.is_empty() {
            return Err(ConfigError {
                name: "PGRST_DB_SCHEMAS",
                reason: "must name at least one schema".into(),
            });
        }
        let max_rows: u64 = vars.parse("PGRST_DB_MAX_ROWS", 1000)?;

        Ok(Settings {
            rest: RestSettings {
                schemas,
                extra_search_path: vars
                    .get("PGRST_DB_EXTRA_SEARCH_PATH")
                    .map(|raw| split_list(&raw))
                    .unwrap_or_else(|| vec!["public".to_owned(), "extensions".to_owned()]),
                // 0 means "no limit", as an unset db-max-rows does in PostgREST.
                max_rows: (max_rows > 0).then_some(max_rows),
                anon_role: vars
                    .get("PGRST_DB_ANON_ROLE")
                    .unwrap_or_else(|| "anon".to_owned()),
                aggregates_enabled: vars.flag("PGRST_DB_AGGREGATES_ENABLED")?,
                plan_enabled: vars.flag("PGRST_DB_PLAN_ENABLED")?,
                tx_end: vars
                    .get("PGRST_DB_TX_END")
                    .unwrap_or_else(|| "commit".to_owned()),
                pre_request: vars.get("PGRST_DB_PRE_REQUEST"),
                max_body_size: vars.parse("REST_MAX_BODY_SIZE", 10 * 1024 * 1024)?,
            },
            api: ApiSettings {
                host: vars.parse("API_HOST", IpAddr::from([0, 0, 0, 0]))?,
                port,
                external_url,
                site_url,
                additional_redirect_urls: vars
                    .get("ADDITIONAL_REDIRECT_URLS")
                    .map(|raw| split_list(&raw))
                    .unwrap_or_default(),
                web_dir: vars
                    .get("WEB_DIR")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| PathBuf::from("frontend/dist")),
                shutdown_timeout: Duration::from_secs(vars.parse("SHUTDOWN_TIMEOUT", 10)?),
                inbox_allow_remote: vars.flag("INBOX_ALLOW_REMOTE")?,
                api_key_required: vars.flag_or("API_KEY_REQUIRED", true)?,
            },
            database: DatabaseSettings {
                url: database_url.map(SecretString::from),
                port: vars.parse("DB_PORT", DEFAULT_DB_PORT)?,
                password: SecretString::from(password),
                authenticator_password: SecretString::from(authenticator_password),
                pg_bin_dir: vars.get("PG_BIN_DIR").map(PathBuf::from),
                pool_size,
                pool_timeout: Duration::from_secs(vars.parse("DB_POOL_TIMEOUT", 10)?),
            },
            jwt: JwtSettings {
                secret: jwt_secret.map(SecretString::from),
                expiry: Duration::from_secs(expiry_secs),
                anon_key: vars.get("ANON_KEY").map(SecretString::from),
                service_role_key: vars.get("SERVICE_ROLE_KEY").map(SecretString::from),
                publishable_key: vars.get("PUBLISHABLE_KEY").map(SecretString::from),
                secret_key: vars.get("SECRET_KEY").map(SecretString::from),
                jwks: vars.get("JWT_JWKS"),
            },
            smtp: SmtpSettings {
                host: vars.get("SMTP_HOST"),
                port: vars.parse("SMTP_PORT", 587)?,
                user: vars.get("SMTP_USER"),
                pass: vars.get("SMTP_PASS").map(SecretString::from),
                admin_email: vars
                    .get("SMTP_ADMIN_EMAIL")
                    .unwrap_or_else(|| "no-reply@cielo.local".to_owned()),
                sender_name: vars
                    .get("SMTP_SENDER_NAME")
                    .unwrap_or_else(|| "Cielo".to_owned()),
            },
            log: LogSettings {
                json: vars
                    .get("LOG_FORMAT")
                    .is_some_and(|format| format.eq_ignore_ascii_case("json")),
                filter: vars
                    .get("RUST_LOG")
                    .or_else(|| vars.get("LOG_LEVEL"))
                    .unwrap_or_else(|| "info".to_owned()),
            },
            data_dir: vars
                .get("DATA_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(".data")),
            seed_demo: vars.flag_or("SEED_DEMO", true)?,
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

/// Lookup helper that treats empty values as unset (as Compose does with `VAR=`).
struct Vars<'a>(&'a dyn Fn(&str) -> Option<String>);

impl Vars<'_> {
    fn get(&self, name: &str) -> Option<String> {
        (self.0)(name)
            .map(|value| value.trim().to_owned())
            .filter(|value| !value.is_empty())
    }

    /// Booleans as Compose files write them: true/false, 1/0, yes/no.
    fn flag(&self, name: &'static str) -> Result<bool, ConfigError> {
        self.flag_or(name, false)
    }

    fn flag_or(&self, name: &'static str, default: bool) -> Result<bool, ConfigError> {
        match self
            .get(name)
            .map(|raw| raw.to_ascii_lowercase())
            .as_deref()
        {
            None => Ok(default),
            Some("false" | "0" | "no" | "off") => Ok(false),
            Some("true" | "1" | "yes" | "on") => Ok(true),
            Some(other) => Err(ConfigError {
                name,
                reason: format!("{other:?}: expected true or false"),
            }),
        }
    }

    fn parse<T>(&self, name: &'static str, default: T) -> Result<T, ConfigError>
    where
        T: FromStr,
        T::Err: std::fmt::Display,
    {
        match self.get(name) {
            None => Ok(default),
            Some(raw) => raw.parse().map_err(|error: T::Err| ConfigError {
                name,
                reason: format!("{raw:?}: {error}"),
            }),
        }
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
        name: "DATABASE_URL",
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
