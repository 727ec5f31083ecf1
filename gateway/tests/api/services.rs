//! Service placeholders and the dev inbox answer in their protocols' shapes.

use serde_json::{Value, json};

use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn unknown_functions_get_the_edge_runtime_404() {
    let app = spawn_app().await;
    let response = app
        .http
        .post(app.url("/functions/v1/generar-plan"))
        .json(&json!({"curso": "1° Básico"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    assert_eq!(response.headers()["sb-error-code"], "NOT_FOUND");
    assert!(!response.headers().contains_key("x-relay-error"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({"code": "NOT_FOUND", "message": "Requested function was not found"})
    );
}

#[tokio::test]
async fn unknown_auth_paths_get_gotrues_plain_404() {
    let app = spawn_app().await;
    let response = app
        .http
        .get(app.url("/auth/v1/no-such-endpoint"))
        .header("apikey", app.anon_key())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    assert_eq!(response.text().await.unwrap(), "404 page not found\n");
}

#[tokio::test]
async fn dev_inbox_lists_captured_mail() {
    let app = spawn_app().await;
    let response = app.get("/inbox").await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["cache-control"], "no-store");
    assert!(response.text().await.unwrap().contains("No hay mensajes"));

    app.admin()
        .await
        .execute(
            "INSERT INTO cielo.dev_mail (recipient, sender, subject, text_body)
             VALUES ('profe@colegio.cl', 'Cielo <no-reply@cielo.local>', 'Confirma tu <correo>', 'Enlace: http://x/verify')",
            &[],
        )
        .await
        .unwrap();

    let page = app.get("/inbox").await.text().await.unwrap();
    assert!(page.contains("Confirma tu &lt;correo&gt;"));
    let messages: Value = app
        .get("/inbox/api/messages?recipient=PROFE@colegio.cl")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(messages.as_array().unwrap().len(), 1);
    assert_eq!(messages[0]["subject"], "Confirma tu <correo>");
    let id = messages[0]["id"].as_i64().unwrap();
    let message: Value = app
        .get(&format!("/inbox/api/messages/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(message["text_body"], "Enlace: http://x/verify");
    let html = app.get(&format!("/inbox/messages/{id}")).await;
    assert_eq!(html.headers()["cache-control"], "no-store");
    assert!(
        html.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .starts_with("sandbox")
    );

    let cleared = app
        .http
        .delete(app.url("/inbox/api/messages"))
        .send()
        .await
        .unwrap();
    assert_eq!(cleared.status(), 204);
    let listed = app.get("/inbox/api/messages").await;
    assert_eq!(listed.headers()["cache-control"], "no-store");
    let messages: Value = listed.json().await.unwrap();
    assert_eq!(messages, json!([]));
}

#[tokio::test]
async fn dev_inbox_disappears_with_real_smtp() {
    let app = spawn_app_with(&[("SMTP_HOST", "smtp.example.cl")]).await;
    assert_eq!(app.get("/inbox/api/messages").await.status(), 404);
}
