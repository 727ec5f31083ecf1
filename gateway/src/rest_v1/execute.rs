//! The only stage that talks to PostgreSQL.
//!
//! Every request is one transaction on a pooled `authenticator` connection of the worker's
//! own pool ([`ApiPool`]): `BEGIN … READ ONLY|READ WRITE`; the request settings
//! (`search_path`, the role's own settings, `role`, `request.jwt.claims`, `request.method`,
//! `request.path`, `request.headers`, `request.cookies`, `timezone`, hoisted function
//! settings) in one statement; the pre-request function; the statement; `COMMIT`.
//!
//! When the connection has every statement of the request prepared already, all of that is
//! sent at once — one round trip. Otherwise the transaction is opened and the missing
//! statements are prepared in a first pipeline (so names resolve with the request's
//! `search_path`), and the rest follows in a second one. Writes wait for the statement's
//! outcome before deciding how the transaction ends.
//!
//! A request that is cancelled mid-transaction (the client went away) leaves its connection
//! marked; the pool rolls the transaction back before anyone else gets the connection.

use futures_util::future::BoxFuture;
use serde_json::Value;
use tokio_postgres::Statement;
use tokio_postgres::types::ToSql;

use super::error::{ApiError, PgError};
use super::sql::fragment::{SqlBuilder, TextParam};
use crate::db::api_pool::{ApiConnection, ApiPool};

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
    /// Names and values of the transaction's settings, in the order they are applied.
    fn settings(&self) -> (Vec<&str>, Vec<&str>) {
        let capacity = 8 + self.role_settings.len() + self.function_settings.len();
        let mut names = Vec::with_capacity(capacity);
        let mut values = Vec::with_capacity(capacity);
        names.push("search_path");
        values.push(self.search_path.as_str());
        for (name, value) in &self.role_settings {
            names.push(name);
            values.push(value);
        }
        for (name, value) in [
            ("role", &self.role),
            ("request.jwt.claims", &self.claims),
            ("request.method", &self.method),
            ("request.path", &self.path),
            ("request.headers", &self.headers),
            ("request.cookies", &self.cookies),
        ] {
            names.push(name);
            values.push(value);
        }
        if let Some(zone) = &self.timezone {
            names.push("timezone");
            values.push(zone);
        }
        for (name, value) in &self.function_settings {
            names.push(name);
            values.push(value);
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
    pool: &ApiPool,
    context: RequestContext,
    statement: SqlBuilder,
    explain_count: Option<SqlBuilder>,
) -> Result<ReadOutcome, ApiError> {
    on_connection(pool, context, move |connection, context| {
        Box::pin(async move { read_on(connection, &context, statement, explain_count).await })
    })
    .await
}

async fn read_on(
    connection: &mut ApiConnection,
    context: &RequestContext,
    statement: SqlBuilder,
    explain_count: Option<SqlBuilder>,
) -> Result<ReadOutcome, Failure> {
    let (sql, params) = statement.into_parts();
    let explain = explain_count.map(|count| {
        let (count_sql, count_params) = count.into_parts();
        (format!("EXPLAIN (FORMAT JSON) {count_sql}"), count_params)
    });
    let mut sqls = vec![sql.as_str()];
    if let Some((explain_sql, _)) = &explain {
        sqls.push(explain_sql);
    }
    let prepared = open(connection, context, READ_ONLY, &sqls).await?;
    let client = &connection.client;

    let main_params = param_refs(&params);
    let explain_rows = async {
        match (&explain, prepared.statements.get(1)) {
            (Some((_, explain_params)), Some(statement)) => client
                .query(statement, &param_refs(explain_params))
                .await
                .map(Some),
            _ => Ok(None),
        }
    };
    let (preamble, rows, explained, committed) = tokio::join!(
        preamble(client, &prepared, context),
        client.query(&prepared.statements[0], &main_params),
        explain_rows,
        client.execute(&prepared.commit, &[]),
    );
    preamble?;
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
    pool: &ApiPool,
    context: RequestContext,
    mode: TransactionMode,
    statement: SqlBuilder,
    decide: impl Fn(&StatementOutcome) -> Decision + Send + Sync + 'static,
) -> Result<StatementOutcome, ApiError> {
    let begin_sql = format!(
        "BEGIN ISOLATION LEVEL {} {}",
        mode.isolation,
        if mode.read_only {
            "READ ONLY"
        } else {
            "READ WRITE"
        }
    );
    on_connection(pool, context, move |connection, context| {
        Box::pin(async move {
            let (sql, params) = statement.into_parts();
            let mut attempt = 0;
            loop {
                attempt += 1;
                let result = run_on(connection, &context, &begin_sql, &sql, &params, &decide).await;
                match result {
                    Err(Failure::Postgres(error))
                        if attempt < ATTEMPTS
                            && error
                                .code()
                                .is_some_and(|c| matches!(c.code(), "40001" | "40P01")) =>
                    {
                        let _ = connection.client.batch_execute("ROLLBACK").await;
                    }
                    other => return other,
                }
            }
        })
    })
    .await
}

async fn run_on(
    connection: &mut ApiConnection,
    context: &RequestContext,
    begin_sql: &str,
    sql: &str,
    params: &[TextParam],
    decide: &(impl Fn(&StatementOutcome) -> Decision + Send + Sync),
) -> Result<StatementOutcome, Failure> {
    let prepared = open(connection, context, begin_sql, &[sql]).await?;
    let client = &connection.client;
    let refs = param_refs(params);
    let (preamble, rows) = tokio::join!(
        preamble(client, &prepared, context),
        client.query(&prepared.statements[0], &refs),
    );
    preamble?;
    let rows = rows?;
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
            client.execute(&prepared.commit, &[]).await?;
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
    pool: &ApiPool,
    context: RequestContext,
    statement: SqlBuilder,
) -> Result<Vec<tokio_postgres::Row>, ApiError> {
    on_connection(pool, context, move |connection, context| {
        Box::pin(async move {
            let (sql, params) = statement.into_parts();
            let prepared = open(connection, &context, READ_ONLY, &[&sql]).await?;
            let client = &connection.client;
            let refs = param_refs(&params);
            let (preamble, rows, committed) = tokio::join!(
                preamble(client, &prepared, &context),
                client.query(&prepared.statements[0], &refs),
                client.execute(&prepared.commit, &[]),
            );
            preamble?;
            committed?;
            Ok(rows?)
        })
    })
    .await
}

const READ_ONLY: &str = "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY";

/// Checks out a connection and runs `work` on it; a failed transaction is rolled back so
/// the connection goes back clean (a cancelled one is rolled back by the pool).
async fn on_connection<T>(
    pool: &ApiPool,
    context: RequestContext,
    work: impl for<'c> FnOnce(
        &'c mut ApiConnection,
        RequestContext,
    ) -> BoxFuture<'c, Result<T, Failure>>,
) -> Result<T, ApiError> {
    let mut connection = pool.get().await.map_err(ApiError::from)?;
    let anonymous = context.anonymous;
    connection.transaction_started();
    let result = work(&mut connection, context).await;
    if result.is_err() {
        let _ = connection.client.batch_execute("ROLLBACK").await;
    }
    connection.transaction_ended();
    result.map_err(|error| database_error(error, anonymous))
}

