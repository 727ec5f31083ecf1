//! Resumable uploads: Supabase Storage's TUS 1.0.0 endpoint at `/upload/resumable` (and
//! `/upload/resumable/sign` for signed upload tokens, sent as `x-signature`), for
//! `tus-js-client` as Supabase documents it. `POST` creates an upload from `Upload-Length`
//! and `Upload-Metadata` (`bucketName`, `objectName`, `contentType`, `cacheControl`,
//! `metadata`) after the same checks as a plain upload (bucket, size limit, the caller's
//! right to write, the type); `PATCH` appends at the stated `Upload-Offset`; `HEAD` tells
//! how far it got; `DELETE` drops it. Bytes received before a connection broke are kept, so
//! the client resumes from the offset the server reports. The parts wait in a staging
//! directory under `DATA_DIR` (so an upload resumes on the process that started it); the
//! last `PATCH` moves the whole file into storage through the ordinary upload pipeline.
//! Storage's refusals are plain text with the semantic status, as tus answers them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder, ResponseError, web};
use base64::Engine;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::AsyncWriteExt;

use super::StorageState;
use super::body::RequestBody;
use super::caller::{Caller, Scope, TokenRule};
use super::error::StorageError;
use super::objects::upload::{
    FileInfo, Target, check_mime, header_flag, limits, max_size, probe, store,
};
use super::signing::{self, TokenScope};

const TUS_VERSION: &str = "1.0.0";
const EXTENSIONS: &str = "creation,creation-with-upload,termination,expiration";

pub fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/upload/resumable", web::post().to(create_authenticated))
        .route("/upload/resumable/sign", web::post().to(create_signed))
        .route(
            "/upload/resumable",
            web::method(actix_web::http::Method::OPTIONS).to(options),
        )
        .route(
            "/upload/resumable/sign",
            web::method(actix_web::http::Method::OPTIONS).to(options),
        )
        .route(
            "/upload/resumable/{tail:.*}",
            web::method(actix_web::http::Method::OPTIONS).to(options),
        )
        .route("/upload/resumable/sign/{id}", web::head().to(head_signed))
        .route("/upload/resumable/sign/{id}", web::patch().to(patch_signed))
        .route(
            "/upload/resumable/sign/{id}",
            web::delete().to(delete_signed),
        )
        .route("/upload/resumable/{id}", web::head().to(head_authenticated))
        .route(
            "/upload/resumable/{id}",
            web::patch().to(patch_authenticated),
        )
        .route(
            "/upload/resumable/{id}",
            web::delete().to(delete_authenticated),
        );
}

/// The staging directory and which uploads a request is writing right now.
#[derive(Debug)]
pub struct Uploads {
    dir: PathBuf,
    busy: Mutex<HashSet<String>>,
}

impl Uploads {
    pub fn new(data_dir: &Path) -> Result<Self, String> {
        let dir = data_dir.join("storage-uploads");
        std::fs::create_dir_all(&dir)
            .map_err(|error| format!("could not create {}: {error}", dir.display()))?;
        Ok(Self {
            dir,
            busy: Mutex::new(HashSet::new()),
        })
    }

    fn data(&self, version: &str) -> PathBuf {
        self.dir.join(format!("{version}.part"))
    }

    fn info(&self, version: &str) -> PathBuf {
        self.dir.join(format!("{version}.json"))
    }

    /// Marks an upload as being written; `None` while another request writes it.
    fn claim(&self, version: &str) -> Option<Claim<'_>> {
        let mut busy = self
            .busy
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        busy.insert(version.to_owned()).then(|| Claim {
            uploads: self,
            version: version.to_owned(),
        })
    }

    /// Drops uploads past their expiry.
    async fn sweep(&self) {
        let Ok(mut entries) = tokio::fs::read_dir(&self.dir).await else {
            return;
        };
        let now = chrono::Utc::now().timestamp();
        while let Ok(Some(entry)) = entries.next_entry().await {
            let path = entry.path();
            if path.extension().is_some_and(|ext| ext == "json")
                && let Ok(text) = tokio::fs::read(&path).await
                && let Ok(upload) = serde_json::from_slice::<Upload>(&text)
                && upload.expires < now
            {
                self.remove(&upload.version).await;
            }
        }
    }

    async fn remove(&self, version: &str) {
        let _ = tokio::fs::remove_file(self.data(version)).await;
        let _ = tokio::fs::remove_file(self.info(version)).await;
    }
}

