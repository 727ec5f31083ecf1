//! rest/v1 writes and calls on the wire: headers and bodies supabase-js does not expose.
//! (The behaviour itself is covered by the supabase-js conformance suite.)

use reqwest::Method;
use serde_json::{Value, json};

use gateway::db::wire::Query;

use crate::helpers::{TestApp, spawn_fixture_app_with};

#[tokio::test]
async fn location_percent_encodes_the_new_rows_key() {
    let app = spawn_fixture_app_with(&[]).await;
    app.admin()
        .await
        .batch_execute("CREATE TABLE fixture.labels (code text PRIMARY KEY, n int)")
        .await
        .unwrap();
    app.send_until(|| app.rest(Method::GET, "/labels"), |status| status == 200)
        .await;
    let response = app
        .rest(Method::POST, "/labels")
        .header("Prefer", "return=headers-only")
        .json(&json!({"code": "1° Básico & Co", "n": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    assert_eq!(
        response.headers()["location"],
        "/labels?code=eq.1%C2%B0%20B%C3%A1sico%20%26%20Co"
    );
    assert!(!response.headers().contains_key("content-type"));
}

#[tokio::test]
async fn void_calls_answer_204_with_only_content_range() {
    let app = spawn_fixture_app_with(&[]).await;
    let response = app
        .rest(Method::POST, "/rpc/rename_school")
        .bearer_auth(app.service_role_key())
        .json(&json!({"school": 1, "new_name": "Liceo"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    assert_eq!(response.headers()["content-range"], "0-0/*");
    assert!(!response.headers().contains_key("content-type"));
    assert_eq!(response.text().await.unwrap(), "");
}

#[tokio::test]
async fn options_on_functions_lists_get_only_for_read_only_ones() {
    let app = spawn_fixture_app_with(&[]).await;
    for (function, allow) in [
        ("add_grades", "OPTIONS,GET,HEAD,POST"),
        ("rename_school", "OPTIONS,POST"),
    ] {
        let response = app
            .rest(Method::OPTIONS, &format!("/rpc/{function}"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{function}");
        assert_eq!(response.headers()["allow"], allow, "{function}");
    }
}

#[tokio::test]
async fn body_limit_is_exact_and_answered_in_postgrest_shape() {
    let app = spawn_fixture_app_with(&[("REST_MAX_BODY_SIZE", "64")]).await;
    let fits = r#"{"id": 90, "name": "abcdefghijklmnopqrstuvwxyz0123456789abcdef"}"#;
    assert_eq!(fits.len(), 64);
    let response = app
        .rest(Method::POST, "/students")
        .header("Content-Type", "application/json")
        .body(fits)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let too_big = fits.replacen("abcd", "abcde", 1);
    let response = app
        .rest(Method::POST, "/students")
        .header("Content-Type", "application/json")
        .body(too_big)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], "PGRST413");
    assert_eq!(
        body["details"],
        "The request body exceeds the limit of 64 bytes"
    );
}

#[tokio::test]
async fn deferred_constraints_fail_the_request_at_commit() {
    let app = spawn_fixture_app_with(&[]).await;
    let book = |body: Value| {
        app.rest(Method::POST, "/room_bookings")
            .header("Prefer", "return=representation")
            .json(&body)
            .send()
    };
    let response = book(json!({"room": "C3", "slot": 2})).await.unwrap();
    assert_eq!(response.status(), 201);
    // The statement itself succeeds; the unique key is checked when the transaction
    // commits, and that failure is the answer.
    let response = book(json!({"room": "C3", "slot": 2})).await.unwrap();
    assert_eq!(response.status(), 409);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], "23505");
    let kept = app
        .admin()
        .await
        .query(
            "SELECT count(*) FROM fixture.room_bookings WHERE room = 'C3'",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(
        kept[0].get::<_, i64>(0),
        1,
        "the second booking was not kept"
    );
}

#[tokio::test]
async fn deferred_constraints_still_fail_a_rolled_back_request() {
    let app = spawn_fixture_app_with(&[("PGRST_DB_TX_END", "rollback")]).await;
    let response = app
        .rest(Method::POST, "/room_bookings")
        .json(&json!([{"room": "A1", "slot": 1}, {"room": "A1", "slot": 1}]))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 409);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], "23505");
    let response = app
        .rest(Method::POST, "/room_bookings")
        .header("Prefer", "return=representation")
        .json(&json!({"room": "B2", "slot": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let kept = app
        .admin()
        .await
        .query("SELECT count(*) FROM fixture.room_bookings", &[])
        .await
        .unwrap();
    assert_eq!(
        kept[0].get::<_, i64>(0),
        0,
        "db-tx-end=rollback keeps nothing"
    );
}

#[tokio::test]
async fn a_connection_dropped_mid_transaction_is_rolled_back_before_reuse() {
    let app = spawn_fixture_app_with(&[]).await;
    let pool = one_connection_api_pool(&app);
    {
        // A request cancelled after BEGIN and a write, before COMMIT.
        let mut connection = pool.get().await.unwrap();
        connection
            .pipeline(&[
                Query::new("BEGIN", &[]),
                Query::new(
                    "UPDATE fixture.schools SET name = 'Nunca' WHERE id = 1",
                    &[],
                ),
                Query::new("SELECT set_config('response.status', '418', true)", &[]),
            ])
            .await
            .unwrap();
        assert!(connection.in_transaction());
    }
    let mut connection = pool.get().await.unwrap();
    let rows = connection
        .pipeline(&[Query::new(
            "SELECT coalesce(current_setting('response.status', true), ''),
                    (SELECT name FROM fixture.schools WHERE id = 1)",
            &[],
        )])
        .await
        .unwrap();
    assert_eq!(
        rows[0][0].get::<String>(0),
        "",
        "settings of the dropped request are gone"
    );
    assert_eq!(
        rows[0][0].get::<String>(1),
        "Liceo Bicentenario",
        "its write was rolled back"
    );
}

#[tokio::test]
async fn a_pipeline_cancelled_before_its_answers_never_feeds_them_to_the_next_request() {
    let app = spawn_fixture_app_with(&[]).await;
    let pool = one_connection_api_pool(&app);
    {
        let mut connection = pool.get().await.unwrap();
        let slow_query = [Query::new("SELECT 'stale', pg_sleep(0.5)", &[])];
        let slow = connection.pipeline(&slow_query);
        let cancelled = tokio::time::timeout(std::time::Duration::from_millis(50), slow).await;
        assert!(cancelled.is_err(), "the pipeline was cut short");
        let reused = connection
            .pipeline(&[Query::new("SELECT 'next'", &[])])
            .await;
        assert!(reused.is_err(), "an out-of-step connection refuses work");
    }
    let mut connection = pool.get().await.unwrap();
    let rows = connection
        .pipeline(&[Query::new("SELECT $1::text", &["fresh"])])
        .await
        .unwrap();
    assert_eq!(rows[0][0].get::<String>(0), "fresh");
}

#[tokio::test]
async fn a_connection_the_server_ended_is_replaced_without_an_error() {
    let app = spawn_fixture_app_with(&[]).await;
    let pool = one_connection_api_pool(&app);
    let pid = {
        let mut connection = pool.get().await.unwrap();
        let rows = connection
            .pipeline(&[Query::new("SELECT pg_backend_pid()", &[])])
            .await
            .unwrap();
        rows[0][0].get::<i32>(0)
    };
    app.admin()
        .await
        .execute("SELECT pg_terminate_backend($1)", &[&pid])
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let mut connection = pool.get().await.unwrap();
    let rows = connection
        .pipeline(&[Query::new("SELECT pg_backend_pid()", &[])])
        .await
        .expect("a fresh connection");
    assert_ne!(rows[0][0].get::<i32>(0), pid);
}

#[tokio::test]
async fn a_failed_pipeline_leaves_nothing_prepared_or_written() {
    let app = spawn_fixture_app_with(&[]).await;
    let pool = one_connection_api_pool(&app);
    let mut connection = pool.get().await.unwrap();
    let bad_sql = "SELECT no_such_column FROM fixture.schools";
    let error = connection
        .pipeline(&[
            Query::new(
                "UPDATE fixture.schools SET name = 'Nunca' WHERE id = 1",
                &[],
            ),
            Query::new(bad_sql, &[]),
        ])
        .await
        .unwrap_err();
    let server = error.server().expect("the server's error");
    assert_eq!(server.code, "42703");
    assert!(!connection.is_prepared(bad_sql));
    assert!(
        !connection.in_transaction(),
        "the implicit transaction ended"
    );
    let rows = connection
        .pipeline(&[Query::new(
            "SELECT name FROM fixture.schools WHERE id = $1",
            &["1"],
        )])
        .await
        .unwrap();
    assert_eq!(
        rows[0][0].get::<String>(0),
        "Liceo Bicentenario",
        "the update before the failure was rolled back with it"
    );
}

fn one_connection_api_pool(app: &TestApp) -> gateway::db::api_pool::ApiPool {
    let config: tokio_postgres::Config = app.database_url.parse().unwrap();
    gateway::db::api_pool::worker_pool(config, 1, std::time::Duration::from_secs(5)).unwrap()
}

/// Attack case "pool exhaustion": while every pooled connection is busy, further requests
/// wait at most `DB_POOL_TIMEOUT` and get PostgREST's 504 PGRST003; requests refused before
/// the database (a bad token, a parse error) are answered meanwhile; the pool recovers.
#[tokio::test]
async fn an_exhausted_pool_answers_504_pgrst003_meanwhile_and_recovers() {
    use std::time::{Duration, Instant};

    // One connection per HTTP worker.
    let app = spawn_fixture_app_with(&[("DB_POOL_SIZE", "2"), ("DB_POOL_TIMEOUT", "1")]).await;
    // `fixture.nap(seconds)` sleeps and returns void: 204.
    let mut naps = tokio::task::JoinSet::new();
    for _ in 0..6 {
        let request = app
            .rest(Method::POST, "/rpc/nap")
            .json(&json!({"seconds": 2.5}));
        naps.spawn(async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            let body = response.text().await.unwrap();
            (status, body, Instant::now())
        });
    }
    // Meanwhile, requests that need no connection.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let bad_token = app
        .rest(Method::GET, "/schools")
        .bearer_auth("not.a.jwt")
        .send()
        .await
        .unwrap();
    assert_eq!(bad_token.status(), 401);
    let bad_query = app
        .rest(Method::GET, "/schools?select=id,(")
        .send()
        .await
        .unwrap();
    assert_eq!(bad_query.status(), 400);
    let refused_at = Instant::now();

    let (mut served, mut timed_out) = (Vec::new(), Vec::new());
    while let Some(nap) = naps.join_next().await {
        let (status, body, at) = nap.unwrap();
        match status {
            204 => served.push(at),
            504 => {
                assert_eq!(
                    serde_json::from_str::<Value>(&body).unwrap(),
                    json!({"code": "PGRST003", "details": null, "hint": null,
                           "message": "Timed out acquiring connection from connection pool."})
                );
                timed_out.push(at);
            }
            other => panic!("unexpected {other}: {body}"),
        }
    }
    assert!(
        !served.is_empty() && !timed_out.is_empty(),
        "{served:?} {timed_out:?}"
    );
    let first_served = served.iter().min().unwrap();
    assert!(
        timed_out.iter().all(|at| at < first_served) && refused_at < *first_served,
        "the waits and the refusals ended while the naps still held the connections"
    );
    // Recovered: every connection is free again.
    for _ in 0..4 {
        let response = app
            .rest(Method::GET, "/schools?select=id&id=eq.1")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }
}
