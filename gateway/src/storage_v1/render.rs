//! Image transformations (`/render/image/authenticated|public|sign/{bucket}/{key}`), done
//! in the gateway with the `image` crate: `width`/`height` (clamped to
//! `IMG_LIMITS_MAX_SIZE`, never enlarging), `resize` cover (crop to fill, the default),
//! contain (fit inside) or fill (stretch), `quality` for JPEG, and `format`: WebP when asked
//! for (AVIF requests get WebP too) or, without a format, when the client's `Accept` takes
//! it; otherwise the source's own format. Sources over the configured size are refused
//! before decoding. Results are cached in memory by object version and parameters.
//! Responses carry `X-Transformations` as Supabase's renderer writes it.

use std::collections::HashMap;
use std::io::Cursor;
use std::sync::Mutex;

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use bytes::Bytes;
use image::{DynamicImage, ImageFormat, imageops::FilterType};
use serde::Deserialize;

use super::StorageState;
use super::backend::ReadError;
use super::caller::{Caller, Scope, TokenRule};
use super::error::{StorageError, StorageResult};
use super::objects::download::{Access, Freshness, describe_cache, resolve};
use super::objects::signed::query_token;
use super::objects::{ObjectRow, find_object};
use super::signing::{self, TokenScope};
use super::{begin, begin_as, bucket_of, commit, key_of};

pub fn routes(config: &mut web::ServiceConfig) {
    config
        .route(
            "/render/image/authenticated/{bucket}/{key:.+}",
            web::get().to(authenticated),
        )
        .route(
            "/render/image/public/{bucket}/{key:.+}",
            web::get().to(public),
        )
        .route(
            "/render/image/sign/{bucket}/{key:.+}",
            web::get().to(signed),
        );
}

/// What a client asks of an image (query parameters, or `transform` when signing).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Transform {
    #[serde(default, deserialize_with = "lenient_number")]
    pub width: Option<u32>,
    #[serde(default, deserialize_with = "lenient_number")]
    pub height: Option<u32>,
    pub resize: Option<String>,
    pub format: Option<String>,
    #[serde(default, deserialize_with = "lenient_number")]
    pub quality: Option<u32>,
}

/// Numbers arrive as JSON numbers or query strings.
fn lenient_number<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u32>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Number(f64),
        Text(String),
    }
    Ok(match Option::<Raw>::deserialize(deserializer)? {
        None => None,
        Some(Raw::Number(n)) if n >= 0.0 => Some(n as u32),
        Some(Raw::Text(text)) => text.trim().parse().ok(),
        Some(Raw::Number(_)) => None,
    })
}

impl Transform {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    fn check(&self) -> StorageResult<()> {
        if let Some(resize) = &self.resize
            && !matches!(resize.as_str(), "cover" | "contain" | "fill")
        {
            return Err(StorageError::invalid_request(
                "querystring/resize must be equal to one of the allowed values",
            ));
        }
        if let Some(format) = &self.format
            && !matches!(format.as_str(), "origin" | "avif" | "webp")
        {
            return Err(StorageError::invalid_request(
                "querystring/format must be equal to one of the allowed values",
            ));
        }
        if self.quality.is_some_and(|q| !(20..=100).contains(&q)) {
            return Err(StorageError::invalid_request(
                "querystring/quality must be >= 20 and <= 100",
            ));
        }
        Ok(())
    }

    /// The transformation as a signed token carries it.
    pub fn to_claim(&self) -> String {
        let mut parts = Vec::new();
        if let Some(w) = self.width {
            parts.push(format!("width:{w}"));
        }
        if let Some(h) = self.height {
            parts.push(format!("height:{h}"));
        }
        if let Some(r) = &self.resize {
            parts.push(format!("resize:{r}"));
        }
        if let Some(q) = self.quality {
            parts.push(format!("quality:{q}"));
        }
        if let Some(f) = &self.format {
            parts.push(format!("format:{f}"));
        }
        parts.join(",")
    }

    pub fn from_claim(claim: &str) -> Self {
        let mut transform = Self::default();
        for part in claim.split(',') {
            let Some((name, value)) = part.split_once(':') else {
                continue;
            };
            match name {
                "width" => transform.width = value.parse().ok(),
                "height" => transform.height = value.parse().ok(),
                "resize" if value != "undefined" => transform.resize = Some(value.to_owned()),
                "quality" => transform.quality = value.parse().ok(),
                "format" => transform.format = Some(value.to_owned()),
                _ => {}
            }
        }
        transform
    }

