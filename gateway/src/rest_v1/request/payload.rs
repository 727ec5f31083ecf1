//! Request bodies of writes and function calls, as PostgREST reads them.
//!
//! The JSON text goes to PostgreSQL unchanged as one parameter; here it is only checked
//! and its keys collected (sorted: they become the columns of the statement), and for a
//! single object where each value is, so its fields can be sent as parameters of their
//! own ([`Payload::text_field`]). CSV and form bodies are turned into the equivalent JSON
//! first.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::ops::Range;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::media::MediaType;
use crate::rest_v1::error::{ApiError, PgError};

/// A body for a table write (or a JSON/CSV function call).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payload {
    /// JSON text of an object or an array of objects.
    pub json: String,
    /// Whether `json` is a single object (first non-blank byte `{`).
    pub object: bool,
    /// Payload keys, sorted and unique.
    pub keys: Vec<String>,
    /// Where each key's value is in `json`, in `keys` order: only for a single JSON object
    /// read whole (not with `columns=`) in which no key is given twice.
    pub value_spans: Option<Vec<Range<usize>>>,
}

impl Payload {
    fn empty_array() -> Self {
        Payload {
            json: "[]".into(),
            object: false,
            keys: Vec::new(),
            value_spans: None,
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
            value_spans: None,
        }
    }

