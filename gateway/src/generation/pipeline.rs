//! One generation from its skeleton to its answer, whatever the function: a [`Draft`] says
//! what code composed (rendered with placeholders first, streamed at once) and which
//! pieces of text a model writes. With a model, each piece is asked for in turn and
//! streamed out line by line (each line with its OA codes kept to the piece's allowed ones,
//! so what streams is what the answer holds); the tokens are added up and charged once,
//! after the last piece, and the answer is stored with the charge. Without a model the
//! skeleton is the answer and nothing is charged. A generation that fails charges nothing;
//! one that would cost more than a demo's balance stops writing once the balance is
//! reached, leaving the remaining pieces as placeholders.

use std::sync::Arc;

use deadpool_postgres::Pool;
use functions::ai::{ChatEvent, ChatOptions, ChatProvider, ChatRequest, Message, Usage, stars};
use futures_util::StreamExt;
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::charging::{self, Charge, Standing};
use super::codes::keep_requested;
use super::error::GenerationError;

/// What a generation streams as it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The answer's shape with placeholders (e.g. `{zones, objective_codes, draft}`).
    Skeleton(Value),
    /// The generation waits for the model: this many generations are ahead of it.
    Queued { ahead: usize },
    /// Text written into the piece `at` (e.g. `{"zone": 2}`), in order.
    ZoneDelta { at: Value, text: String },
    /// The final answer, the same body a non-streaming request gets.
    Done(Value),
}

/// One text a model writes.
#[derive(Debug, Clone)]
pub struct Piece {
    /// Where it goes, as its stream events say: `{"zone": i}`, `{"class": c, "zone": z}`.
    pub at: Value,
    pub messages: Vec<Message>,
    /// The only OA codes it may carry (official spelling).
    pub allowed: Vec<String>,
}

/// Builds the answer's own fields from the text written for each piece (by index; `None`
/// or blank where nothing was written).
pub type Render = Box<dyn Fn(&[Option<String>]) -> Map<String, Value> + Send>;

/// What a function prepared: its ledger feature, the pieces a model writes and how the
/// answer is composed around them.
pub struct Draft {
    pub feature: &'static str,
    pub pieces: Vec<Piece>,
    pub render: Render,
}

impl std::fmt::Debug for Draft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Draft")
            .field("feature", &self.feature)
            .field("pieces", &self.pieces.len())
            .finish_non_exhaustive()
    }
}

/// One accepted request, ready to generate.
#[derive(Debug)]
pub struct Job {
    pub draft: Draft,
    pub user_id: Uuid,
    pub request_id: String,
    pub standing: Standing,
    /// Longest text asked for one piece, in tokens.
    pub piece_max_tokens: u32,
}

/// Runs `job`, passing every [`Event`] to `emit`; the final body.
pub async fn run(
    pool: &Pool,
    provider: Option<Arc<dyn ChatProvider>>,
    job: Job,
    emit: &mut dyn FnMut(Event),
) -> Result<Value, GenerationError> {
    let mut skeleton = (job.draft.render)(&[]);
    skeleton.insert("draft".into(), Value::Bool(true));
    emit(Event::Skeleton(Value::Object(skeleton)));

    let body = match provider {
        None => answer(
            (job.draft.render)(&[]),
            Usage::default(),
            0,
            None,
            &job.request_id,
        ),
        Some(provider) => {
            let written = write_pieces(provider.as_ref(), &job, emit).await?;
            let produced = written
                .prose
                .iter()
                .flatten()
                .any(|text| !text.trim().is_empty());
            let fields = (job.draft.render)(&written.prose);
            let reply = |stars_charged| {
                answer(
                    fields.clone(),
                    written.usage,
                    stars_charged,
                    Some(&written.model),
                    &job.request_id,
                )
            };
            // A generation that produced no text is not recorded: nothing to pay for.
            if !produced {
                reply(0)
            } else {
                let charge = Charge {
                    user_id: job.user_id,
                    request_id: &job.request_id,
                    feature: job.draft.feature,
                    prompt_tokens: written.usage.prompt_tokens,
                    completion_tokens: written.usage.completion_tokens,
                    model: &written.model,
                };
                charging::record(pool, &charge, reply).await?
            }
        }
    };
    emit(Event::Done(body.clone()));
    Ok(body)
}

