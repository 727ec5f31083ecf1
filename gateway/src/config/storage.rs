//! [`StorageSettings`] from storage/v1's variables (Supabase Storage's own names): where
//! bytes are kept, the global size limit, signed upload URL and resumable upload lifetimes,
//! and image transformation limits.

use std::path::{Path, PathBuf};
use std::time::Duration;

use secrecy::SecretString;

use super::variables as var;
use super::{ConfigError, Vars, parse_url};

#[derive(Debug, Clone)]
pub struct StorageSettings {
    pub backend: BackendSettings,
    /// Largest object in bytes (`FILE_SIZE_LIMIT`).
    pub file_size_limit: u64,
    pub upload_signed_url_expiry: Duration,
    pub tus_url_expiry: Duration,
    pub image_transformation: bool,
    /// Largest output width or height of a transformation.
    pub image_max_dimension: u32,
    /// Largest source image a transformation reads, in bytes.
    pub image_max_source_bytes: u64,
}

#[derive(Debug, Clone)]
pub enum BackendSettings {
    File { root: PathBuf, etag: FileEtag },
    S3(S3Settings),
}

/// How the `file` backend makes an object's ETag (`STORAGE_FILE_ETAG_ALGORITHM`, as in
/// Supabase Storage).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileEtag {
    /// The MD5 of the bytes, as S3 gives for single-part uploads; costs a core while writing.
    Md5,
    /// `"<modified ms hex>-<size hex>"`: no hashing, uploads at disk speed.
    Mtime,
}

#[derive(Debug, Clone)]
pub struct S3Settings {
    pub bucket: String,
    pub endpoint: Option<String>,
    pub region: String,
    pub force_path_style: bool,
    /// Access key id and secret; without them the store uses the environment's (instance
    /// roles and the like).
    pub credentials: Option<(String, SecretString)>,
}

pub(super) fn parse_storage(
    vars: &Vars<'_>,
    data_dir: &Path,
) -> Result<StorageSettings, ConfigError> {
    let backend = match vars.find(&var::STORAGE_BACKEND) {
        None => "file".to_owned(),
        Some((name, raw)) => match raw.to_ascii_lowercase().as_str() {
            kind @ ("file" | "s3") => kind.to_owned(),
            other => {
                return Err(ConfigError {
                    name,
                    reason: format!("{other:?}: expected file or s3"),
                });
            }
        },
    };
    let backend = if backend == "s3" {
        let bucket = vars
            .get(&var::GLOBAL_S3_BUCKET)
            .ok_or_else(|| ConfigError {
                name: var::GLOBAL_S3_BUCKET.name(),
                reason: "required with STORAGE_BACKEND=s3".to_owned(),
            })?;
        let endpoint = vars.get(&var::GLOBAL_S3_ENDPOINT);
        if let Some(endpoint) = &endpoint {
            parse_url(var::GLOBAL_S3_ENDPOINT.name(), endpoint)?;
        }
        let credentials = match (
            vars.get(&var::AWS_ACCESS_KEY_ID),
            vars.get(&var::AWS_SECRET_ACCESS_KEY),
        ) {
            (Some(id), Some(secret)) => Some((id, SecretString::from(secret))),
            (None, None) => None,
            (Some(_), None) => {
                return Err(ConfigError {
                    name: var::AWS_SECRET_ACCESS_KEY.name(),
                    reason: "required with AWS_ACCESS_KEY_ID".to_owned(),
                });
            }
            (None, Some(_)) => {
                return Err(ConfigError {
                    name: var::AWS_ACCESS_KEY_ID.name(),
                    reason: "required with AWS_SECRET_ACCESS_KEY".to_owned(),
                });
            }
        };
        BackendSettings::S3(S3Settings {
            bucket,
            endpoint,
            region: vars
                .get(&var::REGION)
                .unwrap_or_else(|| "us-east-1".to_owned()),
            force_path_style: vars.flag(&var::GLOBAL_S3_FORCE_PATH_STYLE)?,
            credentials,
        })
    } else {
        BackendSettings::File {
            root: vars
                .get(&var::FILE_STORAGE_BACKEND_PATH)
                .map_or_else(|| data_dir.join("storage"), PathBuf::from),
            etag: parse_file_etag(vars)?,
        }
    };
    let file_size_limit: u64 = vars.parse(&var::FILE_SIZE_LIMIT, 50 * 1024 * 1024)?;
    if file_size_limit == 0 {
        return Err(ConfigError {
            name: var::FILE_SIZE_LIMIT.name(),
            reason: "must be at least 1".to_owned(),
        });
    }
    let seconds = |variable, default: usize, max: usize| {
        vars.parse_within(variable, default, max)
            .map(|value| Duration::from_secs(value as u64))
    };
    let tus_ms = vars.parse_within(&var::TUS_URL_EXPIRY_MS, 3_600_000, 30 * 24 * 3_600_000)?;
    Ok(StorageSettings {
        backend,
        file_size_limit,
        upload_signed_url_expiry: seconds(
            &var::UPLOAD_SIGNED_URL_EXPIRATION_TIME,
            7200,
            7 * 86_400,
        )?,
        tus_url_expiry: Duration::from_millis(tus_ms as u64),
        image_transformation: vars.flag_or(&var::IMAGE_TRANSFORMATION_ENABLED, true)?,
        image_max_dimension: u32::try_from(vars.parse_within(
            &var::IMG_LIMITS_MAX_SIZE,
            2000,
            10_000,
        )?)
        .unwrap_or(2000),
        image_max_source_bytes: vars.parse_within(
            &var::IMAGE_TRANSFORMATION_MAX_SOURCE_MB,
            25,
            1024,
        )? as u64
            * 1024
            * 1024,
    })
}

fn parse_file_etag(vars: &Vars<'_>) -> Result<FileEtag, ConfigError> {
    match vars.find(&var::STORAGE_FILE_ETAG_ALGORITHM) {
        None => Ok(FileEtag::Md5),
        Some((name, raw)) => match raw.to_ascii_lowercase().as_str() {
            "md5" => Ok(FileEtag::Md5),
            "mtime" => Ok(FileEtag::Mtime),
            other => Err(ConfigError {
                name,
                reason: format!("{other:?}: expected md5 or mtime"),
            }),
        },
    }
}
