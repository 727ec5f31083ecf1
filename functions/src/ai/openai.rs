//! The client of any OpenAI-compatible chat-completions server (OpenAI, Azure OpenAI,
//! Ollama, vLLM, llama.cpp's server): it POSTs `{base}/chat/completions` with `stream: true`
//! and `stream_options.include_usage`, and turns the server-sent events that come back
//! (`data: {chunk}` lines, `choices[0].delta.content`, a last chunk with `usage`,
//! `data: [DONE]`) into a [`ChatStream`] as they arrive. It tolerates servers that report
//! no usage (the usage is then `None`) and servers that ignore `stream` and answer one JSON
//! completion. Every wait is bounded (connect, first byte, idle between chunks, total), and
//! failures worth retrying (no connection, 429, 5xx) are retried with backoff only while no
//! text has been handed out, so a retry can never repeat text.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use reqwest::header::{CONTENT_TYPE, HeaderName, HeaderValue, RETRY_AFTER};
use secrecy::{ExposeSecret, SecretString};
use serde_json::{Value, json};
use tokio::time::{Instant, timeout_at};

use super::provider::{
    ChatEvent, ChatProvider, ChatRequest, ChatStream, FinishReason, ProviderError, TimeoutPhase,
    Usage,
};

/// Most bytes of an error body or a non-streamed answer that are read.
const MAX_ERROR_BODY: usize = 64 * 1024;
/// Most bytes of a non-streamed answer, or of one server-sent event still being read.
const MAX_JSON_ANSWER: usize = 16 * 1024 * 1024;
/// Longest wait between two attempts, whatever `Retry-After` asks.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How long each part of a generation may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Opening the TCP (and TLS) connection.
    pub connect: Duration,
    /// From sending the request to the first bytes of the answer: the server's queue and
    /// prompt processing.
    pub first_byte: Duration,
    /// Between two pieces of the streamed answer.
    pub idle: Duration,
    /// The whole generation, retries and their waits included.
    pub total: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(10),
            first_byte: Duration::from_secs(60),
            idle: Duration::from_secs(30),
            total: Duration::from_secs(300),
        }
    }
}

/// Where and how to reach the server.
#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// The API root that `/chat/completions` is appended to, e.g.
    /// `https://api.openai.com/v1`, `http://localhost:11434/v1` (Ollama), or for Azure
    /// OpenAI `https://NAME.openai.azure.com/openai/deployments/DEPLOYMENT`.
    pub base_url: String,
    /// Sent as `Authorization: Bearer …`, or in [`OpenAiConfig::api_key_header`].
    pub api_key: Option<SecretString>,
    /// Header that carries the key bare instead of `Authorization: Bearer` (Azure's
    /// `api-key`); `None` chooses `api-key` for `*.openai.azure.com` and
    /// `*.cognitiveservices.azure.com`, else the bearer header.
    pub api_key_header: Option<String>,
    /// Sent as the `api-version` query parameter (Azure's deployment URLs need it).
    pub api_version: Option<String>,
    /// Model asked for when a request names none.
    pub model: String,
    pub timeouts: Timeouts,
    /// Attempts after the first one for failures worth retrying.
    pub max_retries: u32,
    /// Wait before the first retry; it doubles for each further one.
    pub retry_backoff: Duration,
}

impl OpenAiConfig {
    /// A configuration with default timeouts and retries.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        OpenAiConfig {
            base_url: base_url.into(),
            api_key: None,
            api_key_header: None,
            api_version: None,
            model: model.into(),
            timeouts: Timeouts::default(),
            max_retries: 2,
            retry_backoff: Duration::from_millis(500),
        }
    }
}

/// An [`OpenAiConfig`] that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid AI provider configuration: {0}")]
pub struct InvalidConfig(pub String);

/// A chat-completions client; cheap to clone (clones share their connection pool).
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    http: reqwest::Client,
    url: reqwest::Url,
    /// The key's header, marked sensitive so that it is never logged.
    auth: Option<(HeaderName, HeaderValue)>,
    model: String,
    timeouts: Timeouts,
    max_retries: u32,
    retry_backoff: Duration,
}

