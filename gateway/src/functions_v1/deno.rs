//! Edge Functions under Deno: one worker process per function, started on the first request
//! by our bootstrap script (which points the function's `Deno.serve` at a unix socket),
//! kept warm, replaced when the functions directory changed or the process died, and
//! stopped at the wall-time limit. Requests and answers are relayed as HTTP/1.1 over that
//! socket with both bodies streamed. Each way a worker fails maps to one [`FunctionError`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use actix_web::{HttpRequest, HttpResponse, web};
use bytes::Bytes;
use functions::FunctionError;
use futures_util::TryStreamExt;
use http_body::Body as _;
use http_body_util::BodyExt;
use http_body_util::combinators::UnsyncBoxBody;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use hyperlocal::UnixConnector;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::Notify;
use tokio::time::Instant;

use super::directory::{self, DirectoryWatch, FunctionSource};
use super::{error_response, relay};

/// The script that runs a function's module (see its header).
const BOOTSTRAP: &str = include_str!("bootstrap.mjs");
/// Response header by which the bootstrap reports an uncaught exception in the handler.
const WORKER_ERROR_MARKER: &str = "x-cielo-worker-error";
/// Line the bootstrap prints once the function listens.
const LISTENING: &str = "CIELO_LISTENING";
/// How much of a worker's stderr is kept to tell why it died.
const STDERR_TAIL: usize = 8 * 1024;
/// How the workers are started.
#[derive(Debug, Clone)]
pub struct DenoSettings {
    pub deno: PathBuf,
    /// Absolute functions directory.
    pub functions_dir: PathBuf,
    /// Where the bootstrap script is written and Deno keeps its module cache (`deno/`).
    pub work_dir: PathBuf,
    /// Env every function gets (Supabase's `SUPABASE_*` variables).
    pub env: Vec<(String, String)>,
    pub memory_limit_mb: u32,
    pub timeout: Duration,
}

/// The workers of every Edge Function, shared by the HTTP worker threads.
#[derive(Debug)]
pub struct DenoRuntime {
    settings: DenoSettings,
    /// Whether the directory changed since a worker started (looked at now and then).
    watch: Arc<DirectoryWatch>,
    bootstrap: PathBuf,
    /// Where the workers' sockets are: a short path of its own, as socket paths are limited
    /// to 107 bytes.
    socket_dir: PathBuf,
    slots: Mutex<HashMap<String, Slot>>,
    /// The look at the directory whose removed functions were last stopped.
    swept: Mutex<Option<std::time::Instant>>,
}

/// A request body on its way to a worker.
type RelayBody = UnsyncBoxBody<Bytes, std::io::Error>;

thread_local! {
    /// Each HTTP worker thread keeps its own connections to the workers: a connection is
    /// driven by the runtime of the thread that opened it, and sharing one between threads
    /// would cost a cross-thread wake-up per request.
    static RELAY_CLIENT: Client<UnixConnector, RelayBody> =
        Client::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .build(UnixConnector);
}

/// One function's worker, if running; locked while it boots so one process starts.
type Slot = Arc<tokio::sync::Mutex<Option<Arc<Worker>>>>;

#[derive(Debug)]
struct Worker {
    socket: PathBuf,
    fingerprint: Option<SystemTime>,
    /// Set by the worker's supervisor once its process ended.
    exited: Arc<AtomicBool>,
    /// Set when the gateway stopped it: it is not reused even before the process is gone.
    stopped: AtomicBool,
    /// Tells the supervisor to kill the process.
    kill: Arc<Notify>,
    stderr_tail: Arc<Mutex<String>>,
    /// Held open for the worker's life: the bootstrap exits when it closes, so workers
    /// never outlive a gateway that was killed.
    _stdin: Option<ChildStdin>,
}

impl Worker {
    /// Whether it can serve no more: stopped by the gateway, or its process ended.
    fn has_exited(&self) -> bool {
        self.stopped.load(Ordering::Relaxed) || self.exited.load(Ordering::Relaxed)
    }

    fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
        self.kill.notify_one();
    }

    /// Why the process died, from what it last wrote.
    fn death(&self) -> FunctionError {
        let tail = self
            .stderr_tail
            .lock()
            .map(|tail| tail.clone())
            .unwrap_or_default();
        death_from_stderr(&tail)
    }

    /// Waits a moment for the process to be reaped after its connection broke.
    async fn exited_soon(&self) -> bool {
        for _ in 0..20 {
            if self.has_exited() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        false
    }
}

/// The Deno binary: `DENO_PATH`, else the one `scripts/npm-install.sh functions/runtime`
/// installs (searched from the working directory), else `deno` on `PATH`.
pub fn find_deno(configured: Option<&Path>) -> PathBuf {
    if let Some(path) = configured {
        return path.to_owned();
    }
    let installed = Path::new("functions/runtime/node_modules/@deno");
    if let Ok(entries) = std::fs::read_dir(installed) {
        for entry in entries.flatten() {
            let binary = entry.path().join("deno");
            if binary.is_file() {
                return binary;
            }
        }
    }
    PathBuf::from("deno")
}

impl DenoRuntime {
    /// Writes the bootstrap script into the work directory.
    pub fn new(settings: DenoSettings, watch: Arc<DirectoryWatch>) -> std::io::Result<Self> {
        std::fs::create_dir_all(&settings.work_dir)?;
        // Written aside then renamed: gateways sharing a data directory never see it half
        // written.
        let bootstrap = settings.work_dir.join("bootstrap.mjs");
        let staging = settings
            .work_dir
            .join(format!("bootstrap.mjs.{}", std::process::id()));
        std::fs::write(&staging, BOOTSTRAP)?;
        std::fs::rename(&staging, &bootstrap)?;
        let socket_dir = std::env::temp_dir().join(format!(
            "cielo-functions-{}-{}",
            std::process::id(),
            NEXT_SOCKET.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&socket_dir)?;
        Ok(Self {
            settings,
            watch,
            bootstrap,
            socket_dir,
            slots: Mutex::new(HashMap::new()),
            swept: Mutex::new(None),
        })
    }

    /// Relays one request to the function's worker and streams its answer back.
    pub async fn relay(
        &self,
        name: &str,
        source: &FunctionSource,
        request: &HttpRequest,
        body: web::Payload,
        sub_path: &str,
    ) -> HttpResponse {
        let worker = match self.worker(name, source).await {
            Ok(worker) => worker,
            Err(error) => return error_response(error),
        };
        // Counted from a ready worker: a cold boot has its own limit, and counting it here
        // too would let a slow boot time out the request and stop the worker it just warmed.
        let deadline = Instant::now() + self.settings.timeout;
        let mut path = format!("/{name}{sub_path}");
        if !request.query_string().is_empty() {
            path.push('?');
            path.push_str(request.query_string());
        }
        let Ok(method) = http::Method::from_bytes(request.method().as_str().as_bytes()) else {
            return error_response(FunctionError::MethodNotAllowed);
        };
        let mut outgoing = http::Request::builder()
            .method(method)
            .uri(hyperlocal::Uri::new(&worker.socket, &path));
        if let Some(headers) = outgoing.headers_mut() {
            *headers = relay::outgoing_headers(request);
        }
        let body = if relay::has_body(request) {
            let frames = relay::forward_body(body).map_ok(hyper::body::Frame::data);
            http_body_util::StreamBody::new(frames).boxed_unsync()
        } else {
            http_body_util::Empty::new()
                .map_err(|never| match never {})
                .boxed_unsync()
        };
        let Ok(outgoing) = outgoing.body(body) else {
            return error_response(FunctionError::Relay);
        };

        let sent = RELAY_CLIENT.with(|client| client.request(outgoing));
        let answer = match tokio::time::timeout_at(deadline, sent).await {
            Err(_) => {
                tracing::warn!(
                    function = name,
                    "wall-time limit reached; stopping the worker"
                );
                worker.stop();
                return error_response(FunctionError::IdleTimeout);
            }
            Ok(Err(error)) => {
                tracing::warn!(function = name, %error, "relay to the worker failed");
                if worker.exited_soon().await {
                    return error_response(worker.death());
                }
                // Alive but unreachable: the next request gets a fresh worker.
                worker.stop();
                return error_response(FunctionError::Relay);
            }
            Ok(Ok(answer)) => answer,
        };
        if answer.headers().contains_key(WORKER_ERROR_MARKER) {
            return error_response(FunctionError::WorkerError);
        }
        let (head, body) = answer.into_parts();
        let length = body.size_hint().exact();
        relay::answer(&head, length, body.into_data_stream(), deadline)
    }

    /// The function's running worker, started (or restarted) if needed.
    async fn worker(
        &self,
        name: &str,
        source: &FunctionSource,
    ) -> Result<Arc<Worker>, FunctionError> {
        let directory = self.watch.current();
        self.stop_removed(&directory);
        let slot = {
            let mut slots = self.slots.lock().map_err(|_| FunctionError::WorkerError)?;
            slots.entry(name.to_owned()).or_default().clone()
        };
        let mut slot = slot.lock().await;
        let fingerprint = directory.fingerprint(name);
        if let Some(worker) = slot.as_ref() {
            if worker.fingerprint == fingerprint && !worker.has_exited() {
                return Ok(worker.clone());
            }
            worker.stop();
            *slot = None;
        }
        let worker = Arc::new(self.boot(name, source, fingerprint).await?);
        *slot = Some(worker.clone());
        Ok(worker)
    }

    /// Stops the workers of functions no longer in the directory, once per look at it.
    fn stop_removed(&self, directory: &directory::Seen) {
        let Ok(mut swept) = self.swept.lock() else {
            return;
        };
        if *swept == Some(directory.at()) {
            return;
        }
        *swept = Some(directory.at());
        let Ok(mut slots) = self.slots.lock() else {
            return;
        };
        slots.retain(|name, slot| {
            if directory.has(name) {
                return true;
            }
            // A slot being booted right now is left to finish; the next look stops it.
            match slot.try_lock() {
                Ok(worker) => {
                    if let Some(worker) = worker.as_ref() {
                        tracing::info!(
                            function = name,
                            "removed from the directory; stopping its worker"
                        );
                        worker.stop();
                    }
                    false
                }
                Err(_) => true,
            }
        });
    }

    async fn boot(
        &self,
        name: &str,
        source: &FunctionSource,
        fingerprint: Option<SystemTime>,
    ) -> Result<Worker, FunctionError> {
        let settings = &self.settings;
        let entrypoint =
            url::Url::from_file_path(&source.entrypoint).map_err(|()| FunctionError::BootError)?;
        let socket = self.socket_dir.join(format!(
            "{}.sock",
            NEXT_SOCKET.fetch_add(1, Ordering::Relaxed)
        ));
        let deno_dir = settings.work_dir.join("deno");
        // Functions may write temporary files, as on Supabase.
        let temp_dir = std::env::temp_dir();
        let mut command = Command::new(&settings.deno);
        command
            .arg("run")
            .arg("--quiet")
            .arg("--no-prompt")
            .arg("--allow-net")
            .arg("--allow-env")
            .arg("--allow-import")
            .arg(format!(
                "--allow-read={},{}",
                settings.functions_dir.display(),
                temp_dir.display()
            ))
            .arg(format!("--allow-write={}", temp_dir.display()))
            .arg(format!(
                "--v8-flags=--max-old-space-size={}",
                settings.memory_limit_mb
            ));
        // Deno looks for a deno.json from the main module (the bootstrap) up: name the
        // function's own, as Supabase's CLI uses it (its import map above all).
        if let Some(config) = deno_config(&source.dir, &settings.functions_dir) {
            command.arg(format!("--config={}", config.display()));
        }
        command
            .arg(&self.bootstrap)
            .arg(entrypoint.as_str())
            .arg(&socket)
            .current_dir(&source.dir)
            .env_clear()
            .env("DENO_DIR", &deno_dir)
            .env("HOME", &settings.work_dir)
            .env("NO_COLOR", "1")
            .env("TMPDIR", &temp_dir)
            .envs(settings.env.iter().map(|(key, value)| (key, value)))
            .envs(directory::function_env(&settings.functions_dir, source))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().map_err(|error| {
            tracing::error!(function = name, deno = %settings.deno.display(), %error,
                "could not start Deno");
            FunctionError::BootError
        })?;
        let stdin = child.stdin.take();
        let stderr_tail = Arc::new(Mutex::new(String::new()));
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(keep_stderr(name.to_owned(), stderr, stderr_tail.clone()));
        }
        let Some(stdout) = child.stdout.take() else {
            return Err(FunctionError::BootError);
        };
        let mut lines = BufReader::new(stdout).lines();
        let listening = tokio::time::timeout(settings.timeout, async {
            while let Ok(Some(line)) = lines.next_line().await {
                if line == LISTENING {
                    return true;
                }
                tracing::info!(function = name, "{line}");
            }
            false
        })
        .await;
        let Ok(true) = listening else {
            let _ = child.start_kill();
            let tail = stderr_tail.lock().map(|t| t.clone()).unwrap_or_default();
            tracing::warn!(function = name, stderr = %tail, "function failed to boot");
            return Err(FunctionError::BootError);
        };
        let function = name.to_owned();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::info!(function, "{line}");
            }
        });
        let exited = Arc::new(AtomicBool::new(false));
        let kill = Arc::new(Notify::new());
        tokio::spawn(supervise(
            child,
            kill.clone(),
            exited.clone(),
            socket.clone(),
        ));
        Ok(Worker {
            socket,
            fingerprint,
            exited,
            stopped: AtomicBool::new(false),
            kill,
            stderr_tail,
            _stdin: stdin,
        })
    }
}

