//! Content negotiation (PostgREST's `negotiateContent`): the first `Accept` entry that
//! something produces, and how the body is built for it.
//!
//! The vendored types (`application/vnd.pgrst.object`, `…array+json;nulls=stripped`) are
//! built in and cannot be overridden. Every other type is looked up among the database's
//! media type handlers (`schema_cache::MediaHandler`), in PostgREST's order:
//!
//! 1. a handler of `*/*` for the relation (or function) itself,
//! 2. a handler of that type for the relation itself,
//! 3. a handler of that type for `anyelement`, else the built-in one (JSON for `*/*` and
//!    `application/json`, CSV, GeoJSON).
//!
//! 1 and 2 apply only when the whole row is selected (`select=*`, no embedding): the
//! aggregate takes the relation's row type (#3160).

use crate::rest_v1::error::ApiError;
use crate::rest_v1::request::media::MediaType;
use crate::rest_v1::schema_cache::{HandlerTarget, MediaHandler, MediaHandlers, QualifiedName};
use crate::rest_v1::sql::read::BodyFormat;

/// What the client will get, decided by `Accept`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Negotiated {
    /// What the response says it is (`Content-Type`).
    pub media: MediaType,
    pub body: BodyFormat,
    /// EXPLAIN instead of data (`application/vnd.pgrst.plan`).
    pub plan: Option<MediaType>,
}

/// What is being answered, for the handler lookup.
#[derive(Debug, Clone, Copy)]
pub struct Produced<'a> {
    pub handlers: &'a MediaHandlers,
    /// The relation read or written; for a call, the relation of its result's row type,
    /// or the function itself (both in the function's schema, as PostgREST names them).
    pub target: &'a QualifiedName,
    /// `select=*` without embedding.
    pub default_select: bool,
    pub plan_enabled: bool,
}

/// The first acceptable type of `Accept` that can be produced (PGRST107 otherwise).
pub fn negotiate(accept: &[MediaType], produced: &Produced<'_>) -> Result<Negotiated, ApiError> {
    for media in accept {
        if let MediaType::Plan { for_type, .. } = media {
            if !produced.plan_enabled {
                continue;
            }
            let body = vendored(for_type)
                .map(|(_, body)| body)
                .or_else(|| produced.lookup(for_type).map(|(_, body)| body));
            if let Some(body) = body {
                return Ok(Negotiated {
                    media: media.clone(),
                    body,
                    plan: Some(media.clone()),
                });
            }
            continue;
        }
        if let Some((media, body)) = vendored(media).or_else(|| produced.lookup(media)) {
            return Ok(Negotiated {
                media,
                body,
                plan: None,
            });
        }
    }
    Err(ApiError::UnsupportedMediaType(
        accept.iter().map(MediaType::mime).collect(),
    ))
}

/// PostgREST's own types that no handler overrides.
fn vendored(media: &MediaType) -> Option<(MediaType, BodyFormat)> {
    let body = match media {
        MediaType::ArrayStripped => BodyFormat::Array { strip_nulls: true },
        MediaType::Singular => BodyFormat::Object { strip_nulls: false },
        MediaType::SingularStripped => BodyFormat::Object { strip_nulls: true },
        _ => return None,
    };
    Some((media.clone(), body))
}

/// The built-in handlers of every relation (overridden by `anyelement` handlers).
fn built_in(media: &MediaType) -> Option<(MediaType, BodyFormat)> {
    Some(match media {
        MediaType::Json | MediaType::Any => {
            (MediaType::Json, BodyFormat::Array { strip_nulls: false })
        }
        MediaType::Csv => (MediaType::Csv, BodyFormat::Csv),
        MediaType::GeoJson => (MediaType::GeoJson, BodyFormat::GeoJson),
        _ => return None,
    })
}

impl Produced<'_> {
    fn lookup(&self, media: &MediaType) -> Option<(MediaType, BodyFormat)> {
        let own = self
            .default_select
            .then(|| self.handlers.named.get(self.target))
            .flatten();
        own.and_then(|own| own.get(&MediaType::Any).or_else(|| own.get(media)))
            .or_else(|| self.handlers.any_element.get(media))
            .map(custom_body)
            .or_else(|| built_in(media))
    }
}

