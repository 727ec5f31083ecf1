//! `/object`: upload ([`upload`]), download, info and existence ([`download`]), listing
//! ([`list`]), removal, move and copy ([`manage`]) and signed URLs ([`signed`]). This module
//! holds what they share: the routes (static segments before `{bucket}`, as Supabase's
//! router), the object row and the bucket lookups Storage makes as the service role.

pub mod download;
pub mod list;
pub mod manage;
pub mod signed;
pub mod upload;

use actix_web::web;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use tokio_postgres::Row;

use super::error::{StorageError, StorageResult, database_error};
use super::timestamp;

pub fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/object/list/{bucket}", web::post().to(list::list_v1))
        .route("/object/list-v2/{bucket}", web::post().to(list::list_v2))
        .route("/object/move", web::post().to(manage::move_object))
        .route("/object/copy", web::post().to(manage::copy_object))
        .route(
            "/object/sign/{bucket}/{key:.+}",
            web::post().to(signed::sign_one),
        )
        .route("/object/sign/{bucket}", web::post().to(signed::sign_many))
        .route(
            "/object/sign/{bucket}/{key:.+}",
            web::get().to(signed::download_signed),
        )
        .route(
            "/object/upload/sign/{bucket}/{key:.+}",
            web::post().to(signed::sign_upload),
        )
        .route(
            "/object/upload/sign/{bucket}/{key:.+}",
            web::put().to(signed::upload_signed),
        )
        .route(
            "/object/public/{bucket}/{key:.+}",
            web::get().to(doors::get_public),
        )
        .route(
            "/object/public/{bucket}/{key:.+}",
            web::head().to(doors::head_public),
        )
        .route(
            "/object/authenticated/{bucket}/{key:.+}",
            web::get().to(doors::get_authenticated),
        )
        .route(
            "/object/authenticated/{bucket}/{key:.+}",
            web::head().to(doors::head_authenticated),
        )
        .route(
            "/object/info/public/{bucket}/{key:.+}",
            web::get().to(doors::info_public),
        )
        .route(
            "/object/info/authenticated/{bucket}/{key:.+}",
            web::get().to(doors::info_authenticated),
        )
        .route(
            "/object/info/{bucket}/{key:.+}",
            web::get().to(doors::info_optional),
        )
        .route("/object/{bucket}", web::delete().to(manage::remove_many))
        .route(
            "/object/{bucket}/{key:.+}",
            web::delete().to(manage::remove_one),
        )
        .route("/object/{bucket}/{key:.+}", web::post().to(upload::create))
        .route("/object/{bucket}/{key:.+}", web::put().to(upload::update))
        .route(
            "/object/{bucket}/{key:.+}",
            web::get().to(doors::get_optional),
        )
        .route(
            "/object/{bucket}/{key:.+}",
            web::head().to(doors::head_optional),
        );
}

/// The read routes, one per door ([`download::Access`]).
mod doors {
    use actix_web::{HttpRequest, HttpResponse, web};

    use super::download::{Access, download, head, info};
    use crate::storage_v1::StorageState;

    type State = web::Data<StorageState>;

    pub async fn get_public(request: HttpRequest, state: State) -> HttpResponse {
        download(request, state, Access::Public).await
    }
    pub async fn get_authenticated(request: HttpRequest, state: State) -> HttpResponse {
        download(request, state, Access::Authenticated).await
    }
    pub async fn get_optional(request: HttpRequest, state: State) -> HttpResponse {
        download(request, state, Access::Optional).await
    }
    pub async fn head_public(request: HttpRequest, state: State) -> HttpResponse {
        head(request, state, Access::Public).await
    }
    pub async fn head_authenticated(request: HttpRequest, state: State) -> HttpResponse {
        head(request, state, Access::Authenticated).await
    }
    pub async fn head_optional(request: HttpRequest, state: State) -> HttpResponse {
        head(request, state, Access::Optional).await
    }
    pub async fn info_public(request: HttpRequest, state: State) -> HttpResponse {
        info(request, state, Access::Public).await
    }
    pub async fn info_authenticated(request: HttpRequest, state: State) -> HttpResponse {
        info(request, state, Access::Authenticated).await
    }
    pub async fn info_optional(request: HttpRequest, state: State) -> HttpResponse {
        info(request, state, Access::Optional).await
    }
}

/// What Storage needs of a bucket before touching its objects.
#[derive(Debug, Clone)]
pub struct BucketLimits {
    pub public: bool,
    pub file_size_limit: Option<i64>,
    pub allowed_mime_types: Option<Vec<String>>,
}

