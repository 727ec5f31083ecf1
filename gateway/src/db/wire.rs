//! A PostgreSQL connection that sends a whole request as one pipeline ending in one `Sync`.
//!
//! Why not tokio-postgres here: it ends every statement with its own `Sync`, so a request's
//! statements are separate transactions unless wrapped in `BEGIN`/`COMMIT` — two more
//! statements for the server to run on every request. Statements sent with a single `Sync`
//! run in one implicit transaction, committed at the `Sync` when nothing failed and rolled
//! back when anything did. This connection also reads and writes its socket in the calling
//! task (no I/O task to hand each message to), which is why it is only ever used by the
//! worker that opened it (see `db::api_pool`).
//!
//! Messages are encoded and decoded by `postgres-protocol`; values are decoded by
//! `postgres-types` (the same `FromSql` as tokio-postgres). Parameters are sent as text and
//! typed by the server; results come back in binary.

use std::collections::{HashMap, VecDeque};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use bytes::{BufMut, BytesMut};
use fallible_iterator::FallibleIterator;
use postgres_protocol::IsNull;
use postgres_protocol::authentication::{self, sasl};
use postgres_protocol::message::backend::{self, Message};
use postgres_protocol::message::frontend;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixStream};
use tokio_postgres::config::Host;
use tokio_postgres::types::{FromSql, Kind, Type};

/// Prepared statements kept per connection before the cache starts over.
const STATEMENT_CACHE_LIMIT: usize = 1_000;

/// What can go wrong on a connection.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The server refused something; the connection is still usable.
    #[error("{0}")]
    Server(Box<ServerError>),
    #[error("database connection failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("database connection closed")]
    Closed,
    #[error("unexpected message from the database: {0}")]
    Protocol(String),
    #[error("cannot read column {column}: {reason}")]
    Conversion { column: usize, reason: String },
}

impl Error {
    /// The same error again, for each of several transactions it failed (an I/O error
    /// keeps its kind and text).
    pub fn replicate(&self) -> Error {
        match self {
            Error::Server(error) => Error::Server(error.clone()),
            Error::Io(error) => Error::Io(std::io::Error::new(error.kind(), error.to_string())),
            Error::Closed => Error::Closed,
            Error::Protocol(message) => Error::Protocol(message.clone()),
            Error::Conversion { column, reason } => Error::Conversion {
                column: *column,
                reason: reason.clone(),
            },
        }
    }

    /// The server's error, if that is what this is.
    pub fn server(&self) -> Option<&ServerError> {
        match self {
            Error::Server(error) => Some(error),
            _ => None,
        }
    }
}

/// An `ErrorResponse`'s fields that clients see.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerError {
    pub code: String,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl ServerError {
    fn parse(body: &backend::ErrorResponseBody) -> Result<Self, Error> {
        let mut error = ServerError::default();
        let mut fields = body.fields();
        while let Some(field) = fields.next().map_err(Error::Io)? {
            let value = String::from_utf8_lossy(field.value_bytes()).into_owned();
            match field.type_() {
                b'C' => error.code = value,
                b'M' => error.message = value,
                b'D' => error.detail = Some(value),
                b'H' => error.hint = Some(value),
                _ => {}
            }
        }
        Ok(error)
    }
}

/// One statement of a pipeline: SQL with `$n` placeholders and their values as text.
#[derive(Debug, Clone, Copy)]
pub struct Query<'a> {
    pub sql: &'a str,
    pub params: &'a [&'a str],
}

impl<'a> Query<'a> {
    pub fn new(sql: &'a str, params: &'a [&'a str]) -> Self {
        Self { sql, params }
    }
}

/// A result row; columns are read with `postgres-types`' `FromSql`.
pub struct Row {
    columns: Arc<[Type]>,
    body: backend::DataRowBody,
    ranges: Vec<Option<Range<usize>>>,
}

impl std::fmt::Debug for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Row")
            .field("columns", &self.columns)
            .finish_non_exhaustive()
    }
}

impl Row {
    fn new(columns: Arc<[Type]>, body: backend::DataRowBody) -> Result<Self, Error> {
        let ranges: Vec<_> = body.ranges().collect().map_err(Error::Io)?;
        if ranges.len() != columns.len() {
            return Err(Error::Protocol(format!(
                "row with {} values for {} columns",
                ranges.len(),
                columns.len()
            )));
        }
        Ok(Self {
            columns,
            body,
            ranges,
        })
    }