impl OpenAiClient {
    pub fn new(config: OpenAiConfig) -> Result<Self, InvalidConfig> {
        let base = config.base_url.trim_end_matches('/');
        let mut url = reqwest::Url::parse(&format!("{base}/chat/completions"))
            .map_err(|error| InvalidConfig(format!("{:?}: {error}", config.base_url)))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(InvalidConfig(format!(
                "{:?}: must start with http:// or https://",
                config.base_url
            )));
        }
        if let Some(version) = &config.api_version {
            url.query_pairs_mut().append_pair("api-version", version);
        }
        let azure = url.host_str().is_some_and(|host| {
            host.ends_with(".openai.azure.com") || host.ends_with(".cognitiveservices.azure.com")
        });
        let auth = match &config.api_key {
            None => None,
            Some(key) => {
                let key = key.expose_secret();
                let (name, value) = match config.api_key_header.as_deref() {
                    Some(name) if !name.eq_ignore_ascii_case("authorization") => {
                        (name.to_owned(), key.to_owned())
                    }
                    None if azure => ("api-key".to_owned(), key.to_owned()),
                    _ => ("authorization".to_owned(), format!("Bearer {key}")),
                };
                let name = HeaderName::try_from(name.as_str())
                    .map_err(|_| InvalidConfig(format!("{name:?} is not a header name")))?;
                let mut value = HeaderValue::try_from(value)
                    .map_err(|_| InvalidConfig("the API key is not a valid header value".into()))?;
                value.set_sensitive(true);
                Some((name, value))
            }
        };
        let http = reqwest::Client::builder()
            .connect_timeout(config.timeouts.connect)
            .build()
            .map_err(|error| InvalidConfig(error.to_string()))?;
        Ok(OpenAiClient {
            inner: Arc::new(Inner {
                http,
                url,
                auth,
                model: config.model,
                timeouts: config.timeouts,
                max_retries: config.max_retries,
                retry_backoff: config.retry_backoff,
            }),
        })
    }
}

impl ChatProvider for OpenAiClient {
    fn model(&self) -> &str {
        &self.inner.model
    }

    fn stream_chat(&self, request: ChatRequest) -> ChatStream {
        let model = request
            .options
            .model
            .clone()
            .unwrap_or_else(|| self.inner.model.clone());
        let mut body = json!({
            "model": model,
            "messages": request.messages,
            "stream": true,
            "stream_options": { "include_usage": true },
        });
        if let Some(max_tokens) = request.options.max_tokens {
            body["max_tokens"] = json!(max_tokens);
        }
        if let Some(temperature) = request.options.temperature {
            body["temperature"] = json!(temperature);
        }
        if !request.options.stop.is_empty() {
            body["stop"] = json!(request.options.stop);
        }
        let generation = Generation {
            inner: Arc::clone(&self.inner),
            body: Bytes::from(body.to_string()),
            model,
            deadline: None,
            attempts: 0,
            streamed: false,
            answer: None,
            pending: VecDeque::new(),
            failed: None,
            done: false,
        };
        Box::pin(futures_util::stream::unfold(
            generation,
            |mut generation| async move {
                let item = generation.next_event().await?;
                Some((item, generation))
            },
        ))
    }
}

/// The state of one streamed generation.
struct Generation {
    inner: Arc<Inner>,
    body: Bytes,
    /// The model asked for, reported when the server names none.
    model: String,
    /// Set when the stream is first polled: the total timeout runs from then.
    deadline: Option<Instant>,
    attempts: u32,
    /// Some text was handed out: from then on nothing is retried.
    streamed: bool,
    answer: Option<Answer>,
    /// Events decoded and not yet handed out.
    pending: VecDeque<ChatEvent>,
    /// The error that ends the current attempt, handed out after `pending`.
    failed: Option<ProviderError>,
    done: bool,
}

/// The answer of the current attempt, being read.
struct Answer {
    body: BoxStream<'static, reqwest::Result<Bytes>>,
    /// Until the first bytes arrive, the first-byte timeout applies, then the idle one.
    first_byte_deadline: Option<Instant>,
    status: u16,
    decoder: Decoder,
}

