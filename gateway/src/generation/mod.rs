//! The product's AI generation functions, served as native functions at
//! `/functions/v1/<name>`: `generate-plan` (one class), `generate-sequence` (a unit of
//! classes), `improve-zone` (one zone again, improved) and `editor-assist` (a selection
//! rewritten, expanded, simplified or adapted for PIE). Each request goes through the same
//! steps: the caller and request id are checked, a replayed request id gets its stored
//! answer, the function reads its body and composes a [`Draft`] from the curriculum
//! ([`plan`], [`sequence`], [`improve`], [`assist`]), the user's stars are checked
//! ([`charging`]), then the [`pipeline`] streams the skeleton and has a model, when one is
//! configured, write each piece. The answer is one JSON body, or server-sent events when
//! the client accepts `text/event-stream`. Errors are `{code, message}` ([`error`]).
//! Payloads are documented in `docs/ai.md`.

pub mod assist;
pub mod charging;
pub mod codes;
pub mod curriculum;
pub mod document;
pub mod error;
pub mod improve;
pub mod pipeline;
pub mod plan;
pub mod prompt;
pub mod request;
pub mod sequence;
pub mod skeleton;

use std::sync::Arc;

use actix_web::http::Method;
use actix_web::http::header::{ACCEPT, CACHE_CONTROL, HeaderValue};
use actix_web::{HttpMessage, HttpResponse, web};
use bytes::{Bytes, BytesMut};
use deadpool_postgres::Pool;
use functions::ai::ChatProvider;
use futures_util::StreamExt;
use futures_util::future::LocalBoxFuture;
use serde_json::Value;
use uuid::Uuid;

use self::error::GenerationError;
use self::pipeline::{Draft, Event, Job};
use crate::config::Settings;
use crate::db::Database;
use crate::edge::client_address::client_address;
use crate::functions_v1::native::{Invocation, NativeFunction, NativeFunctions};
use crate::telemetry::RequestId;

/// Which generation function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Plan,
    Sequence,
    ImproveZone,
    EditorAssist,
}

impl Kind {
    pub const ALL: [Kind; 4] = [
        Kind::Plan,
        Kind::Sequence,
        Kind::ImproveZone,
        Kind::EditorAssist,
    ];

    /// Its name under `/functions/v1/`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Plan => "generate-plan",
            Kind::Sequence => "generate-sequence",
            Kind::ImproveZone => "improve-zone",
            Kind::EditorAssist => "editor-assist",
        }
    }

    /// Whether code alone gives a useful answer (the skeleton) when no model is configured.
    fn has_skeleton(self) -> bool {
        self != Kind::EditorAssist
    }

    async fn prepare(self, pool: &Pool, body: &[u8]) -> Result<Draft, GenerationError> {
        match self {
            Kind::Plan => plan::prepare(pool, body).await,
            Kind::Sequence => sequence::prepare(pool, body).await,
            Kind::ImproveZone => improve::prepare(pool, body).await,
            Kind::EditorAssist => assist::prepare(pool, body).await,
        }
    }
}

/// The native functions of the product, registered in production.
pub fn native_functions(settings: &Settings, db: &Database) -> NativeFunctions {
    let provider = settings.ai.provider().unwrap_or_else(|error| {
        tracing::error!(%error, "the AI provider is misconfigured: generation returns skeletons only");
        None
    });
    let mut natives = NativeFunctions::new();
    for kind in Kind::ALL {
        natives.register(
            kind.name(),
            GenerationFunction {
                kind,
                pool: db.owner.clone(),
                provider: provider.clone(),
                piece_max_tokens: settings.ai_zone_max_tokens,
                address_header: settings.auth.rate_limits.header.clone(),
            },
        );
    }
    natives
}

/// One generation function, served natively.
#[derive(Debug)]
pub struct GenerationFunction {
    pub kind: Kind,
    /// The owner's connections: curriculum reads and `record_ai_usage`.
    pub pool: Pool,
    /// `None`: skeletons only, nothing charged.
    pub provider: Option<Arc<dyn ChatProvider>>,
    /// Longest text asked for one piece (a zone, a selection), in tokens.
    pub piece_max_tokens: u32,
    /// The header a trusted proxy sets with the client's address (`RATE_LIMIT_HEADER`):
    /// visitors' free generations are counted per address too.
    pub address_header: Option<String>,
}

