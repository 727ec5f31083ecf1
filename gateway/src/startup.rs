//! Start-up: the database (embedded or external), migrations, and the HTTP server with
//! every service mounted. The whole HTTP surface is assembled in [`Application::build`].

use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use actix_cors::Cors;
use actix_web::dev::{Server, ServerHandle, ServiceRequest};
use actix_web::http::header::{
    ACCEPT_ENCODING, ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_REQUEST_METHOD, HeaderValue,
    ORIGIN,
};
use actix_web::middleware::{Compress, from_fn};
use actix_web::{App, HttpServer, web};
use secrecy::SecretString;

use crate::config::{ConfigError, Settings};
use crate::db::batches::TransactionBatches;
use crate::db::embedded::{EmbeddedError, EmbeddedOptions, EmbeddedPostgres};
use crate::db::{Database, DbError, api_pool};
use crate::dev::status::StatusInfo;
use crate::edge::selective::Selective;
use crate::functions_v1::native::NativeFunctions;
use crate::identity::{KeyError, ProjectKeys};
use crate::rest_v1::schema_cache::reload::{LoadError, SchemaCacheState};
use crate::state::AppState;
use crate::{
    auth_v1, dev, edge, functions_v1, generation, health, realtime_v1, rest_v1, storage_v1,
    telemetry, web as webapp,
};

