//! What the generation pipeline asks of a language model, whoever runs it: a conversation
//! and its sampling options in, a stream of [`ChatEvent`]s out (text as it is produced, then
//! one [`ChatEvent::Finished`] with the finish reason and the token usage the provider
//! reported). Streaming lets the pipeline forward each zone's prose as it is written;
//! the reported usage lets it charge exactly. Failures are [`ProviderError`]s, typed so that
//! callers can tell a provider that is down from one that refused the request.

use std::pin::Pin;
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use serde::Serialize;

/// Who wrote a message of the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

/// One message of the conversation sent to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message {
            role: Role::System,
            content: content.into(),
        }
    }

    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: content.into(),
        }
    }

    pub fn assistant(content: impl Into<String>) -> Self {
        Message {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// Sampling options of one generation; unset ones are the provider's defaults.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatOptions {
    /// Model to use instead of the provider's configured one.
    pub model: Option<String>,
    /// Longest answer in tokens; also what bounds the cost estimated before generating.
    pub max_tokens: Option<u32>,
    pub temperature: Option<f32>,
    /// Sequences that end the answer where they would appear (not included in it).
    pub stop: Vec<String>,
}

/// A conversation and its options: everything a provider needs for one generation.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    pub options: ChatOptions,
}

/// Tokens a generation used, as the provider counted them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
}

/// Why the model stopped writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    /// It ended its answer or met a stop sequence.
    Stop,
    /// It reached `max_tokens`: the answer is cut.
    Length,
    /// The provider's content filter removed the rest.
    ContentFilter,
    /// Anything else the provider said (e.g. `tool_calls`).
    Other(String),
}

impl FinishReason {
    pub fn parse(raw: &str) -> Self {
        match raw {
            "stop" | "eos" => FinishReason::Stop,
            "length" => FinishReason::Length,
            "content_filter" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_owned()),
        }
    }
}

/// One step of a streamed generation.
#[derive(Debug, Clone, PartialEq)]
pub enum ChatEvent {
    /// The generation waits for its turn: this many are ahead of it. Sent when it is
    /// queued and each time it moves up; only by providers that queue (the local model).
    Queued { ahead: usize },
    /// The next piece of the answer's text, in order.
    Delta(String),
    /// The answer is complete; always the last event of a successful stream.
    Finished {
        /// `None` when the provider did not say.
        reason: Option<FinishReason>,
        /// `None` when the provider reported no usage: the caller then counts the tokens
        /// itself (with the model's tokenizer) to charge.
        usage: Option<Usage>,
        /// The model that answered, as the provider named it (else the one asked for).
        model: String,
    },
}

/// A streamed generation: [`ChatEvent::Delta`]s, then [`ChatEvent::Finished`]; or an error,
/// after which nothing follows.
pub type ChatStream = Pin<Box<dyn Stream<Item = Result<ChatEvent, ProviderError>> + Send>>;

/// Which wait ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutPhase {
    /// Opening the connection.
    Connect,
    /// From sending the request to the first bytes of the answer.
    FirstByte,
    /// Between two pieces of a streamed answer.
    Idle,
    /// The whole generation, retries included.
    Total,
}

impl std::fmt::Display for TimeoutPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TimeoutPhase::Connect => "connect",
            TimeoutPhase::FirstByte => "first byte",
            TimeoutPhase::Idle => "idle",
            TimeoutPhase::Total => "total",
        })
    }
}

/// Why a generation failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    /// No connection could be made, or it broke.
    #[error("AI provider unreachable: {0}")]
    Unreachable(String),
    /// A wait ran out (see [`TimeoutPhase`]).
    #[error("AI provider timed out ({0} timeout)")]
    Timeout(TimeoutPhase),
    /// The provider answered 429 on every attempt.
    #[error("AI provider rate limit: {message}")]
    RateLimited {
        message: String,
        /// What its `Retry-After` header asked for, if anything.
        retry_after: Option<Duration>,
    },
    /// The provider answered an error: its HTTP status (or the status in an error sent in
    /// the middle of a stream), and what its error body said.
    #[error("AI provider answered {status}: {message}")]
    Upstream {
        status: u16,
        message: String,
        /// OpenAI's `error.type`, e.g. `invalid_request_error`.
        kind: Option<String>,
        /// OpenAI's `error.code`, e.g. `model_not_found`.
        code: Option<String>,
    },
    /// The answer was not the protocol's: unparseable, or ended before it was complete.
    #[error("AI provider sent a bad response: {0}")]
    BadResponse(String),
}

/// A language model that streams chat answers.
pub trait ChatProvider: Send + Sync + std::fmt::Debug {
    /// The model used when a request names none.
    fn model(&self) -> &str;

    /// Starts a generation. Nothing is sent until the stream is first polled; dropping the
    /// stream abandons the generation.
    fn stream_chat(&self, request: ChatRequest) -> ChatStream;
}

/// A whole generation gathered from its stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub text: String,
    pub reason: Option<FinishReason>,
    pub usage: Option<Usage>,
    pub model: String,
}

/// Reads a [`ChatStream`] to its end, for callers that need no streaming.
pub async fn collect(mut stream: ChatStream) -> Result<Completion, ProviderError> {
    let mut text = String::new();
    while let Some(event) = stream.next().await {
        match event? {
            ChatEvent::Queued { .. } => {}
            ChatEvent::Delta(delta) => text.push_str(&delta),
            ChatEvent::Finished {
                reason,
                usage,
                model,
            } => {
                return Ok(Completion {
                    text,
                    reason,
                    usage,
                    model,
                });
            }
        }
    }
    Err(ProviderError::BadResponse(
        "the stream ended without finishing".into(),
    ))
}
