//! realtime/v1: Supabase Realtime's websocket (`/realtime/v1/websocket`) and its HTTP
//! broadcast (`/realtime/v1/api/broadcast`). The channels' rules are the `realtime` crate's;
//! here are the transport (the upgrade with its `apikey` checked first, frames in and out,
//! the idle timeout), the one [`realtime::Hub`] of the process, broadcasts from the database
//! ([`database`]), broadcasts between the processes on one database ([`relay`]),
//! postgres_changes ([`changes`]), private channels' policies ([`policies`]), and tokens
//! checked by the gateway's keys ([`tokens`]).

mod broadcast_api;
pub mod changes;
pub mod database;
mod policies;
pub mod relay;
mod socket;
mod tokens;

use std::sync::Arc;

use actix_web::web;
use realtime::Hub;

pub use policies::DatabasePolicies;
pub use tokens::GatewayTokens;

/// What every worker shares: the topics of this process and the token checker.
#[derive(Debug, Clone)]
pub struct RealtimeState {
    pub hub: Arc<Hub>,
    pub tokens: Arc<GatewayTokens>,
    pub policies: Arc<DatabasePolicies>,
    pub changes: Arc<changes::DatabaseChanges>,
    pub capture: Arc<changes::CaptureStatus>,
    /// Each socket's limits.
    pub limits: realtime::Limits,
}

pub fn routes(config: &mut web::ServiceConfig) {
    config.service(
        web::scope("/realtime/v1")
            .route("/websocket", web::get().to(socket::upgrade))
            .route("/api/broadcast", web::post().to(broadcast_api::batch))
            .route(
                "/api/broadcast/{topic}/events/{event}",
                web::post().to(broadcast_api::single),
            )
            .default_service(web::to(crate::web::no_route_handler)),
    );
}
