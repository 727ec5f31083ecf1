//! The only stage that talks to PostgreSQL.
//!
//! Every request is one transaction on a pooled `authenticator` connection of the worker's
//! own pool ([`ApiPool`]), sent as one pipeline with a single `Sync` ([`wire`]): the request
//! settings (`search_path`, the role's own settings, `role`, `request.jwt.claims`,
//! `request.method`, `request.path`, `request.headers`, `request.cookies`, `timezone`,
//! hoisted function settings; `transaction_read_only` for reads) in one statement; the
//! pre-request function; the request's statement. Statements the connection has not
//! prepared yet are parsed in place, after the settings, so names resolve with the
//! request's `search_path`.
//!
//! Usually that is an implicit transaction: the server commits it at the `Sync`, or rolls
//! it back if anything failed — one round trip and no `BEGIN`/`COMMIT` statements. An
//! explicit `BEGIN` is sent only when the transaction needs another isolation level, or
//! when a write's outcome must be seen before the transaction ends (singular responses,
//! `max-affected`, `PUT`, `tx=rollback`); the end is then a second round trip.
//!
//! Implicit transactions (every read, and the writes and calls whose end does not depend
//! on their outcome) do not check a connection out themselves: they are queued for the
//! worker's [`TransactionBatches`], which sends them alone while connections are free and
//! several in one write, each with its own `Sync`, while all are busy; writes sent together
//! are group-committed there (a write's settings say how it commits, [`Commit`]). A
//! cancelled one runs to its end (a write commits) and its answer is dropped, unless it was
//! still queued.
//!
//! A write cancelled mid-way through an explicit transaction (the client went away) leaves
//! its connection out of step; the pool replaces it, which ends the transaction.

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::{Arc, OnceLock};

use deadpool::managed::TimeoutType;
use futures_util::future::LocalBoxFuture;
use serde_json::Value;
use tokio_postgres::types::{FromSql, Type};

use super::error::{ApiError, PgError};
use super::sql::fragment::{SqlBuilder, TextParam};
use crate::db::api_pool::{ApiConnection, ApiPool, ApiPoolError};
use crate::db::batches::{Access, Commit, OwnedQuery, Statements, TransactionBatches};
use crate::db::wire::{self, Query, Row};

/// The settings PostgREST applies to every request's transaction.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// `"schema", "public", "extensions"`.
    pub search_path: String,
    /// `ALTER ROLE … SET` settings of the role (applied before switching to it).
    pub role_settings: Vec<(String, String)>,
    pub role: String,
    /// JSON text of the claims (with `role`).
    pub claims: Arc<str>,
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
    /// The transaction's settings as `name, value, name, value, …` parameters, in the order
    /// they are applied. With `commit`, the first pair says how the transaction commits:
    /// `synchronous_commit` off for an early commit ([`Commit::Early`]), first so that the
    /// role's and the function's own settings may still decide otherwise; otherwise
    /// `request.method`, set again below (a no-op), so that both are one statement, prepared
    /// once per connection.
    fn settings(&self, read_only: bool, commit: Option<Commit>) -> Vec<&str> {
        let capacity = 10 + self.role_settings.len() + self.function_settings.len();
        let mut pairs = Vec::with_capacity(2 * capacity);
        match commit {
            Some(Commit::Early) => pairs.extend(["synchronous_commit", "off"]),
            Some(Commit::Flushed) => pairs.extend(["request.method", self.method.as_str()]),
            None => {}
        }
        if read_only {
            pairs.extend(["transaction_read_only", "on"]);
        }
        pairs.extend(["search_path", self.search_path.as_str()]);
        for (name, value) in &self.role_settings {
            pairs.extend([name.as_str(), value.as_str()]);
        }
        pairs.extend([
            "role",
            self.role.as_str(),
            "request.jwt.claims",
            &self.claims,
            "request.method",
            self.method.as_str(),
            "request.path",
            self.path.as_str(),
            "request.headers",
            self.headers.as_str(),
            "request.cookies",
            self.cookies.as_str(),
        ]);
        if let Some(zone) = &self.timezone {
            pairs.extend(["timezone", zone.as_str()]);
        }
        for (name, value) in &self.function_settings {
            pairs.extend([name.as_str(), value.as_str()]);
        }
        pairs
    }
}

