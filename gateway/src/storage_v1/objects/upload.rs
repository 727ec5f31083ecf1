//! Uploads: `POST /object/{bucket}/{key}` (new, or replace with `x-upsert: true`), `PUT`
//! (always replaces), raw bodies and `multipart/form-data`, and the pipeline signed and
//! resumable uploads share ([`store`]). As Supabase Storage: the bucket's limits are read
//! as the service role; the caller's right to write is probed with the real `INSERT` (or
//! upsert) under its role, rolled back; the bytes are streamed to the backend under a new
//! version, refused as soon as they pass the limit; and the row is written as the service
//! role. If that last write fails, the new bytes are deleted; once it succeeds the previous
//! version's are.

use actix_multipart::Multipart;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use base64::Engine;
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use serde_json::{Value, json};

use super::{BucketLimits, bucket_limits};
use crate::storage_v1::backend::{WriteError, Written, object_path};
use crate::storage_v1::body::RequestBody;
use crate::storage_v1::caller::{Caller, Scope, TokenRule};
use crate::storage_v1::error::{StorageError, StorageResult, database_error};
use crate::storage_v1::names::{check_bucket_name, check_key, mime_allowed};
use crate::storage_v1::{StorageState, begin, begin_as, bucket_of, commit, key_of};

/// Largest `user_metadata` accepted, in bytes of JSON.
const MAX_USER_METADATA: usize = 1024 * 1024;

pub async fn create(
    request: HttpRequest,
    state: web::Data<StorageState>,
    payload: web::Payload,
) -> HttpResponse {
    let body = RequestBody::new(payload);
    let stored = async {
        let upsert = header_flag(&request, "x-upsert");
        let caller = Caller::of(&request, &state, TokenRule::Required)?;
        let target = Target::of(&request, Scope::of(&request, "storage.object.upload"))?;
        let row = upload(
            &state,
            &request,
            body.clone(),
            &target,
            &caller,
            Some(&caller),
            upsert,
        )
        .await?;
        Ok(json!({ "Id": row.id, "Key": target.full_key() }))
    }
    .await;
    answer(&state, &body, stored).await
}

pub async fn update(
    request: HttpRequest,
    state: web::Data<StorageState>,
    payload: web::Payload,
) -> HttpResponse {
    let body = RequestBody::new(payload);
    let stored = async {
        let caller = Caller::of(&request, &state, TokenRule::Required)?;
        let target = Target::of(
            &request,
            Scope::of(&request, "storage.object.upload_update"),
        )?;
        let row = upload(
            &state,
            &request,
            body.clone(),
            &target,
            &caller,
            Some(&caller),
            true,
        )
        .await?;
        Ok(json!({ "Id": row.id, "Key": target.full_key() }))
    }
    .await;
    answer(&state, &body, stored).await
}

/// The JSON answer of an upload, or its refusal once the rest of the body was read.
pub async fn answer(
    state: &StorageState,
    body: &RequestBody,
    stored: StorageResult<Value>,
) -> HttpResponse {
    match stored {
        Ok(json) => HttpResponse::Ok().json(json),
        Err(error) => body.refuse(error, state.drain_budget()).await,
    }
}

pub fn header_flag(request: &HttpRequest, name: &str) -> bool {
    request
        .headers()
        .get(name)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.eq_ignore_ascii_case("true"))
}

/// Where an upload goes.
#[derive(Debug, Clone)]
pub struct Target {
    pub bucket: String,
    pub key: String,
    pub scope: Scope,
}

impl Target {
    pub fn of(request: &HttpRequest, scope: Scope) -> StorageResult<Self> {
        Self::new(bucket_of(request), key_of(request), scope)
    }

    pub fn new(bucket: String, key: String, scope: Scope) -> StorageResult<Self> {
        check_bucket_name(&bucket)?;
        check_key(&key)?;
        Ok(Self { bucket, key, scope })
    }

    pub fn full_key(&self) -> String {
        format!("{}/{}", self.bucket, self.key)
    }

    fn is_folder_placeholder(&self) -> bool {
        self.key.ends_with(".emptyFolderPlaceholder")
    }
}

/// What the uploaded file says about itself.
#[derive(Debug, Clone)]
pub struct FileInfo {
    pub mimetype: String,
    pub cache_control: String,
    pub user_metadata: Option<Value>,
    /// The declared length (`Content-Length` or TUS `Upload-Length`), for RLS probes.
    pub declared_length: Option<u64>,
}

/// The id of the written row, and more for callers that need it.
#[derive(Debug)]
pub struct Stored {
    pub id: uuid::Uuid,
}

