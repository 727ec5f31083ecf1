//! Estrellas Cielo arithmetic: what a generation costs in stars for the tokens it used, and
//! the most it could cost before it runs. One star buys 515 tokens, counted together for the
//! prompt and the answer and rounded up per started star; this must stay the formula of
//! `public.record_ai_usage` (`(p + c + 514) / 515`), which does the actual charging.

use super::provider::Usage;

/// Tokens (prompt and answer together) one star pays for.
pub const TOKENS_PER_STAR: u64 = 515;

/// Stars a generation costs: one per started [`TOKENS_PER_STAR`] tokens, none for no tokens.
pub fn stars_for_tokens(prompt_tokens: u32, completion_tokens: u32) -> u64 {
    // u64 so that no pair of u32 counts can overflow the sum.
    (u64::from(prompt_tokens) + u64::from(completion_tokens)).div_ceil(TOKENS_PER_STAR)
}

/// Stars a generation with this usage costs.
pub fn stars_for_usage(usage: Usage) -> u64 {
    stars_for_tokens(usage.prompt_tokens, usage.completion_tokens)
}

/// The most a generation can cost before it runs: its prompt plus an answer of
/// `max_completion_tokens` (the `max_tokens` it is sent with, which a provider never exceeds).
pub fn max_stars(prompt_tokens: u32, max_completion_tokens: u32) -> u64 {
    stars_for_tokens(prompt_tokens, max_completion_tokens)
}

/// The longest answer (`max_tokens`) a prompt of `prompt_tokens` can be given so that the
/// whole generation costs at most `stars` stars; `None` when the prompt alone costs more.
pub fn max_completion_tokens_within(stars: u64, prompt_tokens: u32) -> Option<u32> {
    let budget = stars.saturating_mul(TOKENS_PER_STAR);
    let left = budget.checked_sub(u64::from(prompt_tokens))?;
    Some(u32::try_from(left).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SQL formula of `record_ai_usage`, in integer division as PostgreSQL does it.
    #[allow(clippy::manual_div_ceil)] // written as the SQL is, on purpose
    fn sql_cost(prompt: u32, completion: u32) -> u64 {
        (u64::from(prompt) + u64::from(completion) + 514) / 515
    }

    #[test]
    fn no_tokens_cost_nothing() {
        assert_eq!(stars_for_tokens(0, 0), 0);
    }

    #[test]
    fn every_started_515_tokens_cost_a_star() {
        assert_eq!(stars_for_tokens(1, 0), 1);
        assert_eq!(stars_for_tokens(0, 1), 1);
        assert_eq!(stars_for_tokens(500, 15), 1);
        assert_eq!(stars_for_tokens(500, 16), 2);
        assert_eq!(stars_for_tokens(515, 515), 2);
        assert_eq!(stars_for_tokens(515, 516), 3);
        assert_eq!(
            stars_for_usage(Usage {
                prompt_tokens: 1200,
                completion_tokens: 900
            }),
            5
        );
    }

    #[test]
    fn matches_the_sql_formula() {
        for prompt in (0..2100).step_by(7) {
            for completion in [0, 1, 2, 513, 514, 515, 516, 1029, 1030, 1031, 4000] {
                assert_eq!(
                    stars_for_tokens(prompt, completion),
                    sql_cost(prompt, completion),
                    "{prompt} + {completion}"
                );
            }
        }
        assert_eq!(
            stars_for_tokens(u32::MAX, u32::MAX),
            sql_cost(u32::MAX, u32::MAX)
        );
    }

    #[test]
    fn the_estimate_bounds_any_answer_within_max_tokens() {
        assert_eq!(max_stars(300, 1024), 3);
        for completion in 0..=1024 {
            assert!(stars_for_tokens(300, completion) <= max_stars(300, 1024));
        }
    }

    #[test]
    fn the_longest_affordable_answer_costs_no_more_than_the_stars() {
        assert_eq!(max_completion_tokens_within(0, 0), Some(0));
        assert_eq!(max_completion_tokens_within(0, 1), None);
        assert_eq!(max_completion_tokens_within(1, 515), Some(0));
        assert_eq!(max_completion_tokens_within(1, 516), None);
        assert_eq!(max_completion_tokens_within(3, 300), Some(1245));
        for stars in 0..6 {
            for prompt in [0, 1, 300, 514, 515, 2000] {
                if let Some(completion) = max_completion_tokens_within(stars, prompt) {
                    assert!(stars_for_tokens(prompt, completion) <= stars);
                    assert!(stars_for_tokens(prompt, completion + 1) > stars);
                }
            }
        }
    }
}