/// `SELECT set_config($1, $2, true), set_config($3, $4, true), …` for `count` settings,
/// transaction-local. A select list is evaluated left to right (PostgREST's own settings
/// query relies on it too), so the role's settings apply before the switch to the role and
/// the function's after it. One text per count, so each is prepared once per connection.
fn set_config_statement(count: usize) -> Cow<'static, str> {
    const CACHED: usize = 32;
    static STATEMENTS: OnceLock<Vec<String>> = OnceLock::new();
    let build = |count: usize| {
        let calls: Vec<String> = (0..count)
            .map(|i| {
                format!(
                    "pg_catalog.set_config(${}, ${}, true)",
                    2 * i + 1,
                    2 * i + 2
                )
            })
            .collect();
        format!("SELECT {}", calls.join(", "))
    };
    if count >= CACHED {
        return Cow::Owned(build(count));
    }
    let statements = STATEMENTS.get_or_init(|| (0..CACHED).map(build).collect());
    Cow::Borrowed(statements[count].as_str())
}

/// What a read statement returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOutcome {
    pub total: Option<i64>,
    pub page_total: i64,
    pub body: Vec<u8>,
    pub response_headers: Option<String>,
    pub response_status: Option<String>,
    /// `EXPLAIN (FORMAT JSON)` estimate of the count query, when asked for.
    pub planned_total: Option<i64>,
}

/// Runs a read statement (the shape of `sql::read::read_statement`) in a read-only
/// transaction, optionally with an `EXPLAIN` of the count query for planned counts.
pub async fn read(
    batches: &Rc<TransactionBatches>,
    context: Arc<RequestContext>,
    statement: SqlBuilder,
    explain_count: Option<SqlBuilder>,
) -> Result<ReadOutcome, ApiError> {
    let mut statements = vec![owned(statement)];
    if let Some(count) = explain_count {
        let (count_sql, count_params) = count.into_parts();
        statements.push(OwnedQuery {
            sql: Cow::Owned(format!("EXPLAIN (FORMAT JSON) {count_sql}")),
            params: count_params.into_iter().map(|param| param.0).collect(),
        });
    }
    batched(batches, &context, Access::ReadOnly, &statements.into())
        .await
        .and_then(|results| read_outcome(&results))
        .map_err(|failure| database_error(failure, context.anonymous))
}

fn read_outcome(results: &[Vec<Row>]) -> Result<ReadOutcome, Failure> {
    let row = first_row(results, "read statement")?;
    Ok(ReadOutcome {
        total: row.try_get(0)?,
        page_total: row.try_get(1)?,
        body: row.try_get::<RawValue>(2)?.0,
        response_headers: row.try_get(3)?,
        response_status: row.try_get(4)?,
        planned_total: results.get(1).and_then(|rows| planned_rows(rows)),
    })
}

/// A column's value exactly as the server sent it (binary format), whatever its type; NULL
/// is empty. Bodies are read so: `text` and `json` are their UTF-8 text, and a media type
/// handler's `bytea` (or `jsonb`, with its version byte) reaches the client as PostgREST
/// sends it.
struct RawValue(Vec<u8>);

impl<'a> FromSql<'a> for RawValue {
    fn from_sql(
        _ty: &Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(RawValue(raw.to_vec()))
    }

    fn from_sql_null(_ty: &Type) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(RawValue(Vec::new()))
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }
}