fn custom_body(handler: &MediaHandler) -> (MediaType, BodyFormat) {
    let body = BodyFormat::Handler {
        function: handler.function.clone(),
        row_type: match &handler.target {
            HandlerTarget::Named(relation) => Some(relation.clone()),
            HandlerTarget::AnyElement => None,
        },
    };
    (handler.media.clone(), body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest_v1::request::media::parse_accept;

    fn handler(function: &str, target: Option<&str>, media: &str) -> MediaHandler {
        MediaHandler {
            function: QualifiedName::new("test", function),
            target: target.map_or(HandlerTarget::AnyElement, |name| {
                HandlerTarget::Named(QualifiedName::new("test", name))
            }),
            media: MediaType::decode(media),
        }
    }

    /// Handlers like PostgREST's test fixtures.
    fn handlers() -> MediaHandlers {
        let mut handlers = MediaHandlers::default();
        for (handler, key) in [
            (
                handler("twkb_agg", Some("lines"), "application/vnd.twkb"),
                None,
            ),
            (handler("bom_csv_agg", Some("lines"), "text/csv"), None),
            (handler("outfunc_agg", None, "pg/outfunc"), None),
            (
                handler("ov_json_agg", Some("ov_json"), "application/json"),
                None,
            ),
            (
                handler("pgrst_obj_agg", None, "application/vnd.pgrst.object"),
                None,
            ),
            (
                handler("some_agg", Some("some_numbers"), "application/octet-stream"),
                Some("*/*"),
            ),
        ] {
            let key = key.map_or_else(|| handler.media.clone(), MediaType::decode);
            handlers.insert(key, handler);
        }
        handlers
    }

    fn pick(table: &str, select_all: bool, accept: &str) -> Result<(String, BodyFormat), String> {
        let handlers = handlers();
        let target = QualifiedName::new("test", table);
        let produced = Produced {
            handlers: &handlers,
            target: &target,
            default_select: select_all,
            plan_enabled: false,
        };
        negotiate(&parse_accept(Some(accept)), &produced)
            .map(|n| (n.media.content_type().into_owned(), n.body))
            .map_err(|error| error.body()["message"].as_str().unwrap_or("").to_owned())
    }

    fn custom(function: &str, row_type: Option<&str>) -> BodyFormat {
        BodyFormat::Handler {
            function: QualifiedName::new("test", function),
            row_type: row_type.map(|name| QualifiedName::new("test", name)),
        }
    }

    #[test]
    fn built_in_types_without_handlers() {
        let json = BodyFormat::Array { strip_nulls: false };
        let content_type = "application/json; charset=utf-8".to_owned();
        assert_eq!(pick("items", true, "*/*"), Ok((content_type.clone(), json)));
        assert_eq!(
            pick("items", true, "text/plain, application/json"),
            Ok((content_type, BodyFormat::Array { strip_nulls: false }))
        );
        assert_eq!(
            pick("items", true, "application/vnd.pgrst.object+json").map(|p| p.1),
            Ok(BodyFormat::Object { strip_nulls: false })
        );
        assert_eq!(
            pick("items", true, "text/plain"),
            Err("None of these media types are available: text/plain".to_owned())
        );
    }

    #[test]
    fn a_relations_handler_needs_the_whole_row() {
        assert_eq!(
            pick("lines", true, "application/vnd.twkb"),
            Ok((
                "application/vnd.twkb".to_owned(),
                custom("twkb_agg", Some("lines"))
            ))
        );
        assert!(pick("lines", false, "application/vnd.twkb").is_err());
        // It overrides the built-in type; without the whole row the built-in one answers.
        assert_eq!(
            pick("lines", true, "text/csv").map(|p| p.1),
            Ok(custom("bom_csv_agg", Some("lines")))
        );
        assert_eq!(
            pick("lines", false, "text/csv").map(|p| p.1),
            Ok(BodyFormat::Csv)
        );
        assert_eq!(
            pick("ov_json", true, "application/json"),
            Ok((
                "application/json; charset=utf-8".to_owned(),
                custom("ov_json_agg", Some("ov_json"))
            ))
        );
    }

    #[test]
    fn anyelement_handlers_serve_every_relation_and_any_select() {
        assert_eq!(
            pick("projects", false, "pg/outfunc"),
            Ok(("pg/outfunc".to_owned(), custom("outfunc_agg", None)))
        );
        // Vendored types are never overridden.
        assert_eq!(
            pick("projects", true, "application/vnd.pgrst.object").map(|p| p.1),
            Ok(BodyFormat::Object { strip_nulls: false })
        );
    }

    #[test]
    fn a_catch_all_handler_answers_whatever_is_accepted() {
        for accept in ["*/*", "magic/number", "application/json", "text/csv"] {
            assert_eq!(
                pick("some_numbers", true, accept),
                Ok((
                    "application/octet-stream".to_owned(),
                    custom("some_agg", Some("some_numbers"))
                )),
                "{accept}"
            );
        }
        assert_eq!(
            pick("some_numbers", false, "*/*").map(|p| p.1),
            Ok(BodyFormat::Array { strip_nulls: false })
        );
    }

    #[test]
    fn plans_explain_what_the_handler_would_run() {
        let handlers = handlers();
        let target = QualifiedName::new("test", "lines");
        let mut produced = Produced {
            handlers: &handlers,
            target: &target,
            default_select: true,
            plan_enabled: false,
        };
        let accept = parse_accept(Some(
            "application/vnd.pgrst.plan+json; for=\"application/vnd.twkb\"",
        ));
        assert_eq!(
            negotiate(&accept, &produced).unwrap_err().code(),
            "PGRST107"
        );
        produced.plan_enabled = true;
        let negotiated = negotiate(&accept, &produced).unwrap();
        assert_eq!(negotiated.body, custom("twkb_agg", Some("lines")));
        assert!(matches!(
            negotiated.plan,
            Some(MediaType::Plan { json: true, .. })
        ));
    }

    #[test]
    fn quality_order_decides_between_handlers() {
        assert_eq!(
            pick(
                "lines",
                true,
                "text/html, application/vnd.twkb;q=0.9, */*;q=0.8"
            )
            .map(|p| p.1),
            Ok(custom("twkb_agg", Some("lines")))
        );
    }
}
