//! The embedded PostgreSQL cluster: created on first start, reused afterwards.
//!
//! Without `DATABASE_URL` the gateway runs a private cluster in `DATA_DIR/postgres` with the
//! system's PostgreSQL binaries. PostgreSQL refuses to run as root, so when the gateway is
//! root (as in CI or a container) the cluster runs as the unprivileged `postgres` OS user,
//! which is created when it does not exist.
//!
//! The server process is owned by a dedicated supervisor thread and started with
//! `PR_SET_PDEATHSIG`, so it is shut down even when the gateway is killed without a chance
//! to clean up; it gets its own process group so a terminal's Ctrl-C reaches only the
//! gateway, which then stops the cluster in order (fast shutdown, then waits).

// Starting a child as another user with a parent-death signal needs a few raw libc calls
// (getpwnam, prctl, kill); each unsafe block below states why it is sound.
#![allow(unsafe_code)]

use std::ffi::CString;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use secrecy::{ExposeSecret, SecretString};
use tokio::sync::watch;

/// Sub-directory of the data directory that holds the cluster (`PGDATA`).
pub const CLUSTER_DIR: &str = "postgres";
/// Server log of the embedded cluster, in the data directory.
pub const LOG_FILE: &str = "postgres.log";
/// Sub-directory of the data directory that holds the cluster's Unix socket.
pub const SOCKET_DIR: &str = "run";
/// Longest socket path the kernel takes (`sun_path` is 108 bytes with its NUL).
const MAX_SOCKET_PATH: usize = 107;

/// How to run the cluster.
#[derive(Debug, Clone)]
pub struct EmbeddedOptions {
    /// The gateway's data directory; the cluster lives in its `postgres/` sub-directory.
    pub data_dir: PathBuf,
    pub port: u16,
    /// Password of the `postgres` superuser, set at `initdb`.
    pub superuser_password: SecretString,
    /// Directory with `initdb` and `postgres`; searched when `None`.
    pub bin_dir: Option<PathBuf>,
    /// Durable writes. Only tests turn this off, to make throwaway clusters fast.
    pub fsync: bool,
    /// WAL a replication slot may hold back before PostgreSQL invalidates it, in megabytes
    /// (realtime's slot limit).
    pub max_slot_wal_keep_mb: u32,
}

/// Failures that stop the gateway from getting a database.
#[derive(Debug, thiserror::Error)]
pub enum EmbeddedError {
    #[error(
        "PostgreSQL server binaries (initdb, postgres) were not found on PATH or under \
         /usr/lib/postgresql/*/bin. Install them with `sudo apt-get install postgresql` \
         (Debian/Ubuntu), or set PG_BIN_DIR to their directory, or set DATABASE_URL to use \
         an existing PostgreSQL 14+ server."
    )]
    BinariesNotFound,
    #[error("PG_BIN_DIR={0} does not contain initdb and postgres")]
    BadBinDir(PathBuf),
    #[error("{path} exists but is not a PostgreSQL cluster (no PG_VERSION file); move it away")]
    NotACluster { path: PathBuf },
    #[error(
        "PostgreSQL is already running in {path} (pid {pid}); is another Cielo gateway using \
         this DATA_DIR? Stop it first."
    )]
    AlreadyRunning { path: PathBuf, pid: i32 },
    #[error("could not prepare {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("could not create the unprivileged `postgres` OS user to run the cluster: {0}")]
    User(String),
    #[error("initdb failed:\n{0}")]
    Initdb(String),
    #[error("PostgreSQL did not start: {reason}\n--- last lines of {log} ---\n{tail}")]
    Start {
        reason: String,
        log: PathBuf,
        tail: String,
    },
}

