//! Estrellas Cielo for a generation: what the user's balance allows before the model runs
//! (an expired or suspended demo is refused, and so is a demo with no star left), and the
//! one charge afterwards through `public.record_ai_usage`, which takes the stars atomically,
//! capped at what remains, idempotently per request id. It runs on the owner's connections:
//! the function is executable by trusted servers only, never by an API role.

use deadpool_postgres::Pool;
use uuid::Uuid;

use super::error::GenerationError;

/// The ledger feature of a one-class plan.
pub const FEATURE_PLAN: &str = "plan_simple";

/// Where a user stands before generating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// In the demo, active, with this many stars left (possibly 0).
    Demo { remaining: i64 },
    /// Outside the demo: usage is recorded without a charge.
    NotInDemo,
}

/// The user's standing; an expired or suspended demo is `demo_expired`.
pub async fn standing(pool: &Pool, user_id: Uuid) -> Result<Standing, GenerationError> {
    let client = pool.get().await?;
    let row = client
        .query_opt(
            "SELECT d.is_active AND private.chile_today() <= d.demo_end_date,
                    (d.total_stars - d.used_stars)::bigint
               FROM public.demo_users_2025 d
              WHERE d.user_id = $1",
            &[&user_id],
        )
        .await?;
    match row {
        None => Ok(Standing::NotInDemo),
        Some(row) if !row.get::<_, bool>(0) => Err(GenerationError::DemoExpired),
        Some(row) => Ok(Standing::Demo {
            remaining: row.get(1),
        }),
    }
}

/// Refuses, before the model runs, a generation the charge would refuse: a demo whose
/// balance cannot pay the smallest generation (one star).
pub fn check_can_pay(standing: Standing) -> Result<(), GenerationError> {
    match standing {
        Standing::Demo { remaining } if remaining < 1 => Err(GenerationError::StarsExhausted),
        _ => Ok(()),
    }
}

/// What one generation is recorded with.
#[derive(Debug, Clone)]
pub struct Charge<'a> {
    pub user_id: Uuid,
    pub request_id: &'a str,
    pub feature: &'a str,
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    pub model: &'a str,
}

/// Records the generation and takes its stars, in one transaction; the stars taken (the
/// first recording's, when the request id was recorded before).
pub async fn record(pool: &Pool, charge: &Charge<'_>) -> Result<i64, GenerationError> {
    let mut client = pool.get().await?;
    let transaction = client.transaction().await?;
    let prompt = i32::try_from(charge.prompt_tokens).unwrap_or(i32::MAX);
    let completion = i32::try_from(charge.completion_tokens).unwrap_or(i32::MAX);
    let model: String = charge.model.chars().take(100).collect();
    let row = transaction
        .query_one(
            "SELECT stars_charged::bigint
               FROM public.record_ai_usage($1, $2, $3, $4, $5, $6, NULL)",
            &[
                &charge.user_id,
                &charge.request_id,
                &charge.feature,
                &prompt,
                &completion,
                &model,
            ],
        )
        .await
        .map_err(refusal)?;
    transaction.commit().await?;
    Ok(row.get(0))
}

/// The refusals of `record_ai_usage` (its SQLSTATEs) as the contract's errors.
fn refusal(error: tokio_postgres::Error) -> GenerationError {
    match error.as_db_error().map(|db| db.code().code()) {
        Some("PT402") => GenerationError::StarsExhausted,
        Some("PT403") => GenerationError::DemoExpired,
        Some("23505") => GenerationError::RequestIdConflict,
        _ => GenerationError::from(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_demo_needs_a_star_to_start() {
        assert!(matches!(
            check_can_pay(Standing::Demo { remaining: 0 }),
            Err(GenerationError::StarsExhausted)
        ));
        assert!(check_can_pay(Standing::Demo { remaining: 1 }).is_ok());
        assert!(check_can_pay(Standing::NotInDemo).is_ok());
    }
}
