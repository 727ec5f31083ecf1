//! Downloads (`GET /object/{bucket}/{key}`, `/object/authenticated/…`, `/object/public/…`,
//! and the signed route in [`super::signed`]), `HEAD` and `/object/info/…`. Who may read
//! follows Supabase Storage: the bucket is looked up as the service role; a public bucket's
//! objects are then read as the service role, a private bucket's under the caller's role
//! (RLS decides), and a request without a valid token never reaches a private bucket.
//! Responses carry the stored type, ETag, Last-Modified and Cache-Control, answer
//! `If-None-Match`/`If-Modified-Since` with 304 and `Range` with 206.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use chrono::{DateTime, Utc};
use serde_json::json;

use super::ObjectRow;
use crate::storage_v1::backend::{ByteRange, ReadError};
use crate::storage_v1::caller::{Caller, Scope, TokenRule};
use crate::storage_v1::error::{StorageError, StorageResult};
use crate::storage_v1::names::check_key;
use crate::storage_v1::{StorageState, bucket_of, http_date, key_of, lookup, timestamp};

/// Which door a read comes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// `/object/public/…`: public buckets only, no token needed.
    Public,
    /// `/object/authenticated/…`: a valid token is required.
    Authenticated,
    /// `/object/{bucket}/{key}`: a token if there is a valid one, else anonymous.
    Optional,
}

/// The object a read may see, or why not.
pub async fn resolve(
    request: &HttpRequest,
    state: &StorageState,
    access: Access,
    operation: &'static str,
) -> StorageResult<ObjectRow> {
    let caller = match access {
        Access::Public => None,
        Access::Authenticated => Some(Caller::of(request, state, TokenRule::Required)?),
        Access::Optional => Some(Caller::of(request, state, TokenRule::Optional)?),
    };
    let bucket = bucket_of(request);
    let key = key_of(request);
    check_key(&key)?;
    let scope = Scope::of(request, operation);
    let limits = lookup::bucket(request, state, &scope, &bucket).await?;
    let unauthenticated = caller.as_ref().is_none_or(|caller| caller.token.is_empty());
    if !limits.public && (access == Access::Public || unauthenticated) {
        return Err(StorageError::no_such_bucket());
    }
    // A public bucket's objects are read as the service role, a private one's as the caller.
    let reader = match (&caller, limits.public) {
        (Some(caller), false) => caller.clone(),
        _ => Caller::service(),
    };
    lookup::object(request, &scope, &reader, &bucket, &key)
        .await?
        .ok_or_else(StorageError::no_such_key)
}

pub async fn download(
    request: HttpRequest,
    state: web::Data<StorageState>,
    access: Access,
) -> HttpResponse {
    let operation = match access {
        Access::Public => "storage.object.get_public",
        Access::Authenticated => "storage.object.get_authenticated",
        Access::Optional => "storage.object.get_authenticated",
    };
    match resolve(&request, &state, access, operation).await {
        Ok(row) => serve(&request, &state, &row, Freshness::CacheControl).await,
        Err(error) => error.error_response(),
    }
}

pub async fn head(
    request: HttpRequest,
    state: web::Data<StorageState>,
    access: Access,
) -> HttpResponse {
    let operation = match access {
        Access::Public => "storage.object.info_public",
        _ => "object.head_authenticated_info",
    };
    match resolve(&request, &state, access, operation).await {
        Ok(row) => {
            let mut response = HttpResponse::Ok();
            describe(&mut response, &row, Freshness::CacheControl);
            if let Some(size) = row.meta_u64("contentLength").or(row.size()) {
                response.insert_header((header::CONTENT_LENGTH, size));
            }
            response.finish()
        }
        Err(error) => HttpResponse::build(error.status_code()).finish(),
    }
}