    /// A single object's field as `json_to_record` hands it to a column's text input: a
    /// string unescaped, a number or boolean as written, `null` as `None`.
    ///
    /// `None` (outer) when the field does not reach a column that way, or is not known:
    /// an object or array (`json_to_record` converts those by the column's type), a string
    /// holding `\u0000` or a lone surrogate (PostgreSQL refuses to unescape those, in its
    /// own words), or a payload without [`Payload::value_spans`].
    pub fn text_field(&self, key: &str) -> Option<Option<String>> {
        let spans = self.value_spans.as_ref()?;
        let index = self
            .keys
            .binary_search_by(|probe| probe.as_str().cmp(key))
            .ok()?;
        let text = &self.json[spans[index].clone()];
        match text.as_bytes().first()? {
            b'n' => Some(None),
            b't' | b'f' | b'-' | b'0'..=b'9' => Some(Some(text.to_owned())),
            b'"' if !text.contains('\\') => Some(Some(text[1..text.len() - 1].to_owned())),
            b'"' => serde_json::from_str::<String>(text)
                .ok()
                .filter(|string| !string.contains('\0'))
                .map(Some),
            _ => None,
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

/// The body of POST/PATCH/PUT on a table. `columns` (POST/PATCH only) skips inspection; such
/// a body that is not UTF-8 is read lossily here and refused once the request is planned
/// ([`columns_body_encoding_error`]), where PostgreSQL would refuse it.
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

/// PostgreSQL's answer to a JSON body sent with `columns=` that is not valid UTF-8 or holds
/// a NUL byte. PostgREST hands such a body to the database unread, which refuses the
/// parameter while binding it, after every check of the request: `22021` naming the
/// bytes of the first bad character (the length its first byte announces, at most what is
/// left, as PostgreSQL's `report_invalid_encoding` prints them). Callers ask once the
/// request is planned ([`check_columns_body`]).
pub fn columns_body_encoding_error(body: &[u8]) -> Option<PgError> {
    let invalid_utf8 = std::str::from_utf8(body)
        .err()
        .map(|error| error.valid_up_to());
    let nul = body.iter().position(|&byte| byte == 0);
    let at = match (invalid_utf8, nul) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    let rest = &body[at..];
    let announced = match rest[0] {
        byte if byte & 0xe0 == 0xc0 => 2,
        byte if byte & 0xf0 == 0xe0 => 3,
        byte if byte & 0xf8 == 0xf0 => 4,
        _ => 1,
    };
    let bytes: Vec<String> = rest[..announced.min(rest.len())]
        .iter()
        .map(|byte| format!("0x{byte:02x}"))
        .collect();
    Some(PgError {
        code: "22021".to_owned(),
        message: format!(
            "invalid byte sequence for encoding \"UTF8\": {}",
            bytes.join(" ")
        ),
        detail: None,
        hint: None,
    })
}

/// [`columns_body_encoding_error`] as the request's answer (`anonymous`: it ran as anon).
pub fn check_columns_body(body: &[u8], anonymous: bool) -> Result<(), ApiError> {
    match columns_body_encoding_error(body) {
        Some(error) => Err(ApiError::Database { error, anonymous }),
        None => Ok(()),
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
            value_spans: None,
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
    // JSON is UTF-8 throughout; PostgREST's parser refuses anything else, skipped values too.
    let text = std::str::from_utf8(body).map_err(|_| invalid("Empty or invalid json"))?;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let shape = ShapeOf { top: true }
        .deserialize(&mut deserializer)
        .and_then(|shape| deserializer.end().map(|()| shape))
        .map_err(|_| invalid("Empty or invalid json"))?;
    // Each level takes two bytes, so a short body cannot nest too deeply: most skip the scan.
    if body.len() > 2 * MAX_JSON_NESTING && nesting_depth(body) > MAX_JSON_NESTING {
        return Err(invalid(&format!(
            "JSON nested deeper than {MAX_JSON_NESTING} levels"
        )));
    }
    let raw = || text.to_owned();
    match shape {
        JsonShape::Object(keys, values) => {
            let mut payload = Payload::from_raw(raw(), keys.into_iter().collect());
            payload.value_spans = values.map(|values| {
                values
                    .iter()
                    .map(|value| {
                        let start = value.get().as_ptr() as usize - text.as_ptr() as usize;
                        start..start + value.get().len()
                    })
                    .collect()
            });
            Ok(payload)
        }
        JsonShape::Objects(Some(keys)) => Ok(Payload::from_raw(raw(), keys.into_iter().collect())),
        // Scalars insert nothing, like an empty array.
        JsonShape::Objects(None) | JsonShape::Other => Ok(Payload::empty_array()),
        JsonShape::MixedArray => Err(invalid("All object keys must match")),
    }
}

/// Deepest nesting of arrays and objects a JSON body may have. PostgreSQL parses JSON
/// recursively and, with its default `max_stack_depth`, gives up somewhere past 10,000
/// levels with error 54001 (a 500); far below that, and far above any real document, the
/// body is refused as bad input instead, before it reaches the database.
const MAX_JSON_NESTING: usize = 1000;

/// How deeply arrays and objects nest in `body`, which is valid JSON: brackets inside
/// strings do not count. A loop rather than a recursion, so no depth can exhaust the stack.
fn nesting_depth(body: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0_usize, 0_usize);
    let mut bytes = body.iter();
    while let Some(&byte) = bytes.next() {
        match byte {
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'"' => {
                while let Some(&byte) = bytes.next() {
                    match byte {
                        b'\\' => {
                            bytes.next();
                        }
                        b'"' => break,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    deepest
}

/// A JSON value's shape, read without building the document: values are checked and
/// skipped, only keys are kept (and where a single object's values are). A bulk body costs
/// its key sets rather than a tree several times its size.
#[derive(Debug)]
enum JsonShape<'de> {
    /// An object's keys; at the top level also its values' text, in key order (`None`
    /// below the top or when a key is given twice).
    Object(BTreeSet<String>, Option<Vec<&'de RawValue>>),
    /// A top-level array whose elements are all objects with the same keys (`None`: empty).
    Objects(Option<BTreeSet<String>>),
    /// A top-level array with a non-object element or differing key sets.
    MixedArray,
    /// A scalar, or an array below the top level.
    Other,
}

/// Reads one value's [`JsonShape`]; only the top level looks into arrays.
#[derive(Clone, Copy)]
struct ShapeOf {
    top: bool,
}

impl<'de> DeserializeSeed<'de> for ShapeOf {
    type Value = JsonShape<'de>;

    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<JsonShape<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ShapeOf {
    type Value = JsonShape<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonShape<'de>, A::Error> {
        if !self.top {
            let mut keys = BTreeSet::new();
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<IgnoredAny>()?;
                keys.insert(key);
            }
            return Ok(JsonShape::Object(keys, None));
        }
        // A single object: its values are kept (as text) for `Payload::text_field`.
        let mut fields = BTreeMap::new();
        let mut repeated = false;
        while let Some(key) = map.next_key::<String>()? {
            repeated |= fields.insert(key, map.next_value::<&RawValue>()?).is_some();
        }
        let (keys, values): (BTreeSet<String>, Vec<&RawValue>) = fields.into_iter().unzip();
        Ok(JsonShape::Object(keys, (!repeated).then_some(values)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JsonShape<'de>, A::Error> {
        if !self.top {
            return IgnoredAny.visit_seq(seq).map(|_| JsonShape::Other);
        }
        let element = ShapeOf { top: false };
        let keys_of = |shape| match shape {
            JsonShape::Object(keys, _) => Some(keys),
            _ => None,
        };
        let Some(first) = seq.next_element_seed(element)?.map(keys_of) else {
            return Ok(JsonShape::Objects(None));
        };
        let mut uniform = first.is_some();
        while uniform {
            match seq.next_element_seed(element)?.map(keys_of) {
                Some(keys) => uniform = keys == first,
                None => return Ok(JsonShape::Objects(first)),
            }
        }
        // The rest is still read, so invalid JSON anywhere is reported as such.
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(JsonShape::MixedArray)
    }

    fn visit_unit<E>(self) -> Result<JsonShape<'de>, E> {
        Ok(JsonShape::Other)
    }

    fn visit_bool<E>(self, _: bool) -> Result<JsonShape<'de>, E> {
        Ok(JsonShape::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<JsonShape<'de>, E> {
        Ok(JsonShape::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<JsonShape<'de>, E> {
        Ok(JsonShape::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<JsonShape<'de>, E> {
        Ok(JsonShape::Other)
    }

    fn visit_str<E>(self, _: &str) -> Result<JsonShape<'de>, E> {
        Ok(JsonShape::Other)
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
        value_spans: None,
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
        value_spans: None,
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
    fn a_columns_body_gets_postgresqls_encoding_error() {
        let message = |body: &[u8]| columns_body_encoding_error(body).map(|error| error.message);
        assert_eq!(message("[{\"a\":\"é\"}]".as_bytes()), None);
        let cases: [(&[u8], &str); 7] = [
            (b"[{\"a\":\"\xff\"}]", "0xff"),
            (b"[{\"a\":\"\xc3(\"}]", "0xc3 0x28"),
            (b"[{\"a\":\"\xe2\x28\xa1\"}]", "0xe2 0x28 0xa1"),
            (b"[{\"a\":\"\xed\xa0\x80\"}]", "0xed 0xa0 0x80"),
            (b"[{\"a\":\"\xf0\x9f", "0xf0 0x9f"),
            (b"[{\"a\":\"\x00\xff\"}]", "0x00"),
            (b"[{\"a\":\"\xff\x00\"}]", "0xff"),
        ];
        for (body, bytes) in cases {
            let error = columns_body_encoding_error(body).unwrap();
            assert_eq!(error.code, "22021");
            assert_eq!(
                error.message,
                format!("invalid byte sequence for encoding \"UTF8\": {bytes}")
            );
        }
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
        // Not UTF-8, even in a value that is only skipped.
        for body in [&b"{\"a\":\"\xff\"}"[..], b"[{\"a\":[\"\xc3\"]}]"] {
            let error = table_body(&MediaType::Json, body, None).unwrap_err();
            assert_eq!(error.body()["message"], "Empty or invalid json");
        }
        let error = table_body(&MediaType::TextPlain, b"x", None).unwrap_err();
        assert_eq!(
            error.body()["message"],
            "Content-Type not acceptable: text/plain"
        );
    }

    #[test]
    fn hostile_nesting_is_refused_without_recursion() {
        let deep = |open: &str, close: &str, depth: usize| {
            format!(
                r#"{{"a":{}1{}}}"#,
                open.repeat(depth - 1),
                close.repeat(depth - 1)
            )
        };
        let refusal = "JSON nested deeper than 1000 levels";
        for (open, close) in [("[", "]"), (r#"{"b":"#, "}")] {
            assert_eq!(json(&deep(open, close, 1000)).unwrap().keys, ["a"]);
            assert_eq!(json(&deep(open, close, 1001)).unwrap_err(), refusal);
            assert_eq!(json(&deep(open, close, 100_000)).unwrap_err(), refusal);
        }
        let rows = format!(r#"[{{"a":{}1{}}}]"#, "[".repeat(999), "]".repeat(999));
        assert_eq!(json(&rows).unwrap_err(), refusal);
        // Past the shape check too: a top-level array of deep arrays.
        let arrays = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(json(&arrays).is_err());
    }

    #[test]
    fn brackets_in_strings_do_not_nest() {
        assert_eq!(nesting_depth(br#"{"a":"[[[{{"}"#), 1);
        assert_eq!(nesting_depth(br#"{"a":"\"[[","b":[1]}"#), 2);
        assert_eq!(nesting_depth(br#"["\\",["\""]]"#), 2);
        assert_eq!(nesting_depth(b"5"), 0);
    }

    #[test]
    fn json_bodies_are_checked_whole() {
        // Invalid JSON after a mismatch, or after the first element, is still invalid JSON.
        assert_eq!(
            json(r#"[{"a":1},{"b":2},"#).unwrap_err(),
            "Empty or invalid json"
        );
        assert_eq!(json(r#"[1,{"#).unwrap_err(), "Empty or invalid json");
        assert_eq!(json(r#"{"a":1} x"#).unwrap_err(), "Empty or invalid json");
        assert_eq!(
            json(r#"{"a":[1,{"b":}]}"#).unwrap_err(),
            "Empty or invalid json"
        );
        // Repeated keys count once; nested values do not add keys.
        let payload = json(r#"[{"a":1,"a":2,"n":{"x":1}},{"n":[],"a":null}]"#).unwrap();
        assert_eq!(payload.keys, ["a", "n"]);
        assert_eq!(
            json(r#"[{"a":1},{"a":1,"b":2}]"#).unwrap_err(),
            "All object keys must match"
        );
        assert_eq!(
            json(r#"[{"a":1},[]]"#).unwrap_err(),
            "All object keys must match"
        );
        assert_eq!(json(r#""texto""#).unwrap().json, "[]");
        assert_eq!(json("null").unwrap().json, "[]");
    }

    mod shape_against_a_parsed_tree {
        use super::*;
        use proptest::prelude::*;

        /// What the body's keys are when read from a fully parsed document.
        fn reference(body: &str) -> Result<Vec<String>, String> {
            let value: Value = serde_json::from_str(body).map_err(|_| "invalid".to_owned())?;
            let keys = |object: &Map<String, Value>| object.keys().cloned().collect::<Vec<_>>();
            match &value {
                Value::Object(object) => Ok(sorted(keys(object))),
                Value::Array(items) => {
                    match items.first() {
                        None => Ok(Vec::new()),
                        Some(Value::Object(first)) => {
                            let first = sorted(keys(first));
                            items
                            .iter()
                            .all(|item| matches!(item, Value::Object(o) if sorted(keys(o)) == first))
                            .then_some(first)
                            .ok_or_else(|| "mixed".to_owned())
                        }
                        Some(_) => Err("mixed".to_owned()),
                    }
                }
                _ => Ok(Vec::new()),
            }
        }

        fn any_json() -> impl Strategy<Value = Value> {
            let key = prop::sample::select(vec!["a", "b", "c", "ñ", "\"quoted\""]);
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::Bool),
                any::<i64>().prop_map(Value::from),
                "[a-z ,{}\\[\\]\"]{0,6}".prop_map(Value::String),
            ];
            leaf.prop_recursive(4, 48, 4, move |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                    prop::collection::vec((key.clone(), inner), 0..4).prop_map(|pairs| {
                        Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
                    }),
                ]
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(500))]

            #[test]
            fn keys_match_the_tree(value in any_json(), cut in 0usize..64) {
                let body = value.to_string();
                let read = |body: &str| match json_body(body.as_bytes()) {
                    Ok(payload) => Ok(payload.keys),
                    Err(error) => Err(match error.body()["message"].as_str().unwrap() {
                        "Empty or invalid json" => "invalid".to_owned(),
                        _ => "mixed".to_owned(),
                    }),
                };
                prop_assert_eq!(read(&body), reference(&body));
                // A truncated body must be refused the same way.
                let truncated = &body[..body.floor_char_boundary(cut.min(body.len()))];
                prop_assert_eq!(read(truncated), reference(truncated));
            }
        }
    }

    #[test]
    fn text_fields_are_what_json_to_record_gives_a_columns_text_input() {
        let payload =
            json(r#" { "s": "a\"b\u00e9\n", "p": "plain", "n": -1.50E+3, "t": true, "f": false, "z": null } "#)
                .unwrap();
        let text = |key: &str| payload.text_field(key).unwrap();
        assert_eq!(text("s").as_deref(), Some("a\"b\u{e9}\n"));
        assert_eq!(text("p").as_deref(), Some("plain"));
        assert_eq!(text("n").as_deref(), Some("-1.50E+3"));
        assert_eq!(text("t").as_deref(), Some("true"));
        assert_eq!(text("f").as_deref(), Some("false"));
        assert_eq!(text("z"), None);
        assert_eq!(payload.text_field("missing"), None);
    }

    #[test]
    fn fields_json_to_record_reads_otherwise_have_no_text_form() {
        let payload =
            json(r#"{"o":{"b":1},"a":[1],"nul":"x\u0000y","lone":"\ud800","ok":1}"#).unwrap();
        for key in ["o", "a", "nul", "lone"] {
            assert_eq!(payload.text_field(key), None, "{key}");
        }
        assert_eq!(payload.text_field("ok"), Some(Some("1".into())));
        // Not known: a key given twice, arrays, `columns=` (not read first), forms and CSV.
        let twice = json(r#"{"a":1,"a":2}"#).unwrap();
        assert_eq!((twice.keys.len(), twice.text_field("a")), (1, None));
        assert_eq!(json(r#"[{"a":1}]"#).unwrap().text_field("a"), None);
        let listed = table_body(&MediaType::Json, br#"{"a":1}"#, Some(&["a".into()])).unwrap();
        assert_eq!(listed.text_field("a"), None);
        let form = table_body(&MediaType::UrlEncoded, b"a=1", None).unwrap();
        assert_eq!(form.text_field("a"), None);
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
                keys: vec![],
                value_spans: None,
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