struct Claim<'a> {
    uploads: &'a Uploads,
    version: String,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.uploads
            .busy
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&self.version);
    }
}

/// An unfinished upload, as kept beside its bytes.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Upload {
    bucket: String,
    key: String,
    version: String,
    length: u64,
    offset: u64,
    mimetype: String,
    cache_control: String,
    user_metadata: Option<Value>,
    upsert: bool,
    /// Who created it (`role` and `sub`): only they continue it.
    role: String,
    sub: Option<String>,
    /// Unix time after which it is dropped.
    expires: i64,
    /// The `Upload-Metadata` header as the client sent it.
    metadata_header: String,
}

/// A refusal in tus's words: plain text with the semantic status.
#[derive(Debug)]
struct TusError(StatusCode, String);

impl From<StorageError> for TusError {
    fn from(error: StorageError) -> Self {
        let status = error
            .status_code
            .parse::<u16>()
            .ok()
            .and_then(|code| StatusCode::from_u16(code).ok())
            .unwrap_or(StatusCode::BAD_REQUEST);
        TusError(status, error.message)
    }
}

impl TusError {
    fn new(status: u16, text: &str) -> Self {
        TusError(
            StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST),
            format!("{text}\n"),
        )
    }

    fn response(self) -> HttpResponse {
        tus_headers(&mut HttpResponse::build(self.0))
            .content_type("text/plain; charset=utf-8")
            .body(self.1)
    }
}

fn tus_headers(response: &mut HttpResponseBuilder) -> &mut HttpResponseBuilder {
    response
        .insert_header(("tus-resumable", TUS_VERSION))
        .insert_header((
            "access-control-expose-headers",
            "Authorization, Content-Type, Location, Tus-Extension, Tus-Max-Size, Tus-Resumable, \
             Tus-Version, Upload-Concat, Upload-Defer-Length, Upload-Length, Upload-Metadata, \
             Upload-Offset, X-HTTP-Method-Override, X-Requested-With, X-Forwarded-Host, \
             X-Forwarded-Proto, Forwarded",
        ))
}

async fn options(state: web::Data<StorageState>) -> HttpResponse {
    tus_headers(&mut HttpResponse::NoContent())
        .insert_header(("tus-version", TUS_VERSION))
        .insert_header(("tus-extension", EXTENSIONS))
        .insert_header(("tus-max-size", state.settings.file_size_limit.to_string()))
        .insert_header((
            "access-control-allow-methods",
            "POST, HEAD, PATCH, OPTIONS, DELETE",
        ))
        .insert_header((
            "access-control-allow-headers",
            "Authorization, Content-Type, Location, Tus-Extension, Tus-Max-Size, Tus-Resumable, \
             Tus-Version, Upload-Concat, Upload-Defer-Length, Upload-Length, Upload-Metadata, \
             Upload-Offset, X-HTTP-Method-Override, X-Requested-With, X-Forwarded-Host, \
             X-Forwarded-Proto, Forwarded, X-Upsert, Upload-Expires, ApiKey, x-signature",
        ))
        .insert_header(("access-control-max-age", "86400"))
        .finish()
}

fn header_text<'a>(request: &'a HttpRequest, name: &str) -> Option<&'a str> {
    request
        .headers()
        .get(name)
        .and_then(|value| value.to_str().ok())
}

fn require_tus(request: &HttpRequest) -> Result<(), TusError> {
    match header_text(request, "tus-resumable") {
        Some(_) => Ok(()),
        None => Err(TusError::new(412, "Tus-Resumable Required")),
    }
}

