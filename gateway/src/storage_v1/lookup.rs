//! The reads every download makes, kept to one round trip: buckets' limits come from a
//! short-lived cache ([`BucketCache`]), and the object row is read in one implicit
//! transaction of the worker's API connection — the request settings, then the `SELECT`,
//! pipelined with a single `Sync` (as rest/v1 reads). Writes keep their explicit
//! transactions ([`super::begin`]).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

use actix_web::{HttpRequest, web};

use super::caller::{Caller, SETTINGS, Scope};
use super::error::{StorageError, StorageResult};
use super::objects::{BucketLimits, OBJECT_COLUMNS, ObjectRow};
use crate::db::api_pool::ApiPool;
use crate::db::wire::{self, Query};

/// How long a bucket's limits are trusted. A bucket made private, or given a smaller limit,
/// applies to this process at once and to other processes within this time.
const BUCKET_TTL: Duration = Duration::from_secs(2);

/// Buckets' limits as the service role read them, by id.
#[derive(Debug, Default)]
pub struct BucketCache {
    entries: Mutex<HashMap<String, (BucketLimits, Instant)>>,
}

impl BucketCache {
    fn get(&self, bucket: &str) -> Option<BucketLimits> {
        let entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        entries
            .get(bucket)
            .filter(|(_, at)| at.elapsed() < BUCKET_TTL)
            .map(|(limits, _)| limits.clone())
    }

    fn put(&self, bucket: &str, limits: BucketLimits) {
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if entries.len() > 10_000 {
            entries.retain(|_, (_, at)| at.elapsed() < BUCKET_TTL);
        }
        entries.insert(bucket.to_owned(), (limits, Instant::now()));
    }

    /// After this process changed or removed the bucket.
    pub fn forget(&self, bucket: &str) {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(bucket);
    }
}

/// Runs `statement` after the settings for `caller`, as one implicit transaction.
async fn as_caller(
    request: &HttpRequest,
    scope: &Scope,
    caller: &Caller,
    statement: &str,
    params: &[&str],
) -> StorageResult<Vec<wire::Row>> {
    let pool = request
        .app_data::<web::Data<ApiPool>>()
        .ok_or_else(|| StorageError::internal_because(&"no API pool on this worker"))?;
    let mut connection = pool
        .get()
        .await
        .map_err(|error| StorageError::internal_because(&error))?;
    let sub = caller.sub.as_deref().unwrap_or("");
    let settings = [
        caller.role.as_str(),
        sub,
        &caller.claims_json,
        &caller.token,
        scope.method.as_str(),
        scope.path.as_str(),
        scope.headers.as_str(),
        scope.operation,
    ];
    let mut results = connection
        .pipeline(&[
            Query::new(SETTINGS, &settings),
            Query::new(statement, params),
        ])
        .await
        .map_err(|error| wire_error(&error))?;
    Ok(results.pop().unwrap_or_default())
}

fn wire_error(error: &wire::Error) -> StorageError {
    match error.server() {
        Some(server) if server.code == "42501" => StorageError::access_denied(&server.message),
        _ => StorageError::internal_because(error),
    }
}

/// The bucket's limits, from the cache or read as the service role.
pub async fn bucket(
    request: &HttpRequest,
    state: &super::StorageState,
    scope: &Scope,
    bucket: &str,
) -> StorageResult<BucketLimits> {
    if let Some(limits) = state.buckets.get(bucket) {
        return Ok(limits);
    }
    let rows = as_caller(
        request,
        scope,
        &Caller::service(),
        "SELECT coalesce(public, false), file_size_limit, allowed_mime_types FROM storage.buckets WHERE id = $1",
        &[bucket],
    )
    .await?;
    let row = rows.first().ok_or_else(StorageError::no_such_bucket)?;
    let limits = BucketLimits {
        public: row.get(0),
        file_size_limit: row.get(1),
        allowed_mime_types: row.get(2),
    };
    state.buckets.put(bucket, limits.clone());
    Ok(limits)
}

/// The object row as `caller` may see it.
pub async fn object(
    request: &HttpRequest,
    scope: &Scope,
    caller: &Caller,
    bucket: &str,
    key: &str,
) -> StorageResult<Option<ObjectRow>> {
    static STATEMENT: LazyLock<String> = LazyLock::new(|| {
        format!("SELECT {OBJECT_COLUMNS} FROM storage.objects WHERE bucket_id = $1 AND name = $2")
    });
    let rows = as_caller(request, scope, caller, &STATEMENT, &[bucket, key]).await?;
    Ok(rows.first().map(ObjectRow::from_row))
}
