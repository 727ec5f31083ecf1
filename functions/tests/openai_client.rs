//! The OpenAI-compatible client against a real HTTP server on 127.0.0.1 that answers
//! `POST /{scenario}/v1/chat/completions` the way OpenAI-compatible servers do: streamed
//! chunks with pauses, a usage chunk and `[DONE]`; no usage; one JSON completion; 429 and
//! 5xx before the answer; an error after part of it; a broken or stalled stream; OpenAI
//! error bodies. The scenario is the first path segment of the client's base URL.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use bytes::Bytes;
use futures_util::StreamExt;
use secrecy::SecretString;
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};

use functions::ai::{
    ChatEvent, ChatOptions, ChatProvider, ChatRequest, FinishReason, Message, OpenAiClient,
    OpenAiConfig, ProviderError, TimeoutPhase, Timeouts, Usage, collect,
};

const KEY: &str = "sk-test-key";
const MODEL: &str = "test-model";

/// What the server saw and the hooks the incremental test steers it with.
#[derive(Default)]
struct Seen {
    requests: Mutex<HashMap<String, u32>>,
    bodies: Mutex<Vec<Value>>,
    /// Set by the test when the client handed out its first delta.
    first_delta_received: Notify,
    /// Set by the server just before it writes the last chunk of `incremental`.
    last_chunk_sent: AtomicBool,
}

impl Seen {
    fn requests(&self, scenario: &str) -> u32 {
        self.requests
            .lock()
            .unwrap()
            .get(scenario)
            .copied()
            .unwrap_or(0)
    }
}

fn chunk(content: Option<&str>, finish: Option<&str>) -> String {
    let delta = match content {
        Some(content) => json!({ "content": content }),
        None => json!({}),
    };
    let chunk = json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_700_000_000,
        "model": MODEL, "system_fingerprint": "fp_test",
        "choices": [{ "index": 0, "delta": delta, "logprobs": null, "finish_reason": finish }],
        "usage": null,
    });
    format!("data: {chunk}\n\n")
}

fn role_chunk() -> String {
    let chunk = json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_700_000_000,
        "model": MODEL,
        "choices": [{ "index": 0, "delta": { "role": "assistant", "content": "" },
                      "logprobs": null, "finish_reason": null }],
        "usage": null,
    });
    format!("data: {chunk}\n\n")
}

fn usage_chunk() -> String {
    let chunk = json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_700_000_000,
        "model": MODEL, "choices": [],
        "usage": { "prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15 },
    });
    format!("data: {chunk}\n\n")
}

fn error_body(message: &str, kind: &str, code: Value) -> Value {
    json!({ "error": { "message": message, "type": kind, "param": null, "code": code } })
}

/// One piece of a scripted streamed answer.
enum Step {
    Send(String),
    Pause(Duration),
    /// Waits (up to 5 s) until the test got its first delta, then marks the last chunk sent.
    AwaitFirstDelta,
    /// Breaks the connection off.
    Abort,
    /// Keeps the connection open without sending, until the client leaves.
    Stall,
}

fn stream_response(seen: web::Data<Seen>, steps: Vec<Step>) -> HttpResponse {
    let (sender, receiver) = mpsc::channel::<Result<Bytes, std::io::Error>>(16);
    actix_web::rt::spawn(async move {
        for step in steps {
            match step {
                Step::Send(text) => {
                    if sender.send(Ok(Bytes::from(text))).await.is_err() {
                        return;
                    }
                }
                Step::Pause(pause) => tokio::time::sleep(pause).await,
                Step::AwaitFirstDelta => {
                    let _ = tokio::time::timeout(
                        Duration::from_secs(5),
                        seen.first_delta_received.notified(),
                    )
                    .await;
                    seen.last_chunk_sent.store(true, Ordering::SeqCst);
                }
                Step::Abort => {
                    let _ = sender
                        .send(Err(std::io::Error::other("connection broken off")))
                        .await;
                    return;
                }
                Step::Stall => {
                    sender.closed().await;
                    return;
                }
            }
        }
    });
    let body = futures_util::stream::unfold(receiver, |mut receiver| async move {
        let item = receiver.recv().await?;
        Some((item, receiver))
    });
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("cache-control", "no-cache"))
        .streaming(body)
}

