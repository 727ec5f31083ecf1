//! The pool rest/v1 runs client requests on: `authenticator` connections, one pool per HTTP
//! worker thread, each connection with its own cache of prepared statements.
//!
//! Why per worker: a connection's I/O task runs on the thread that opened it. When a request
//! on another worker used it, every statement crossed threads twice (request → I/O task →
//! request), costing wake-ups and context switches on every round trip. A worker that only
//! uses connections it opened keeps all of that on one thread.
//!
//! Why our own statement cache: the executor needs to know *before* sending anything whether
//! every statement of a request is already prepared — then the whole transaction goes out in
//! one pipeline (one round trip); otherwise the statements are prepared after the request's
//! settings, so names resolve with the request's `search_path`.

use std::collections::HashMap;
use std::time::Duration;

use deadpool::managed::{self, Metrics, RecycleError, RecycleResult};
use tokio_postgres::{Client, NoTls, Statement};

/// Prepared statements kept per connection before the cache starts over.
const STATEMENT_CACHE_LIMIT: usize = 1_000;

/// A pooled `authenticator` connection.
pub struct ApiConnection {
    pub client: Client,
    statements: HashMap<String, Statement>,
    /// A transaction was begun and not yet ended. If the request using the connection was
    /// cancelled (the client went away), the pool rolls it back before handing the
    /// connection out again.
    in_transaction: bool,
}

impl std::fmt::Debug for ApiConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiConnection")
            .field("prepared_statements", &self.statements.len())
            .finish_non_exhaustive()
    }
}

impl ApiConnection {
    /// Marks that a transaction is open (set before `BEGIN` is sent).
    pub fn transaction_started(&mut self) {
        self.in_transaction = true;
    }

    /// Marks that the transaction ended (after `COMMIT`/`ROLLBACK` completed).
    pub fn transaction_ended(&mut self) {
        self.in_transaction = false;
    }

    /// The prepared statement for `sql`, if this connection has one.
    pub fn cached(&self, sql: &str) -> Option<Statement> {
        self.statements.get(sql).cloned()
    }

    /// Remembers a statement prepared on this connection.
    pub fn remember(&mut self, sql: &str, statement: Statement) {
        if self.statements.len() >= STATEMENT_CACHE_LIMIT {
            // Dropping the handles closes the statements on the server.
            self.statements.clear();
        }
        self.statements.insert(sql.to_owned(), statement);
    }

    /// The statement for `sql`, prepared now if needed (with the session's current
    /// settings).
    pub async fn prepare_cached(&mut self, sql: &str) -> Result<Statement, tokio_postgres::Error> {
        if let Some(statement) = self.cached(sql) {
            return Ok(statement);
        }
        let statement = self.client.prepare(sql).await?;
        self.remember(sql, statement.clone());
        Ok(statement)
    }
}

#[derive(Debug)]
pub struct ApiManager {
    config: tokio_postgres::Config,
}

impl managed::Manager for ApiManager {
    type Type = ApiConnection;
    type Error = tokio_postgres::Error;

    async fn create(&self) -> Result<ApiConnection, tokio_postgres::Error> {
        let (client, connection) = self.config.connect(NoTls).await?;
        // On the current thread's runtime: the worker that asked for the connection.
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::warn!(%error, "API database connection closed with an error");
            }
        });
        Ok(ApiConnection {
            client,
            statements: HashMap::new(),
            in_transaction: false,
        })
    }

    async fn recycle(
        &self,
        connection: &mut ApiConnection,
        _: &Metrics,
    ) -> RecycleResult<tokio_postgres::Error> {
        if connection.client.is_closed() {
            return Err(RecycleError::message("connection closed"));
        }
        if connection.in_transaction {
            // The request was dropped mid-transaction; its statements are still queued
            // ahead of this one, so the rollback ends exactly that transaction.
            connection.client.batch_execute("ROLLBACK").await?;
            connection.in_transaction = false;
        }
        Ok(())
    }
}

pub type ApiPool = managed::Pool<ApiManager>;

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
