//! Transactions sent several to a connection (`db::batches`): each transaction of a batch
//! keeps its own settings, role, errors and commit, and reaches the right request.

use std::rc::Rc;
use std::time::Duration;

use gateway::db::api_pool::worker_pool;
use gateway::db::batches::{
    Access, MAX_BATCH, MAX_BATCH_WITH_WRITES, OwnedQuery, Reply, TransactionBatches,
};
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app, spawn_app_with};

/// Sets `$1` to `$2` for the transaction and switches to the role `$3`.
const SETTINGS: &str = "SELECT set_config($1, $2, true), set_config('role', $3, true)";
/// What a transaction sees: the probe setting, its role, and `10 / $1`.
const PROBE: &str =
    "SELECT current_setting('request.probe', true), current_user::text, 10 / $1::int";

fn transaction(
    setting: &str,
    value: &str,
    role: &str,
    divisor: &str,
    probe: &str,
) -> Vec<OwnedQuery> {
    vec![
        OwnedQuery {
            sql: SETTINGS.into(),
            params: vec![setting.into(), value.into(), role.into()],
        },
        OwnedQuery {
            sql: probe.to_owned().into(),
            params: vec![divisor.into()],
        },
    ]
}

/// Queues `job` on `batches` from a task of its own (on the current `LocalSet`).
fn queue(
    batches: &Rc<TransactionBatches>,
    access: Access,
    job: Vec<OwnedQuery>,
) -> tokio::task::JoinHandle<Reply> {
    let batches = Rc::clone(batches);
    tokio::task::spawn_local(async move { batches.run(access, job).await })
}

/// Runs `test` with batches over one connection to a fresh database, on a `LocalSet`,
/// after a transaction of `statement` as `role` prepared its statements there.
async fn with_warm_batches<F, Fut>(statement: &'static str, role: &'static str, test: F)
where
    F: FnOnce(Rc<TransactionBatches>) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    with_warm_batches_after("", statement, role, |batches, _| test(batches)).await;
}

/// [`with_warm_batches`], once `ddl` has run on the fresh database; `test` also gets the
/// gateway (for its admin connection).
async fn with_warm_batches_after<F, Fut>(
    ddl: &str,
    statement: &'static str,
    role: &'static str,
    test: F,
) where
    F: FnOnce(Rc<TransactionBatches>, Rc<TestApp>) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let app = Rc::new(spawn_app().await);
    app.admin().await.batch_execute(ddl).await.unwrap();
    let config: tokio_postgres::Config = app.database_url.parse().unwrap();
    let batches =
        TransactionBatches::new(worker_pool(config, 1, Duration::from_secs(5)).unwrap(), 1);
    let local = tokio::task::LocalSet::new();
    local
        .run_until(async move {
            let warm = batches
                .run(
                    Access::ReadOnly,
                    transaction("request.probe", "warm", role, "1", statement),
                )
                .await;
            assert_eq!(seen(warm), Ok((Some("warm".into()), role.into(), 10)));
            test(batches, app).await;
        })
        .await;
}

/// A gateway with `overrides`, once `ddl` has reached rest/v1 (`ready` answers 200).
async fn app_with_views(overrides: &[(&str, &str)], ddl: &str, ready: &str) -> TestApp {
    let app = spawn_app_with(overrides).await;
    app.admin().await.batch_execute(ddl).await.unwrap();
    app.send_until(|| app.rest(Method::GET, ready), |status| status == 200)
        .await;
    app
}

/// The probe's three columns, or the server's SQLSTATE.
fn seen(reply: Reply) -> Result<(Option<String>, String, i32), String> {
    let rows = reply
        .expect("a connection")
        .map_err(|error| error.server().expect("a server error").code.clone())?;
    let row = &rows[1][0];
    Ok((row.get(0), row.get(1), row.get(2)))
}

