//! The database crashes and restarts while rest/v1 is under load (attack case 43): requests
//! meanwhile get PostgREST's 503 answers at once, the gateway recovers by itself, and no
//! acknowledged write is lost or doubled, nor any write left half-done.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use gateway::db::embedded::{EmbeddedOptions, EmbeddedPostgres};
use reqwest::Method;
use secrecy::{ExposeSecret, SecretString};
use serde_json::{Value, json};

use crate::helpers::{TestApp, free_port, run_dir, spawn_app_on};

/// Seconds a request waits for a pooled connection; nothing may take much longer.
const POOL_TIMEOUT_SECS: u64 = 2;
/// Rows per insert: each one lands whole or not at all.
const ROWS_PER_GROUP: i32 = 3;

/// What one request got.
struct Outcome {
    write_group: Option<i32>,
    sent: Instant,
    took: Duration,
    status: u16,
    retry_after: Option<String>,
    body: String,
}

#[tokio::test]
async fn a_database_crash_under_load_gets_503s_then_recovers_losing_no_acknowledged_write() {
    // A cluster of this test's own: the shared one serves every other test.
    let options = EmbeddedOptions {
        data_dir: run_dir("restart"),
        port: free_port(),
        superuser_password: SecretString::from("postgres".to_owned()),
        bin_dir: None,
        // Durable, as a real server: the fast settings for tests acknowledge commits
        // before they reach the WAL, which a crash then loses.
        fsync: true,
    };
    let _ = std::fs::remove_dir_all(&options.data_dir);
    let server = EmbeddedPostgres::start(&options).await.expect("start");
    let url = server
        .local_url(&options.superuser_password, "postgres")
        .expose_secret()
        .to_owned();
    let timeout = POOL_TIMEOUT_SECS.to_string();
    let app = Arc::new(
        spawn_app_on(
            url,
            "postgres".into(),
            &[("DB_POOL_TIMEOUT", timeout.as_str())],
        )
        .await,
    );
    create_and_wait(
        &app,
        "restart_rows",
        "CREATE TABLE public.restart_rows (
             grp int, part int, PRIMARY KEY (grp, part));
         ALTER TABLE public.restart_rows ENABLE ROW LEVEL SECURITY;
         CREATE POLICY everyone_reads ON public.restart_rows FOR SELECT USING (true);
         GRANT SELECT ON public.restart_rows TO anon;
         GRANT ALL ON public.restart_rows TO service_role;",
    )
    .await;

    // Three writers inserting numbered groups of rows, three readers, none pausing.
    let running = Arc::new(AtomicBool::new(true));
    let next_group = Arc::new(AtomicI32::new(0));
    let mut load = tokio::task::JoinSet::new();
    for writer in [true, true, true, false, false, false] {
        let (app, running, next_group) = (app.clone(), running.clone(), next_group.clone());
        load.spawn(async move {
            let mut outcomes = Vec::new();
            while running.load(Ordering::Relaxed) {
                let group = writer.then(|| next_group.fetch_add(1, Ordering::Relaxed));
                outcomes.push(send(&app, group).await);
            }
            outcomes
        });
    }

    tokio::time::sleep(Duration::from_millis(800)).await;
    // Immediate shutdown: every backend dies mid-whatever, as in a crash.
    // (The shell's built-in `kill`: no unsafe code, no dependence on procps.)
    let crashed = std::process::Command::new("sh")
        .args(["-c", &format!("kill -QUIT {}", server.pid())])
        .status()
        .unwrap();
    assert!(crashed.success());
    tokio::time::timeout(Duration::from_secs(10), server.exited())
        .await
        .expect("the server exits");
    drop(server);
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let server = EmbeddedPostgres::start(&options).await.expect("restart");
    let restarted = Instant::now();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    running.store(false, Ordering::Relaxed);
    let mut outcomes = Vec::new();
    while let Some(worker) = load.join_next().await {
        outcomes.extend(worker.unwrap());
    }

    let (mut unavailable, mut refused_connections) = (0, 0);
    for outcome in &outcomes {
        assert!(
            outcome.took < Duration::from_secs(POOL_TIMEOUT_SECS + 1),
            "a request hung for {:?}",
            outcome.took
        );
        match (outcome.write_group, outcome.status) {
            (None, 200) | (Some(_), 201) => {}
            (_, 503) => {
                unavailable += 1;
                assert_eq!(outcome.retry_after.as_deref(), Some("0"));
                let body: Value = serde_json::from_str(&outcome.body).unwrap();
                let expected = match body["code"].as_str() {
                    Some("PGRST000") => {
                        refused_connections += 1;
                        "Database connection error."
                    }
                    Some("PGRST001") => "Database client error. Retrying the connection.",
                    _ => panic!("unexpected 503 body {body}"),
                };
                assert_eq!(body["message"], expected, "{body}");
                assert!(body["details"].is_string(), "{body}");
                assert!(
                    outcome.sent < restarted,
                    "a request sent after the restart failed: {body}"
                );
            }
            (group, status) => panic!("{group:?} got {status}: {}", outcome.body),
        }
    }
    // While the server is down, new connections fail: PGRST000, not a lost connection.
    assert!(
        unavailable > 0 && refused_connections > 0,
        "the outage went unnoticed"
    );
    let recovered = |writes: bool| {
        outcomes
            .iter()
            .any(|outcome| outcome.sent > restarted && outcome.write_group.is_some() == writes)
    };
    assert!(
        recovered(true) && recovered(false),
        "no traffic after the restart"
    );

    // Every acknowledged insert is there once, whole; the others are whole or absent.
    let rows = app
        .admin()
        .await
        .query(
            "SELECT grp, count(*)::int FROM public.restart_rows GROUP BY grp",
            &[],
        )
        .await
        .unwrap();
    let stored: HashMap<i32, i32> = rows.iter().map(|row| (row.get(0), row.get(1))).collect();
    for outcome in &outcomes {
        let Some(group) = outcome.write_group else {
            continue;
        };
        match (outcome.status, stored.get(&group)) {
            (201, Some(&ROWS_PER_GROUP)) | (503, None | Some(&ROWS_PER_GROUP)) => {}
            (status, rows) => panic!("group {group} answered {status} has {rows:?} rows"),
        }
    }
    let sent = next_group.load(Ordering::Relaxed);
    assert!(stored.keys().all(|group| (0..sent).contains(group)));

    // The schema cache's listener is back too: new DDL reaches rest/v1.
    create_and_wait(
        &app,
        "after_restart",
        "CREATE TABLE public.after_restart (id int PRIMARY KEY);
         GRANT SELECT ON public.after_restart TO anon;",
    )
    .await;
    server.stop().await;
    let _ = std::fs::remove_dir_all(&options.data_dir);
}

/// Runs `ddl` and waits until rest/v1 serves `table` (the schema cache reloads on DDL).
async fn create_and_wait(app: &TestApp, table: &str, ddl: &str) {
    app.admin().await.batch_execute(ddl).await.unwrap();
    let path = format!("/{table}");
    app.send_until(|| app.rest(Method::GET, &path), |status| status == 200)
        .await;
}

/// One request: an insert of group `write_group` as service_role, or a read as anon.
async fn send(app: &TestApp, write_group: Option<i32>) -> Outcome {
    let request = match write_group {
        Some(group) => app
            .rest(Method::POST, "/restart_rows")
            .bearer_auth(app.service_role_key())
            .json(
                &(0..ROWS_PER_GROUP)
                    .map(|part| json!({"grp": group, "part": part}))
                    .collect::<Vec<_>>(),
            ),
        None => app.rest(Method::GET, "/restart_rows?select=grp&grp=eq.0"),
    };
    let sent = Instant::now();
    let response = request
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .map(|value| value.to_str().unwrap().to_owned());
    let body = response.text().await.unwrap();
    Outcome {
        write_group,
        sent,
        took: sent.elapsed(),
        status,
        retry_after,
        body,
    }
}
