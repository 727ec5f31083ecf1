//! Time limits for clients that send their request slowly on purpose (slowloris, and its
//! variant that drips the body): without them each such client keeps a socket and a task
//! open for as long as it likes, and a few thousand of them exhaust the server's file
//! descriptors.
//!
//! - The request head must arrive whole within `API_HEAD_TIMEOUT` seconds; the HTTP layer
//!   enforces this itself (`client_request_timeout`), answering `408` and closing.
//! - A request body must bring at least [`BODY_MIN_BYTES`] within every `API_BODY_TIMEOUT`
//!   seconds until it is complete, the rule of Warp (the server PostgREST runs on), which
//!   a real client on the slowest school network meets while a drip of a byte every few
//!   seconds does not. The body is wrapped in [`PacedBody`] before any service reads it;
//!   when it runs out of time the service sees a read error, and the API gate answers
//!   `408` and closes the connection instead of whatever the service made of it.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::dev::{Payload, ServiceRequest};
use actix_web::error::PayloadError;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::web::Bytes;
use actix_web::{HttpMessage, HttpResponse};
use futures_util::Stream;
use tokio::time::{Instant, Sleep};

/// Bytes a request body must bring within every body window until it is complete.
pub const BODY_MIN_BYTES: usize = 2048;

/// How long a client may take over its request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientTimeouts {
    /// For the whole request head (`API_HEAD_TIMEOUT`).
    pub head: Duration,
    /// Within which a body must bring [`BODY_MIN_BYTES`] more (`API_BODY_TIMEOUT`).
    pub body_window: Duration,
}

/// Set once a paced body has run out of time.
#[derive(Debug, Clone, Default)]
pub struct BodyTimedOut(Rc<Cell<bool>>);

impl BodyTimedOut {
    pub fn get(&self) -> bool {
        self.0.get()
    }

    /// `408`, plain text, and the connection closed: the rest of the body is never read.
    pub fn response() -> HttpResponse {
        HttpResponse::build(StatusCode::REQUEST_TIMEOUT)
            .insert_header((
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            ))
            .force_close()
            .body("Request body timeout\n")
    }
}

/// Puts the request's body, if it has one, under the pace rule; the returned flag tells
/// whether it ran out of time. Requests without a body (most reads) and protocol upgrades
/// (a websocket's stream is not a body) are left as they are.
pub fn pace_body(request: &mut ServiceRequest, window: Duration) -> Option<BodyTimedOut> {
    if request.head().upgrade() {
        return None;
    }
    let payload = request.take_payload();
    if matches!(payload, Payload::None) {
        return None;
    }
    let timed_out = BodyTimedOut::default();
    let paced = PacedBody {
        inner: payload,
        window,
        deadline: Box::pin(tokio::time::sleep(window)),
        since_deadline_set: 0,
        timed_out: timed_out.clone(),
    };
    let boxed: Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>> = Box::pin(paced);
    request.set_payload(Payload::from(boxed));
    Some(timed_out)
}

/// A body that fails with a time-out when [`BODY_MIN_BYTES`] do not arrive within a window.
/// The clock runs between reads too (Warp pauses it while the application works); the
/// services here read their bodies straight through, so only the client's pace counts.
struct PacedBody<S> {
    inner: S,
    window: Duration,
    deadline: Pin<Box<Sleep>>,
    /// Bytes received since the deadline was last pushed back.
    since_deadline_set: usize,
    timed_out: BodyTimedOut,
}

impl<S> Stream for PacedBody<S>
where
    S: Stream<Item = Result<Bytes, PayloadError>> + Unpin,
{
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.timed_out.get() {
            return Poll::Ready(None);
        }
        match Pin::new(&mut this.inner).poll_next(cx) {
            Poll::Ready(Some(Ok(chunk))) => {
                this.since_deadline_set += chunk.len();
                if this.since_deadline_set >= BODY_MIN_BYTES {
                    this.since_deadline_set = 0;
                    let next = Instant::now() + this.window;
                    this.deadline.as_mut().reset(next);
                }
                Poll::Ready(Some(Ok(chunk)))
            }
            Poll::Pending => match this.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    this.timed_out.0.set(true);
                    Poll::Ready(Some(Err(PayloadError::Io(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the request body arrived too slowly",
                    )))))
                }
                Poll::Pending => Poll::Pending,
            },
            finished => finished,
        }
    }
}

#[cfg(test)]
mod tests {
    use actix_web::body::MessageBody;
    use futures_util::StreamExt;
    use tokio::sync::mpsc;

    use super::*;

    const WINDOW: Duration = Duration::from_secs(30);

    /// A body fed by hand through a channel, and its paced wrapper.
    fn paced() -> (
        mpsc::UnboundedSender<Bytes>,
        PacedBody<impl Stream<Item = Result<Bytes, PayloadError>> + Unpin>,
        BodyTimedOut,
    ) {
        let (send, receive) = mpsc::unbounded_channel::<Bytes>();
        let inner = futures_util::stream::unfold(receive, |mut receive| async move {
            receive.recv().await.map(|chunk| (Ok(chunk), receive))
        });
        let timed_out = BodyTimedOut::default();
        let body = PacedBody {
            inner: Box::pin(inner),
            window: WINDOW,
            deadline: Box::pin(tokio::time::sleep(WINDOW)),
            since_deadline_set: 0,
            timed_out: timed_out.clone(),
        };
        (send, body, timed_out)
    }

    #[tokio::test(start_paused = true)]
    async fn a_dripping_body_times_out_after_one_window() {
        let (send, mut body, timed_out) = paced();
        for _ in 0..5 {
            send.send(Bytes::from_static(b"[")).unwrap();
            assert_eq!(body.next().await.unwrap().unwrap(), "[");
            tokio::time::advance(Duration::from_secs(5)).await;
        }
        // 5 bytes in 25 s; the window ends 5 s later with the rule unmet.
        let started = Instant::now();
        let error = body.next().await.unwrap().unwrap_err();
        assert_eq!(started.elapsed(), Duration::from_secs(5));
        assert!(error.to_string().contains("too slowly"), "{error}");
        assert!(timed_out.get());
        assert!(body.next().await.is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_but_steady_body_is_read_whole() {
        let (send, mut body, timed_out) = paced();
        // 2 KiB every 29 s, for five minutes: slow, but within the rule.
        let mut received = 0;
        for _ in 0..10 {
            tokio::time::advance(Duration::from_secs(29)).await;
            send.send(Bytes::from(vec![b' '; BODY_MIN_BYTES])).unwrap();
            received += body.next().await.unwrap().unwrap().len();
        }
        drop(send);
        assert!(body.next().await.is_none());
        assert_eq!(received, 10 * BODY_MIN_BYTES);
        assert!(!timed_out.get());
    }

    #[test]
    fn the_answer_is_408_and_closes() {
        let response = BodyTimedOut::response();
        assert_eq!(response.status(), 408);
        assert_eq!(
            response.head().connection_type(),
            actix_web::http::ConnectionType::Close
        );
        let body = response.into_body().try_into_bytes().unwrap();
        assert_eq!(&body[..], b"Request body timeout\n");
    }
}
