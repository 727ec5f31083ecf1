//! `/bucket`: create, get, list, update, empty and delete buckets, every statement as the
//! caller (RLS on `storage.buckets`), with Supabase Storage's JSON shapes: `getBucket` has
//! no `type`, `listBuckets` adds `type: "STANDARD"`, a null owner is `""`.

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio_postgres::Row;

use super::caller::{Caller, Scope, TokenRule};
use super::error::{StorageError, StorageResult, database_error};
use super::names::{check_allowed_mime_type, check_bucket_name, parse_size_limit};
use super::{StorageState, begin, begin_as, commit, timestamp};

pub fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/bucket", web::get().to(list))
        .route("/bucket", web::post().to(create))
        .route("/bucket/", web::get().to(list))
        .route("/bucket/{bucket}/empty", web::post().to(empty))
        .route("/bucket/{bucket}", web::get().to(get))
        .route("/bucket/{bucket}", web::put().to(update))
        .route("/bucket/{bucket}", web::delete().to(delete))
        .route("/cdn/{bucket}", web::delete().to(purge_cache))
        .route("/cdn/{bucket}/{key:.+}", web::delete().to(purge_cache));
}

/// `purgeCache`: there is no CDN in front of this server, so there is nothing to purge;
/// the service role is told so as Supabase tells it a purge succeeded.
async fn purge_cache(
    request: HttpRequest,
    state: web::Data<StorageState>,
) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    if !caller.is_service() {
        return Err(StorageError::invalid_role());
    }
    Ok(message("success"))
}

/// A bucket as Supabase Storage writes it.
#[derive(Debug, Serialize)]
struct BucketJson {
    id: String,
    name: String,
    owner: String,
    public: bool,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    file_size_limit: Option<i64>,
    allowed_mime_types: Option<Vec<String>>,
    created_at: String,
    updated_at: String,
}

const COLUMNS: &str =
    "id, name, owner, public, file_size_limit, allowed_mime_types, created_at, updated_at";

impl BucketJson {
    fn from_row(row: &Row, kind: Option<&'static str>) -> Self {
        Self {
            id: row.get(0),
            name: row.get(1),
            owner: row
                .get::<_, Option<uuid::Uuid>>(2)
                .map(|owner| owner.to_string())
                .unwrap_or_default(),
            public: row.get::<_, Option<bool>>(3).unwrap_or(false),
            kind,
            file_size_limit: row.get(4),
            allowed_mime_types: row.get(5),
            created_at: row
                .get::<_, Option<DateTime<Utc>>>(6)
                .map(timestamp)
                .unwrap_or_default(),
            updated_at: row
                .get::<_, Option<DateTime<Utc>>>(7)
                .map(timestamp)
                .unwrap_or_default(),
        }
    }
}

fn message(text: &str) -> HttpResponse {
    HttpResponse::Ok().json(json!({ "message": text }))
}

/// A JSON body, or a validation error in Storage's words. An empty body is `{}`.
pub fn json_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> StorageResult<T> {
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}".as_slice()
    } else {
        body
    };
    serde_json::from_slice(body)
        .map_err(|error| StorageError::invalid_request(&format!("body is invalid: {error}")))
}

#[derive(Debug, Deserialize)]
struct ListQuery {
    limit: Option<i64>,
    offset: Option<i64>,
    #[serde(rename = "sortColumn")]
    sort_column: Option<String>,
    #[serde(rename = "sortOrder")]
    sort_order: Option<String>,
    search: Option<String>,
}

async fn list(
    request: HttpRequest,
    state: web::Data<StorageState>,
    query: web::Query<ListQuery>,
) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    let order = match query.sort_column.as_deref() {
        None => "",
        Some(column @ ("id" | "name" | "created_at" | "updated_at")) => {
            match query.sort_order.as_deref() {
                Some("desc") => match column {
                    "id" => " ORDER BY id DESC",
                    "name" => " ORDER BY name DESC",
                    "created_at" => " ORDER BY created_at DESC",
                    _ => " ORDER BY updated_at DESC",
                },
                None | Some("asc") => match column {
                    "id" => " ORDER BY id",
                    "name" => " ORDER BY name",
                    "created_at" => " ORDER BY created_at",
                    _ => " ORDER BY updated_at",
                },
                Some(_) => {
                    return Err(StorageError::invalid_request(
                        "querystring/sortOrder must be equal to one of the allowed values",
                    ));
                }
            }
        }
        Some(_) => {
            return Err(StorageError::invalid_request(
                "querystring/sortColumn must be equal to one of the allowed values",
            ));
        }
    };
    let limit = query.limit.filter(|limit| *limit >= 1);
    let offset = query.offset.unwrap_or(0).max(0);
    let search = query.search.as_deref().map(like_pattern);
    let sql = format!(
        "SELECT {COLUMNS} FROM storage.buckets \
         WHERE ($1::text IS NULL OR name ILIKE $1){order} LIMIT $2 OFFSET $3"
    );
    let mut connection = state.connection().await?;
    let tx = begin_as(
        &mut connection,
        &Scope::of(&request, "storage.bucket.list"),
        &caller,
    )
    .await?;
    let rows = tx
        .query(&sql, &[&search, &limit, &offset])
        .await
        .map_err(|error| database_error(&error, StorageError::resource_exists))?;
    commit(tx).await?;
    let buckets: Vec<BucketJson> = rows
        .iter()
        .map(|row| BucketJson::from_row(row, Some("STANDARD")))
        .collect();
    Ok(HttpResponse::Ok().json(buckets))
}

