//! Building responses: headers in PostgREST's order, the `response.headers` and
//! `response.status` GUCs a function or trigger may set, and `Vary`.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::{HeaderName, HeaderValue};
use serde_json::Value;

use super::error::ApiError;

/// A response being assembled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseParts {
    pub status: u16,
    /// In order; names as they should be written.
    pub headers: Vec<(String, String)>,
    /// `None` for HEAD and bodiless statuses.
    pub body: Option<String>,
}

impl ResponseParts {
    pub fn new(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: None,
        }
    }

    pub fn header(&mut self, name: &str, value: impl Into<String>) -> &mut Self {
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    /// Applies `response.headers` (JSON array of single-key objects with string values;
    /// they replace headers of the same name) and `response.status`.
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
            for entry in entries {
                let Value::Object(object) = entry else {
                    return Err(ApiError::InvalidResponseHeaders);
                };
                let mut pairs = object.into_iter();
                let (Some((name, Value::String(value))), None) = (pairs.next(), pairs.next())
                else {
                    return Err(ApiError::InvalidResponseHeaders);
                };
                self.headers
                    .retain(|(existing, _)| !existing.eq_ignore_ascii_case(&name));
                self.headers.push((name, value));
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

    pub fn into_response(mut self) -> HttpResponse {
        if !self
            .headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("vary"))
        {
            self.headers
                .push(("Vary".into(), "Accept, Prefer, Range".into()));
        }
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::OK);
        let mut builder = HttpResponse::build(status);
        for (name, value) in &self.headers {
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                builder.append_header((name, value));
            }
        }
        match self.body {
            Some(body) => builder.body(body),
            None => builder.finish(),
        }
    }
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
        parts.header("Content-Type", "application/json; charset=utf-8");
        parts
            .apply_gucs(
                Some(r#"[{"Content-Type":"text/plain"},{"X-Cielo":"1"}]"#),
                Some("202"),
            )
            .unwrap();
        assert_eq!(parts.status, 202);
        assert_eq!(
            parts.headers,
            vec![
                ("Content-Type".to_owned(), "text/plain".to_owned()),
                ("X-Cielo".to_owned(), "1".to_owned())
            ]
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
}