/// `Upload-Metadata`: comma-separated `key base64(value)` pairs.
fn parse_metadata(header: &str) -> Result<Vec<(String, String)>, TusError> {
    let invalid = || {
        TusError::new(
            400,
            "Upload-Metadata is invalid. It MUST consist of one or more comma-separated key-value pairs. The key and value MUST be separated by a space. The key MUST NOT contain spaces and commas and MUST NOT be empty. The key SHOULD be ASCII encoded and the value MUST be Base64 encoded. All keys MUST be unique",
        )
    };
    let mut pairs = Vec::new();
    for pair in header
        .split(',')
        .map(str::trim)
        .filter(|pair| !pair.is_empty())
    {
        let (key, value) = pair.split_once(' ').unwrap_or((pair, ""));
        if key.is_empty() || pairs.iter().any(|(k, _): &(String, String)| k == key) {
            return Err(invalid());
        }
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(value.trim())
            .map_err(|_| invalid())?;
        pairs.push((
            key.to_owned(),
            String::from_utf8(decoded).map_err(|_| invalid())?,
        ));
    }
    Ok(pairs)
}

fn upload_id(bucket: &str, key: &str, version: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{bucket}/{key}/{version}"))
}

/// `(bucket, key, version)` of an upload id.
fn parse_id(id: &str) -> Option<(String, String, String)> {
    let decoded = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(id.trim_end_matches('='))
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (bucket, rest) = text.split_once('/')?;
    let (key, version) = rest.rsplit_once('/')?;
    uuid::Uuid::parse_str(version).ok()?;
    Some((bucket.to_owned(), key.to_owned(), version.to_owned()))
}

/// Who continues an upload: the token's caller, or the signed upload's owner.
enum Door {
    Authenticated,
    Signed,
}

fn signed_owner(
    request: &HttpRequest,
    state: &StorageState,
    url: &str,
) -> Result<(Caller, bool), TusError> {
    let token = header_text(request, "x-signature")
        .ok_or_else(|| TusError::new(400, "Missing x-signature header"))?;
    let signed = signing::verify(&state.keys, token, url, TokenScope::Upload)
        .map_err(|error| TusError(StatusCode::BAD_REQUEST, error.message))?;
    Ok((
        Caller {
            sub: signed.owner.clone(),
            ..Caller::service()
        },
        signed.upsert,
    ))
}

async fn create_authenticated(
    request: HttpRequest,
    state: web::Data<StorageState>,
    payload: web::Payload,
) -> HttpResponse {
    let body = RequestBody::new(payload);
    let created = match Caller::of(&request, &state, TokenRule::Required) {
        Ok(caller) => create(
            &request,
            &state,
            body.clone(),
            Door::Authenticated,
            Some(caller),
        )
        .await
        .map_err(TusError::response),
        Err(error) => Err(error.error_response()),
    };
    answer(&state, &body, created).await
}

async fn create_signed(
    request: HttpRequest,
    state: web::Data<StorageState>,
    payload: web::Payload,
) -> HttpResponse {
    let body = RequestBody::new(payload);
    let created = create(&request, &state, body.clone(), Door::Signed, None)
        .await
        .map_err(TusError::response);
    answer(&state, &body, created).await
}

/// The response, or the refusal once the rest of the body was read.
async fn answer(
    state: &StorageState,
    body: &RequestBody,
    outcome: Result<HttpResponse, HttpResponse>,
) -> HttpResponse {
    match outcome {
        Ok(response) => response,
        Err(refusal) => body.refuse_with(refusal, state.drain_budget()).await,
    }
}