    pub fn len(&self) -> usize {
        self.columns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// Column `index` as `T`.
    pub fn try_get<'a, T: FromSql<'a>>(&'a self, index: usize) -> Result<T, Error> {
        let conversion = |reason: String| Error::Conversion {
            column: index,
            reason,
        };
        let ty = self
            .columns
            .get(index)
            .ok_or_else(|| conversion("no such column".into()))?;
        if !T::accepts(ty) {
            return Err(conversion(format!(
                "a {} cannot be read as {}",
                ty.name(),
                std::any::type_name::<T>()
            )));
        }
        let raw = self.ranges[index]
            .clone()
            .map(|range| &self.body.buffer()[range]);
        T::from_sql_nullable(ty, raw).map_err(|error| conversion(error.to_string()))
    }

    /// Column `index` as `T`; panics when it cannot be read as `T` (a bug in the query).
    pub fn get<'a, T: FromSql<'a>>(&'a self, index: usize) -> T {
        match self.try_get(index) {
            Ok(value) => value,
            Err(error) => panic!("{error}"),
        }
    }
}

/// A statement prepared on this connection.
#[derive(Debug, Clone)]
struct Prepared {
    name: String,
    /// Result column types, known once the statement has been described.
    columns: Option<Arc<[Type]>>,
    /// Kept when the statement cache starts over ([`Connection::pin`]).
    pinned: bool,
}

enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Stream {
    async fn connect(host: &Host, port: u16) -> std::io::Result<Stream> {
        match host {
            Host::Tcp(name) => {
                let stream = TcpStream::connect((name.as_str(), port)).await?;
                stream.set_nodelay(true)?;
                Ok(Stream::Tcp(stream))
            }
            Host::Unix(directory) => Ok(Stream::Unix(
                UnixStream::connect(socket_path(directory, port)).await?,
            )),
        }
    }

    async fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            Stream::Tcp(stream) => stream.write_all(bytes).await,
            Stream::Unix(stream) => stream.write_all(bytes).await,
        }
    }

    async fn read_buf(&mut self, buffer: &mut BytesMut) -> std::io::Result<usize> {
        match self {
            Stream::Tcp(stream) => stream.read_buf(buffer).await,
            Stream::Unix(stream) => stream.read_buf(buffer).await,
        }
    }

    /// Writes what the socket takes right now, without waiting.
    fn try_write(&self, bytes: &[u8]) {
        let _ = match self {
            Stream::Tcp(stream) => stream.try_write(bytes),
            Stream::Unix(stream) => stream.try_write(bytes),
        };
    }

    /// Whether the server closed the socket or sent something unasked (a termination
    /// notice) while the connection was idle. Never waits.
    fn hung_up(&self) -> bool {
        let mut probe = [0u8; 1];
        let read = match self {
            Stream::Tcp(stream) => stream.try_read(&mut probe),
            Stream::Unix(stream) => stream.try_read(&mut probe),
        };
        match read {
            Err(error) => error.kind() != std::io::ErrorKind::WouldBlock,
            Ok(_) => true,
        }
    }
}

/// `Bind` of the unnamed portal to `statement`, every parameter in text format, every
/// result column in binary.
fn bind(statement: &str, params: &[&str], out: &mut BytesMut) -> Result<(), Error> {
    let text_format: &[i16] = if params.is_empty() { &[] } else { &[0] };
    frontend::bind(
        "",
        statement,
        text_format.iter().copied(),
        params.iter(),
        |value, buffer| {
            buffer.put_slice(value.as_bytes());
            Ok(IsNull::No)
        },
        [1],
        out,
    )
    .map_err(|error| match error {
        frontend::BindError::Conversion(error) => Error::Protocol(error.to_string()),
        frontend::BindError::Serialization(error) => Error::Io(error),
    })
}

fn socket_path(directory: &Path, port: u16) -> std::path::PathBuf {
    directory.join(format!(".s.PGSQL.{port}"))
}

