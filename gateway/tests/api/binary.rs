//! The real `cielo` binary with its embedded cluster, as `make run` starts it.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::{fixture_web_dir, free_port};

const SIGINT: i32 = 2;
const SIGKILL: i32 = 9;

struct Stack {
    data_dir: PathBuf,
    api_port: u16,
    db_port: u16,
}

impl Stack {
    fn new(name: &str) -> Self {
        let data_dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("cielo-bin-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&data_dir);
        std::fs::create_dir_all(&data_dir).unwrap();
        Self {
            data_dir,
            api_port: free_port(),
            db_port: free_port(),
        }
    }

    /// The binary with only the settings under test (no inherited DATABASE_URL, no .env).
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_cielo"));
        command
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("DATA_DIR", &self.data_dir)
            .env("API_HOST", "127.0.0.1")
            .env("API_PORT", self.api_port.to_string())
            .env("DB_PORT", self.db_port.to_string())
            .env("WEB_DIR", fixture_web_dir())
            .env("SHUTDOWN_TIMEOUT", "2")
            .env("SEED_DEMO", "false")
            .current_dir(&self.data_dir);
        command
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.api_port)
    }

    /// The `/health` document.
    async fn health(&self) -> Value {
        reqwest::get(self.url("/health"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// Starts the stack and waits for the status block. The caller owns the child and
    /// waits for it (`wait_exit`).
    fn start(&self) -> (Child, String) {
        self.start_with(&[])
    }

    /// [`Stack::start`] with extra settings.
    #[allow(clippy::zombie_processes)]
    fn start_with(&self, settings: &[(&str, &str)]) -> (Child, String) {
        let mut command = self.command(&[]);
        for (name, value) in settings {
            command.env(name, value);
        }
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, rx) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let stderr = child.stderr.take().unwrap();
        let log = self.data_dir.join("gateway.log");
        std::thread::spawn(move || {
            let mut file = std::fs::File::create(log).unwrap();
            let _ = std::io::copy(&mut BufReader::new(stderr), &mut file);
        });
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut output = String::new();
        while Instant::now() < deadline {
            if let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
                output.push_str(&line);
                output.push('\n');
                if line.contains("Secret key:") {
                    return (child, output);
                }
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!(
                    "cielo exited early ({status}):\n{output}\n{}",
                    std::fs::read_to_string(self.data_dir.join("gateway.log")).unwrap_or_default()
                );
            }
        }
        panic!("cielo did not print its status block in time:\n{output}");
    }

    fn postgres_processes(&self) -> Vec<u32> {
        let pgdata = self.data_dir.join("postgres");
        let pgdata = pgdata.to_string_lossy();
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .map(|raw| String::from_utf8_lossy(&raw).contains(pgdata.as_ref()))
                    .unwrap_or(false)
            })
            .collect()
    }

    fn wait_no_postgres(&self, within: Duration) {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if self.postgres_processes().is_empty() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("stray postgres processes: {:?}", self.postgres_processes());
    }

    fn db_url(&self) -> String {
        format!(
            "postgresql://postgres:postgres@127.0.0.1:{}/postgres",
            self.db_port
        )
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}

fn signal(child: &Child, signal: i32) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success());
}