/// What a write or function-call statement returns (see `sql::mutate`, `sql::call`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementOutcome {
    pub total: Option<i64>,
    pub page_total: i64,
    /// `Location` parts of a single inserted row (`key=eq.value`).
    pub header: Vec<String>,
    pub body: Vec<u8>,
    pub response_headers: Option<String>,
    pub response_status: Option<String>,
    /// Rows really inserted by an upsert (`None` when not counted).
    pub inserted: Option<i32>,
}

/// How the rows of a write or call statement read as a [`StatementOutcome`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultShape {
    /// PostgREST's one row: total, page total, `Location` parts, body, the response GUCs,
    /// really inserted rows.
    Summary,
    /// One row per written row with the response GUCs; the last row's are the statement's
    /// (a write with nothing to return, `sql::mutate`).
    GucsPerRow,
}

impl ResultShape {
    /// The outcome of the statement whose rows are `results[0]`.
    fn outcome(self, results: &[Vec<Row>]) -> Result<StatementOutcome, Failure> {
        match self {
            ResultShape::Summary => {
                // Only a call answered by a media type handler's cast of its single scalar
                // has a body that aggregates nothing; past its one row (an offset) there is
                // no row at all, which PostgREST reads as no rows of a total of 0.
                if results.first().is_some_and(Vec::is_empty) {
                    return Ok(StatementOutcome {
                        total: Some(0),
                        page_total: 0,
                        header: Vec::new(),
                        body: Vec::new(),
                        response_headers: None,
                        response_status: None,
                        inserted: None,
                    });
                }
                let row = first_row(results, "statement")?;
                Ok(StatementOutcome {
                    total: row.try_get(0)?,
                    page_total: row.try_get(1)?,
                    header: row.try_get(2)?,
                    body: row.try_get::<RawValue>(3)?.0,
                    response_headers: row.try_get(4)?,
                    response_status: row.try_get(5)?,
                    inserted: row.try_get(6)?,
                })
            }
            ResultShape::GucsPerRow => {
                let rows = results.first().map_or(&[][..], Vec::as_slice);
                let (response_headers, response_status) = match rows.last() {
                    Some(row) => (row.try_get(0)?, row.try_get(1)?),
                    None => (None, None),
                };
                Ok(StatementOutcome {
                    total: None,
                    page_total: i64::try_from(rows.len()).unwrap_or(i64::MAX),
                    header: Vec::new(),
                    body: Vec::new(),
                    response_headers,
                    response_status,
                    inserted: None,
                })
            }
        }
    }
}

/// What is checked on a write's or call's outcome before its transaction ends.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutcomeChecks {
    /// `PUT`: exactly one row (PGRST105's sibling, the key mismatch).
    pub put: bool,
    /// Singular `Accept`: exactly one row (PGRST116).
    pub singular: bool,
    /// `Prefer: max-affected=N, handling=strict` (PGRST124).
    pub max_affected: Option<i64>,
    /// `Prefer: tx=rollback` (or `db-tx-end=rollback`): same response, nothing kept.
    pub rollback: bool,
}

impl OutcomeChecks {
    /// Whether the transaction's end depends on the outcome (otherwise it commits with
    /// the statement, in one round trip).
    fn needed(&self) -> bool {
        self.put || self.singular || self.max_affected.is_some() || self.rollback
    }

    fn decide(&self, rows: i64) -> Decision {
        if self.put && rows != 1 {
            return Decision::Fail(ApiError::PutMismatch);
        }
        if self.singular && rows != 1 {
            return Decision::Fail(ApiError::Singular { rows });
        }
        if let Some(limit) = self.max_affected
            && rows > limit
        {
            return Decision::Fail(ApiError::MaxAffected { rows });
        }
        if self.rollback {
            Decision::Rollback
        } else {
            Decision::Commit
        }
    }
}

/// How the transaction ends, decided after seeing the statement's outcome.
#[derive(Debug)]
enum Decision {
    Commit,
    Rollback,
    /// A check failed: roll back and answer this error.
    Fail(ApiError),
}