async fn create(
    request: &HttpRequest,
    state: &StorageState,
    payload: RequestBody,
    door: Door,
    caller: Option<Caller>,
) -> Result<HttpResponse, TusError> {
    require_tus(request)?;
    state.uploads.sweep().await;
    let length: u64 = header_text(request, "upload-length")
        .and_then(|value| value.trim().parse().ok())
        .ok_or_else(|| {
            TusError::new(400, "Upload-Length or Upload-Defer-Length header required")
        })?;
    let metadata_header = header_text(request, "upload-metadata")
        .unwrap_or("")
        .to_owned();
    let metadata = parse_metadata(&metadata_header)?;
    let field = |name: &str| {
        metadata
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    };
    let (Some(bucket), Some(key)) = (field("bucketName"), field("objectName")) else {
        return Err(TusError::new(400, "Metadata header is required"));
    };
    let target = Target::new(bucket, key, Scope::of(request, "storage.tus.upload.create"))?;
    let (owner, prober, upsert) = match door {
        Door::Authenticated => {
            let caller = caller.unwrap_or_else(Caller::service);
            (caller.clone(), caller, header_flag(request, "x-upsert"))
        }
        Door::Signed => {
            let (owner, upsert) = signed_owner(request, state, &target.full_key())?;
            (owner, Caller::service(), upsert)
        }
    };
    let bucket_limits = limits(state, &target).await?;
    if length > max_size(state, &bucket_limits, &target) {
        return Err(TusError::new(413, "Maximum size exceeded"));
    }
    let mimetype = field("contentType").unwrap_or_else(|| "application/octet-stream".to_owned());
    let cache_control = match field("cacheControl") {
        Some(seconds) if seconds.trim().parse::<i64>().is_ok() => {
            format!("max-age={}", seconds.trim())
        }
        Some(_) => "no-cache".to_owned(),
        None => "max-age=3600".to_owned(),
    };
    let user_metadata = field("metadata")
        .map(|text| serde_json::from_str::<Value>(&text))
        .transpose()
        .map_err(|_| TusError::new(400, "Upload-Metadata is invalid: metadata is not JSON"))?;
    let info = FileInfo {
        mimetype: mimetype.clone(),
        cache_control: cache_control.clone(),
        user_metadata: user_metadata.clone(),
        declared_length: Some(length),
    };
    probe(state, &target, &prober, &info, upsert).await?;
    check_mime(&bucket_limits, &target, &mimetype)?;

    let version = uuid::Uuid::new_v4().to_string();
    let expires = chrono::Utc::now().timestamp()
        + i64::try_from(state.settings.tus_url_expiry.as_secs()).unwrap_or(3600);
    let upload = Upload {
        bucket: target.bucket.clone(),
        key: target.key.clone(),
        version: version.clone(),
        length,
        offset: 0,
        mimetype,
        cache_control,
        user_metadata,
        upsert,
        role: owner.role.clone(),
        sub: owner.sub.clone(),
        expires,
        metadata_header,
    };
    tokio::fs::File::create(state.uploads.data(&version))
        .await
        .map_err(|error| TusError::from(StorageError::internal_because(&error)))?;
    save(state, &upload).await?;
    let id = upload_id(&target.bucket, &target.key, &version);
    let signed_part = if matches!(door, Door::Signed) {
        "/sign"
    } else {
        ""
    };
    let location = {
        let connection = request.connection_info();
        format!(
            "{}://{}/storage/v1/upload/resumable{signed_part}/{id}",
            connection.scheme(),
            connection.host()
        )
    };
    let mut response = HttpResponse::Created();
    tus_headers(&mut response).insert_header((header::LOCATION, location));
    // creation-with-upload: the first bytes may come with the creation.
    let with_body = header_text(request, "content-type") == Some("application/offset+octet-stream");
    if with_body {
        let claim = state.uploads.claim(&version);
        let upload = append(state, upload, payload).await?;
        drop(claim);
        response.insert_header(("upload-offset", upload.offset.to_string()));
        if upload.offset == upload.length {
            finish(state, &target, &upload, &owner, &prober).await?;
            return Ok(response.finish());
        }
    }
    response.insert_header(("upload-expires", http_date(expires)));
    Ok(response.finish())
}

fn http_date(unix: i64) -> String {
    super::http_date(chrono::DateTime::from_timestamp(unix, 0).unwrap_or_default())
}

async fn save(state: &StorageState, upload: &Upload) -> Result<(), TusError> {
    let text = serde_json::to_vec(upload).unwrap_or_default();
    let path = state.uploads.info(&upload.version);
    let temporary = path.with_extension("json.tmp");
    let written = async {
        tokio::fs::write(&temporary, &text).await?;
        tokio::fs::rename(&temporary, &path).await
    }
    .await;
    written.map_err(|error| TusError::from(StorageError::internal_because(&error)))
}