fn full_stream() -> Vec<Step> {
    let pause = || Step::Pause(Duration::from_millis(40));
    vec![
        Step::Send(role_chunk()),
        pause(),
        Step::Send(chunk(Some("Hola"), None)),
        pause(),
        Step::Send(": keep-alive\n\n".into()),
        Step::Send(chunk(Some(", "), None)),
        pause(),
        Step::Send(chunk(Some("mundo"), None)),
        Step::Send(chunk(None, Some("stop"))),
        Step::Send(usage_chunk()),
        Step::Send("data: [DONE]\n\n".into()),
    ]
}

async fn chat(
    request: HttpRequest,
    scenario: web::Path<String>,
    body: web::Bytes,
    seen: web::Data<Seen>,
) -> HttpResponse {
    let scenario = scenario.into_inner();
    let count = {
        let mut requests = seen.requests.lock().unwrap();
        let count = requests.entry(scenario.clone()).or_insert(0);
        *count += 1;
        *count
    };
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    let authorized = if scenario == "azure" {
        header("api-key").as_deref() == Some(KEY)
            && request.query_string() == "api-version=2024-10-21"
            && header("authorization").is_none()
    } else {
        header("authorization") == Some(format!("Bearer {KEY}"))
    };
    if !authorized {
        return HttpResponse::Unauthorized().json(error_body(
            "Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.",
            "invalid_request_error",
            json!("invalid_api_key"),
        ));
    }
    match serde_json::from_slice(&body) {
        Ok(body) => seen.bodies.lock().unwrap().push(body),
        Err(_) => return HttpResponse::BadRequest().finish(),
    }
    let pause = |ms| Step::Pause(Duration::from_millis(ms));
    match scenario.as_str() {
        "stream" | "azure" => stream_response(seen, full_stream()),
        "incremental" => stream_response(
            seen,
            vec![
                Step::Send(role_chunk()),
                Step::Send(chunk(Some("primero"), None)),
                Step::AwaitFirstDelta,
                Step::Send(chunk(Some(" último"), Some("stop"))),
                Step::Send(usage_chunk()),
                Step::Send("data: [DONE]\n\n".into()),
            ],
        ),
        "no-usage" => stream_response(
            seen,
            vec![
                Step::Send(chunk(Some("sin "), None)),
                pause(20),
                Step::Send(chunk(Some("uso"), Some("length"))),
                Step::Send("data: [DONE]\n\n".into()),
            ],
        ),
        "json" => HttpResponse::Ok().json(json!({
            "id": "chatcmpl-2", "object": "chat.completion", "created": 1_700_000_000,
            "model": MODEL,
            "choices": [{ "index": 0, "message": { "role": "assistant", "content": "Respuesta entera" },
                          "logprobs": null, "finish_reason": "stop" }],
            "usage": { "prompt_tokens": 20, "completion_tokens": 2, "total_tokens": 22 },
        })),
        "rate-limited-once" if count == 1 => HttpResponse::TooManyRequests()
            .insert_header(("retry-after", "0"))
            .json(error_body(
                "Rate limit reached for requests",
                "requests",
                json!("rate_limit_exceeded"),
            )),
        "rate-limited" => HttpResponse::TooManyRequests().json(error_body(
            "Rate limit reached for requests",
            "requests",
            json!("rate_limit_exceeded"),
        )),
        "unavailable-once" if count == 1 => HttpResponse::ServiceUnavailable().json(error_body(
            "The server is overloaded",
            "server_error",
            Value::Null,
        )),
        "broken-before-text-once" if count == 1 => stream_response(
            seen,
            vec![Step::Send(role_chunk()), pause(20), Step::Abort],
        ),
        "rate-limited-once" | "unavailable-once" | "broken-before-text-once" => {
            stream_response(seen, full_stream())
        }
        "fails-after-text" => stream_response(
            seen,
            vec![
                Step::Send(chunk(Some("Hola"), None)),
                pause(20),
                Step::Send(format!(
                    "data: {}\n\n",
                    error_body("the engine crashed", "server_error", json!(500))
                )),
            ],
        ),
        "broken" => stream_response(
            seen,
            vec![
                Step::Send(chunk(Some("Hola"), None)),
                pause(20),
                Step::Abort,
            ],
        ),
        "stalled" => stream_response(
            seen,
            vec![Step::Send(chunk(Some("Hola"), None)), Step::Stall],
        ),
        "slow-start" => {
            tokio::time::sleep(Duration::from_secs(3)).await;
            stream_response(seen, full_stream())
        }
        "bad-request" => HttpResponse::BadRequest().json(error_body(
            "This model's maximum context length is 8192 tokens.",
            "invalid_request_error",
            json!("context_length_exceeded"),
        )),
        _ => HttpResponse::NotFound().finish(),
    }
}

