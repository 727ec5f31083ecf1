//! `make bench`'s limit for rest/v1: the least an HTTP front can do and still answer the
//! gateway's benchmark requests. It reads an HTTP/1.1 request, sends the gateway's own
//! statements for it (captured from the server log by `bench/run.sh`: the same settings, the
//! same query, one pipeline ending in one `Sync`) on a connection of its worker, and answers
//! with the result. Nothing else: no routing, no query grammar, no key or JWT check, no
//! planning, no logging.
//!
//! The bench runs it against the gateway's own cluster. `relay_single / pb_single` is then the
//! highest `gw_single / pb_single` a gateway sending this SQL could reach on the machine, and
//! `gw_single / relay_single` is what the gateway's own work costs; the same for inserts.
//!
//! Workers are laid out as the gateway's are: one single-threaded runtime per core, each with
//! its own pool (`db::api_pool`, the gateway's), and accepted connections dealt to workers in
//! turn.
//!
//! `--front actix` serves the same replies through actix-web instead (the gateway's HTTP
//! server and worker layout, one catch-all handler, no middleware). Against the default
//! hand-written front it shows what the framework alone costs; against the gateway, what
//! the gateway's own middleware and rest/v1 pipeline cost.
//!
//! ```text
//! bench_relay --listen 127.0.0.1:54400 --captured captured_sql.json \
//!     --database "host=/data/run port=54322 user=authenticator dbname=postgres" --pool-size 10
//! ```

// A command-line tool: the line on standard output is how `bench/run.sh` knows it is ready.
#![allow(clippy::print_stdout)]

/// The gateway's allocator, so the fronts differ only in what they do per request.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::rc::Rc;

use bytes::BytesMut;
use clap::Parser;
use gateway::db::api_pool::{self, ApiPool};
use gateway::db::wire::{Connection, Query};
use serde::Deserialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

/// How long a request waits for a connection of its worker.
const POOL_WAIT: std::time::Duration = std::time::Duration::from_secs(10);
/// Connections unused this long are closed: the bench runs two relays next to the gateway
/// and pgbench's 64 clients, and idle pools would take their slots in `max_connections`.
const IDLE_CLOSE: std::time::Duration = std::time::Duration::from_secs(5);
/// Largest request head or body the relay reads.
const MAX_REQUEST: usize = 1 << 20;
/// Where PostgREST's read statement puts the JSON body: after `total_result_set` and
/// `page_total`.
const BODY_COLUMN: usize = 2;

#[derive(Debug, Parser)]
struct Args {
    /// Address to serve HTTP on.
    #[arg(long)]
    listen: SocketAddr,
    /// libpq-style connection string (the gateway's `authenticator` login).
    #[arg(long)]
    database: String,
    /// `captured_sql.json` written by `bench/run.sh capture-sql`.
    #[arg(long)]
    captured: PathBuf,
    /// Worker threads (default: one per core, as the gateway).
    #[arg(long)]
    workers: Option<usize>,
    /// Database connections in all (split over the workers, as `DB_POOL_SIZE`).
    #[arg(long, default_value_t = 10)]
    pool_size: usize,
    /// The HTTP front: the least one (hand-written HTTP/1.1) or bare actix-web.
    #[arg(long, value_enum, default_value_t = Front::Minimal)]
    front: Front,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Front {
    Minimal,
    Actix,
}

/// One captured statement: SQL with `$n` placeholders and the values they had.
#[derive(Debug, Clone, Deserialize)]
struct Statement {
    sql: String,
    params: BTreeMap<String, String>,
}

/// What `capture-sql` wrote: the read's and the insert's pipelines, and which parameter of
/// each carries the request's own value (the row id; the JSON body, or its `amount` alone
/// when the gateway inserts the object's fields as parameters of their own).
#[derive(Debug, Clone, Deserialize)]
struct Captured {
    statements: Vec<Statement>,
    main_index: usize,
    id_param: String,
    insert_statements: Vec<Statement>,
    insert_body_param: String,
    insert_param_holds: InsertParam,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum InsertParam {
    Body,
    Amount,
}

/// A pipeline with one request-dependent parameter.
#[derive(Debug, Clone)]
struct Template {
    statements: Vec<(String, Vec<String>)>,
    /// (statement, parameter position) to replace.
    slot: (usize, usize),
}

impl Template {
    fn new(statements: &[Statement], statement: usize, param: &str) -> Result<Self, String> {
        let statements: Vec<(String, Vec<String>)> = statements
            .iter()
            .map(|s| {
                let mut values = Vec::with_capacity(s.params.len());
                for n in 1..=s.params.len() {
                    let value = s
                        .params
                        .get(&format!("${n}"))
                        .ok_or("parameters are not $1..$n")?;
                    values.push(value.clone());
                }
                Ok((s.sql.clone(), values))
            })
            .collect::<Result<_, String>>()?;
        let position: usize = param
            .strip_prefix('$')
            .and_then(|n| n.parse().ok())
            .filter(|n| *n >= 1 && statements.get(statement).is_some_and(|s| *n <= s.1.len()))
            .ok_or_else(|| format!("no parameter {param} in statement {statement}"))?;
        Ok(Self {
            statements,
            slot: (statement, position - 1),
        })
    }

