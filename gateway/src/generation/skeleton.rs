//! The plan's skeleton, composed by code from the curriculum: the zones of a Chilean class
//! plan in order (objetivo de la clase, inicio, desarrollo, cierre, evaluación formativa,
//! recursos, adecuaciones PIE/DUA, indicadores), each with its Spanish title, the parts that
//! must be exact (the OAs' official codes and texts, their eje, the time of each moment of
//! `blocks` × 45 minutes, the curriculum's indicators) and a placeholder saying what the
//! teacher, or the model, writes there. A model only ever replaces placeholders with prose.

use serde_json::{Value, json};

use super::curriculum::Curriculum;
use super::document::{bullet_list, doc, labeled, paragraph, prose};
use super::request::PlanRequest;

/// The zones of a generated plan, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneKind {
    Objetivo,
    Inicio,
    Desarrollo,
    Cierre,
    Evaluacion,
    Recursos,
    Adecuaciones,
    Indicadores,
}

impl ZoneKind {
    /// The kind a request names: its `zone_type`, or `indicadores`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "indicadores" => Some(ZoneKind::Indicadores),
            other => ZoneKind::ALL
                .into_iter()
                .find(|kind| *kind != ZoneKind::Indicadores && kind.zone_type() == other),
        }
    }

    pub const ALL: [ZoneKind; 8] = [
        ZoneKind::Objetivo,
        ZoneKind::Inicio,
        ZoneKind::Desarrollo,
        ZoneKind::Cierre,
        ZoneKind::Evaluacion,
        ZoneKind::Recursos,
        ZoneKind::Adecuaciones,
        ZoneKind::Indicadores,
    ];

    /// The `public.zone_type` it is stored as. Indicators are part of evaluation: the enum
    /// has no type of their own, and zones of one type may repeat in a class.
    pub fn zone_type(self) -> &'static str {
        match self {
            ZoneKind::Objetivo => "objetivo",
            ZoneKind::Inicio => "inicio",
            ZoneKind::Desarrollo => "desarrollo",
            ZoneKind::Cierre => "cierre",
            ZoneKind::Evaluacion | ZoneKind::Indicadores => "evaluacion",
            ZoneKind::Recursos => "recursos",
            ZoneKind::Adecuaciones => "adecuaciones",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            ZoneKind::Objetivo => "Objetivo de la clase",
            ZoneKind::Inicio => "Inicio",
            ZoneKind::Desarrollo => "Desarrollo",
            ZoneKind::Cierre => "Cierre",
            ZoneKind::Evaluacion => "Evaluación formativa",
            ZoneKind::Recursos => "Recursos",
            ZoneKind::Adecuaciones => "Adecuaciones (PIE/DUA)",
            ZoneKind::Indicadores => "Indicadores de evaluación",
        }
    }

    /// What goes in the zone: the placeholder of the skeleton and the model's brief.
    pub fn guidance(self) -> &'static str {
        match self {
            ZoneKind::Objetivo => {
                "Redacta en una frase qué aprenderán hoy los estudiantes a partir del OA: habilidad, contenido y propósito."
            }
            ZoneKind::Inicio => {
                "Activa conocimientos previos, comparte el objetivo de la clase y motiva con una pregunta o situación cercana a los estudiantes."
            }
            ZoneKind::Desarrollo => {
                "Actividades principales para trabajar el OA: modelamiento, práctica guiada y práctica independiente, con lo que hacen el docente y los estudiantes."
            }
            ZoneKind::Cierre => {
                "Síntesis de lo aprendido, preguntas de metacognición y vínculo con la próxima clase."
            }
            ZoneKind::Evaluacion => {
                "Estrategia de evaluación formativa (ticket de salida, preguntas, observación) y cómo se retroalimenta."
            }
            ZoneKind::Recursos => {
                "Materiales, guías, textos, recursos digitales y espacios que se necesitan."
            }
            ZoneKind::Adecuaciones => {
                "Adecuaciones para estudiantes del PIE y estrategias DUA: múltiples formas de representación, de acción y expresión, y de implicación."
            }
            ZoneKind::Indicadores => {
                "Indicadores de evaluación observables que muestren el logro del OA en esta clase."
            }
        }
    }
}

/// Minutes of the three moments of a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    pub inicio: u32,
    pub desarrollo: u32,
    pub cierre: u32,
}

