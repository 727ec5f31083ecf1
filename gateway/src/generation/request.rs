//! What a `generate-plan` request asks for, read from its JSON body and checked before
//! anything else runs: the level and subject codes in the curriculum's own formats, one to
//! [`MAX_OBJECTIVES`] OA codes, the duration in 45-minute blocks, and the teacher's optional
//! texts (course, class title, notes), bounded in size; and the field checks the other
//! generation functions' bodies share. Whether the OAs exist is the curriculum's question
//! ([`super::curriculum`]).

use serde::Deserialize;

use super::error::GenerationError;

/// Largest body accepted (a zone's current content included).
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Most OAs one class can be planned for.
pub const MAX_OBJECTIVES: usize = 5;
/// Longest class, in 45-minute blocks.
pub const MAX_BLOCKS: u8 = 8;
/// Longest teacher text (course, class title, notes), in characters.
pub const MAX_TEXT_CHARS: usize = 2000;
const MAX_CODE_CHARS: usize = 60;

/// A valid `generate-plan` request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanRequest {
    pub level_code: String,
    pub subject_code: String,
    /// Trimmed, without repetitions, in the order given.
    pub objective_codes: Vec<String>,
    /// 45-minute blocks, 1 to [`MAX_BLOCKS`].
    pub blocks: u8,
    /// The course, e.g. "7° Básico A".
    pub course: Option<String>,
    /// The class's title or topic.
    pub class_title: Option<String>,
    /// Anything else the teacher wants the model to know. Data for the prompt only.
    pub notes: Option<String>,
}

impl PlanRequest {
    /// Minutes of class.
    pub fn minutes(&self) -> u32 {
        u32::from(self.blocks) * 45
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    level_code: String,
    subject_code: String,
    objective_codes: Vec<String>,
    blocks: Option<u8>,
    course: Option<String>,
    class_title: Option<String>,
    notes: Option<String>,
}

pub(super) fn invalid(message: impl Into<String>) -> GenerationError {
    GenerationError::InvalidRequest(message.into())
}

/// Reads and checks a `generate-plan` body.
pub fn parse(body: &[u8]) -> Result<PlanRequest, GenerationError> {
    let raw: Body = read_json(body, "{level_code, subject_code, objective_codes, blocks}")?;

    let level_code = level_code(&raw.level_code)?;
    let subject_code = subject_code(&raw.subject_code)?;
    let objective_codes = objective_codes(&raw.objective_codes, 1, MAX_OBJECTIVES)?;

    let blocks = raw.blocks.unwrap_or(1);
    if !(1..=MAX_BLOCKS).contains(&blocks) {
        return Err(invalid(format!(
            "blocks must be 1 to {MAX_BLOCKS} (45-minute blocks)"
        )));
    }

    Ok(PlanRequest {
        level_code,
        subject_code,
        objective_codes,
        blocks,
        course: text("course", raw.course)?,
        class_title: text("class_title", raw.class_title)?,
        notes: text("notes", raw.notes)?,
    })
}

/// A JSON body of type `T`; `shape` names its fields for the error of an empty body.
pub(super) fn read_json<T: serde::de::DeserializeOwned>(
    body: &[u8],
    shape: &str,
) -> Result<T, GenerationError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(invalid(format!(
            "the body is larger than {MAX_BODY_BYTES} bytes"
        )));
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(invalid(format!("send a JSON body: {shape}")));
    }
    serde_json::from_slice(body)
        .map_err(|error| invalid(format!("the body is not a valid request: {error}")))
}

/// A level code of the curriculum: 1B…8B, 1M…4M.
pub(super) fn level_code(raw: &str) -> Result<String, GenerationError> {
    let code = raw.trim();
    if matches!(code.as_bytes(), [b'1'..=b'8', b'B'] | [b'1'..=b'4', b'M']) {
        Ok(code.to_owned())
    } else {
        Err(invalid(format!(
            "level_code {code:?} is not a level (1B…8B, 1M…4M)"
        )))
    }
}

/// A subject code: lowercase ASCII letters, digits and `_`.
pub(super) fn subject_code(raw: &str) -> Result<String, GenerationError> {
    let code = raw.trim();
    if code.is_empty()
        || code.len() > 80
        || !code
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_')
    {
        return Err(invalid(format!(
            "subject_code {code:?} is not a subject code (e.g. \"matematica\")"
        )));
    }
    Ok(code.to_owned())
}

