//! The only stage that talks to PostgreSQL.
//!
//! Every request is one transaction on a pooled `authenticator` connection:
//!
//! 1. `BEGIN … READ ONLY|READ WRITE`, the request settings (`search_path`, the role's own
//!    settings, `role`, `request.jwt.claims`, `request.method`, `request.path`,
//!    `request.headers`, `request.cookies`, `timezone`) in one statement, and the
//!    statement's preparation — pipelined, so the statement is analysed with the request's
//!    `search_path`;
//! 2. the statement (and the pre-request function, counts…) followed by `COMMIT`, pipelined.
//!
//! Prepared statements are cached per connection. The work runs on its own task so a
//! client that disconnects mid-request cannot leave a connection inside a transaction.

use deadpool_postgres::{Object, Pool};
use serde_json::Value;
use tokio_postgres::Statement;
use tokio_postgres::types::ToSql;

use super::error::{ApiError, PgError};
use super::sql::fragment::{SqlBuilder, TextParam};

/// Prepared statements kept per connection before the cache is reset.
const STATEMENT_CACHE_LIMIT: usize = 1_000;

/// The settings PostgREST applies to every request's transaction.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// `"schema", "public", "extensions"`.
    pub search_path: String,
    /// `ALTER ROLE … SET` settings of the role (applied before switching to it).
    pub role_settings: Vec<(String, String)>,
    pub role: String,
    /// JSON text of the claims (with `role`).
    pub claims: String,
    pub method: String,
    pub path: String,
    /// JSON object of the request headers (lower-case names, no cookie).
    pub headers: String,
    /// JSON object of the cookies.
    pub cookies: String,
    pub timezone: Option<String>,
    /// Whether the role is the anonymous one (42501 is then 401, not 403).
    pub anonymous: bool,
    /// `SELECT "schema"."fn"()` run after the settings, if configured.
    pub pre_request: Option<String>,
    /// Settings of the called function hoisted into the transaction (`statement_timeout`
    /// applies to the whole statement, not only inside the function).
    pub function_settings: Vec<(String, String)>,
}

impl RequestContext {
    fn settings(&self) -> (Vec<String>, Vec<String>) {
        let mut names = vec!["search_path".to_owned()];
        let mut values = vec![self.search_path.clone()];
        for (name, value) in &self.role_settings {
            names.push(name.clone());
            values.push(value.clone());
        }
        for (name, value) in [
            ("role", &self.role),
            ("request.jwt.claims", &self.claims),
            ("request.method", &self.method),
            ("request.path", &self.path),
            ("request.headers", &self.headers),
            ("request.cookies", &self.cookies),
        ] {
            names.push(name.to_owned());
            values.push(value.clone());
        }
        if let Some(zone) = &self.timezone {
            names.push("timezone".to_owned());
            values.push(zone.clone());
        }
        for (name, value) in &self.function_settings {
            names.push(name.clone());
            values.push(value.clone());
        }
        (names, values)
    }
}

/// One statement setting every request GUC, transaction-local, in order.
const SET_CONFIG: &str = "SELECT pg_catalog.set_config(k, v, true) FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS s(k, v, n) ORDER BY n";

/// What a read statement returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOutcome {
    pub total: Option<i64>,
    pub page_total: i64,
    pub body: String,
    pub response_headers: Option<String>,
    pub response_status: Option<String>,
    /// `EXPLAIN (FORMAT JSON)` estimate of the count query, when asked for.
    pub planned_total: Option<i64>,
}

/// Runs a read statement (the shape of `sql::read::read_statement`) in a read-only
/// transaction, optionally with an `EXPLAIN` of the count query for planned counts.
pub async fn read(
    pool: &Pool,
    context: RequestContext,
    statement: SqlBuilder,
    explain_count: Option<SqlBuilder>,
) -> Result<ReadOutcome, ApiError> {
    let pool = pool.clone();
    let task = tokio::spawn(async move {
        let client = pool.get().await?;
        let anonymous = context.anonymous;
        let result = read_on(&client, &context, statement, explain_count).await;
        if result.is_err() {
            // Leave the connection clean for the next request.
            let _ = client.batch_execute("ROLLBACK").await;
        }
        result.map_err(|error| database_error(error, anonymous))
    });
    task.await
        .map_err(|error| ApiError::Internal(format!("request task failed: {error}")))?
}