impl Timing {
    /// About a sixth of the class each for inicio and cierre, in 5-minute steps (at least
    /// 5), the rest for desarrollo: 10/25/10 for one block, 15/60/15 for two.
    pub fn for_minutes(total: u32) -> Self {
        let edge = ((total + 15) / 30 * 5).max(5);
        Timing {
            inicio: edge,
            desarrollo: total - 2 * edge,
            cierre: edge,
        }
    }

    pub fn of(self, kind: ZoneKind) -> Option<u32> {
        match kind {
            ZoneKind::Inicio => Some(self.inicio),
            ZoneKind::Desarrollo => Some(self.desarrollo),
            ZoneKind::Cierre => Some(self.cierre),
            _ => None,
        }
    }
}

/// One zone of the skeleton.
#[derive(Debug, Clone, PartialEq)]
pub struct SkeletonZone {
    pub kind: ZoneKind,
    /// Blocks composed from the curriculum, kept as they are whatever writes the prose.
    pub fixed: Vec<Value>,
}

/// The whole skeleton of one class.
#[derive(Debug, Clone, PartialEq)]
pub struct Skeleton {
    pub zones: Vec<SkeletonZone>,
    pub timing: Timing,
    pub minutes: u32,
    /// The OA codes of the plan: exactly the requested ones, in order.
    pub objective_codes: Vec<String>,
}

const PLACEHOLDER: &str = "[Por completar]";

impl Skeleton {
    /// Every zone of a class plan.
    pub fn compose(request: &PlanRequest, curriculum: &Curriculum) -> Self {
        Self::compose_zones(&ZoneKind::ALL, request, curriculum)
    }

    /// The zones `kinds`, in that order.
    pub fn compose_zones(
        kinds: &[ZoneKind],
        request: &PlanRequest,
        curriculum: &Curriculum,
    ) -> Self {
        let minutes = request.minutes();
        let timing = Timing::for_minutes(minutes);
        let zones = kinds
            .iter()
            .map(|&kind| SkeletonZone {
                kind,
                fixed: fixed_blocks(kind, request, curriculum, timing, minutes),
            })
            .collect();
        Skeleton {
            zones,
            timing,
            minutes,
            objective_codes: curriculum
                .objectives
                .iter()
                .map(|objective| objective.code.clone())
                .collect(),
        }
    }

    /// The zones as `{zone_type, title, content}`, each zone's prose (by index) in place of
    /// its placeholder when there is some.
    pub fn render(&self, prose_by_zone: &[Option<String>]) -> Vec<Value> {
        self.zones
            .iter()
            .enumerate()
            .map(|(index, zone)| zone.render(prose_by_zone.get(index).and_then(Option::as_deref)))
            .collect()
    }
}

impl SkeletonZone {
    /// `{zone_type, title, content}`: the fixed blocks, then `written` as paragraphs, or the
    /// placeholder when nothing (or only blank text) was written.
    pub fn render(&self, written: Option<&str>) -> Value {
        let mut blocks = self.fixed.clone();
        match written.map(prose).filter(|blocks| !blocks.is_empty()) {
            Some(written) => blocks.extend(written),
            None => blocks.push(labeled(PLACEHOLDER, self.kind.guidance())),
        }
        json!({
            "zone_type": self.kind.zone_type(),
            "title": self.kind.title(),
            "content": doc(blocks),
        })
    }
}