/// OA codes: trimmed, without repetitions, in the order given, `min` to `max` of them.
pub(super) fn objective_codes(
    raw: &[String],
    min: usize,
    max: usize,
) -> Result<Vec<String>, GenerationError> {
    let mut codes: Vec<String> = Vec::new();
    for code in raw {
        let code = code.trim();
        if code.is_empty() || code.chars().count() > MAX_CODE_CHARS {
            return Err(invalid(format!(
                "objective code {code:?} is empty or longer than {MAX_CODE_CHARS} characters"
            )));
        }
        if !codes.iter().any(|known| known == code) {
            codes.push(code.to_owned());
        }
    }
    if codes.len() < min || codes.len() > max {
        return Err(invalid(format!(
            "objective_codes must list {min} to {max} OA codes"
        )));
    }
    Ok(codes)
}

/// A teacher text: trimmed, `None` when blank, refused when longer than `max` characters.
pub(super) fn text_within(
    field: &str,
    value: Option<String>,
    max: usize,
) -> Result<Option<String>, GenerationError> {
    let Some(value) = value else { return Ok(None) };
    let value = value.trim();
    if value.chars().count() > max {
        return Err(invalid(format!("{field} is longer than {max} characters")));
    }
    Ok((!value.is_empty()).then(|| value.to_owned()))
}

/// A teacher text of at most [`MAX_TEXT_CHARS`].
pub(super) fn text(field: &str, value: Option<String>) -> Result<Option<String>, GenerationError> {
    text_within(field, value, MAX_TEXT_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_json(value: serde_json::Value) -> Result<PlanRequest, GenerationError> {
        parse(value.to_string().as_bytes())
    }

    fn message(result: Result<PlanRequest, GenerationError>) -> String {
        match result {
            Err(GenerationError::InvalidRequest(message)) => message,
            other => panic!("expected invalid_request, got {other:?}"),
        }
    }

    #[test]
    fn the_pinned_example_is_valid() {
        let request = parse_json(serde_json::json!({
            "level_code": "7B", "subject_code": "matematica",
            "objective_codes": ["MA07 OA 03"], "blocks": 2
        }))
        .unwrap();
        assert_eq!(request.objective_codes, ["MA07 OA 03"]);
        assert_eq!(request.minutes(), 90);
        assert_eq!(request.notes, None);
    }

    #[test]
    fn codes_are_trimmed_and_deduplicated_in_order() {
        let request = parse_json(serde_json::json!({
            "level_code": " 1M ", "subject_code": "matematica",
            "objective_codes": [" MA1M OA 02", "MA1M OA 01", "MA1M OA 02"],
            "notes": "   "
        }))
        .unwrap();
        assert_eq!(request.level_code, "1M");
        assert_eq!(request.objective_codes, ["MA1M OA 02", "MA1M OA 01"]);
        assert_eq!(request.blocks, 1);
        assert_eq!(request.notes, None);
    }

    #[test]
    fn bad_bodies_say_what_is_wrong() {
        assert!(message(parse(b"")).contains("JSON body"));
        assert!(message(parse(b"{not json")).contains("not a valid request"));
        assert!(message(parse(b"[1,2]")).contains("not a valid request"));
        let base = serde_json::json!({
            "level_code": "7B", "subject_code": "matematica", "objective_codes": ["X"]
        });
        let with = |key: &str, value: serde_json::Value| {
            let mut body = base.clone();
            body[key] = value;
            parse_json(body)
        };
        assert!(message(with("level_code", "9B".into())).contains("level_code"));
        assert!(message(with("subject_code", "Matemática".into())).contains("subject_code"));
        assert!(message(with("objective_codes", serde_json::json!([]))).contains("1 to 5"));
        assert!(
            message(with(
                "objective_codes",
                serde_json::json!(["a", "b", "c", "d", "e", "f"])
            ))
            .contains("1 to 5")
        );
        assert!(message(with("blocks", 0.into())).contains("blocks"));
        assert!(message(with("blocks", 9.into())).contains("blocks"));
        assert!(message(with("blocks", (-1).into())).contains("not a valid request"));
        assert!(message(with("blocks", "2".into())).contains("not a valid request"));
        assert!(message(with("notes", "x".repeat(2001).into())).contains("notes"));
        assert!(message(with("unexpected", 1.into())).contains("unknown field"));
        let huge = format!(r#"{{"notes": "{}"}}"#, "x".repeat(MAX_BODY_BYTES));
        assert!(message(parse(huge.as_bytes())).contains("larger than"));
    }
}
