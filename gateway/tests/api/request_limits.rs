//! Oversized request heads: refused before any key, token or database work, in words a
//! client can show, as Supabase's edge refuses them.

use reqwest::Method;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::helpers::{spawn_app, spawn_app_with, spawn_fixture_app};

/// `/rest/v1/schools?select=id&id=in.(1,1,…)`, exactly `length` bytes long.
fn in_list_path(length: usize) -> String {
    let prefix = "/rest/v1/schools?select=id&id=in.(";
    let mut items = String::from("1");
    while prefix.len() + items.len() + ",1)".len() <= length {
        items.push_str(",1");
    }
    if prefix.len() + items.len() + 1 < length {
        items.insert(0, '0');
    }
    let path = format!("{prefix}{items})");
    assert_eq!(path.len(), length);
    path
}

#[tokio::test]
async fn a_long_in_list_gets_414_uri_too_long_in_plain_text() {
    let app = spawn_fixture_app().await;
    let allowed = in_list_path(16_384);
    let response = app
        .http
        .get(app.url(&allowed))
        .header("apikey", app.anon_key())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{} bytes", allowed.len());
    assert_eq!(response.text().await.unwrap(), r#"[{"id":1}]"#);

    let too_long = format!("{allowed}&order=id");
    let response = app
        .http
        .get(app.url(&too_long))
        .header("apikey", app.anon_key())
        .header("Origin", "http://localhost:5173")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 414);
    let headers = response.headers();
    assert_eq!(headers["content-type"], "text/plain; charset=utf-8");
    // Browsers can read it, so the app shows the message instead of a network error.
    assert_eq!(headers["access-control-allow-origin"], "*");
    assert!(headers.contains_key("x-request-id"));
    assert_eq!(response.text().await.unwrap(), "URI too long\n");
}

#[tokio::test]
async fn an_oversized_token_gets_431_before_the_key_is_checked() {
    let app = spawn_app().await;
    let token = format!("Bearer {}", "a".repeat(40 * 1024));
    for path in ["/rest/v1/anything", "/auth/v1/user", "/health"] {
        let response = app
            .http
            .get(app.url(path))
            .header("Authorization", &token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 431, "{path}");
        assert_eq!(
            response.text().await.unwrap(),
            "Request Header Fields Too Large\n"
        );
    }
    // Many small headers weigh the same in all.
    let mut request = app.rest(Method::GET, "/anything");
    for index in 0..80 {
        request = request.header(format!("x-padding-{index}"), "p".repeat(500));
    }
    assert_eq!(request.send().await.unwrap().status(), 431);
}

#[tokio::test]
async fn the_limits_follow_their_settings() {
    let app = spawn_app_with(&[
        ("API_MAX_URI_LENGTH", "64"),
        ("API_MAX_HEADER_SIZE", "4096"),
    ])
    .await;
    let at_limit = format!("/health?{}", "q".repeat(64 - "/health?".len()));
    assert_eq!(app.get(&at_limit).await.status(), 200);
    assert_eq!(app.get(&format!("{at_limit}q")).await.status(), 414);
    let response = app
        .http
        .get(app.url("/health"))
        .header("x-large", "h".repeat(5000))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 431);
}

/// Sends `head` on a fresh connection and returns the status line of the answer (raw, as
/// reqwest would refuse or encode these heads).
async fn raw_status_line(address: &str, head: &str) -> String {
    let authority = address.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(authority).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    // The HTTP layer closes the connection after refusing a head it cannot parse.
    let read = stream.read_to_end(&mut answer);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), read).await;
    let answer = String::from_utf8_lossy(&answer);
    answer.lines().next().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn heads_the_http_layer_refuses_get_its_empty_answers_and_the_server_stays_up() {
    let app = spawn_app_with(&[("API_MAX_URI_LENGTH", "65534")]).await;
    // A target the HTTP layer cannot represent (over 65,534 bytes): its own empty 400.
    let target = format!("/rest/v1/t?id=in.({})", "1,".repeat(40_000));
    let head = format!("GET {target} HTTP/1.1\r\nHost: localhost\r\n\r\n");
    assert_eq!(
        raw_status_line(&app.address, &head).await,
        "HTTP/1.1 400 Bad Request"
    );
    // More than 96 headers: its own 431.
    let mut head = String::from("GET /health HTTP/1.1\r\nHost: localhost\r\n");
    for index in 0..200 {
        head.push_str(&format!("x-h-{index}: v\r\n"));
    }
    head.push_str("\r\n");
    assert_eq!(
        raw_status_line(&app.address, &head).await,
        "HTTP/1.1 431 Request Header Fields Too Large"
    );
    // A raw `>` or `"` in the query (`select=data->>name`, unencoded): its own empty 400.
    for target in ["/rest/v1/t?select=data->>name", "/rest/v1/t?name=eq.\"x\""] {
        let head = format!("GET {target} HTTP/1.1\r\nHost: localhost\r\n\r\n");
        assert_eq!(
            raw_status_line(&app.address, &head).await,
            "HTTP/1.1 400 Bad Request",
            "{target}"
        );
    }
    assert_eq!(app.get("/health").await.status(), 200);
}