impl NativeFunction for GenerationFunction {
    fn call(&self, invocation: Invocation) -> LocalBoxFuture<'static, HttpResponse> {
        let pool = self.pool.clone();
        let provider = self.provider.clone();
        let kind = self.kind;
        let piece_max_tokens = self.piece_max_tokens;
        let address = client_address(&invocation.request, self.address_header.as_deref());
        Box::pin(async move {
            let streaming = accepts_event_stream(&invocation);
            let with_model = provider.is_some();
            let job = match prepare(kind, &pool, with_model, &address, invocation).await {
                Ok(Prepared::Generate(draft, caller)) => Job {
                    draft,
                    user_id: caller.user_id,
                    request_id: caller.request_id,
                    standing: caller.standing,
                    piece_max_tokens,
                },
                Ok(Prepared::Replay(body)) if streaming => return replay_events(&body),
                Ok(Prepared::Replay(body)) => return HttpResponse::Ok().json(body),
                Err(error) => return error.response(),
            };
            if streaming {
                stream_events(pool, provider, job)
            } else {
                match pipeline::run(&pool, provider, job, &mut |_| {}).await {
                    Ok(body) => HttpResponse::Ok().json(body),
                    Err(error) => error.response(),
                }
            }
        })
    }
}

/// Who asked, under which request id, and what they can spend.
#[derive(Debug)]
struct Caller {
    user_id: Uuid,
    request_id: String,
    standing: charging::Standing,
}

/// What to do with an accepted request.
#[derive(Debug)]
enum Prepared {
    /// Generate.
    Generate(Draft, Caller),
    /// The request id was charged before: answer what was answered then.
    Replay(Value),
}

/// Everything checked before generating: method, user, a replayed request id, body and
/// curriculum, the model, stars (or, for an anonymous visitor at `address`, one of today's
/// free generations).
async fn prepare(
    kind: Kind,
    pool: &Pool,
    with_model: bool,
    address: &str,
    invocation: Invocation,
) -> Result<Prepared, GenerationError> {
    if invocation.request.method() != Method::POST {
        return Err(GenerationError::MethodNotAllowed);
    }
    let user_id = signed_in_user(&invocation).ok_or(GenerationError::NotAuthenticated)?;
    let request_id = request_id(&invocation)?;
    let body = read_body(invocation.body, request::MAX_BODY_BYTES).await?;
    if let Some(answer) = charging::replayed(pool, user_id, &request_id).await? {
        return Ok(Prepared::Replay(answer));
    }
    let draft = kind.prepare(pool, &body).await?;
    if !with_model && !kind.has_skeleton() {
        return Err(GenerationError::ModelUnavailable);
    }
    let standing = charging::standing(pool, user_id)
        .await?
        .ok_or(GenerationError::NotAuthenticated)?;
    if with_model {
        charging::check_can_pay(standing)?;
        if standing == charging::Standing::Visitor {
            charging::claim_visitor_generation(pool, user_id, address).await?;
        }
    }
    Ok(Prepared::Generate(
        draft,
        Caller {
            user_id,
            request_id,
            standing,
        },
    ))
}

/// The user of a signed-in session (an `authenticated` token with a user id), anonymous
/// sign-ins included. The anon and service keys carry no user.
fn signed_in_user(invocation: &Invocation) -> Option<Uuid> {
    let caller = invocation.caller.as_ref()?;
    if caller.anonymous || caller.role != "authenticated" {
        return None;
    }
    let sub = caller.claims.get("sub")?.as_str()?;
    Uuid::parse_str(sub).ok()
}

