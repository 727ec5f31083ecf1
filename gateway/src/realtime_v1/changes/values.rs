//! A column's text (as the decoding session printed it, in UTC and ISO style) turned into
//! the JSON value `to_jsonb` gives, as Supabase sends it: numbers and booleans typed, json
//! parsed, dates and times in JSON's ISO form, the rest as strings. Types whose JSON form is
//! not plain (arrays, composites, domains, BC dates, infinities) are left to the database.

use serde_json::Value;

/// What the conversion needs to know of a column's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeInfo {
    pub name: String,
    /// `pg_type.typtype`: `b` base, `d` domain, `c` composite, `e` enum, `r` range…
    pub kind: char,
    /// `pg_type.typcategory`: `A` arrays.
    pub category: char,
}

const BOOL: &str = "bool";

/// The value's JSON, or `None` when the database must convert it.
pub fn to_json(text: &str, oid: u32, info: &TypeInfo) -> Option<Value> {
    if info.kind == 'd' || info.kind == 'c' || info.category == 'A' {
        return None;
    }
    match oid {
        16 if info.name == BOOL => Some(Value::Bool(text == "t")),
        20 | 21 | 23 | 26 | 700 | 701 | 1700 => number(text),
        114 | 3802 => serde_json::from_str(text).ok(),
        1082 | 1083 | 1114 | 1184 | 1266 => iso(text, oid).map(Value::String),
        _ => Some(Value::String(text.to_owned())),
    }
}

/// Finite numbers are JSON numbers; NaN and the infinities are strings, as `to_jsonb` has
/// them.
fn number(text: &str) -> Option<Value> {
    match serde_json::from_str::<Value>(text) {
        Ok(number @ Value::Number(_)) => Some(number),
        _ => Some(Value::String(text.to_owned())),
    }
}

/// `2025-03-01 12:00:00.5+00` → `2025-03-01T12:00:00.5+00:00`; dates and times without a
/// zone keep their text. `None` for what only the database writes right (BC, infinity).
fn iso(text: &str, oid: u32) -> Option<String> {
    if text.ends_with(" BC") || text.contains("infinity") {
        return None;
    }
    let mut out = match oid {
        1114 | 1184 => text.replacen(' ', "T", 1),
        _ => text.to_owned(),
    };
    if oid == 1184 || oid == 1266 {
        // The zone's offset: `+00` → `+00:00`, `+05:30` kept, `+05:30:15` kept.
        let sign_at = out.rfind(['+', '-'])?;
        let offset = &out[sign_at + 1..];
        if offset.len() == 2 {
            out.push_str(":00");
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn base(name: &str) -> TypeInfo {
        TypeInfo {
            name: name.into(),
            kind: 'b',
            category: 'N',
        }
    }

    #[test]
    fn values_take_to_jsonb_forms() {
        assert_eq!(to_json("t", 16, &base("bool")), Some(json!(true)));
        assert_eq!(to_json("42", 20, &base("int8")), Some(json!(42)));
        assert_eq!(to_json("1.5", 1700, &base("numeric")), Some(json!(1.5)));
        assert_eq!(to_json("NaN", 701, &base("float8")), Some(json!("NaN")));
        assert_eq!(
            to_json(r#"{"a": [1]}"#, 3802, &base("jsonb")),
            Some(json!({"a": [1]}))
        );
        assert_eq!(
            to_json("2026-11-28 13:14:02.559594+00", 1184, &base("timestamptz")),
            Some(json!("2026-11-28T13:14:02.559594+00:00"))
        );
        assert_eq!(
            to_json("2025-03-01 08:00:00", 1114, &base("timestamp")),
            Some(json!("2025-03-01T08:00:00"))
        );
        assert_eq!(
            to_json("08:00:00-03", 1266, &base("timetz")),
            Some(json!("08:00:00-03:00"))
        );
        assert_eq!(
            to_json("2025-03-01", 1082, &base("date")),
            Some(json!("2025-03-01"))
        );
        assert_eq!(to_json("0044-03-15 BC", 1082, &base("date")), None);
        assert_eq!(to_json("hola", 25, &base("text")), Some(json!("hola")));
        let array = TypeInfo {
            name: "_text".into(),
            kind: 'b',
            category: 'A',
        };
        assert_eq!(to_json("{a}", 1009, &array), None);
    }
}