/// Twenty transactions queued at once on one connection leave in batches. Even ones set
/// `request.probe` and run as `anon`; odd ones set another name and run as
/// `authenticated`, and must not see an even one's probe; one divides by zero; one has a
/// statement the connection has not prepared, which cannot follow the others in their
/// batch. Each gets its own answer.
#[tokio::test]
async fn batched_transactions_keep_their_own_settings_roles_and_errors() {
    with_warm_batches(PROBE, "anon", |batches| async move {
        let unprepared = format!("{PROBE} -- not prepared yet");
        let mut answers = Vec::new();
        for i in 0..20 {
            let even = i % 2 == 0;
            let job = transaction(
                if even {
                    "request.probe"
                } else {
                    "request.other"
                },
                &format!("probe {i}"),
                if even { "anon" } else { "authenticated" },
                if i == 7 { "0" } else { "1" },
                if i == 13 { &unprepared } else { PROBE },
            );
            answers.push(queue(&batches, Access::ReadOnly, job));
        }
        for (i, answer) in answers.into_iter().enumerate() {
            let seen = seen(answer.await.unwrap());
            if i == 7 {
                assert_eq!(seen, Err("22012".to_owned()), "transaction {i}");
            } else if i % 2 == 0 {
                assert_eq!(
                    seen,
                    Ok((Some(format!("probe {i}")), "anon".into(), 10)),
                    "transaction {i}"
                );
            } else {
                let (probe, role, ten) = seen.unwrap();
                assert!(
                    probe.as_deref().unwrap_or("").is_empty(),
                    "{i} saw {probe:?}"
                );
                assert_eq!(
                    (role.as_str(), ten),
                    ("authenticated", 10),
                    "transaction {i}"
                );
            }
        }
        let (sent, transactions) = batches.sent();
        assert_eq!(transactions, 21);
        // One connection, so at most MAX_BATCH reads a batch; the unprepared statement
        // starts a batch of its own and ends one.
        assert_eq!(MAX_BATCH, 8);
        assert!((4..=8).contains(&sent), "{sent} batches");
    })
    .await;
}

/// A batch whose connection the server ends mid-way: the transaction before the end keeps
/// its answer; the one that ended it and those after it get the connection's failure (a
/// client's 503 PGRST001); the next ones get a new connection.
#[tokio::test]
async fn a_connection_lost_under_a_batch_fails_that_transaction_and_the_ones_after_it() {
    // Ends its own backend when `$1` is 0.
    const MAY_END: &str = "SELECT current_setting('request.probe', true), current_user::text, \
        CASE WHEN $1::int = 0 THEN pg_terminate_backend(pg_backend_pid())::int ELSE 10 END";
    with_warm_batches(MAY_END, "postgres", |batches| async move {
        let mut answers = Vec::new();
        for i in 0..4 {
            let divisor = if i == 1 { "0" } else { "1" };
            let job = transaction("request.probe", "x", "postgres", divisor, MAY_END);
            answers.push(queue(&batches, Access::ReadOnly, job));
        }
        let mut outcomes = Vec::new();
        for answer in answers {
            outcomes.push(answer.await.unwrap().expect("a connection"));
        }
        assert_eq!(batches.sent(), (2, 5), "the four in one batch");
        assert!(outcomes[0].is_ok());
        for (i, outcome) in outcomes.iter().enumerate().skip(1) {
            let error = outcome.as_ref().expect_err("failed");
            assert!(error.server().is_none(), "{i}: {error}");
        }

        let after = batches
            .run(
                Access::ReadOnly,
                transaction("request.probe", "after", "postgres", "1", MAY_END),
            )
            .await;
        assert_eq!(
            seen(after),
            Ok((Some("after".into()), "postgres".into(), 10))
        );
    })
    .await;
}

/// The batched-writes table, and a write into it of the row `$1`, whose `note` is the
/// transaction's own probe setting; the three columns of [`PROBE`] come back. (The warm-up
/// writes row 1.)
const WRITES_TABLE: &str = "CREATE TABLE public.batched_writes (id int PRIMARY KEY, note text)";
const WRITE: &str = "INSERT INTO public.batched_writes (id, note) \
    VALUES ($1::int, current_setting('request.probe', true)) \
    RETURNING note, current_user::text, 10";

/// The rows of `sql` (an id and a text), as the admin sees them.
async fn id_text_rows(app: &TestApp, sql: &str) -> Vec<(i32, String)> {
    app.admin()
        .await
        .query(sql, &[])
        .await
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect()
}

/// Twelve writes queued at once on one connection: each commits on its own, with its own
/// settings; the one that breaks the primary key fails alone, and the writes queued before
/// and after it (in its batch too) keep their rows. No batch holds more than
/// [`MAX_BATCH_WITH_WRITES`] of them, so one slow commit does not hold up many.
#[tokio::test]
async fn batched_writes_commit_each_on_their_own_and_fail_alone() {
    with_warm_batches_after(WRITES_TABLE, WRITE, "postgres", |batches, app| async move {
        let before = batches.sent();
        let mut answers = Vec::new();
        for i in 0..12 {
            // The sixth writes the fifth's id again.
            let id = if i == 5 {
                "104".into()
            } else {
                (100 + i).to_string()
            };
            let job = transaction(
                "request.probe",
                &format!("write {i}"),
                "postgres",
                &id,
                WRITE,
            );
            answers.push(queue(&batches, Access::ReadWrite, job));
        }
        for (i, answer) in answers.into_iter().enumerate() {
            let seen = seen(answer.await.unwrap());
            if i == 5 {
                assert_eq!(seen, Err("23505".to_owned()), "write {i}");
            } else {
                assert_eq!(
                    seen,
                    Ok((Some(format!("write {i}")), "postgres".into(), 10)),
                    "write {i}"
                );
            }
        }
        let (sent, transactions) = batches.sent();
        assert_eq!(transactions - before.1, 12);
        assert_eq!(MAX_BATCH_WITH_WRITES, 2);
        assert!(sent - before.0 >= 6, "{} batches", sent - before.0);

        let mut expected = vec![(1, "warm".to_owned())];
        expected.extend(
            (0..12)
                .filter(|&i| i != 5)
                .map(|i| (100 + i, format!("write {i}"))),
        );
        let rows = id_text_rows(
            &app,
            "SELECT id, note FROM public.batched_writes ORDER BY id",
        );
        assert_eq!(rows.await, expected);
    })
    .await;
}