/// The kind of transaction a statement needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransactionMode {
    pub read_only: bool,
    /// `READ COMMITTED`, `REPEATABLE READ` or `SERIALIZABLE`.
    pub isolation: &'static str,
}

/// The level API connections start with (see `db::api_pool`).
const DEFAULT_ISOLATION: &str = "READ COMMITTED";

/// Serialization failures and deadlocks are retried this many times in all (as PostgREST
/// 14 does), since the client cannot tell a transient conflict from a real error.
const ATTEMPTS: usize = 3;

/// Runs a write or function call: settings, the statement (whose rows read as `shape`),
/// then `checks` decide between commit, rollback and failure. A transaction that ends with
/// its statement (no checks, the default isolation) is queued for the worker's
/// [`TransactionBatches`] like a read; the others keep a connection until they end.
pub async fn run(
    pool: &ApiPool,
    batches: &Rc<TransactionBatches>,
    context: Arc<RequestContext>,
    mode: TransactionMode,
    statement: SqlBuilder,
    shape: ResultShape,
    checks: OutcomeChecks,
) -> Result<StatementOutcome, ApiError> {
    if !checks.needed() && mode.isolation == DEFAULT_ISOLATION {
        let access = if mode.read_only {
            Access::ReadOnly
        } else {
            Access::ReadWrite
        };
        let statements = Rc::from([owned(statement)]);
        let mut attempt = 1;
        loop {
            let result = batched(batches, &context, access, &statements)
                .await
                .and_then(|results| shape.outcome(&results));
            if attempt < ATTEMPTS && transient(&result) {
                attempt += 1;
                continue;
            }
            return result.map_err(|failure| database_error(failure, context.anonymous));
        }
    }
    on_connection(pool, context, move |connection, context| {
        Box::pin(async move {
            let (sql, params) = statement.into_parts();
            let params = texts(&params);
            let mut attempt = 1;
            loop {
                let result =
                    run_on(connection, &context, mode, &sql, &params, shape, &checks).await;
                if attempt < ATTEMPTS && transient(&result) {
                    attempt += 1;
                    roll_back_if_open(connection).await;
                    continue;
                }
                return result;
            }
        })
    })
    .await
}

/// A serialization failure or deadlock: the whole transaction may simply be run again.
fn transient<T>(result: &Result<T, Failure>) -> bool {
    matches!(result, Err(Failure::Database(error))
        if error.server().is_some_and(|e| matches!(e.code.as_str(), "40001" | "40P01")))
}

async fn run_on(
    connection: &mut ApiConnection,
    context: &RequestContext,
    mode: TransactionMode,
    sql: &str,
    params: &[&str],
    shape: ResultShape,
    checks: &OutcomeChecks,
) -> Result<StatementOutcome, Failure> {
    let end = if checks.needed() {
        End::Caller
    } else {
        End::Commit
    };
    let statements = [Query::new(sql, params)];
    let results = send(connection, context, mode, &statements, end).await?;
    let outcome = shape.outcome(&results)?;
    if end == End::Caller {
        match checks.decide(outcome.page_total) {
            Decision::Commit => {
                connection.pipeline(&[Query::new("COMMIT", &[])]).await?;
            }
            Decision::Rollback => {
                // Deferred constraints still get their say before the rollback.
                connection
                    .pipeline(&[
                        Query::new("SET CONSTRAINTS ALL IMMEDIATE", &[]),
                        Query::new("ROLLBACK", &[]),
                    ])
                    .await?;
            }
            Decision::Fail(error) => return Err(Failure::Rejected(error)),
        }
    }
    Ok(outcome)
}

