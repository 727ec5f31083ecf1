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

/// The span of one HTTP request, built for every request. The subscriber formats a span's
/// fields when the span is created, so only the request id is filled in then; the method
/// and path are recorded when the request fails, on the line that reports it. Lines logged
/// during the request carry the request id, which ties them to that line.
#[derive(Debug)]
pub struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let request_id = request.extensions().get::<RequestId>().copied();
        let span = tracing::info_span!(
            "request",
            request_id = tracing::field::Empty,
            method = tracing::field::Empty,
            path = tracing::field::Empty,
        );
        if let Some(id) = request_id {
            span.record("request_id", tracing::field::display(id));
        }
        span
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
            if let Ok(response) = outcome {
                span.record(
                    "method",
                    tracing::field::display(response.request().method()),
                );
                span.record("path", response.request().path());
            }
            span.in_scope(
                || tracing::error!(status = status.as_u16(), error = %message, "request failed"),
            );
        }
    }
}