/// The idempotency key of the charge: the client's `idempotency-key` or `x-request-id`,
/// else the gateway's id of this request (the `x-request-id` it answers and logs).
fn request_id(invocation: &Invocation) -> Result<String, GenerationError> {
    let headers = invocation.request.headers();
    let given = headers
        .get("idempotency-key")
        .or_else(|| headers.get("x-request-id"));
    match given {
        None => Ok(invocation
            .request
            .extensions()
            .get::<RequestId>()
            .map_or_else(|| Uuid::new_v4().to_string(), ToString::to_string)),
        Some(value) => value
            .to_str()
            .ok()
            .map(str::trim)
            .filter(|id| !id.is_empty() && id.len() <= 200)
            .map(str::to_owned)
            .ok_or_else(|| {
                GenerationError::InvalidRequest(
                    "the request id (idempotency-key or x-request-id) must be 1 to 200 visible characters"
                        .into(),
                )
            }),
    }
}

async fn read_body(mut payload: web::Payload, limit: usize) -> Result<Bytes, GenerationError> {
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|error| {
            GenerationError::InvalidRequest(format!("the body could not be read: {error}"))
        })?;
        if body.len() + chunk.len() > limit {
            return Err(GenerationError::InvalidRequest(format!(
                "the body is larger than {limit} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

fn accepts_event_stream(invocation: &Invocation) -> bool {
    invocation
        .request
        .headers()
        .get_all(ACCEPT)
        .filter_map(|value| value.to_str().ok())
        .any(|value| value.contains("text/event-stream"))
}

/// The generation as server-sent events: `skeleton`, `zone_delta`s, then `done` (or
/// `error`). The generation runs on its own task and goes on if the client leaves, so a
/// plan the model finished is charged once, as it would be without streaming.
fn stream_events(pool: Pool, provider: Option<Arc<dyn ChatProvider>>, job: Job) -> HttpResponse {
    let (sender, receiver) = tokio::sync::mpsc::unbounded_channel::<Bytes>();
    actix_web::rt::spawn(async move {
        let events = sender.clone();
        let mut emit = move |event: Event| {
            let _ = events.send(sse(&event));
        };
        if let Err(error) = pipeline::run(&pool, provider, job, &mut emit).await {
            let _ = sender.send(sse_frame("error", &error.body()));
        }
    });
    let body = futures_util::stream::unfold(receiver, |mut receiver| async move {
        let frame = receiver.recv().await?;
        Some((Ok::<_, actix_web::Error>(frame), receiver))
    });
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((CACHE_CONTROL, HeaderValue::from_static("no-cache")))
        .streaming(body)
}

/// A replayed answer as the events a generation streams: its skeleton, then `done`.
fn replay_events(body: &Value) -> HttpResponse {
    let mut skeleton = body.as_object().cloned().unwrap_or_default();
    for generated in ["usage", "model", "source", "request_id"] {
        skeleton.remove(generated);
    }
    let skeleton = Value::Object(skeleton);
    let frames = [
        sse(&Event::Skeleton(skeleton)),
        sse(&Event::Done(body.clone())),
    ];
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((CACHE_CONTROL, HeaderValue::from_static("no-cache")))
        .body(frames.concat())
}

fn sse(event: &Event) -> Bytes {
    match event {
        Event::Skeleton(skeleton) => sse_frame("skeleton", skeleton),
        Event::ZoneDelta { at, text } => {
            let mut data = at.as_object().cloned().unwrap_or_default();
            data.insert("text".into(), Value::String(text.clone()));
            sse_frame("zone_delta", &Value::Object(data))
        }
        Event::Queued { ahead } => sse_frame("queued", &serde_json::json!({ "ahead": ahead })),
        Event::Done(body) => sse_frame("done", body),
    }
}

fn sse_frame(event: &str, data: &Value) -> Bytes {
    Bytes::from(format!("event: {event}\ndata: {data}\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_one_line_of_json() {
        let frame = sse(&Event::ZoneDelta {
            at: serde_json::json!({ "zone": 2 }),
            text: "línea\n".into(),
        });
        let frame = std::str::from_utf8(&frame).unwrap();
        let data = frame
            .strip_prefix("event: zone_delta\ndata: ")
            .and_then(|rest| rest.strip_suffix("\n\n"))
            .unwrap();
        assert!(!data.contains('\n'));
        let data: Value = serde_json::from_str(data).unwrap();
        assert_eq!(data, serde_json::json!({ "zone": 2, "text": "línea\n" }));
    }
}
