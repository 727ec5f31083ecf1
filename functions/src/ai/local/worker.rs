//! The thread that owns the embedded model: it takes the queue's generations in order,
//! loads the model for the first, unloads it after the idle time, and runs each generation
//! token by token, sending its text as it is decoded. llama.cpp keeps one process-wide
//! backend, initialised once for every model.

use std::num::NonZeroU32;
use std::sync::{Arc, OnceLock, PoisonError};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;

use super::{Job, LocalConfig, Shared};
use crate::ai::provider::{
    ChatEvent, ChatRequest, FinishReason, Message, ProviderError, Role, Usage,
};

/// Answer length when a request sets none.
const DEFAULT_MAX_TOKENS: u32 = 512;

/// The process's llama.cpp backend (it may be initialised only once).
fn backend() -> Result<&'static LlamaBackend, ProviderError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            // llama.cpp's own logging goes through `tracing`, not straight to stderr.
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
            LlamaBackend::init().map_err(|error| error.to_string())
        })
        .as_ref()
        .map_err(|error| ProviderError::Unreachable(format!("llama.cpp did not start: {error}")))
}

/// The worker's loop; returns when every handle of the model is gone.
pub(super) fn run(shared: &Arc<Shared>) {
    let config = &shared.config;
    let mut model: Option<LlamaModel> = None;
    loop {
        let Some(job) = next_job(shared, &mut model) else {
            return;
        };
        if !job.events.is_closed() {
            match loaded(config, &mut model, shared) {
                Ok(model) => {
                    if let Err(error) = generate(model, config, &job) {
                        let _ = job.events.send(Err(error));
                    }
                }
                Err(error) => {
                    let _ = job.events.send(Err(error));
                }
            }
        }
        let mut state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.busy = false;
    }
}

/// Waits for the next generation, unloading the model when none comes for the idle time;
/// `None` when the queue is closed.
fn next_job(shared: &Arc<Shared>, model: &mut Option<LlamaModel>) -> Option<Job> {
    let mut state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if let Some(job) = state.waiting.pop_front() {
            state.busy = true;
            // Everyone still waiting moves up one place.
            for (index, waiting) in state.waiting.iter().enumerate() {
                let _ = waiting
                    .events
                    .send(Ok(ChatEvent::Queued { ahead: index + 1 }));
            }
            return Some(job);
        }
        if state.closed || Arc::strong_count(shared) == 1 {
            return None;
        }
        let (guard, waited) = shared
            .wake
            .wait_timeout(state, shared.config.idle_unload)
            .unwrap_or_else(PoisonError::into_inner);
        state = guard;
        if waited.timed_out() && state.waiting.is_empty() && model.take().is_some() {
            state.loaded = false;
            tracing::info!(path = %shared.config.path.display(), "local model unloaded after idle time");
        }
    }
}

/// The model, loaded now if it is not in memory.
fn loaded<'m>(
    config: &LocalConfig,
    model: &'m mut Option<LlamaModel>,
    shared: &Shared,
) -> Result<&'m LlamaModel, ProviderError> {
    if model.is_none() {
        let started = std::time::Instant::now();
        let backend = backend()?;
        if !config.path.is_file() {
            return Err(ProviderError::Unreachable(format!(
                "the local model file {} does not exist (cielo model fetch)",
                config.path.display()
            )));
        }
        let loaded =
            LlamaModel::load_from_file(backend, &config.path, &LlamaModelParams::default())
                .map_err(|error| {
                    ProviderError::Unreachable(format!(
                        "the local model {} could not be loaded: {error}",
                        config.path.display()
                    ))
                })?;
        tracing::info!(
            path = %config.path.display(),
            elapsed_ms = started.elapsed().as_millis(),
            "local model loaded"
        );
        *model = Some(loaded);
        shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .loaded = true;
    }
    model
        .as_ref()
        .ok_or_else(|| ProviderError::Unreachable("the local model is not loaded".into()))
}

fn failed(what: &str, error: impl std::fmt::Display) -> ProviderError {
    ProviderError::BadResponse(format!("the local model failed to {what}: {error}"))
}

