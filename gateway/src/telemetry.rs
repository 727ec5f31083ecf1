//! Structured logs with `tracing`: human-readable by default, one JSON object per line with
//! `LOG_FORMAT=json`. Every HTTP request gets a span carrying its request id.

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
