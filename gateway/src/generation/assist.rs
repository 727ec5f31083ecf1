//! `editor-assist`: the teacher's selection in the editor rewritten, expanded, simplified
//! or adapted for PIE students, grounded in the course's subject and the class's OAs. The
//! answer is the new text and the same as the editor's document JSON; without a model
//! there is nothing to offer (`503 model_unavailable`).

use deadpool_postgres::Pool;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::curriculum;
use super::document::{doc, prose};
use super::error::GenerationError;
use super::pipeline::{Draft, Piece};
use super::prompt::{AssistAction, assist_messages};
use super::request::{self, MAX_OBJECTIVES, invalid};

/// The ledger feature of an editor action.
pub const FEATURE: &str = "editor_assist";
/// Longest selection, in characters.
pub const MAX_SELECTION_CHARS: usize = 6000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    action: String,
    text: String,
    level_code: String,
    subject_code: String,
    #[serde(default)]
    objective_codes: Vec<String>,
}

/// Reads the body, looks its OAs up and composes the action's draft.
pub async fn prepare(pool: &Pool, body: &[u8]) -> Result<Draft, GenerationError> {
    let raw: Body = request::read_json(
        body,
        "{action, text, level_code, subject_code, objective_codes}",
    )?;
    let action = AssistAction::parse(raw.action.trim()).ok_or_else(|| {
        invalid(format!(
            "action {:?} is not rewrite, expand, simplify or adapt_pie",
            raw.action
        ))
    })?;
    let selection = request::text_within("text", Some(raw.text), MAX_SELECTION_CHARS)?
        .ok_or_else(|| invalid("text must hold the selection to work on"))?;
    let level_code = request::level_code(&raw.level_code)?;
    let subject_code = request::subject_code(&raw.subject_code)?;
    let codes = request::objective_codes(&raw.objective_codes, 0, MAX_OBJECTIVES)?;
    let curriculum = curriculum::lookup(pool, &level_code, &subject_code, &codes).await?;
    let piece = Piece {
        at: json!({ "zone": 0 }),
        messages: assist_messages(action, &curriculum, &selection),
        allowed: codes.clone(),
    };
    Ok(Draft {
        feature: FEATURE,
        pieces: vec![piece],
        render: Box::new(move |prose_by_piece| {
            // Until something is written, the selection stands as it was.
            let text = prose_by_piece
                .first()
                .and_then(Option::as_deref)
                .map(str::trim)
                .filter(|text| !text.is_empty())
                .unwrap_or(&selection)
                .to_owned();
            let mut fields = Map::new();
            fields.insert("action".into(), json!(action.name()));
            fields.insert("content".into(), doc(prose(&text)));
            fields.insert("text".into(), Value::String(text));
            fields.insert("objective_codes".into(), json!(codes));
            fields
        }),
    })
}
