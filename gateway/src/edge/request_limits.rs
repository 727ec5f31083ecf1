//! Limits on the request head, applied before any service runs, as Supabase's edge applies
//! them: a request target (path and query) longer than `API_MAX_URI_LENGTH` gets `414` and
//! the text "URI too long", which supabase-js reports as the error's message (a long
//! `.in()` list is the usual cause); headers larger in all than `API_MAX_HEADER_SIZE` (an
//! oversized token, a cookie jar) get `431`. Neither costs a JWT check or a pooled
//! connection.
//!
//! Beyond these the HTTP layer has hard limits of its own, answered with empty bodies: a
//! target over 65,534 bytes gets `400`, more than 96 headers or a head over 128 KiB `431`.

use actix_web::HttpResponse;
use actix_web::http::header::{self, HeaderMap, HeaderValue};
use actix_web::http::{StatusCode, Uri};

/// The longest request target the HTTP layer can represent at all.
pub const HARD_MAX_URI_LENGTH: usize = 65_534;

/// The largest request head the HTTP layer buffers.
pub const HARD_MAX_HEADER_SIZE: usize = 131_072;

/// What a request head may weigh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadLimits {
    /// Bytes of path and query.
    pub max_uri_length: usize,
    /// Bytes of all header lines: names, values and the 4 bytes of `": "` and CRLF each.
    pub max_header_size: usize,
}

/// Why a request head was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadRefusal {
    UriTooLong,
    HeadersTooLarge,
}

impl HeadRefusal {
    /// Plain text, as the edge answers it, so clients show it as it is.
    pub fn response(self) -> HttpResponse {
        let (status, text) = match self {
            HeadRefusal::UriTooLong => (StatusCode::URI_TOO_LONG, "URI too long\n"),
            HeadRefusal::HeadersTooLarge => (
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                "Request Header Fields Too Large\n",
            ),
        };
        HttpResponse::build(status)
            .insert_header((
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            ))
            .body(text)
    }
}

/// The first limit the head breaks, if any.
pub fn check(limits: &HeadLimits, uri: &Uri, headers: &HeaderMap) -> Result<(), HeadRefusal> {
    let target = uri
        .path_and_query()
        .map_or(0, |target| target.as_str().len());
    if target > limits.max_uri_length {
        return Err(HeadRefusal::UriTooLong);
    }
    let header_size: usize = headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if header_size > limits.max_header_size {
        return Err(HeadRefusal::HeadersTooLarge);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use actix_web::body::MessageBody;
    use actix_web::http::header::HeaderName;

    use super::*;

    const LIMITS: HeadLimits = HeadLimits {
        max_uri_length: 40,
        max_header_size: 64,
    };

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                HeaderName::from_static(name),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        map
    }

    #[test]
    fn the_target_counts_path_and_query() {
        let at_limit: Uri = format!("/rest/v1/t?id=in.({})", "1".repeat(21))
            .parse()
            .unwrap();
        assert_eq!(at_limit.path_and_query().unwrap().as_str().len(), 40);
        assert_eq!(check(&LIMITS, &at_limit, &HeaderMap::new()), Ok(()));
        let over: Uri = format!("/rest/v1/t?id=in.({})", "1".repeat(22))
            .parse()
            .unwrap();
        assert_eq!(
            check(&LIMITS, &over, &HeaderMap::new()),
            Err(HeadRefusal::UriTooLong)
        );
    }

    #[test]
    fn header_lines_count_with_their_separators() {
        let uri: Uri = "/".parse().unwrap();
        // 6 + 50 + 4 = 60, then 4 + 0 + 4 = 8 more: 68 > 64.
        let value = "k".repeat(50);
        assert_eq!(
            check(&LIMITS, &uri, &headers(&[("apikey", &value)])),
            Ok(())
        );
        assert_eq!(
            check(&LIMITS, &uri, &headers(&[("apikey", &value), ("x-ab", "")])),
            Err(HeadRefusal::HeadersTooLarge)
        );
        // Repeated names count once per line.
        assert_eq!(
            check(
                &LIMITS,
                &uri,
                &headers(&[("cookie", &"c".repeat(25)), ("cookie", &"c".repeat(25))])
            ),
            Err(HeadRefusal::HeadersTooLarge)
        );
    }

    #[test]
    fn a_long_target_is_named_before_large_headers() {
        let uri: Uri = format!("/{}", "a".repeat(60)).parse().unwrap();
        let value = "k".repeat(100);
        assert_eq!(
            check(&LIMITS, &uri, &headers(&[("apikey", &value)])),
            Err(HeadRefusal::UriTooLong)
        );
    }

    #[test]
    fn refusals_are_plain_text() {
        let response = HeadRefusal::UriTooLong.response();
        assert_eq!(response.status(), 414);
        assert_eq!(
            response.headers().get(header::CONTENT_TYPE).unwrap(),
            "text/plain; charset=utf-8"
        );
        let body = response.into_body().try_into_bytes().unwrap();
        assert_eq!(&body[..], b"URI too long\n");
        let response = HeadRefusal::HeadersTooLarge.response();
        assert_eq!(response.status(), 431);
        let body = response.into_body().try_into_bytes().unwrap();
        assert_eq!(&body[..], b"Request Header Fields Too Large\n");
    }
}
