//! AI text generation for the product's functions: which language model answers
//! ([`AiSettings`], from `AI_PROVIDER` and the `AI_*` settings), the provider abstraction
//! the generation pipeline streams from ([`provider`]), the OpenAI-compatible client
//! ([`openai`]), the embedded llama.cpp model and the models it can fetch ([`local`]), and
//! the Estrellas Cielo arithmetic that turns reported tokens into stars ([`stars`]). With
//! `none`, or `local` without its model file, [`AiSettings::provider`] gives no provider
//! and generation returns the curriculum skeleton alone, charging nothing.

pub mod local;
pub mod openai;
pub mod provider;
pub mod stars;

use std::sync::Arc;

pub use local::{LocalConfig, LocalModel};
pub use openai::{InvalidConfig, OpenAiClient, OpenAiConfig, Timeouts};
pub use provider::{
    ChatEvent, ChatOptions, ChatProvider, ChatRequest, ChatStream, Completion, FinishReason,
    Message, ProviderError, Role, TimeoutPhase, Usage, collect,
};

/// Which model writes generated text (`AI_PROVIDER`).
#[derive(Debug, Clone)]
pub enum AiSettings {
    /// No model: generation returns the skeleton alone and charges nothing.
    None,
    /// The GGUF model run in the gateway's process.
    Local(LocalConfig),
    /// An OpenAI-compatible chat-completions server.
    OpenAi(OpenAiConfig),
}

impl AiSettings {
    /// The provider these settings name, or `None` when generation has no model (the
    /// local model's file is missing: it is said once, in the log).
    pub fn provider(&self) -> Result<Option<Arc<dyn ChatProvider>>, InvalidConfig> {
        match self {
            AiSettings::None => Ok(None),
            AiSettings::Local(config) if !config.path.is_file() => {
                tracing::warn!(
                    path = %config.path.display(),
                    "no model file: generation returns curriculum skeletons only (`cielo model fetch` gets the default model)"
                );
                Ok(None)
            }
            AiSettings::Local(config) => Ok(Some(Arc::new(LocalModel::new(config.clone())))),
            AiSettings::OpenAi(config) => Ok(Some(Arc::new(OpenAiClient::new(config.clone())?))),
        }
    }

    /// The name `AI_PROVIDER` gives these settings.
    pub fn name(&self) -> &'static str {
        match self {
            AiSettings::None => "none",
            AiSettings::Local(_) => "local",
            AiSettings::OpenAi(_) => "openai",
        }
    }
}