/// Starts the server on a free port; gives its root URL and what it sees.
async fn start() -> (String, Arc<Seen>) {
    let seen = web::Data::new(Seen::default());
    let data = seen.clone();
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .route("/{scenario}/v1/chat/completions", web::post().to(chat))
    })
    .workers(1)
    .disable_signals()
    .bind(("127.0.0.1", 0))
    .unwrap();
    let address = server.addrs()[0];
    actix_web::rt::spawn(server.run());
    (format!("http://{address}"), seen.into_inner())
}

fn config(root: &str, scenario: &str) -> OpenAiConfig {
    let mut config = OpenAiConfig::new(format!("{root}/{scenario}/v1"), MODEL);
    config.api_key = Some(SecretString::from(KEY));
    config.retry_backoff = Duration::from_millis(50);
    config.timeouts = Timeouts {
        connect: Duration::from_secs(2),
        first_byte: Duration::from_secs(2),
        idle: Duration::from_millis(500),
        total: Duration::from_secs(20),
    };
    config
}

fn client(root: &str, scenario: &str) -> OpenAiClient {
    OpenAiClient::new(config(root, scenario)).unwrap()
}

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![
            Message::system("Eres un asistente de planificación."),
            Message::user("Saluda."),
        ],
        options: ChatOptions {
            max_tokens: Some(64),
            temperature: Some(0.2),
            stop: vec!["\n\n\n".into()],
            ..ChatOptions::default()
        },
    }
}

/// Every event of a generation, and the error that ended it if any.
async fn events(client: &OpenAiClient) -> (Vec<ChatEvent>, Option<ProviderError>) {
    let mut stream = client.stream_chat(request());
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        match event {
            Ok(event) => events.push(event),
            Err(error) => {
                assert!(stream.next().await.is_none(), "nothing follows an error");
                return (events, Some(error));
            }
        }
    }
    (events, None)
}

fn deltas(events: &[ChatEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|event| match event {
            ChatEvent::Delta(text) => Some(text.as_str()),
            ChatEvent::Finished { .. } | ChatEvent::Queued { .. } => None,
        })
        .collect()
}

#[actix_web::test]
async fn a_streamed_answer_gives_its_deltas_then_usage() {
    let (root, seen) = start().await;
    let (events, error) = events(&client(&root, "stream")).await;
    assert_eq!(error, None);
    assert_eq!(deltas(&events), ["Hola", ", ", "mundo"]);
    assert_eq!(
        events.last(),
        Some(&ChatEvent::Finished {
            reason: Some(FinishReason::Stop),
            usage: Some(Usage {
                prompt_tokens: 12,
                completion_tokens: 3
            }),
            model: MODEL.into(),
        })
    );
    let body = seen.bodies.lock().unwrap()[0].clone();
    assert_eq!(body["model"], MODEL);
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({ "include_usage": true }));
    assert_eq!(body["max_tokens"], 64);
    assert_eq!(body["stop"], json!(["\n\n\n"]));
    assert!((body["temperature"].as_f64().unwrap() - 0.2).abs() < 1e-6);
    assert_eq!(
        body["messages"],
        json!([
            { "role": "system", "content": "Eres un asistente de planificación." },
            { "role": "user", "content": "Saluda." },
        ])
    );
}

