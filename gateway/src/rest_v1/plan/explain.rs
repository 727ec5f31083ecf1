//! `application/vnd.pgrst.plan`: the statement's `EXPLAIN` instead of its rows (only when
//! `PGRST_DB_PLAN_ENABLED` / `pgrst.db_plan_enabled` allows it).

use actix_web::HttpResponse;
use actix_web::http::header;
use serde_json::Value;

use std::sync::Arc;

use crate::rest_v1::Request;
use crate::rest_v1::error::ApiError;
use crate::rest_v1::execute::{self, RequestContext, TransactionMode};
use crate::rest_v1::request::media::MediaType;
use crate::rest_v1::response::ResponseParts;

use crate::rest_v1::request::media::PlanOptions;
use crate::rest_v1::sql::fragment::SqlBuilder;

/// `EXPLAIN (FORMAT JSON|TEXT[, ANALYZE, …]) <statement>`.
pub fn statement(statement: SqlBuilder, json: bool, options: PlanOptions) -> SqlBuilder {
    let mut flags = vec![if json { "FORMAT JSON" } else { "FORMAT TEXT" }];
    for (on, flag) in [
        (options.analyze, "ANALYZE"),
        (options.verbose, "VERBOSE"),
        (options.settings, "SETTINGS"),
        (options.buffers, "BUFFERS"),
        (options.wal, "WAL"),
    ] {
        if on {
            flags.push(flag);
        }
    }
    let mut explained = SqlBuilder::new();
    explained
        .push("EXPLAIN (")
        .push(&flags.join(", "))
        .push(") ")
        .extend(statement);
    explained
}

/// The plan as the response body: the JSON document, or the text lines.
pub fn body(rows: &[crate::db::wire::Row], json: bool) -> String {
    if json {
        rows.first()
            .and_then(|row| row.try_get::<Value>(0).ok())
            .map(|plan| plan.to_string())
            .unwrap_or_else(|| "[]".to_owned())
    } else {
        rows.iter()
            .filter_map(|row| row.try_get::<String>(0).ok())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Answers `plan` (the negotiated `application/vnd.pgrst.plan` type) with the `EXPLAIN` of
/// `statement`, run in the transaction the statement itself would have (see
/// [`execute::explain`]): status 200, the plan under its media type (`…plan+json; for="…"`).
pub async fn answer(
    request: &Request,
    context: Arc<RequestContext>,
    mode: TransactionMode,
    rollback: bool,
    statement: SqlBuilder,
    plan: &MediaType,
) -> Result<HttpResponse, ApiError> {
    let MediaType::Plan { json, options, .. } = plan else {
        return Err(ApiError::Internal(format!(
            "{plan:?} is not a plan media type"
        )));
    };
    let explained = self::statement(statement, *json, *options);
    let rows = execute::explain(
        &request.pool,
        &request.batches,
        context,
        mode,
        explained,
        rollback,
    )
    .await?;
    let mut parts = ResponseParts::new(200);
    parts.header(header::CONTENT_TYPE, plan.content_type());
    parts.body = Some(body(&rows, *json).into_bytes());
    Ok(parts.into_response())
}