pub async fn info(
    request: HttpRequest,
    state: web::Data<StorageState>,
    access: Access,
) -> HttpResponse {
    let operation = match access {
        Access::Public => "storage.object.info_public",
        _ => "object.get_authenticated_info",
    };
    match resolve(&request, &state, access, operation).await {
        Ok(row) => {
            let mut response = HttpResponse::Ok();
            describe_cache(&mut response, &row, Freshness::CacheControl);
            response.json(json!({
                "id": row.id,
                "name": row.name,
                "version": row.version,
                "bucket_id": row.bucket_id,
                "size": row.size(),
                "content_type": row.meta_str("mimetype"),
                "cache_control": row.meta_str("cacheControl"),
                "etag": row.meta_str("eTag"),
                "metadata": row.user_metadata,
                "last_modified": row.updated_at.map(timestamp),
                "created_at": row.created_at.map(timestamp),
            }))
        }
        Err(error) => error.error_response(),
    }
}

/// How a response says how long it may be kept.
#[derive(Debug, Clone, Copy)]
pub enum Freshness {
    /// The object's own `Cache-Control`.
    CacheControl,
    /// A signed URL's end (`Expires`).
    Until(i64),
}

impl ObjectRow {
    pub fn meta_u64(&self, name: &str) -> Option<u64> {
        self.metadata.as_ref()?.get(name)?.as_u64()
    }

    fn last_modified(&self) -> Option<DateTime<Utc>> {
        self.meta_str("lastModified")
            .and_then(|text| DateTime::parse_from_rfc3339(text).ok())
            .map(|at| at.with_timezone(&Utc))
            .or(self.updated_at)
    }

    /// The type it is served with: HTML is never served as HTML (a stored page must not
    /// run in the API's origin).
    fn served_type(&self) -> String {
        let mimetype = self
            .meta_str("mimetype")
            .unwrap_or("application/octet-stream");
        if mimetype.to_ascii_lowercase().contains("text/html") {
            "text/plain".to_owned()
        } else {
            mimetype.to_owned()
        }
    }
}

/// ETag, Last-Modified and how long the response may be kept.
pub fn describe_cache(
    response: &mut actix_web::HttpResponseBuilder,
    row: &ObjectRow,
    freshness: Freshness,
) {
    if let Some(etag) = row.meta_str("eTag") {
        response.insert_header((header::ETAG, etag));
    }
    if let Some(at) = row.last_modified() {
        response.insert_header((header::LAST_MODIFIED, http_date(at)));
    }
    match freshness {
        Freshness::CacheControl => {
            if let Some(cache) = row.meta_str("cacheControl") {
                response.insert_header((header::CACHE_CONTROL, cache));
            }
        }
        Freshness::Until(exp) => {
            if let Some(at) = DateTime::from_timestamp(exp, 0) {
                response.insert_header((header::EXPIRES, http_date(at)));
            }
        }
    }
}

fn describe(response: &mut actix_web::HttpResponseBuilder, row: &ObjectRow, freshness: Freshness) {
    response
        .insert_header((header::ACCEPT_RANGES, "bytes"))
        .insert_header((header::CONTENT_TYPE, row.served_type()))
        .insert_header(("x-robots-tag", "none"));
    describe_cache(response, row, freshness);
}

/// Whether the client's copy is current.
fn not_modified(request: &HttpRequest, row: &ObjectRow) -> bool {
    let header = |name| {
        request
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
    };
    if let Some(tags) = header(header::IF_NONE_MATCH) {
        let etag = row.meta_str("eTag").unwrap_or("");
        return tags
            .split(',')
            .map(str::trim)
            .any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag);
    }
    if let Some(since) = header(header::IF_MODIFIED_SINCE)
        && let Ok(since) = DateTime::parse_from_rfc2822(since)
        && let Some(modified) = row.last_modified()
    {
        return modified.timestamp() <= since.timestamp();
    }
    false
}

