//! The embedded model (`AI_PROVIDER=local`): any GGUF file run in-process through llama.cpp
//! (the `llama-cpp-2` crate). One worker thread owns the model: it loads it on the first
//! generation, unloads it after `idle_unload` without work, and takes generations one at a
//! time in the order they came (each is told how many are ahead of it), so concurrent
//! plans take turns zone by zone. Token usage is the model's own tokenizer count. The
//! models Cielo can fetch are listed in [`models`] and fetched by [`fetch`].

pub mod fetch;
pub mod models;
mod worker;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::mpsc;

use super::provider::{ChatEvent, ChatProvider, ChatRequest, ChatStream, ProviderError};

/// How the embedded model runs.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalConfig {
    /// The GGUF file (`AI_MODEL_PATH`).
    pub path: PathBuf,
    /// The name answers and the ledger give the model.
    pub model_name: String,
    /// CPU threads for one generation.
    pub threads: u32,
    /// Longest prompt plus answer, in tokens.
    pub context_tokens: u32,
    /// Unloaded after this long without a generation (`AI_MODEL_IDLE_UNLOAD`).
    pub idle_unload: Duration,
    /// Generations waiting beyond this many are refused as busy (`AI_QUEUE_LIMIT`).
    pub queue_limit: usize,
}

impl LocalConfig {
    /// The settings for the model at `path`, named after its file.
    pub fn new(path: PathBuf) -> Self {
        let model_name = path.file_stem().map_or_else(
            || "local".to_owned(),
            |stem| stem.to_string_lossy().into_owned(),
        );
        let threads =
            std::thread::available_parallelism().map_or(2, |n| u32::try_from(n.get()).unwrap_or(2));
        LocalConfig {
            path,
            model_name,
            threads,
            context_tokens: 4096,
            idle_unload: Duration::from_secs(300),
            queue_limit: 32,
        }
    }
}

/// The embedded model, as a [`ChatProvider`].
#[derive(Debug, Clone)]
pub struct LocalModel {
    shared: Arc<Shared>,
}

/// What callers and the worker thread share.
#[derive(Debug)]
struct Shared {
    config: LocalConfig,
    state: Mutex<QueueState>,
    wake: Condvar,
}

#[derive(Debug, Default)]
struct QueueState {
    waiting: VecDeque<Job>,
    /// A generation is running.
    busy: bool,
    /// The worker thread was started.
    started: bool,
    /// The model is in memory.
    loaded: bool,
    /// Every handle is gone: the worker thread ends.
    closed: bool,
}

/// One generation waiting for, or given to, the worker.
#[derive(Debug)]
struct Job {
    request: ChatRequest,
    events: mpsc::UnboundedSender<Result<ChatEvent, ProviderError>>,
}

impl LocalModel {
    /// The model described by `config`; nothing is loaded until the first generation.
    pub fn new(config: LocalConfig) -> Self {
        LocalModel {
            shared: Arc::new(Shared {
                config,
                state: Mutex::new(QueueState::default()),
                wake: Condvar::new(),
            }),
        }
    }

    /// Whether the model is in memory (for tests and status).
    pub fn is_loaded(&self) -> bool {
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .loaded
    }

    /// Queues `request`; its events arrive on the returned receiver.
    fn enqueue(
        &self,
        request: ChatRequest,
    ) -> mpsc::UnboundedReceiver<Result<ChatEvent, ProviderError>> {
        let (events, receiver) = mpsc::unbounded_channel();
        let mut state = self
            .shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if state.waiting.len() >= self.shared.config.queue_limit {
            let _ = events.send(Err(ProviderError::Upstream {
                status: 503,
                message: "the local model has too many generations waiting".into(),
                kind: None,
                code: Some("busy".into()),
            }));
            return receiver;
        }
        let ahead = state.waiting.len() + usize::from(state.busy);
        if ahead > 0 {
            let _ = events.send(Ok(ChatEvent::Queued { ahead }));
        }
        state.waiting.push_back(Job { request, events });
        if !state.started {
            state.started = true;
            let shared = Arc::clone(&self.shared);
            let spawned = std::thread::Builder::new()
                .name("cielo-local-model".into())
                .spawn(move || worker::run(&shared));
            if let Err(error) = spawned {
                state.started = false;
                for job in state.waiting.drain(..) {
                    let _ = job.events.send(Err(ProviderError::Unreachable(format!(
                        "the local model's thread could not start: {error}"
                    ))));
                }
            }
        }
        drop(state);
        self.shared.wake.notify_one();
        receiver
    }
}

impl Drop for LocalModel {
    fn drop(&mut self) {
        // The worker holds its own `Arc`: the last handle closes the queue so it ends.
        if Arc::strong_count(&self.shared) <= 2 {
            let mut state = self
                .shared
                .state
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            state.closed = true;
            drop(state);
            self.shared.wake.notify_all();
        }
    }
}

impl ChatProvider for LocalModel {
    fn model(&self) -> &str {
        &self.shared.config.model_name
    }

    fn stream_chat(&self, request: ChatRequest) -> ChatStream {
        // Queued on first poll, as the trait promises; dropping the stream closes the
        // channel, which the worker notices between two tokens.
        enum State {
            Pending(LocalModel, Box<ChatRequest>),
            Running(mpsc::UnboundedReceiver<Result<ChatEvent, ProviderError>>),
        }
        let start = State::Pending(self.clone(), Box::new(request));
        Box::pin(futures_util::stream::unfold(start, |state| async move {
            let mut receiver = match state {
                State::Pending(model, request) => model.enqueue(*request),
                State::Running(receiver) => receiver,
            };
            let event = receiver.recv().await?;
            Some((event, State::Running(receiver)))
        }))
    }
}
