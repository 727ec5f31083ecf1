//! Building responses: headers in PostgREST's order, the `response.headers` and
//! `response.status` GUCs a function or trigger may set, and `Vary`.

use std::borrow::Cow;

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderName, HeaderValue};
use bytes::Bytes;
use serde_json::Value;

use super::error::ApiError;

/// PostgREST's own response headers.
pub const CONTENT_PROFILE: HeaderName = HeaderName::from_static("content-profile");
pub const PREFERENCE_APPLIED: HeaderName = HeaderName::from_static("preference-applied");

/// A response being assembled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseParts {
    pub status: u16,
    /// In order. Values that are not valid header text are left out when added.
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// `None` for HEAD and bodiless statuses. Bytes: a media type handler's answer need not
    /// be text.
    pub body: Option<Vec<u8>>,
}

/// How a page of rows ends, a read's or a call's: what follows its status, `Content-Range`
/// and (a read's) `Content-Location`.
#[derive(Debug)]
pub struct PageEnd<'a> {
    pub content_type: Cow<'static, str>,
    /// `Content-Profile`: the schema, when the request named one.
    pub profile: Option<String>,
    pub applied: Option<String>,
    /// The range's first row and the total, which a 416's body names.
    pub offset: i64,
    pub total: Option<i64>,
    pub response_headers: Option<&'a str>,
    pub response_status: Option<&'a str>,
    /// The rows; `None` for `HEAD`.
    pub body: Option<Vec<u8>>,
}

impl ResponseParts {
    pub fn new(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: None,
        }
    }

    /// Adds a header; a constant value is used as it is, an owned one without a copy.
    pub fn header(&mut self, name: HeaderName, value: impl Into<Cow<'static, str>>) -> &mut Self {
        if let Some(value) = header_value(value.into()) {
            self.headers.push((name, value));
        }
        self
    }

    /// Applies `response.headers` (JSON array of single-key objects with string values)
    /// and `response.status`. As in PostgREST, the GUC's headers come after the gateway's
    /// own and replace those of the same name; the GUC may name a header more than once
    /// (two `Set-Cookie`s) and every one is sent.
    pub fn apply_gucs(
        &mut self,
        headers: Option<&str>,
        status: Option<&str>,
    ) -> Result<(), ApiError> {
        if let Some(raw) = headers {
            let parsed: Value =
                serde_json::from_str(raw).map_err(|_| ApiError::InvalidResponseHeaders)?;
            let Value::Array(entries) = parsed else {
                return Err(ApiError::InvalidResponseHeaders);
            };
            let mut set_by_guc = Vec::with_capacity(entries.len());
            for entry in entries {
                let Value::Object(object) = entry else {
                    return Err(ApiError::InvalidResponseHeaders);
                };
                let mut pairs = object.into_iter();
                let (Some((name, Value::String(value))), None) = (pairs.next(), pairs.next())
                else {
                    return Err(ApiError::InvalidResponseHeaders);
                };
                // A name that is no header name cannot replace or be sent as one.
                let Ok(name) = HeaderName::from_bytes(name.as_bytes()) else {
                    continue;
                };
                set_by_guc.push((name, value));
            }
            self.headers
                .retain(|(existing, _)| !set_by_guc.iter().any(|(name, _)| name == existing));
            for (name, value) in set_by_guc {
                self.header(name, value);
            }
        }
        if let Some(raw) = status {
            let digits: String = raw.chars().take_while(char::is_ascii_digit).collect();
            let code: u16 = digits
                .parse()
                .map_err(|_| ApiError::InvalidResponseStatus)?;
            if StatusCode::from_u16(code).is_err() {
                return Err(ApiError::InvalidResponseStatus);
            }
            self.status = code;
        }
        Ok(())
    }

    /// Ends a page of rows: media type, `Content-Profile`, `Preference-Applied`; then, for a
    /// range that starts past the last row (416), PGRST103's body with those headers and no
    /// GUCs, else the GUCs and the rows.
    pub fn end_page(mut self, end: PageEnd<'_>) -> Result<HttpResponse, ApiError> {
        self.header(header::CONTENT_TYPE, end.content_type);
        if let Some(schema) = end.profile {
            self.header(CONTENT_PROFILE, schema);
        }
        if let Some(applied) = end.applied {
            self.header(PREFERENCE_APPLIED, applied);
        }
        if self.status == 416 {
            let error = ApiError::OffsetBeyondTotal {
                offset: end.offset,
                total: end.total.unwrap_or(0),
            };
            self.body = Some(error.body().to_string().into_bytes());
            return Ok(self.into_response());
        }
        self.apply_gucs(end.response_headers, end.response_status)?;
        self.body = end.body;
        Ok(self.into_response())
    }

    pub fn into_response(mut self) -> HttpResponse {
        if !self.headers.iter().any(|(name, _)| name == header::VARY) {
            self.header(header::VARY, "Accept, Prefer, Range");
        }
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::OK);
        let mut builder = HttpResponse::build(status);
        for pair in self.headers {
            builder.append_header(pair);
        }
        let mut response = match self.body {
            Some(body) => builder.body(body),
            None => builder.finish(),
        };
        set_reason(&mut response, None);
        response
    }
}