impl Generation {
    async fn next_event(&mut self) -> Option<Result<ChatEvent, ProviderError>> {
        let deadline = *self
            .deadline
            .get_or_insert_with(|| Instant::now() + self.inner.timeouts.total);
        loop {
            if let Some(event) = self.pending.pop_front() {
                match event {
                    ChatEvent::Delta(_) => self.streamed = true,
                    ChatEvent::Finished { .. } => self.done = true,
                    ChatEvent::Queued { .. } => {}
                }
                return Some(Ok(event));
            }
            if self.done {
                return None;
            }
            if let Some(error) = self.failed.take() {
                self.answer = None;
                if let Some(wait) = self.retry_wait(&error, deadline) {
                    tokio::time::sleep(wait).await;
                    continue;
                }
                self.done = true;
                return Some(Err(error));
            }
            if let Err(error) = self.step(deadline).await {
                self.failed = Some(error);
            }
        }
    }

    /// How long to wait before retrying after `error`, or `None` not to retry.
    fn retry_wait(&self, error: &ProviderError, deadline: Instant) -> Option<Duration> {
        if self.streamed || self.attempts > self.inner.max_retries {
            return None;
        }
        let asked = match error {
            ProviderError::Unreachable(_) | ProviderError::Timeout(TimeoutPhase::Connect) => None,
            ProviderError::RateLimited { retry_after, .. } => *retry_after,
            ProviderError::Upstream { status, .. } if *status >= 500 => None,
            _ => return None,
        };
        let doubling = 1u32 << (self.attempts - 1).min(16);
        let wait = asked
            .unwrap_or_else(|| self.inner.retry_backoff.saturating_mul(doubling))
            .min(MAX_BACKOFF);
        (Instant::now() + wait < deadline).then_some(wait)
    }

    /// Sends the request, or reads the next piece of the answer, queueing what it decodes.
    async fn step(&mut self, deadline: Instant) -> Result<(), ProviderError> {
        let Some(answer) = &mut self.answer else {
            self.answer = Some(self.send(deadline).await?);
            return Ok(());
        };
        let (wait_until, phase) = match answer.first_byte_deadline {
            Some(first) if first < deadline => (first, TimeoutPhase::FirstByte),
            None if Instant::now() + self.inner.timeouts.idle < deadline => (
                Instant::now() + self.inner.timeouts.idle,
                TimeoutPhase::Idle,
            ),
            _ => (deadline, TimeoutPhase::Total),
        };
        match timeout_at(wait_until, answer.body.next()).await {
            Err(_) => Err(ProviderError::Timeout(phase)),
            Ok(Some(Err(error))) => Err(ProviderError::Unreachable(format!(
                "the answer broke off: {error}"
            ))),
            Ok(Some(Ok(bytes))) => {
                answer.first_byte_deadline = None;
                answer
                    .decoder
                    .feed(&bytes, answer.status, &mut self.pending)
            }
            Ok(None) => answer
                .decoder
                .finish(answer.status, &self.model, &mut self.pending),
        }
    }