/// The upload an id names, if it exists and belongs to this caller.
async fn find(
    state: &StorageState,
    request: &HttpRequest,
    door: &Door,
) -> Result<(Upload, Caller, Caller), TusError> {
    require_tus(request)?;
    let not_found = || TusError::new(404, "The file for this url was not found");
    let id = request.match_info().get("id").unwrap_or("");
    let (bucket, key, version) = parse_id(id).ok_or_else(not_found)?;
    let text = tokio::fs::read(state.uploads.info(&version))
        .await
        .map_err(|_| not_found())?;
    let upload: Upload = serde_json::from_slice(&text).map_err(|_| not_found())?;
    if upload.bucket != bucket || upload.key != key {
        return Err(not_found());
    }
    if upload.expires < chrono::Utc::now().timestamp() {
        state.uploads.remove(&version).await;
        return Err(TusError::new(410, "The file for this url no longer exists"));
    }
    let (owner, prober) = match door {
        Door::Authenticated => {
            let caller = Caller::of(request, state, TokenRule::Required)
                .map_err(|error| TusError(StatusCode::FORBIDDEN, error.message))?;
            if caller.role != upload.role || caller.sub != upload.sub {
                return Err(not_found());
            }
            (caller.clone(), caller)
        }
        Door::Signed => {
            let (owner, _) = signed_owner(request, state, &format!("{bucket}/{key}"))?;
            (owner, Caller::service())
        }
    };
    Ok((upload, owner, prober))
}

async fn head_authenticated(request: HttpRequest, state: web::Data<StorageState>) -> HttpResponse {
    head(&request, &state, Door::Authenticated)
        .await
        .unwrap_or_else(TusError::response)
}

async fn head_signed(request: HttpRequest, state: web::Data<StorageState>) -> HttpResponse {
    head(&request, &state, Door::Signed)
        .await
        .unwrap_or_else(TusError::response)
}

async fn head(
    request: &HttpRequest,
    state: &StorageState,
    door: Door,
) -> Result<HttpResponse, TusError> {
    let (upload, _, _) = find(state, request, &door).await?;
    let mut response = HttpResponse::Ok();
    tus_headers(&mut response)
        .insert_header(("upload-offset", upload.offset.to_string()))
        .insert_header(("upload-length", upload.length.to_string()))
        .insert_header((header::CACHE_CONTROL, "no-store"));
    if !upload.metadata_header.is_empty() {
        response.insert_header(("upload-metadata", upload.metadata_header.clone()));
    }
    Ok(response.finish())
}

async fn patch_authenticated(
    request: HttpRequest,
    state: web::Data<StorageState>,
    payload: web::Payload,
) -> HttpResponse {
    let body = RequestBody::new(payload);
    let patched = patch(&request, &state, body.clone(), Door::Authenticated)
        .await
        .map_err(TusError::response);
    answer(&state, &body, patched).await
}

async fn patch_signed(
    request: HttpRequest,
    state: web::Data<StorageState>,
    payload: web::Payload,
) -> HttpResponse {
    let body = RequestBody::new(payload);
    let patched = patch(&request, &state, body.clone(), Door::Signed)
        .await
        .map_err(TusError::response);
    answer(&state, &body, patched).await
}

async fn patch(
    request: &HttpRequest,
    state: &StorageState,
    payload: RequestBody,
    door: Door,
) -> Result<HttpResponse, TusError> {
    let (upload, owner, prober) = find(state, request, &door).await?;
    if header_text(request, "content-type") != Some("application/offset+octet-stream") {
        return Err(TusError::new(415, "Content-Type header required"));
    }
    let offset: u64 = header_text(request, "upload-offset")
        .and_then(|value| value.trim().parse().ok())
        .ok_or_else(|| TusError::new(403, "Upload-Offset header required"))?;
    let Some(claim) = state.uploads.claim(&upload.version) else {
        return Err(TusError::new(423, "Upload is locked by another request"));
    };
    if offset != upload.offset {
        return Err(TusError::new(409, "Upload-Offset conflict"));
    }
    let target = Target::new(
        upload.bucket.clone(),
        upload.key.clone(),
        Scope::of(request, "storage.tus.upload.part"),
    )?;
    let upload = append(state, upload, payload).await?;
    drop(claim);
    let mut response = HttpResponse::NoContent();
    tus_headers(&mut response).insert_header(("upload-offset", upload.offset.to_string()));
    if upload.offset == upload.length {
        finish(state, &target, &upload, &owner, &prober).await?;
    } else {
        response.insert_header(("upload-expires", http_date(upload.expires)));
    }
    Ok(response.finish())
}