    /// Runs the pipeline with `value` in the slot; returns the last statement's first row.
    async fn run(
        &self,
        connection: &mut Connection,
        value: &str,
    ) -> Result<Option<gateway::db::wire::Row>, gateway::db::wire::Error> {
        let params: Vec<Vec<&str>> = self
            .statements
            .iter()
            .enumerate()
            .map(|(i, (_, values))| {
                values
                    .iter()
                    .enumerate()
                    .map(|(p, v)| {
                        if (i, p) == self.slot {
                            value
                        } else {
                            v.as_str()
                        }
                    })
                    .collect()
            })
            .collect();
        let queries: Vec<Query<'_>> = self
            .statements
            .iter()
            .zip(&params)
            .map(|((sql, _), params)| Query::new(sql, params))
            .collect();
        let mut results = connection.pipeline(&queries).await?;
        Ok(results.pop().and_then(|rows| rows.into_iter().next()))
    }
}

#[derive(Debug, Clone)]
struct Relay {
    read: Template,
    insert: Template,
    insert_param: InsertParam,
}

impl Relay {
    fn new(captured: &Captured) -> Result<Self, String> {
        Ok(Self {
            read: Template::new(
                &captured.statements,
                captured.main_index,
                &captured.id_param,
            )?,
            insert: Template::new(
                &captured.insert_statements,
                captured.insert_statements.len().saturating_sub(1),
                &captured.insert_body_param,
            )?,
            insert_param: captured.insert_param_holds,
        })
    }

