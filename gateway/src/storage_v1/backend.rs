//! Where object bytes live: a directory under `DATA_DIR` (the default) or any
//! S3-compatible store through `object_store`. Each upload is stored under a path of its
//! own (`<bucket>/<key>/<version>`), so a half-written or replaced file is never what a
//! database row points to: the row names its version only after the bytes are complete,
//! and the previous version is deleted only after the row moved on. Bytes are streamed in
//! both directions with bounded memory; the MD5 ETag (unless the file backend is set to
//! `mtime` ETags) is computed while writing.
//!
//! On disk a write goes to a temporary file, is fsynced, and renamed into place (the
//! directory fsynced too), so a crash leaves either the whole file or none.

use std::io;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bytes::Bytes;
use chrono::{DateTime, Utc};
use futures_util::stream::{BoxStream, StreamExt};
use futures_util::{Stream, TryStreamExt};
use md5::{Digest, Md5};
use object_store::{GetOptions, GetRange, ObjectStore, PutPayload, WriteMultipart};

use super::file_reader;
use crate::config::storage::{BackendSettings, FileEtag};

/// What a completed write produced.
#[derive(Debug, Clone)]
pub struct Written {
    pub size: u64,
    /// Quoted as an HTTP ETag: `"<md5 hex>"`, or the file backend's `mtime` form.
    pub etag: String,
    pub last_modified: DateTime<Utc>,
}

#[derive(Debug)]
pub enum WriteError {
    /// More bytes than the limit: nothing was kept.
    TooLarge,
    /// The request body failed (the client went away): nothing was kept.
    Body(String),
    Io(String),
}

/// An inclusive byte range of an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    pub start: u64,
    pub end: u64,
}

/// Bytes on their way out.
pub struct Reader {
    pub stream: BoxStream<'static, io::Result<Bytes>>,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reader")
    }
}

#[derive(Debug)]
pub enum ReadError {
    NotFound,
    Io(String),
}

#[derive(Debug, Clone)]
pub enum Backend {
    File { root: PathBuf, etag: FileEtag },
    S3 { store: Arc<dyn ObjectStore> },
}

/// What the file writer is handed at a time: few, large writes.
const WRITE_BUFFER: usize = 1024 * 1024;
/// S3 multipart part size (S3's minimum is 5 MiB).
const S3_PART: usize = 5 * 1024 * 1024;

impl Backend {
    pub fn new(settings: &BackendSettings) -> Result<Self, String> {
        match settings {
            BackendSettings::File { root, etag } => {
                std::fs::create_dir_all(root.join(".tmp")).map_err(|error| {
                    format!(
                        "could not create the storage directory {}: {error}",
                        root.display()
                    )
                })?;
                Ok(Backend::File {
                    root: root.clone(),
                    etag: *etag,
                })
            }
            BackendSettings::S3(s3) => {
                let mut builder = object_store::aws::AmazonS3Builder::new()
                    .with_bucket_name(&s3.bucket)
                    .with_region(&s3.region)
                    .with_virtual_hosted_style_request(!s3.force_path_style);
                if let Some(endpoint) = &s3.endpoint {
                    builder = builder
                        .with_endpoint(endpoint)
                        .with_allow_http(endpoint.starts_with("http://"));
                }
                if let Some((id, secret)) = &s3.credentials {
                    use secrecy::ExposeSecret;
                    builder = builder
                        .with_access_key_id(id)
                        .with_secret_access_key(secret.expose_secret());
                }
                let store = builder.build().map_err(|error| error.to_string())?;
                Ok(Backend::S3 {
                    store: Arc::new(store),
                })
            }
        }
    }

