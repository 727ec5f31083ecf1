//! `generate-sequence`: a unit of N classes as a coherent progression of its OAs. Code
//! decides the progression (which OAs each class works, and its phase: activation, guided
//! practice, autonomous practice, synthesis and evaluation) and each class's skeleton; a
//! model writes each class's zones knowing where the class stands in the unit.

use deadpool_postgres::Pool;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::curriculum::{self, Curriculum};
use super::error::GenerationError;
use super::pipeline::{Draft, Piece};
use super::prompt::zone_messages;
use super::request::{self, PlanRequest, invalid};
use super::skeleton::{Skeleton, ZoneKind};

/// The ledger feature of a sequence.
pub const FEATURE: &str = "plan_secuencial";
/// Most OAs one unit can be planned for.
pub const MAX_OBJECTIVES: usize = 8;
/// Fewest and most classes of a unit.
pub const CLASSES: std::ops::RangeInclusive<u8> = 2..=12;
/// Longest class of a unit, in 45-minute blocks.
pub const MAX_BLOCKS: u8 = 4;

/// The zones of each class of a sequence: the moments of the class and its evaluation.
const ZONES: [ZoneKind; 5] = [
    ZoneKind::Objetivo,
    ZoneKind::Inicio,
    ZoneKind::Desarrollo,
    ZoneKind::Cierre,
    ZoneKind::Evaluacion,
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    level_code: String,
    subject_code: String,
    objective_codes: Vec<String>,
    classes: u8,
    blocks: Option<u8>,
    unit_title: Option<String>,
    course: Option<String>,
    notes: Option<String>,
}

/// One class of the unit as code planned it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassPlan {
    /// 1-based.
    pub position: usize,
    pub phase: &'static str,
    pub objective_codes: Vec<String>,
}

/// The phase of class `index` (0-based) of `classes`, and what it is for.
fn phase(index: usize, classes: usize) -> (&'static str, &'static str) {
    let middle = classes.saturating_sub(2);
    if index == 0 {
        (
            "Activación e introducción",
            "activar conocimientos previos y presentar los nuevos contenidos",
        )
    } else if index + 1 == classes {
        (
            "Síntesis y evaluación",
            "integrar lo aprendido en la unidad y evaluar el logro de los OA",
        )
    } else if index - 1 < middle.div_ceil(2) {
        (
            "Modelamiento y práctica guiada",
            "modelar los procedimientos y practicarlos con apoyo del docente",
        )
    } else {
        (
            "Aplicación y práctica autónoma",
            "aplicar lo aprendido en situaciones nuevas con creciente autonomía",
        )
    }
}

/// The progression: the OAs in order over the classes before the last (a run of them each
/// when there are more OAs than classes), and every OA in the closing synthesis.
pub fn progression(codes: &[String], classes: usize) -> Vec<ClassPlan> {
    let working = classes - 1;
    (0..classes)
        .map(|index| {
            let objective_codes = if index == working {
                codes.to_vec()
            } else if codes.len() <= working {
                vec![codes[index * codes.len() / working].clone()]
            } else {
                codes[index * codes.len() / working..(index + 1) * codes.len() / working].to_vec()
            };
            ClassPlan {
                position: index + 1,
                phase: phase(index, classes).0,
                objective_codes,
            }
        })
        .collect()
}

