//! Removing (bulk and single), moving and copying objects. Rows change as the caller, so
//! the DELETE, UPDATE or INSERT policies decide; bytes follow the rows: a copy or move
//! stores the destination as a new version before its row is written, and the old bytes
//! are deleted only after the transaction committed.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

use super::upload::{FileInfo, Target, header_flag, probe, record};
use super::{OBJECT_COLUMNS, ObjectRow, find_object};
use crate::storage_v1::backend::{ReadError, Written, object_path};
use crate::storage_v1::buckets::json_body;
use crate::storage_v1::caller::{Caller, Scope, TokenRule};
use crate::storage_v1::error::{StorageError, StorageResult, database_error};
use crate::storage_v1::names::{check_bucket_name, check_key};
use crate::storage_v1::{StorageState, begin, begin_as, bucket_of, commit, key_of};

#[derive(Debug, Deserialize)]
struct RemoveBody {
    prefixes: Option<Vec<Value>>,
}

pub async fn remove_many(
    request: HttpRequest,
    state: web::Data<StorageState>,
    body: web::Bytes,
) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    let bucket = bucket_of(&request);
    let body: RemoveBody = json_body(&body)?;
    let names: Vec<String> = body
        .prefixes
        .unwrap_or_default()
        .into_iter()
        .filter_map(|item| match item {
            Value::String(name) => Some(name),
            // storage-js may send `{path, versionId}`; versions are not kept here.
            Value::Object(map) => map.get("path").and_then(Value::as_str).map(str::to_owned),
            _ => None,
        })
        .collect();
    if names.is_empty() || names.len() > 1000 {
        return Err(StorageError::invalid_request(
            "body/prefixes must NOT have fewer than 1 items",
        ));
    }
    let rows = delete_rows(
        &request,
        &state,
        &caller,
        &bucket,
        &names,
        "storage.object.delete_many",
    )
    .await?;
    let removed: Vec<_> = rows.iter().map(ObjectRow::json).collect();
    Ok(HttpResponse::Ok().json(removed))
}

pub async fn remove_one(
    request: HttpRequest,
    state: web::Data<StorageState>,
) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    let bucket = bucket_of(&request);
    let key = key_of(&request);
    check_key(&key)?;
    let rows = delete_rows(
        &request,
        &state,
        &caller,
        &bucket,
        &[key],
        "storage.object.delete",
    )
    .await?;
    if rows.is_empty() {
        return Err(StorageError::no_such_key());
    }
    Ok(HttpResponse::Ok().json(json!({ "message": "Successfully deleted" })))
}

async fn delete_rows(
    request: &HttpRequest,
    state: &StorageState,
    caller: &Caller,
    bucket: &str,
    names: &[String],
    operation: &'static str,
) -> StorageResult<Vec<ObjectRow>> {
    let mut connection = state.connection().await?;
    let tx = begin_as(&mut connection, &Scope::of(request, operation), caller).await?;
    let rows: Vec<ObjectRow> = tx
        .query(
            &format!(
                "DELETE FROM storage.objects WHERE bucket_id = $1 AND name = ANY($2) \
                 RETURNING {OBJECT_COLUMNS}"
            ),
            &[&bucket, &names],
        )
        .await
        .map_err(|error| database_error(&error, StorageError::resource_exists))?
        .iter()
        .map(ObjectRow::from_row)
        .collect();
    commit(tx).await?;
    for row in &rows {
        state.backend.delete(&row.path()).await;
    }
    Ok(rows)
}

#[derive(Debug, Deserialize)]
struct TransferBody {
    #[serde(rename = "bucketId")]
    bucket_id: Option<String>,
    #[serde(rename = "sourceKey")]
    source_key: Option<String>,
    #[serde(rename = "destinationKey")]
    destination_key: Option<String>,
    #[serde(rename = "destinationBucket")]
    destination_bucket: Option<String>,
    #[serde(rename = "copyMetadata")]
    copy_metadata: Option<bool>,
    metadata: Option<Value>,
}

struct Transfer {
    bucket: String,
    source: String,
    destination_bucket: String,
    destination: String,
    copy_metadata: bool,
    metadata: Option<Value>,
}

fn transfer(body: &[u8]) -> StorageResult<Transfer> {
    let body: TransferBody = json_body(body)?;
    let required = |name: &str| {
        StorageError::invalid_request(&format!("body must have required property '{name}'"))
    };
    let bucket = body.bucket_id.ok_or_else(|| required("bucketId"))?;
    let source = body.source_key.ok_or_else(|| required("sourceKey"))?;
    let destination = body
        .destination_key
        .ok_or_else(|| required("destinationKey"))?;
    check_key(&destination)?;
    let destination_bucket = body
        .destination_bucket
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| bucket.clone());
    check_bucket_name(&destination_bucket)?;
    Ok(Transfer {
        bucket,
        source,
        destination_bucket,
        destination,
        copy_metadata: body.copy_metadata.unwrap_or(true),
        metadata: body.metadata,
    })
}