/// A running embedded cluster. Stop it with [`EmbeddedPostgres::stop`]; if the handle is
/// dropped instead, the server is asked to shut down without waiting.
#[derive(Debug)]
pub struct EmbeddedPostgres {
    pgdata: PathBuf,
    port: u16,
    /// Where the server's Unix socket is, when it has one the gateway can reach.
    socket_dir: Option<PathBuf>,
    pid: i32,
    exited: watch::Receiver<Option<String>>,
    stopped: bool,
}

/// The OS account the server runs as.
#[derive(Debug, Clone, Copy)]
struct RunAs {
    uid: u32,
    gid: u32,
    /// Whether the gateway switches to this account (it is root) or already is it.
    switch: bool,
}

impl EmbeddedPostgres {
    /// Creates the cluster if needed, starts it and waits until it accepts connections.
    pub async fn start(options: &EmbeddedOptions) -> Result<Self, EmbeddedError> {
        let bin_dir = find_bin_dir(options.bin_dir.as_deref())?;
        let run_as = run_as()?;
        let pgdata = options.data_dir.join(CLUSTER_DIR);
        prepare_dirs(&options.data_dir, &pgdata, run_as)?;
        let socket_dir = prepare_socket_dir(&options.data_dir, options.port, run_as)?;

        if !pgdata.join("PG_VERSION").exists() {
            init_cluster(&bin_dir, &options.data_dir, &pgdata, options, run_as)?;
        }
        refuse_if_running(&pgdata)?;

        let log_path = options.data_dir.join(LOG_FILE);
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(|source| io_error(&log_path, source))?;
        let log_start = log
            .metadata()
            .map_err(|source| io_error(&log_path, source))?
            .len();

        let mut command = Command::new(bin_dir.join("postgres"));
        command
            .arg("-D")
            .arg(&pgdata)
            .args(server_settings(options, socket_dir.as_deref()))
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("LC_ALL", "C.UTF-8")
            .stdin(Stdio::null())
            .stdout(
                log.try_clone()
                    .map_err(|source| io_error(&log_path, source))?,
            )
            .stderr(log)
            .process_group(0);
        if run_as.switch {
            command.uid(run_as.uid).gid(run_as.gid);
        }
        let (pid, exited) = spawn_supervised(command).map_err(|error| EmbeddedError::Start {
            reason: format!(
                "could not run {}: {error}",
                bin_dir.join("postgres").display()
            ),
            log: log_path.clone(),
            tail: String::new(),
        })?;
        tracing::info!(pid, port = options.port, pgdata = %pgdata.display(), "starting embedded PostgreSQL");

        let mut server = Self {
            pgdata,
            port: options.port,
            socket_dir: None,
            pid,
            exited,
            stopped: false,
        };
        if let Err(reason) = server.wait_ready(&options.superuser_password).await {
            let tail = log_tail(&log_path, log_start);
            server.signal(libc::SIGQUIT);
            return Err(EmbeddedError::Start {
                reason,
                log: log_path,
                tail,
            });
        }
        if let Some(dir) = socket_dir {
            server.socket_dir = server.reach_socket(dir, &options.superuser_password).await;
        }
        tracing::info!(
            port = options.port,
            socket = ?server.socket_dir,
            "embedded PostgreSQL is ready"
        );
        Ok(server)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn pid(&self) -> i32 {
        self.pid
    }

    pub fn pgdata(&self) -> &Path {
        &self.pgdata
    }

    /// The superuser's connection string for `database`, as the gateway itself connects:
    /// over the Unix socket when there is one (no TCP stack between the gateway and its
    /// own server), else over TCP on 127.0.0.1.
    pub fn local_url(&self, password: &SecretString, database: &str) -> SecretString {
        let host = match &self.socket_dir {
            Some(dir) => crate::config::percent_encode_userinfo(&dir.to_string_lossy()),
            None => "127.0.0.1".to_owned(),
        };
        SecretString::from(format!(
            "postgresql://postgres:{}@{host}:{}/{database}",
            crate::config::percent_encode_userinfo(password.expose_secret()),
            self.port
        ))
    }

    /// Resolves when the server process has exited, with a description of how.
    pub async fn exited(&self) -> String {
        let mut receiver = self.exited.clone();
        match receiver.wait_for(Option::is_some).await {
            Ok(status) => status.clone().unwrap_or_default(),
            Err(_) => "supervisor ended".to_owned(),
        }
    }

    fn has_exited(&self) -> bool {
        self.exited.borrow().is_some()
    }

    /// Fast shutdown (SIGINT: disconnect clients, checkpoint, exit), escalating to an
    /// immediate shutdown if the server does not finish in time.
    pub async fn stop(mut self) {
        self.stopped = true;
        for (signal, grace) in [
            (libc::SIGINT, Duration::from_secs(30)),
            (libc::SIGQUIT, Duration::from_secs(5)),
            (libc::SIGKILL, Duration::from_secs(5)),
        ] {
            if self.has_exited() {
                break;
            }
            self.signal(signal);
            if tokio::time::timeout(grace, self.exited()).await.is_ok() {
                break;
            }
            tracing::warn!(
                signal,
                "embedded PostgreSQL did not stop in time; escalating"
            );
        }
        tracing::info!("embedded PostgreSQL stopped");
    }

    fn signal(&self, signal: i32) {
        // SAFETY: kill(2) has no memory-safety preconditions; the pid is our own child,
        // which the supervisor thread has not reaped while `exited` is unset.
        unsafe {
            libc::kill(self.pid, signal);
        }
    }

    /// Waits until the server answers over TCP (the address `status` prints).
    async fn wait_ready(&self, password: &SecretString) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        let config = self.superuser_config("127.0.0.1", password);
        loop {
            if self.has_exited() {
                return Err(format!("the server exited ({})", self.exited().await));
            }
            let error = match answers(&config).await {
                Ok(()) => return Ok(()),
                Err(error) => error,
            };
            if Instant::now() > deadline {
                return Err(format!("not accepting connections after 60 s: {error}"));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// `dir` if the ready server answers on its socket there; a gateway that cannot
    /// reach it (a root without `CAP_DAC_OVERRIDE`, say) keeps to TCP.
    async fn reach_socket(&self, dir: PathBuf, password: &SecretString) -> Option<PathBuf> {
        let config = self.superuser_config(&dir.to_string_lossy(), password);
        match answers(&config).await {
            Ok(()) => Some(dir),
            Err(error) => {
                tracing::warn!(dir = %dir.display(), %error, "the embedded cluster's Unix socket is unreachable; using TCP");
                None
            }
        }
    }

    fn superuser_config(&self, host: &str, password: &SecretString) -> tokio_postgres::Config {
        let mut config = tokio_postgres::Config::new();
        config
            .host(host)
            .port(self.port)
            .user("postgres")
            .dbname("postgres")
            .password(password.expose_secret())
            .connect_timeout(Duration::from_secs(2));
        config
    }
}

impl Drop for EmbeddedPostgres {
    fn drop(&mut self) {
        if !self.stopped && !self.has_exited() {
            self.signal(libc::SIGINT);
        }
    }
}

/// Whether a login as the superuser with `config` can run a query.
async fn answers(config: &tokio_postgres::Config) -> Result<(), String> {
    let (client, connection) = config
        .connect(tokio_postgres::NoTls)
        .await
        .map_err(|error| error.to_string())?;
    let connection = tokio::spawn(connection);
    let result = client.simple_query("SELECT 1").await;
    drop(client);
    let _ = connection.await;
    result.map(|_| ()).map_err(|error| error.to_string())
}

/// Settings given on the server's command line, so they apply on every start.
fn server_settings(options: &EmbeddedOptions, socket_dir: Option<&Path>) -> Vec<String> {
    // A list setting: one double-quoted entry, so commas and spaces in the path are kept.
    let socket_dir =
        socket_dir.map(|dir| format!("\"{}\"", dir.to_string_lossy().replace('"', "\"\"")));
    let mut settings = vec![
        ("port", options.port.to_string()),
        ("listen_addresses", "127.0.0.1".to_owned()),
        // The gateway's own connections; no socket when its path would be too long.
        ("unix_socket_directories", socket_dir.unwrap_or_default()),
        ("timezone", "UTC".to_owned()),
        ("max_connections", "100".to_owned()),
        // Logical decoding feeds realtime's postgres_changes.
        ("wal_level", "logical".to_owned()),
        ("max_wal_senders", "10".to_owned()),
        ("max_replication_slots", "64".to_owned()),
        // A slot nobody reads (every gateway down) cannot fill the disk.
        (
            "max_slot_wal_keep_size",
            format!("{}MB", options.max_slot_wal_keep_mb),
        ),
        // Supabase's servers load pg_stat_statements, so query identifiers are computed
        // and `EXPLAIN (VERBOSE)` shows them.
        ("compute_query_id", "on".to_owned()),
    ];
    if !options.fsync {
        settings.push(("fsync", "off".to_owned()));
        settings.push(("synchronous_commit", "off".to_owned()));
        settings.push(("full_page_writes", "off".to_owned()));
    }
    settings
        .into_iter()
        .flat_map(|(name, value)| ["-c".to_owned(), format!("{name}={value}")])
        .collect()
}

/// Spawns the server from a dedicated thread that lives exactly as long as the server:
/// `PR_SET_PDEATHSIG` fires when the *thread* that forked the child ends, so the thread
/// must not be a short-lived worker.
fn spawn_supervised(
    mut command: Command,
) -> std::io::Result<(i32, watch::Receiver<Option<String>>)> {
    let (exit_tx, exit_rx) = watch::channel(None);
    let (pid_tx, pid_rx) = std::sync::mpsc::channel();
    let parent = std::process::id();
    // SAFETY: the closure runs between fork and exec and only calls async-signal-safe
    // functions (prctl, getppid, _exit) without allocating.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGINT) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The gateway may have died between fork and prctl.
            if libc::getppid() as u32 != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
    std::thread::Builder::new()
        .name("postgres-supervisor".into())
        .spawn(move || match command.spawn() {
            Ok(mut child) => {
                let pid = child.id() as i32;
                let _ = pid_tx.send(Ok(pid));
                let status = match child.wait() {
                    Ok(status) => status.to_string(),
                    Err(error) => format!("wait failed: {error}"),
                };
                let _ = exit_tx.send(Some(status));
            }
            Err(error) => {
                let _ = pid_tx.send(Err(error));
            }
        })?;
    let pid = pid_rx
        .recv()
        .map_err(|_| std::io::Error::other("supervisor thread ended early"))??;
    Ok((pid, exit_rx))
}

/// Finds the directory holding `initdb` and `postgres`.
pub fn find_bin_dir(hint: Option<&Path>) -> Result<PathBuf, EmbeddedError> {
    let has_binaries = |dir: &Path| dir.join("initdb").is_file() && dir.join("postgres").is_file();
    if let Some(dir) = hint {
        return if has_binaries(dir) {
            Ok(dir.to_path_buf())
        } else {
            Err(EmbeddedError::BadBinDir(dir.to_path_buf()))
        };
    }
    // On PATH (Debian puts symlinks there only sometimes): follow the link to the real
    // directory, since postgres finds its share files relative to itself.
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let initdb = dir.join("initdb");
            if initdb.is_file()
                && let Ok(real) = fs::canonicalize(&initdb)
                && let Some(real_dir) = real.parent()
                && has_binaries(real_dir)
            {
                return Ok(real_dir.to_path_buf());
            }
        }
    }
    // Debian/Ubuntu layout: newest major version first.
    let mut versions: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let major = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            has_binaries(&bin).then_some((major, bin))
        })
        .collect();
    versions.sort();
    versions
        .pop()
        .map(|(_, bin)| bin)
        .ok_or(EmbeddedError::BinariesNotFound)
}

