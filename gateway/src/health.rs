//! `GET /health`: is the gateway up and can it reach the database through the pool rest/v1
//! requests run on (this worker's `authenticator` pool, [`crate::db::api_pool`])? It also
//! reports where realtime's change capture stands (capturing, standby on another process,
//! unavailable with the reason), which does not make the gateway unhealthy.

use std::time::Duration;

use actix_web::http::header;
use actix_web::{HttpResponse, web};
use serde_json::json;

use crate::db::api_pool::ApiPool;
use crate::db::wire::Query;
use crate::realtime_v1::RealtimeState;
use crate::state::{AppState, VERSION};

/// How long the database check may take before the stack is reported unhealthy.
const DATABASE_CHECK_TIMEOUT: Duration = Duration::from_secs(3);

/// A live answer every time: no cache between a monitor and the gateway may keep one.
pub async fn gateway_health(
    state: web::Data<AppState>,
    pool: Option<web::Data<ApiPool>>,
    realtime: Option<web::Data<RealtimeState>>,
) -> HttpResponse {
    let uptime = state.started_at.elapsed().as_secs();
    let change_capture = realtime.map(|realtime| {
        let (state, error) = realtime.capture.describe();
        match error {
            Some(error) => json!({ "state": state, "error": error }),
            None => json!({ "state": state }),
        }
    });
    match check_database(pool.as_ref().map(|pool| pool.get_ref())).await {
        Ok(()) => HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(json!({
                "status": "ok",
                "version": VERSION,
                "database": "ok",
                "realtime_change_capture": change_capture,
                "uptime_seconds": uptime,
            })),
        Err(reason) => {
            tracing::warn!(%reason, "health check: database unavailable");
            HttpResponse::ServiceUnavailable()
                .insert_header((header::CACHE_CONTROL, "no-store"))
                .insert_header(("Retry-After", "1"))
                .json(json!({
                    "status": "error",
                    "version": VERSION,
                    "database": "unavailable",
                    "uptime_seconds": uptime,
                }))
        }
    }
}

/// Runs `SELECT 1` on a connection of this worker's API pool (none: the worker could not
/// build one, and its rest/v1 requests fail too).
pub async fn check_database(pool: Option<&ApiPool>) -> Result<(), String> {
    let Some(pool) = pool else {
        return Err("no API pool on this worker".to_owned());
    };
    let check = async {
        let mut connection = pool.get().await.map_err(|error| error.to_string())?;
        connection
            .pipeline(&[Query::new("SELECT 1", &[])])
            .await
            .map(|_| ())
            .map_err(|error| error.to_string())
    };
    tokio::time::timeout(DATABASE_CHECK_TIMEOUT, check)
        .await
        .unwrap_or_else(|_| Err("timed out".to_owned()))
}