fn fixed_blocks(
    kind: ZoneKind,
    request: &PlanRequest,
    curriculum: &Curriculum,
    timing: Timing,
    minutes: u32,
) -> Vec<Value> {
    let mut blocks = Vec::new();
    match kind {
        ZoneKind::Objetivo => {
            let blocks_word = if request.blocks == 1 {
                "bloque"
            } else {
                "bloques"
            };
            blocks.push(paragraph(&format!(
                "{} · {} · {} {blocks_word} de 45 minutos ({minutes} minutos)",
                curriculum.level_name, curriculum.subject_name, request.blocks
            )));
            if let Some(course) = &request.course {
                blocks.push(labeled("Curso:", course));
            }
            if let Some(title) = &request.class_title {
                blocks.push(labeled("Clase:", title));
            }
            for objective in &curriculum.objectives {
                blocks.push(labeled(&objective.code, &objective.statement));
                if !objective.items.is_empty() {
                    blocks.push(bullet_list(&objective.items));
                }
                if let Some(eje) = &objective.eje {
                    blocks.push(labeled("Eje:", eje));
                }
            }
        }
        ZoneKind::Inicio | ZoneKind::Desarrollo | ZoneKind::Cierre => {
            let moment = timing.of(kind).unwrap_or_default();
            blocks.push(labeled(
                "Tiempo:",
                &format!("{moment} minutos (de {minutes})."),
            ));
        }
        ZoneKind::Indicadores => {
            for objective in &curriculum.objectives {
                if !objective.indicators.is_empty() {
                    blocks.push(labeled(&objective.code, ""));
                    blocks.push(bullet_list(&objective.indicators));
                }
            }
        }
        ZoneKind::Evaluacion | ZoneKind::Recursos | ZoneKind::Adecuaciones => {}
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generation::curriculum::Objective;
    use crate::generation::document::plain_text;

    pub(crate) fn example() -> (PlanRequest, Curriculum) {
        let request = PlanRequest {
            level_code: "7B".into(),
            subject_code: "matematica".into(),
            objective_codes: vec!["MA07 OA 03".into()],
            blocks: 2,
            course: Some("7° A".into()),
            class_title: None,
            notes: None,
        };
        let curriculum = Curriculum {
            level_name: "7° Básico".into(),
            subject_name: "Matemática".into(),
            objectives: vec![Objective {
                code: "MA07 OA 03".into(),
                eje: Some("Números".into()),
                statement: "Explicar la multiplicación y división de fracciones positivas:".into(),
                items: vec!["utilizando representaciones concretas".into()],
                full_text: "Explicar…\n- utilizando representaciones concretas".into(),
                indicators: vec![],
            }],
        };
        (request, curriculum)
    }

    #[test]
    fn timing_fills_the_class() {
        for blocks in 1..=8 {
            let total = blocks * 45;
            let timing = Timing::for_minutes(total);
            assert_eq!(timing.inicio + timing.desarrollo + timing.cierre, total);
            assert!(timing.desarrollo > timing.inicio);
            assert_eq!(timing.inicio % 5, 0);
        }
        assert_eq!(
            Timing::for_minutes(45),
            Timing {
                inicio: 10,
                desarrollo: 25,
                cierre: 10
            }
        );
        assert_eq!(
            Timing::for_minutes(90),
            Timing {
                inicio: 15,
                desarrollo: 60,
                cierre: 15
            }
        );
    }

    #[test]
    fn every_zone_in_order_with_spanish_titles_and_valid_types() {
        let (request, curriculum) = example();
        let zones = Skeleton::compose(&request, &curriculum).render(&[]);
        let titles: Vec<&str> = zones
            .iter()
            .map(|zone| zone["title"].as_str().unwrap())
            .collect();
        assert_eq!(
            titles,
            [
                "Objetivo de la clase",
                "Inicio",
                "Desarrollo",
                "Cierre",
                "Evaluación formativa",
                "Recursos",
                "Adecuaciones (PIE/DUA)",
                "Indicadores de evaluación"
            ]
        );
        let enum_values = [
            "objetivo",
            "inicio",
            "desarrollo",
            "cierre",
            "evaluacion",
            "recursos",
            "adecuaciones",
        ];
        for zone in &zones {
            assert!(enum_values.contains(&zone["zone_type"].as_str().unwrap()));
            assert_eq!(zone["content"]["type"], "doc");
            assert!(plain_text(&zone["content"]).contains(PLACEHOLDER));
        }
        let objective = plain_text(&zones[0]["content"]);
        assert!(objective.contains("MA07 OA 03"));
        assert!(objective.contains("Explicar la multiplicación"));
        assert!(objective.contains("Eje: Números"));
        assert!(objective.contains("90 minutos"));
        assert!(plain_text(&zones[2]["content"]).contains("60 minutos"));
    }

    #[test]
    fn prose_replaces_the_placeholder_and_keeps_the_fixed_parts() {
        let (request, curriculum) = example();
        let skeleton = Skeleton::compose(&request, &curriculum);
        let mut prose = vec![None; 8];
        prose[0] = Some("Comprender la división de fracciones.".to_owned());
        prose[1] = Some("   ".to_owned());
        let zones = skeleton.render(&prose);
        let objective = plain_text(&zones[0]["content"]);
        assert!(objective.contains("MA07 OA 03"));
        assert!(objective.contains("Comprender la división"));
        assert!(!objective.contains(PLACEHOLDER));
        // Blank prose leaves the placeholder.
        assert!(plain_text(&zones[1]["content"]).contains(PLACEHOLDER));
    }
}
