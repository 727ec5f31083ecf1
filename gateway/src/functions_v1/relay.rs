//! What every relay of functions/v1 shares, whether to a Deno worker or to an external URL:
//! the request's headers as they go on (connection headers dropped, the caller's address
//! added to `x-forwarded-for`), its body streamed from actix's payload, and the answer passed
//! back unchanged with its body streamed and cut off at the wall-time limit.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use bytes::Bytes;
use futures_util::StreamExt;
use tokio::time::Instant;

/// Headers that belong to one connection, never relayed.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "upgrade",
    "te",
    "trailer",
];

/// The request's headers for the next hop: connection headers dropped, the caller's address
/// appended to `x-forwarded-for` (the next hop's peer is the gateway). `Content-Length` goes
/// along with the streamed body.
pub fn outgoing_headers(request: &HttpRequest) -> http::HeaderMap {
    let mut headers = http::HeaderMap::with_capacity(request.headers().len() + 1);
    let mut forwarded_for = None;
    for (name, value) in request.headers() {
        if name == actix_web::http::header::X_FORWARDED_FOR {
            forwarded_for = value.to_str().ok();
            continue;
        }
        if HOP_BY_HOP.contains(&name.as_str()) {
            continue;
        }
        if let (Ok(name), Ok(value)) = (
            http::HeaderName::from_bytes(name.as_str().as_bytes()),
            http::HeaderValue::from_bytes(value.as_bytes()),
        ) {
            headers.append(name, value);
        }
    }
    let hops = match (forwarded_for, request.peer_addr()) {
        (Some(earlier), Some(peer)) => Some(format!("{earlier}, {}", peer.ip())),
        (None, Some(peer)) => Some(peer.ip().to_string()),
        (Some(earlier), None) => Some(earlier.to_owned()),
        (None, None) => None,
    };
    if let Some(value) = hops.and_then(|hops| http::HeaderValue::from_str(&hops).ok()) {
        headers.insert(http::HeaderName::from_static("x-forwarded-for"), value);
    }
    headers
}

/// Whether the client sent a body (a length above zero, or a chunked one).
pub fn has_body(request: &HttpRequest) -> bool {
    let headers = request.headers();
    headers.contains_key(actix_web::http::header::TRANSFER_ENCODING)
        || headers
            .get(actix_web::http::header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|length| length.trim() != "0")
}

/// The request body as a `Send` stream: actix's payload lives on its worker thread, so a
/// local task forwards it through a channel.
pub fn forward_body(
    mut payload: web::Payload,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
    let (sender, receiver) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(4);
    actix_web::rt::spawn(async move {
        while let Some(chunk) = payload.next().await {
            let chunk = chunk.map_err(std::io::Error::other);
            let failed = chunk.is_err();
            if sender.send(chunk).await.is_err() || failed {
                break;
            }
        }
    });
    futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|chunk| (chunk, receiver))
    })
}

/// The answer's body, cut off with an error at the wall-time limit.
pub fn until_deadline<E>(
    body: impl futures_util::Stream<Item = Result<Bytes, E>> + Unpin + 'static,
    deadline: Instant,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + 'static
where
    E: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    futures_util::stream::unfold(Some(body), move |state| async move {
        let mut body = state?;
        match tokio::time::timeout_at(deadline, body.next()).await {
            Ok(Some(Ok(chunk))) => Some((Ok(chunk), Some(body))),
            Ok(Some(Err(error))) => Some((Err(std::io::Error::other(error)), None)),
            Ok(None) => None,
            Err(_) => Some((
                Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "function wall-time limit reached",
                )),
                None,
            )),
        }
    })
}

/// The next hop's answer as the client gets it: status, headers (the length is the body's
/// own), and the body streamed until the deadline.
pub fn answer<E>(
    head: &http::response::Parts,
    length: Option<u64>,
    body: impl futures_util::Stream<Item = Result<Bytes, E>> + Unpin + 'static,
    deadline: Instant,
) -> HttpResponse
where
    E: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let status =
        StatusCode::from_u16(head.status.as_u16()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = HttpResponse::build(status);
    for (name, value) in &head.headers {
        if !HOP_BY_HOP.contains(&name.as_str()) && name != http::header::CONTENT_LENGTH {
            response.append_header((name.as_str(), value.as_bytes()));
        }
    }
    let stream = until_deadline(body, deadline);
    match length {
        Some(length) => response.body(actix_web::body::SizedStream::new(length, stream)),
        None => response.streaming(stream),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn only_requests_that_announce_a_body_relay_one() {
        let with = |headers: &[(&str, &str)]| {
            let mut request = actix_web::test::TestRequest::post();
            for header in headers {
                request = request.insert_header(*header);
            }
            has_body(&request.to_http_request())
        };
        assert!(!with(&[]));
        assert!(!with(&[("content-length", "0")]));
        assert!(with(&[("content-length", "12")]));
        assert!(with(&[("transfer-encoding", "chunked")]));
    }

    #[tokio::test]
    async fn a_body_still_running_at_the_deadline_is_cut_off_with_an_error() {
        let first: std::io::Result<Bytes> = Ok(Bytes::from_static(b"first"));
        let endless = futures_util::stream::iter([first]).chain(futures_util::stream::pending());
        let deadline = Instant::now() + Duration::from_millis(50);
        let mut body = Box::pin(until_deadline(Box::pin(endless), deadline));
        assert_eq!(
            body.next().await.unwrap().unwrap(),
            Bytes::from_static(b"first")
        );
        let cut = body.next().await.unwrap().unwrap_err();
        assert_eq!(cut.kind(), std::io::ErrorKind::TimedOut);
        assert!(body.next().await.is_none());
    }

    #[test]
    fn the_callers_address_is_appended_and_connection_headers_dropped() {
        let request = actix_web::test::TestRequest::post()
            .peer_addr("10.0.0.9:5000".parse().unwrap())
            .insert_header(("x-forwarded-for", "203.0.113.7"))
            .insert_header(("connection", "keep-alive"))
            .insert_header(("authorization", "Bearer t"))
            .to_http_request();
        let headers = outgoing_headers(&request);
        assert_eq!(headers["x-forwarded-for"], "203.0.113.7, 10.0.0.9");
        assert_eq!(headers["authorization"], "Bearer t");
        assert!(!headers.contains_key("connection"));
    }
}
