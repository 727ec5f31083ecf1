//! Transactions sent several to a connection (`db::batches`): each transaction of a batch
//! keeps its own settings, role, errors and commit, and reaches the right request; writes
//! sent together are group-committed, and answered only once the batch's flush is done.

use std::rc::Rc;
use std::time::Duration;

use gateway::db::api_pool::worker_pool;
use gateway::db::batches::{
    Access, FLUSH, MAX_BATCH, MAX_BATCH_WITH_WRITES, OwnedQuery, Reply, TransactionBatches,
};
use gateway::db::wire::{self, Query};
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
    with_warm_batches_after("", true, statement, role, |batches, _| test(batches)).await;
}

/// [`with_warm_batches`], once `ddl` has run on the fresh database, with group commit as
/// `group_commit` says; `test` also gets the gateway (for its admin connection). The
/// database's connections start with `synchronous_commit` on (the test cluster's own
/// default is off, for speed), so that a transaction's commit shows how it was asked to
/// commit.
async fn with_warm_batches_after<F, Fut>(
    ddl: &str,
    group_commit: bool,
    statement: &'static str,
    role: &'static str,
    test: F,
) where
    F: FnOnce(Rc<TransactionBatches>, Rc<TestApp>) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let app = Rc::new(spawn_app().await);
    let admin = app.admin().await;
    admin.batch_execute(ddl).await.unwrap();
    admin
        .batch_execute(
            "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET synchronous_commit = on', \
               current_database()); END $$",
        )
        .await
        .unwrap();
    let config: tokio_postgres::Config = app.database_url.parse().unwrap();
    let pool = worker_pool(config, 1, Duration::from_secs(5)).unwrap();
    let batches = TransactionBatches::new(pool, 1, group_commit);
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

