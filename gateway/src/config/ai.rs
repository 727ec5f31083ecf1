//! [`AiSettings`] from the `AI_*` variables: which provider writes generated text and, for
//! an OpenAI-compatible server, where it is, its key and how long each wait may last.

use std::path::Path;
use std::time::Duration;

use actix_web::http::header::{HeaderName, HeaderValue};
use functions::ai::local::models::DEFAULT_MODEL;
use functions::ai::{AiSettings, LocalConfig, OpenAiConfig, Timeouts};
use secrecy::{ExposeSecret, SecretString};

use super::variables::{self as var, Variable};
use super::{ConfigError, Vars, parse_url};

/// OpenAI's own API, where `AI_PROVIDER=openai` goes without an `AI_BASE_URL`.
const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

pub(super) fn parse_ai(vars: &Vars<'_>, data_dir: &Path) -> Result<AiSettings, ConfigError> {
    let base_url = vars.get(&var::AI_BASE_URL);
    let provider = match vars.find(&var::AI_PROVIDER) {
        Some((name, raw)) => match raw.to_ascii_lowercase().as_str() {
            "openai" => "openai",
            "local" => "local",
            "none" => "none",
            other => {
                return Err(ConfigError {
                    name,
                    reason: format!("{other:?}: expected openai, local or none"),
                });
            }
        },
        None if base_url.is_some() => "openai",
        None => "local",
    };
    match provider {
        "none" => Ok(AiSettings::None),
        "local" => local(vars, data_dir).map(AiSettings::Local),
        _ => openai(vars, base_url).map(AiSettings::OpenAi),
    }
}

/// The index models are fetched from; `/`-terminated, as relative project pages need.
pub(super) fn parse_model_index_url(vars: &Vars<'_>) -> Result<String, ConfigError> {
    let mut url = vars
        .get(&var::AI_MODEL_INDEX_URL)
        .unwrap_or_else(|| functions::ai::local::fetch::DEFAULT_INDEX_URL.to_owned());
    parse_url(var::AI_MODEL_INDEX_URL.name(), &url)?;
    if !url.ends_with('/') {
        url.push('/');
    }
    Ok(url)
}

/// The default model's place: `$DATA_DIR/models/<its file>`, where `cielo model fetch`
/// puts it.
pub fn default_model_path(data_dir: &Path) -> std::path::PathBuf {
    data_dir.join("models").join(DEFAULT_MODEL.file_name)
}

fn local(vars: &Vars<'_>, data_dir: &Path) -> Result<LocalConfig, ConfigError> {
    let path = vars
        .get(&var::AI_MODEL_PATH)
        .map_or_else(|| default_model_path(data_dir), Into::into);
    let mut config = LocalConfig::new(path);
    if let Some(name) = vars.get(&var::AI_MODEL) {
        config.model_name = name;
    }
    let threads = vars.parse_within(&var::AI_THREADS, config.threads as usize, 256)?;
    config.threads = u32::try_from(threads).unwrap_or(1);
    let context = vars.parse_within(
        &var::AI_CONTEXT_TOKENS,
        config.context_tokens as usize,
        131_072,
    )?;
    if context < 512 {
        return Err(ConfigError {
            name: var::AI_CONTEXT_TOKENS.name(),
            reason: format!("{context}: must be at least 512"),
        });
    }
    config.context_tokens = u32::try_from(context).unwrap_or(4096);
    config.idle_unload = timeout(vars, &var::AI_MODEL_IDLE_UNLOAD, config.idle_unload)?;
    config.queue_limit = vars.parse_within(&var::AI_QUEUE_LIMIT, config.queue_limit, 10_000)?;
    Ok(config)
}

fn openai(vars: &Vars<'_>, base_url: Option<String>) -> Result<OpenAiConfig, ConfigError> {
    let base_url = base_url.unwrap_or_else(|| OPENAI_BASE_URL.to_owned());
    parse_url(var::AI_BASE_URL.name(), &base_url)?;
    let Some(model) = vars.get(&var::AI_MODEL) else {
        return Err(ConfigError {
            name: var::AI_MODEL.name(),
            reason: "must name the model to ask for when AI_PROVIDER is openai".into(),
        });
    };
    let defaults = Timeouts::default();
    let mut config = OpenAiConfig::new(base_url, model);
    config.api_key = vars.get(&var::AI_API_KEY).map(SecretString::from);
    config.api_key_header = vars.get(&var::AI_API_KEY_HEADER);
    if let Some(header) = &config.api_key_header
        && HeaderName::try_from(header.as_str()).is_err()
    {
        return Err(ConfigError {
            name: var::AI_API_KEY_HEADER.name(),
            reason: format!("{header:?} is not a header name"),
        });
    }
    if let Some(key) = &config.api_key
        && HeaderValue::try_from(key.expose_secret()).is_err()
    {
        return Err(ConfigError {
            name: var::AI_API_KEY.name(),
            reason: "must be printable ASCII".into(),
        });
    }
    config.api_version = vars.get(&var::AI_API_VERSION);
    config.timeouts = Timeouts {
        connect: timeout(vars, &var::AI_CONNECT_TIMEOUT, defaults.connect)?,
        first_byte: timeout(vars, &var::AI_FIRST_BYTE_TIMEOUT, defaults.first_byte)?,
        idle: timeout(vars, &var::AI_IDLE_TIMEOUT, defaults.idle)?,
        total: timeout(vars, &var::AI_TIMEOUT, defaults.total)?,
    };
    config.max_retries = vars.parse(&var::AI_MAX_RETRIES, config.max_retries)?;
    // Fail at start rather than at the first generation.
    functions::ai::OpenAiClient::new(config.clone()).map_err(|error| ConfigError {
        name: var::AI_BASE_URL.name(),
        reason: error.0,
    })?;
    Ok(config)
}

