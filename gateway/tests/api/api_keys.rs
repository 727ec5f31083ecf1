//! The API-key gate in front of rest/auth/realtime, with Supabase's gateway bodies.

use secrecy::ExposeSecret;
use serde_json::{Value, json};

use crate::helpers::spawn_app;

#[tokio::test]
async fn missing_key_is_refused_with_supabases_message() {
    let app = spawn_app().await;
    for path in [
        "/rest/v1/",
        "/rest/v1/todos",
        "/auth/v1/user",
        "/realtime/v1/websocket",
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status(), 401, "{path}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(
            body,
            json!({
                "message": "No API key found in request",
                "hint": "No `apikey` request header or url param was found."
            }),
            "{path}"
        );
    }
}

#[tokio::test]
async fn invalid_key_is_refused() {
    let app = spawn_app().await;
    let forged = gateway::identity::jwt::Hs256Key::new(&secrecy::SecretString::from(
        "not-the-project-secret-but-long-enough-0123".to_owned(),
    ))
    .sign(&json!({"role": "service_role"}))
    .unwrap();
    for key in ["nope", "sb_secret_guess", forged.as_str()] {
        let response = app
            .http
            .get(app.url("/rest/v1/"))
            .header("apikey", key)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401, "{key}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["message"], "Invalid API key");
    }
}

#[tokio::test]
async fn every_project_key_is_accepted_in_the_header_and_the_query() {
    let app = spawn_app().await;
    let keys = [
        app.anon_key(),
        app.service_role_key(),
        app.keys.publishable_key().to_owned(),
        app.keys.secret_key().expose_secret().to_owned(),
    ];
    for key in &keys {
        let response = app
            .http
            .get(app.url("/rest/v1/"))
            .header("apikey", key)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "header {key}");
        let response = app
            .http
            .get(app.url("/rest/v1/"))
            .query(&[("apikey", key)])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "query {key}");
    }
}

#[tokio::test]
async fn open_auth_endpoints_need_no_key() {
    let app = spawn_app().await;
    // Reached from e-mail links and browser redirects, which carry no headers.
    for path in ["/auth/v1/health", "/auth/v1/verify", "/auth/v1/callback"] {
        let response = app.get(path).await;
        assert_ne!(response.status(), 401, "{path}");
    }
}