/// Appends the request body to the staged bytes, keeping whatever arrived before a broken
/// connection; refuses bytes past the declared length.
async fn append(
    state: &StorageState,
    mut upload: Upload,
    mut payload: RequestBody,
) -> Result<Upload, TusError> {
    let internal = |error: std::io::Error| TusError::from(StorageError::internal_because(&error));
    let mut file = tokio::fs::OpenOptions::new()
        .append(true)
        .open(state.uploads.data(&upload.version))
        .await
        .map_err(internal)?;
    let mut outcome = Ok(());
    while let Some(chunk) = payload.next().await {
        let Ok(chunk) = chunk else { break };
        if upload.offset + chunk.len() as u64 > upload.length {
            outcome = Err(TusError::new(413, "upload's size exceeded"));
            break;
        }
        if let Err(error) = file.write_all(&chunk).await {
            outcome = Err(internal(error));
            break;
        }
        upload.offset += chunk.len() as u64;
    }
    file.sync_all().await.map_err(internal)?;
    save(state, &upload).await?;
    outcome.map(|()| upload)
}

/// Moves a complete upload into storage, as an ordinary upload of its staged file.
async fn finish(
    state: &StorageState,
    target: &Target,
    upload: &Upload,
    owner: &Caller,
    prober: &Caller,
) -> Result<(), TusError> {
    let bucket_limits = limits(state, target).await?;
    let info = FileInfo {
        mimetype: upload.mimetype.clone(),
        cache_control: upload.cache_control.clone(),
        user_metadata: upload.user_metadata.clone(),
        declared_length: Some(upload.length),
    };
    let (file, length) = super::file_reader::open(state.uploads.data(&upload.version))
        .await
        .map_err(|error| TusError::from(StorageError::internal_because(&error)))?;
    let body = super::file_reader::chunks(file, 0, length);
    let max = max_size(state, &bucket_limits, target);
    let stored = store(
        state,
        target,
        &bucket_limits,
        max,
        &info,
        owner,
        Some(prober),
        upload.upsert,
        body,
    )
    .await;
    state.uploads.remove(&upload.version).await;
    stored.map(drop).map_err(TusError::from)
}

async fn delete_authenticated(
    request: HttpRequest,
    state: web::Data<StorageState>,
) -> HttpResponse {
    delete(&request, &state, Door::Authenticated)
        .await
        .unwrap_or_else(TusError::response)
}

async fn delete_signed(request: HttpRequest, state: web::Data<StorageState>) -> HttpResponse {
    delete(&request, &state, Door::Signed)
        .await
        .unwrap_or_else(TusError::response)
}

async fn delete(
    request: &HttpRequest,
    state: &StorageState,
    door: Door,
) -> Result<HttpResponse, TusError> {
    let (upload, _, _) = find(state, request, &door).await?;
    let Some(claim) = state.uploads.claim(&upload.version) else {
        return Err(TusError::new(423, "Upload is locked by another request"));
    };
    state.uploads.remove(&upload.version).await;
    drop(claim);
    let mut response = HttpResponse::NoContent();
    tus_headers(&mut response);
    Ok(response.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        let version = uuid::Uuid::new_v4().to_string();
        let id = upload_id("avatars", "ana/foto 1.png", &version);
        assert_eq!(
            parse_id(&id),
            Some(("avatars".to_owned(), "ana/foto 1.png".to_owned(), version))
        );
        assert_eq!(parse_id("bm90LWFuLWlk"), None);
    }

    #[test]
    fn metadata_pairs() {
        let header = "bucketName YXZhdGFycw==,objectName YS5wbmc=,empty";
        let pairs = parse_metadata(header).unwrap();
        assert_eq!(pairs[0], ("bucketName".to_owned(), "avatars".to_owned()));
        assert_eq!(pairs[1], ("objectName".to_owned(), "a.png".to_owned()));
        assert_eq!(pairs[2], ("empty".to_owned(), String::new()));
        assert!(parse_metadata("a YQ==,a YQ==").is_err());
        assert!(parse_metadata("a !!!").is_err());
    }
}