/// How many distinct custom reason phrases the process keeps (see [`set_reason`]).
const REASON_PHRASES_KEPT: usize = 256;

/// Sets the status line's reason phrase as PostgREST's server writes it: `custom` when
/// given and fit for a status line, else the status's standard phrase, or none for a
/// status without one (actix-web would write `<unknown status code>`). actix-web takes
/// phrases as `&'static str`, so each distinct custom phrase is kept for the life of the
/// process, at most [`REASON_PHRASES_KEPT`] of them; past that, the standard phrase is sent.
pub fn set_reason(response: &mut HttpResponse, custom: Option<&str>) {
    use std::collections::HashSet;
    use std::sync::{LazyLock, Mutex};
    static KEPT: LazyLock<Mutex<HashSet<&'static str>>> =
        LazyLock::new(|| Mutex::new(HashSet::new()));

    // RFC 9112: reason-phrase = 1*( HTAB / SP / VCHAR / obs-text ).
    let fit = |text: &str| {
        !text.is_empty()
            && text.len() <= 1024
            && text.bytes().all(|b| b == b'\t' || (b >= b' ' && b != 0x7f))
    };
    let kept = custom.filter(|text| fit(text)).and_then(|text| {
        let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(phrase) = kept.get(text) {
            return Some(*phrase);
        }
        if kept.len() >= REASON_PHRASES_KEPT {
            return None;
        }
        let phrase: &'static str = Box::leak(text.to_owned().into_boxed_str());
        kept.insert(phrase);
        Some(phrase)
    });
    let head = response.head_mut();
    head.reason = kept.or_else(|| head.status.canonical_reason().is_none().then_some(""));
}

/// Header text without a copy: constants are shared, owned strings are taken over.
fn header_value(value: Cow<'static, str>) -> Option<HeaderValue> {
    match value {
        Cow::Borrowed(text) => HeaderValue::from_maybe_shared(Bytes::from_static(text.as_bytes())),
        Cow::Owned(text) => HeaderValue::try_from(text),
    }
    .ok()
}