fn run_as() -> Result<RunAs, EmbeddedError> {
    // SAFETY: geteuid/getegid cannot fail and have no preconditions.
    let (euid, egid) = unsafe { (libc::geteuid(), libc::getegid()) };
    if euid != 0 {
        return Ok(RunAs {
            uid: euid,
            gid: egid,
            switch: false,
        });
    }
    if let Some((uid, gid)) = lookup_user("postgres") {
        return Ok(RunAs {
            uid,
            gid,
            switch: true,
        });
    }
    tracing::info!("creating the unprivileged OS user `postgres` to run the embedded cluster");
    let output = Command::new("useradd")
        .args([
            "--system",
            "--user-group",
            "--no-create-home",
            "--home-dir",
            "/nonexistent",
            "--shell",
            "/usr/sbin/nologin",
            "postgres",
        ])
        .output()
        .map_err(|error| EmbeddedError::User(format!("useradd: {error}")))?;
    if !output.status.success() {
        return Err(EmbeddedError::User(
            String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        ));
    }
    lookup_user("postgres")
        .map(|(uid, gid)| RunAs {
            uid,
            gid,
            switch: true,
        })
        .ok_or_else(|| EmbeddedError::User("useradd succeeded but the user is missing".into()))
}

fn lookup_user(name: &str) -> Option<(u32, u32)> {
    let name = CString::new(name).ok()?;
    // SAFETY: getpwnam returns NULL or a pointer to static storage that stays valid until
    // the next getpw* call; we copy the two fields out immediately. Start-up is
    // single-threaded with respect to getpw* calls.
    unsafe {
        let entry = libc::getpwnam(name.as_ptr());
        if entry.is_null() {
            None
        } else {
            Some(((*entry).pw_uid, (*entry).pw_gid))
        }
    }
}