    /// The answer to one request, whichever front received it: a read sends the row id
    /// from `id=eq.<n>`, an insert its JSON body (or its amount).
    async fn reply(&self, pool: &ApiPool, get: bool, target: &str, body: &str) -> Reply {
        let (template, value) = if get {
            let id = target
                .split("id=eq.")
                .nth(1)
                .map(|rest| rest.split('&').next().unwrap_or_default());
            (&self.read, id.unwrap_or_default())
        } else if self.insert_param == InsertParam::Amount {
            (&self.insert, amount_of(body))
        } else {
            (&self.insert, body)
        };
        let outcome = match pool.get().await {
            Ok(mut connection) => template
                .run(&mut connection, value)
                .await
                .map_err(|e| e.to_string()),
            Err(error) => Err(error.to_string()),
        };
        match outcome {
            Ok(row) if get => Reply::Rows(row),
            Ok(_) => Reply::Created,
            Err(message) => {
                eprintln!("bench_relay: request failed: {message}");
                Reply::Failed(message)
            }
        }
    }
}

/// The number after `"amount":` in the benchmark's insert body.
fn amount_of(body: &str) -> &str {
    let rest = body
        .split_once("\"amount\":")
        .map_or("", |(_, rest)| rest.trim_start());
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '-'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// What a front sends back: `200` with the body and the gateway's headers, `201`, or `500`.
enum Reply {
    Rows(Option<gateway::db::wire::Row>),
    Created,
    Failed(String),
}

/// The JSON body of a read's row, borrowed from it (no copy for the hand-written front).
fn body_of(row: Option<&gateway::db::wire::Row>) -> &str {
    row.and_then(|row| row.try_get(BODY_COLUMN).ok())
        .unwrap_or("[]")
}

fn main() {
    let args = Args::parse();
    if let Err(message) = run(args) {
        eprintln!("bench_relay: {message}");
        std::process::exit(1);
    }
}

fn run(args: Args) -> Result<(), String> {
    let captured: Captured = serde_json::from_slice(
        &std::fs::read(&args.captured).map_err(|e| format!("{}: {e}", args.captured.display()))?,
    )
    .map_err(|e| format!("{}: {e}", args.captured.display()))?;
    let config: tokio_postgres::Config = args
        .database
        .parse()
        .map_err(|e| format!("--database: {e}"))?;
    let workers = args
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1);
    let per_worker = args.pool_size.div_ceil(workers).max(1);
    let listener =
        std::net::TcpListener::bind(args.listen).map_err(|e| format!("{}: {e}", args.listen))?;
    if args.front == Front::Actix {
        let relay = Relay::new(&captured)?;
        return actix_front::serve(listener, relay, config, workers, per_worker);
    }

    let mut senders = Vec::with_capacity(workers);
    let mut threads = Vec::with_capacity(workers);
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), String>>();
    for _ in 0..workers {
        let (sender, receiver) = mpsc::unbounded_channel::<std::net::TcpStream>();
        senders.push(sender);
        let (config, captured, ready) = (config.clone(), captured.clone(), ready_tx.clone());
        threads.push(std::thread::spawn(move || {
            worker(config, captured, per_worker, receiver, ready);
        }));
    }
    drop(ready_tx);
    for _ in 0..workers {
        ready_rx
            .recv()
            .map_err(|_| "a worker stopped during start-up".to_owned())??;
    }
    println!("bench_relay: serving on {}", args.listen);
    for (turn, stream) in listener.incoming().enumerate() {
        let Ok(stream) = stream else { continue };
        if senders[turn % workers].send(stream).is_err() {
            return Err("a worker stopped".into());
        }
    }
    Ok(())
}

fn worker(
    config: tokio_postgres::Config,
    captured: Captured,
    connections: usize,
    mut accepted: mpsc::UnboundedReceiver<std::net::TcpStream>,
    ready: std::sync::mpsc::Sender<Result<(), String>>,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = ready.send(Err(error.to_string()));
            return;
        }
    };
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async move {
        let relay = match Relay::new(&captured) {
            Ok(relay) => Rc::new(relay),
            Err(e) => {
                let _ = ready.send(Err(e));
                return;
            }
        };
        // The gateway's own per-worker pool: the same connections, startup settings and
        // checkout cost as rest/v1's.
        let pool = match api_pool::worker_pool(config, connections, POOL_WAIT) {
            Ok(pool) => pool,
            Err(error) => {
                let _ = ready.send(Err(format!("pool: {error}")));
                return;
            }
        };
        // Open every connection now, so the first requests measure no log-ins (the bench
        // warms each scenario up before its first recorded run anyway).
        let mut opened = Vec::with_capacity(connections);
        for _ in 0..connections {
            match pool.get().await {
                Ok(connection) => opened.push(connection),
                Err(error) => {
                    let _ = ready.send(Err(format!("database: {error}")));
                    return;
                }
            }
        }
        drop(opened);
        tokio::task::spawn_local(close_idle(pool.clone()));
        let _ = ready.send(Ok(()));
        while let Some(stream) = accepted.recv().await {
            let (relay, pool) = (relay.clone(), pool.clone());
            tokio::task::spawn_local(async move {
                let Ok(()) = stream.set_nonblocking(true) else {
                    return;
                };
                let Ok(stream) = TcpStream::from_std(stream) else {
                    return;
                };
                let _ = stream.set_nodelay(true);
                // wrk resets its connections when a run ends; anything else is worth a line.
                if let Err(error) = serve(stream, &relay, &pool).await
                    && error.kind() != std::io::ErrorKind::ConnectionReset
                {
                    eprintln!("bench_relay: connection: {error}");
                }
            });
        }
    });
}

/// Closes the worker's connections that have not been used for [`IDLE_CLOSE`].
async fn close_idle(pool: ApiPool) {
    loop {
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        pool.retain(|_, metrics| metrics.last_used() < IDLE_CLOSE);
    }
}

/// One HTTP/1.1 request: method, target and body.
struct Request {
    get: bool,
    target: String,
    body: String,
}