    /// Streams `body` into `path`, refusing more than `limit` bytes.
    pub async fn write<S, E>(&self, path: &str, body: S, limit: u64) -> Result<Written, WriteError>
    where
        S: Stream<Item = Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        match self {
            Backend::File { root, etag } => write_file(root, *etag, path, body, limit).await,
            Backend::S3 { store } => write_s3(store.as_ref(), path, body, limit).await,
        }
    }

    /// Streams `path`, or the `range` of it.
    pub async fn read(&self, path: &str, range: Option<ByteRange>) -> Result<Reader, ReadError> {
        match self {
            Backend::File { root, .. } => {
                let (file, length) = match file_reader::open(root.join(path)).await {
                    Ok(opened) => opened,
                    Err(error) if error.kind() == io::ErrorKind::NotFound => {
                        return Err(ReadError::NotFound);
                    }
                    Err(error) => return Err(ReadError::Io(error.to_string())),
                };
                let (start, end) = match range {
                    Some(ByteRange { start, end }) => (start, end + 1),
                    None => (0, length),
                };
                Ok(Reader {
                    stream: file_reader::chunks(file, start, end),
                })
            }
            Backend::S3 { store } => {
                let options = GetOptions {
                    range: range.map(|r| GetRange::Bounded(r.start..r.end + 1)),
                    ..GetOptions::default()
                };
                let result = store
                    .get_opts(&object_store::path::Path::from(path), options)
                    .await
                    .map_err(|error| match error {
                        object_store::Error::NotFound { .. } => ReadError::NotFound,
                        other => ReadError::Io(other.to_string()),
                    })?;
                let stream = result
                    .into_stream()
                    .map_err(|error| io::Error::other(error.to_string()));
                Ok(Reader {
                    stream: stream.boxed(),
                })
            }
        }
    }

    /// Reads a whole (small) object, for image transformations; refuses more than `limit`.
    pub async fn read_all(&self, path: &str, limit: u64) -> Result<Option<Vec<u8>>, ReadError> {
        let mut reader = self.read(path, None).await?;
        let mut bytes = Vec::new();
        while let Some(chunk) = reader.stream.next().await {
            let chunk = chunk.map_err(|error| ReadError::Io(error.to_string()))?;
            bytes.extend_from_slice(&chunk);
            if bytes.len() as u64 > limit {
                return Ok(None);
            }
        }
        Ok(Some(bytes))
    }

    /// Makes `to` a copy of `from` (a hard link on disk: versions are never modified).
    pub async fn copy(&self, from: &str, to: &str) -> Result<(), ReadError> {
        match self {
            Backend::File { root, .. } => {
                let target = root.join(to);
                create_parent(&target)
                    .await
                    .map_err(|e| ReadError::Io(e.to_string()))?;
                match tokio::fs::hard_link(root.join(from), &target).await {
                    Ok(()) => Ok(()),
                    Err(error) if error.kind() == io::ErrorKind::NotFound => {
                        Err(ReadError::NotFound)
                    }
                    Err(_) => tokio::fs::copy(root.join(from), &target)
                        .await
                        .map(drop)
                        .map_err(|error| ReadError::Io(error.to_string())),
                }
            }
            Backend::S3 { store } => store
                .copy(
                    &object_store::path::Path::from(from),
                    &object_store::path::Path::from(to),
                )
                .await
                .map_err(|error| match error {
                    object_store::Error::NotFound { .. } => ReadError::NotFound,
                    other => ReadError::Io(other.to_string()),
                }),
        }
    }

    /// Deletes `path` if it exists; failures are logged (an orphan costs space, not data).
    pub async fn delete(&self, path: &str) {
        let result = match self {
            Backend::File { root, .. } => {
                let file = root.join(path);
                match tokio::fs::remove_file(&file).await {
                    Ok(()) => {
                        remove_empty_parents(root, &file).await;
                        Ok(())
                    }
                    Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
                    Err(error) => Err(error.to_string()),
                }
            }
            Backend::S3 { store } => {
                match store.delete(&object_store::path::Path::from(path)).await {
                    Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                    Err(error) => Err(error.to_string()),
                }
            }
        };
        if let Err(error) = result {
            tracing::warn!(path, %error, "could not delete stored object bytes");
        }
    }
}

/// The stored path of one version of an object.
pub fn object_path(bucket: &str, key: &str, version: &str) -> String {
    format!("{bucket}/{key}/{version}")
}

async fn create_parent(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) => tokio::fs::create_dir_all(parent).await,
        None => Ok(()),
    }
}

