//! What storage/v1 accepts as bucket names, object keys, MIME types and size limits, as
//! Supabase Storage does (S3-safe ASCII), plus what a file system needs: a key never has an
//! empty, `.` or `..` segment, so it can never name a place outside its bucket.

use super::error::{StorageError, StorageResult};

/// S3's limit on key length, in bytes.
const MAX_KEY_BYTES: usize = 1024;
const MAX_BUCKET_NAME: usize = 100;

fn s3_safe(c: char, slash: bool) -> bool {
    c.is_ascii_alphanumeric() || "_!.*'() &$=@;:+,?-".contains(c) || (slash && c == '/')
}

/// An object key (the path after the bucket), refused as Supabase does with `InvalidKey`.
pub fn check_key(key: &str) -> StorageResult<()> {
    let valid = !key.is_empty()
        && key.len() <= MAX_KEY_BYTES
        && key.chars().all(|c| s3_safe(c, true))
        && key
            .split('/')
            .enumerate()
            .all(|(i, segment)| !matches!(segment, "." | "..") && (i == 0 || !segment.is_empty()))
        && !key.starts_with('/');
    if valid {
        Ok(())
    } else {
        Err(StorageError::invalid_key(key))
    }
}

/// A bucket name: S3-safe characters without `/`, 1 to 100 of them, not `.` or `..`.
pub fn check_bucket_name(name: &str) -> StorageResult<()> {
    let valid = !name.is_empty()
        && name.len() <= MAX_BUCKET_NAME
        && name.chars().all(|c| s3_safe(c, false))
        && name != "."
        && name != ".."
        && name.trim() == name;
    if valid {
        Ok(())
    } else {
        Err(StorageError::invalid_bucket_name())
    }
}

/// Whether `mime` is one of the bucket's allowed types: the same type and subtype, or the
/// subtype `*` (`image/*`). No list, or an empty one, allows everything. The strings are
/// compared as given (`text/plain;charset=UTF-8` is not `text/plain`), as Supabase does.
pub fn mime_allowed(mime: &str, allowed: Option<&[String]>) -> bool {
    let Some(allowed) = allowed.filter(|list| !list.is_empty()) else {
        return true;
    };
    let (kind, subtype) = mime.split_once('/').unwrap_or((mime, ""));
    allowed.iter().any(|pattern| {
        let (want_kind, want_subtype) = pattern.split_once('/').unwrap_or((pattern, ""));
        want_kind == kind && (want_subtype == subtype || want_subtype == "*")
    })
}

/// A bucket's `allowed_mime_types` entry: `type/subtype` with an optional charset, or
/// anything ending in `*`.
pub fn check_allowed_mime_type(pattern: &str) -> StorageResult<()> {
    let well_formed = || {
        let (essence, parameters) = pattern.split_once(';').unwrap_or((pattern, ""));
        let token = |part: &str| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-+.".contains(c))
        };
        let essence_ok = essence
            .split_once('/')
            .is_some_and(|(kind, subtype)| token(kind) && token(subtype));
        let parameters_ok = parameters.is_empty()
            || parameters
                .trim_start()
                .strip_prefix("charset=")
                .is_some_and(|charset| {
                    !charset.is_empty()
                        && charset
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '-')
                });
        essence_ok && parameters_ok
    };
    if pattern.len() <= 1000 && (pattern.ends_with('*') || well_formed()) {
        Ok(())
    } else {
        Err(StorageError::invalid_mime_type(pattern))
    }
}

/// A `file_size_limit` as storage-js sends it: a number of bytes, or a string such as
/// `20mb`, `1.5GB`, `30kb`, `3b` (decimal units, three significant digits, as Supabase).
pub fn parse_size_limit(value: &serde_json::Value) -> StorageResult<Option<u64>> {
    use serde_json::Value;
    let invalid = || {
        StorageError::invalid_request("Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B")
    };
    match value {
        Value::Null => Ok(None),
        Value::Number(number) => number
            .as_u64()
            .or_else(|| number.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
            .map(Some)
            .ok_or_else(invalid),
        Value::String(text) => {
            let lower = text.trim().to_ascii_lowercase();
            if let Ok(bytes) = lower.parse::<u64>() {
                return Ok(Some(bytes));
            }
            let digits_end = lower
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .ok_or_else(invalid)?;
            let (number, unit) = lower.split_at(digits_end);
            let multiplier: f64 = match unit {
                "b" => 1.0,
                "kb" => 1e3,
                "mb" => 1e6,
                "gb" => 1e9,
                _ => return Err(invalid()),
            };
            let value: f64 = number.parse().map_err(|_| invalid())?;
            let rounded: f64 = format!("{value:.3e}").parse().map_err(|_| invalid())?;
            Ok(Some((rounded * multiplier).round() as u64))
        }
        _ => Err(invalid()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_s3_safe_and_never_leave_their_bucket() {
        for good in [
            "a.png",
            "ana/2025/plan (1).pdf",
            "x/y/.emptyFolderPlaceholder",
            "a..b",
        ] {
            assert!(check_key(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "../etc/passwd",
            "a/../b",
            "a/./b",
            "/abs",
            "a//b",
            "nul\0",
            "tab\t",
            "ñandú.png",
            "a/..",
        ] {
            assert_eq!(
                check_key(bad).unwrap_err().code,
                "InvalidKey",
                "{bad:?} must be refused"
            );
        }
        assert!(check_key(&"a".repeat(1025)).is_err());
    }

    #[test]
    fn bucket_names() {
        assert!(check_bucket_name("avatars").is_ok());
        for bad in ["", "a/b", " lead", "..", &"b".repeat(101)] {
            assert!(check_bucket_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn mime_types_match_exactly_or_by_wildcard() {
        let allowed = vec!["image/*".to_owned(), "application/pdf".to_owned()];
        assert!(mime_allowed("image/png", Some(&allowed)));
        assert!(mime_allowed("application/pdf", Some(&allowed)));
        assert!(!mime_allowed("text/plain", Some(&allowed)));
        assert!(mime_allowed("text/plain", None));
        assert!(mime_allowed("text/plain", Some(&[])));
        let exact = vec!["text/plain".to_owned()];
        assert!(!mime_allowed("text/plain;charset=UTF-8", Some(&exact)));
        assert!(check_allowed_mime_type("image/*").is_ok());
        assert!(check_allowed_mime_type("text/plain; charset=utf-8").is_ok());
        assert!(check_allowed_mime_type("not a type").is_err());
    }

    #[test]
    fn size_limits_in_supabase_units() {
        assert_eq!(parse_size_limit(&json!("20mb")).unwrap(), Some(20_000_000));
        assert_eq!(parse_size_limit(&json!("1kb")).unwrap(), Some(1_000));
        assert_eq!(
            parse_size_limit(&json!("1.5GB")).unwrap(),
            Some(1_500_000_000)
        );
        assert_eq!(parse_size_limit(&json!(1024)).unwrap(), Some(1024));
        assert_eq!(parse_size_limit(&json!("100")).unwrap(), Some(100));
        assert_eq!(parse_size_limit(&json!(null)).unwrap(), None);
        assert!(parse_size_limit(&json!("20 furlongs")).is_err());
    }
}