async fn read_on(
    client: &Object,
    context: &RequestContext,
    statement: SqlBuilder,
    explain_count: Option<SqlBuilder>,
) -> Result<ReadOutcome, Failure> {
    if client.statement_cache.size() > STATEMENT_CACHE_LIMIT {
        client.statement_cache.clear();
    }
    let (sql, params) = statement.into_parts();
    let main = begin(
        client,
        context,
        "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY",
        &sql,
    )
    .await?;
    let explain = match &explain_count {
        Some(count) => Some(
            client
                .prepare_cached(&format!("EXPLAIN (FORMAT JSON) {}", count.sql()))
                .await?,
        ),
        None => None,
    };
    let commit = client.prepare_cached("COMMIT").await?;

    let main_params = param_refs(&params);
    let main_rows = client.query(&main, &main_params);
    let explain_rows = async {
        match (&explain, &explain_count) {
            (Some(statement), Some(count)) => client
                .query(statement, &param_refs(count.params()))
                .await
                .map(Some),
            _ => Ok(None),
        }
    };
    let commit_done = client.execute(&commit, &[]);
    let (rows, explained, committed) = tokio::join!(main_rows, explain_rows, commit_done);
    let rows = rows?;
    let explained = explained?;
    committed?;

    let row = rows
        .first()
        .ok_or_else(|| Failure::Internal("read statement returned no row".into()))?;
    Ok(ReadOutcome {
        total: row.try_get(0)?,
        page_total: row.try_get(1)?,
        body: row.try_get(2)?,
        response_headers: row.try_get(3)?,
        response_status: row.try_get(4)?,
        planned_total: explained.and_then(|rows| planned_rows(&rows)),
    })
}

/// What a write or function-call statement returns (see `sql::mutate`, `sql::call`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementOutcome {
    pub total: Option<i64>,
    pub page_total: i64,
    /// `Location` parts of a single inserted row (`key=eq.value`).
    pub header: Vec<String>,
    pub body: String,
    pub response_headers: Option<String>,
    pub response_status: Option<String>,
    /// Rows really inserted by an upsert (`None` when not counted).
    pub inserted: Option<i32>,
}

/// How the transaction ends, decided after seeing the statement's outcome.
#[derive(Debug)]
pub enum Decision {
    Commit,
    /// `Prefer: tx=rollback` (or `db-tx-end=rollback`): same response, nothing kept.
    Rollback,
    /// A check failed (singular, max-affected, PUT key): roll back and answer this error.
    Fail(ApiError),
}

/// The kind of transaction a statement needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransactionMode {
    pub read_only: bool,
    /// `READ COMMITTED`, `REPEATABLE READ` or `SERIALIZABLE`.
    pub isolation: &'static str,
}

/// Serialization failures and deadlocks are retried this many times in all (as PostgREST
/// 14 does), since the client cannot tell a transient conflict from a real error.
const ATTEMPTS: usize = 3;

/// Runs a write or function call: settings, the statement, then `decide` picks commit,
/// rollback or failure.
pub async fn run(
    pool: &Pool,
    context: RequestContext,
    mode: TransactionMode,
    statement: SqlBuilder,
    decide: impl Fn(&StatementOutcome) -> Decision + Send + Sync + 'static,
) -> Result<StatementOutcome, ApiError> {
    let pool = pool.clone();
    let task = tokio::spawn(async move {
        let client = pool.get().await?;
        let anonymous = context.anonymous;
        let begin_sql = format!(
            "BEGIN ISOLATION LEVEL {} {}",
            mode.isolation,
            if mode.read_only {
                "READ ONLY"
            } else {
                "READ WRITE"
            }
        );
        let (sql, params) = statement.into_parts();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let result = run_on(&client, &context, &begin_sql, &sql, &params, &decide).await;
            match result {
                Ok(outcome) => return Ok(outcome),
                Err(error) => {
                    let _ = client.batch_execute("ROLLBACK").await;
                    let transient = matches!(&error, Failure::Postgres(e)
                        if e.code().is_some_and(|c| matches!(c.code(), "40001" | "40P01")));
                    if !(transient && attempt < ATTEMPTS) {
                        return Err(match error {
                            Failure::Rejected(error) => error,
                            other => database_error(other, anonymous),
                        });
                    }
                }
            }
        }
    });
    task.await
        .map_err(|error| ApiError::Internal(format!("request task failed: {error}")))?
}

async fn run_on(
    client: &Object,
    context: &RequestContext,
    begin_sql: &str,
    sql: &str,
    params: &[TextParam],
    decide: &(impl Fn(&StatementOutcome) -> Decision + Send + Sync),
) -> Result<StatementOutcome, Failure> {
    if client.statement_cache.size() > STATEMENT_CACHE_LIMIT {
        client.statement_cache.clear();
    }
    let main = begin(client, context, begin_sql, sql).await?;
    let rows = client.query(&main, &param_refs(params)).await?;
    let row = rows
        .first()
        .ok_or_else(|| Failure::Internal("statement returned no row".into()))?;
    let outcome = StatementOutcome {
        total: row.try_get(0)?,
        page_total: row.try_get(1)?,
        header: row.try_get(2)?,
        body: row.try_get(3)?,
        response_headers: row.try_get(4)?,
        response_status: row.try_get(5)?,
        inserted: row.try_get(6)?,
    };
    match decide(&outcome) {
        Decision::Commit => {
            client.batch_execute("COMMIT").await?;
        }
        Decision::Rollback => {
            // Deferred constraints still get their say before the rollback.
            client
                .batch_execute("SET CONSTRAINTS ALL IMMEDIATE; ROLLBACK")
                .await?;
        }
        Decision::Fail(error) => return Err(Failure::Rejected(error)),
    }
    Ok(outcome)
}