    async fn send(&mut self, deadline: Instant) -> Result<Answer, ProviderError> {
        self.attempts += 1;
        let first_byte_deadline = (Instant::now() + self.inner.timeouts.first_byte).min(deadline);
        let phase = if first_byte_deadline < deadline {
            TimeoutPhase::FirstByte
        } else {
            TimeoutPhase::Total
        };
        let mut request = self
            .inner
            .http
            .post(self.inner.url.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(
                reqwest::header::ACCEPT,
                "text/event-stream, application/json",
            )
            .body(self.body.clone());
        if let Some((name, value)) = &self.inner.auth {
            request = request.header(name.clone(), value.clone());
        }
        let response = match timeout_at(first_byte_deadline, request.send()).await {
            Err(_) => return Err(ProviderError::Timeout(phase)),
            Ok(Err(error)) => return Err(transport_error(&error)),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if !status.is_success() {
            let retry_after = response
                .headers()
                .get(RETRY_AFTER)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let body = read_limited(response, first_byte_deadline, MAX_ERROR_BODY)
                .await
                .unwrap_or_default();
            return Err(error_from_body(status.as_u16(), &body, retry_after));
        }
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let decoder = if content_type.starts_with("text/event-stream") {
            Decoder::Sse(Sse::new(self.model.clone()))
        } else if content_type.starts_with("application/json") {
            Decoder::Json(Vec::new())
        } else {
            Decoder::Undecided(self.model.clone())
        };
        Ok(Answer {
            body: response.bytes_stream().boxed(),
            first_byte_deadline: Some(first_byte_deadline),
            status: status.as_u16(),
            decoder,
        })
    }
}

fn transport_error(error: &reqwest::Error) -> ProviderError {
    if error.is_connect() && error.is_timeout() {
        ProviderError::Timeout(TimeoutPhase::Connect)
    } else {
        ProviderError::Unreachable(error_chain(error))
    }
}

/// The error with its causes, which say what actually failed (refused, reset, DNS, TLS).
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Up to `limit` bytes of a (short) body, or what came before the deadline.
async fn read_limited(
    response: reqwest::Response,
    deadline: Instant,
    limit: usize,
) -> Option<Vec<u8>> {
    let mut body = response.bytes_stream();
    let mut read = Vec::new();
    while read.len() < limit {
        match timeout_at(deadline, body.next()).await {
            Ok(Some(Ok(bytes))) => read.extend_from_slice(&bytes),
            Ok(None) => break,
            Ok(Some(Err(_))) | Err(_) => return (!read.is_empty()).then_some(read),
        }
    }
    read.truncate(limit);
    Some(read)
}

/// The error an error answer stands for, with the message of OpenAI's error body
/// `{"error":{"message","type","code"}}` (or `{"error":"…"}`, or the body's text).
fn error_from_body(status: u16, body: &[u8], retry_after: Option<Duration>) -> ProviderError {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let (message, kind, code) = match parsed.as_ref().and_then(|value| value.get("error")) {
        Some(error) => describe_error(error),
        None => {
            let text = String::from_utf8_lossy(body);
            let text = text.trim();
            let message = if text.is_empty() {
                format!("HTTP {status}")
            } else {
                text.chars().take(500).collect()
            };
            (message, None, None)
        }
    };
    if status == 429 {
        ProviderError::RateLimited {
            message,
            retry_after,
        }
    } else {
        ProviderError::Upstream {
            status,
            message,
            kind,
            code,
        }
    }
}

/// `message`, `type` and `code` of an OpenAI error object (`code` may be a string or a
/// number); an error that is a plain string is its own message.
fn describe_error(error: &Value) -> (String, Option<String>, Option<String>) {
    if let Some(text) = error.as_str() {
        return (text.to_owned(), None, None);
    }
    let text = |key: &str| match error.get(key) {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Number(number)) => Some(number.to_string()),
        _ => None,
    };
    let message = text("message").unwrap_or_else(|| error.to_string());
    (message, text("type"), text("code"))
}

/// Turns the bytes of an answer into events, whichever form the server chose.
enum Decoder {
    /// No content type said which: the first byte will (`{` is JSON).
    Undecided(String),
    Sse(Sse),
    /// A non-streamed completion, decoded whole at the end.
    Json(Vec<u8>),
}

impl Decoder {
    fn feed(
        &mut self,
        bytes: &[u8],
        status: u16,
        out: &mut VecDeque<ChatEvent>,
    ) -> Result<(), ProviderError> {
        if let Decoder::Undecided(model) = self {
            match bytes.iter().find(|byte| !byte.is_ascii_whitespace()) {
                None => return Ok(()),
                Some(b'{') => *self = Decoder::Json(Vec::new()),
                Some(_) => *self = Decoder::Sse(Sse::new(std::mem::take(model))),
            }
        }
        match self {
            Decoder::Undecided(_) => Ok(()),
            Decoder::Sse(sse) => sse.feed(bytes, status, out),
            Decoder::Json(read) => {
                if read.len() + bytes.len() > MAX_JSON_ANSWER {
                    return Err(ProviderError::BadResponse("the answer is too large".into()));
                }
                read.extend_from_slice(bytes);
                Ok(())
            }
        }
    }

