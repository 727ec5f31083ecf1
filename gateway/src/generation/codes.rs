//! Keeps OA codes in a model's prose to the requested ones. A model may mention an
//! objective by code ("MA07 OA 3", "OA 3", "FG-MATE-3M-OAC-01"): a mention of a requested
//! objective is rewritten as its official code, exactly as the curriculum writes it; a
//! mention of any other objective is replaced by a neutral phrase. So every code a generated
//! plan carries is one the teacher asked for.

use std::sync::LazyLock;

use regex::Regex;

/// What an unrequested code becomes.
pub const NOT_REQUESTED: &str = "el OA de la clase";

/// Official codes ("MA07 OA 03", "MA1M OA 01", "FG-MATE-3M-OAC-01") and bare ones ("OA 3"),
/// in any case and with a hyphen for the space ("oa-5"), as models write them.
/// (`None` never happens: the pattern is a constant the tests compile.)
static CODE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:[A-Z]{2,4}(?:-[A-Z0-9]+)*-OA[A-Z]?-[0-9]{1,2}|[A-Z]{2,4}[0-9][0-9A-Z][\s-]*OA[A-Z]?[\s-]*[0-9]{1,2}|OA[A-Z]?[\s-]*[0-9]{1,2})\b",
    )
    .ok()
});

/// A code without its spacing and the leading zeros of its number: ("MA07OA", 3).
fn key(code: &str) -> Option<(String, u32)> {
    let compact: String = code
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let digits = compact.len() - compact.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let (rest, number) = compact.split_at(compact.len() - digits);
    Some((rest.to_owned(), number.parse().ok()?))
}

/// `text` with every OA code mention made one of `allowed` (official codes) or removed.
pub fn keep_requested(text: &str, allowed: &[String]) -> String {
    let allowed_keys: Vec<(&String, (String, u32))> = allowed
        .iter()
        .filter_map(|code| Some((code, key(code)?)))
        .collect();
    let Some(pattern) = CODE.as_ref() else {
        return text.to_owned();
    };
    pattern
        .replace_all(text, |captures: &regex::Captures<'_>| {
            let mention = &captures[0];
            let Some((rest, number)) = key(mention) else {
                return NOT_REQUESTED.to_owned();
            };
            // A bare "OA 3" names the requested objective whose code ends in "OA 03".
            let bare = rest.starts_with("OA");
            allowed_keys
                .iter()
                .find(|(_, (allowed_rest, allowed_number))| {
                    *allowed_number == number
                        && if bare {
                            allowed_rest.ends_with(&rest)
                        } else {
                            *allowed_rest == rest
                        }
                })
                .map_or_else(|| NOT_REQUESTED.to_owned(), |(code, _)| (*code).clone())
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed() -> Vec<String> {
        vec!["MA07 OA 03".to_owned(), "FG-MATE-3M-OAC-01".to_owned()]
    }

    #[test]
    fn codes_in_lower_case_or_with_hyphens_are_kept_to_the_requested_ones() {
        assert_eq!(
            keep_requested("Trabajamos el oa 3 y el OA-5.", &allowed()),
            format!("Trabajamos el MA07 OA 03 y el {NOT_REQUESTED}.")
        );
        assert_eq!(
            keep_requested("Ver ma07-oa-04.", &allowed()),
            format!("Ver {NOT_REQUESTED}.")
        );
    }

    #[test]
    fn the_pattern_compiles() {
        assert!(CODE.is_some());
    }

    #[test]
    fn requested_codes_are_written_as_the_curriculum_writes_them() {
        assert_eq!(
            keep_requested("Según MA07 OA 3 y el OA 03, y MA07OA03.", &allowed()),
            "Según MA07 OA 03 y el MA07 OA 03, y MA07 OA 03."
        );
        assert_eq!(
            keep_requested("Ver FG-MATE-3M-OAC-1.", &allowed()),
            "Ver FG-MATE-3M-OAC-01."
        );
    }

    #[test]
    fn other_codes_are_removed() {
        assert_eq!(
            keep_requested("Relaciona con MA07 OA 05, OA 12 y LE07 OA 03.", &allowed()),
            format!("Relaciona con {NOT_REQUESTED}, {NOT_REQUESTED} y {NOT_REQUESTED}.")
        );
        assert_eq!(
            keep_requested("Un OAH 3 no pedido.", &allowed()),
            format!("Un {NOT_REQUESTED} no pedido.")
        );
    }

    #[test]
    fn ordinary_text_is_untouched() {
        let text = "Los estudiantes resuelven 3 problemas en 10 minutos. OASIS 2024, KOALA 5.";
        assert_eq!(keep_requested(text, &allowed()), text);
    }
}