/// The bucket, read as whoever the transaction currently runs as.
pub async fn bucket_limits(
    tx: &tokio_postgres::Transaction<'_>,
    bucket: &str,
) -> StorageResult<BucketLimits> {
    let row = tx
        .query_opt(
            "SELECT coalesce(public, false), file_size_limit, allowed_mime_types \
             FROM storage.buckets WHERE id = $1",
            &[&bucket],
        )
        .await
        .map_err(|error| database_error(&error, StorageError::resource_exists))?
        .ok_or_else(StorageError::no_such_bucket)?;
    Ok(BucketLimits {
        public: row.get(0),
        file_size_limit: row.get(1),
        allowed_mime_types: row.get(2),
    })
}

/// The columns of [`ObjectRow::from_row`].
pub const OBJECT_COLUMNS: &str = "id, name, bucket_id, owner, owner_id, version, metadata, \
     user_metadata, created_at, updated_at, last_accessed_at";

/// A result row of either PostgreSQL client.
pub trait Columns {
    fn column<'a, T: tokio_postgres::types::FromSql<'a>>(&'a self, index: usize) -> T;
}

impl Columns for Row {
    fn column<'a, T: tokio_postgres::types::FromSql<'a>>(&'a self, index: usize) -> T {
        self.get(index)
    }
}

impl Columns for crate::db::wire::Row {
    fn column<'a, T: tokio_postgres::types::FromSql<'a>>(&'a self, index: usize) -> T {
        self.get(index)
    }
}

/// A row of `storage.objects`.
#[derive(Debug, Clone)]
pub struct ObjectRow {
    pub id: uuid::Uuid,
    pub name: String,
    pub bucket_id: String,
    pub owner: Option<uuid::Uuid>,
    pub owner_id: Option<String>,
    pub version: Option<String>,
    pub metadata: Option<Value>,
    pub user_metadata: Option<Value>,
    pub created_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
    pub last_accessed_at: Option<DateTime<Utc>>,
}

impl ObjectRow {
    /// The row of a [`OBJECT_COLUMNS`] query, from either client (explicit transactions
    /// or the pipelined reads of [`crate::storage_v1::lookup`]).
    pub fn from_row(row: &impl Columns) -> Self {
        Self {
            id: row.column(0),
            name: row.column::<Option<String>>(1).unwrap_or_default(),
            bucket_id: row.column::<Option<String>>(2).unwrap_or_default(),
            owner: row.column(3),
            owner_id: row.column(4),
            version: row.column(5),
            metadata: row.column(6),
            user_metadata: row.column(7),
            created_at: row.column(8),
            updated_at: row.column(9),
            last_accessed_at: row.column(10),
        }
    }

    /// Where its bytes are.
    pub fn path(&self) -> String {
        super::backend::object_path(
            &self.bucket_id,
            &self.name,
            self.version.as_deref().unwrap_or(""),
        )
    }

    /// A string of the system metadata (`mimetype`, `cacheControl`, `eTag`, ...).
    pub fn meta_str(&self, name: &str) -> Option<&str> {
        self.metadata.as_ref()?.get(name)?.as_str()
    }

    pub fn size(&self) -> Option<u64> {
        self.metadata.as_ref()?.get("size")?.as_u64()
    }

    /// As Supabase Storage serializes a whole row (remove, copy).
    pub fn json(&self) -> ObjectJson {
        ObjectJson {
            name: self.name.clone(),
            bucket_id: self.bucket_id.clone(),
            owner: self.owner.map(|o| o.to_string()).unwrap_or_default(),
            owner_id: self.owner_id.clone().unwrap_or_default(),
            version: self.version.clone().unwrap_or_default(),
            id: self.id.to_string(),
            updated_at: self.updated_at.map(timestamp),
            created_at: self.created_at.map(timestamp),
            last_accessed_at: self.last_accessed_at.map(timestamp),
            metadata: self.metadata.clone(),
            user_metadata: self.user_metadata.clone(),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct ObjectJson {
    pub name: String,
    pub bucket_id: String,
    pub owner: String,
    pub owner_id: String,
    pub version: String,
    pub id: String,
    pub updated_at: Option<String>,
    pub created_at: Option<String>,
    pub last_accessed_at: Option<String>,
    pub metadata: Option<Value>,
    pub user_metadata: Option<Value>,
}

/// The object, read as whoever the transaction currently runs as.
pub async fn find_object(
    tx: &tokio_postgres::Transaction<'_>,
    bucket: &str,
    key: &str,
) -> StorageResult<Option<ObjectRow>> {
    tx.query_opt(
        &format!("SELECT {OBJECT_COLUMNS} FROM storage.objects WHERE bucket_id = $1 AND name = $2"),
        &[&bucket, &key],
    )
    .await
    .map(|row| row.as_ref().map(ObjectRow::from_row))
    .map_err(|error| database_error(&error, StorageError::resource_exists))
}