/// Removes the directories a deleted key leaves empty, up to the bucket's own.
async fn remove_empty_parents(root: &Path, file: &Path) {
    let mut dir = file.parent();
    while let Some(current) = dir {
        if current == root || current.parent() == Some(root) {
            break;
        }
        if tokio::fs::remove_dir(current).await.is_err() {
            break;
        }
        dir = current.parent();
    }
}

async fn write_file<S, E>(
    root: &Path,
    etag: FileEtag,
    path: &str,
    mut body: S,
    limit: u64,
) -> Result<Written, WriteError>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: std::fmt::Display,
{
    let temporary = root.join(".tmp").join(uuid::Uuid::new_v4().to_string());
    let io_error = |error: io::Error| WriteError::Io(error.to_string());
    // Hashing and writing run on a blocking thread fed through a small queue, so they take
    // one core while the request's worker receives on the other.
    let (chunks, mut queue) = tokio::sync::mpsc::channel::<Vec<u8>>(4);
    // Written buffers come back to be filled again: a fresh megabyte per piece would be new
    // memory for the kernel to zero each time (a fifth of the upload's time when measured).
    let (recycle, mut recycled) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    let abandoned = Arc::new(AtomicBool::new(false));
    let writer = {
        let temporary = temporary.clone();
        let abandoned = abandoned.clone();
        tokio::task::spawn_blocking(move || -> io::Result<(u64, Option<Md5>)> {
            let mut out = std::fs::File::create(&temporary)?;
            let mut md5 = (etag == FileEtag::Md5).then(Md5::new);
            let mut size = 0u64;
            while let Some(mut piece) = queue.blocking_recv() {
                if let Some(md5) = md5.as_mut() {
                    md5.update(&piece);
                }
                out.write_all(&piece)?;
                size += piece.len() as u64;
                piece.clear();
                // The receiver may be gone (the body failed): the buffer is then just freed.
                let _ = recycle.send(piece);
            }
            if !abandoned.load(Ordering::Relaxed) {
                out.sync_all()?;
            }
            Ok((size, md5))
        })
    };
    let mut failure = None;
    let mut size = 0u64;
    // The body's chunks are small; they go to the writer gathered into large pieces, so the
    // two threads hand over (and wake each other) rarely.
    let mut next_buffer = || {
        recycled
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(WRITE_BUFFER))
    };
    let mut gathered = next_buffer();
    loop {
        let next = body.next().await;
        let last = next.is_none();
        match next {
            Some(Err(error)) => {
                failure = Some(WriteError::Body(error.to_string()));
                break;
            }
            Some(Ok(chunk)) => {
                size += chunk.len() as u64;
                if size > limit {
                    failure = Some(WriteError::TooLarge);
                    break;
                }
                if gathered.len() + chunk.len() > WRITE_BUFFER && !gathered.is_empty() {
                    let full = std::mem::replace(&mut gathered, next_buffer());
                    // A closed queue means the writer failed: its error is read below.
                    if chunks.send(full).await.is_err() {
                        break;
                    }
                }
                gathered.extend_from_slice(&chunk);
            }
            None => {}
        }
        if last {
            if !gathered.is_empty() {
                let _ = chunks.send(std::mem::take(&mut gathered)).await;
            }
            break;
        }
    }
    if failure.is_some() {
        abandoned.store(true, Ordering::Relaxed);
    }
    drop(chunks);
    let written = writer
        .await
        .map_err(|error| io::Error::other(error.to_string()))
        .and_then(|result| result);
    let (size, md5) = match (failure, written) {
        (None, Ok(done)) => done,
        (Some(error), _) => {
            let _ = tokio::fs::remove_file(&temporary).await;
            return Err(error);
        }
        (None, Err(error)) => {
            let _ = tokio::fs::remove_file(&temporary).await;
            return Err(io_error(error));
        }
    };
    let target = root.join(path);
    let placed = async {
        create_parent(&target).await?;
        tokio::fs::rename(&temporary, &target).await?;
        if let Some(parent) = target.parent() {
            tokio::fs::File::open(parent).await?.sync_all().await?;
        }
        tokio::fs::metadata(&target).await?.modified()
    }
    .await;
    let modified = match placed {
        Ok(modified) => DateTime::<Utc>::from(modified),
        Err(error) => {
            let _ = tokio::fs::remove_file(&temporary).await;
            return Err(io_error(error));
        }
    };
    let etag = match md5 {
        Some(md5) => md5_etag(md5),
        None => mtime_etag(modified, size),
    };
    Ok(Written {
        size,
        etag,
        last_modified: modified,
    })
}