#[actix_web::test]
async fn deltas_arrive_while_the_server_is_still_writing() {
    let (root, seen) = start().await;
    let mut stream = client(&root, "incremental").stream_chat(request());
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(first, ChatEvent::Delta("primero".into()));
    assert!(
        !seen.last_chunk_sent.load(Ordering::SeqCst),
        "the first delta came only after the server sent its last chunk"
    );
    seen.first_delta_received.notify_one();
    let rest = collect(stream).await.unwrap();
    assert_eq!(rest.text, " último");
    assert!(seen.last_chunk_sent.load(Ordering::SeqCst));
    assert_eq!(
        rest.usage,
        Some(Usage {
            prompt_tokens: 12,
            completion_tokens: 3
        })
    );
}

#[actix_web::test]
async fn a_server_without_usage_reports_none() {
    let (root, _) = start().await;
    let completion = collect(client(&root, "no-usage").stream_chat(request()))
        .await
        .unwrap();
    assert_eq!(completion.text, "sin uso");
    assert_eq!(completion.reason, Some(FinishReason::Length));
    assert_eq!(completion.usage, None);
    assert_eq!(completion.model, MODEL);
}

#[actix_web::test]
async fn a_server_that_ignores_stream_answers_one_completion() {
    let (root, _) = start().await;
    let (events, error) = events(&client(&root, "json")).await;
    assert_eq!(error, None);
    assert_eq!(
        events,
        [
            ChatEvent::Delta("Respuesta entera".into()),
            ChatEvent::Finished {
                reason: Some(FinishReason::Stop),
                usage: Some(Usage {
                    prompt_tokens: 20,
                    completion_tokens: 2
                }),
                model: MODEL.into(),
            },
        ]
    );
}

#[actix_web::test]
async fn a_429_before_the_answer_is_retried() {
    let (root, seen) = start().await;
    let completion = collect(client(&root, "rate-limited-once").stream_chat(request()))
        .await
        .unwrap();
    assert_eq!(completion.text, "Hola, mundo");
    assert_eq!(seen.requests("rate-limited-once"), 2);
}

#[actix_web::test]
async fn a_5xx_before_the_answer_is_retried() {
    let (root, seen) = start().await;
    let completion = collect(client(&root, "unavailable-once").stream_chat(request()))
        .await
        .unwrap();
    assert_eq!(completion.text, "Hola, mundo");
    assert_eq!(seen.requests("unavailable-once"), 2);
}

#[actix_web::test]
async fn a_connection_broken_before_any_text_is_retried_without_repeating() {
    let (root, seen) = start().await;
    let completion = collect(client(&root, "broken-before-text-once").stream_chat(request()))
        .await
        .unwrap();
    assert_eq!(completion.text, "Hola, mundo");
    assert_eq!(seen.requests("broken-before-text-once"), 2);
}

#[actix_web::test]
async fn retries_stop_and_the_rate_limit_is_reported() {
    let (root, seen) = start().await;
    let (events, error) = events(&client(&root, "rate-limited")).await;
    assert!(events.is_empty());
    assert_eq!(
        error,
        Some(ProviderError::RateLimited {
            message: "Rate limit reached for requests".into(),
            retry_after: None,
        })
    );
    assert_eq!(
        seen.requests("rate-limited"),
        3,
        "one attempt and two retries"
    );
}

#[actix_web::test]
async fn an_error_after_text_is_surfaced_and_not_retried() {
    let (root, seen) = start().await;
    let (events, error) = events(&client(&root, "fails-after-text")).await;
    assert_eq!(deltas(&events), ["Hola"]);
    assert_eq!(
        error,
        Some(ProviderError::Upstream {
            status: 500,
            message: "the engine crashed".into(),
            kind: Some("server_error".into()),
            code: Some("500".into()),
        })
    );
    assert_eq!(seen.requests("fails-after-text"), 1);
}

