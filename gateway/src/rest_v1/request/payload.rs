//! Request bodies of writes and function calls, as PostgREST reads them.
//!
//! The JSON text goes to PostgreSQL unchanged as one parameter; here it is only checked
//! and its keys collected (sorted: they become the columns of the statement). CSV and
//! form bodies are turned into the equivalent JSON first.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::super::error::ApiError;
use super::media::MediaType;

/// A body for a table write (or a JSON/CSV function call).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payload {
    /// JSON text of an object or an array of objects.
    pub json: String,
    /// Whether `json` is a single object (first non-blank byte `{`).
    pub object: bool,
    /// Payload keys, sorted and unique.
    pub keys: Vec<String>,
}

impl Payload {
    fn empty_array() -> Self {
        Payload {
            json: "[]".into(),
            object: false,
            keys: Vec::new(),
        }
    }

    fn from_raw(raw: String, keys: Vec<String>) -> Self {
        let object = raw
            .trim_start_matches([' ', '\t', '\n', '\r'])
            .starts_with('{');
        Payload {
            json: raw,
            object,
            keys,
        }
    }
}

/// What a function call receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallBody {
    /// JSON (or CSV) arguments.
    Json(Payload),
    /// `x-www-form-urlencoded`: arguments as text, repeats kept.
    Form(Vec<(String, String)>),
    /// `text/plain`, `text/xml` or `application/octet-stream`: one unnamed argument.
    Raw { media: MediaType, bytes: Vec<u8> },
}

fn invalid(message: &str) -> ApiError {
    ApiError::InvalidBody(message.to_owned())
}

fn not_acceptable(media: &MediaType) -> ApiError {
    ApiError::InvalidBody(format!("Content-Type not acceptable: {}", media.mime()))
}

/// The body of POST/PATCH/PUT on a table. `columns` (POST/PATCH only) skips inspection.
pub fn table_body(
    content_type: &MediaType,
    body: &[u8],
    columns: Option<&[String]>,
) -> Result<Payload, ApiError> {
    match content_type {
        MediaType::Json => match columns {
            Some(columns) => Ok(Payload::from_raw(
                String::from_utf8_lossy(body).into_owned(),
                sorted(columns.iter().cloned()),
            )),
            None => json_body(body),
        },
        MediaType::Csv => csv_body(body),
        MediaType::UrlEncoded => Ok(form_object(body)),
        other => Err(not_acceptable(other)),
    }
}

/// The body of `POST /rpc/fn`.
pub fn call_body(
    content_type: &MediaType,
    body: &[u8],
    columns: Option<&[String]>,
) -> Result<CallBody, ApiError> {
    match content_type {
        MediaType::Json if body.is_empty() => Ok(CallBody::Json(Payload {
            json: "{}".into(),
            object: true,
            keys: Vec::new(),
        })),
        MediaType::Json | MediaType::Csv => {
            table_body(content_type, body, columns).map(CallBody::Json)
        }
        MediaType::UrlEncoded => Ok(CallBody::Form(
            url::form_urlencoded::parse(&semicolons_as_ampersands(body))
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )),
        MediaType::TextPlain | MediaType::TextXml | MediaType::OctetStream => Ok(CallBody::Raw {
            media: content_type.clone(),
            bytes: body.to_vec(),
        }),
        other => Err(not_acceptable(other)),
    }
}

fn sorted(keys: impl IntoIterator<Item = String>) -> Vec<String> {
    keys.into_iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

fn json_body(body: &[u8]) -> Result<Payload, ApiError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|_| invalid("Empty or invalid json"))?;
    let raw = || String::from_utf8_lossy(body).into_owned();
    match &value {
        Value::Object(object) => Ok(Payload::from_raw(raw(), sorted(object.keys().cloned()))),
        Value::Array(items) => match items.first() {
            None => Ok(Payload::empty_array()),
            Some(Value::Object(first)) => {
                let keys: BTreeSet<&String> = first.keys().collect();
                let uniform = items.iter().all(|item| match item {
                    Value::Object(object) => object.keys().collect::<BTreeSet<_>>() == keys,
                    _ => false,
                });
                if !uniform {
                    return Err(invalid("All object keys must match"));
                }
                Ok(Payload::from_raw(
                    raw(),
                    keys.into_iter().cloned().collect(),
                ))
            }
            Some(_) => Err(invalid("All object keys must match")),
        },
        // Scalars insert nothing, like an empty array.
        _ => Ok(Payload::empty_array()),
    }
}