/// An open connection.
pub struct Connection {
    stream: Stream,
    read: BytesMut,
    write: BytesMut,
    /// By SQL text. Every request looks its statements up here, so the hasher is a fast
    /// one (foldhash) rather than SipHash: the keys are our own SQL, not attacker-chosen
    /// map keys in bulk.
    statements: HashMap<String, Prepared, foldhash::fast::RandomState>,
    /// Statements to close on the server with the next pipeline.
    to_close: Vec<String>,
    next_statement: u64,
    /// The last `ReadyForQuery` status: `I` idle, `T` in a transaction block, `E` in a failed
    /// one.
    status: u8,
    /// Messages were sent whose answers were not all read (the caller was cancelled
    /// mid-pipeline, or the connection failed): the connection cannot be reused.
    desynchronised: bool,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("prepared_statements", &self.statements.len())
            .field("status", &(self.status as char))
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// Connects and logs in as `config` says (first host; trust, password, MD5 or
    /// SCRAM-SHA-256). `settings` are sent in the startup packet, so they override the
    /// role's and database's defaults.
    pub async fn connect(
        config: &tokio_postgres::Config,
        settings: &[(&str, &str)],
    ) -> Result<Connection, Error> {
        let host = config
            .get_hosts()
            .first()
            .ok_or_else(|| Error::Protocol("no database host configured".into()))?;
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let user = config.get_user().unwrap_or("postgres");
        let mut connection = Connection {
            stream: Stream::connect(host, port).await?,
            read: BytesMut::with_capacity(8 * 1024),
            write: BytesMut::with_capacity(4 * 1024),
            statements: HashMap::default(),
            to_close: Vec::new(),
            next_statement: 0,
            status: b'I',
            desynchronised: true,
        };
        let mut parameters = vec![("user", user), ("client_encoding", "UTF8")];
        if let Some(database) = config.get_dbname() {
            parameters.push(("database", database));
        }
        if let Some(name) = config.get_application_name() {
            parameters.push(("application_name", name));
        }
        if let Some(options) = config.get_options() {
            parameters.push(("options", options));
        }
        parameters.extend_from_slice(settings);
        frontend::startup_message(parameters.iter().copied(), &mut connection.write)?;
        connection.flush().await?;
        connection
            .authenticate(user, config.get_password().unwrap_or_default())
            .await?;
        connection.desynchronised = false;
        Ok(connection)
    }

    async fn authenticate(&mut self, user: &str, password: &[u8]) -> Result<(), Error> {
        let mut scram: Option<sasl::ScramSha256> = None;
        loop {
            match self.next_message().await? {
                Message::AuthenticationOk => {}
                Message::AuthenticationCleartextPassword => {
                    frontend::password_message(password, &mut self.write)?;
                    self.flush().await?;
                }
                Message::AuthenticationMd5Password(body) => {
                    let hash = authentication::md5_hash(user.as_bytes(), password, body.salt());
                    frontend::password_message(hash.as_bytes(), &mut self.write)?;
                    self.flush().await?;
                }
                Message::AuthenticationSasl(body) => {
                    let mut mechanisms = body.mechanisms();
                    let mut offered = false;
                    while let Some(mechanism) = mechanisms.next()? {
                        offered |= mechanism == sasl::SCRAM_SHA_256;
                    }
                    if !offered {
                        return Err(Error::Protocol(
                            "the server offers no supported SASL mechanism".into(),
                        ));
                    }
                    let exchange =
                        sasl::ScramSha256::new(password, sasl::ChannelBinding::unsupported());
                    frontend::sasl_initial_response(
                        sasl::SCRAM_SHA_256,
                        exchange.message(),
                        &mut self.write,
                    )?;
                    scram = Some(exchange);
                    self.flush().await?;
                }
                Message::AuthenticationSaslContinue(body) => {
                    let exchange = scram
                        .as_mut()
                        .ok_or_else(|| Error::Protocol("SASL continue before start".into()))?;
                    exchange.update(body.data())?;
                    frontend::sasl_response(exchange.message(), &mut self.write)?;
                    self.flush().await?;
                }
                Message::AuthenticationSaslFinal(body) => {
                    scram
                        .as_mut()
                        .ok_or_else(|| Error::Protocol("SASL final before start".into()))?
                        .finish(body.data())?;
                }
                Message::ErrorResponse(body) => {
                    return Err(Error::Server(Box::new(ServerError::parse(&body)?)));
                }
                Message::ReadyForQuery(body) => {
                    self.status = body.status();
                    return Ok(());
                }
                Message::BackendKeyData(_)
                | Message::ParameterStatus(_)
                | Message::NoticeResponse(_) => {}
                _ => {
                    return Err(Error::Protocol(
                        "unsupported authentication method requested by the server".into(),
                    ));
                }
            }
        }
    }

