//! Requests as auth-js sends them, and the dev inbox, for the auth/v1 API tests.

use reqwest::{Method, Response};
use serde_json::{Value, json};

use crate::helpers::TestApp;

pub const PASSWORD: &str = "clave-segura-123";

/// An auth/v1 request with the anon key and auth-js's API version header.
pub fn auth(app: &TestApp, method: Method, path: &str) -> reqwest::RequestBuilder {
    app.http
        .request(method, app.url(&format!("/auth/v1{path}")))
        .header("apikey", app.anon_key())
        .header("x-supabase-api-version", "2024-01-01")
}

pub async fn post(app: &TestApp, path: &str, body: Value) -> Response {
    auth(app, Method::POST, path)
        .json(&body)
        .send()
        .await
        .expect("request")
}

/// Status and JSON body.
pub async fn json_of(response: Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, body)
}

pub async fn call(
    app: &TestApp,
    method: Method,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = auth(app, method, path);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    json_of(request.send().await.expect("request")).await
}

/// An admin request with the service_role key.
pub async fn admin(app: &TestApp, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let key = app.service_role_key();
    let mut request = app
        .http
        .request(method, app.url(&format!("/auth/v1{path}")))
        .header("apikey", &key)
        .bearer_auth(&key)
        .header("x-supabase-api-version", "2024-01-01");
    if let Some(body) = body {
        request = request.json(&body);
    }
    json_of(request.send().await.expect("request")).await
}

pub async fn password_grant(app: &TestApp, email: &str, password: &str) -> (u16, Value) {
    json_of(
        post(
            app,
            "/token?grant_type=password",
            json!({"email": email, "password": password}),
        )
        .await,
    )
    .await
}

pub async fn refresh(app: &TestApp, refresh_token: &str) -> (u16, Value) {
    json_of(
        post(
            app,
            "/token?grant_type=refresh_token",
            json!({"refresh_token": refresh_token}),
        )
        .await,
    )
    .await
}

/// Mail of the dev inbox for `recipient`, newest first.
pub async fn inbox(app: &TestApp, recipient: &str) -> Vec<Value> {
    let response = app
        .http
        .get(app.url("/inbox/api/messages"))
        .query(&[("recipient", recipient)])
        .send()
        .await
        .expect("inbox");
    assert_eq!(response.status(), 200);
    response.json::<Vec<Value>>().await.expect("inbox json")
}

/// The first link of the newest mail to `recipient`.
pub async fn latest_link(app: &TestApp, recipient: &str) -> String {
    let messages = inbox(app, recipient).await;
    let message = messages
        .first()
        .unwrap_or_else(|| panic!("no mail for {recipient}"));
    message["links"][0]
        .as_str()
        .unwrap_or_else(|| panic!("no link in {message}"))
        .to_owned()
}

/// The 6-digit code of the newest mail to `recipient`.
pub async fn latest_code(app: &TestApp, recipient: &str) -> String {
    let messages = inbox(app, recipient).await;
    let html = messages[0]["html_body"].as_str().expect("html");
    let start = html.find("<strong>").expect("code") + "<strong>".len();
    html[start..start + 6].to_owned()
}

/// Follows a mail link without following the redirect; returns the Location.
pub async fn open_link(app: &TestApp, link: &str) -> String {
    // Links point at API_EXTERNAL_URL; the test app listens elsewhere.
    let path = link
        .split_once("/auth/v1/")
        .map(|(_, rest)| rest)
        .expect("auth link");
    let response = app
        .http
        .get(app.url(&format!("/auth/v1/{path}")))
        .send()
        .await
        .expect("open link");
    assert_eq!(response.status(), 303, "verify answers 303");
    response.headers()["location"]
        .to_str()
        .expect("location")
        .to_owned()
}

/// The key-value pairs of a URL fragment.
pub fn fragment(location: &str) -> std::collections::HashMap<String, String> {
    let fragment = location.split_once('#').map(|(_, f)| f).unwrap_or_default();
    url::form_urlencoded::parse(fragment.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// Decodes a JWT's header and payload (no verification).
pub fn decode(token: &str) -> (Value, Value) {
    use base64::Engine;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut parts = token.split('.');
    let header = engine.decode(parts.next().unwrap()).unwrap();
    let payload = engine.decode(parts.next().unwrap()).unwrap();
    (
        serde_json::from_slice(&header).unwrap(),
        serde_json::from_slice(&payload).unwrap(),
    )
}

/// Signs up and confirms through the mailed link; returns the session from the link.
pub async fn confirmed_user(app: &TestApp, email: &str) -> Value {
    let (status, body) = json_of(
        post(
            app,
            "/signup",
            json!({"email": email, "password": PASSWORD}),
        )
        .await,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let location = open_link(app, &latest_link(app, email).await).await;
    let tokens = fragment(&location);
    assert!(tokens.contains_key("access_token"), "{location}");
    let (status, session) = password_grant(app, email, PASSWORD).await;
    assert_eq!(status, 200, "{session}");
    session
}

/// How [`changed_meanwhile`] knows the request has reached the held lock.
pub enum Wait {
    /// Until PostgreSQL shows a lock wait (the request must wait for the lock).
    ForTheLock,
    /// This long (the request may retry instead of waiting, as `NOWAIT` does).
    For(std::time::Duration),
}

/// Sends `request` while an admin transaction holds a lock (`lock_sql`) the request will
/// meet; once it has (`wait`), runs `change_sql` (statements) in that transaction and
/// commits: the request goes on after the change, as when another request deletes what
/// this one has already read.
pub async fn changed_meanwhile<T>(
    app: &TestApp,
    wait: Wait,
    lock_sql: &str,
    change_sql: &str,
    request: impl std::future::Future<Output = T>,
) -> T {
    let mut admin = app.admin().await;
    let tx = admin.transaction().await.unwrap();
    tx.execute(lock_sql, &[]).await.unwrap();
    let change = async {
        match wait {
            Wait::For(pause) => tokio::time::sleep(pause).await,
            Wait::ForTheLock => {
                for attempt in 0.. {
                    let waiting: i64 = tx
                        .query_one(
                            "SELECT count(*) FROM pg_catalog.pg_locks WHERE NOT granted",
                            &[],
                        )
                        .await
                        .unwrap()
                        .get(0);
                    if waiting > 0 {
                        break;
                    }
                    assert!(attempt < 400, "the request never waited for {lock_sql}");
                    tokio::time::sleep(std::time::Duration::from_millis(25)).await;
                }
            }
        }
        tx.batch_execute(change_sql)
            .await
            .unwrap_or_else(|error| panic!("{change_sql}: {error}"));
        tx.commit().await.unwrap();
    };
    futures_util::future::join(request, change).await.0
}

/// [`changed_meanwhile`] holding the row `id` of `table`, then deleting it as a deletion
/// and its cascade do: first the rows of each `(table, column)` in `belonging` that point
/// at it, then the row.
pub async fn deleted_meanwhile<T>(
    app: &TestApp,
    wait: Wait,
    table: &str,
    id: &str,
    belonging: &[(&str, &str)],
    request: impl std::future::Future<Output = T>,
) -> T {
    let mut deletes: Vec<String> = belonging
        .iter()
        .map(|(child, column)| format!("DELETE FROM {child} WHERE {column} = '{id}';"))
        .collect();
    deletes.push(format!("DELETE FROM {table} WHERE id = '{id}'"));
    changed_meanwhile(
        app,
        wait,
        &format!("SELECT 1 FROM {table} WHERE id = '{id}' FOR UPDATE"),
        &deletes.join("\n"),
        request,
    )
    .await
}
