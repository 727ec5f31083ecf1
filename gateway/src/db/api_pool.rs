//! The pool rest/v1 runs client requests on: `authenticator` connections ([`wire`]), one
//! pool per HTTP worker thread, each connection with its own prepared statements.
//!
//! Why per worker: a connection reads and writes its socket in the request's own task, and
//! the socket is registered with the runtime of the worker that opened it. A worker that
//! only uses connections it opened never waits on another thread's reactor, and a request's
//! whole round trip stays on one thread.

use std::time::Duration;

use deadpool::managed::{self, Metrics, RecycleError, RecycleResult};

use super::wire;

/// Settings every API connection starts with, whatever the role or database defaults say:
/// a request transaction without an explicit `BEGIN` is then `READ COMMITTED` and
/// read-write unless the request's own settings make it read-only (PostgREST opens every
/// transaction with these levels).
const STARTUP_SETTINGS: [(&str, &str); 2] = [
    ("default_transaction_isolation", "read committed"),
    ("default_transaction_read_only", "off"),
];

/// A pooled `authenticator` connection.
pub type ApiConnection = wire::Connection;

#[derive(Debug)]
pub struct ApiManager {
    config: tokio_postgres::Config,
}

impl managed::Manager for ApiManager {
    type Type = ApiConnection;
    type Error = wire::Error;

    async fn create(&self) -> Result<ApiConnection, wire::Error> {
        wire::Connection::connect(&self.config, &STARTUP_SETTINGS).await
    }

    async fn recycle(
        &self,
        connection: &mut ApiConnection,
        _: &Metrics,
    ) -> RecycleResult<wire::Error> {
        // A request cancelled mid-pipeline leaves answers unread, and one cancelled
        // between the statements and the end of its transaction leaves it open; both are
        // cheaper to replace than to repair. So is a connection the server hung up on.
        if connection.reusable() {
            Ok(())
        } else {
            Err(RecycleError::message("connection not idle or closed"))
        }
    }
}

pub type ApiPool = managed::Pool<ApiManager>;

/// What checking out a connection can fail with.
pub type ApiPoolError = managed::PoolError<wire::Error>;

/// A pool of at most `size` connections for the calling worker.
pub fn worker_pool(
    config: tokio_postgres::Config,
    size: usize,
    wait: Duration,
) -> Result<ApiPool, managed::BuildError> {
    ApiPool::builder(ApiManager { config })
        .max_size(size.max(1))
        .timeouts(managed::Timeouts {
            wait: Some(wait),
            create: Some(Duration::from_secs(5)),
            recycle: Some(Duration::from_secs(5)),
        })
        .runtime(deadpool::Runtime::Tokio1)
        .build()
}