/// CSV with a header line; the cell `NULL` is a null, every other cell a string.
fn csv_body(body: &[u8]) -> Result<Payload, ApiError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(body);
    let headers: Vec<String> = reader
        .headers()
        .map_err(|error| invalid(&format!("parse error ({error})")))?
        .iter()
        .map(str::to_owned)
        .collect();
    let mut rows: Vec<Value> = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|error| invalid(&format!("parse error ({error})")))?;
        let mut object = Map::new();
        for (name, cell) in headers.iter().zip(record.iter()) {
            let value = if cell == "NULL" {
                Value::Null
            } else {
                Value::String(cell.to_owned())
            };
            object.insert(name.clone(), value);
        }
        rows.push(Value::Object(object));
    }
    let Some(Value::Object(first)) = rows.first() else {
        return Ok(Payload::empty_array());
    };
    let keys: BTreeSet<String> = first.keys().cloned().collect();
    let uniform = rows.iter().all(|row| match row {
        Value::Object(object) => object.keys().cloned().collect::<BTreeSet<_>>() == keys,
        _ => false,
    });
    if !uniform {
        return Err(invalid("All lines must have same number of fields"));
    }
    Ok(Payload {
        json: Value::Array(rows).to_string(),
        object: false,
        keys: keys.into_iter().collect(),
    })
}

fn semicolons_as_ampersands(body: &[u8]) -> Vec<u8> {
    body.iter()
        .map(|b| if *b == b';' { b'&' } else { *b })
        .collect()
}

/// A form body as one object of strings (later duplicates win).
fn form_object(body: &[u8]) -> Payload {
    let mut object = Map::new();
    for (key, value) in url::form_urlencoded::parse(&semicolons_as_ampersands(body)) {
        object.insert(key.into_owned(), Value::String(value.into_owned()));
    }
    let keys = sorted(object.keys().cloned());
    Payload {
        json: Value::Object(object).to_string(),
        object: true,
        keys,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(body: &str) -> Result<Payload, String> {
        table_body(&MediaType::Json, body.as_bytes(), None)
            .map_err(|e| e.body()["message"].as_str().unwrap().to_owned())
    }

    #[test]
    fn json_objects_and_uniform_arrays() {
        let payload = json(r#"{"b":1,"a":2}"#).unwrap();
        assert_eq!(payload.keys, ["a", "b"]);
        assert!(payload.object);
        assert_eq!(payload.json, r#"{"b":1,"a":2}"#);
        let payload = json(r#" [{"a":1},{"a":2}]"#).unwrap();
        assert!(!payload.object);
        assert_eq!(payload.keys, ["a"]);
        assert_eq!(json("[]").unwrap().keys, Vec::<String>::new());
        assert_eq!(json("5").unwrap().json, "[]");
    }

    #[test]
    fn body_errors_have_postgrests_messages() {
        assert_eq!(json("").unwrap_err(), "Empty or invalid json");
        assert_eq!(json("{").unwrap_err(), "Empty or invalid json");
        assert_eq!(
            json(r#"[{"a":1},{"b":2}]"#).unwrap_err(),
            "All object keys must match"
        );
        assert_eq!(json("[1,2]").unwrap_err(), "All object keys must match");
        let error = table_body(&MediaType::TextPlain, b"x", None).unwrap_err();
        assert_eq!(
            error.body()["message"],
            "Content-Type not acceptable: text/plain"
        );
    }

    #[test]
    fn columns_skip_inspection() {
        let payload = table_body(
            &MediaType::Json,
            b"not json",
            Some(&["b".into(), "a".into()]),
        )
        .unwrap();
        assert_eq!(payload.keys, ["a", "b"]);
        assert_eq!(payload.json, "not json");
    }

    #[test]
    fn csv_and_form_become_json() {
        let payload = table_body(
            &MediaType::Csv,
            b"name,grade\nAna,NULL\n\"Soto, B\",6.5\n",
            None,
        )
        .unwrap();
        assert_eq!(payload.keys, ["grade", "name"]);
        assert_eq!(
            serde_json::from_str::<Value>(&payload.json).unwrap(),
            serde_json::json!([{"name": "Ana", "grade": null}, {"name": "Soto, B", "grade": "6.5"}])
        );
        let error = table_body(&MediaType::Csv, b"a,b\nfoo,bar\nbaz", None).unwrap_err();
        assert_eq!(
            error.body()["message"],
            "All lines must have same number of fields"
        );
        let payload =
            table_body(&MediaType::UrlEncoded, b"name=Ana+P%C3%A9rez&ok=true", None).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&payload.json).unwrap(),
            serde_json::json!({"name": "Ana Pérez", "ok": "true"})
        );
    }

    #[test]
    fn rpc_bodies() {
        assert_eq!(
            call_body(&MediaType::Json, b"", None).unwrap(),
            CallBody::Json(Payload {
                json: "{}".into(),
                object: true,
                keys: vec![]
            })
        );
        assert!(matches!(
            call_body(&MediaType::TextPlain, b"hola", None).unwrap(),
            CallBody::Raw { .. }
        ));
        assert_eq!(
            call_body(&MediaType::UrlEncoded, b"v=a&v=b", None).unwrap(),
            CallBody::Form(vec![("v".into(), "a".into()), ("v".into(), "b".into())])
        );
    }
}
