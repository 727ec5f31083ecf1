//! State shared by every request handler.

use std::sync::Arc;
use std::time::Instant;

use crate::auth_v1::AuthState;
use crate::config::Settings;
use crate::db::Database;
use crate::identity::ProjectKeys;
use crate::rest_v1::schema_cache::reload::SchemaCacheState;

/// Version of the gateway, reported by health endpoints.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Debug)]
pub struct AppState {
    pub settings: Arc<Settings>,
    pub keys: ProjectKeys,
    pub db: Database,
    pub schema_cache: Arc<SchemaCacheState>,
    pub auth: Arc<AuthState>,
    pub started_at: Instant,
}