/// Reads the body, looks its OAs up and composes the unit's draft.
pub async fn prepare(pool: &Pool, body: &[u8]) -> Result<Draft, GenerationError> {
    let raw: Body = request::read_json(
        body,
        "{level_code, subject_code, objective_codes, classes, blocks}",
    )?;
    let level_code = request::level_code(&raw.level_code)?;
    let subject_code = request::subject_code(&raw.subject_code)?;
    let codes = request::objective_codes(&raw.objective_codes, 1, MAX_OBJECTIVES)?;
    if !CLASSES.contains(&raw.classes) {
        return Err(invalid(format!(
            "classes must be {} to {}",
            CLASSES.start(),
            CLASSES.end()
        )));
    }
    let blocks = raw.blocks.unwrap_or(2);
    if !(1..=MAX_BLOCKS).contains(&blocks) {
        return Err(invalid(format!(
            "blocks must be 1 to {MAX_BLOCKS} (45-minute blocks per class)"
        )));
    }
    let unit_title = request::text("unit_title", raw.unit_title)?;
    let course = request::text("course", raw.course)?;
    let notes = request::text("notes", raw.notes)?;
    let curriculum = curriculum::lookup(pool, &level_code, &subject_code, &codes).await?;

    let classes = usize::from(raw.classes);
    let plan = progression(&codes, classes);
    let outline = plan
        .iter()
        .map(|class| {
            format!(
                "clase {} ({}): {}",
                class.position,
                class.phase,
                class.objective_codes.join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let mut pieces = Vec::new();
    let mut skeletons = Vec::new();
    for (index, class) in plan.iter().enumerate() {
        let (phase, purpose) = phase(index, classes);
        let class_request = PlanRequest {
            level_code: level_code.clone(),
            subject_code: subject_code.clone(),
            objective_codes: class.objective_codes.clone(),
            blocks,
            course: course.clone(),
            class_title: Some(format!("Clase {} de {classes}: {phase}", class.position)),
            notes: notes.clone(),
        };
        let class_curriculum = Curriculum {
            objectives: curriculum
                .objectives
                .iter()
                .filter(|objective| class.objective_codes.contains(&objective.code))
                .cloned()
                .collect(),
            ..curriculum.clone()
        };
        let skeleton = Skeleton::compose_zones(&ZONES, &class_request, &class_curriculum);
        let unit = format!(
            "{}clase {} de {classes}, fase «{phase}»: {purpose}. Secuencia completa: {outline}.",
            unit_title
                .as_deref()
                .map(|title| format!("«{title}», "))
                .unwrap_or_default(),
            class.position,
        );
        for (zone_index, zone) in skeleton.zones.iter().enumerate() {
            pieces.push(Piece {
                at: json!({ "class": index, "zone": zone_index }),
                messages: zone_messages(
                    zone.kind,
                    &class_request,
                    &class_curriculum,
                    &skeleton,
                    Some(&unit),
                ),
                allowed: class.objective_codes.clone(),
            });
        }
        skeletons.push((class.clone(), skeleton));
    }
    Ok(Draft {
        feature: FEATURE,
        pieces,
        render: Box::new(move |prose| {
            let mut offset = 0;
            let classes: Vec<Value> = skeletons
                .iter()
                .map(|(class, skeleton)| {
                    let count = skeleton.zones.len();
                    let written = prose
                        .get(offset..(offset + count).min(prose.len()))
                        .unwrap_or(&[]);
                    offset += count;
                    json!({
                        "position": class.position,
                        "title": format!("Clase {}: {}", class.position, class.phase),
                        "phase": class.phase,
                        "objective_codes": class.objective_codes,
                        "zones": skeleton.render(written),
                    })
                })
                .collect();
            let mut fields = Map::new();
            fields.insert("unit_title".into(), json!(unit_title));
            fields.insert("classes".into(), Value::Array(classes));
            fields.insert("objective_codes".into(), json!(codes));
            fields
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("MA07 OA {i:02}")).collect()
    }

    #[test]
    fn every_oa_is_worked_and_the_last_class_integrates_them() {
        for oas in 1..=MAX_OBJECTIVES {
            for classes in 2..=12 {
                let codes = codes(oas);
                let plan = progression(&codes, classes);
                assert_eq!(plan.len(), classes);
                assert_eq!(plan.last().unwrap().objective_codes, codes);
                assert_eq!(plan.last().unwrap().phase, "Síntesis y evaluación");
                assert_eq!(plan[0].phase, "Activación e introducción");
                let worked: Vec<&String> = plan[..classes - 1]
                    .iter()
                    .flat_map(|c| &c.objective_codes)
                    .collect();
                for code in &codes {
                    assert!(worked.contains(&code), "{oas} OAs over {classes}: {code}");
                }
                // In order: the progression never goes back to an earlier OA.
                let positions: Vec<usize> = worked
                    .iter()
                    .map(|code| codes.iter().position(|c| c == *code).unwrap())
                    .collect();
                assert!(positions.windows(2).all(|w| w[0] <= w[1]), "{positions:?}");
                assert!(plan.iter().all(|class| !class.objective_codes.is_empty()));
            }
        }
    }

    #[test]
    fn the_middle_goes_from_guided_to_autonomous() {
        let phases: Vec<&str> = progression(&codes(2), 6)
            .iter()
            .map(|class| class.phase)
            .collect();
        assert_eq!(
            phases,
            [
                "Activación e introducción",
                "Modelamiento y práctica guiada",
                "Modelamiento y práctica guiada",
                "Aplicación y práctica autónoma",
                "Aplicación y práctica autónoma",
                "Síntesis y evaluación"
            ]
        );
        assert_eq!(
            progression(&codes(1), 3)[1].phase,
            "Modelamiento y práctica guiada"
        );
    }
}
