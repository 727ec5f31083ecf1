//! The thread that owns the embedded model: it takes the queue's generations in order,
//! loads the model for the first, unloads it after the idle time, and runs each generation
//! token by token, sending its text as it is decoded. One context stays open while the
//! model is loaded, so a prompt that starts like the previous one is read only from where
//! it differs. llama.cpp keeps one process-wide backend, initialised once for every model.

use std::num::NonZeroU32;
use std::sync::{Arc, OnceLock, PoisonError};

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;

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
    // Without a model in memory, wait as long as it takes.
    while let Next::Job(first) = next_job(shared, None) {
        if first.events.is_closed() {
            done(shared);
            continue;
        }
        let model = match load(config) {
            Ok(model) => model,
            Err(error) => {
                let _ = first.events.send(Err(error));
                done(shared);
                continue;
            }
        };
        set_loaded(shared, true);
        let mut session = Session::new(&model, config);
        let mut job = first;
        loop {
            serve(&mut session, config, job);
            done(shared);
            match next_job(shared, Some(config.idle_unload)) {
                Next::Job(next) => job = next,
                Next::Idle | Next::Closed => break,
            }
        }
        drop(session);
        drop(model);
        set_loaded(shared, false);
        tracing::info!(path = %config.path.display(), "local model unloaded after idle time");
    }
}

/// Runs `job` and lets it go: its stream ends when its sender is dropped here.
fn serve(session: &mut Result<Session<'_>, ProviderError>, config: &LocalConfig, job: Job) {
    if job.events.is_closed() {
        return;
    }
    let result = match session {
        Ok(session) => session.generate(config, &job),
        Err(error) => Err(error.clone()),
    };
    if let Err(error) = result {
        let _ = job.events.send(Err(error));
    }
}

/// What the queue gave the worker.
enum Next {
    Job(Job),
    /// Nothing came within the idle time.
    Idle,
    /// Every handle is gone.
    Closed,
}

/// The next generation, waiting at most `idle` (forever when `None`).
fn next_job(shared: &Arc<Shared>, idle: Option<std::time::Duration>) -> Next {
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
            return Next::Job(job);
        }
        if state.closed || Arc::strong_count(shared) == 1 {
            return Next::Closed;
        }
        // Without an idle limit, wake now and then to notice the last handle going.
        let wait = idle.unwrap_or(std::time::Duration::from_secs(60));
        let (guard, waited) = shared
            .wake
            .wait_timeout(state, wait)
            .unwrap_or_else(PoisonError::into_inner);
        state = guard;
        if idle.is_some() && waited.timed_out() && state.waiting.is_empty() {
            return Next::Idle;
        }
    }
}

fn done(shared: &Shared) {
    shared
        .state
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .busy = false;
}

fn set_loaded(shared: &Shared, loaded: bool) {
    shared
        .state
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .loaded = loaded;
}

/// Loads the model file.
fn load(config: &LocalConfig) -> Result<LlamaModel, ProviderError> {
    let started = std::time::Instant::now();
    let backend = backend()?;
    if !config.path.is_file() {
        return Err(ProviderError::Unreachable(format!(
            "the local model file {} does not exist (cielo model fetch)",
            config.path.display()
        )));
    }
    let model = LlamaModel::load_from_file(backend, &config.path, &LlamaModelParams::default())
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
    Ok(model)
}

fn failed(what: &str, error: impl std::fmt::Display) -> ProviderError {
    ProviderError::BadResponse(format!("the local model failed to {what}: {error}"))
}

/// Tokens decoded per call while reading a prompt.
const PROMPT_BATCH: usize = 512;

/// A context kept between generations with the tokens its cache holds: a prompt that
/// starts like the previous one (the zones of one plan share their system message and
/// class) is read only from where it differs.
struct Session<'m> {
    model: &'m LlamaModel,
    ctx: LlamaContext<'m>,
    /// What the cache holds, position by position.
    cached: Vec<LlamaToken>,
    size: u32,
}

