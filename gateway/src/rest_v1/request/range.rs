//! The top-level range of a read: `limit`/`offset` intersected with the `Range` header
//! (GET only), with PostgREST's rules for empty ranges, and `Content-Range`/status.

use crate::rest_v1::error::ApiError;

/// An inclusive range of row positions; `upper: None` is unbounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowRange {
    pub lower: i64,
    pub upper: Option<i64>,
}

impl RowRange {
    pub const ALL: RowRange = RowRange {
        lower: 0,
        upper: None,
    };
    /// `limit=0`: empty, but recognisable (upper bound exactly −1).
    pub const LIMIT_ZERO: RowRange = RowRange {
        lower: 0,
        upper: Some(-1),
    };

    pub fn is_empty(self) -> bool {
        self.upper.is_some_and(|upper| upper < self.lower)
    }

    fn intersect(self, other: RowRange) -> RowRange {
        if self.is_empty() || other.is_empty() {
            return RowRange {
                lower: 0,
                upper: Some(-2),
            };
        }
        RowRange {
            lower: self.lower.max(other.lower),
            upper: match (self.upper, other.upper) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    /// `LIMIT` and `OFFSET` for SQL: `(None, 0)` means "everything".
    pub fn limit_offset(self) -> (Option<i64>, i64) {
        if self == RowRange::LIMIT_ZERO {
            return (Some(0), 0);
        }
        match self.upper {
            Some(upper) => (
                Some(upper.saturating_sub(self.lower).saturating_add(1).max(0)),
                self.lower,
            ),
            None => (None, self.lower),
        }
    }

    pub fn is_all(self) -> bool {
        self == RowRange::ALL
    }
}

/// `Range: 0-9` (no unit, one range) or nothing.
fn header_range(value: Option<&str>) -> RowRange {
    let Some(value) = value else {
        return RowRange::ALL;
    };
    let Some((lower, upper)) = value.split_once('-') else {
        return RowRange::ALL;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(lower) || !(upper.is_empty() || digits(upper)) {
        return RowRange::ALL;
    }
    match (lower.parse::<i64>(), upper.parse::<i64>()) {
        (Ok(lower), Ok(upper)) => RowRange {
            lower,
            upper: Some(upper),
        },
        (Ok(lower), Err(_)) if upper.is_empty() => RowRange { lower, upper: None },
        _ => RowRange::ALL,
    }
}

/// The range of `limit`/`offset` query parameters.
fn query_range(limit: Option<i64>, offset: Option<i64>) -> RowRange {
    match (limit, offset) {
        (None, None) => RowRange::ALL,
        (Some(limit), None) => RowRange {
            lower: 0,
            upper: Some(limit.saturating_sub(1)),
        },
        (None, Some(offset)) => RowRange {
            lower: offset,
            upper: None,
        },
        (Some(limit), Some(offset)) => RowRange {
            lower: offset,
            upper: Some(offset.saturating_add(limit.max(0)).saturating_sub(1)),
        },
    }
}

/// The root range for a request. `range_header` is only honoured on GET.
pub fn top_range(
    is_get: bool,
    range_header: Option<&str>,
    limit: Option<i64>,
    offset: Option<i64>,
) -> Result<RowRange, ApiError> {
    let header = if is_get {
        header_range(range_header)
    } else {
        RowRange::ALL
    };
    let from_query = query_range(limit, offset);
    if from_query.upper == Some(-1) {
        return Ok(RowRange::LIMIT_ZERO);
    }
    let top = header.intersect(from_query);
    if top.is_empty() {
        return Err(ApiError::InvalidRange(if header.is_empty() {
            "The lower boundary must be lower than or equal to the upper boundary in the Range header."
        } else {
            "Limit should be greater than or equal to zero."
        }));
    }
    Ok(top)
}

/// `Content-Range` and status of a read: `lower` is the requested range's lower bound,
/// `rows` the rows returned, `total` the count if one was requested.
pub fn content_range(lower: i64, rows: i64, total: Option<i64>) -> (String, u16) {
    let upper = lower + rows - 1;
    let mut number = itoa::Buffer::new();
    let mut header = String::with_capacity(24);
    if total != Some(0) && lower <= upper {
        header.push_str(number.format(lower));
        header.push('-');
        header.push_str(number.format(upper));
        header.push('/');
    } else {
        header.push_str("*/");
    }
    match total {
        Some(total) => header.push_str(number.format(total)),
        None => header.push('*'),
    }
    let status = match total {
        None => 200,
        Some(total) if lower > total => 416,
        Some(total) if rows < total => 206,
        Some(_) => 200,
    };
    (header, status)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn top(
        get: bool,
        header: Option<&str>,
        limit: Option<i64>,
        offset: Option<i64>,
    ) -> Result<(Option<i64>, i64), String> {
        top_range(get, header, limit, offset)
            .map(RowRange::limit_offset)
            .map_err(|e| e.body()["details"].as_str().unwrap_or_default().to_owned())
    }

    #[test]
    fn follows_postgrests_range_rules() {
        assert_eq!(top(true, None, None, None), Ok((None, 0)));
        assert_eq!(top(true, None, Some(0), None), Ok((Some(0), 0)));
        assert_eq!(top(true, None, Some(3), Some(2)), Ok((Some(3), 2)));
        assert_eq!(top(true, None, None, Some(-4)), Ok((None, 0)));
        assert_eq!(top(true, None, Some(5), Some(-4)), Ok((Some(1), 0)));
        assert_eq!(top(true, Some("0-1"), Some(3), None), Ok((Some(2), 0)));
        assert_eq!(top(true, Some("10-"), None, None), Ok((None, 10)));
        assert_eq!(top(false, Some("0-1"), None, None), Ok((None, 0)));
        assert_eq!(top(true, Some("bytes=0-1"), None, None), Ok((None, 0)));
        let limit = Err("Limit should be greater than or equal to zero.".to_owned());
        assert_eq!(top(true, None, Some(-1), None), limit);
        assert_eq!(top(true, None, Some(0), Some(5)), limit);
        assert_eq!(top(true, None, Some(3), Some(-4)), limit);
        assert_eq!(top(true, Some("2-5"), None, Some(10)), limit);
        assert_eq!(
            top(true, Some("1-0"), None, None),
            Err("The lower boundary must be lower than or equal to the upper boundary in the Range header.".to_owned())
        );
        assert_eq!(top(false, Some("1-0"), None, None), Ok((None, 0)));
    }

    #[test]
    fn content_range_and_status() {
        assert_eq!(content_range(0, 15, None), ("0-14/*".into(), 200));
        assert_eq!(content_range(2, 3, None), ("2-4/*".into(), 200));
        assert_eq!(content_range(0, 0, None), ("*/*".into(), 200));
        assert_eq!(content_range(0, 0, Some(0)), ("*/0".into(), 200));
        assert_eq!(content_range(0, 2, Some(15)), ("0-1/15".into(), 206));
        assert_eq!(content_range(0, 4, Some(4)), ("0-3/4".into(), 200));
        assert_eq!(content_range(1, 0, Some(0)), ("*/0".into(), 416));
        assert_eq!(content_range(15, 0, Some(15)), ("*/15".into(), 206));
    }
}