/// A read queued right after a write leaves in the same batch and sees the write's row: the
/// write has committed before the read starts.
#[tokio::test]
async fn a_read_batched_after_a_write_sees_its_committed_row() {
    const COUNT: &str = "SELECT current_setting('request.probe', true), current_user::text, \
        10 * (SELECT count(*)::int FROM public.batched_writes WHERE id = $1::int)";
    with_warm_batches_after(
        WRITES_TABLE,
        WRITE,
        "postgres",
        |batches, _app| async move {
            let count = |id: &str| transaction("request.probe", "count", "postgres", id, COUNT);
            // Prepares the count on the connection, so it can follow the write in a batch.
            let none = batches.run(Access::ReadOnly, count("7")).await;
            assert_eq!(seen(none), Ok((Some("count".into()), "postgres".into(), 0)));

            let before = batches.sent();
            let written = transaction("request.probe", "written", "postgres", "7", WRITE);
            let write = queue(&batches, Access::ReadWrite, written);
            let read = queue(&batches, Access::ReadOnly, count("7"));
            assert_eq!(
                seen(write.await.unwrap()),
                Ok((Some("written".into()), "postgres".into(), 10))
            );
            assert_eq!(
                seen(read.await.unwrap()),
                Ok((Some("count".into()), "postgres".into(), 10))
            );
            let after = batches.sent();
            assert_eq!(
                (after.0 - before.0, after.1 - before.1),
                (1, 2),
                "one batch"
            );
        },
    )
    .await;
}

/// Through the gateway, with one connection per worker: a hundred concurrent reads of a
/// view of the request's own claims, as different users and as anon, each filtered on its
/// own `sub`, get exactly their own row; bad input in some gets its 400 meanwhile.
#[tokio::test]
async fn concurrent_reads_through_the_gateway_each_see_their_own_request() {
    let app = app_with_views(
        &[("DB_POOL_SIZE", "2")],
        "CREATE VIEW public.who_asks AS SELECT \
           current_setting('request.jwt.claims', true)::json->>'sub' AS sub, \
           current_user::text AS role, 1 AS n; \
         GRANT SELECT ON public.who_asks TO anon, authenticated;",
        "/who_asks",
    )
    .await;

    let mut requests = tokio::task::JoinSet::new();
    for i in 0..100 {
        let user = format!("00000000-0000-4000-8000-{i:012}");
        let (path, token) = match i % 4 {
            0 => ("/who_asks?select=sub,role&sub=is.null".to_owned(), None),
            3 => (
                format!("/who_asks?select=sub&n=eq.x{i}"),
                Some(app.user_token(&user)),
            ),
            _ => (
                format!("/who_asks?select=sub,role&sub=eq.{user}"),
                Some(app.user_token(&user)),
            ),
        };
        let mut request = app.rest(Method::GET, &path);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        requests.spawn(async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (i, user, status, response.json::<Value>().await.unwrap())
        });
    }
    while let Some(answer) = requests.join_next().await {
        let (i, user, status, body) = answer.unwrap();
        match i % 4 {
            0 => assert_eq!(
                (status, body),
                (200, json!([{"sub": null, "role": "anon"}]))
            ),
            3 => {
                assert_eq!((status, &body["code"]), (400, &json!("22P02")), "{body}");
                assert!(body["message"].as_str().unwrap().contains(&format!("x{i}")));
            }
            _ => assert_eq!(
                (status, body),
                (200, json!([{"sub": user, "role": "authenticated"}])),
                "request {i}"
            ),
        }
    }
}