impl<'m> Session<'m> {
    fn new(model: &'m LlamaModel, config: &LocalConfig) -> Result<Self, ProviderError> {
        let backend = backend()?;
        let size = config.context_tokens.min(model.n_ctx_train().max(512));
        let threads = i32::try_from(config.threads).unwrap_or(2);
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(size))
            .with_n_batch(PROMPT_BATCH as u32)
            .with_n_threads(threads)
            .with_n_threads_batch(threads);
        let ctx = model
            .new_context(backend, params)
            .map_err(|error| failed("make a context", error))?;
        Ok(Session {
            model,
            ctx,
            cached: Vec::new(),
            size,
        })
    }

    /// Runs one generation, sending its deltas and, last, `Finished`.
    fn generate(&mut self, config: &LocalConfig, job: &Job) -> Result<(), ProviderError> {
        let result = self.generate_inner(config, job);
        if result.is_err() {
            // Whatever the cache holds now is unknown: start the next one from scratch.
            self.ctx.clear_kv_cache();
            self.cached.clear();
        }
        result
    }

    fn generate_inner(&mut self, config: &LocalConfig, job: &Job) -> Result<(), ProviderError> {
        let prompt = render_prompt(self.model, &job.request.messages)?;
        let vocab = self.model.vocab();
        let tokens = vocab.tokenize(prompt.as_bytes(), true, true);
        let prompt_tokens = u32::try_from(tokens.len()).unwrap_or(u32::MAX);
        if prompt_tokens.saturating_add(1) >= self.size {
            return Err(ProviderError::Upstream {
                status: 400,
                message: format!(
                    "the prompt has {prompt_tokens} tokens; the local model's context holds {}",
                    self.size
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
            .min(self.size - prompt_tokens);

        // Keep the common start (at least one token is read again: its logits start the
        // answer).
        let mut common = self
            .cached
            .iter()
            .zip(&tokens)
            .take_while(|(cached, new)| cached == new)
            .count()
            .min(tokens.len() - 1);
        let start = u32::try_from(common).unwrap_or(0);
        let removed = self
            .ctx
            .clear_kv_cache_seq(Some(0), Some(start), None)
            .map_err(|error| failed("reuse its cache", error))?;
        if !removed {
            // This cache cannot drop a part of a sequence: read the whole prompt again.
            self.ctx.clear_kv_cache();
            common = 0;
        }
        self.cached.truncate(common);
        let mut batch = LlamaBatch::new(PROMPT_BATCH, 1);
        for chunk in tokens[common..].chunks(PROMPT_BATCH) {
            batch.clear();
            for token in chunk {
                let position = i32::try_from(self.cached.len()).unwrap_or(i32::MAX);
                let last = self.cached.len() + 1 == tokens.len();
                batch
                    .add(*token, position, &[0], last)
                    .map_err(|error| failed("read the prompt", error))?;
                self.cached.push(*token);
            }
            self.ctx
                .decode(&mut batch)
                .map_err(|error| failed("read the prompt", error))?;
        }

        let mut sampler = sampler(self.model, &job.request);
        let mut text = TextOut::new(&job.request.options.stop);
        let mut completion_tokens = 0u32;
        let mut reason = FinishReason::Length;
        while completion_tokens < budget {
            if job.events.is_closed() {
                // The caller left: stop spending the CPU on it.
                return Ok(());
            }
            let token = sampler.sample(&self.ctx, batch.n_tokens() - 1);
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
            let position = i32::try_from(self.cached.len()).unwrap_or(i32::MAX);
            batch
                .add(token, position, &[0], true)
                .map_err(|error| failed("continue", error))?;
            self.cached.push(token);
            self.ctx
                .decode(&mut batch)
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

/// The sampling chain: repetition kept down (small models fall into loops such as one
/// character written again and again: the frequency penalty grows with each repeat), then
/// temperature; 0 is greedy.
fn sampler(model: &LlamaModel, request: &ChatRequest) -> LlamaSampler {
    let temperature = request.options.temperature.unwrap_or(0.7);
    let penalties = LlamaSampler::penalties(model.n_vocab(), 64, 1.1, 0.3, 0.0);
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
