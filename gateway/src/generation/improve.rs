//! `improve-zone`: one zone of a class written again, improved as the teacher asks (or
//! anew without an instruction). Its fixed parts (the OAs' official text, the time of the
//! moment, the indicators) are composed by code as in `generate-plan`; the model rewrites
//! the prose from the zone's current text and the teacher's instruction, both quoted to it
//! as data.

use deadpool_postgres::Pool;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::curriculum;
use super::document::text_lines;
use super::error::GenerationError;
use super::pipeline::{Draft, Piece};
use super::prompt::improve_messages;
use super::request::{self, MAX_BLOCKS, MAX_OBJECTIVES, PlanRequest, invalid};
use super::skeleton::{Skeleton, ZoneKind};

/// The ledger feature of a zone.
pub const FEATURE: &str = "zona";
/// Longest current text of a zone, in characters.
pub const MAX_CURRENT_CHARS: usize = 6000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    level_code: String,
    subject_code: String,
    objective_codes: Vec<String>,
    zone_type: String,
    blocks: Option<u8>,
    /// The zone's current content: the editor's document JSON, or plain text.
    content: Option<Value>,
    instruction: Option<String>,
    course: Option<String>,
    class_title: Option<String>,
}

/// Reads the body, looks its OAs up and composes the zone's draft.
pub async fn prepare(pool: &Pool, body: &[u8]) -> Result<Draft, GenerationError> {
    let raw: Body = request::read_json(
        body,
        "{level_code, subject_code, objective_codes, zone_type, content, instruction}",
    )?;
    let kind = ZoneKind::parse(raw.zone_type.trim()).ok_or_else(|| {
        invalid(format!(
            "zone_type {:?} is not a zone (objetivo, inicio, desarrollo, cierre, evaluacion, recursos, adecuaciones, indicadores)",
            raw.zone_type
        ))
    })?;
    let blocks = raw.blocks.unwrap_or(1);
    if !(1..=MAX_BLOCKS).contains(&blocks) {
        return Err(invalid(format!(
            "blocks must be 1 to {MAX_BLOCKS} (45-minute blocks)"
        )));
    }
    let current = match raw.content {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text),
        Some(document @ Value::Object(_)) => Some(text_lines(&document)),
        Some(_) => {
            return Err(invalid(
                "content must be the zone's document JSON or its text",
            ));
        }
    };
    let current = request::text_within("content", current, MAX_CURRENT_CHARS)?;
    let request = PlanRequest {
        level_code: request::level_code(&raw.level_code)?,
        subject_code: request::subject_code(&raw.subject_code)?,
        objective_codes: request::objective_codes(&raw.objective_codes, 1, MAX_OBJECTIVES)?,
        blocks,
        course: request::text("course", raw.course)?,
        class_title: request::text("class_title", raw.class_title)?,
        notes: None,
    };
    let instruction = request::text("instruction", raw.instruction)?;
    let curriculum = curriculum::lookup(
        pool,
        &request.level_code,
        &request.subject_code,
        &request.objective_codes,
    )
    .await?;
    let skeleton = Skeleton::compose_zones(&[kind], &request, &curriculum);
    let piece = Piece {
        at: json!({ "zone": 0 }),
        messages: improve_messages(
            kind,
            &request,
            &curriculum,
            &skeleton,
            current.as_deref(),
            instruction.as_deref(),
        ),
        allowed: skeleton.objective_codes.clone(),
    };
    Ok(Draft {
        feature: FEATURE,
        pieces: vec![piece],
        render: Box::new(move |prose| {
            let zone = skeleton.zones.first().map_or(Value::Null, |zone| {
                zone.render(prose.first().and_then(Option::as_deref))
            });
            let mut fields = Map::new();
            fields.insert("zone".into(), zone);
            fields.insert("objective_codes".into(), json!(skeleton.objective_codes));
            fields
        }),
    })
}
