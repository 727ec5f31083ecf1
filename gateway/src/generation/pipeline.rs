//! One generation from its skeleton to its answer. The skeleton goes out first; with a
//! model, each zone's prose is then asked for in turn and streamed out line by line (each
//! line with its OA codes kept to the requested ones, so what streams is what the answer
//! holds); the tokens are added up and charged once, after the last zone. Without a model
//! the skeleton is the answer and nothing is charged. A generation that fails charges
//! nothing; one that would cost more than a demo's balance stops writing once the balance
//! is reached, leaving the remaining zones as placeholders.

use std::sync::Arc;

use deadpool_postgres::Pool;
use functions::ai::{ChatEvent, ChatOptions, ChatProvider, ChatRequest, Message, Usage, stars};
use futures_util::StreamExt;
use serde_json::{Value, json};
use uuid::Uuid;

use super::charging::{self, Charge, Standing};
use super::codes::keep_requested;
use super::curriculum::Curriculum;
use super::error::GenerationError;
use super::prompt::zone_messages;
use super::request::PlanRequest;
use super::skeleton::Skeleton;

/// What a generation streams as it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The skeleton: `{zones, objective_codes, draft}`.
    Skeleton(Value),
    /// Text written into zone `zone` (its index), in order.
    ZoneDelta { zone: usize, text: String },
    /// The generation waits for the model: this many generations are ahead of it.
    Queued { ahead: usize },
    /// The final answer, the same body a non-streaming request gets.
    Done(Value),
}

/// One accepted request, ready to generate.
#[derive(Debug)]
pub struct Job {
    pub request: PlanRequest,
    pub curriculum: Curriculum,
    pub user_id: Uuid,
    pub request_id: String,
    pub standing: Standing,
    /// Longest prose asked for one zone, in tokens.
    pub zone_max_tokens: u32,
}

/// Runs `job`, passing every [`Event`] to `emit`; the final body.
pub async fn run(
    pool: &Pool,
    provider: Option<Arc<dyn ChatProvider>>,
    job: Job,
    emit: &mut dyn FnMut(Event),
) -> Result<Value, GenerationError> {
    let skeleton = Skeleton::compose(&job.request, &job.curriculum);
    emit(Event::Skeleton(json!({
        "zones": skeleton.render(&[]),
        "objective_codes": skeleton.objective_codes,
        "draft": true,
    })));

    let body = match provider {
        None => answer(&skeleton, &[], Usage::default(), 0, None, &job.request_id),
        Some(provider) => {
            let written = write_zones(provider.as_ref(), &job, &skeleton, emit).await?;
            let produced = written
                .prose
                .iter()
                .flatten()
                .any(|text| !text.trim().is_empty());
            let reply = |stars_charged| {
                answer(
                    &skeleton,
                    &written.prose,
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
                    feature: charging::FEATURE_PLAN,
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

/// The answer's body.
fn answer(
    skeleton: &Skeleton,
    prose: &[Option<String>],
    usage: Usage,
    stars_charged: i64,
    model: Option<&str>,
    request_id: &str,
) -> Value {
    json!({
        "zones": skeleton.render(prose),
        "objective_codes": skeleton.objective_codes,
        "usage": {
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "stars_charged": stars_charged,
        },
        "model": model,
        "draft": true,
        "source": if model.is_some() { "model" } else { "skeleton" },
        "request_id": request_id,
    })
}

/// The prose a model wrote, zone by zone, and what it cost.
struct Written {
    prose: Vec<Option<String>>,
    usage: Usage,
    model: String,
}

async fn write_zones(
    provider: &dyn ChatProvider,
    job: &Job,
    skeleton: &Skeleton,
    emit: &mut dyn FnMut(Event),
) -> Result<Written, GenerationError> {
    let budget = match job.standing {
        Standing::Demo { remaining } => Some(u64::try_from(remaining).unwrap_or(0)),
        Standing::NotInDemo => None,
    };
    let mut written = Written {
        prose: vec![None; skeleton.zones.len()],
        usage: Usage::default(),
        model: provider.model().to_owned(),
    };
    for (index, zone) in skeleton.zones.iter().enumerate() {
        if budget.is_some_and(|budget| stars::stars_for_usage(written.usage) >= budget) {
            break;
        }
        let messages = zone_messages(zone.kind, &job.request, &job.curriculum, skeleton);
        let (text, usage, model) = write_zone(
            provider,
            messages,
            job.zone_max_tokens,
            index,
            &skeleton.objective_codes,
            emit,
        )
        .await?;
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

/// One zone: its text (codes kept to `allowed`), the tokens and the model that answered.
async fn write_zone(
    provider: &dyn ChatProvider,
    messages: Vec<Message>,
    max_tokens: u32,
    zone: usize,
    allowed: &[String],
    emit: &mut dyn FnMut(Event),
) -> Result<(String, Usage, String), GenerationError> {
    let prompt_chars: usize = messages.iter().map(|m| m.content.chars().count()).sum();
    let mut stream = provider.stream_chat(ChatRequest {
        messages,
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
        emit(Event::ZoneDelta { zone, text: line });
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
