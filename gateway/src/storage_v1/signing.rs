//! Signed URL tokens, as Supabase Storage makes them: HS256 JWTs with the project's
//! secret carrying `url` (`<bucket>/<key>`), `scope` (`download` or `upload`), `iat`/`exp`,
//! and for uploads `owner` and `upsert`; image renders add `transformations`. A token is
//! good only for its own object and scope, and only until `exp`.

use serde_json::{Value, json};

use super::error::{StorageError, StorageResult};
use crate::identity::ProjectKeys;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenScope {
    Download,
    Upload,
}

/// The claims of a verified token.
#[derive(Debug, Clone)]
pub struct Signed {
    pub url: String,
    pub exp: i64,
    pub owner: Option<String>,
    pub upsert: bool,
    pub transformations: Option<String>,
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

pub fn sign_download(
    keys: &ProjectKeys,
    url: &str,
    expires_in: i64,
    transformations: Option<&str>,
) -> StorageResult<String> {
    let iat = now();
    let mut claims =
        json!({ "url": url, "scope": "download", "iat": iat, "exp": iat + expires_in });
    if let Some(transformations) = transformations.filter(|t| !t.is_empty()) {
        claims["transformations"] = Value::String(transformations.to_owned());
    }
    keys.signer()
        .sign(&claims)
        .map_err(|error| StorageError::internal_because(&error))
}

pub fn sign_upload(
    keys: &ProjectKeys,
    url: &str,
    owner: Option<&str>,
    upsert: bool,
    expires_in: i64,
) -> StorageResult<String> {
    let iat = now();
    let mut claims = json!({ "url": url, "upsert": upsert, "scope": "upload", "iat": iat, "exp": iat + expires_in });
    if let Some(owner) = owner {
        claims["owner"] = Value::String(owner.to_owned());
    }
    keys.signer()
        .sign(&claims)
        .map_err(|error| StorageError::internal_because(&error))
}

/// Checks `token` for the object `url` and `scope`.
pub fn verify(
    keys: &ProjectKeys,
    token: &str,
    url: &str,
    scope: TokenScope,
) -> StorageResult<Signed> {
    use jsonwebtoken::errors::ErrorKind;
    let claims = keys.signer().verify_signature(token).map_err(|error| {
        StorageError::invalid_jwt(match error.kind() {
            ErrorKind::InvalidSignature => "signature verification failed",
            ErrorKind::InvalidAlgorithm => "\"alg\" (Algorithm) Header Parameter value not allowed",
            _ => "Invalid Compact JWS",
        })
    })?;
    let exp = claims.get("exp").and_then(Value::as_i64);
    if exp.is_some_and(|exp| exp < now()) {
        return Err(StorageError::invalid_jwt(
            "\"exp\" claim timestamp check failed",
        ));
    }
    let has_upsert = claims.get("upsert").is_some();
    let scoped = match (claims.get("scope").and_then(Value::as_str), scope) {
        (Some("download"), TokenScope::Download) | (Some("upload"), TokenScope::Upload) => true,
        // Tokens from before scopes: uploads were told apart by `upsert`.
        (None, TokenScope::Download) => !has_upsert,
        (None, TokenScope::Upload) => has_upsert,
        _ => false,
    };
    if !scoped {
        return Err(StorageError::invalid_signature(match scope {
            TokenScope::Download => "Token is not scoped for download",
            TokenScope::Upload => "Token is not scoped for upload",
        }));
    }
    if claims.get("url").and_then(Value::as_str) != Some(url) {
        return Err(StorageError::invalid_signature("Invalid signature"));
    }
    Ok(Signed {
        url: url.to_owned(),
        exp: exp.unwrap_or(i64::MAX),
        owner: claims
            .get("owner")
            .and_then(Value::as_str)
            .map(str::to_owned),
        upsert: claims
            .get("upsert")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        transformations: claims
            .get("transformations")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}