/// Runs one statement in a read-only request transaction and returns its rows (OpenAPI
/// privileges, `EXPLAIN` output).
pub async fn query(
    pool: &Pool,
    context: RequestContext,
    statement: SqlBuilder,
) -> Result<Vec<tokio_postgres::Row>, ApiError> {
    let pool = pool.clone();
    let task = tokio::spawn(async move {
        let client = pool.get().await?;
        let anonymous = context.anonymous;
        let result = async {
            let (sql, params) = statement.into_parts();
            let prepared = begin(
                &client,
                &context,
                "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY",
                &sql,
            )
            .await?;
            let commit = client.prepare_cached("COMMIT").await?;
            let refs = param_refs(&params);
            let (rows, committed) =
                tokio::join!(client.query(&prepared, &refs), client.execute(&commit, &[]));
            committed?;
            Ok::<_, Failure>(rows?)
        }
        .await;
        if result.is_err() {
            let _ = client.batch_execute("ROLLBACK").await;
        }
        result.map_err(|error| database_error(error, anonymous))
    });
    task.await
        .map_err(|error| ApiError::Internal(format!("request task failed: {error}")))?
}

/// Phase 1: `BEGIN`, the settings, the pre-request function and the preparation of the
/// main statement, pipelined. Returns the prepared main statement.
async fn begin(
    client: &Object,
    context: &RequestContext,
    begin_sql: &str,
    main_sql: &str,
) -> Result<Statement, Failure> {
    let begin = client.prepare_cached(begin_sql).await?;
    let settings = client.prepare_cached(SET_CONFIG).await?;
    let (names, values) = context.settings();
    let began = client.execute(&begin, &[]);
    let setting_params: [&(dyn ToSql + Sync); 2] = [&names, &values];
    let configured = client.execute(&settings, &setting_params);
    let pre_requested = async {
        if let Some(sql) = &context.pre_request {
            let statement = client.prepare_cached(sql).await?;
            client.execute(&statement, &[]).await?;
        }
        Ok::<(), tokio_postgres::Error>(())
    };
    // Prepared after the settings in the same pipeline: names resolve with the request's
    // search_path.
    let prepared = client.prepare_cached(main_sql);
    let (began, configured, pre_requested, prepared) =
        tokio::join!(began, configured, pre_requested, prepared);
    began?;
    configured?;
    pre_requested?;
    Ok(prepared?)
}

fn param_refs(params: &[TextParam]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

/// `[0]."Plan"."Plan Rows"` of an `EXPLAIN (FORMAT JSON)`.
fn planned_rows(rows: &[tokio_postgres::Row]) -> Option<i64> {
    let text: Value = rows.first()?.try_get(0).ok()?;
    text.get(0)?
        .get("Plan")?
        .get("Plan Rows")?
        .as_f64()
        .map(|n| n as i64)
}

/// What can go wrong while talking to the database.
#[derive(Debug)]
pub enum Failure {
    Postgres(tokio_postgres::Error),
    Pool(deadpool_postgres::PoolError),
    Internal(String),
    /// A post-statement check refused the outcome.
    Rejected(ApiError),
}

impl From<tokio_postgres::Error> for Failure {
    fn from(error: tokio_postgres::Error) -> Self {
        Failure::Postgres(error)
    }
}

impl From<deadpool_postgres::PoolError> for Failure {
    fn from(error: deadpool_postgres::PoolError) -> Self {
        Failure::Pool(error)
    }
}

/// Maps a failure to the client's error: PostgreSQL errors keep their SQLSTATE; lost
/// connections are 503; pool time-outs 504.
pub fn database_error(failure: Failure, anonymous: bool) -> ApiError {
    match failure {
        Failure::Pool(error) => ApiError::from(error),
        Failure::Internal(message) => ApiError::Internal(message),
        Failure::Rejected(error) => error,
        Failure::Postgres(error) => match error.as_db_error() {
            Some(db) => ApiError::from_database(PgError::from(db), anonymous),
            None if error.is_closed() || is_io_error(&error) => {
                ApiError::Unavailable(error.to_string())
            }
            // A statement whose result the gateway cannot read is the gateway's bug.
            None => ApiError::Internal(format!("{error:?}")),
        },
    }
}

/// Whether the connection itself failed (not a statement or a conversion).
fn is_io_error(error: &tokio_postgres::Error) -> bool {
    std::error::Error::source(error).is_some_and(|source| source.is::<std::io::Error>())
}