/// The statements of one request transaction.
struct Prepared {
    begin: Statement,
    settings: Statement,
    commit: Statement,
    pre_request: Option<Statement>,
    /// The request's own statements, in the order asked for.
    statements: Vec<Statement>,
    /// `BEGIN` and the settings were already executed (to prepare missing statements).
    begun: bool,
}

/// Finds the request's statements in the connection's cache. Any missing one is prepared
/// inside the transaction, after `BEGIN` and the settings (one pipeline), so it is
/// analysed with the request's `search_path`.
async fn open(
    connection: &mut ApiConnection,
    context: &RequestContext,
    begin_sql: &str,
    sqls: &[&str],
) -> Result<Prepared, Failure> {
    let begin = connection.prepare_cached(begin_sql).await?;
    let settings = connection.prepare_cached(SET_CONFIG).await?;
    let commit = connection.prepare_cached("COMMIT").await?;
    let pre_request_sql = context.pre_request.as_deref();
    let wanted: Vec<&str> = pre_request_sql
        .into_iter()
        .chain(sqls.iter().copied())
        .collect();
    let cached: Vec<Option<Statement>> = wanted.iter().map(|sql| connection.cached(sql)).collect();

    let (found, begun) = if cached.iter().all(Option::is_some) {
        (cached.into_iter().flatten().collect::<Vec<_>>(), false)
    } else {
        let client = &connection.client;
        let (names, values) = context.settings();
        let setting_params: [&(dyn ToSql + Sync); 2] = [&names, &values];
        let preparations = futures_util::future::join_all(
            wanted
                .iter()
                .zip(&cached)
                .filter(|(_, cached)| cached.is_none())
                .map(|(sql, _)| client.prepare(sql)),
        );
        let (began, configured, prepared) = tokio::join!(
            client.execute(&begin, &[]),
            client.execute(&settings, &setting_params),
            preparations,
        );
        began?;
        configured?;
        let mut fresh = prepared.into_iter();
        let mut found = Vec::with_capacity(wanted.len());
        for (sql, cached) in wanted.iter().zip(cached) {
            let statement = match cached {
                Some(statement) => statement,
                None => fresh
                    .next()
                    .ok_or_else(|| Failure::Internal("missing prepared statement".into()))??,
            };
            connection.remember(sql, statement.clone());
            found.push(statement);
        }
        (found, true)
    };
    let mut found = found.into_iter();
    let pre_request = if pre_request_sql.is_some() {
        found.next()
    } else {
        None
    };
    Ok(Prepared {
        begin,
        settings,
        commit,
        pre_request,
        statements: found.collect(),
        begun,
    })
}

/// `BEGIN` and the settings (unless [`open`] already ran them), then the pre-request
/// function. Every statement is sent on the first poll, so callers that `join!` this first
/// with their own statements pipeline the whole transaction.
async fn preamble(
    client: &tokio_postgres::Client,
    prepared: &Prepared,
    context: &RequestContext,
) -> Result<(), tokio_postgres::Error> {
    let (names, values) = context.settings();
    let setting_params: [&(dyn ToSql + Sync); 2] = [&names, &values];
    let began = async {
        if prepared.begun {
            Ok(0)
        } else {
            client.execute(&prepared.begin, &[]).await
        }
    };
    let configured = async {
        if prepared.begun {
            Ok(0)
        } else {
            client.execute(&prepared.settings, &setting_params).await
        }
    };
    let pre_requested = async {
        match &prepared.pre_request {
            Some(statement) => client.execute(statement, &[]).await,
            None => Ok(0),
        }
    };
    let (began, configured, pre_requested) = tokio::join!(began, configured, pre_requested);
    began?;
    configured?;
    pre_requested?;
    Ok(())
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
