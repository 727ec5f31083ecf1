//! Estrellas Cielo for a generation: what the caller's balance allows before the model runs
//! (an expired or suspended demo is refused, and so is a balance without a star left: the
//! demo's, or the monthly allowance of users outside the demo), the free daily generations of
//! anonymous visitors (claimed before generating, per visitor and per address), and the one
//! charge afterwards through `public.record_ai_usage`, which takes the stars atomically,
//! capped at what remains, idempotently per request id. The answer is stored with its charge,
//! so a replayed request id gets the answer it paid for without running the model again.
//! It runs on the owner's connections: these functions are executable by trusted servers
//! only, never by an API role.

use deadpool_postgres::Pool;
use serde_json::Value;
use uuid::Uuid;

use super::error::GenerationError;

/// Where a caller stands before generating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// In the demo, active, with this many stars left (possibly 0).
    Demo { remaining: i64 },
    /// Signed in outside the demo: the month's allowance left, `None` without a monthly limit.
    Allowance { remaining: Option<i64> },
    /// An anonymous visitor: free generations, limited per day; nothing is charged.
    Visitor,
}

impl Standing {
    /// The most stars a generation may cost, when there is a limit.
    pub fn budget(self) -> Option<u64> {
        match self {
            Standing::Demo { remaining }
            | Standing::Allowance {
                remaining: Some(remaining),
            } => Some(u64::try_from(remaining).unwrap_or(0)),
            Standing::Allowance { remaining: None } | Standing::Visitor => None,
        }
    }
}

/// The caller's standing: `None` when the user no longer exists; an expired or suspended
/// demo is `demo_expired`.
pub async fn standing(pool: &Pool, user_id: Uuid) -> Result<Option<Standing>, GenerationError> {
    let client = pool.get().await?;
    let row = client
        .query_opt(
            "SELECT u.is_anonymous,
                    d.user_id IS NOT NULL,
                    coalesce(d.is_active AND private.chile_today() <= d.demo_end_date, false),
                    (d.total_stars - d.used_stars)::bigint,
                    (a.monthly_stars - coalesce(m.used_stars, 0))::bigint
               FROM auth.users u
               LEFT JOIN public.demo_users_2025 d ON d.user_id = u.id
               LEFT JOIN public.ai_allowance a ON true
               LEFT JOIN private.ai_monthly_usage m
                 ON m.user_id = u.id
                AND m.month = date_trunc('month', private.chile_today())::date
              WHERE u.id = $1",
            &[&user_id],
        )
        .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    let (anonymous, in_demo, demo_open): (bool, bool, bool) = (row.get(0), row.get(1), row.get(2));
    Ok(Some(match (anonymous, in_demo) {
        (true, _) => Standing::Visitor,
        (false, true) if !demo_open => return Err(GenerationError::DemoExpired),
        (false, true) => Standing::Demo {
            remaining: row.get(3),
        },
        (false, false) => Standing::Allowance {
            remaining: row.get(4),
        },
    }))
}

/// Refuses, before the model runs, a generation the charge would refuse: a balance that
/// cannot pay the smallest generation (one star).
pub fn check_can_pay(standing: Standing) -> Result<(), GenerationError> {
    match standing.budget() {
        Some(budget) if budget < 1 => Err(GenerationError::StarsExhausted),
        _ => Ok(()),
    }
}

/// Takes one of today's free generations of an anonymous visitor at `address`; refused once
/// the visitor or the address used today's.
pub async fn claim_visitor_generation(
    pool: &Pool,
    visitor: Uuid,
    address: &str,
) -> Result<(), GenerationError> {
    let client = pool.get().await?;
    let refused: Option<String> = client
        .query_one(
            "SELECT private.claim_visitor_generation($1, $2)",
            &[&visitor, &address],
        )
        .await?
        .get(0);
    match refused {
        None => Ok(()),
        Some(limit) => {
            tracing::info!(%visitor, address, limit, "a visitor's free generations are used up");
            Err(GenerationError::VisitorLimit)
        }
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

/// The answer already given for `request_id`, when it was charged before: the same user
/// gets it again; another user's id is a conflict.
pub async fn replayed(
    pool: &Pool,
    user_id: Uuid,
    request_id: &str,
) -> Result<Option<Value>, GenerationError> {
    let client = pool.get().await?;
    let row = client
        .query_opt(
            "SELECT l.user_id, a.answer
               FROM public.ai_usage_ledger l
               JOIN private.ai_answers a USING (request_id)
              WHERE l.request_id = $1",
            &[&request_id],
        )
        .await?;
    match row {
        None => Ok(None),
        Some(row) if row.get::<_, Uuid>(0) != user_id => Err(GenerationError::RequestIdConflict),
        Some(row) => Ok(Some(row.get(1))),
    }
}

/// Records the generation, takes its stars and stores the answer `answer` builds from the
/// stars taken, in one transaction; the answer stored (the first one, when the request id
/// was recorded before).
pub async fn record(
    pool: &Pool,
    charge: &Charge<'_>,
    answer: impl FnOnce(i64) -> Value,
) -> Result<Value, GenerationError> {
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
    let answer = answer(row.get(0));
    let stored = transaction
        .query_one(
            "WITH inserted AS (
               INSERT INTO private.ai_answers (request_id, answer) VALUES ($1, $2)
               ON CONFLICT (request_id) DO NOTHING
               RETURNING answer)
             SELECT answer FROM inserted
             UNION ALL
             SELECT answer FROM private.ai_answers WHERE request_id = $1
             LIMIT 1",
            &[&charge.request_id, &answer],
        )
        .await?;
    transaction.commit().await?;
    Ok(stored.get(0))
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
    }

    #[test]
    fn outside_the_demo_the_monthly_allowance_pays_and_visitors_pay_nothing() {
        assert!(matches!(
            check_can_pay(Standing::Allowance { remaining: Some(0) }),
            Err(GenerationError::StarsExhausted)
        ));
        assert!(check_can_pay(Standing::Allowance { remaining: Some(1) }).is_ok());
        assert!(check_can_pay(Standing::Allowance { remaining: None }).is_ok());
        assert!(check_can_pay(Standing::Visitor).is_ok());
        assert_eq!(
            Standing::Allowance {
                remaining: Some(-3)
            }
            .budget(),
            Some(0)
        );
        assert_eq!(Standing::Visitor.budget(), None);
    }
}
