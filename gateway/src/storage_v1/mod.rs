//! storage/v1: Supabase Storage's API — buckets, objects, signed URLs, resumable (TUS)
//! uploads and image transformations — for the unchanged `@supabase/storage-js`.
//! Metadata is in `storage.buckets`/`storage.objects` (Supabase's schema, so existing
//! policies work) and every statement runs as the caller, through RLS, except the lookups
//! Supabase Storage itself makes as the service role ([`caller`]). Bytes are kept by a
//! [`backend`]: a directory under `DATA_DIR` or an S3-compatible store. Each request reads
//! top to bottom: parse (route, [`names`]) → authorize ([`caller`]) → SQL → respond, and
//! every error is written by [`error`].

pub mod backend;
pub mod body;
pub mod buckets;
pub mod caller;
pub mod error;
pub mod file_reader;
pub mod lookup;
pub mod names;
pub mod objects;
pub mod render;
pub mod signing;
pub mod tus;

use actix_web::{HttpRequest, web};
use deadpool_postgres::{Object, Transaction};

use self::backend::Backend;
use self::error::{StorageError, StorageResult};
use crate::config::Settings;
use crate::config::storage::StorageSettings;
use crate::db::Database;
use crate::db::thread_pools::ThreadPools;
use crate::identity::ProjectKeys;

/// Everything storage/v1 needs, shared by the HTTP workers.
#[derive(Debug)]
pub struct StorageState {
    pub settings: StorageSettings,
    pub keys: ProjectKeys,
    pub anon_role: String,
    pub backend: Backend,
    pools: ThreadPools,
    pub uploads: tus::Uploads,
    pub renders: render::RenderCache,
    pub buckets: lookup::BucketCache,
}

impl StorageState {
    pub fn new(
        settings: &Settings,
        keys: ProjectKeys,
        db: &Database,
        per_worker: usize,
    ) -> Result<Self, String> {
        let backend = Backend::new(&settings.storage.backend)?;
        let db = db.clone();
        Ok(Self {
            settings: settings.storage.clone(),
            keys,
            anon_role: settings.rest.anon_role.clone(),
            uploads: tus::Uploads::new(&settings.data_dir)?,
            backend,
            pools: ThreadPools::new(move || db.authenticator_pool(per_worker)),
            renders: render::RenderCache::default(),
            buckets: lookup::BucketCache::default(),
        })
    }

    /// How much of a refused upload's body is read before its connection is closed instead.
    pub fn drain_budget(&self) -> u64 {
        self.settings.file_size_limit + 1024 * 1024
    }

    /// An `authenticator` connection of this worker's pool.
    pub async fn connection(&self) -> StorageResult<Object> {
        let pool = self
            .pools
            .current()
            .map_err(|error| StorageError::internal_because(&error))?;
        pool.get()
            .await
            .map_err(|error| StorageError::internal_because(&error))
    }
}

/// Opens the request's transaction.
pub async fn begin(connection: &mut Object) -> StorageResult<Transaction<'_>> {
    connection
        .transaction()
        .await
        .map_err(|error| StorageError::internal_because(&error))
}

/// Opens the request's transaction as `caller` (see [`caller::Scope::enter`]).
pub async fn begin_as<'c>(
    connection: &'c mut Object,
    scope: &caller::Scope,
    caller: &caller::Caller,
) -> StorageResult<Transaction<'c>> {
    let tx = begin(connection).await?;
    scope.enter(&tx, caller).await?;
    Ok(tx)
}

/// Ends it.
pub async fn commit(tx: Transaction<'_>) -> StorageResult<()> {
    tx.commit()
        .await
        .map_err(|error| error::database_error(&error, StorageError::resource_exists))
}

/// The object key of a route whose last segment is `{key:.*}`, as the client wrote it
/// (percent-decoded).
pub fn key_of(request: &HttpRequest) -> String {
    let raw = request.match_info().get("key").unwrap_or("");
    percent_encoding::percent_decode_str(raw)
        .decode_utf8_lossy()
        .into_owned()
}

/// The bucket of a route with a `{bucket}` segment.
pub fn bucket_of(request: &HttpRequest) -> String {
    let raw = request.match_info().get("bucket").unwrap_or("");
    percent_encoding::percent_decode_str(raw)
        .decode_utf8_lossy()
        .into_owned()
}

/// `2021-02-17T04:43:32.770Z`, as Supabase Storage writes timestamps.
pub fn timestamp(at: chrono::DateTime<chrono::Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// An HTTP date (`Last-Modified`, `Expires`): `Sat, 28 Nov 2026 21:15:07 GMT`.
pub fn http_date(at: chrono::DateTime<chrono::Utc>) -> String {
    at.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

pub fn routes(config: &mut web::ServiceConfig) {
    config.service(
        web::scope("/storage/v1")
            .configure(buckets::routes)
            .configure(objects::routes)
            .configure(render::routes)
            .configure(tus::routes)
            .default_service(web::to(unknown_route)),
    );
}

async fn unknown_route(request: HttpRequest) -> actix_web::HttpResponse {
    use actix_web::ResponseError;
    let url = request
        .uri()
        .path_and_query()
        .map_or(request.path(), |pq| pq.as_str());
    let url = url.strip_prefix("/storage/v1").unwrap_or(url);
    StorageError::no_route(request.method().as_str(), url).error_response()
}
