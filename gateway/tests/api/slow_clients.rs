//! Clients that send their requests slowly on purpose (attack case 40): dripping the head or
//! the body gets `408` and a closed socket once the time is up, while other clients are
//! served as usual.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{TestApp, spawn_fixture_app_with};

/// One-second windows keep the tests short; the defaults are 5 s and 30 s.
const TIMEOUTS: [(&str, &str); 2] = [("API_HEAD_TIMEOUT", "1"), ("API_BODY_TIMEOUT", "1")];

async fn connect(app: &TestApp) -> TcpStream {
    TcpStream::connect(app.address.trim_start_matches("http://"))
        .await
        .unwrap()
}

/// Writes `first`, then `drip` every 200 ms until the server closes the connection; returns
/// what it answered and how long that took. Panics after 10 s.
async fn drip_until_closed(mut stream: TcpStream, first: &[u8], drip: &[u8]) -> (String, Duration) {
    let started = Instant::now();
    stream.write_all(first).await.unwrap();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 1024];
    loop {
        assert!(started.elapsed() < Duration::from_secs(10), "never closed");
        tokio::select! {
            read = stream.read(&mut buffer) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buffer[..n]),
            },
            () = tokio::time::sleep(Duration::from_millis(200)) => {
                // The server may already have closed its side; the read above says so.
                let _ = stream.write_all(drip).await;
            }
        }
    }
    (
        String::from_utf8_lossy(&answer).into_owned(),
        started.elapsed(),
    )
}

#[tokio::test]
async fn dripping_heads_get_408_and_are_closed_while_others_are_served() {
    let app = spawn_fixture_app_with(&TIMEOUTS).await;
    let mut drips = tokio::task::JoinSet::new();
    for _ in 0..200 {
        let stream = connect(&app).await;
        drips.spawn(drip_until_closed(
            stream,
            b"GET /rest/v1/schools HTTP/1.1\r\nHost: x\r\n",
            b"X-Drip: 1\r\n",
        ));
    }
    // Meanwhile an ordinary client.
    for _ in 0..20 {
        let response = app
            .rest(Method::GET, "/schools?select=id")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }
    while let Some(drip) = drips.join_next().await {
        let (answer, took) = drip.unwrap();
        assert!(answer.starts_with("HTTP/1.1 408 "), "{answer:?}");
        assert!(took < Duration::from_secs(4), "{took:?}");
    }
}

#[tokio::test]
async fn a_dripping_body_gets_408_and_is_closed() {
    let app = spawn_fixture_app_with(&TIMEOUTS).await;
    let head = format!(
        "POST /rest/v1/students HTTP/1.1\r\nHost: x\r\napikey: {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n[",
        app.anon_key()
    );
    let (answer, took) = drip_until_closed(connect(&app).await, head.as_bytes(), b" ").await;
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer:?}");
    assert!(answer.contains("connection: close"), "{answer:?}");
    assert!(
        answer.ends_with("\r\n\r\nRequest body timeout\n"),
        "{answer:?}"
    );
    assert!(took < Duration::from_secs(4), "{took:?}");
    // Nothing was written, and the next client is served.
    let response = app
        .rest(Method::GET, "/students?select=id&order=id.desc&limit=1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn a_slow_body_that_keeps_pace_is_served() {
    let app = spawn_fixture_app_with(&TIMEOUTS).await;
    // 6 KiB in 2 KiB pieces every 600 ms: slower than the head limit in all, but each window
    // brings its 2 KiB.
    let row = json!({"id": 77, "name": "x".repeat(6 * 1024)}).to_string();
    let head = format!(
        "POST /rest/v1/students HTTP/1.1\r\nHost: x\r\napikey: {}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nPrefer: return=minimal\r\n\r\n",
        app.anon_key(),
        app.service_role_key(),
        row.len()
    );
    let mut stream = connect(&app).await;
    stream.write_all(head.as_bytes()).await.unwrap();
    for piece in row.as_bytes().chunks(2048) {
        tokio::time::sleep(Duration::from_millis(600)).await;
        stream.write_all(piece).await.unwrap();
    }
    let mut answer = [0u8; 64];
    let read = stream.read(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer[..read]);
    assert!(answer.starts_with("HTTP/1.1 201 "), "{answer}");
}