impl Drop for DenoRuntime {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.socket_dir);
    }
}

/// Numbers socket directories and sockets so no two are the same path.
static NEXT_SOCKET: AtomicU64 = AtomicU64::new(0);

/// Waits for a worker's process to end, or kills it when told to; then marks it exited and
/// removes its socket. Watching here keeps the request path free of `waitpid` calls.
async fn supervise(mut child: Child, kill: Arc<Notify>, exited: Arc<AtomicBool>, socket: PathBuf) {
    tokio::select! {
        _ = child.wait() => {}
        () = kill.notified() => {
            let _ = child.start_kill();
            let _ = child.wait().await;
        }
    }
    exited.store(true, Ordering::Relaxed);
    let _ = std::fs::remove_file(&socket);
}

/// A dead worker's failure: V8 reports its heap limit on stderr before aborting.
fn death_from_stderr(tail: &str) -> FunctionError {
    let tail = tail.to_ascii_lowercase();
    if tail.contains("out of memory") || tail.contains("heap limit") {
        FunctionError::WorkerLimit
    } else {
        FunctionError::WorkerError
    }
}

/// Logs a worker's stderr and keeps its tail.
async fn keep_stderr(
    function: String,
    stderr: tokio::process::ChildStderr,
    tail: Arc<Mutex<String>>,
) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::warn!(function, "{line}");
        if let Ok(mut tail) = tail.lock() {
            tail.push_str(&line);
            tail.push('\n');
            if tail.len() > STDERR_TAIL {
                let cut = tail.len() - STDERR_TAIL;
                let cut = (cut..tail.len())
                    .find(|index| tail.is_char_boundary(*index))
                    .unwrap_or(0);
                tail.drain(..cut);
            }
        }
    }
}

/// The Deno configuration of a function: `deno.json` or `deno.jsonc` in its folder, else
/// one shared by every function at the top of the functions directory.
fn deno_config(
    function_dir: &std::path::Path,
    functions_dir: &std::path::Path,
) -> Option<std::path::PathBuf> {
    [function_dir, functions_dir]
        .into_iter()
        .flat_map(|dir| ["deno.json", "deno.jsonc"].map(|name| dir.join(name)))
        .find(|path| path.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_that_died_of_its_heap_limit_is_a_worker_limit() {
        let oom = "<--- Last few GCs --->\nFatal JavaScript out of memory: Reached heap limit\n";
        assert_eq!(death_from_stderr(oom), FunctionError::WorkerLimit);
        assert_eq!(
            death_from_stderr("error: Uncaught Error: boom\n"),
            FunctionError::WorkerError
        );
        assert_eq!(death_from_stderr(""), FunctionError::WorkerError);
    }
}