    /// Whether the connection is idle and in sync, i.e. fit to be handed to the next
    /// request.
    pub fn reusable(&self) -> bool {
        !self.desynchronised && self.status == b'I' && !self.stream.hung_up()
    }

    /// Whether a transaction block is known to be open (after an explicit `BEGIN`) on a
    /// connection that is in step, so that a `ROLLBACK` can end it.
    pub fn in_transaction(&self) -> bool {
        !self.desynchronised && self.status != b'I'
    }

    /// Whether `sql` is prepared on this connection.
    pub fn is_prepared(&self, sql: &str) -> bool {
        self.statements.contains_key(sql)
    }

    /// Keeps the prepared statement `sql` for as long as the connection lives: unlike the
    /// statements prepared in passing, it stays when the statement cache starts over, so a
    /// transaction of a batch may always use it. False if `sql` is not prepared here.
    pub fn pin(&mut self, sql: &str) -> bool {
        self.statements
            .get_mut(sql)
            .map(|prepared| prepared.pinned = true)
            .is_some()
    }

    /// Whether `sql` is prepared here and pinned ([`Connection::pin`]).
    pub fn is_pinned(&self, sql: &str) -> bool {
        self.statements
            .get(sql)
            .is_some_and(|prepared| prepared.pinned)
    }