/// The whole upload of one request body.
#[allow(clippy::too_many_arguments)]
pub async fn upload(
    state: &StorageState,
    request: &HttpRequest,
    payload: RequestBody,
    target: &Target,
    owner: &Caller,
    probe_as: Option<&Caller>,
    upsert: bool,
) -> StorageResult<Stored> {
    let limits = limits(state, target).await?;
    let max = max_size(state, &limits, target);
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
        .to_owned();
    if content_type
        .to_ascii_lowercase()
        .starts_with("multipart/form-data")
    {
        let mut form = Multipart::new(request.headers(), payload);
        let mut fields: Vec<(String, String)> = Vec::new();
        while let Some(field) = form.next().await {
            let mut field =
                field.map_err(|error| StorageError::invalid_request(&error.to_string()))?;
            let is_file = field
                .content_disposition()
                .is_some_and(|disposition| disposition.get_filename().is_some());
            if !is_file {
                let name = field.name().unwrap_or("").to_owned();
                let mut text = Vec::new();
                while let Some(chunk) = field.next().await {
                    let chunk =
                        chunk.map_err(|error| StorageError::invalid_request(&error.to_string()))?;
                    text.extend_from_slice(&chunk);
                    if text.len() > MAX_USER_METADATA {
                        return Err(StorageError::metadata_too_large());
                    }
                }
                fields.push((name, String::from_utf8_lossy(&text).into_owned()));
                continue;
            }
            let field_value = |name: &str| {
                fields
                    .iter()
                    .find(|(field, _)| field == name)
                    .map(|(_, value)| value.clone())
            };
            let mimetype = field_value("contentType").unwrap_or_else(|| {
                field.content_type().map_or_else(
                    || "application/octet-stream".to_owned(),
                    ToString::to_string,
                )
            });
            let cache_control = field_value("cacheControl").map_or_else(
                || "max-age=3600".to_owned(),
                |seconds| format!("max-age={seconds}"),
            );
            let user_metadata = field_value("metadata")
                .or_else(|| field_value("userMetadata"))
                .and_then(|text| serde_json::from_str::<Value>(&text).ok())
                .filter(Value::is_object);
            let info = FileInfo {
                mimetype,
                cache_control,
                user_metadata: Some(user_metadata.unwrap_or_else(|| json!({}))),
                declared_length: None,
            };
            return store(
                state, target, &limits, max, &info, owner, probe_as, upsert, field,
            )
            .await;
        }
        return Err(StorageError::invalid_request("No content provided"));
    }
    let declared_length = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared_length.is_some_and(|length| length > max) {
        return Err(StorageError::entity_too_large());
    }
    let text_header = |name: header::HeaderName| {
        request
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .filter(|value| !value.is_empty())
            .map(str::to_owned)
    };
    let user_metadata = text_header(header::HeaderName::from_static("x-metadata"))
        .and_then(|encoded| {
            base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .ok()
        })
        .and_then(|decoded| serde_json::from_slice::<Value>(&decoded).ok())
        .filter(Value::is_object);
    if user_metadata
        .as_ref()
        .is_some_and(|value| value.to_string().len() > MAX_USER_METADATA)
    {
        return Err(StorageError::metadata_too_large());
    }
    let info = FileInfo {
        mimetype: text_header(header::CONTENT_TYPE)
            .unwrap_or_else(|| "application/octet-stream".to_owned()),
        cache_control: text_header(header::CACHE_CONTROL)
            .unwrap_or_else(|| "max-age=3600".to_owned()),
        user_metadata: Some(user_metadata.unwrap_or_else(|| json!({}))),
        declared_length,
    };
    store(
        state, target, &limits, max, &info, owner, probe_as, upsert, payload,
    )
    .await
}

/// The bucket of `target`, read as the service role.
pub async fn limits(state: &StorageState, target: &Target) -> StorageResult<BucketLimits> {
    let mut connection = state.connection().await?;
    let tx = begin(&mut connection).await?;
    target.scope.enter(&tx, &Caller::service()).await?;
    let limits = bucket_limits(&tx, &target.bucket).await?;
    commit(tx).await?;
    Ok(limits)
}

/// The largest object `target` may be: the global limit, lowered by the bucket's; folder
/// placeholders are empty.
pub fn max_size(state: &StorageState, limits: &BucketLimits, target: &Target) -> u64 {
    if target.is_folder_placeholder() {
        return 0;
    }
    let global = state.settings.file_size_limit;
    limits
        .file_size_limit
        .and_then(|limit| u64::try_from(limit).ok())
        .map_or(global, |limit| limit.min(global))
}

/// Refuses a type the bucket does not allow.
pub fn check_mime(limits: &BucketLimits, target: &Target, mimetype: &str) -> StorageResult<()> {
    if target.is_folder_placeholder()
        || mime_allowed(mimetype, limits.allowed_mime_types.as_deref())
    {
        Ok(())
    } else {
        Err(StorageError::invalid_mime_type(mimetype))
    }
}

/// Checks, streams and records one file.
#[allow(clippy::too_many_arguments)]
pub async fn store<S, E>(
    state: &StorageState,
    target: &Target,
    limits: &BucketLimits,
    max: u64,
    info: &FileInfo,
    owner: &Caller,
    probe_as: Option<&Caller>,
    upsert: bool,
    body: S,
) -> StorageResult<Stored>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: std::fmt::Display,
{
    check_mime(limits, target, &info.mimetype)?;
    if let Some(caller) = probe_as {
        probe(state, target, caller, info, upsert).await?;
    }
    let version = uuid::Uuid::new_v4().to_string();
    let path = object_path(&target.bucket, &target.key, &version);
    let written = state
        .backend
        .write(&path, body, max)
        .await
        .map_err(|error| match error {
            WriteError::TooLarge => StorageError::entity_too_large(),
            WriteError::Body(cause) => {
                StorageError::invalid_request(&format!("The upload did not complete: {cause}"))
            }
            WriteError::Io(cause) => StorageError::internal_because(&cause),
        })?;
    record(state, target, info, owner, upsert, &version, &written).await
}