    /// `X-Transformations`, in the renderer's words and order.
    pub fn header(&self) -> String {
        let mut parts = Vec::new();
        if let Some(h) = self.height {
            parts.push(format!("height:{h}"));
        }
        if let Some(w) = self.width {
            parts.push(format!("width:{w}"));
        }
        if self.width.is_some() || self.height.is_some() {
            let kind = match self.resize.as_deref() {
                Some("contain") => "fit",
                Some("fill") => "force",
                _ => "fill",
            };
            parts.push(format!("resizing_type:{kind}"));
        }
        if let Some(q) = self.quality {
            parts.push(format!("quality:{q}"));
        }
        if let Some(f) = self.format.as_deref().filter(|f| *f != "origin") {
            parts.push(format!("format:{f}"));
        }
        parts.join(",")
    }
}

fn query_transform(request: &HttpRequest) -> StorageResult<Transform> {
    let transform: Transform = web::Query::<Transform>::from_query(request.query_string())
        .map(web::Query::into_inner)
        .map_err(|error| StorageError::invalid_request(&error.to_string()))?;
    transform.check()?;
    Ok(transform)
}

async fn authenticated(request: HttpRequest, state: web::Data<StorageState>) -> HttpResponse {
    let found = async {
        let transform = query_transform(&request)?;
        let caller = Caller::of(&request, &state, TokenRule::Required)?;
        let bucket = bucket_of(&request);
        let key = key_of(&request);
        let mut connection = state.connection().await?;
        let tx = begin_as(
            &mut connection,
            &Scope::of(&request, "storage.render.image_authenticated"),
            &caller,
        )
        .await?;
        let row = find_object(&tx, &bucket, &key)
            .await?
            .ok_or_else(StorageError::no_such_key)?;
        commit(tx).await?;
        StorageResult::Ok((row, transform))
    }
    .await;
    respond(&request, &state, found, Freshness::CacheControl).await
}

async fn public(request: HttpRequest, state: web::Data<StorageState>) -> HttpResponse {
    let found = async {
        let transform = query_transform(&request)?;
        let row = resolve(
            &request,
            &state,
            Access::Public,
            "storage.render.image_public",
        )
        .await?;
        StorageResult::Ok((row, transform))
    }
    .await;
    respond(&request, &state, found, Freshness::CacheControl).await
}

async fn signed(request: HttpRequest, state: web::Data<StorageState>) -> HttpResponse {
    let mut expires = 0;
    let found = async {
        let token = query_token(&request)?;
        let bucket = bucket_of(&request);
        let key = key_of(&request);
        let signed = signing::verify(
            &state.keys,
            &token,
            &format!("{bucket}/{key}"),
            TokenScope::Download,
        )?;
        expires = signed.exp;
        let mut connection = state.connection().await?;
        let tx = begin(&mut connection).await?;
        Scope::of(&request, "storage.render.image_sign")
            .enter(&tx, &Caller::service())
            .await?;
        let row = find_object(&tx, &bucket, &key)
            .await?
            .ok_or_else(StorageError::no_such_key)?;
        commit(tx).await?;
        let transform = Transform::from_claim(signed.transformations.as_deref().unwrap_or(""));
        StorageResult::Ok((row, transform))
    }
    .await;
    respond(&request, &state, found, Freshness::Until(expires)).await
}

/// The image encodings a response may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Output {
    Source,
    WebP,
}

async fn respond(
    request: &HttpRequest,
    state: &StorageState,
    found: StorageResult<(ObjectRow, Transform)>,
    freshness: Freshness,
) -> HttpResponse {
    if !state.settings.image_transformation {
        let url = request
            .uri()
            .path_and_query()
            .map_or(request.path(), |pq| pq.as_str());
        let url = url.strip_prefix("/storage/v1").unwrap_or(url);
        return StorageError::no_route("GET", url).error_response();
    }
    let (row, transform) = match found {
        Ok(found) => found,
        Err(error) => return error.error_response(),
    };
    let accepts_webp = request
        .headers()
        .get(header::ACCEPT)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|accept| accept.contains("image/webp"));
    let output = match transform.format.as_deref() {
        Some("webp" | "avif") => Output::WebP,
        None if accepts_webp => Output::WebP,
        _ => Output::Source,
    };
    match render(state, &row, &transform, output).await {
        Ok((bytes, mime)) => {
            let mut response = HttpResponse::Ok();
            describe_cache(&mut response, &row, freshness);
            response
                .insert_header((header::CONTENT_TYPE, mime))
                .insert_header(("x-transformations", transform.header()))
                .insert_header(("x-robots-tag", "none"))
                .body(bytes)
        }
        Err(error) => error.error_response(),
    }
}

