//! Structured logs with `tracing`: human-readable by default, one JSON object per line with
//! `LOG_FORMAT=json`. Every HTTP request gets a request id (`x-request-id`, [`RequestLog`]);
//! at `debug` level also a span carrying it.

use std::fmt;
use std::future::{self, Future, Ready};
use std::io::IsTerminal;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform, forward_ready};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::{Error, HttpMessage, HttpRequest};
use pin_project_lite::pin_project;
use tracing::Span;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::format::FmtSpan;
use uuid::Uuid;

use crate::config::LogSettings;

/// Installs the global subscriber. Safe to call more than once (tests): later calls are
/// ignored.
pub fn init(settings: &LogSettings) {
    // Server NOTICEs ("schema already exists, skipping") are noise at info level.
    let directives = if settings.filter.contains("tokio_postgres") {
        settings.filter.clone()
    } else {
        format!("{},tokio_postgres=warn", settings.filter)
    };
    let filter = EnvFilter::try_new(&directives).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_span_events(FmtSpan::NONE)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let _ = if settings.json {
        builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .try_init()
    } else {
        builder.compact().try_init()
    };
}

/// The request id of one HTTP request: made by [`RequestLog`], kept in the request's
/// extensions for the services, echoed as `x-request-id` and named in the lines logged
/// about the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestId(Uuid);

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0.hyphenated(), f)
    }
}

/// The `x-request-id` header's name, built once rather than parsed per response.
const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Middleware, outermost: gives every request a [`RequestId`], answers it as
/// `x-request-id` (CORS preflights included), logs a line for every server error, and at
/// `debug` level (`LOG_LEVEL=debug`) runs the request in a span carrying the id, method and
/// path, so every line the request logs is tied to it. At the default level a span per
/// request would cost about a tenth of a simple read's CPU time, so there is none.
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestLog;

impl<S, B> Transform<S, ServiceRequest> for RequestLog
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error>,
    B: MessageBody,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Transform = RequestLogService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        future::ready(Ok(RequestLogService { service }))
    }
}

/// The service [`RequestLog`] wraps around the app.
pub struct RequestLogService<S> {
    service: S,
}

impl<S> fmt::Debug for RequestLogService<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestLogService").finish_non_exhaustive()
    }
}

impl<S, B> Service<ServiceRequest> for RequestLogService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error>,
    B: MessageBody,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Future = RequestLogFuture<S::Future>;

    forward_ready!(service);

    fn call(&self, request: ServiceRequest) -> Self::Future {
        let id = RequestId(Uuid::new_v4());
        request.extensions_mut().insert(id);
        let span = tracing::debug_span!(
            "request",
            request_id = %id,
            method = %request.method(),
            path = request.path(),
        );
        let response = span.in_scope(|| self.service.call(request));
        RequestLogFuture { response, span, id }
    }
}

pin_project! {
    /// The response of a [`RequestLogService`]: the inner service's, with the id added.
    pub struct RequestLogFuture<F> {
        #[pin]
        response: F,
        span: Span,
        id: RequestId,
    }
}

impl<F, B> Future for RequestLogFuture<F>
where
    F: Future<Output = Result<ServiceResponse<B>, Error>>,
    B: MessageBody,
{
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let _entered = this.span.enter();
        let mut outcome = ready!(this.response.poll(cx));
        log_if_failed(&outcome, *this.id);
        if let Ok(response) = &mut outcome {
            let mut text = Uuid::encode_buffer();
            let text = this.id.0.hyphenated().encode_lower(&mut text);
            if let Ok(value) = HeaderValue::from_str(text) {
                response.headers_mut().insert(X_REQUEST_ID, value);
            }
        }
        Poll::Ready(outcome)
    }
}

/// Every server error gets one line naming the request, also when a service answered it
/// as a plain response (rest/v1 and auth/v1 do); their own lines about the cause come first.
fn log_if_failed<B>(outcome: &Result<ServiceResponse<B>, Error>, id: RequestId) {
    let (status, message, request) = match outcome {
        Ok(response) if response.status().is_server_error() => (
            response.status(),
            response.response().error().map(ToString::to_string),
            Some(response.request()),
        ),
        Ok(_) => return,
        Err(error) => (
            error.as_response_error().status_code(),
            Some(error.to_string()),
            None,
        ),
    };
    if !status.is_server_error() {
        return;
    }
    tracing::error!(
        request_id = %id,
        method = request.map(|r| tracing::field::display(r.method())),
        path = request.map(HttpRequest::path),
        status = status.as_u16(),
        error = message,
        "request failed"
    );
}