    fn finish(
        &mut self,
        status: u16,
        model: &str,
        out: &mut VecDeque<ChatEvent>,
    ) -> Result<(), ProviderError> {
        match self {
            Decoder::Undecided(_) => Err(ProviderError::BadResponse("the answer is empty".into())),
            Decoder::Sse(sse) => sse.finish(status, out),
            Decoder::Json(read) => decode_completion(read, status, model, out),
        }
    }
}

/// A non-streamed `chat.completion`: its whole text as one delta, then the end.
fn decode_completion(
    body: &[u8],
    status: u16,
    model: &str,
    out: &mut VecDeque<ChatEvent>,
) -> Result<(), ProviderError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|error| ProviderError::BadResponse(format!("not JSON: {error}")))?;
    if let Some(error) = value.get("error") {
        return Err(stream_error(error, status));
    }
    let choice = value
        .get("choices")
        .and_then(|choices| choices.get(0))
        .ok_or_else(|| ProviderError::BadResponse("a completion without choices".into()))?;
    let text = choice
        .pointer("/message/content")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !text.is_empty() {
        out.push_back(ChatEvent::Delta(text.to_owned()));
    }
    out.push_back(ChatEvent::Finished {
        reason: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(FinishReason::parse),
        usage: value.get("usage").and_then(parse_usage),
        model: value
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or(model)
            .to_owned(),
    });
    Ok(())
}

/// An error the server sent as an event or body of a successful status (vLLM, Ollama and
/// others report failures after the stream started this way); its `code` is the status when
/// it is one, else the failure counts as the server's own (500).
fn stream_error(error: &Value, status: u16) -> ProviderError {
    let (message, kind, code) = describe_error(error);
    let status = code
        .as_deref()
        .and_then(|code| code.parse::<u16>().ok())
        .filter(|code| (400..600).contains(code))
        .unwrap_or(if status < 400 { 500 } else { status });
    ProviderError::Upstream {
        status,
        message,
        kind,
        code,
    }
}

/// `usage.prompt_tokens` and `usage.completion_tokens`, when the usage is an object.
fn parse_usage(usage: &Value) -> Option<Usage> {
    let count = |key: &str| {
        usage
            .get(key)
            .and_then(Value::as_u64)
            .map(|count| u32::try_from(count).unwrap_or(u32::MAX))
    };
    if !usage.is_object() {
        return None;
    }
    Some(Usage {
        prompt_tokens: count("prompt_tokens").unwrap_or(0),
        completion_tokens: count("completion_tokens").unwrap_or(0),
    })
}

/// Server-sent events of a streamed completion: `data:` lines carrying chunks, events
/// separated by blank lines, `:` comments (keep-alives) ignored, `data: [DONE]` at the end.
struct Sse {
    /// Bytes after the last complete line.
    line: Vec<u8>,
    /// `data:` lines of the event being read.
    data: String,
    model: String,
    reason: Option<FinishReason>,
    usage: Option<Usage>,
    ended: bool,
}

impl Sse {
    fn new(model: String) -> Self {
        Sse {
            line: Vec::new(),
            data: String::new(),
            model,
            reason: None,
            usage: None,
            ended: false,
        }
    }

    fn feed(
        &mut self,
        bytes: &[u8],
        status: u16,
        out: &mut VecDeque<ChatEvent>,
    ) -> Result<(), ProviderError> {
        let mut rest = bytes;
        while let Some(end) = rest.iter().position(|&byte| byte == b'\n') {
            self.line.extend_from_slice(&rest[..end]);
            rest = &rest[end + 1..];
            let line = std::mem::take(&mut self.line);
            self.line_done(&line, status, out)?;
        }
        self.line.extend_from_slice(rest);
        // Bounded like a non-streamed answer: a line or event that never ends cannot grow
        // without limit until the total timeout.
        if self.line.len() + self.data.len() > MAX_JSON_ANSWER {
            return Err(ProviderError::BadResponse("an event is too large".into()));
        }
        Ok(())
    }