pub async fn move_object(
    request: HttpRequest,
    state: web::Data<StorageState>,
    body: web::Bytes,
) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    let moving = transfer(&body)?;
    let version = uuid::Uuid::new_v4().to_string();
    let new_path = object_path(&moving.destination_bucket, &moving.destination, &version);
    let scope = Scope::of(&request, "storage.object.move");
    let mut connection = state.connection().await?;
    let tx = begin_as(&mut connection, &scope, &caller).await?;
    let fail = |error: tokio_postgres::Error| database_error(&error, StorageError::resource_exists);
    let source = find_object(&tx, &moving.bucket, &moving.source)
        .await?
        .ok_or_else(StorageError::no_such_key)?;
    // As the caller: the UPDATE policy (and its WITH CHECK on the new place) decides.
    let moved = tx
        .execute(
            "UPDATE storage.objects SET bucket_id = $3, name = $4, owner = $5, owner_id = $6 \
             WHERE bucket_id = $1 AND name = $2",
            &[
                &moving.bucket,
                &moving.source,
                &moving.destination_bucket,
                &moving.destination,
                &caller.owner_uuid(),
                &caller.sub,
            ],
        )
        .await
        .map_err(fail)?;
    if moved == 0 {
        return Err(StorageError::no_such_key());
    }
    copy_bytes(&state, &source, &new_path).await?;
    scope.enter(&tx, &Caller::service()).await?;
    let finished = async {
        tx.execute(
            "UPDATE storage.objects SET version = $3 WHERE bucket_id = $1 AND name = $2",
            &[&moving.destination_bucket, &moving.destination, &version],
        )
        .await
        .map_err(fail)?;
        commit(tx).await
    }
    .await;
    match finished {
        Ok(()) => {
            state.backend.delete(&source.path()).await;
            Ok(HttpResponse::Ok().json(json!({ "message": "Successfully moved" })))
        }
        Err(error) => {
            state.backend.delete(&new_path).await;
            Err(error)
        }
    }
}

async fn copy_bytes(state: &StorageState, source: &ObjectRow, to: &str) -> StorageResult<()> {
    state
        .backend
        .copy(&source.path(), to)
        .await
        .map_err(|error| match error {
            ReadError::NotFound => StorageError::bytes_missing(),
            ReadError::Io(cause) => StorageError::internal_because(&cause),
        })
}

pub async fn copy_object(
    request: HttpRequest,
    state: web::Data<StorageState>,
    body: web::Bytes,
) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    let upsert = header_flag(&request, "x-upsert");
    let copying = transfer(&body)?;
    let scope = Scope::of(&request, "storage.object.copy");
    let source = {
        let mut connection = state.connection().await?;
        let tx = begin_as(&mut connection, &scope, &caller).await?;
        let source = find_object(&tx, &copying.bucket, &copying.source)
            .await?
            .ok_or_else(StorageError::no_such_key)?;
        commit(tx).await?;
        source
    };
    let target = Target::new(
        copying.destination_bucket.clone(),
        copying.destination.clone(),
        scope,
    )?;
    let overrides = (!copying.copy_metadata)
        .then_some(copying.metadata.as_ref())
        .flatten();
    let pick = |name: &str| {
        overrides
            .and_then(|meta| meta.get(name))
            .and_then(Value::as_str)
            .or_else(|| source.meta_str(name))
            .map(str::to_owned)
    };
    let info = FileInfo {
        mimetype: pick("mimetype").unwrap_or_else(|| "application/octet-stream".to_owned()),
        cache_control: pick("cacheControl").unwrap_or_else(|| "max-age=3600".to_owned()),
        user_metadata: if copying.copy_metadata {
            source.user_metadata.clone()
        } else {
            Some(json!({}))
        },
        declared_length: source.size(),
    };
    probe(&state, &target, &caller, &info, upsert).await?;
    let version = uuid::Uuid::new_v4().to_string();
    copy_bytes(
        &state,
        &source,
        &object_path(&target.bucket, &target.key, &version),
    )
    .await?;
    let written = Written {
        size: source.size().unwrap_or(0),
        etag: source.meta_str("eTag").unwrap_or_default().to_owned(),
        last_modified: chrono::Utc::now(),
    };
    let stored = record(&state, &target, &info, &caller, upsert, &version, &written).await?;
    let row = {
        let mut connection = state.connection().await?;
        let tx = begin(&mut connection).await?;
        target.scope.enter(&tx, &Caller::service()).await?;
        let row = find_object(&tx, &target.bucket, &target.key).await?;
        commit(tx).await?;
        row.ok_or_else(StorageError::no_such_key)?
    };
    let mut body = serde_json::to_value(row.json()).unwrap_or_else(|_| json!({}));
    body["Id"] = json!(stored.id);
    body["Key"] = json!(target.full_key());
    Ok(HttpResponse::Ok().json(body))
}