    /// Sends `queries` with a single `Sync` and returns each one's rows. Statements not
    /// prepared yet are parsed in place, so names resolve with the settings made by the
    /// statements before them. Without an explicit `BEGIN` among them, they are one
    /// implicit transaction. On the first error the server skips the rest, and that
    /// error is returned.
    pub async fn pipeline(&mut self, queries: &[Query<'_>]) -> Result<Vec<Vec<Row>>, Error> {
        if self.desynchronised {
            // Answers to an earlier pipeline may still be unread; they would be taken for
            // this one's.
            return Err(Error::Protocol("the connection is out of step".into()));
        }
        self.write.clear();
        let plan = self.encode(queries)?;
        self.desynchronised = true;
        self.flush().await?;
        let outcome = self.read_results(queries, plan).await;
        if outcome.is_ok() || matches!(outcome, Err(Error::Server(_))) {
            self.desynchronised = false;
        }
        outcome
    }

    /// Sends several independent transactions in one write, each `transactions[i]` ending
    /// in its own `Sync`, and returns each one's outcome in order. The server runs them one
    /// after the other, each an implicit transaction of its own: its settings end at its
    /// `Sync`, and an error skips only the rest of it. A transaction after the first may
    /// only use statements prepared here before ([`Connection::can_follow`]), so none relies
    /// on a `Parse` earlier in the batch that a failure could skip. If the socket or the
    /// protocol fails, the transaction being read and those after it get that failure.
    pub async fn pipelines(
        &mut self,
        transactions: &[Vec<Query<'_>>],
    ) -> Vec<Result<Vec<Vec<Row>>, Error>> {
        let mut outcomes = Vec::with_capacity(transactions.len());
        let plans = match self.send_batch(transactions).await {
            Ok(plans) => plans,
            Err(error) => {
                outcomes.extend(transactions.iter().map(|_| Err(error.replicate())));
                return outcomes;
            }
        };
        for (queries, plan) in transactions.iter().zip(plans) {
            // Only the server's own error leaves the stream at the next transaction's
            // answers.
            match self.read_results(queries, plan).await {
                outcome @ (Ok(_) | Err(Error::Server(_))) => outcomes.push(outcome),
                Err(error) => {
                    while outcomes.len() < transactions.len() {
                        outcomes.push(Err(error.replicate()));
                    }
                    return outcomes;
                }
            }
        }
        self.desynchronised = false;
        outcomes
    }

    /// Writes a batch ([`Connection::pipelines`]); returns each transaction's plan.
    async fn send_batch(
        &mut self,
        transactions: &[Vec<Query<'_>>],
    ) -> Result<Vec<Vec<Pending>>, Error> {
        if self.desynchronised {
            return Err(Error::Protocol("the connection is out of step".into()));
        }
        if let Some((first, rest)) = transactions.split_first()
            && !rest.iter().all(|next| {
                self.can_follow(
                    first.iter().map(|query| query.sql),
                    next.iter().map(|query| query.sql),
                )
            })
        {
            return Err(Error::Protocol(
                "a batched transaction needs a statement that is not prepared yet".into(),
            ));
        }
        self.write.clear();
        let mut plans = Vec::with_capacity(transactions.len());
        for queries in transactions {
            plans.push(self.encode(queries)?);
        }
        self.desynchronised = true;
        self.flush().await?;
        Ok(plans)
    }

    /// Whether a transaction of the statements `next` can follow one of `first` in a batch
    /// ([`Connection::pipelines`]): every statement of `next` is prepared here, and
    /// preparing `first`'s new statements will not start the statement cache over.
    pub fn can_follow<'s>(
        &self,
        first: impl IntoIterator<Item = &'s str>,
        next: impl IntoIterator<Item = &'s str>,
    ) -> bool {
        !self.starts_over(first) && next.into_iter().all(|sql| self.is_prepared(sql))
    }

    /// Whether preparing the statements of `sqls` that are new here fills the statement
    /// cache, so that everything prepared is closed first.
    fn starts_over<'s>(&self, sqls: impl IntoIterator<Item = &'s str>) -> bool {
        let new = sqls
            .into_iter()
            .filter(|sql| !self.is_prepared(sql))
            .count();
        new > 0 && self.statements.len() + new > STATEMENT_CACHE_LIMIT
    }

    /// Appends the pipeline's messages, ending in a `Sync`, to the write buffer; returns
    /// what each statement's answer will hold.
    fn encode(&mut self, queries: &[Query<'_>]) -> Result<Vec<Pending>, Error> {
        if self.starts_over(queries.iter().map(|query| query.sql)) {
            let to_close = &mut self.to_close;
            self.statements.retain(|_, prepared| {
                if !prepared.pinned {
                    to_close.push(std::mem::take(&mut prepared.name));
                }
                prepared.pinned
            });
        }
        let closing = std::mem::take(&mut self.to_close);
        for name in &closing {
            frontend::close(b'S', name, &mut self.write)?;
        }
        let mut plan = Vec::with_capacity(queries.len() + 1);
        plan.push(Pending::Closes(closing.len()));
        for (sql_index, query) in queries.iter().enumerate() {
            // One lookup on the hot path: a known statement is only bound.
            let (parse, columns) = match self.statements.get(query.sql) {
                Some(prepared) => {
                    bind(&prepared.name, query.params, &mut self.write)?;
                    (false, prepared.columns.clone())
                }
                None => {
                    self.next_statement += 1;
                    let name = format!("s{}", self.next_statement);
                    frontend::parse(&name, query.sql, std::iter::empty(), &mut self.write)?;
                    bind(&name, query.params, &mut self.write)?;
                    self.statements.insert(
                        query.sql.to_owned(),
                        Prepared {
                            name,
                            columns: None,
                            pinned: false,
                        },
                    );
                    (true, None)
                }
            };
            if columns.is_none() {
                frontend::describe(b'P', "", &mut self.write)?;
            }
            frontend::execute("", 0, &mut self.write)?;
            plan.push(Pending::Statement {
                sql_index,
                parse,
                columns,
            });
        }
        frontend::sync(&mut self.write);
        Ok(plan)
    }

    async fn read_results(
        &mut self,
        queries: &[Query<'_>],
        plan: Vec<Pending>,
    ) -> Result<Vec<Vec<Row>>, Error> {
        let mut pending: VecDeque<Pending> = plan.into();
        let mut closes = match pending.pop_front() {
            Some(Pending::Closes(count)) => count,
            _ => 0,
        };
        let mut results = Vec::with_capacity(queries.len());
        let mut rows = Vec::new();
        let mut columns: Option<Arc<[Type]>> = None;
        let mut failure: Option<Error> = None;
        // Statements parsed in this pipeline whose `ParseComplete` has not arrived; if the
        // pipeline fails first, the server never prepared them.
        let mut unparsed: VecDeque<&str> = pending
            .iter()
            .filter_map(|step| match step {
                Pending::Statement {
                    sql_index,
                    parse: true,
                    ..
                } => Some(queries[*sql_index].sql),
                _ => None,
            })
            .collect();
        loop {
            match self.next_message().await? {
                Message::CloseComplete => closes = closes.saturating_sub(1),
                Message::ParseComplete => {
                    unparsed.pop_front();
                }
                Message::BindComplete => {
                    if let Some(Pending::Statement { columns: known, .. }) = pending.front() {
                        columns = known.clone();
                    }
                }
                Message::RowDescription(body) => {
                    let described: Arc<[Type]> = body
                        .fields()
                        .map(|field| Ok(type_of(field.type_oid())))
                        .collect::<Vec<_>>()
                        .map_err(Error::Io)?
                        .into();
                    self.remember_columns(queries, pending.front(), described.clone());
                    columns = Some(described);
                }
                Message::NoData => {
                    let described: Arc<[Type]> = Arc::from(Vec::new());
                    self.remember_columns(queries, pending.front(), described.clone());
                    columns = Some(described);
                }
                Message::DataRow(body) => {
                    let known = columns.clone().ok_or_else(|| {
                        Error::Protocol("a row arrived before its description".into())
                    })?;
                    rows.push(Row::new(known, body)?);
                }
                Message::CommandComplete(_) | Message::EmptyQueryResponse => {
                    pending.pop_front();
                    results.push(std::mem::take(&mut rows));
                    columns = None;
                }
                Message::ErrorResponse(body) => {
                    failure.get_or_insert(Error::Server(Box::new(ServerError::parse(&body)?)));
                }
                Message::ReadyForQuery(body) => {
                    self.status = body.status();
                    break;
                }
                Message::NoticeResponse(_)
                | Message::ParameterStatus(_)
                | Message::NotificationResponse(_) => {}
                _ => return Err(Error::Protocol("unexpected message in a pipeline".into())),
            }
        }
        for sql in unparsed {
            self.statements.remove(sql);
        }
        if closes > 0 {
            return Err(Error::Protocol("statements left unclosed".into()));
        }
        match failure {
            Some(error) => Err(error),
            None if results.len() == queries.len() => Ok(results),
            None => Err(Error::Protocol("a statement's result is missing".into())),
        }
    }

    fn remember_columns(
        &mut self,
        queries: &[Query<'_>],
        step: Option<&Pending>,
        described: Arc<[Type]>,
    ) {
        if let Some(Pending::Statement { sql_index, .. }) = step
            && let Some(prepared) = self.statements.get_mut(queries[*sql_index].sql)
        {
            prepared.columns = Some(described);
        }
    }

    async fn flush(&mut self) -> Result<(), Error> {
        self.stream.write_all(&self.write).await?;
        self.write.clear();
        Ok(())
    }

    async fn next_message(&mut self) -> Result<Message, Error> {
        loop {
            if let Some(message) = Message::parse(&mut self.read)? {
                return Ok(message);
            }
            if self.stream.read_buf(&mut self.read).await? == 0 {
                return Err(Error::Closed);
            }
        }
    }
}

impl Drop for Connection {
    /// Says goodbye (`Terminate`) when the connection is between messages, so the server
    /// ends the session quietly; otherwise closing the socket ends it.
    fn drop(&mut self) {
        if !self.desynchronised {
            let mut goodbye = BytesMut::with_capacity(5);
            frontend::terminate(&mut goodbye);
            self.stream.try_write(&goodbye);
        }
    }
}

/// What the answer to one pipeline entry looks like.
#[derive(Debug)]
enum Pending {
    /// `Close` messages sent first (their `CloseComplete`s come before anything else).
    Closes(usize),
    Statement {
        /// The statement's index in the caller's queries.
        sql_index: usize,
        /// Whether it is parsed in this pipeline.
        parse: bool,
        /// Its result columns, if known before sending.
        columns: Option<Arc<[Type]>>,
    },
}

/// The type for a result column. Types outside PostgreSQL's built-ins (which the gateway's
/// own statements never return) are read as opaque values.
fn type_of(oid: u32) -> Type {
    Type::from_oid(oid)
        .unwrap_or_else(|| Type::new(format!("oid_{oid}"), oid, Kind::Simple, String::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_result_types_are_opaque() {
        assert_eq!(type_of(25), Type::TEXT);
        assert_eq!(type_of(987_654).oid(), 987_654);
    }
}
