//! AI text generation for the product's functions: which language model answers
//! ([`AiSettings`], from `AI_PROVIDER` and the `AI_*` settings), the provider abstraction
//! the generation pipeline streams from ([`provider`]), the OpenAI-compatible client
//! ([`openai`]) and the Estrellas Cielo arithmetic that turns reported tokens into stars
//! ([`stars`]). The embedded model (`AI_PROVIDER=local`) is not available yet: with it, as
//! with `none`, [`AiSettings::provider`] gives no provider and generation returns the
//! curriculum skeleton alone, charging nothing.

pub mod openai;
pub mod provider;
pub mod stars;

use std::sync::Arc;

pub use openai::{InvalidConfig, OpenAiClient, OpenAiConfig, Timeouts};
pub use provider::{
    ChatEvent, ChatOptions, ChatProvider, ChatRequest, ChatStream, Completion, FinishReason,
    Message, ProviderError, Role, TimeoutPhase, Usage, collect,
};

/// Which model writes generated text (`AI_PROVIDER`).
#[derive(Debug, Clone, Default)]
pub enum AiSettings {
    /// No model: generation returns the skeleton alone and charges nothing.
    None,
    /// The model embedded in the gateway. Not available yet: behaves as [`AiSettings::None`].
    #[default]
    Local,
    /// An OpenAI-compatible chat-completions server.
    OpenAi(OpenAiConfig),
}

impl AiSettings {
    /// The provider these settings name, or `None` when generation has no model.
    pub fn provider(&self) -> Result<Option<Arc<dyn ChatProvider>>, InvalidConfig> {
        match self {
            AiSettings::None | AiSettings::Local => Ok(None),
            AiSettings::OpenAi(config) => Ok(Some(Arc::new(OpenAiClient::new(config.clone())?))),
        }
    }

    /// The name `AI_PROVIDER` gives these settings.
    pub fn name(&self) -> &'static str {
        match self {
            AiSettings::None => "none",
            AiSettings::Local => "local",
            AiSettings::OpenAi(_) => "openai",
        }
    }
}