/// Runs a write's or call's `EXPLAIN` in the transaction the statement itself would have
/// (`EXPLAIN ANALYZE` executes it), ended as PostgREST ends it: with a rollback when
/// `Prefer: tx=rollback` or `db-tx-end` asks for one, else a commit. Returns its rows.
pub async fn explain(
    pool: &ApiPool,
    batches: &Rc<TransactionBatches>,
    context: Arc<RequestContext>,
    mode: TransactionMode,
    statement: SqlBuilder,
    rollback: bool,
) -> Result<Vec<Row>, ApiError> {
    if !rollback && mode.isolation == DEFAULT_ISOLATION {
        let access = if mode.read_only {
            Access::ReadOnly
        } else {
            Access::ReadWrite
        };
        let statements = Rc::from([owned(statement)]);
        let results = batched(batches, &context, access, &statements)
            .await
            .map_err(|failure| database_error(failure, context.anonymous))?;
        return Ok(results.into_iter().next().unwrap_or_default());
    }
    on_connection(pool, context, move |connection, context| {
        Box::pin(async move {
            let (sql, params) = statement.into_parts();
            let params = texts(&params);
            let statements = [Query::new(&sql, &params)];
            let results = send(connection, &context, mode, &statements, End::Caller).await?;
            let end = if rollback { "ROLLBACK" } else { "COMMIT" };
            connection.pipeline(&[Query::new(end, &[])]).await?;
            Ok(results.into_iter().next().unwrap_or_default())
        })
    })
    .await
}

/// Runs one statement in a read-only request transaction and returns its rows (OpenAPI
/// privileges, `EXPLAIN` output).
pub async fn query(
    batches: &Rc<TransactionBatches>,
    context: Arc<RequestContext>,
    statement: SqlBuilder,
) -> Result<Vec<Row>, ApiError> {
    let statements = Rc::from([owned(statement)]);
    let results = batched(batches, &context, Access::ReadOnly, &statements)
        .await
        .map_err(|failure| database_error(failure, context.anonymous))?;
    Ok(results.into_iter().next().unwrap_or_default())
}

/// Runs `statements` in an implicit transaction after the request's settings (and
/// pre-request function), on whichever of the worker's connections is free or together
/// with other requests' transactions ([`TransactionBatches`]); returns the rows of each of
/// `statements`.
async fn batched(
    batches: &Rc<TransactionBatches>,
    context: &Arc<RequestContext>,
    access: Access,
    statements: &Rc<[OwnedQuery]>,
) -> Result<Vec<Vec<Row>>, Failure> {
    let transaction = RequestTransaction::new(context, access, statements);
    let first = transaction.prelude_len;
    let count = statements.len();
    match batches.run(access, transaction).await {
        Ok(Ok(mut results)) => {
            results.truncate(first + count);
            Ok(results.split_off(first.min(results.len())))
        }
        Ok(Err(error)) => Err(Failure::Database(error)),
        Err(error) => Err(Failure::Pool(error)),
    }
}

/// A request's implicit transaction as queued for the worker's batches. Its settings and
/// pre-request call are read from the request's context when its batch is sent (how it
/// commits is known only then), and its statements are shared with a retry: nothing is
/// copied to queue it.
struct RequestTransaction {
    context: Arc<RequestContext>,
    read_only: bool,
    /// The settings statement (its text depends on how many settings there are).
    set_config: Cow<'static, str>,
    /// How many statements come before the request's own.
    prelude_len: usize,
    statements: Rc<[OwnedQuery]>,
}

impl RequestTransaction {
    fn new(context: &Arc<RequestContext>, access: Access, statements: &Rc<[OwnedQuery]>) -> Self {
        let read_only = access == Access::ReadOnly;
        let prelude = Prelude::of(
            context,
            read_only,
            Self::commit_slot(read_only, Commit::Flushed),
        );
        Self {
            prelude_len: prelude.len(),
            set_config: prelude.set_config,
            context: Arc::clone(context),
            read_only,
            statements: Rc::clone(statements),
        }
    }

    /// A write's settings say how it commits; a read has nothing to commit.
    fn commit_slot(read_only: bool, commit: Commit) -> Option<Commit> {
        (!read_only).then_some(commit)
    }
}

