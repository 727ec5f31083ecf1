//! Database access: the embedded cluster, migrations, and the connections of each role.
//!
//! * The `DATABASE_URL` role (superuser `postgres` in the embedded cluster), which owns the
//!   schemas: migrations run as it, and its small [`Database::owner`] pool serves the
//!   platform's own reads and writes (schema cache, demo data, development inbox). auth/v1
//!   has its own connections of the same role ([`Database::auth`], per-thread pools from
//!   [`Database::auth_pool`]), like GoTrue's `supabase_auth_admin`.
//! * The `authenticator` role, which can only switch into `anon`, `authenticated` and
//!   `service_role`. Every client request that runs user SQL goes through an `authenticator`
//!   pool, so a bug in request handling can never act with more than those roles' rights.
//!   rest/v1 (and `/health`, which checks them) uses per-worker pools built from
//!   [`Database::authenticator_config`] (see [`api_pool`]), and sends implicit transactions
//!   several to a connection when they are all busy ([`batches`]).

pub mod api_pool;
pub mod batches;
pub mod embedded;
pub mod migrate;
pub mod notifications;
pub mod seed;
pub mod thread_pools;
pub mod wire;

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime, Timeouts};
use secrecy::{ExposeSecret, SecretString};
use tokio_postgres::NoTls;

use crate::config::Settings;

