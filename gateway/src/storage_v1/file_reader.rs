//! Streams a stored file out of the disk backend. Each chunk is first read on the HTTP
//! worker itself with `preadv2(RWF_NOWAIT)`, which copies only what the page cache already
//! holds and never waits for the disk; whatever is not cached is read on tokio's blocking
//! pool. Recently written or often fetched objects (a course's images, a plan's handout)
//! are cached, so serving them costs no hand-over between threads — the hand-over per
//! chunk was the largest cost of a download — while a cold read still never stalls the
//! worker's other connections.

// One `preadv2` call into a buffer's spare capacity; the block below says why it is sound.
#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use futures_util::stream::{BoxStream, StreamExt};

/// Bytes read per chunk: large enough that per-chunk costs vanish, small enough to keep a
/// download's memory bounded.
const READ_CHUNK: usize = 256 * 1024;

/// Opens `path` (on the blocking pool: a cold directory lookup may wait for the disk) and
/// returns it with its length.
pub async fn open(path: PathBuf) -> io::Result<(File, u64)> {
    tokio::task::spawn_blocking(move || {
        let file = File::open(path)?;
        let length = file.metadata()?.len();
        Ok((file, length))
    })
    .await
    .map_err(io::Error::other)?
}

/// The bytes of `file` from `start` up to (not including) `end`, in chunks of their own
/// (handed on without a copy). Ends early if the file is shorter.
pub fn chunks(file: File, start: u64, end: u64) -> BoxStream<'static, io::Result<Bytes>> {
    futures_util::stream::try_unfold((Arc::new(file), start), move |(file, offset)| async move {
        if offset >= end {
            return Ok(None);
        }
        let want = usize::try_from(end - offset).map_or(READ_CHUNK, |left| left.min(READ_CHUNK));
        let mut buffer = BytesMut::with_capacity(want);
        read_cached(&file, &mut buffer, offset, want)?;
        if buffer.len() < want {
            let on_disk = Arc::clone(&file);
            buffer =
                tokio::task::spawn_blocking(move || read_from_disk(&on_disk, buffer, offset, want))
                    .await
                    .map_err(io::Error::other)??;
        }
        if buffer.is_empty() {
            return Ok(None);
        }
        let next = offset + buffer.len() as u64;
        Ok(Some((buffer.freeze(), (file, next))))
    })
    .boxed()
}

/// Appends to `buffer` what the page cache holds of `want` bytes at `offset`, without
/// waiting for the disk; appends nothing where the kernel cannot tell without waiting.
#[cfg(target_os = "linux")]
fn read_cached(file: &File, buffer: &mut BytesMut, offset: u64, want: usize) -> io::Result<()> {
    use std::os::fd::AsRawFd;

    let Ok(offset) = libc::off_t::try_from(offset) else {
        return Ok(());
    };
    let spare = buffer.spare_capacity_mut();
    let target = libc::iovec {
        iov_base: spare.as_mut_ptr().cast(),
        iov_len: want.min(spare.len()),
    };
    // SAFETY: `target` covers spare capacity `buffer` owns and nothing else refers to; the
    // kernel only writes into it, and at most `iov_len` bytes, which `read` reports.
    let read = unsafe { libc::preadv2(file.as_raw_fd(), &target, 1, offset, libc::RWF_NOWAIT) };
    if read < 0 {
        let error = io::Error::last_os_error();
        return match error.raw_os_error() {
            // Not cached, or a kernel or filesystem without RWF_NOWAIT: read it the slow way.
            Some(libc::EAGAIN | libc::EOPNOTSUPP | libc::ENOSYS | libc::EINVAL) => Ok(()),
            _ => Err(error),
        };
    }
    let read = usize::try_from(read).map_err(io::Error::other)?;
    // SAFETY: the kernel initialised exactly `read` bytes of the spare capacity.
    unsafe { buffer.set_len(buffer.len() + read) };
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn read_cached(_: &File, _: &mut BytesMut, _: u64, _: usize) -> io::Result<()> {
    Ok(())
}

/// Fills `buffer` up to `want` bytes from `offset` onwards, waiting for the disk; stops
/// early at the end of the file.
fn read_from_disk(
    file: &File,
    mut buffer: BytesMut,
    offset: u64,
    want: usize,
) -> io::Result<BytesMut> {
    let mut filled = buffer.len();
    buffer.resize(want, 0);
    while filled < want {
        match file.read_at(&mut buffer[filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    buffer.truncate(filled);
    Ok(buffer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::TryStreamExt;

    fn file_of(bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("object");
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    async fn collect(path: PathBuf, start: u64, end: u64) -> Vec<u8> {
        let (file, _) = open(path).await.unwrap();
        let parts: Vec<Bytes> = chunks(file, start, end).try_collect().await.unwrap();
        parts.concat()
    }

    #[tokio::test]
    async fn streams_whole_files_and_ranges_across_chunks() {
        let bytes: Vec<u8> = (0..READ_CHUNK * 2 + 1000)
            .map(|i| (i % 251) as u8)
            .collect();
        let (_dir, path) = file_of(&bytes);
        let (_, length) = open(path.clone()).await.unwrap();
        assert_eq!(length, bytes.len() as u64);
        assert_eq!(collect(path.clone(), 0, length).await, bytes);
        let (start, end) = (READ_CHUNK as u64 - 10, READ_CHUNK as u64 * 2 + 10);
        assert_eq!(
            collect(path.clone(), start, end).await,
            &bytes[start as usize..end as usize]
        );
        // A file shorter than asked for ends the stream at its end.
        assert_eq!(collect(path, 100, length + 5000).await, &bytes[100..]);
    }

    #[test]
    fn disk_reads_fill_what_the_cache_did_not() {
        let bytes: Vec<u8> = (0..5000).map(|i| (i % 7) as u8).collect();
        let (_dir, path) = file_of(&bytes);
        let file = File::open(path).unwrap();
        let mut buffer = BytesMut::with_capacity(3000);
        buffer.extend_from_slice(&bytes[1000..1500]);
        let filled = read_from_disk(&file, buffer, 1000, 3000).unwrap();
        assert_eq!(&filled[..], &bytes[1000..4000]);
    }

    #[test]
    fn missing_files_are_not_found() {
        let dir = tempfile::tempdir().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let error = runtime
            .block_on(open(dir.path().join("nothing")))
            .unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
    }
}