/// The probe's three columns (the last statement's), or the server's SQLSTATE.
fn seen(reply: Reply) -> Result<(Option<String>, String, i32), String> {
    let rows = reply
        .expect("a connection")
        .map_err(|error| error.server().expect("a server error").code.clone())?;
    let row = &rows.last().expect("the probe's rows")[0];
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

/// Twelve writes queued at once on one connection, with group commit off: each commits on
/// its own, with its own settings; the one that breaks the primary key fails alone, and the
/// writes queued before and after it (in its batch too) keep their rows. No batch holds
/// more than [`MAX_BATCH_WITH_WRITES`] of them, so one slow commit does not hold up many.
#[tokio::test]
async fn batched_writes_commit_each_on_their_own_and_fail_alone() {
    with_warm_batches_after(
        WRITES_TABLE,
        false,
        WRITE,
        "postgres",
        |batches, app| async move {
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
        },
    )
    .await;
}

/// A write into the batched-writes table of the row `$1`, whose `note` is how the
/// transaction commits (its `synchronous_commit`); the three columns of [`PROBE`] come back,
/// and the end of the WAL once the row is written.
const WRITE_COMMIT: &str = "INSERT INTO public.batched_writes (id, note) \
    VALUES ($1::int, current_setting('synchronous_commit')) \
    RETURNING current_setting('request.probe', true), current_user::text, 10, \
      pg_current_wal_insert_lsn()::text";

/// A write of the row `id` by `statement`, as `postgres`, its probe `write {id}`.
fn write_row(statement: &str, id: i32) -> Vec<OwnedQuery> {
    let probe = format!("write {id}");
    transaction(
        "request.probe",
        &probe,
        "postgres",
        &id.to_string(),
        statement,
    )
}

/// Twelve writes queued at once on one connection, with group commit on: they leave in two
/// batches (eight, then four), and every write in them commits without waiting for its own
/// WAL flush, the batch's flush doing that for all of them before any is answered (when
/// they are answered, the WAL is flushed past each); the one that breaks the primary key
/// fails alone. A write sent alone commits as the session says.
#[tokio::test]
async fn writes_sent_together_commit_early_and_fail_alone() {
    with_warm_batches_after(
        WRITES_TABLE,
        true,
        WRITE_COMMIT,
        "postgres",
        |batches, app| async move {
            let write = |id| write_row(WRITE_COMMIT, id);
            let before = batches.sent();
            let mut answers = Vec::new();
            for i in 0..12 {
                // The sixth writes the fifth's id again.
                let id = if i == 5 { 104 } else { 100 + i };
                answers.push((id, queue(&batches, Access::ReadWrite, write(id))));
            }
            let mut written = Vec::new();
            for (i, (id, answer)) in answers.into_iter().enumerate() {
                let reply = answer.await.unwrap();
                if let Ok(Ok(rows)) = &reply {
                    written.push(rows.last().unwrap()[0].get::<String>(3));
                }
                let seen = seen(reply);
                if i == 5 {
                    assert_eq!(seen, Err("23505".to_owned()), "write {i}");
                } else {
                    assert_eq!(
                        seen,
                        Ok((Some(format!("write {id}")), "postgres".into(), 10)),
                        "write {i}"
                    );
                }
            }
            let flushed = "SELECT bool_and(pg_current_wal_flush_lsn() >= lsn::pg_lsn)::text, \
                 count(*)::int FROM unnest($1::text[]) lsn";
            let row = app
                .admin()
                .await
                .query_one(flushed, &[&written])
                .await
                .unwrap();
            let (all_flushed, count): (String, i32) = (row.get(0), row.get(1));
            assert_eq!((all_flushed.as_str(), count), ("true", 11));
            let after = batches.sent();
            assert_eq!((after.0 - before.0, after.1 - before.1), (2, 12));

            let alone = batches.run(Access::ReadWrite, write(300)).await;
            assert_eq!(
                seen(alone),
                Ok((Some("write 300".into()), "postgres".into(), 10))
            );

            let mut expected: Vec<(i32, String)> = (0..12)
                .filter(|&i| i != 5)
                .map(|i| (100 + i, "off".to_owned()))
                .collect();
            expected.push((300, "on".to_owned()));
            let rows = id_text_rows(
                &app,
                "SELECT id, note FROM public.batched_writes WHERE id >= 100 ORDER BY id",
            );
            assert_eq!(rows.await, expected);
        },
    )
    .await;
}

/// With group commit off, writes sent together each wait for their own flush.
#[tokio::test]
async fn without_group_commit_writes_sent_together_commit_as_the_session_says() {
    with_warm_batches_after(
        WRITES_TABLE,
        false,
        WRITE_COMMIT,
        "postgres",
        |batches, app| async move {
            let before = batches.sent();
            let answers: Vec<_> = (100..104)
                .map(|id| queue(&batches, Access::ReadWrite, write_row(WRITE_COMMIT, id)))
                .collect();
            for answer in answers {
                assert!(seen(answer.await.unwrap()).is_ok());
            }
            let after = batches.sent();
            assert_eq!((after.0 - before.0, after.1 - before.1), (2, 4));
            let rows = id_text_rows(
                &app,
                "SELECT id, note FROM public.batched_writes WHERE id >= 100 ORDER BY id",
            );
            let expected: Vec<_> = (100..104).map(|id| (id, "on".to_owned())).collect();
            assert_eq!(rows.await, expected);
        },
    )
    .await;
}

/// A group-committed batch whose connection the server ends before its flush: the writes
/// that committed early are not known to be durable, so none is answered as a success
/// (each gets the connection's failure, a client's 503 PGRST001), and the next write gets
/// a new connection.
#[tokio::test]
async fn a_grouped_batch_whose_flush_fails_answers_no_write_as_committed() {
    // Ends its own backend when `$1` is negative.
    const WRITE_MAY_END: &str = "INSERT INTO public.batched_writes (id, note) \
        VALUES ($1::int, current_setting('request.probe', true)) \
        RETURNING note, current_user::text, \
        CASE WHEN $1::int < 0 THEN pg_terminate_backend(pg_backend_pid())::int ELSE 10 END";
    with_warm_batches_after(
        WRITES_TABLE,
        true,
        WRITE_MAY_END,
        "postgres",
        |batches, _app| async move {
            let write = |id| write_row(WRITE_MAY_END, id);
            let before = batches.sent();
            let answers: Vec<_> = [200, 201, -1]
                .into_iter()
                .map(|id| queue(&batches, Access::ReadWrite, write(id)))
                .collect();
            for (i, answer) in answers.into_iter().enumerate() {
                let outcome = answer.await.unwrap().expect("a connection");
                let error = outcome.expect_err("not answered as committed");
                assert!(error.server().is_none(), "{i}: {error}");
            }
            let after = batches.sent();
            assert_eq!(
                (after.0 - before.0, after.1 - before.1),
                (1, 3),
                "one batch"
            );

            let next = batches.run(Access::ReadWrite, write(202)).await;
            assert_eq!(
                seen(next),
                Ok((Some("write 202".into()), "postgres".into(), 10))
            );
        },
    )
    .await;
}

/// The flush a grouped batch ends with is pinned: when a connection's statement cache fills
/// and starts over (closing every statement it prepared in passing), the flush stays
/// prepared, so it can still follow any transaction in a batch.
#[tokio::test]
async fn the_flush_outlives_the_statement_cache_starting_over() {
    let app = spawn_app().await;
    let config: tokio_postgres::Config = app.database_url.parse().unwrap();
    let mut connection = wire::Connection::connect(&config, &[]).await.unwrap();
    connection
        .pipeline(&[Query::new(FLUSH, &[])])
        .await
        .unwrap();
    assert!(connection.pin(FLUSH));
    connection
        .pipeline(&[Query::new("SELECT 0 AS first", &[])])
        .await
        .unwrap();
    // More distinct statements than the cache keeps (1 000).
    for n in 1..=1_000 {
        let sql = format!("SELECT {n} AS n");
        connection.pipeline(&[Query::new(&sql, &[])]).await.unwrap();
    }
    assert!(
        !connection.is_prepared("SELECT 0 AS first"),
        "the cache started over"
    );
    assert!(connection.is_pinned(FLUSH));
    let outcomes = connection
        .pipelines(&[
            vec![Query::new("SELECT 1000 AS n", &[])],
            vec![Query::new(FLUSH, &[])],
        ])
        .await;
    assert_eq!(outcomes.len(), 2);
    for outcome in outcomes {
        assert_eq!(outcome.unwrap().len(), 1);
    }
}

/// A read queued right after a write leaves in the same batch and sees the write's row: the
/// write has committed before the read starts.
#[tokio::test]
async fn a_read_batched_after_a_write_sees_its_committed_row() {
    const COUNT: &str = "SELECT current_setting('request.probe', true), current_user::text, \
        10 * (SELECT count(*)::int FROM public.batched_writes WHERE id = $1::int)";
    with_warm_batches_after(
        WRITES_TABLE,
        true,
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

/// A database where the gateway's flush cannot run (here `authenticator` may not set its
/// sequence): group commit turns itself off, so that writes sent together, each waiting for
/// its own flush, are all answered 201 and kept, rather than failed for want of a flush.
#[tokio::test]
async fn where_the_flush_cannot_run_writes_sent_together_still_commit() {
    let app = app_with_views(
        &[("DB_POOL_SIZE", "2")],
        "REVOKE UPDATE ON SEQUENCE cielo.group_commit_flush FROM authenticator; \
         CREATE TABLE public.unflushed (id int PRIMARY KEY); \
         GRANT SELECT, INSERT ON public.unflushed TO anon;",
        "/unflushed",
    )
    .await;
    let mut requests = tokio::task::JoinSet::new();
    for id in 0..40 {
        let request = app
            .rest(Method::POST, "/unflushed")
            .json(&json!({ "id": id }));
        requests.spawn(async move { request.send().await.unwrap().status().as_u16() });
    }
    while let Some(status) = requests.join_next().await {
        assert_eq!(status.unwrap(), 201);
    }
    let count = app
        .admin()
        .await
        .query_one("SELECT count(*)::int FROM public.unflushed", &[])
        .await
        .unwrap();
    assert_eq!(count.get::<_, i32>(0), 40);
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