/// A duration that is not zero: a zero wait would fail every generation.
fn timeout(
    vars: &Vars<'_>,
    variable: &Variable,
    default: Duration,
) -> Result<Duration, ConfigError> {
    let value = vars.duration(variable, default)?;
    if value.is_zero() {
        return Err(ConfigError {
            name: variable.name(),
            reason: "must be more than 0".into(),
        });
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::Settings;
    use super::*;

    fn ai(pairs: &[(&str, &str)]) -> Result<AiSettings, ConfigError> {
        let map: HashMap<&str, &str> = pairs.iter().copied().collect();
        Settings::from_lookup(|name| map.get(name).map(|value| (*value).to_owned()))
            .map(|settings| settings.ai)
    }

    fn openai(pairs: &[(&str, &str)]) -> OpenAiConfig {
        match ai(pairs) {
            Ok(AiSettings::OpenAi(config)) => config,
            other => panic!("expected openai settings, got {other:?}"),
        }
    }

    #[test]
    fn nothing_configured_is_the_local_model() {
        match ai(&[("DATA_DIR", "/srv/cielo")]) {
            Ok(AiSettings::Local(config)) => {
                assert_eq!(
                    config.path,
                    Path::new("/srv/cielo/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
                );
                assert_eq!(config.model_name, "qwen2.5-coder-1.5b-instruct-q4_k_m");
            }
            other => panic!("expected local settings, got {other:?}"),
        }
        match ai(&[
            ("AI_MODEL_PATH", "/m/tiny.gguf"),
            ("AI_QUEUE_LIMIT", "3"),
            ("AI_MODEL_IDLE_UNLOAD", "2s"),
        ]) {
            Ok(AiSettings::Local(config)) => {
                assert_eq!(config.path, Path::new("/m/tiny.gguf"));
                assert_eq!(config.model_name, "tiny");
                assert_eq!(config.queue_limit, 3);
                assert_eq!(config.idle_unload, Duration::from_secs(2));
            }
            other => panic!("expected local settings, got {other:?}"),
        }
        assert!(ai(&[("AI_THREADS", "0")]).is_err());
        assert!(ai(&[("AI_CONTEXT_TOKENS", "100")]).is_err());
        assert!(matches!(
            ai(&[("AI_PROVIDER", "None")]),
            Ok(AiSettings::None)
        ));
    }

    #[test]
    fn a_base_url_chooses_the_openai_protocol() {
        let config = openai(&[
            ("AI_BASE_URL", "http://localhost:11434/v1"),
            ("AI_MODEL", "qwen2.5:7b"),
        ]);
        assert_eq!(config.base_url, "http://localhost:11434/v1");
        assert_eq!(config.model, "qwen2.5:7b");
        assert!(config.api_key.is_none());
        assert_eq!(config.timeouts, Timeouts::default());
        assert_eq!(config.max_retries, 2);
    }

    #[test]
    fn openai_without_a_base_url_is_openais_api() {
        let config = openai(&[
            ("AI_PROVIDER", "openai"),
            ("AI_MODEL", "gpt-4o-mini"),
            ("AI_API_KEY", "sk-secret"),
            ("AI_API_KEY_HEADER", "api-key"),
            ("AI_API_VERSION", "2024-10-21"),
            ("AI_CONNECT_TIMEOUT", "2s"),
            ("AI_FIRST_BYTE_TIMEOUT", "1m"),
            ("AI_IDLE_TIMEOUT", "500ms"),
            ("AI_TIMEOUT", "600"),
            ("AI_MAX_RETRIES", "0"),
        ]);
        assert_eq!(config.base_url, OPENAI_BASE_URL);
        assert_eq!(
            config.api_key.as_ref().map(|key| key.expose_secret()),
            Some("sk-secret")
        );
        assert_eq!(config.api_key_header.as_deref(), Some("api-key"));
        assert_eq!(config.api_version.as_deref(), Some("2024-10-21"));
        assert_eq!(
            config.timeouts,
            Timeouts {
                connect: Duration::from_secs(2),
                first_byte: Duration::from_secs(60),
                idle: Duration::from_millis(500),
                total: Duration::from_secs(600),
            }
        );
        assert_eq!(config.max_retries, 0);
        assert!(!format!("{config:?}").contains("sk-secret"));
    }

    #[test]
    fn bad_values_name_their_variable() {
        let name = |pairs: &[(&str, &str)]| ai(pairs).map(|_| ()).unwrap_err().name;
        assert_eq!(name(&[("AI_PROVIDER", "claude")]), "AI_PROVIDER");
        assert_eq!(name(&[("AI_PROVIDER", "openai")]), "AI_MODEL");
        let with_model = |pair: (&'static str, &'static str)| {
            name(&[("AI_PROVIDER", "openai"), ("AI_MODEL", "m"), pair])
        };
        assert_eq!(with_model(("AI_BASE_URL", "ftp://host/v1")), "AI_BASE_URL");
        assert_eq!(with_model(("AI_IDLE_TIMEOUT", "0")), "AI_IDLE_TIMEOUT");
        assert_eq!(with_model(("AI_TIMEOUT", "soon")), "AI_TIMEOUT");
        assert_eq!(with_model(("AI_MAX_RETRIES", "-1")), "AI_MAX_RETRIES");
        assert_eq!(
            with_model(("AI_API_KEY_HEADER", "bad header")),
            "AI_API_KEY_HEADER"
        );
        assert_eq!(with_model(("AI_API_KEY", "clave\u{7f}")), "AI_API_KEY");
    }
}