    fn line_done(
        &mut self,
        line: &[u8],
        status: u16,
        out: &mut VecDeque<ChatEvent>,
    ) -> Result<(), ProviderError> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            let data = std::mem::take(&mut self.data);
            return if data.is_empty() {
                Ok(())
            } else {
                self.event(&data, status, out)
            };
        }
        let Some(value) = line.strip_prefix(b"data:") else {
            // Comments, `event:`, `id:` and `retry:` lines carry nothing for a completion.
            return Ok(());
        };
        let value = value.strip_prefix(b" ").unwrap_or(value);
        let value = std::str::from_utf8(value)
            .map_err(|_| ProviderError::BadResponse("an event is not UTF-8".into()))?;
        // A whole chunk on one line is handled at once, so that servers that do not end
        // each event with a blank line are read as well.
        if self.data.is_empty()
            && (value == "[DONE]" || serde_json::from_str::<serde::de::IgnoredAny>(value).is_ok())
        {
            return self.event(value, status, out);
        }
        if !self.data.is_empty() {
            self.data.push('\n');
        }
        self.data.push_str(value);
        Ok(())
    }

    fn event(
        &mut self,
        data: &str,
        status: u16,
        out: &mut VecDeque<ChatEvent>,
    ) -> Result<(), ProviderError> {
        if self.ended {
            return Ok(());
        }
        if data.trim() == "[DONE]" {
            self.end(out);
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(data).map_err(|error| {
            ProviderError::BadResponse(format!("an event is not JSON: {error}"))
        })?;
        if let Some(error) = chunk.get("error") {
            return Err(stream_error(error, status));
        }
        if let Some(model) = chunk.get("model").and_then(Value::as_str)
            && !model.is_empty()
        {
            model.clone_into(&mut self.model);
        }
        if let Some(usage) = chunk.get("usage").and_then(parse_usage) {
            self.usage = Some(usage);
        }
        let choice = chunk.get("choices").and_then(|choices| choices.get(0));
        if let Some(choice) = choice {
            if let Some(text) = choice.pointer("/delta/content").and_then(Value::as_str)
                && !text.is_empty()
            {
                out.push_back(ChatEvent::Delta(text.to_owned()));
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.reason = Some(FinishReason::parse(reason));
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut VecDeque<ChatEvent>) {
        self.ended = true;
        out.push_back(ChatEvent::Finished {
            reason: self.reason.take(),
            usage: self.usage.take(),
            model: std::mem::take(&mut self.model),
        });
    }

    fn finish(&mut self, status: u16, out: &mut VecDeque<ChatEvent>) -> Result<(), ProviderError> {
        let line = std::mem::take(&mut self.line);
        if !line.is_empty() {
            self.line_done(&line, status, out)?;
        }
        self.line_done(b"", status, out)?;
        if self.ended {
            return Ok(());
        }
        // A finish reason without `[DONE]` is a complete answer from a terse server; no
        // finish reason means the answer was cut off.
        if self.reason.is_some() {
            self.end(out);
            return Ok(());
        }
        Err(ProviderError::BadResponse(
            "the stream ended before the answer was complete".into(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(chunks: &[&str]) -> (Vec<ChatEvent>, Result<(), ProviderError>) {
        let mut sse = Sse::new("asked".into());
        let mut out = VecDeque::new();
        for chunk in chunks {
            if let Err(error) = sse.feed(chunk.as_bytes(), 200, &mut out) {
                return (out.into(), Err(error));
            }
        }
        let result = sse.finish(200, &mut out);
        (out.into(), result)
    }

    #[test]
    fn an_event_that_never_ends_is_refused_once_too_large() {
        let mut sse = Sse::new("asked".into());
        let mut out = VecDeque::new();
        let chunk = vec![b'x'; 1024 * 1024];
        let mut refused = false;
        for _ in 0..=MAX_JSON_ANSWER / chunk.len() {
            if let Err(error) = sse.feed(&chunk, 200, &mut out) {
                assert!(matches!(error, ProviderError::BadResponse(_)));
                refused = true;
                break;
            }
        }
        assert!(refused);
        assert!(sse.line.len() <= MAX_JSON_ANSWER + chunk.len());
    }

    #[test]
    fn chunks_split_anywhere_decode_to_the_same_events() {
        let stream = "data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}],\"usage\":null}\n\n\
            : keep-alive\n\n\
            data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hola \"},\"finish_reason\":null}]}\r\n\r\n\
            data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"mundo\"},\"finish_reason\":\"stop\"}]}\n\n\
            data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3,\"total_tokens\":15}}\n\n\
            data: [DONE]\n\n";
        let expected = vec![
            ChatEvent::Delta("Hola ".into()),
            ChatEvent::Delta("mundo".into()),
            ChatEvent::Finished {
                reason: Some(FinishReason::Stop),
                usage: Some(Usage {
                    prompt_tokens: 12,
                    completion_tokens: 3,
                }),
                model: "m".into(),
            },
        ];
        for split in 0..stream.len() {
            if !stream.is_char_boundary(split) {
                continue;
            }
            let (events, result) = decode(&[&stream[..split], &stream[split..]]);
            assert_eq!(result, Ok(()), "split at {split}");
            assert_eq!(events, expected, "split at {split}");
        }
    }

    #[test]
    fn events_without_blank_lines_and_without_done_are_read() {
        let (events, result) = decode(&[
            "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"b\"},\"finish_reason\":\"length\"}]}\n",
        ]);
        assert_eq!(result, Ok(()));
        assert_eq!(
            events,
            vec![
                ChatEvent::Delta("a".into()),
                ChatEvent::Delta("b".into()),
                ChatEvent::Finished {
                    reason: Some(FinishReason::Length),
                    usage: None,
                    model: "asked".into(),
                },
            ]
        );
    }

    #[test]
    fn a_cut_stream_is_an_error() {
        let (events, result) =
            decode(&["data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"]);
        assert_eq!(events, vec![ChatEvent::Delta("a".into())]);
        assert!(matches!(result, Err(ProviderError::BadResponse(_))));
    }

    #[test]
    fn an_error_event_is_an_upstream_error() {
        let (_, result) = decode(&[
            "data: {\"error\":{\"message\":\"out of memory\",\"type\":\"server_error\",\"code\":500}}\n\n",
        ]);
        assert_eq!(
            result,
            Err(ProviderError::Upstream {
                status: 500,
                message: "out of memory".into(),
                kind: Some("server_error".into()),
                code: Some("500".into()),
            })
        );
        let (_, result) = decode(&[
            "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n",
            "data: {\"error\":{\"message\":\"model unloaded\",\"type\":\"api_error\"}}\n\n",
        ]);
        assert_eq!(
            result,
            Err(ProviderError::Upstream {
                status: 500,
                message: "model unloaded".into(),
                kind: Some("api_error".into()),
                code: None,
            })
        );
    }

    #[test]
    fn error_bodies_give_their_message() {
        let body = br#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#;
        assert_eq!(
            error_from_body(401, body, None),
            ProviderError::Upstream {
                status: 401,
                message: "Incorrect API key provided".into(),
                kind: Some("invalid_request_error".into()),
                code: Some("invalid_api_key".into()),
            }
        );
        assert_eq!(
            error_from_body(404, br#"{"error":"model \"x\" not found"}"#, None),
            ProviderError::Upstream {
                status: 404,
                message: "model \"x\" not found".into(),
                kind: None,
                code: None,
            }
        );
        assert_eq!(
            error_from_body(429, b"slow down", Some(Duration::from_secs(2))),
            ProviderError::RateLimited {
                message: "slow down".into(),
                retry_after: Some(Duration::from_secs(2)),
            }
        );
        assert!(matches!(
            error_from_body(502, b"", None),
            ProviderError::Upstream { status: 502, ref message, .. } if message == "HTTP 502"
        ));
    }

    #[test]
    fn azure_hosts_get_the_api_key_header_and_the_version() {
        let mut config = OpenAiConfig::new(
            "https://res.openai.azure.com/openai/deployments/gpt4o/",
            "gpt-4o",
        );
        config.api_key = Some(SecretString::from("k"));
        config.api_version = Some("2024-10-21".into());
        let client = OpenAiClient::new(config.clone()).expect("valid");
        assert_eq!(
            client.inner.url.as_str(),
            "https://res.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21"
        );
        let (name, value) = client.inner.auth.clone().expect("a key");
        assert_eq!((name.as_str(), value.as_bytes()), ("api-key", &b"k"[..]));

        config.api_key_header = Some("Authorization".into());
        let client = OpenAiClient::new(config).expect("valid");
        let (name, value) = client.inner.auth.clone().expect("a key");
        assert_eq!(
            (name.as_str(), value.as_bytes()),
            ("authorization", &b"Bearer k"[..])
        );
    }
}
