use serde_json::Value;

use crate::helpers::spawn_app;

#[tokio::test]
async fn gateway_health_reports_the_database() {
    let app = spawn_app().await;
    let response = app.get("/health").await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let first_id = request_id(&response);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "ok");
    assert_eq!(body["database"], "ok");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(body["realtime_change_capture"]["state"], "capturing");
    assert_ne!(request_id(&app.get("/health").await), first_id);
}

/// The response's `x-request-id`, checked to be a hyphenated lowercase UUID.
fn request_id(response: &reqwest::Response) -> String {
    let id = response.headers()["x-request-id"].to_str().unwrap();
    let parsed = uuid::Uuid::parse_str(id).unwrap();
    assert_eq!(parsed.hyphenated().to_string(), id);
    id.to_owned()
}

#[tokio::test]
async fn gateway_health_is_503_when_the_database_is_gone() {
    let app = spawn_app().await;
    // Take this test's database away from under the running gateway.
    let admin =
        crate::helpers::admin_client(&app.database_url.replace(&app.database_name, "postgres"))
            .await;
    // FORCE does not end a session holding a replication slot: realtime's change capture
    // is ended first (it comes back after a second, so this is retried).
    let mut dropped = Ok(());
    for _ in 0..20 {
        admin
            .execute(
                "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots \
                 WHERE database = $1 AND active_pid IS NOT NULL",
                &[&app.database_name],
            )
            .await
            .unwrap();
        dropped = admin
            .batch_execute(&format!("DROP DATABASE {} WITH (FORCE)", app.database_name))
            .await;
        if dropped.is_ok() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    dropped.unwrap();

    let response = app.get("/health").await;
    assert_eq!(response.status(), 503);
    assert_eq!(response.headers()["retry-after"], "1");
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "error");
    assert_eq!(body["database"], "unavailable");

    let response = app
        .http
        .get(app.url("/rest/v1/"))
        .header("apikey", app.anon_key())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 503);
    assert_eq!(response.headers()["retry-after"], "0");
    let body: Value = response.json().await.unwrap();
    // No connection can be opened (rather than one lost mid-request): PostgREST's PGRST000.
    assert_eq!(body["code"], "PGRST000");
    assert_eq!(body["message"], "Database connection error.");
    assert!(
        body["details"].as_str().unwrap().contains("does not exist"),
        "{body}"
    );
}

#[tokio::test]
async fn auth_health_answers_like_gotrue_without_a_key() {
    let app = spawn_app().await;
    let response = app.get("/auth/v1/health").await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["name"], "GoTrue");
    assert_eq!(
        body["description"],
        "GoTrue is a user registration and authentication API"
    );
    assert!(body["version"].as_str().unwrap().starts_with("cielo-"));
}

#[tokio::test]
async fn rest_root_serves_an_openapi_document() {
    let app = spawn_app().await;
    let response = app
        .http
        .get(app.url("/rest/v1/"))
        .header("apikey", app.anon_key())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "application/openapi+json; charset=utf-8"
    );
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["swagger"], "2.0");
    assert_eq!(body["basePath"], "/rest/v1");
}