impl Statements for RequestTransaction {
    fn statements(&self, commit: Commit) -> Vec<(&str, Vec<&str>)> {
        let commit = Self::commit_slot(self.read_only, commit);
        let prelude = Prelude::of(&self.context, self.read_only, commit);
        let mut all = Vec::with_capacity(prelude.len() + self.statements.len());
        all.push((self.set_config.as_ref(), prelude.settings));
        all.extend(prelude.pre_request.map(|sql| (sql, Vec::new())));
        all.extend(self.statements.iter().map(OwnedQuery::borrowed));
        all
    }
}

fn owned(statement: SqlBuilder) -> OwnedQuery {
    let (sql, params) = statement.into_parts();
    OwnedQuery {
        sql: Cow::Owned(sql),
        params: params.into_iter().map(|param| param.0).collect(),
    }
}

/// What every request transaction starts with: its settings in one statement, then the
/// pre-request function if one is configured.
struct Prelude<'c> {
    set_config: Cow<'static, str>,
    settings: Vec<&'c str>,
    pre_request: Option<&'c str>,
}

impl<'c> Prelude<'c> {
    fn of(context: &'c RequestContext, read_only: bool, commit: Option<Commit>) -> Self {
        let settings = context.settings(read_only, commit);
        Self {
            set_config: set_config_statement(settings.len() / 2),
            settings,
            pre_request: context.pre_request.as_deref(),
        }
    }

    /// How many statements it is.
    fn len(&self) -> usize {
        1 + usize::from(self.pre_request.is_some())
    }
}

/// Who ends the request's transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// It commits with the statements (or rolls back if any failed).
    Commit,
    /// It stays open for the caller to end after looking at the outcome.
    Caller,
}

/// Sends the request's transaction — settings, pre-request function, `statements` — as one
/// pipeline and returns the rows of each of `statements`.
async fn send(
    connection: &mut ApiConnection,
    context: &RequestContext,
    mode: TransactionMode,
    statements: &[Query<'_>],
    end: End,
) -> Result<Vec<Vec<Row>>, Failure> {
    let explicit = end == End::Caller || mode.isolation != DEFAULT_ISOLATION;
    let begin = explicit.then(|| {
        format!(
            "BEGIN ISOLATION LEVEL {} {}",
            mode.isolation,
            if mode.read_only {
                "READ ONLY"
            } else {
                "READ WRITE"
            }
        )
    });
    let prelude = Prelude::of(context, mode.read_only && !explicit, None);

    let mut queries = Vec::with_capacity(statements.len() + 4);
    if let Some(begin) = &begin {
        queries.push(Query::new(begin, &[]));
    }
    queries.push(Query::new(&prelude.set_config, &prelude.settings));
    if let Some(pre_request) = prelude.pre_request {
        queries.push(Query::new(pre_request, &[]));
    }
    let first = queries.len();
    queries.extend_from_slice(statements);
    if explicit && end == End::Commit {
        queries.push(Query::new("COMMIT", &[]));
    }

    let mut results = connection.pipeline(&queries).await?;
    results.truncate(first + statements.len());
    Ok(results.split_off(first))
}

/// The first row of the first statement's result.
fn first_row<'r>(results: &'r [Vec<Row>], what: &str) -> Result<&'r Row, Failure> {
    results
        .first()
        .and_then(|rows| rows.first())
        .ok_or_else(|| Failure::Internal(format!("{what} returned no row")))
}