/// `Range: bytes=…` against an object of `size` bytes: `Ok(None)` for no (or an ignored
/// multi-part) range.
pub fn parse_range(value: Option<&str>, size: u64) -> StorageResult<Option<ByteRange>> {
    let Some(value) = value else { return Ok(None) };
    let spec = value
        .trim()
        .strip_prefix("bytes=")
        .ok_or_else(StorageError::invalid_range)?;
    if spec.contains(',') {
        return Ok(None);
    }
    let (start, end) = spec
        .split_once('-')
        .ok_or_else(StorageError::invalid_range)?;
    let number = |text: &str| {
        text.trim()
            .parse::<u64>()
            .map_err(|_| StorageError::invalid_range())
    };
    let range = match (start.trim().is_empty(), end.trim().is_empty()) {
        (true, false) => {
            let suffix = number(end)?;
            if suffix == 0 || size == 0 {
                return Err(StorageError::invalid_range());
            }
            ByteRange {
                start: size.saturating_sub(suffix),
                end: size - 1,
            }
        }
        (false, true) => ByteRange {
            start: number(start)?,
            end: size.saturating_sub(1),
        },
        (false, false) => ByteRange {
            start: number(start)?,
            end: number(end)?.min(size.saturating_sub(1)),
        },
        (true, true) => return Err(StorageError::invalid_range()),
    };
    if range.start > range.end || range.start >= size {
        return Err(StorageError::invalid_range());
    }
    Ok(Some(range))
}

/// What JavaScript's `encodeURIComponent` escapes (Storage builds the header with it).
const URI_COMPONENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// `?download` / `?download=name` as a `Content-Disposition`.
fn disposition(request: &HttpRequest) -> Option<String> {
    let query = request.query_string();
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name == "download")
        .map(|(_, value)| {
            if value.is_empty() {
                "attachment;".to_owned()
            } else {
                let encoded =
                    percent_encoding::utf8_percent_encode(&value, URI_COMPONENT).to_string();
                format!("attachment; filename={encoded}; filename*=UTF-8''{encoded}")
            }
        })
}

/// Streams the object's bytes (or the requested range of them).
pub async fn serve(
    request: &HttpRequest,
    state: &StorageState,
    row: &ObjectRow,
    freshness: Freshness,
) -> HttpResponse {
    if not_modified(request, row) {
        let mut response = HttpResponse::NotModified();
        describe_cache(&mut response, row, freshness);
        return response.finish();
    }
    let size = row.size().unwrap_or(0);
    let range_header = request
        .headers()
        .get(header::RANGE)
        .and_then(|value| value.to_str().ok());
    let range = match parse_range(range_header, size) {
        Ok(range) => range,
        Err(error) => return error.error_response(),
    };
    let reader = match state.backend.read(&row.path(), range).await {
        Ok(reader) => reader,
        Err(ReadError::NotFound) => {
            let mut response = StorageError::bytes_missing().error_response();
            response.headers_mut().insert(
                header::CACHE_CONTROL,
                header::HeaderValue::from_static("no-store"),
            );
            return response;
        }
        Err(ReadError::Io(cause)) => {
            return StorageError::internal_because(&cause).error_response();
        }
    };
    let mut response = HttpResponse::build(if range.is_some() {
        StatusCode::PARTIAL_CONTENT
    } else {
        StatusCode::OK
    });
    describe(&mut response, row, freshness);
    if let Some(value) = disposition(request) {
        response.insert_header((header::CONTENT_DISPOSITION, value));
    }
    let length = match range {
        Some(range) => {
            response.insert_header((
                header::CONTENT_RANGE,
                format!("bytes {}-{}/{size}", range.start, range.end),
            ));
            range.end - range.start + 1
        }
        None => size,
    };
    response.no_chunking(length).streaming(reader.stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        let r = |value: &str| parse_range(Some(value), 100);
        assert_eq!(
            r("bytes=0-9").unwrap(),
            Some(ByteRange { start: 0, end: 9 })
        );
        assert_eq!(
            r("bytes=90-").unwrap(),
            Some(ByteRange { start: 90, end: 99 })
        );
        assert_eq!(
            r("bytes=-10").unwrap(),
            Some(ByteRange { start: 90, end: 99 })
        );
        assert_eq!(
            r("bytes=95-200").unwrap(),
            Some(ByteRange { start: 95, end: 99 })
        );
        assert_eq!(r("bytes=0-1,5-6").unwrap(), None);
        for bad in [
            "bytes=100-",
            "bytes=5-2",
            "items=0-1",
            "bytes=-0",
            "bytes=x-1",
            "bytes=-",
        ] {
            assert_eq!(r(bad).unwrap_err().http, 416, "{bad}");
        }
        assert_eq!(parse_range(None, 100).unwrap(), None);
    }
}