/// Reads the next request on a keep-alive connection; `None` when the client closed it.
async fn read_request(
    stream: &mut TcpStream,
    buffer: &mut BytesMut,
) -> std::io::Result<Option<Request>> {
    let invalid =
        |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned());
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        if buffer.len() > MAX_REQUEST {
            return Err(invalid("request head too large"));
        }
        if stream.read_buf(buffer).await? == 0 {
            return Ok(None);
        }
    };
    let head =
        std::str::from_utf8(&buffer[..head_end]).map_err(|_| invalid("head is not UTF-8"))?;
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap_or_default().split(' ');
    let method = request_line.next().unwrap_or_default();
    let target = request_line.next().unwrap_or_default().to_owned();
    let length = lines
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .map(|(_, value)| {
            value
                .trim()
                .parse::<usize>()
                .map_err(|_| invalid("bad Content-Length"))
        })
        .transpose()?
        .unwrap_or(0);
    if length > MAX_REQUEST {
        return Err(invalid("body too large"));
    }
    let get = method == "GET";
    while buffer.len() < head_end + length {
        if stream.read_buf(buffer).await? == 0 {
            return Ok(None);
        }
    }
    let request = buffer.split_to(head_end + length);
    let body = String::from_utf8(request[head_end..].to_vec())
        .map_err(|_| invalid("body is not UTF-8"))?;
    Ok(Some(Request { get, target, body }))
}

async fn serve(mut stream: TcpStream, relay: &Relay, pool: &ApiPool) -> std::io::Result<()> {
    let mut buffer = BytesMut::with_capacity(4096);
    let mut response = Vec::with_capacity(4096);
    while let Some(request) = read_request(&mut stream, &mut buffer).await? {
        response.clear();
        match relay
            .reply(pool, request.get, &request.target, &request.body)
            .await
        {
            Reply::Rows(row) => {
                let body = body_of(row.as_ref());
                response.extend_from_slice(
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n\
                         Content-Range: 0-0/*\r\nContent-Length: {}\r\n\r\n",
                        body.len()
                    )
                    .as_bytes(),
                );
                response.extend_from_slice(body.as_bytes());
            }
            Reply::Created => response.extend_from_slice(
                b"HTTP/1.1 201 Created\r\nContent-Range: */*\r\nContent-Length: 0\r\n\r\n",
            ),
            Reply::Failed(message) => response.extend_from_slice(
                format!(
                    "HTTP/1.1 500 Internal Server Error\r\nContent-Length: {}\r\n\r\n{message}",
                    message.len()
                )
                .as_bytes(),
            ),
        }
        stream.write_all(&response).await?;
    }
    Ok(())
}

/// The same replies behind actix-web: the gateway's server, worker count and per-worker
/// pools, one catch-all handler, no middleware.
mod actix_front {
    use actix_web::http::StatusCode;
    use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};

    use super::{ApiPool, POOL_WAIT, Relay, Reply, api_pool, body_of, close_idle};

    pub fn serve(
        listener: std::net::TcpListener,
        relay: Relay,
        config: tokio_postgres::Config,
        workers: usize,
        per_worker: usize,
    ) -> Result<(), String> {
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        actix_web::rt::System::new().block_on(async move {
            let server = HttpServer::new(move || {
                let app = App::new().app_data(web::Data::new(relay.clone()));
                let app = match api_pool::worker_pool(config.clone(), per_worker, POOL_WAIT) {
                    Ok(pool) => {
                        // The factory runs on the worker's own thread and runtime.
                        actix_web::rt::spawn(close_idle(pool.clone()));
                        app.app_data(web::Data::new(pool))
                    }
                    Err(error) => {
                        eprintln!("bench_relay: pool: {error}");
                        app
                    }
                };
                app.default_service(web::to(handle))
            })
            .workers(workers)
            .listen(listener)
            .map_err(|e| e.to_string())?
            .run();
            println!("bench_relay: serving on {address} (actix-web)");
            server.await.map_err(|e| e.to_string())
        })
    }

    async fn handle(
        request: HttpRequest,
        body: web::Bytes,
        relay: web::Data<Relay>,
        pool: web::Data<ApiPool>,
    ) -> HttpResponse {
        let get = request.method() == actix_web::http::Method::GET;
        let body = std::str::from_utf8(&body).unwrap_or_default();
        match relay
            .reply(&pool, get, request.uri().query().unwrap_or_default(), body)
            .await
        {
            Reply::Rows(row) => HttpResponse::Ok()
                .insert_header(("Content-Type", "application/json; charset=utf-8"))
                .insert_header(("Content-Range", "0-0/*"))
                .body(body_of(row.as_ref()).to_owned()),
            Reply::Created => HttpResponse::Created()
                .insert_header(("Content-Range", "*/*"))
                .finish(),
            Reply::Failed(message) => {
                HttpResponse::build(StatusCode::INTERNAL_SERVER_ERROR).body(message)
            }
        }
    }
}