/// Checks out a connection and runs `work` on it; a transaction left open by a failure is
/// rolled back so the connection goes back clean (a cancelled one is replaced by the pool).
async fn on_connection<T>(
    pool: &ApiPool,
    context: Arc<RequestContext>,
    work: impl for<'c> FnOnce(
        &'c mut ApiConnection,
        Arc<RequestContext>,
    ) -> LocalBoxFuture<'c, Result<T, Failure>>,
) -> Result<T, ApiError> {
    let mut connection = pool
        .get()
        .await
        .map_err(|error| database_error(Failure::Pool(Rc::new(error)), false))?;
    let anonymous = context.anonymous;
    let result = work(&mut connection, context).await;
    if result.is_err() {
        roll_back_if_open(&mut connection).await;
    }
    result.map_err(|error| database_error(error, anonymous))
}

async fn roll_back_if_open(connection: &mut ApiConnection) {
    if connection.in_transaction() {
        // If this fails too, the connection is not idle and the pool replaces it.
        let _ = connection.pipeline(&[Query::new("ROLLBACK", &[])]).await;
    }
}

fn texts(params: &[TextParam]) -> Vec<&str> {
    params.iter().map(|param| param.0.as_str()).collect()
}

/// `[0]."Plan"."Plan Rows"` of an `EXPLAIN (FORMAT JSON)`.
fn planned_rows(rows: &[Row]) -> Option<i64> {
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
    Database(wire::Error),
    /// No connection could be had (shared by every transaction that waited for it).
    Pool(Rc<ApiPoolError>),
    Internal(String),
    /// A post-statement check refused the outcome.
    Rejected(ApiError),
}

impl From<wire::Error> for Failure {
    fn from(error: wire::Error) -> Self {
        Failure::Database(error)
    }
}

/// Maps a failure to the client's error, as PostgREST does: PostgreSQL errors keep their
/// SQLSTATE; a connection that cannot be opened is 503 PGRST000, one lost mid-request 503
/// PGRST001; waiting too long for a free pooled connection 504 PGRST003.
pub fn database_error(failure: Failure, anonymous: bool) -> ApiError {
    match failure {
        Failure::Pool(error) => pool_error(&error),
        Failure::Internal(message) => ApiError::Internal(message),
        Failure::Rejected(error) => error,
        Failure::Database(wire::Error::Server(error)) => {
            ApiError::from_database(PgError::from(&*error), anonymous)
        }
        Failure::Database(error @ (wire::Error::Io(_) | wire::Error::Closed)) => {
            ApiError::ConnectionLost(error.to_string())
        }
        // A statement whose result the gateway cannot read is the gateway's bug.
        Failure::Database(error) => ApiError::Internal(error.to_string()),
    }
}

