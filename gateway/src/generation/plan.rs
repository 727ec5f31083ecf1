//! `generate-plan`: one class planned from the curriculum. Its skeleton has every zone of
//! a Chilean class plan ([`Skeleton::compose`]); a model writes each zone's prose.

use deadpool_postgres::Pool;
use serde_json::{Map, Value, json};

use super::curriculum;
use super::error::GenerationError;
use super::pipeline::{Draft, Piece};
use super::prompt::zone_messages;
use super::request;
use super::skeleton::Skeleton;

/// The ledger feature of a one-class plan.
pub const FEATURE: &str = "plan_simple";

/// Reads the body, looks its OAs up and composes the plan's draft.
pub async fn prepare(pool: &Pool, body: &[u8]) -> Result<Draft, GenerationError> {
    let request = request::parse(body)?;
    let curriculum = curriculum::lookup(
        pool,
        &request.level_code,
        &request.subject_code,
        &request.objective_codes,
    )
    .await?;
    let skeleton = Skeleton::compose(&request, &curriculum);
    let pieces = skeleton
        .zones
        .iter()
        .enumerate()
        .map(|(index, zone)| Piece {
            at: json!({ "zone": index }),
            messages: zone_messages(zone.kind, &request, &curriculum, &skeleton, None),
            allowed: skeleton.objective_codes.clone(),
        })
        .collect();
    Ok(Draft {
        feature: FEATURE,
        pieces,
        render: Box::new(move |prose| {
            let mut fields = Map::new();
            fields.insert("zones".into(), Value::Array(skeleton.render(prose)));
            fields.insert("objective_codes".into(), json!(skeleton.objective_codes));
            fields
        }),
    })
}