async fn render(
    state: &StorageState,
    row: &ObjectRow,
    transform: &Transform,
    output: Output,
) -> StorageResult<(Bytes, &'static str)> {
    let cache_key = (row.path(), transform.to_claim(), output);
    if let Some(hit) = state.renders.get(&cache_key) {
        return Ok(hit);
    }
    let source = state
        .backend
        .read_all(&row.path(), state.settings.image_max_source_bytes)
        .await
        .map_err(|error| match error {
            ReadError::NotFound => StorageError::bytes_missing(),
            ReadError::Io(cause) => StorageError::internal_because(&cause),
        })?
        .ok_or_else(StorageError::entity_too_large)?;
    let transform_owned = transform.clone();
    let max = state.settings.image_max_dimension;
    let rendered = web::block(move || transform_image(&source, &transform_owned, output, max))
        .await
        .map_err(|error| StorageError::internal_because(&error))??;
    state.renders.put(cache_key, rendered.clone());
    Ok(rendered)
}

/// Decodes, resizes and encodes one image.
fn transform_image(
    source: &[u8],
    transform: &Transform,
    output: Output,
    max_dimension: u32,
) -> StorageResult<(Bytes, &'static str)> {
    let format = image::guess_format(source).map_err(|_| StorageError::invalid_image())?;
    let image = image::load_from_memory_with_format(source, format)
        .map_err(|_| StorageError::invalid_image())?;
    let image = resize(image, transform, max_dimension);
    let mut out = Cursor::new(Vec::new());
    let (target, mime) = match (output, format) {
        (Output::WebP, _) => (ImageFormat::WebP, "image/webp"),
        (Output::Source, ImageFormat::Jpeg) => (ImageFormat::Jpeg, "image/jpeg"),
        (Output::Source, ImageFormat::Gif) => (ImageFormat::Gif, "image/gif"),
        (Output::Source, ImageFormat::WebP) => (ImageFormat::WebP, "image/webp"),
        (Output::Source, _) => (ImageFormat::Png, "image/png"),
    };
    let encoded = match target {
        ImageFormat::Jpeg => {
            let quality = u8::try_from(transform.quality.unwrap_or(80)).unwrap_or(80);
            let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality);
            image.to_rgb8().write_with_encoder(encoder)
        }
        ImageFormat::WebP => image.to_rgba8().write_to(&mut out, ImageFormat::WebP),
        other => image.write_to(&mut out, other),
    };
    encoded.map_err(|error| StorageError::internal_because(&error))?;
    Ok((Bytes::from(out.into_inner()), mime))
}

fn resize(image: DynamicImage, transform: &Transform, max_dimension: u32) -> DynamicImage {
    let clamp = |value: Option<u32>| value.filter(|v| *v > 0).map(|v| v.clamp(1, max_dimension));
    let (source_w, source_h) = (image.width(), image.height());
    let (w, h) = match (clamp(transform.width), clamp(transform.height)) {
        (None, None) => return image,
        (Some(w), None) => (w, scaled(source_h, w, source_w)),
        (None, Some(h)) => (scaled(source_w, h, source_h), h),
        (Some(w), Some(h)) => (w, h),
    };
    // Never enlarged: a box larger than the source keeps the source's size.
    let (w, h) = if w > source_w || h > source_h {
        let factor = f64::min(
            f64::from(source_w) / f64::from(w),
            f64::from(source_h) / f64::from(h),
        );
        (
            ((f64::from(w) * factor).round() as u32).max(1),
            ((f64::from(h) * factor).round() as u32).max(1),
        )
    } else {
        (w, h)
    };
    match transform.resize.as_deref() {
        Some("contain") => image.resize(w, h, FilterType::Lanczos3),
        Some("fill") => image.resize_exact(w, h, FilterType::Lanczos3),
        _ => image.resize_to_fill(w, h, FilterType::Lanczos3),
    }
}

/// `other * target / source`, at least 1.
fn scaled(other: u32, target: u32, source: u32) -> u32 {
    ((u64::from(other) * u64::from(target) / u64::from(source.max(1))) as u32).max(1)
}

type CacheKey = (String, String, Output);

/// Rendered images by object version and parameters, up to a memory budget (the oldest
/// entries go first).
#[derive(Debug, Default)]
pub struct RenderCache {
    entries: Mutex<CacheEntries>,
}