fn wait_exit(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "cielo did not exit in time");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn env_value(output: &str, name: &str) -> String {
    output
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{name}=\"")))
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or_else(|| panic!("{name} missing from:\n{output}"))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn embedded_stack_starts_keeps_data_and_stops_cleanly() {
    let stack = Stack::new("lifecycle");
    let http = reqwest::Client::new();

    // First start: initdb, migrations, status block.
    let (mut gateway, banner) = stack.start();
    for label in [
        "API URL",
        "Realtime URL",
        "Web URL",
        "DB URL",
        "Inbox URL",
        "JWT secret",
        "anon key",
        "service_role key",
    ] {
        assert!(
            banner.contains(&format!("{label}: ")),
            "{label} missing:\n{banner}"
        );
    }
    assert!(banner.contains(&stack.db_url()), "{banner}");
    assert_eq!(
        http.get(stack.url("/auth/v1/health"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    assert_eq!(stack.health().await["database"], "ok");
    assert_eq!(http.get(stack.url("/")).send().await.unwrap().status(), 200);

    // The gateway reaches its own cluster over the Unix socket in DATA_DIR/run, a
    // directory only the server's account may enter.
    let run = stack.data_dir.join("run");
    assert!(run.join(format!(".s.PGSQL.{}", stack.db_port)).exists());
    assert_eq!(
        std::fs::metadata(&run).unwrap().permissions().mode() & 0o777,
        0o700
    );
    assert_eq!(
        gateway_connections(&stack.db_url()).await,
        (true, vec![None]),
        "the gateway's connections should all come over the socket"
    );

    // `status -o env` agrees with the running server.
    let status = stack.command(&["status", "-o", "env"]).output().unwrap();
    assert!(status.status.success());
    let status = String::from_utf8(status.stdout).unwrap();
    let config: Value = http
        .get(stack.url("/config.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        env_value(&status, "ANON_KEY"),
        config["supabaseAnonKey"].as_str().unwrap()
    );
    assert_eq!(env_value(&status, "DB_URL"), stack.db_url());

    // A second gateway on the same data directory is refused.
    let mut second = stack.command(&[]);
    second.env("API_PORT", free_port().to_string());
    let second = second.output().unwrap();
    assert!(!second.status.success());
    assert!(String::from_utf8_lossy(&second.stderr).contains("already running"));

    let (client, connection) = tokio_postgres::connect(&stack.db_url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
        .batch_execute("CREATE TABLE kept (note text); INSERT INTO kept VALUES ('sigue aquí')")
        .await
        .unwrap();
    drop(client);

    // Ctrl-C: the gateway stops the cluster and leaves no postgres behind.
    signal(&gateway, SIGINT);
    let exit = wait_exit(&mut gateway, Duration::from_secs(45));
    assert!(exit.success(), "exit status {exit}");
    stack.wait_no_postgres(Duration::from_secs(5));

    // Restart: same cluster, same data, same keys.
    let (mut gateway, banner_again) = stack.start();
    assert_eq!(
        banner.lines().find(|l| l.contains("anon key")),
        banner_again.lines().find(|l| l.contains("anon key"))
    );
    let (client, connection) = tokio_postgres::connect(&stack.db_url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let note: String = client
        .query_one("SELECT note FROM kept", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(note, "sigue aquí");
    drop(client);

    // Even a gateway killed without warning takes its cluster down (parent-death signal).
    signal(&gateway, SIGKILL);
    wait_exit(&mut gateway, Duration::from_secs(10));
    stack.wait_no_postgres(Duration::from_secs(30));
}

/// Whether the gateway has connections open, and their distinct client addresses
/// (`None`: the Unix socket).
async fn gateway_connections(db_url: &str) -> (bool, Vec<Option<String>>) {
    let (client, connection) = tokio_postgres::connect(db_url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let rows = client
        .query(
            "SELECT DISTINCT host(client_addr) FROM pg_stat_activity \
             WHERE application_name LIKE 'cielo-%' AND pid <> pg_backend_pid()",
            &[],
        )
        .await
        .unwrap();
    let addresses: Vec<Option<String>> = rows.iter().map(|row| row.get(0)).collect();
    (!addresses.is_empty(), addresses)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_data_dir_too_deep_for_a_socket_path_falls_back_to_tcp() {
    // The socket path would pass the kernel's 107-byte limit.
    let stack = Stack::new(&"deep".repeat(25));
    let (mut gateway, _) = stack.start();
    assert_eq!(stack.health().await["database"], "ok");
    assert!(!stack.data_dir.join("run").exists());
    assert_eq!(
        gateway_connections(&stack.db_url()).await,
        (true, vec![Some("127.0.0.1".to_owned())])
    );
    signal(&gateway, SIGINT);
    let exit = wait_exit(&mut gateway, Duration::from_secs(45));
    assert!(exit.success(), "cielo exited with {exit}");
    stack.wait_no_postgres(Duration::from_secs(5));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cluster_that_dies_stops_the_gateway_with_an_error() {
    let stack = Stack::new("cluster-dies");
    let (mut gateway, _) = stack.start();
    let postmaster = *stack
        .postgres_processes()
        .iter()
        .min()
        .expect("the embedded cluster runs");
    let killed = Command::new("kill")
        .arg("-KILL")
        .arg(postmaster.to_string())
        .status()
        .unwrap();
    assert!(killed.success());
    let exit = wait_exit(&mut gateway, Duration::from_secs(30));
    assert!(!exit.success(), "exit status {exit}");
    stack.wait_no_postgres(Duration::from_secs(10));
}

/// Every 5xx leaves one `request failed` line carrying the request id the client was sent,
/// also when rest/v1 answered it as a plain response; 4xx answers leave none.
#[tokio::test(flavor = "multi_thread")]
async fn server_errors_are_logged_with_the_request_id_the_client_saw() {
    let stack = Stack::new("error-log");
    let (mut gateway, _) = stack.start_with(&[("LOG_FORMAT", "json")]);
    let status = stack.command(&["status", "-o", "env"]).output().unwrap();
    let anon = env_value(&String::from_utf8(status.stdout).unwrap(), "ANON_KEY");
    let (client, connection) = tokio_postgres::connect(&stack.db_url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
        .batch_execute(
            "CREATE FUNCTION public.disk_full() RETURNS int LANGUAGE plpgsql AS $$
             BEGIN RAISE EXCEPTION 'disco lleno' USING ERRCODE = 'XX000'; END $$;
             GRANT EXECUTE ON FUNCTION public.disk_full() TO anon;",
        )
        .await
        .unwrap();
    let http = reqwest::Client::new();
    let missing = http
        .get(stack.url("/rest/v1/no_such_table"))
        .header("apikey", &anon)
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);

    // The schema cache reloads after the DDL; until then the function is unknown (404).
    let deadline = Instant::now() + Duration::from_secs(20);
    let failed = loop {
        let response = http
            .post(stack.url("/rest/v1/rpc/disk_full"))
            .header("apikey", &anon)
            .json(&serde_json::json!({}))
            .send()
            .await
            .unwrap();
        if response.status() != 404 || Instant::now() > deadline {
            break response;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(failed.status(), 500);
    let request_id = failed.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let body: Value = failed.json().await.unwrap();
    assert_eq!(body["code"], "XX000");
    assert_eq!(body["message"], "disco lleno");

    // stderr reaches the file through a copying thread: wait for the line.
    let log = stack.data_dir.join("gateway.log");
    let deadline = Instant::now() + Duration::from_secs(10);
    let failures = loop {
        let failures: Vec<Value> = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|line| line["message"] == "request failed")
            .collect();
        if !failures.is_empty() || Instant::now() > deadline {
            break failures;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(failures.len(), 1, "{failures:?}");
    let line = &failures[0];
    assert_eq!(line["level"], "ERROR", "{line}");
    assert_eq!(line["request_id"], request_id.as_str(), "{line}");
    assert_eq!(line["method"], "POST", "{line}");
    assert_eq!(line["path"], "/rest/v1/rpc/disk_full", "{line}");
    assert_eq!(line["status"], 500, "{line}");

    signal(&gateway, SIGINT);
    let exit = wait_exit(&mut gateway, Duration::from_secs(45));
    assert!(exit.success(), "cielo exited with {exit}");
    stack.wait_no_postgres(Duration::from_secs(5));
}

#[test]
fn bad_settings_stop_start_up_with_the_variable_named() {
    let stack = Stack::new("badconfig");
    let output = stack
        .command(&[])
        .env("API_PORT", "ochenta")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("invalid value for API_PORT"), "{stderr}");
}

#[test]
fn missing_postgres_binaries_are_explained() {
    let stack = Stack::new("nobin");
    let output = stack
        .command(&[])
        .env("PG_BIN_DIR", "/nonexistent")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("PG_BIN_DIR=/nonexistent"), "{stderr}");
}

#[test]
fn status_prints_keys_before_the_first_start() {
    let stack = Stack::new("status");
    let output = stack.command(&["status", "-o", "env"]).output().unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        env_value(&stdout, "API_URL"),
        format!("http://localhost:{}", stack.api_port)
    );
    assert!(env_value(&stdout, "SERVICE_ROLE_KEY").starts_with("eyJ"));
    assert!(env_value(&stdout, "SECRET_KEY").starts_with("sb_secret_"));
    // The secret is generated once and reused.
    let again = stack.command(&["status", "-o", "env"]).output().unwrap();
    assert_eq!(
        env_value(&stdout, "JWT_SECRET"),
        env_value(&String::from_utf8(again.stdout).unwrap(), "JWT_SECRET")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn make_run_opens_on_the_demo_and_prints_its_accounts() {
    let stack = Stack::new("demo");
    let (mut gateway, banner) = stack.start_with(&[("SEED_DEMO", "true")]);
    for line in [
        "    Demo teacher: docente.demo@cielo.test",
        "      Demo admin: admin.demo@cielo.test",
        "    Demo creator: contenido.demo@cielo.test",
        "   Demo password: cielo-demo-2025",
    ] {
        assert!(banner.contains(line), "{line} missing:\n{banner}");
    }
    let (client, connection) = tokio_postgres::connect(&stack.db_url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let row = client
        .query_one(
            "SELECT count(*) FILTER (WHERE email_confirmed_at IS NOT NULL),
                    (SELECT count(*) FROM public.class_sessions),
                    (SELECT count(*) FROM cielo.seeds WHERE name = 'demo')
               FROM auth.users WHERE email LIKE '%.demo@cielo.test'",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(
        (
            row.get::<_, i64>(0),
            row.get::<_, i64>(1),
            row.get::<_, i64>(2)
        ),
        (3, 8, 1)
    );
    drop(client);
    signal(&gateway, SIGINT);
    let exit = wait_exit(&mut gateway, Duration::from_secs(30));
    assert!(exit.success(), "cielo exited with {exit}");
    stack.wait_no_postgres(Duration::from_secs(30));
}