/// Anything that keeps the stack from starting, with a message meant for the operator.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Keys(#[from] KeyError),
    #[error(transparent)]
    Embedded(#[from] EmbeddedError),
    #[error(transparent)]
    Database(#[from] DbError),
    #[error("could not listen on {address}: {source}")]
    Listen {
        address: String,
        source: std::io::Error,
    },
    #[error("HTTP server failed: {0}")]
    Server(#[source] std::io::Error),
    #[error("the embedded PostgreSQL server exited unexpectedly ({0}); see DATA_DIR/postgres.log")]
    DatabaseExited(String),
    #[error(transparent)]
    SchemaCache(#[from] LoadError),
    #[error(transparent)]
    Auth(#[from] auth_v1::AuthStartError),
    #[error("storage/v1 could not start: {0}")]
    Storage(String),
}

/// The HTTP server, bound and ready to run.
pub struct Application {
    server: Server,
    port: u16,
}

impl std::fmt::Debug for Application {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Application")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

/// Response headers browsers may read (CORS). Union of what PostgREST, GoTrue, Storage and
/// the functions relay expose, since supabase-js reads them.
const EXPOSED_HEADERS: &[&str] = &[
    "content-range",
    "content-location",
    "location",
    "range-unit",
    "preference-applied",
    "content-encoding",
    "content-type",
    "content-disposition",
    "date",
    "etag",
    "server",
    "transfer-encoding",
    "x-supabase-api-version",
    "x-sb-error-code",
    "x-total-count",
    "link",
    "x-relay-error",
    "sb-error-code",
    "x-request-id",
];

impl Application {
    /// Loads the schema cache, binds the listener and assembles every service, with the
    /// product's native functions (`generate-plan`, ...) at `/functions/v1/<name>`.
    /// `API_PORT=0` picks a free port.
    pub async fn build(
        settings: Arc<Settings>,
        keys: ProjectKeys,
        db: Database,
    ) -> Result<Self, StartError> {
        let natives = generation::native_functions(&settings, &db);
        Self::build_with_functions(settings, keys, db, natives).await
    }

    /// Like [`Application::build`], serving `natives` at `/functions/v1/<name>` besides the
    /// functions directory.
    pub async fn build_with_functions(
        settings: Arc<Settings>,
        keys: ProjectKeys,
        db: Database,
        natives: NativeFunctions,
    ) -> Result<Self, StartError> {
        let schema_cache = SchemaCacheState::start(
            db.owner.clone(),
            db.owner_config.clone(),
            settings.rest.clone(),
            "authenticator".to_owned(),
        )
        .await?;
        let address = format!("{}:{}", settings.api.host, settings.api.port);
        let listener =
            TcpListener::bind((settings.api.host, settings.api.port)).map_err(|source| {
                StartError::Listen {
                    address: address.clone(),
                    source,
                }
            })?;
        let port = listener
            .local_addr()
            .map_err(|source| StartError::Listen { address, source })?
            .port();

        // One API pool and one auth pool per worker (see `db::api_pool`); DB_POOL_SIZE is
        // shared among them.
        let workers = std::thread::available_parallelism().map_or(1, usize::from);
        let per_worker = settings.database.pool_size.div_ceil(workers);
        let auth_db = db.clone();
        let auth_pools =
            crate::db::thread_pools::ThreadPools::new(move || auth_db.auth_pool(per_worker));
        let auth =
            auth_v1::AuthState::start(settings.clone(), keys.clone(), db.auth.clone(), auth_pools)
                .await?;
        let web_dir = web_dir_if_built(&settings);
        let shutdown_timeout = settings.api.shutdown_timeout.as_secs();
        let client_timeouts = settings.api.client_timeouts;
        let authenticator_config = db.authenticator_config.clone();
        let pool_timeout = settings.database.pool_timeout;
        let group_commit = settings.database.group_commit;
        let functions_host = web::Data::new(functions_v1::FunctionsHost::new(
            &settings,
            keys.clone(),
            port,
            natives,
        ));
        let storage = web::Data::new(
            storage_v1::StorageState::new(&settings, keys.clone(), &db, per_worker)
                .map_err(StartError::Storage)?,
        );
        let hub = realtime::Hub::new();
        let capture = realtime_v1::changes::start(
            hub.clone(),
            db.owner_config.clone(),
            db.owner.clone(),
            realtime_v1::changes::CaptureSettings {
                slot: settings.realtime.slot_name.clone(),
                max_lag_bytes: i64::from(settings.realtime.slot_max_lag_mb) * 1024 * 1024,
            },
        );
        let realtime = web::Data::new(realtime_v1::RealtimeState {
            hub,
            tokens: Arc::new(realtime_v1::GatewayTokens::new(keys.clone())),
            policies: Arc::new(realtime_v1::DatabasePolicies::new(db.owner.clone())),
            changes: Arc::new(realtime_v1::changes::DatabaseChanges::new(
                db.owner.clone(),
                capture.clone(),
            )),
            capture: capture.clone(),
            limits: realtime::Limits {
                channels_per_connection: settings.realtime.max_channels_per_client,
                joins_per_second: settings.realtime.max_joins_per_second,
                events_per_second: settings.realtime.max_events_per_second,
                ..realtime::Limits::default()
            },
        });
        realtime_v1::database::start(
            realtime.hub.clone(),
            db.owner_config.clone(),
            db.owner.clone(),
        );
        let relay_listening = realtime_v1::relay::start(
            realtime.hub.clone(),
            db.owner_config.clone(),
            db.owner.clone(),
        );
        // Hear the other processes before reporting ready; a database that refuses LISTEN
        // only delays start-up a little.
        if tokio::time::timeout(std::time::Duration::from_secs(5), relay_listening)
            .await
            .is_err()
        {
            tracing::warn!("the realtime relay is not listening yet; continuing");
        }
        // Changes committed once the process reports ready are captured.
        if tokio::time::timeout(std::time::Duration::from_secs(5), capture.settled())
            .await
            .is_err()
        {
            tracing::warn!("realtime change capture has not started yet; continuing");
        }
        let state = web::Data::new(AppState {
            settings,
            keys,
            db,
            schema_cache,
            auth,
            started_at: Instant::now(),
        });

        let server = HttpServer::new(move || {
            let web_dir = web_dir.clone();
            let api_pool =
                api_pool::worker_pool(authenticator_config.clone(), per_worker, pool_timeout);
            let app = App::new()
                .app_data(state.clone())
                .app_data(realtime.clone())
                .app_data(functions_host.clone())
                .app_data(storage.clone());
            let app = match api_pool {
                Ok(pool) => app
                    .app_data(TransactionBatches::new(
                        pool.clone(),
                        per_worker,
                        group_commit,
                    ))
                    .app_data(web::Data::new(pool)),
                Err(error) => {
                    // Requests on this worker then answer 500 (no pool); say why once.
                    tracing::error!(%error, "could not build this worker's API pool");
                    app
                }
            };
            app
                // Innermost first: the last `wrap` sees the request first.
                .wrap(from_fn(edge::api_key_gate::gate))
                .wrap(cors())
                .wrap(compression())
                .wrap(telemetry::RequestLog)
                .route("/health", web::get().to(health::gateway_health))
                .route("/config.json", web::get().to(webapp::runtime_config))
                .configure(auth_v1::routes)
                .configure(rest_v1::routes)
                .configure(realtime_v1::routes)
                .configure(storage_v1::routes)
                .configure(functions_v1::routes)
                .configure(dev::inbox::routes)
                .configure(move |config| webapp::configure(config, web_dir))
        })
        .workers(workers)
        // Small writes (websocket frames above all) go out at once instead of waiting
        // for the peer's delayed ACK.
        .tcp_nodelay(true)
        // A connection whose request body was not read to the end is shut at once instead
        // of being drained for a second: for a websocket that is every close (browsers and
        // Node wait for the server to close first, and realtime-js takes a close slower than
        // its heartbeat for a failure and reconnects). Short lingers are not an option:
        // below the dispatcher's 500 ms clock the socket was never shut at all. Early 401s
        // and 413s still reach the client (the answer is flushed before the shutdown).
        .client_disconnect_timeout(Duration::ZERO)
        .client_request_timeout(client_timeouts.head)
        .listen(listener)
        .map_err(StartError::Server)?
        .shutdown_timeout(shutdown_timeout)
        .run();
        Ok(Self { server, port })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn handle(&self) -> ServerHandle {
        self.server.handle()
    }

    /// Serves until SIGINT/SIGTERM (graceful: in-flight requests finish first).
    pub async fn run_until_stopped(self) -> Result<(), StartError> {
        self.server.await.map_err(StartError::Server)
    }
}

fn web_dir_if_built(settings: &Settings) -> Option<PathBuf> {
    let dir = &settings.api.web_dir;
    if dir.join("index.html").is_file() {
        Some(dir.clone())
    } else {
        tracing::warn!(
            web_dir = %dir.display(),
            "the web app is not built (no index.html); run `make run` or `npm run build` in frontend/"
        );
        None
    }
}

/// CORS as Supabase's API gateway answers browsers: any origin (no credentials), every
/// method the SDK uses, requested headers reflected, the headers supabase-js reads exposed.
/// Only for requests it has work for ([`is_cors_request`]); the others get
/// `Access-Control-Allow-Origin: *` alone, as the Fetch standard advises for a wildcard
/// origin (no `Vary: Origin` is needed then).
fn cors() -> Selective<Cors> {
    let cors = Cors::default()
        .allow_any_origin()
        .send_wildcard()
        .allowed_methods(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"])
        .allow_any_header()
        .expose_headers(EXPOSED_HEADERS.iter().copied())
        .max_age(86_400);
    Selective::new(cors, is_cors_request)
        .otherwise_header(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"))
}

/// Browsers send `Origin` on every cross-origin request and every preflight.
fn is_cors_request(request: &ServiceRequest) -> bool {
    let headers = request.headers();
    headers.contains_key(ORIGIN) || headers.contains_key(ACCESS_CONTROL_REQUEST_METHOD)
}

/// gzip/brotli/zstd for clients that send `Accept-Encoding`; without it the answer is
/// identity anyway, so the others skip the middleware. Functions' answers pass through as
/// the function wrote them (an encoder would also hold back a stream's chunks).
fn compression() -> Selective<Compress> {
    Selective::new(Compress::default(), |request| {
        let path = request.path();
        // Object bytes go out as stored: ranges, Content-Length and ETags refer to them,
        // and most are already compressed (images, PDFs, video).
        request.headers().contains_key(ACCEPT_ENCODING)
            && !path.starts_with("/functions/v1/")
            && !path.starts_with("/storage/v1/object/")
            && !path.starts_with("/storage/v1/render/")
            && !path.starts_with("/storage/v1/upload/")
    })
}

/// Starts the embedded cluster when `DATABASE_URL` is unset.
pub async fn start_embedded_database(
    settings: &Settings,
) -> Result<Option<EmbeddedPostgres>, StartError> {
    if !settings.uses_embedded_database() {
        return Ok(None);
    }
    let options = EmbeddedOptions {
        data_dir: settings.data_dir.clone(),
        port: settings.database.port,
        superuser_password: settings.database.password.clone(),
        bin_dir: settings.database.pg_bin_dir.clone(),
        fsync: true,
        max_slot_wal_keep_mb: settings.realtime.slot_max_lag_mb,
    };
    Ok(Some(EmbeddedPostgres::start(&options).await?))
}

/// How the gateway connects to its database: `DATABASE_URL`, or its own cluster the
/// closest way (the Unix socket; `status` still prints the TCP address for people).
fn database_url(settings: &Settings, embedded: Option<&EmbeddedPostgres>) -> SecretString {
    match embedded {
        Some(embedded) => embedded.local_url(&settings.database.password, "postgres"),
        None => settings.admin_database_url(),
    }
}

/// `cielo serve`: the whole stack in the foreground until Ctrl-C / SIGTERM.
pub async fn serve(settings: Settings) -> Result<(), StartError> {
    let settings = Arc::new(settings);
    let keys = ProjectKeys::load(&settings)?;
    let embedded = start_embedded_database(&settings).await?;

    let result = serve_with_database(settings, keys, embedded.as_ref()).await;
    if let Some(embedded) = embedded {
        embedded.stop().await;
    }
    result
}

async fn serve_with_database(
    settings: Arc<Settings>,
    keys: ProjectKeys,
    embedded: Option<&EmbeddedPostgres>,
) -> Result<(), StartError> {
    let db = Database::connect_and_migrate(&database_url(&settings, embedded), &settings).await?;
    if settings.seed_demo {
        load_demo(&db).await?;
    }
    let status = StatusInfo::new(&settings, &keys);
    let app = Application::build(settings, keys, db).await?;
    let handle = app.handle();
    let mut server = Box::pin(app.run_until_stopped());
    // The server's first poll starts its workers and installs the SIGINT/SIGTERM handlers;
    // until then a signal would kill the process outright. Poll it once before telling
    // anyone the stack is up (a supervisor or test may stop it right away).
    let first_poll = std::future::poll_fn(|cx| Poll::Ready(server.as_mut().poll(cx))).await;
    if let Poll::Ready(result) = first_poll {
        return result;
    }
    crate::dev::status::print_started(&status);
    match embedded {
        None => server.await,
        Some(embedded) => {
            tokio::select! {
                result = &mut server => result,
                how = embedded.exited() => {
                    // The server future must be polled while the stop is awaited: it is
                    // the server that handles the stop command.
                    let (_, _) = tokio::join!(handle.stop(false), &mut server);
                    Err(StartError::DatabaseExited(how))
                }
            }
        }
    }
}

/// The demo of `make run` (SEED_DEMO), loaded once per database.
async fn load_demo(db: &Database) -> Result<(), StartError> {
    let mut client = db.owner.get().await.map_err(DbError::from)?;
    if crate::db::seed::apply_demo(&mut client)
        .await
        .map_err(DbError::from)?
    {
        tracing::info!("loaded the demo (SEED_DEMO): see the accounts in the status block");
    }
    Ok(())
}

/// `cielo migrate`: applies pending migrations and exits.
pub async fn migrate_only(settings: Settings) -> Result<(), StartError> {
    let embedded = start_embedded_database(&settings).await?;
    let result =
        Database::connect_and_migrate(&database_url(&settings, embedded.as_ref()), &settings)
            .await
            .map(|_| ())
            .map_err(StartError::from);
    if let Some(embedded) = embedded {
        embedded.stop().await;
    }
    result
}