/// Through the gateway, with one connection per worker: sixty concurrent inserts as
/// different users, into a table whose owner column defaults to the caller and whose policy
/// admits only the caller's own rows, so batched writes keep their own claims. Every tenth
/// repeats an id (409 23505) and every seventh claims another user's row (403 42501); each
/// fails alone and the others' rows are all there, each owned by its own caller.
#[tokio::test]
async fn concurrent_inserts_through_the_gateway_each_commit_as_their_own_user() {
    let app = app_with_views(
        &[("DB_POOL_SIZE", "2")],
        "CREATE TABLE public.owned_notes ( \
           id int PRIMARY KEY, \
           owner uuid NOT NULL DEFAULT (current_setting('request.jwt.claims', true)::json->>'sub')::uuid); \
         ALTER TABLE public.owned_notes ENABLE ROW LEVEL SECURITY; \
         CREATE POLICY own ON public.owned_notes FOR ALL TO authenticated \
           USING (owner = (current_setting('request.jwt.claims', true)::json->>'sub')::uuid) \
           WITH CHECK (owner = (current_setting('request.jwt.claims', true)::json->>'sub')::uuid); \
         GRANT SELECT, INSERT ON public.owned_notes TO authenticated; \
         INSERT INTO public.owned_notes VALUES (0, '00000000-0000-4000-8000-999999999999');",
        "/owned_notes",
    )
    .await;
    let user = |i: usize| format!("00000000-0000-4000-8000-{i:012}");

    let mut requests = tokio::task::JoinSet::new();
    for i in 1..=60 {
        let body = match (i % 10, i % 7) {
            (0, _) => json!({"id": 0}),
            (_, 0) => json!({"id": i, "owner": user(i + 1)}),
            _ => json!({"id": i}),
        };
        let request = app
            .rest(Method::POST, "/owned_notes")
            .bearer_auth(app.user_token(&user(i)))
            .json(&body);
        requests.spawn(async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (i, status, response.text().await.unwrap())
        });
    }
    let mut expected = Vec::new();
    while let Some(answer) = requests.join_next().await {
        let (i, status, body) = answer.unwrap();
        match (i % 10, i % 7) {
            (0, _) => assert_eq!(status, 409, "insert {i}: {body}"),
            (_, 0) => {
                assert_eq!(status, 403, "insert {i}: {body}");
                assert!(body.contains("42501"), "insert {i}: {body}");
            }
            _ => {
                assert_eq!(status, 201, "insert {i}: {body}");
                expected.push((i as i32, user(i)));
            }
        }
    }
    expected.sort();
    let rows = id_text_rows(
        &app,
        "SELECT id, owner::text FROM public.owned_notes WHERE id > 0 ORDER BY id",
    );
    assert_eq!(rows.await, expected);
}

/// Attack case "pool exhaustion", for reads: while every connection is busy with slow reads,
/// a read that no connection has taken within `DB_POOL_TIMEOUT` gets PostgREST's 504
/// PGRST003, as a request waiting for the pool does, before the slow reads end; the slow
/// reads that had a connection are answered.
#[tokio::test]
async fn a_read_queued_behind_busy_connections_gets_504_pgrst003_after_the_pool_wait() {
    use std::time::Instant;

    // One connection, so one runner, per HTTP worker.
    let app = app_with_views(
        &[("DB_POOL_SIZE", "2"), ("DB_POOL_TIMEOUT", "1")],
        "CREATE VIEW public.slow_read AS SELECT 'done'::text AS slept FROM pg_sleep(2.5); \
         CREATE VIEW public.fast_read AS SELECT 1 AS one; \
         GRANT SELECT ON public.slow_read, public.fast_read TO anon;",
        "/fast_read",
    )
    .await;

    let mut slow = tokio::task::JoinSet::new();
    for _ in 0..4 {
        let request = app.rest(Method::GET, "/slow_read");
        slow.spawn(async move {
            let status = request.send().await.unwrap().status().as_u16();
            (status, Instant::now())
        });
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut fast = tokio::task::JoinSet::new();
    for _ in 0..4 {
        let request = app.rest(Method::GET, "/fast_read");
        fast.spawn(async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (
                status,
                response.json::<Value>().await.unwrap(),
                Instant::now(),
            )
        });
    }
    let mut timed_out = Vec::new();
    while let Some(answer) = fast.join_next().await {
        let (status, body, at) = answer.unwrap();
        assert_eq!(
            (status, body),
            (
                504,
                json!({"code": "PGRST003", "details": null, "hint": null,
                       "message": "Timed out acquiring connection from connection pool."})
            )
        );
        timed_out.push(at);
    }
    let mut served = Vec::new();
    while let Some(answer) = slow.join_next().await {
        // A slow read that found its worker's connection busy waited in vain too.
        match answer.unwrap() {
            (200, at) => served.push(at),
            (504, at) => timed_out.push(at),
            (status, _) => panic!("slow read answered {status}"),
        }
    }
    let first_served = served.iter().min().expect("a slow read was served");
    assert!(
        timed_out.iter().all(|at| at < first_served),
        "the waits ended while the slow reads still held the connections"
    );
    // Every connection is free again.
    let response = app.rest(Method::GET, "/fast_read").send().await.unwrap();
    assert_eq!(response.status(), 200);
}