/// The answer's body: the function's fields, then what every generation answers.
fn answer(
    mut fields: Map<String, Value>,
    usage: Usage,
    stars_charged: i64,
    model: Option<&str>,
    request_id: &str,
) -> Value {
    fields.insert(
        "usage".into(),
        json!({
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "stars_charged": stars_charged,
        }),
    );
    fields.insert("model".into(), json!(model));
    fields.insert("draft".into(), Value::Bool(true));
    fields.insert(
        "source".into(),
        json!(if model.is_some() { "model" } else { "skeleton" }),
    );
    fields.insert("request_id".into(), json!(request_id));
    Value::Object(fields)
}

/// The text a model wrote, piece by piece, and what it cost.
struct Written {
    prose: Vec<Option<String>>,
    usage: Usage,
    model: String,
}

async fn write_pieces(
    provider: &dyn ChatProvider,
    job: &Job,
    emit: &mut dyn FnMut(Event),
) -> Result<Written, GenerationError> {
    let budget = job.standing.budget();
    let pieces = &job.draft.pieces;
    let mut written = Written {
        prose: vec![None; pieces.len()],
        usage: Usage::default(),
        model: provider.model().to_owned(),
    };
    for (index, piece) in pieces.iter().enumerate() {
        if budget.is_some_and(|budget| stars::stars_for_usage(written.usage) >= budget) {
            break;
        }
        let (text, usage, model) = write_piece(provider, piece, job.piece_max_tokens, emit).await?;
        written.usage.prompt_tokens = written
            .usage
            .prompt_tokens
            .saturating_add(usage.prompt_tokens);
        written.usage.completion_tokens = written
            .usage
            .completion_tokens
            .saturating_add(usage.completion_tokens);
        if index == 0 {
            written.model = model;
        }
        written.prose[index] = Some(text);
    }
    Ok(written)
}

/// One piece: its text (codes kept to the allowed ones), the tokens and the model that
/// answered.
async fn write_piece(
    provider: &dyn ChatProvider,
    piece: &Piece,
    max_tokens: u32,
    emit: &mut dyn FnMut(Event),
) -> Result<(String, Usage, String), GenerationError> {
    let allowed = piece.allowed.as_slice();
    let prompt_chars: usize = piece
        .messages
        .iter()
        .map(|m| m.content.chars().count())
        .sum();
    let mut stream = provider.stream_chat(ChatRequest {
        messages: piece.messages.clone(),
        options: ChatOptions {
            max_tokens: Some(max_tokens),
            temperature: Some(0.7),
            ..ChatOptions::default()
        },
    });
    let mut raw_chars = 0usize;
    let mut pending = String::new();
    let mut text = String::new();
    let flush = |line: &str, text: &mut String, emit: &mut dyn FnMut(Event)| {
        let line = keep_requested(line, allowed);
        text.push_str(&line);
        emit(Event::ZoneDelta {
            at: piece.at.clone(),
            text: line,
        });
    };
    while let Some(event) = stream.next().await {
        match event.map_err(GenerationError::Provider)? {
            ChatEvent::Queued { ahead } => emit(Event::Queued { ahead }),
            ChatEvent::Delta(delta) => {
                raw_chars += delta.chars().count();
                pending.push_str(&delta);
                // Whole lines only: a code is never split across two checks.
                while let Some(end) = pending.find('\n') {
                    let line: String = pending.drain(..=end).collect();
                    flush(&line, &mut text, emit);
                }
            }
            ChatEvent::Finished { usage, model, .. } => {
                if !pending.is_empty() {
                    let rest = std::mem::take(&mut pending);
                    flush(&rest, &mut text, emit);
                }
                // Without a reported usage, tokens are estimated at one per four
                // characters, rounded up: about what tokenizers give for Spanish prose,
                // so the charge stays close to the real one.
                let usage = usage.unwrap_or(Usage {
                    prompt_tokens: estimate_tokens(prompt_chars),
                    completion_tokens: estimate_tokens(raw_chars),
                });
                return Ok((text, usage, model));
            }
        }
    }
    Err(GenerationError::Provider(
        functions::ai::ProviderError::BadResponse("the stream ended without finishing".into()),
    ))
}

fn estimate_tokens(chars: usize) -> u32 {
    u32::try_from(chars.div_ceil(4)).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_round_up() {
        assert_eq!(estimate_tokens(0), 0);
        assert_eq!(estimate_tokens(1), 1);
        assert_eq!(estimate_tokens(8), 2);
        assert_eq!(estimate_tokens(9), 3);
    }
}
