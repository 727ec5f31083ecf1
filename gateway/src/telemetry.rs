//! Structured logs with `tracing`: human-readable by default, one JSON object per line with
//! `LOG_FORMAT=json`. Every HTTP request gets a request id (`x-request-id`); at `debug` level
//! also a span carrying it.

use std::io::IsTerminal;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::{Error, HttpMessage, HttpRequest};
use tracing::Span;
use tracing_actix_web::{RequestId, RootSpanBuilder};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::format::FmtSpan;

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

/// The span of one HTTP request: request id, method and path. It is a `debug` span, so
/// logging at `debug` (`LOG_LEVEL=debug`) ties every line a request logs to it. At the
/// default level a span per request would cost about a tenth of a simple read's CPU time,
/// so there is none; the line that reports a failed request (5xx) carries the request id,
/// method and path itself.
#[derive(Debug)]
pub struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let span = tracing::debug_span!(
            "request",
            request_id = tracing::field::Empty,
            method = tracing::field::Empty,
            path = tracing::field::Empty,
        );
        if !span.is_disabled() {
            if let Some(id) = request.extensions().get::<RequestId>() {
                span.record("request_id", tracing::field::display(id));
            }
            span.record("method", tracing::field::display(request.method()));
            span.record("path", request.path());
        }
        span
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        // Every server error gets this line, also when a service answered it as a plain
        // response (rest/v1 and auth/v1 do); their own lines about the cause come first.
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
        let request_id = request.and_then(|r| r.extensions().get::<RequestId>().copied());
        span.in_scope(|| {
            tracing::error!(
                request_id = request_id.map(tracing::field::display),
                method = request.map(|r| tracing::field::display(r.method())),
                path = request.map(HttpRequest::path),
                status = status.as_u16(),
                error = message,
                "request failed"
            );
        });
    }
}
