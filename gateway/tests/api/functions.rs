//! functions/v1 with native functions: the host's contract (routing, methods, verify_jwt,
//! the caller's identity, answers passed through and streamed) without Deno.

use std::time::Duration;

use actix_web::HttpResponse;
use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::future::LocalBoxFuture;
use gateway::functions_v1::NativeFunction;
use gateway::functions_v1::native::{Invocation, NativeFunctions};
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app_with_functions};

/// Describes the invocation it got: method, sub-path, query, body size, caller.
struct Describe;

impl NativeFunction for Describe {
    fn call(&self, invocation: Invocation) -> LocalBoxFuture<'static, HttpResponse> {
        Box::pin(async move {
            let Invocation {
                request,
                mut body,
                sub_path,
                caller,
            } = invocation;
            let mut length = 0;
            while let Some(chunk) = body.next().await {
                length += chunk.map(|chunk| chunk.len()).unwrap_or_default();
            }
            HttpResponse::Ok().json(json!({
                "method": request.method().as_str(),
                "sub_path": sub_path,
                "query": request.query_string(),
                "length": length,
                "role": caller.as_ref().map(|caller| caller.role.clone()),
                "sub": caller.as_ref().and_then(|caller| caller.claims.get("sub").cloned()),
            }))
        })
    }
}

/// Open to anyone; answers its own error.
struct Teapot;

impl NativeFunction for Teapot {
    fn verify_jwt(&self) -> bool {
        false
    }

    fn call(&self, invocation: Invocation) -> LocalBoxFuture<'static, HttpResponse> {
        let caller = invocation.caller.is_some();
        Box::pin(async move {
            HttpResponse::build(actix_web::http::StatusCode::IM_A_TEAPOT)
                .insert_header(("x-caller", if caller { "known" } else { "none" }))
                .json(json!({"code": "teapot"}))
        })
    }
}

/// Streams three chunks 200 ms apart.
struct Ticks;

impl NativeFunction for Ticks {
    fn call(&self, _invocation: Invocation) -> LocalBoxFuture<'static, HttpResponse> {
        Box::pin(async move {
            let ticks = futures_util::stream::iter(1..=3).then(|tick| async move {
                if tick > 1 {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Ok::<_, std::io::Error>(Bytes::from(format!("data: {tick}\n\n")))
            });
            HttpResponse::Ok()
                .content_type("text/event-stream")
                .streaming(Box::pin(ticks))
        })
    }
}

async fn app() -> TestApp {
    let mut natives = NativeFunctions::new();
    natives
        .register("describe", Describe)
        .register("teapot", Teapot)
        .register("ticks", Ticks);
    spawn_app_with_functions(&[], natives).await
}

#[tokio::test]
async fn native_functions_get_method_sub_path_query_body_and_the_verified_caller() {
    let app = app().await;
    let user = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
    let response = app
        .http
        .put(app.url("/functions/v1/describe/a/b?forceFunctionRegion=eu-west-1"))
        .header("authorization", format!("Bearer {}", app.user_token(user)))
        .header("apikey", app.anon_key())
        .header("x-region", "eu-west-1")
        .body(vec![7u8; 100_000])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({
            "method": "PUT",
            "sub_path": "/a/b",
            "query": "forceFunctionRegion=eu-west-1",
            "length": 100_000,
            "role": "authenticated",
            "sub": user,
        })
    );

    let anon = app
        .http
        .get(app.url("/functions/v1/describe"))
        .header("authorization", format!("Bearer {}", app.anon_key()))
        .send()
        .await
        .unwrap();
    let body: Value = anon.json().await.unwrap();
    assert_eq!(body["role"], "anon");
    assert_eq!(body["sub_path"], "");
}

#[tokio::test]
async fn verify_jwt_refuses_missing_and_invalid_tokens_unless_turned_off() {
    let app = app().await;
    let missing = app
        .http
        .post(app.url("/functions/v1/describe"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 401);
    assert!(!missing.headers().contains_key("sb-error-code"));
    let body: Value = missing.json().await.unwrap();
    assert_eq!(
        body,
        json!({"code": 401, "message": "Missing authorization header"})
    );

    let invalid = app
        .http
        .post(app.url("/functions/v1/describe"))
        .header("authorization", "Bearer not.a.jwt")
        .send()
        .await
        .unwrap();
    assert_eq!(invalid.status(), 401);
    let body: Value = invalid.json().await.unwrap();
    assert_eq!(body, json!({"code": 401, "message": "Invalid JWT"}));

    // A preflight never carries a token.
    let preflight = app
        .http
        .request(reqwest::Method::OPTIONS, app.url("/functions/v1/describe"))
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 200);

    let open = app
        .http
        .post(app.url("/functions/v1/teapot"))
        .send()
        .await
        .unwrap();
    assert_eq!(open.status(), 418, "the function's own answer, unchanged");
    assert_eq!(open.headers()["x-caller"], "none");
    assert!(!open.headers().contains_key("sb-error-code"));
    // Its token is not looked at, valid or not.
    let with_token = app
        .http
        .post(app.url("/functions/v1/teapot"))
        .bearer_auth(app.anon_key())
        .send()
        .await
        .unwrap();
    assert_eq!(with_token.status(), 418);
    assert_eq!(with_token.headers()["x-caller"], "none");
    assert!(!open.headers().contains_key("x-relay-error"));
    let body: Value = open.json().await.unwrap();
    assert_eq!(body, json!({"code": "teapot"}));
}

