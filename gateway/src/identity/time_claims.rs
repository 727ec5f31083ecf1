//! The time claims of a verified token (`exp`, `nbf`, `iat`), checked the same way for
//! every service: numbers when present, with a 30-second clock skew as PostgREST and GoTrue
//! both allow. The reasons are typed; each service words them its way.

use serde_json::{Map, Value};

/// Allowed clock difference for `exp`, `nbf` and `iat`.
const CLOCK_SKEW_SECONDS: i64 = 30;

/// Why a token's time claims do not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeClaimError {
    /// A time claim (`exp`, `nbf` or `iat`, named) is present but not a number.
    NotANumber(&'static str),
    /// `exp` is past.
    Expired,
    /// `nbf` is ahead.
    NotYetValid,
    /// `iat` is ahead.
    IssuedInFuture,
}

/// `exp`, `nbf`, `iat` must be numbers when present, checked against `now` (Unix time)
/// with a 30 s skew.
pub fn check(claims: &Map<String, Value>, now: i64) -> Result<(), TimeClaimError> {
    let number = |name: &'static str| -> Result<Option<i64>, TimeClaimError> {
        match claims.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => Ok(Some(
                n.as_i64()
                    .unwrap_or_else(|| n.as_f64().map_or(0, |f| f as i64)),
            )),
            Some(_) => Err(TimeClaimError::NotANumber(name)),
        }
    };
    if let Some(exp) = number("exp")?
        && now - CLOCK_SKEW_SECONDS > exp
    {
        return Err(TimeClaimError::Expired);
    }
    if let Some(nbf) = number("nbf")?
        && now + CLOCK_SKEW_SECONDS < nbf
    {
        return Err(TimeClaimError::NotYetValid);
    }
    if let Some(iat) = number("iat")?
        && now + CLOCK_SKEW_SECONDS < iat
    {
        return Err(TimeClaimError::IssuedInFuture);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: i64 = 1_800_000_000;

    fn time(claims: Value) -> Result<(), TimeClaimError> {
        check(claims.as_object().unwrap(), NOW)
    }

    #[test]
    fn time_claims_allow_thirty_seconds_of_skew() {
        assert_eq!(time(json!({"exp": NOW - 30})), Ok(()));
        assert_eq!(time(json!({"exp": NOW - 31})), Err(TimeClaimError::Expired));
        assert_eq!(time(json!({"nbf": NOW + 30})), Ok(()));
        assert_eq!(
            time(json!({"nbf": NOW + 31})),
            Err(TimeClaimError::NotYetValid)
        );
        assert_eq!(
            time(json!({"iat": NOW + 31})),
            Err(TimeClaimError::IssuedInFuture)
        );
        assert_eq!(
            time(json!({"exp": (NOW - 32) as f64 + 0.5})),
            Err(TimeClaimError::Expired)
        );
        assert_eq!(time(json!({"exp": null, "nbf": null})), Ok(()));
        assert_eq!(time(json!({})), Ok(()));
    }

    #[test]
    fn time_claims_must_be_numbers() {
        assert_eq!(
            time(json!({"exp": "soon"})),
            Err(TimeClaimError::NotANumber("exp"))
        );
        assert_eq!(
            time(json!({"exp": NOW, "iat": true})),
            Err(TimeClaimError::NotANumber("iat"))
        );
    }
}