fn md5_etag(md5: Md5) -> String {
    format!("\"{}\"", hex::encode(md5.finalize()))
}

/// Supabase's `mtime` ETag: modification time in milliseconds and size, both in hex.
fn mtime_etag(modified: DateTime<Utc>, size: u64) -> String {
    format!("\"{:x}-{size:x}\"", modified.timestamp_millis().max(0))
}

async fn write_s3<S, E>(
    store: &dyn ObjectStore,
    path: &str,
    mut body: S,
    limit: u64,
) -> Result<Written, WriteError>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: std::fmt::Display,
{
    let location = object_store::path::Path::from(path);
    let s3_error = |error: object_store::Error| WriteError::Io(error.to_string());
    let mut size = 0u64;
    let mut md5 = Md5::new();
    // Up to one part is held in memory; smaller objects go up in one request.
    let mut first = Vec::new();
    let mut upload: Option<WriteMultipart> = None;
    let result: Result<(), WriteError> = async {
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(|error| WriteError::Body(error.to_string()))?;
            size += chunk.len() as u64;
            if size > limit {
                return Err(WriteError::TooLarge);
            }
            md5.update(&chunk);
            match upload.as_mut() {
                Some(writer) => {
                    writer.wait_for_capacity(2).await.map_err(s3_error)?;
                    writer.put(chunk);
                }
                None => {
                    first.extend_from_slice(&chunk);
                    if first.len() >= S3_PART {
                        let multipart = store.put_multipart(&location).await.map_err(s3_error)?;
                        let mut writer = WriteMultipart::new_with_chunk_size(multipart, S3_PART);
                        writer.write(&std::mem::take(&mut first));
                        upload = Some(writer);
                    }
                }
            }
        }
        Ok(())
    }
    .await;
    match (result, upload) {
        (Ok(()), Some(writer)) => {
            writer.finish().await.map_err(s3_error)?;
        }
        (Ok(()), None) => {
            store
                .put(&location, PutPayload::from(first))
                .await
                .map_err(s3_error)?;
        }
        (Err(error), Some(writer)) => {
            let _ = writer.abort().await;
            return Err(error);
        }
        (Err(error), None) => return Err(error),
    }
    Ok(Written {
        size,
        etag: md5_etag(md5),
        last_modified: Utc::now(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mtime_etags_are_milliseconds_and_size_in_hex() {
        let modified = DateTime::from_timestamp_millis(1_700_000_000_123).unwrap();
        assert_eq!(mtime_etag(modified, 1024), "\"18bcfe5687b-400\"");
    }

    #[tokio::test]
    async fn the_file_backend_makes_the_etag_it_is_set_to() {
        let root = std::env::temp_dir().join(format!("cielo-etag-{}", uuid::Uuid::new_v4()));
        let body = || futures_util::stream::iter([Ok::<_, io::Error>(Bytes::from_static(b"hola"))]);
        for (etag, expected) in [
            (FileEtag::Md5, Some("\"4d186321c1a7f0f354b297e8914ab240\"")),
            (FileEtag::Mtime, None),
        ] {
            let backend = Backend::new(&BackendSettings::File {
                root: root.clone(),
                etag,
            })
            .unwrap();
            let written = backend.write("b/k/v1", body(), 10).await.unwrap();
            match expected {
                Some(md5) => assert_eq!(written.etag, md5),
                None => assert!(written.etag.ends_with("-4\""), "{}", written.etag),
            }
        }
        std::fs::remove_dir_all(root).unwrap();
    }
}