/// Runs one generation, sending its deltas and, last, `Finished`.
fn generate(model: &LlamaModel, config: &LocalConfig, job: &Job) -> Result<(), ProviderError> {
    let backend = backend()?;
    let prompt = render_prompt(model, &job.request.messages)?;
    let vocab = model.vocab();
    let tokens = vocab.tokenize(prompt.as_bytes(), true, true);
    let context = config.context_tokens.min(model.n_ctx_train().max(512));
    let prompt_tokens = u32::try_from(tokens.len()).unwrap_or(u32::MAX);
    if prompt_tokens.saturating_add(1) >= context {
        return Err(ProviderError::Upstream {
            status: 400,
            message: format!(
                "the prompt has {prompt_tokens} tokens; the local model's context holds {context}"
            ),
            kind: Some("invalid_request_error".into()),
            code: Some("context_length_exceeded".into()),
        });
    }
    let budget = job
        .request
        .options
        .max_tokens
        .unwrap_or(DEFAULT_MAX_TOKENS)
        .min(context - prompt_tokens);
    let threads = i32::try_from(config.threads).unwrap_or(2);
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(prompt_tokens + budget))
        .with_n_batch(prompt_tokens.max(1))
        .with_n_threads(threads)
        .with_n_threads_batch(threads);
    let mut ctx = model
        .new_context(backend, params)
        .map_err(|error| failed("make a context", error))?;

    let mut batch = LlamaBatch::new(tokens.len().max(1), 1);
    let last = tokens.len().saturating_sub(1);
    for (position, token) in tokens.iter().enumerate() {
        let position_i32 = i32::try_from(position).unwrap_or(i32::MAX);
        batch
            .add(*token, position_i32, &[0], position == last)
            .map_err(|error| failed("read the prompt", error))?;
    }
    ctx.decode(&mut batch)
        .map_err(|error| failed("read the prompt", error))?;

    let mut sampler = sampler(model, &job.request);
    let mut text = TextOut::new(&job.request.options.stop);
    let mut position = i32::try_from(tokens.len()).unwrap_or(i32::MAX);
    let mut completion_tokens = 0u32;
    let mut reason = FinishReason::Length;
    while completion_tokens < budget {
        if job.events.is_closed() {
            // The caller left: stop spending the CPU on it.
            return Ok(());
        }
        let token = sampler.sample(&ctx, batch.n_tokens() - 1);
        completion_tokens += 1;
        if vocab.is_eog(token) {
            reason = FinishReason::Stop;
            break;
        }
        let piece = vocab.token_to_piece(token, false, None);
        let (delta, stopped) = text.push(&piece);
        if !delta.is_empty() {
            let _ = job.events.send(Ok(ChatEvent::Delta(delta)));
        }
        if stopped {
            reason = FinishReason::Stop;
            break;
        }
        batch.clear();
        batch
            .add(token, position, &[0], true)
            .map_err(|error| failed("continue", error))?;
        position += 1;
        ctx.decode(&mut batch)
            .map_err(|error| failed("continue", error))?;
    }
    let rest = text.finish();
    if !rest.is_empty() {
        let _ = job.events.send(Ok(ChatEvent::Delta(rest)));
    }
    let _ = job.events.send(Ok(ChatEvent::Finished {
        reason: Some(reason),
        usage: Some(Usage {
            prompt_tokens,
            completion_tokens,
        }),
        model: config.model_name.clone(),
    }));
    Ok(())
}

/// The conversation in the model's own chat template (ChatML when it has none).
fn render_prompt(model: &LlamaModel, messages: &[Message]) -> Result<String, ProviderError> {
    let role = |role: Role| match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    if let Ok(template) = model.chat_template(None) {
        let chat = messages
            .iter()
            .map(|message| {
                LlamaChatMessage::new(role(message.role).into(), message.content.clone())
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| failed("read the conversation", error))?;
        if let Ok(prompt) = model.apply_chat_template(&template, &chat, true) {
            return Ok(prompt);
        }
    }
    let mut prompt = String::new();
    for message in messages {
        prompt.push_str(&format!(
            "<|im_start|>{}\n{}<|im_end|>\n",
            role(message.role),
            message.content
        ));
    }
    prompt.push_str("<|im_start|>assistant\n");
    Ok(prompt)
}

/// The sampling chain: repetition kept down (small models loop), then temperature; 0 is
/// greedy.
fn sampler(model: &LlamaModel, request: &ChatRequest) -> LlamaSampler {
    let temperature = request.options.temperature.unwrap_or(0.7);
    let penalties = LlamaSampler::penalties(model.n_vocab(), 64, 1.1, 0.0, 0.0);
    if temperature <= 0.0 {
        return LlamaSampler::chain_simple([penalties, LlamaSampler::greedy()]);
    }
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.subsec_nanos());
    LlamaSampler::chain_simple([
        penalties,
        LlamaSampler::top_k(40),
        LlamaSampler::top_p(0.95, 1),
        LlamaSampler::min_p(0.05, 1),
        LlamaSampler::temp(temperature),
        LlamaSampler::dist(seed),
    ])
}