fn io_error(path: &Path, source: std::io::Error) -> EmbeddedError {
    EmbeddedError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn prepare_dirs(data_dir: &Path, pgdata: &Path, run_as: RunAs) -> Result<(), EmbeddedError> {
    crate::identity::project_keys::ensure_data_dir(data_dir)
        .map_err(|source| io_error(data_dir, source))?;
    if !pgdata.exists() {
        fs::create_dir(pgdata).map_err(|source| io_error(pgdata, source))?;
    }
    if run_as.switch {
        std::os::unix::fs::chown(pgdata, Some(run_as.uid), Some(run_as.gid))
            .map_err(|source| io_error(pgdata, source))?;
        let absolute = fs::canonicalize(data_dir).map_err(|source| io_error(data_dir, source))?;
        ensure_traversable(&absolute, run_as)?;
    }
    fs::set_permissions(pgdata, fs::Permissions::from_mode(0o700))
        .map_err(|source| io_error(pgdata, source))?;
    Ok(())
}

/// `DATA_DIR/run`, made private to the server's account, when the socket's path in it fits
/// the kernel's limit; `None` (TCP only) otherwise.
fn prepare_socket_dir(
    data_dir: &Path,
    port: u16,
    run_as: RunAs,
) -> Result<Option<PathBuf>, EmbeddedError> {
    let absolute = fs::canonicalize(data_dir).map_err(|source| io_error(data_dir, source))?;
    let dir = absolute.join(SOCKET_DIR);
    if !socket_path_fits(&dir, port) {
        tracing::info!(dir = %dir.display(), "socket path too long; the gateway reaches its cluster over TCP");
        return Ok(None);
    }
    if !dir.exists() {
        fs::create_dir(&dir).map_err(|source| io_error(&dir, source))?;
    }
    if run_as.switch {
        std::os::unix::fs::chown(&dir, Some(run_as.uid), Some(run_as.gid))
            .map_err(|source| io_error(&dir, source))?;
    }
    // Only the server's account (and root) may reach the socket.
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
        .map_err(|source| io_error(&dir, source))?;
    Ok(Some(dir))
}

/// Whether `dir/.s.PGSQL.<port>` fits in `sun_path`.
fn socket_path_fits(dir: &Path, port: u16) -> bool {
    let name = format!("/.s.PGSQL.{port}");
    dir.as_os_str().len() + name.len() <= MAX_SOCKET_PATH
}

/// The server user must be able to walk down to its cluster. When the gateway is root and
/// an ancestor (say `/root`) is closed, open it for traversal only (`o+x`), and say so.
fn ensure_traversable(dir: &Path, run_as: RunAs) -> Result<(), EmbeddedError> {
    for ancestor in dir.ancestors() {
        let metadata = fs::metadata(ancestor).map_err(|source| io_error(ancestor, source))?;
        let mode = metadata.mode();
        let traversable = mode & 0o001 != 0
            || (metadata.uid() == run_as.uid && mode & 0o100 != 0)
            || (metadata.gid() == run_as.gid && mode & 0o010 != 0);
        if !traversable {
            tracing::warn!(
                dir = %ancestor.display(),
                "allowing the postgres user to traverse this directory (chmod o+x) so it can reach the embedded cluster"
            );
            fs::set_permissions(
                ancestor,
                fs::Permissions::from_mode((mode | 0o001) & 0o7777),
            )
            .map_err(|source| io_error(ancestor, source))?;
        }
    }
    Ok(())
}

fn init_cluster(
    bin_dir: &Path,
    data_dir: &Path,
    pgdata: &Path,
    options: &EmbeddedOptions,
    run_as: RunAs,
) -> Result<(), EmbeddedError> {
    let not_empty = fs::read_dir(pgdata)
        .map_err(|source| io_error(pgdata, source))?
        .next()
        .is_some();
    if not_empty {
        return Err(EmbeddedError::NotACluster {
            path: pgdata.to_path_buf(),
        });
    }
    tracing::info!(pgdata = %pgdata.display(), "creating the embedded PostgreSQL cluster (first start)");

    let password_file = data_dir.join(".initdb-password");
    let write_password = || -> std::io::Result<()> {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&password_file)?;
        file.write_all(options.superuser_password.expose_secret().as_bytes())?;
        if run_as.switch {
            std::os::unix::fs::chown(&password_file, Some(run_as.uid), Some(run_as.gid))?;
        }
        Ok(())
    };
    write_password().map_err(|source| io_error(&password_file, source))?;

    let run = |locale: &str| {
        let mut command = Command::new(bin_dir.join("initdb"));
        command
            .arg("-D")
            .arg(pgdata)
            .args(["-U", "postgres", "-A", "scram-sha-256", "-E", "UTF8"])
            .arg(format!("--locale={locale}"))
            .arg(format!("--pwfile={}", password_file.display()))
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("LC_ALL", "C.UTF-8");
        if !options.fsync {
            command.arg("--no-sync");
        }
        if run_as.switch {
            command.uid(run_as.uid).gid(run_as.gid);
        }
        command.output()
    };
    // C.UTF-8 sorts by code point and understands UTF-8; fall back to C where the locale
    // is not installed.
    let mut result = run("C.UTF-8");
    if let Ok(output) = &result
        && !output.status.success()
        && String::from_utf8_lossy(&output.stderr).contains("locale")
    {
        result = run("C");
    }
    let _ = fs::remove_file(&password_file);
    let output = result.map_err(|error| EmbeddedError::Initdb(error.to_string()))?;
    if !output.status.success() {
        return Err(EmbeddedError::Initdb(format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok(())
}

/// A live `postmaster.pid` means some server already uses this cluster.
fn refuse_if_running(pgdata: &Path) -> Result<(), EmbeddedError> {
    let Ok(contents) = fs::read_to_string(pgdata.join("postmaster.pid")) else {
        return Ok(());
    };
    let Some(pid) = contents
        .lines()
        .next()
        .and_then(|line| line.trim().parse::<i32>().ok())
    else {
        return Ok(());
    };
    // SAFETY: kill with signal 0 only checks whether the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0
        || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    if alive && process_is_postgres(pid) {
        return Err(EmbeddedError::AlreadyRunning {
            path: pgdata.to_path_buf(),
            pid,
        });
    }
    // A stale lock file from a crash; the server removes it itself.
    Ok(())
}

fn process_is_postgres(pid: i32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|name| name.trim().starts_with("postgres"))
        .unwrap_or(true)
}

fn log_tail(path: &Path, from: u64) -> String {
    let mut text = String::new();
    if let Ok(mut file) = File::open(path) {
        let _ = file.seek(SeekFrom::Start(from));
        let _ = file.read_to_string(&mut text);
    }
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_system_binaries_or_explains_how_to_install_them() {
        match find_bin_dir(None) {
            Ok(dir) => assert!(dir.join("postgres").is_file()),
            Err(error) => assert!(error.to_string().contains("apt-get install postgresql")),
        }
    }

    #[test]
    fn a_bad_bin_dir_is_named() {
        let error = find_bin_dir(Some(Path::new("/nonexistent"))).unwrap_err();
        assert_eq!(
            error.to_string(),
            "PG_BIN_DIR=/nonexistent does not contain initdb and postgres"
        );
    }

    #[test]
    fn durable_by_default_fast_for_tests() {
        let mut options = EmbeddedOptions {
            data_dir: PathBuf::from("/tmp/x"),
            port: 5999,
            superuser_password: SecretString::from("p".to_owned()),
            bin_dir: None,
            fsync: true,
            max_slot_wal_keep_mb: 1024,
        };
        let durable = server_settings(&options, None).join(" ");
        assert!(durable.contains("port=5999"));
        assert!(durable.contains("wal_level=logical"));
        assert!(durable.contains("max_slot_wal_keep_size=1024MB"));
        assert!(!durable.contains("fsync=off"));
        options.fsync = false;
        assert!(
            server_settings(&options, None)
                .join(" ")
                .contains("fsync=off")
        );
    }

    #[test]
    fn the_socket_directory_is_one_quoted_list_entry_or_none() {
        let options = EmbeddedOptions {
            data_dir: PathBuf::from("/tmp/x"),
            port: 5999,
            superuser_password: SecretString::from("p".to_owned()),
            bin_dir: None,
            fsync: true,
            max_slot_wal_keep_mb: 1024,
        };
        let with = server_settings(&options, Some(Path::new("/srv/a, b\"c/run")));
        assert!(with.contains(&"unix_socket_directories=\"/srv/a, b\"\"c/run\"".to_owned()));
        let without = server_settings(&options, None);
        assert!(without.contains(&"unix_socket_directories=".to_owned()));
    }

    #[test]
    fn socket_paths_longer_than_sun_path_fall_back_to_tcp() {
        // 96 + "/.s.PGSQL.54322" (15) = 111 > 107.
        let deep = PathBuf::from(format!("/{}", "d".repeat(95)));
        assert!(!socket_path_fits(&deep, 54322));
        let short = PathBuf::from(format!("/{}", "d".repeat(91)));
        assert!(socket_path_fits(&short, 54322));
        assert!(socket_path_fits(Path::new("/srv/cielo/.data/run"), 54322));
    }

    #[test]
    fn a_dead_pid_file_is_not_a_running_server() {
        let dir = tempfile::tempdir().unwrap();
        // pid 0x7ffffffe is never a live process.
        fs::write(dir.path().join("postmaster.pid"), "2147483646\n").unwrap();
        assert!(refuse_if_running(dir.path()).is_ok());
    }
}