/// What not getting a connection is for the client.
fn pool_error(error: &ApiPoolError) -> ApiError {
    match error {
        ApiPoolError::Timeout(TimeoutType::Create) => {
            ApiError::ConnectionFailed("timed out connecting to the database".into())
        }
        ApiPoolError::Timeout(_) => ApiError::PoolTimeout,
        // The server's own refusal (starting up, shutting down, a bad password) or the
        // socket's error, without the pool's wording around it.
        ApiPoolError::Backend(error) => ApiError::ConnectionFailed(error.to_string()),
        error => ApiError::ConnectionFailed(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statement_without_a_row_is_no_rows_of_a_total_of_zero() {
        let outcome = ResultShape::Summary.outcome(&[Vec::new()]).unwrap();
        assert_eq!((outcome.total, outcome.page_total), (Some(0), 0));
        assert!(outcome.body.is_empty());
    }

    #[test]
    fn bodies_are_read_as_sent_whatever_their_type() {
        let read = |ty: &Type, raw: Option<&[u8]>| RawValue::from_sql_nullable(ty, raw).unwrap().0;
        assert_eq!(read(&Type::TEXT, Some("año".as_bytes())), "año".as_bytes());
        // A handler's bytes and jsonb (with its version byte) as PostgREST sends them.
        assert_eq!(read(&Type::BYTEA, Some(&[0x89, b'P', 0])), [0x89, b'P', 0]);
        assert_eq!(read(&Type::JSONB, Some(b"\x01{}")), b"\x01{}");
        assert!(RawValue::accepts(&Type::XML));
        // A handler may return NULL (a function without a row): an empty body.
        assert!(read(&Type::BYTEA, None).is_empty());
    }

    #[test]
    fn connection_failures_map_like_postgrest() {
        let code = |failure: Failure| database_error(failure, false).code();
        let refused = || wire::Error::Io(std::io::ErrorKind::ConnectionRefused.into());
        // Opening a connection failed: PGRST000, with the cause and not the pool's words.
        let failed = database_error(
            Failure::Pool(Rc::new(ApiPoolError::Backend(refused()))),
            false,
        );
        assert_eq!(failed.code(), "PGRST000");
        assert!(
            !failed.body()["details"]
                .as_str()
                .unwrap()
                .contains("creating a new object"),
            "{}",
            failed.body()
        );
        assert_eq!(
            code(Failure::Pool(Rc::new(ApiPoolError::Timeout(
                TimeoutType::Create
            )))),
            "PGRST000"
        );
        // Waiting for a free connection: PGRST003; losing one mid-request: PGRST001.
        assert_eq!(
            code(Failure::Pool(Rc::new(ApiPoolError::Timeout(
                TimeoutType::Wait
            )))),
            "PGRST003"
        );
        assert_eq!(code(Failure::Database(refused())), "PGRST001");
        assert_eq!(code(Failure::Database(wire::Error::Closed)), "PGRST001");
    }

    fn context() -> RequestContext {
        RequestContext {
            search_path: "\"public\", \"extensions\"".into(),
            role_settings: vec![("statement_timeout".into(), "3s".into())],
            role: "anon".into(),
            claims: r#"{"role":"anon"}"#.into(),
            method: "GET".into(),
            path: "/items".into(),
            headers: "{}".into(),
            cookies: "{}".into(),
            timezone: Some("America/Santiago".into()),
            anonymous: true,
            pre_request: None,
            function_settings: vec![("statement_timeout".into(), "1s".into())],
        }
    }

    #[test]
    fn settings_apply_role_settings_before_the_role_and_function_settings_last() {
        let context = context();
        let pairs = context.settings(true, None);
        let names: Vec<&str> = pairs.iter().step_by(2).copied().collect();
        assert_eq!(
            names,
            [
                "transaction_read_only",
                "search_path",
                "statement_timeout",
                "role",
                "request.jwt.claims",
                "request.method",
                "request.path",
                "request.headers",
                "request.cookies",
                "timezone",
                "statement_timeout",
            ]
        );
        assert_eq!(pairs.last(), Some(&"1s"));
        assert!(
            !context
                .settings(false, None)
                .contains(&"transaction_read_only")
        );
    }

    #[test]
    fn a_write_says_first_how_it_commits_in_one_statement_either_way() {
        let context = context();
        let early = context.settings(false, Some(Commit::Early));
        let flushed = context.settings(false, Some(Commit::Flushed));
        // Before the role's and the function's settings, which may decide otherwise.
        assert_eq!(early[..2], ["synchronous_commit", "off"]);
        // Otherwise a no-op: the request's method, which is set again later.
        assert_eq!(flushed[..2], ["request.method", "GET"]);
        assert_eq!(flushed[2..], early[2..]);
        assert_eq!(flushed[2..], context.settings(false, None)[..]);
        let method = flushed.iter().rposition(|name| *name == "request.method");
        assert_eq!(method.map(|at| flushed[at + 1]), Some("GET"));
    }

    #[test]
    fn the_settings_statement_has_one_call_per_setting_in_order() {
        assert_eq!(
            set_config_statement(2),
            "SELECT pg_catalog.set_config($1, $2, true), pg_catalog.set_config($3, $4, true)"
        );
        // Past the cached counts the statement is built the same way.
        let long = set_config_statement(40);
        assert!(long.ends_with("pg_catalog.set_config($79, $80, true)"));
        assert_eq!(long.matches("set_config(").count(), 40);
    }
}