/// Whether the caller may write this row, asked of PostgreSQL with the real statement
/// under the caller's role and rolled back (so INSERT/UPDATE policies, WITH CHECK and the
/// unique key decide, as in Supabase Storage).
pub async fn probe(
    state: &StorageState,
    target: &Target,
    caller: &Caller,
    info: &FileInfo,
    upsert: bool,
) -> StorageResult<()> {
    let metadata = json!({
        "mimetype": info.mimetype,
        "contentLength": info.declared_length,
    });
    let mut connection = state.connection().await?;
    let tx = begin_as(&mut connection, &target.scope, caller).await?;
    let sql = if upsert {
        "INSERT INTO storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, version) \
         VALUES ($1, $2, $3, $4, $5, $6, '1') \
         ON CONFLICT (bucket_id, name) DO UPDATE SET metadata = EXCLUDED.metadata, \
           user_metadata = EXCLUDED.user_metadata, version = EXCLUDED.version, \
           owner = EXCLUDED.owner, owner_id = EXCLUDED.owner_id \
         RETURNING id"
    } else {
        "INSERT INTO storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, version) \
         VALUES ($1, $2, $3, $4, $5, $6, '1') RETURNING id"
    };
    let result = tx
        .query(
            sql,
            &[
                &target.bucket,
                &target.key,
                &caller.owner_uuid(),
                &caller.sub,
                &metadata,
                &info.user_metadata,
            ],
        )
        .await;
    // Never kept: this only asks.
    let _ = tx.rollback().await;
    result
        .map(drop)
        .map_err(|error| database_error(&error, StorageError::key_exists))
}

/// Writes the row of a stored version as the service role; the new bytes are deleted if
/// that fails, the replaced version's once it succeeded.
pub async fn record(
    state: &StorageState,
    target: &Target,
    info: &FileInfo,
    owner: &Caller,
    upsert: bool,
    version: &str,
    written: &Written,
) -> StorageResult<Stored> {
    let metadata = system_metadata(&info.mimetype, &info.cache_control, written);
    let path = object_path(&target.bucket, &target.key, version);
    let outcome: StorageResult<(uuid::Uuid, Option<String>)> = async {
        let mut connection = state.connection().await?;
        let tx = begin(&mut connection).await?;
        target.scope.enter(&tx, &Caller::service()).await?;
        let fail = |error: tokio_postgres::Error| database_error(&error, StorageError::key_exists);
        let previous: Option<String> = tx
            .query_opt(
                "SELECT version FROM storage.objects WHERE bucket_id = $1 AND name = $2 FOR UPDATE",
                &[&target.bucket, &target.key],
            )
            .await
            .map_err(fail)?
            .and_then(|row| row.get(0));
        let sql = if upsert {
            "INSERT INTO storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, version) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) \
             ON CONFLICT (bucket_id, name) DO UPDATE SET metadata = EXCLUDED.metadata, \
               user_metadata = EXCLUDED.user_metadata, version = EXCLUDED.version, \
               owner = EXCLUDED.owner, owner_id = EXCLUDED.owner_id, last_accessed_at = now() \
             RETURNING id"
        } else {
            "INSERT INTO storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, version) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id"
        };
        let row = tx
            .query_one(
                sql,
                &[
                    &target.bucket,
                    &target.key,
                    &owner.owner_uuid(),
                    &owner.sub,
                    &metadata,
                    &info.user_metadata,
                    &version,
                ],
            )
            .await
            .map_err(fail)?;
        commit(tx).await?;
        Ok((row.get(0), previous))
    }
    .await;
    match outcome {
        Ok((id, previous)) => {
            if let Some(previous) = previous.filter(|previous| previous != version) {
                // Freeing the replaced version's blocks takes the file system a while for
                // large objects, and the client need not wait for it: nothing points there.
                let backend = state.backend.clone();
                let stale = object_path(&target.bucket, &target.key, &previous);
                tokio::spawn(async move { backend.delete(&stale).await });
            }
            Ok(Stored { id })
        }
        Err(error) => {
            state.backend.delete(&path).await;
            Err(error)
        }
    }
}

/// `storage.objects.metadata` as Supabase Storage writes it.
pub fn system_metadata(mimetype: &str, cache_control: &str, written: &Written) -> Value {
    json!({
        "eTag": written.etag,
        "size": written.size,
        "mimetype": mimetype,
        "cacheControl": cache_control,
        "lastModified": crate::storage_v1::timestamp(written.last_modified),
        "contentLength": written.size,
        "httpStatusCode": 200,
    })
}