#[derive(Debug, Default)]
struct CacheEntries {
    /// Each image with its type and when it was stored (`clock`).
    images: HashMap<CacheKey, (Bytes, &'static str, u64)>,
    /// Bytes held.
    used: u64,
    clock: u64,
}

const CACHE_BUDGET: u64 = 64 * 1024 * 1024;

impl RenderCache {
    fn get(&self, key: &CacheKey) -> Option<(Bytes, &'static str)> {
        let entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        entries
            .images
            .get(key)
            .map(|(bytes, mime, _)| (bytes.clone(), *mime))
    }

    fn put(&self, key: CacheKey, (bytes, mime): (Bytes, &'static str)) {
        let size = bytes.len() as u64;
        if size > CACHE_BUDGET / 4 {
            return;
        }
        let mut guard = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let CacheEntries {
            images: map,
            used,
            clock,
        } = &mut *guard;
        while *used + size > CACHE_BUDGET {
            let Some(oldest) = map
                .iter()
                .min_by_key(|(_, (_, _, at))| *at)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some((bytes, _, _)) = map.remove(&oldest) {
                *used -= bytes.len() as u64;
            }
        }
        *clock += 1;
        if let Some((old, _, _)) = map.insert(key, (bytes, mime, *clock)) {
            *used -= old.len() as u64;
        }
        *used += size;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(width: u32, height: u32) -> Vec<u8> {
        let image = image::RgbImage::from_fn(width, height, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 90])
        });
        let mut out = Cursor::new(Vec::new());
        DynamicImage::ImageRgb8(image)
            .write_to(&mut out, ImageFormat::Jpeg)
            .unwrap();
        out.into_inner()
    }

    fn dimensions(bytes: &[u8]) -> (u32, u32, ImageFormat) {
        let format = image::guess_format(bytes).unwrap();
        let image = image::load_from_memory(bytes).unwrap();
        (image.width(), image.height(), format)
    }

    #[test]
    fn cover_contain_fill_and_formats() {
        let source = sample(400, 200);
        let t = |w, h, resize: Option<&str>| Transform {
            width: w,
            height: h,
            resize: resize.map(str::to_owned),
            ..Transform::default()
        };
        let (bytes, mime) = transform_image(
            &source,
            &t(Some(100), Some(100), None),
            Output::Source,
            2000,
        )
        .unwrap();
        assert_eq!(
            (dimensions(&bytes).0, dimensions(&bytes).1, mime),
            (100, 100, "image/jpeg")
        );
        let (bytes, _) = transform_image(
            &source,
            &t(Some(100), Some(100), Some("contain")),
            Output::Source,
            2000,
        )
        .unwrap();
        assert_eq!(dimensions(&bytes).0, 100);
        assert_eq!(dimensions(&bytes).1, 50);
        let (bytes, _) = transform_image(
            &source,
            &t(Some(100), Some(100), Some("fill")),
            Output::Source,
            2000,
        )
        .unwrap();
        assert_eq!((dimensions(&bytes).0, dimensions(&bytes).1), (100, 100));
        let (bytes, mime) =
            transform_image(&source, &t(Some(200), None, None), Output::WebP, 2000).unwrap();
        assert_eq!(dimensions(&bytes), (200, 100, ImageFormat::WebP));
        assert_eq!(mime, "image/webp");
        // Never enlarged, and clamped to the limit.
        let (bytes, _) =
            transform_image(&source, &t(Some(800), None, None), Output::Source, 2000).unwrap();
        assert_eq!((dimensions(&bytes).0, dimensions(&bytes).1), (400, 200));
        let (bytes, _) =
            transform_image(&source, &t(Some(300), None, None), Output::Source, 50).unwrap();
        assert_eq!((dimensions(&bytes).0, dimensions(&bytes).1), (50, 25));
        assert_eq!(
            transform_image(b"not an image", &t(Some(1), None, None), Output::Source, 10)
                .unwrap_err()
                .message,
            "The source image is invalid or unsupported for rendering"
        );
    }

    #[test]
    fn headers_and_claims() {
        let transform = Transform {
            width: Some(200),
            height: Some(200),
            quality: Some(60),
            ..Transform::default()
        };
        assert_eq!(
            transform.header(),
            "height:200,width:200,resizing_type:fill,quality:60"
        );
        assert_eq!(Transform::from_claim(&transform.to_claim()), transform);
    }
}