/// The answer's text as tokens arrive: bytes held until they make whole UTF-8 characters,
/// and text held while it could still become a stop sequence.
#[derive(Debug)]
struct TextOut<'s> {
    bytes: Vec<u8>,
    held: String,
    stops: &'s [String],
}

impl<'s> TextOut<'s> {
    fn new(stops: &'s [String]) -> Self {
        TextOut {
            bytes: Vec::new(),
            held: String::new(),
            stops,
        }
    }

    /// Adds a token's bytes; the text that may go out now, and whether a stop sequence
    /// was met (the answer ends before it).
    fn push(&mut self, piece: &[u8]) -> (String, bool) {
        self.bytes.extend_from_slice(piece);
        let valid = match std::str::from_utf8(&self.bytes) {
            Ok(text) => text.len(),
            // An invalid sequence (not just an unfinished one) is replaced, not kept forever.
            Err(error) if error.error_len().is_some() => {
                let text = String::from_utf8_lossy(&self.bytes).into_owned();
                self.bytes.clear();
                self.held.push_str(&text);
                return self.release();
            }
            Err(error) => error.valid_up_to(),
        };
        let complete: Vec<u8> = self.bytes.drain(..valid).collect();
        self.held.push_str(&String::from_utf8_lossy(&complete));
        self.release()
    }

    fn release(&mut self) -> (String, bool) {
        if let Some(at) = self
            .stops
            .iter()
            .filter(|stop| !stop.is_empty())
            .filter_map(|stop| self.held.find(stop.as_str()))
            .min()
        {
            let out = self.held[..at].to_owned();
            self.held.clear();
            return (out, true);
        }
        // Keep the longest end of the text that a stop sequence starts with.
        let keep = self
            .stops
            .iter()
            .flat_map(|stop| {
                (1..stop.len())
                    .filter(|&n| stop.is_char_boundary(n) && self.held.ends_with(&stop[..n]))
                    .max()
            })
            .max()
            .unwrap_or(0);
        let out_len = self.held.len() - keep;
        let out = self.held[..out_len].to_owned();
        self.held.drain(..out_len);
        (out, false)
    }

    /// What is still held when the answer ends.
    fn finish(&mut self) -> String {
        let mut rest = std::mem::take(&mut self.held);
        rest.push_str(&String::from_utf8_lossy(&self.bytes));
        self.bytes.clear();
        rest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_split_across_tokens_come_out_whole() {
        let mut out = TextOut::new(&[]);
        let bytes = "ñandú".as_bytes();
        assert_eq!(out.push(&bytes[..1]), (String::new(), false));
        assert_eq!(out.push(&bytes[1..4]), ("ñan".to_owned(), false));
        assert_eq!(out.push(&bytes[4..6]), ("d".to_owned(), false));
        assert_eq!(out.push(&bytes[6..]), ("ú".to_owned(), false));
        assert_eq!(out.finish(), "");
    }

    #[test]
    fn text_stops_before_a_stop_sequence_even_across_tokens() {
        let stops = vec!["###".to_owned()];
        let mut out = TextOut::new(&stops);
        assert_eq!(out.push(b"hola #"), ("hola ".to_owned(), false));
        assert_eq!(out.push(b"# no"), ("## no".to_owned(), false));
        assert_eq!(out.push(b" ##"), (" ".to_owned(), false));
        assert_eq!(out.push(b"# fin"), (String::new(), true));
    }

    #[test]
    fn held_text_is_released_at_the_end() {
        let stops = vec!["FIN".to_owned()];
        let mut out = TextOut::new(&stops);
        assert_eq!(out.push(b"casi F"), ("casi ".to_owned(), false));
        assert_eq!(out.finish(), "F");
    }
}
