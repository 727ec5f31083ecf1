//! The curriculum a plan is grounded in, read from the database: the level's and subject's
//! names, and each requested OA's official text, eje and suggested indicators from
//! `public.learning_objectives`. Every requested code must be an objective of that level
//! and subject; otherwise the request is refused (`unknown_objective`) before anything is
//! generated, so no plan ever carries a code the curriculum does not have.

use deadpool_postgres::Pool;

use super::error::GenerationError;

/// One learning objective as published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Objective {
    /// Official code, exactly as requested and stored, e.g. "MA07 OA 03".
    pub code: String,
    pub eje: Option<String>,
    pub statement: String,
    pub items: Vec<String>,
    /// Statement and items, as the curriculum writes them.
    pub full_text: String,
    /// Indicators written by content creators (may be none).
    pub indicators: Vec<String>,
}

/// The curriculum of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Curriculum {
    /// e.g. "7° Básico".
    pub level_name: String,
    /// e.g. "Matemática".
    pub subject_name: String,
    /// In the order requested.
    pub objectives: Vec<Objective>,
}

/// Looks a level, a subject and OA codes of both up; `unknown_objective` names what is
/// missing.
pub async fn lookup(
    pool: &Pool,
    level_code: &str,
    subject_code: &str,
    objective_codes: &[String],
) -> Result<Curriculum, GenerationError> {
    let client = pool.get().await?;
    let names = client
        .query_opt(
            "SELECT l.name, s.name
               FROM public.level_subjects ls
               JOIN public.levels l ON l.code = ls.level_code
               JOIN public.subjects s ON s.code = ls.subject_code
              WHERE ls.level_code = $1 AND ls.subject_code = $2",
            &[&level_code, &subject_code],
        )
        .await?;
    let Some(names) = names else {
        return Err(GenerationError::UnknownObjective(format!(
            "the subject {:?} is not taught at level {}: no learning objective {} there",
            subject_code,
            level_code,
            objective_codes.join(", ")
        )));
    };
    let rows = client
        .query(
            "SELECT o.code, o.eje, o.statement, o.items, o.full_text,
                    coalesce(array_agg(i.text ORDER BY i.position)
                               FILTER (WHERE i.text IS NOT NULL), '{}') AS indicators
               FROM public.learning_objectives o
               LEFT JOIN public.learning_objective_indicators i ON i.objective_id = o.id
              WHERE o.level_code = $1 AND o.subject_code = $2 AND o.code = ANY($3)
              GROUP BY o.id",
            &[&level_code, &subject_code, &objective_codes],
        )
        .await?;
    let mut found: Vec<Objective> = rows
        .iter()
        .map(|row| Objective {
            code: row.get(0),
            eje: row.get(1),
            statement: row.get(2),
            items: row.get(3),
            full_text: row.get(4),
            indicators: row.get(5),
        })
        .collect();

    let missing: Vec<&str> = objective_codes
        .iter()
        .filter(|code| !found.iter().any(|objective| &objective.code == *code))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(GenerationError::UnknownObjective(format!(
            "not a learning objective of {} {}: {}",
            level_code,
            subject_code,
            missing.join(", ")
        )));
    }
    found.sort_by_key(|objective| {
        objective_codes
            .iter()
            .position(|code| *code == objective.code)
    });
    Ok(Curriculum {
        level_name: names.get(0),
        subject_name: names.get(1),
        objectives: found,
    })
}