#[tokio::test]
async fn unknown_names_and_methods_get_the_edge_runtime_errors() {
    let app = app().await;
    for path in [
        "/functions/v1/nope",
        "/functions/v1/nope/deeper",
        "/functions/v1/",
    ] {
        let response = app.http.post(app.url(path)).send().await.unwrap();
        assert_eq!(response.status(), 404, "{path}");
        assert_eq!(response.headers()["sb-error-code"], "NOT_FOUND", "{path}");
    }
    let head = app
        .http
        .head(app.url("/functions/v1/describe"))
        .header("authorization", format!("Bearer {}", app.anon_key()))
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), 405);
    assert_eq!(head.headers()["sb-error-code"], "METHOD_NOT_ALLOWED");
}

#[tokio::test]
async fn streamed_answers_arrive_chunk_by_chunk_even_when_the_client_accepts_gzip() {
    let app = app().await;
    let response = app
        .http
        .post(app.url("/functions/v1/ticks"))
        .header("authorization", format!("Bearer {}", app.anon_key()))
        .header("accept-encoding", "gzip, br")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(!response.headers().contains_key("content-encoding"));
    let mut stream = response.bytes_stream();
    let started = std::time::Instant::now();
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(first, Bytes::from("data: 1\n\n"));
    assert!(
        started.elapsed() < Duration::from_millis(300),
        "the first event waited for the others"
    );
    let mut rest = Vec::new();
    while let Some(chunk) = stream.next().await {
        rest.extend_from_slice(&chunk.unwrap());
    }
    assert_eq!(rest, b"data: 2\n\ndata: 3\n\n");
}

/// A server elsewhere: answers `201` describing the request it got.
fn start_proxy_target() -> String {
    use actix_web::{App, HttpRequest, HttpServer, web};
    async fn describe(request: HttpRequest, body: web::Bytes) -> HttpResponse {
        let header = |name: &str| {
            request
                .headers()
                .get(name)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
        };
        HttpResponse::Created()
            .insert_header(("x-target", "yes"))
            .json(json!({
                "method": request.method().as_str(),
                "path": request.path(),
                "query": request.query_string(),
                "length": body.len(),
                "authorization": header("authorization").is_some(),
                "forwarded_for": header("x-forwarded-for"),
                "host": header("host"),
            }))
    }
    let server = HttpServer::new(|| {
        App::new()
            .app_data(web::PayloadConfig::new(1 << 20))
            .default_service(web::to(describe))
    })
    .workers(1)
    .disable_signals()
    .bind(("127.0.0.1", 0))
    .unwrap();
    let address = server.addrs()[0];
    actix_web::rt::spawn(server.run());
    format!("http://{address}")
}

#[actix_web::test]
async fn a_proxied_name_is_relayed_to_its_url_and_its_answer_passed_back() {
    let target = start_proxy_target();
    let proxies = format!("elsewhere={target}/base?key=k, gone=http://127.0.0.1:9/");
    let app =
        spawn_app_with_functions(&[("FUNCTIONS_PROXY", &proxies)], NativeFunctions::new()).await;

    let missing = app
        .http
        .post(app.url("/functions/v1/elsewhere"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 401, "verify_jwt is on by default");

    let response = app
        .http
        .patch(app.url("/functions/v1/elsewhere/a/b?q=1"))
        .header("apikey", app.anon_key())
        .bearer_auth(app.anon_key())
        .body(vec![1u8; 5000])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    assert_eq!(response.headers()["x-target"], "yes");
    let body: Value = response.json().await.unwrap();
    let host = body["host"].as_str().unwrap().to_owned();
    assert_eq!(
        body,
        json!({
            "method": "PATCH",
            "path": "/base/a/b",
            "query": "key=k&q=1",
            "length": 5000,
            "authorization": true,
            "forwarded_for": "127.0.0.1",
            "host": host,
        })
    );
    assert_eq!(format!("http://{host}"), target, "the target's own host");

    let gone = app
        .http
        .post(app.url("/functions/v1/gone"))
        .bearer_auth(app.anon_key())
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), 502);
    assert_eq!(gone.headers()["x-relay-error"], "true");
}
