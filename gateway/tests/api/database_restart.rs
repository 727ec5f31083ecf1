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

/// A durable cluster of the test's own (the shared one serves every other test), named
/// `kind`, and its superuser URL.
async fn durable_cluster(kind: &str) -> (EmbeddedOptions, EmbeddedPostgres, String) {
    let options = EmbeddedOptions {
        data_dir: run_dir(kind),
        port: free_port(),
        superuser_password: SecretString::from("postgres".to_owned()),
        bin_dir: None,
        // Durable, as a real server: the fast settings for tests acknowledge commits
        // before they reach the WAL, which a crash then loses.
        fsync: true,
        max_slot_wal_keep_mb: 1024,
    };
    let _ = std::fs::remove_dir_all(&options.data_dir);
    let server = EmbeddedPostgres::start(&options).await.expect("start");
    let url = server
        .local_url(&options.superuser_password, "postgres")
        .expose_secret()
        .to_owned();
    (options, server, url)
}

/// Crashes `server` (an immediate shutdown: every backend dies mid-whatever, as in a
/// crash), leaves it down for `down`, and starts it again.
async fn crash_and_restart(
    server: EmbeddedPostgres,
    options: &EmbeddedOptions,
    down: Duration,
) -> EmbeddedPostgres {
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
    tokio::time::sleep(down).await;
    EmbeddedPostgres::start(options).await.expect("restart")
}

#[tokio::test]
async fn a_database_crash_under_load_gets_503s_then_recovers_losing_no_acknowledged_write() {
    let (options, server, url) = durable_cluster("restart").await;
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
    let server = crash_and_restart(server, &options, Duration::from_millis(1200)).await;
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

/// Group commit under a crash: with one connection per HTTP worker and many writers at once,
/// writes leave together in group-committed batches (each commits without waiting for its
/// WAL flush; the batch's flush is waited for before any is answered), and the database
/// crashes under them. Every write answered 201 is there after the restart (early commits
/// among them), and no row that was never sent. (A crash loses only the WAL not yet
/// written, a few milliseconds' worth, so this catches an unflushed answer only now and
/// then; `batches::writes_sent_together_commit_early_and_fail_alone` checks the flush
/// itself, at every answer.)
#[tokio::test]
async fn a_crash_under_group_committed_writes_loses_no_acknowledged_write() {
    const WRITERS: usize = 24;
    let (options, server, url) = durable_cluster("group-commit").await;
    let timeout = POOL_TIMEOUT_SECS.to_string();
    let app = Arc::new(
        spawn_app_on(
            url,
            "postgres".into(),
            &[("DB_POOL_SIZE", "2"), ("DB_POOL_TIMEOUT", timeout.as_str())],
        )
        .await,
    );
    // Each row says how its transaction committed.
    create_and_wait(
        &app,
        "grouped_rows",
        "CREATE TABLE public.grouped_rows (
             id int PRIMARY KEY,
             commit_mode text NOT NULL DEFAULT current_setting('synchronous_commit'));
         GRANT ALL ON public.grouped_rows TO service_role;",
    )
    .await;

    let running = Arc::new(AtomicBool::new(true));
    let next_id = Arc::new(AtomicI32::new(0));
    let mut writers = tokio::task::JoinSet::new();
    for _ in 0..WRITERS {
        let (app, running, next_id) = (app.clone(), running.clone(), next_id.clone());
        writers.spawn(async move {
            let mut answers = Vec::new();
            while running.load(Ordering::Relaxed) {
                let id = next_id.fetch_add(1, Ordering::Relaxed);
                let response = app
                    .rest(Method::POST, "/grouped_rows")
                    .bearer_auth(app.service_role_key())
                    .json(&json!({ "id": id }))
                    .timeout(Duration::from_secs(30))
                    .send()
                    .await
                    .unwrap();
                answers.push((id, response.status().as_u16()));
            }
            answers
        });
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let server = crash_and_restart(server, &options, Duration::from_millis(500)).await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    running.store(false, Ordering::Relaxed);
    let mut answers = Vec::new();
    while let Some(writer) = writers.join_next().await {
        answers.extend(writer.unwrap());
    }

    let rows = app
        .admin()
        .await
        .query("SELECT id, commit_mode FROM public.grouped_rows", &[])
        .await
        .unwrap();
    let stored: HashMap<i32, String> = rows.iter().map(|row| (row.get(0), row.get(1))).collect();
    let mut early = 0;
    for (id, status) in &answers {
        match (status, stored.get(id)) {
            (201, Some(mode)) => early += usize::from(mode == "off"),
            (201, None) => panic!("write {id} was answered 201 and is gone"),
            (503, _) => {}
            (status, _) => panic!("write {id} answered {status}"),
        }
    }
    let sent = next_id.load(Ordering::Relaxed);
    assert!(stored.keys().all(|id| (0..sent).contains(id)));
    assert!(
        early > 100,
        "only {early} acknowledged writes committed early: were they grouped?"
    );
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