/// `%text%` with LIKE's own characters escaped.
pub fn like_pattern(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len() + 2);
    escaped.push('%');
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped.push('%');
    escaped
}

async fn get(request: HttpRequest, state: web::Data<StorageState>) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    let id = super::bucket_of(&request);
    let mut connection = state.connection().await?;
    let tx = begin_as(
        &mut connection,
        &Scope::of(&request, "storage.bucket.get"),
        &caller,
    )
    .await?;
    let row = tx
        .query_opt(
            &format!("SELECT {COLUMNS} FROM storage.buckets WHERE id = $1"),
            &[&id],
        )
        .await
        .map_err(|error| database_error(&error, StorageError::resource_exists))?
        .ok_or_else(StorageError::no_such_bucket)?;
    commit(tx).await?;
    Ok(HttpResponse::Ok().json(BucketJson::from_row(&row, None)))
}

#[derive(Debug, Deserialize)]
struct CreateBody {
    id: Option<String>,
    name: Option<String>,
    public: Option<bool>,
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    file_size_limit: Value,
    allowed_mime_types: Option<Vec<String>>,
}

/// A bucket's limit checked against the global one.
fn size_limit(state: &StorageState, value: &Value) -> StorageResult<Option<i64>> {
    match parse_size_limit(value)? {
        None => Ok(None),
        Some(bytes) if bytes > state.settings.file_size_limit => {
            Err(StorageError::entity_too_large())
        }
        Some(bytes) => Ok(Some(i64::try_from(bytes).unwrap_or(i64::MAX))),
    }
}

fn mime_types(list: Option<Vec<String>>) -> StorageResult<Option<Vec<String>>> {
    let Some(list) = list else { return Ok(None) };
    let list: Vec<String> = list.into_iter().filter(|mime| !mime.is_empty()).collect();
    for mime in &list {
        check_allowed_mime_type(mime)?;
    }
    Ok(Some(list))
}

async fn create(
    request: HttpRequest,
    state: web::Data<StorageState>,
    body: web::Bytes,
) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    let body: CreateBody = json_body(&body)?;
    let name = body
        .name
        .ok_or_else(|| StorageError::invalid_request("body must have required property 'name'"))?;
    check_bucket_name(&name)?;
    if body.kind.as_deref().is_some_and(|kind| kind != "STANDARD") {
        return Err(StorageError::invalid_request(
            "Only STANDARD buckets are available on this server",
        ));
    }
    let id = body
        .id
        .filter(|id| !id.is_empty())
        .unwrap_or_else(|| name.clone());
    check_bucket_name(&id)?;
    let file_size_limit = size_limit(&state, &body.file_size_limit)?;
    let allowed = mime_types(body.allowed_mime_types)?;
    let mut connection = state.connection().await?;
    let tx = begin_as(
        &mut connection,
        &Scope::of(&request, "storage.bucket.create"),
        &caller,
    )
    .await?;
    tx.execute(
        "INSERT INTO storage.buckets \
           (id, name, owner, owner_id, public, file_size_limit, allowed_mime_types) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        &[
            &id,
            &name,
            &caller.owner_uuid(),
            &caller.sub,
            &body.public.unwrap_or(false),
            &file_size_limit,
            &allowed,
        ],
    )
    .await
    .map_err(|error| database_error(&error, StorageError::bucket_exists))?;
    commit(tx).await?;
    Ok(HttpResponse::Ok().json(json!({ "name": name })))
}

#[derive(Debug, Deserialize)]
struct UpdateBody {
    public: Option<bool>,
    #[serde(default = "absent")]
    file_size_limit: Value,
    #[serde(default = "absent")]
    allowed_mime_types: Value,
}

