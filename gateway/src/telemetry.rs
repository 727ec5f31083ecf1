//! Structured logs with `tracing`: human-readable by default, one JSON object per line with
//! `LOG_FORMAT=json`. Every HTTP request gets a span carrying its request id.

use std::io::IsTerminal;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::{Error, HttpMessage};
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

/// The span of one HTTP request: request id, method and path — what an operator needs to
/// find a request's log lines. Built for every request, so it records only those (span
/// fields are formatted eagerly), plus the status and error when the request ends.
#[derive(Debug)]
pub struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let request_id = request.extensions().get::<RequestId>().copied();
        match request_id {
            Some(id) => tracing::info_span!(
                "request",
                request_id = %id,
                method = %request.method(),
                path = %request.path(),
            ),
            None => tracing::info_span!(
                "request",
                method = %request.method(),
                path = %request.path(),
            ),
        }
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        let failure = match outcome {
            Ok(response) => response
                .response()
                .error()
                .map(|error| (response.status(), error.to_string())),
            Err(error) => Some((error.as_response_error().status_code(), error.to_string())),
        };
        if let Some((status, message)) = failure
            && status.is_server_error()
        {
            span.in_scope(
                || tracing::error!(status = status.as_u16(), error = %message, "request failed"),
            );
        }
    }
}