/// `OPTIONS`: the allowed methods, no body.
pub fn options(allow: &str) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Allow", allow.to_owned()))
        .insert_header(("Access-Control-Allow-Origin", "*"))
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gucs_override_headers_and_status() {
        let mut parts = ResponseParts::new(200);
        parts.header(header::CONTENT_TYPE, "application/json; charset=utf-8");
        parts.header(header::CONTENT_RANGE, "0-0/*".to_owned());
        parts
            .apply_gucs(
                Some(r#"[{"Content-Type":"text/plain"},{"X-Cielo":"1"},{"bad name":"x"}]"#),
                Some("202"),
            )
            .unwrap();
        assert_eq!(parts.status, 202);
        assert_eq!(
            parts.headers,
            vec![
                (header::CONTENT_RANGE, HeaderValue::from_static("0-0/*")),
                (header::CONTENT_TYPE, HeaderValue::from_static("text/plain")),
                (
                    HeaderName::from_static("x-cielo"),
                    HeaderValue::from_static("1")
                )
            ]
        );
    }

    #[test]
    fn a_guc_may_send_one_header_twice() {
        let mut parts = ResponseParts::new(200);
        parts.header(header::SET_COOKIE, "gateway=1");
        parts
            .apply_gucs(
                Some(r#"[{"Set-Cookie":"sesion=a; HttpOnly"},{"Set-Cookie":"curso=7; Secure"}]"#),
                None,
            )
            .unwrap();
        assert_eq!(
            parts.headers,
            vec![
                (
                    header::SET_COOKIE,
                    HeaderValue::from_static("sesion=a; HttpOnly")
                ),
                (
                    header::SET_COOKIE,
                    HeaderValue::from_static("curso=7; Secure")
                ),
            ]
        );
    }

    fn reason_of(status: u16, custom: Option<&str>) -> &'static str {
        let mut response = HttpResponse::new(StatusCode::from_u16(status).unwrap());
        set_reason(&mut response, custom);
        // What actix-web writes: the phrase set, else the standard one, else a placeholder.
        let head = response.head();
        head.reason
            .or_else(|| head.status.canonical_reason())
            .unwrap_or("<unknown status code>")
    }

    #[test]
    fn reason_phrases_as_postgrest_sends_them() {
        assert_eq!(reason_of(409, Some("Curso cerrado")), "Curso cerrado");
        assert_eq!(
            reason_of(402, Some("Estrellas\tinsuficientes")),
            "Estrellas\tinsuficientes"
        );
        // No custom phrase: the standard one, or none for a status that has none.
        assert_eq!(reason_of(404, None), "Not Found");
        assert_eq!(reason_of(332, None), "");
        // A phrase that cannot be written in a status line falls back.
        assert_eq!(reason_of(409, Some("dos\r\nlíneas")), "Conflict");
        assert_eq!(reason_of(332, Some("")), "");
        assert_eq!(reason_of(409, Some(&"x".repeat(1025))), "Conflict");
        // The same phrase is kept once.
        let first = reason_of(418, Some("Tetera ocupada"));
        assert!(std::ptr::eq(first, reason_of(418, Some("Tetera ocupada"))));
    }

    fn page_end(status: u16, body: Option<&str>) -> (ResponseParts, PageEnd<'static>) {
        let mut parts = ResponseParts::new(status);
        parts.header(header::CONTENT_RANGE, "*/3".to_owned());
        let end = PageEnd {
            content_type: Cow::Borrowed("application/json; charset=utf-8"),
            profile: Some("personal".to_owned()),
            applied: Some("count=exact".to_owned()),
            offset: 5,
            total: Some(3),
            response_headers: Some(r#"[{"X-Cielo":"1"}]"#),
            response_status: Some("203"),
            body: body.map(|text| text.as_bytes().to_vec()),
        };
        (parts, end)
    }

    async fn sent(response: HttpResponse) -> (u16, Vec<String>, String) {
        let status = response.status().as_u16();
        let mut names: Vec<String> = response.headers().keys().map(|n| n.to_string()).collect();
        names.sort();
        let body = actix_web::body::to_bytes(response.into_body())
            .await
            .unwrap();
        (status, names, String::from_utf8(body.to_vec()).unwrap())
    }

    #[actix_web::test]
    async fn a_page_ends_with_its_headers_gucs_and_rows() {
        let (parts, end) = page_end(200, Some("[1]"));
        let (status, names, body) = sent(parts.end_page(end).unwrap()).await;
        assert_eq!(status, 203);
        assert_eq!(
            names,
            [
                "content-profile",
                "content-range",
                "content-type",
                "preference-applied",
                "vary",
                "x-cielo"
            ]
        );
        assert_eq!(body, "[1]");

        let (parts, end) = page_end(200, None);
        let (_, _, body) = sent(parts.end_page(end).unwrap()).await;
        assert_eq!(body, "", "HEAD gets no rows");
    }

    #[actix_web::test]
    async fn a_page_past_the_last_row_gets_pgrst103_and_no_gucs() {
        let (parts, end) = page_end(416, Some("[]"));
        let (status, names, body) = sent(parts.end_page(end).unwrap()).await;
        assert_eq!(status, 416);
        assert!(!names.contains(&"x-cielo".to_owned()), "{names:?}");
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["code"], "PGRST103");
        assert_eq!(
            body["details"],
            "An offset of 5 was requested, but there are only 3 rows."
        );
    }

    #[test]
    fn malformed_gucs_are_errors() {
        let mut parts = ResponseParts::new(200);
        for bad in [
            r#"{"a":"b"}"#,
            r#"[{"a":1}]"#,
            r#"[{"a":"b","c":"d"}]"#,
            "nope",
        ] {
            assert_eq!(
                parts.apply_gucs(Some(bad), None).unwrap_err().code(),
                "PGRST111",
                "{bad}"
            );
        }
        assert_eq!(
            parts.apply_gucs(None, Some("abc")).unwrap_err().code(),
            "PGRST112"
        );
        assert!(parts.apply_gucs(None, Some("201abc")).is_ok());
        assert_eq!(parts.status, 201);
    }

    #[test]
    fn a_guc_header_with_an_invalid_value_removes_the_header_it_names() {
        let mut parts = ResponseParts::new(200);
        parts.header(header::CONTENT_TYPE, "text/csv");
        parts
            .apply_gucs(Some(r#"[{"content-type":"a\nb"}]"#), None)
            .unwrap();
        assert!(parts.headers.is_empty());
        let response = parts.into_response();
        assert_eq!(
            response.headers().get(header::VARY).unwrap(),
            "Accept, Prefer, Range"
        );
    }
}