/// The shared pools, and the connection settings per-worker pools are built from.
#[derive(Clone, Debug)]
pub struct Database {
    /// A few connections of the `DATABASE_URL` role for the platform's own work.
    pub owner: Pool,
    /// auth/v1's shared pool (the `DATABASE_URL` role), for its background work (managed
    /// signing keys). Request handlers use per-thread pools ([`Database::auth_pool`]).
    pub auth: Pool,
    auth_config: tokio_postgres::Config,
    timeouts: Timeouts,
    /// Connection settings of the `DATABASE_URL` role (the schema cache listens for
    /// reload notifications with them).
    pub owner_config: tokio_postgres::Config,
    /// Connection settings of the `authenticator` role, for the per-worker API pools.
    pub authenticator_config: tokio_postgres::Config,
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("invalid database connection string: {0}")]
    Url(#[source] tokio_postgres::Error),
    #[error("could not build the connection pool: {0}")]
    Pool(String),
    #[error("could not connect to PostgreSQL as {user}: {source}")]
    Connect {
        user: String,
        #[source]
        source: tokio_postgres::Error,
    },
    #[error("could not get a database connection: {0}")]
    Checkout(#[from] deadpool_postgres::PoolError),
    #[error("{0}")]
    Migration(#[from] migrate::MigrationError),
    #[error(transparent)]
    Seed(#[from] seed::SeedError),
    #[error("could not set the password of the authenticator role: {0}")]
    Authenticator(#[source] tokio_postgres::Error),
    #[error("PostgreSQL {found} is too old; Cielo needs PostgreSQL 14 or newer")]
    TooOld { found: String },
}

impl Database {
    /// Migrates the database, makes sure `authenticator` can log in, and opens the pools.
    pub async fn connect_and_migrate(
        admin_url: &SecretString,
        settings: &Settings,
    ) -> Result<Self, DbError> {
        let owner_config: tokio_postgres::Config =
            admin_url.expose_secret().parse().map_err(DbError::Url)?;

        let mut admin_client = connect(&owner_config).await?;
        check_version(&admin_client).await?;
        let report = migrate::run(&mut admin_client, &migrate::embedded()).await?;
        tracing::info!(
            applied = report.applied.len(),
            already_applied = report.already_applied,
            "database schema is up to date"
        );

        let authenticator_config =
            authenticator_config(&owner_config, &settings.database.authenticator_password);
        ensure_authenticator_login(
            &admin_client,
            &authenticator_config,
            &settings.database.authenticator_password,
        )
        .await?;
        drop(admin_client);

        let timeouts = Timeouts {
            wait: Some(settings.database.pool_timeout),
            create: Some(Duration::from_secs(5)),
            recycle: Some(Duration::from_secs(5)),
        };
        let mut auth_config = owner_config.clone();
        auth_config.application_name("cielo-auth");
        Ok(Self {
            auth: pool(auth_config.clone(), settings.database.pool_size, timeouts)?,
            auth_config,
            timeouts,
            owner: pool(owner_config.clone(), 4, timeouts)?,
            owner_config,
            authenticator_config,
        })
    }
}

impl Database {
    /// A new pool of auth/v1 connections with room for `size`.
    pub fn auth_pool(&self, size: usize) -> Result<Pool, DbError> {
        pool(self.auth_config.clone(), size, self.timeouts)
    }

    /// A new pool of `authenticator` connections with room for `size` (storage/v1's
    /// requests, which switch into the caller's role in each transaction).
    pub fn authenticator_pool(&self, size: usize) -> Result<Pool, DbError> {
        pool(self.authenticator_config.clone(), size, self.timeouts)
    }
}

/// Same server and database as the admin connection, as `authenticator`.
fn authenticator_config(
    admin: &tokio_postgres::Config,
    password: &SecretString,
) -> tokio_postgres::Config {
    let mut config = admin.clone();
    config
        .user("authenticator")
        .password(password.expose_secret())
        .application_name("cielo-api");
    config
}

fn pool(
    mut config: tokio_postgres::Config,
    size: usize,
    timeouts: Timeouts,
) -> Result<Pool, DbError> {
    if config.get_application_name().is_none() {
        config.application_name("cielo-gateway");
    }
    let manager = Manager::from_config(
        config,
        NoTls,
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    Pool::builder(manager)
        .max_size(size)
        .timeouts(timeouts)
        .runtime(Runtime::Tokio1)
        .build()
        .map_err(|error| DbError::Pool(error.to_string()))
}

async fn connect(config: &tokio_postgres::Config) -> Result<tokio_postgres::Client, DbError> {
    let (client, connection) = config
        .connect(NoTls)
        .await
        .map_err(|source| DbError::Connect {
            user: config.get_user().unwrap_or("?").to_owned(),
            source,
        })?;
    tokio::spawn(async move {
        if let Err(error) = connection.await {
            tracing::debug!(%error, "setup connection closed");
        }
    });
    Ok(client)
}

async fn check_version(client: &tokio_postgres::Client) -> Result<(), DbError> {
    let row = client
        .query_one(
            "SELECT current_setting('server_version_num')::int, current_setting('server_version')",
            &[],
        )
        .await
        .map_err(DbError::Authenticator)?;
    let number: i32 = row.get(0);
    if number < 140000 {
        return Err(DbError::TooOld { found: row.get(1) });
    }
    Ok(())
}

/// Sets authenticator's password unless it can already log in with it. Checking first
/// keeps concurrent gateway starts (tests) from racing on the same catalog row.
async fn ensure_authenticator_login(
    admin: &tokio_postgres::Client,
    authenticator_config: &tokio_postgres::Config,
    password: &SecretString,
) -> Result<(), DbError> {
    if connect(authenticator_config).await.is_ok() {
        return Ok(());
    }
    // The database quotes the literal itself (format %L): no hand-made escaping.
    let mut attempts = 0;
    loop {
        let statement: String = admin
            .query_one(
                "SELECT format('ALTER ROLE authenticator WITH LOGIN PASSWORD %L', $1::text)",
                &[&password.expose_secret()],
            )
            .await
            .map_err(DbError::Authenticator)?
            .get(0);
        match admin.batch_execute(&statement).await {
            Ok(()) => return Ok(()),
            // Another gateway updated the role at the same moment.
            Err(error)
                if attempts < 3
                    && error
                        .as_db_error()
                        .is_some_and(|db| db.code().code() == "XX000") =>
            {
                attempts += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(error) => return Err(DbError::Authenticator(error)),
        }
    }
}