/// Marks a field the client did not send (null means "clear it").
fn absent() -> Value {
    Value::Bool(false)
}

async fn update(
    request: HttpRequest,
    state: web::Data<StorageState>,
    body: web::Bytes,
) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    let id = super::bucket_of(&request);
    let body: UpdateBody = json_body(&body)?;
    let set_limit = body.file_size_limit != absent();
    let set_types = body.allowed_mime_types != absent();
    if body.public.is_none() && !set_limit && !set_types {
        return Err(StorageError::invalid_request(
            "body must have required property 'public'",
        ));
    }
    let limit = if set_limit {
        size_limit(&state, &body.file_size_limit)?
    } else {
        None
    };
    let types = if set_types {
        let list: Option<Vec<String>> = serde_json::from_value(body.allowed_mime_types)
            .map_err(|_| StorageError::invalid_request("body/allowed_mime_types must be array"))?;
        mime_types(list)?
    } else {
        None
    };
    let mut connection = state.connection().await?;
    let tx = begin_as(
        &mut connection,
        &Scope::of(&request, "storage.bucket.update"),
        &caller,
    )
    .await?;
    let updated = tx
        .execute(
            "UPDATE storage.buckets SET \
               public = coalesce($2, public), \
               file_size_limit = CASE WHEN $3 THEN $4 ELSE file_size_limit END, \
               allowed_mime_types = CASE WHEN $5 THEN $6 ELSE allowed_mime_types END, \
               updated_at = now() \
             WHERE id = $1",
            &[&id, &body.public, &set_limit, &limit, &set_types, &types],
        )
        .await
        .map_err(|error| database_error(&error, StorageError::resource_exists))?;
    if updated == 0 {
        return Err(StorageError::no_such_bucket());
    }
    commit(tx).await?;
    state.buckets.forget(&id);
    Ok(message("Successfully updated"))
}

async fn empty(
    request: HttpRequest,
    state: web::Data<StorageState>,
) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    if !caller.is_service() {
        return Err(StorageError::invalid_role());
    }
    let id = super::bucket_of(&request);
    let mut connection = state.connection().await?;
    let tx = begin_as(
        &mut connection,
        &Scope::of(&request, "storage.bucket.empty"),
        &caller,
    )
    .await?;
    tx.query_opt("SELECT 1 FROM storage.buckets WHERE id = $1", &[&id])
        .await
        .map_err(|error| database_error(&error, StorageError::resource_exists))?
        .ok_or_else(StorageError::no_such_bucket)?;
    let removed = tx
        .query(
            "DELETE FROM storage.objects WHERE bucket_id = $1 RETURNING name, version",
            &[&id],
        )
        .await
        .map_err(|error| database_error(&error, StorageError::resource_exists))?;
    commit(tx).await?;
    // The rows are gone; the bytes follow (what is left behind costs space, not data).
    for row in removed {
        let name: Option<String> = row.get(0);
        let version: Option<String> = row.get(1);
        if let (Some(name), Some(version)) = (name, version) {
            state
                .backend
                .delete(&super::backend::object_path(&id, &name, &version))
                .await;
        }
    }
    Ok(message(
        "Empty bucket has been queued. Completion may take up to an hour.",
    ))
}

async fn delete(
    request: HttpRequest,
    state: web::Data<StorageState>,
) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    let id = super::bucket_of(&request);
    let scope = Scope::of(&request, "storage.bucket.delete");
    let mut connection = state.connection().await?;
    let tx = begin(&mut connection).await?;
    scope.enter(&tx, &Caller::service()).await?;
    let fail = |error: tokio_postgres::Error| database_error(&error, StorageError::resource_exists);
    tx.query_opt(
        "SELECT 1 FROM storage.buckets WHERE id = $1 FOR UPDATE",
        &[&id],
    )
    .await
    .map_err(fail)?
    .ok_or_else(StorageError::no_such_bucket)?;
    if tx
        .query_opt(
            "SELECT 1 FROM storage.objects WHERE bucket_id = $1 LIMIT 1",
            &[&id],
        )
        .await
        .map_err(fail)?
        .is_some()
    {
        return Err(StorageError::bucket_not_empty());
    }
    scope.enter(&tx, &caller).await?;
    let deleted = tx
        .execute("DELETE FROM storage.buckets WHERE id = $1", &[&id])
        .await
        .map_err(fail)?;
    if deleted == 0 {
        return Err(StorageError::no_such_bucket());
    }
    commit(tx).await?;
    state.buckets.forget(&id);
    Ok(message("Successfully deleted"))
}