#[actix_web::test]
async fn a_connection_broken_after_text_is_not_retried() {
    let (root, seen) = start().await;
    let (events, error) = events(&client(&root, "broken")).await;
    assert_eq!(deltas(&events), ["Hola"]);
    assert!(
        matches!(
            error,
            Some(ProviderError::Unreachable(_) | ProviderError::BadResponse(_))
        ),
        "{error:?}"
    );
    assert_eq!(seen.requests("broken"), 1);
}

#[actix_web::test]
async fn a_stalled_stream_hits_the_idle_timeout() {
    let (root, seen) = start().await;
    let started = std::time::Instant::now();
    let (events, error) = events(&client(&root, "stalled")).await;
    assert_eq!(deltas(&events), ["Hola"]);
    assert_eq!(error, Some(ProviderError::Timeout(TimeoutPhase::Idle)));
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(seen.requests("stalled"), 1);
}

#[actix_web::test]
async fn a_server_that_does_not_answer_hits_the_first_byte_timeout() {
    let (root, _) = start().await;
    let mut config = config(&root, "slow-start");
    config.timeouts.first_byte = Duration::from_millis(300);
    let client = OpenAiClient::new(config).unwrap();
    let (events, error) = events(&client).await;
    assert!(events.is_empty());
    assert_eq!(error, Some(ProviderError::Timeout(TimeoutPhase::FirstByte)));
}

#[actix_web::test]
async fn the_total_timeout_bounds_the_generation() {
    let (root, _) = start().await;
    let mut config = config(&root, "slow-start");
    config.timeouts.total = Duration::from_millis(300);
    let client = OpenAiClient::new(config).unwrap();
    let (_, error) = events(&client).await;
    assert_eq!(error, Some(ProviderError::Timeout(TimeoutPhase::Total)));
}

#[actix_web::test]
async fn an_openai_error_body_gives_its_message_and_is_not_retried() {
    let (root, seen) = start().await;
    let (events, error) = events(&client(&root, "bad-request")).await;
    assert!(events.is_empty());
    assert_eq!(
        error,
        Some(ProviderError::Upstream {
            status: 400,
            message: "This model's maximum context length is 8192 tokens.".into(),
            kind: Some("invalid_request_error".into()),
            code: Some("context_length_exceeded".into()),
        })
    );
    assert_eq!(seen.requests("bad-request"), 1);
}

#[actix_web::test]
async fn the_key_is_sent_as_a_bearer_token() {
    let (root, _) = start().await;
    let mut config = config(&root, "stream");
    config.api_key = Some(SecretString::from("sk-wrong"));
    let (_, error) = events(&OpenAiClient::new(config).unwrap()).await;
    match error {
        Some(ProviderError::Upstream {
            status: 401,
            message,
            code,
            ..
        }) => {
            assert!(
                message.starts_with("Incorrect API key provided"),
                "{message}"
            );
            assert_eq!(code.as_deref(), Some("invalid_api_key"));
        }
        other => panic!("expected a 401, got {other:?}"),
    }
}

#[actix_web::test]
async fn azure_style_keys_go_in_the_api_key_header_with_the_api_version() {
    let (root, _) = start().await;
    let mut config = config(&root, "azure");
    config.api_key_header = Some("api-key".into());
    config.api_version = Some("2024-10-21".into());
    let completion = collect(OpenAiClient::new(config).unwrap().stream_chat(request()))
        .await
        .unwrap();
    assert_eq!(completion.text, "Hola, mundo");
}

#[actix_web::test]
async fn a_closed_port_is_unreachable() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let root = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let (events, error) = events(&client(&root, "stream")).await;
    assert!(events.is_empty());
    assert!(
        matches!(error, Some(ProviderError::Unreachable(_))),
        "{error:?}"
    );
}

#[actix_web::test]
async fn the_model_of_a_request_overrides_the_configured_one() {
    let (root, seen) = start().await;
    let client = client(&root, "stream");
    assert_eq!(client.model(), MODEL);
    let mut request = request();
    request.options.model = Some("other-model".into());
    collect(client.stream_chat(request)).await.unwrap();
    assert_eq!(seen.bodies.lock().unwrap()[0]["model"], "other-model");
}
