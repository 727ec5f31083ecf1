//! Media types: `Accept` parsing (quality order) and what each type means for a response.

use std::borrow::Cow;

/// Options of an `application/vnd.pgrst.plan` request, in PostgREST's rendering order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PlanOptions {
    pub analyze: bool,
    pub verbose: bool,
    pub settings: bool,
    pub buffers: bool,
    pub wal: bool,
}

impl PlanOptions {
    fn render(self) -> String {
        [
            (self.analyze, "analyze"),
            (self.verbose, "verbose"),
            (self.settings, "settings"),
            (self.buffers, "buffers"),
            (self.wal, "wal"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, name)| *name)
        .collect::<Vec<_>>()
        .join("|")
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MediaType {
    Json,
    /// `application/vnd.pgrst.array+json;nulls=stripped`
    ArrayStripped,
    /// `application/vnd.pgrst.object+json`
    Singular,
    SingularStripped,
    GeoJson,
    Csv,
    TextPlain,
    TextXml,
    OpenApi,
    UrlEncoded,
    OctetStream,
    Plan {
        json: bool,
        for_type: Box<MediaType>,
        options: PlanOptions,
    },
    Any,
    Other(String),
}

impl MediaType {
    /// Decodes one media type (`type/subtype;params`).
    pub fn decode(raw: &str) -> MediaType {
        let mut parts = raw.split(';');
        let essence = parts.next().unwrap_or_default().trim();
        let params: Vec<(String, String)> = parts
            .filter_map(|param| {
                let (key, value) = param.split_once('=')?;
                Some((
                    key.trim().to_ascii_lowercase(),
                    value.trim().trim_matches('"').to_owned(),
                ))
            })
            .collect();
        let param = |name: &str| {
            params
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let stripped = param("nulls") == Some("stripped");
        match essence.to_ascii_lowercase().as_str() {
            "application/json" => MediaType::Json,
            "application/geo+json" => MediaType::GeoJson,
            "text/csv" => MediaType::Csv,
            "text/plain" => MediaType::TextPlain,
            "text/xml" => MediaType::TextXml,
            "application/openapi+json" => MediaType::OpenApi,
            "application/x-www-form-urlencoded" => MediaType::UrlEncoded,
            "application/octet-stream" => MediaType::OctetStream,
            "application/vnd.pgrst.object+json" | "application/vnd.pgrst.object" => {
                if stripped {
                    MediaType::SingularStripped
                } else {
                    MediaType::Singular
                }
            }
            "application/vnd.pgrst.array+json" | "application/vnd.pgrst.array" => {
                if stripped {
                    MediaType::ArrayStripped
                } else {
                    MediaType::Json
                }
            }
            plan @ ("application/vnd.pgrst.plan"
            | "application/vnd.pgrst.plan+text"
            | "application/vnd.pgrst.plan+json") => {
                let options = param("options").unwrap_or_default();
                let has = |name: &str| options.split('|').any(|o| o == name);
                MediaType::Plan {
                    json: plan.ends_with("+json"),
                    for_type: Box::new(param("for").map_or(MediaType::Json, MediaType::decode)),
                    options: PlanOptions {
                        analyze: has("analyze"),
                        verbose: has("verbose"),
                        settings: has("settings"),
                        buffers: has("buffers"),
                        wal: has("wal"),
                    },
                }
            }
            "*/*" => MediaType::Any,
            _ => MediaType::Other(raw.to_owned()),
        }
    }

    /// The type as PostgREST renders it (error messages, Content-Type without charset).
    pub fn mime(&self) -> String {
        match self {
            MediaType::Json => "application/json".into(),
            MediaType::ArrayStripped => "application/vnd.pgrst.array+json;nulls=stripped".into(),
            MediaType::Singular => "application/vnd.pgrst.object+json".into(),
            MediaType::SingularStripped => {
                "application/vnd.pgrst.object+json;nulls=stripped".into()
            }
            MediaType::GeoJson => "application/geo+json".into(),
            MediaType::Csv => "text/csv".into(),
            MediaType::TextPlain => "text/plain".into(),
            MediaType::TextXml => "text/xml".into(),
            MediaType::OpenApi => "application/openapi+json".into(),
            MediaType::UrlEncoded => "application/x-www-form-urlencoded".into(),
            MediaType::OctetStream => "application/octet-stream".into(),
            MediaType::Plan {
                json,
                for_type,
                options,
            } => {
                let mut text = format!(
                    "application/vnd.pgrst.plan+{}; for=\"{}\"",
                    if *json { "json" } else { "text" },
                    for_type.mime()
                );
                let rendered = options.render();
                if !rendered.is_empty() {
                    text.push_str("; options=");
                    text.push_str(&rendered);
                }
                text
            }
            MediaType::Any => "*/*".into(),
            MediaType::Other(raw) => raw.clone(),
        }
    }

    /// `Content-Type` header value.
    pub fn content_type(&self) -> Cow<'static, str> {
        match self {
            // Nearly every response: no formatting.
            MediaType::Json => Cow::Borrowed("application/json; charset=utf-8"),
            MediaType::OctetStream | MediaType::Other(_) => Cow::Owned(self.mime()),
            _ => Cow::Owned(format!("{}; charset=utf-8", self.mime())),
        }
    }
}

/// `Accept` as a list, best first. No header means `*/*`.
pub fn parse_accept(header: Option<&str>) -> Vec<MediaType> {
    let Some(header) = header else {
        return vec![MediaType::Any];
    };
    let mut entries: Vec<(f64, i32, usize, String)> = header
        .split(',')
        .enumerate()
        .filter_map(|(position, element)| {
            let element: String = element.chars().filter(|c| *c != ' ').collect();
            if element.is_empty() {
                return None;
            }
            let (range, quality) = match element.split_once(";q=") {
                Some((range, rest)) => {
                    let number = rest.split(';').next().unwrap_or_default();
                    (range.to_owned(), leading_double(number))
                }
                None => (element.clone(), 1.0),
            };
            let specificity = range.matches(';').count() as i32 - range.matches('*').count() as i32;
            Some((quality, specificity, position, range))
        })
        .collect();
    entries.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    entries
        .into_iter()
        .map(|(_, _, _, range)| MediaType::decode(&range))
        .collect()
}

/// A number at the start of `text` (`0.5`, `1`, `1e-1`); anything else counts as 1.
fn leading_double(text: &str) -> f64 {
    let end = text
        .char_indices()
        .take_while(|(i, c)| {
            c.is_ascii_digit() || *c == '.' || *c == 'e' || *c == 'E' || (*c == '-' && *i > 0)
        })
        .map(|(i, c)| i + c.len_utf8())
        .last()
        .unwrap_or(0);
    if text.starts_with('.') {
        return 1.0;
    }
    (0..=end)
        .rev()
        .find_map(|n| text.get(..n).and_then(|prefix| prefix.parse::<f64>().ok()))
        .unwrap_or(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(header: &str) -> Vec<String> {
        parse_accept(Some(header))
            .iter()
            .map(MediaType::mime)
            .collect()
    }

    #[test]
    fn orders_by_quality_then_specificity() {
        assert_eq!(names("text/csv, */*; q=0.01"), ["text/csv", "*/*"]);
        assert_eq!(
            names("application/json;q=0.5, text/csv"),
            ["text/csv", "application/json"]
        );
        assert_eq!(
            names("x/*, x/plain, x/plain;format=flowed, */*"),
            ["x/plain;format=flowed", "x/plain", "x/*", "*/*"]
        );
        assert_eq!(parse_accept(None), vec![MediaType::Any]);
    }

    #[test]
    fn decodes_postgrest_types() {
        assert_eq!(
            MediaType::decode("application/vnd.pgrst.object+json;nulls=stripped"),
            MediaType::SingularStripped
        );
        assert_eq!(
            MediaType::decode("application/vnd.pgrst.array+json"),
            MediaType::Json
        );
        assert_eq!(MediaType::decode("Application/JSON"), MediaType::Json);
        let plan = MediaType::decode(
            "application/vnd.pgrst.plan+json; for=\"application/vnd.pgrst.object\"; options=wal|analyze",
        );
        assert_eq!(
            plan.content_type(),
            "application/vnd.pgrst.plan+json; for=\"application/vnd.pgrst.object+json\"; options=analyze|wal; charset=utf-8"
        );
        assert_eq!(
            MediaType::Singular.content_type(),
            "application/vnd.pgrst.object+json; charset=utf-8"
        );
        assert_eq!(
            MediaType::decode("text/unknowntype").mime(),
            "text/unknowntype"
        );
    }
}
