//! The web app: static files from `WEB_DIR` (Vite's `frontend/dist`) at `/`, with
//! single-page-app fallback and the runtime configuration the app loads at start.
//!
//! * `/config.json` tells the app where the API is and which public key to use, so one
//!   build works for every deployment.
//! * Hashed assets under `/assets/` are cached for a year (`immutable`); everything else
//!   is revalidated (`no-cache`), so a new deployment is picked up at the next load.
//! * An asset the build also wrote as `x.js.br` or `x.js.gz` (compressed once, at the highest
//!   levels) is sent as that file to browsers that accept it, instead of being compressed on
//!   every request at the fast levels the response middleware uses.
//! * An unknown path without a file extension gets `index.html` (client-side routes such as
//!   `/planner/sequential/42`); an unknown file gets 404, so a missing script is never
//!   answered with HTML. Unknown paths under the API prefixes answer in JSON.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use actix_files::{Files, NamedFile, file_extension_to_mime};
use actix_web::body::BoxBody;
use actix_web::dev::{ServiceRequest, ServiceResponse, fn_service};
use actix_web::http::header::{self, ContentEncoding, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::{Next, from_fn};
use actix_web::{Error, HttpResponse, web};
use serde_json::json;

use crate::state::AppState;

/// Path prefixes that belong to the API, never to the web app.
pub const API_PREFIXES: &[&str] = &[
    "/auth/v1",
    "/rest/v1",
    "/realtime/v1",
    "/storage/v1",
    "/functions/v1",
];

pub fn is_api_path(path: &str) -> bool {
    API_PREFIXES.iter().any(|prefix| {
        path.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// `GET /config.json`: the app's runtime configuration.
pub async fn runtime_config(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(json!({
            "supabaseUrl": state.settings.api_url(),
            "supabaseAnonKey": state.keys.anon_key(),
        }))
}

/// Mounts the web app as the service answering every path no other route took; `None`
/// (not built) answers with a page that says how to build it.
pub fn configure(config: &mut web::ServiceConfig, web_dir: Option<PathBuf>) {
    match web_dir {
        Some(dir) => {
            let assets = Arc::new(dir.clone());
            let precompressed = from_fn(move |request, next| {
                let assets = Arc::clone(&assets);
                async move { precompressed(&assets, request, next).await }
            });
            config.default_service(actix_service::apply(
                from_fn(cache_headers),
                actix_service::apply(precompressed, files(dir)),
            ));
        }
        None => {
            config.default_service(web::to(not_built));
        }
    }
}

fn files(dir: PathBuf) -> Files {
    let index = dir.join("index.html");
    Files::new("/", dir)
        .index_file("index.html")
        .use_etag(true)
        .use_last_modified(true)
        .default_handler(fn_service(move |request: ServiceRequest| {
            let index = index.clone();
            async move {
                let (request, _) = request.into_parts();
                let response = if is_api_path(request.path()) {
                    no_route()
                } else if wants_spa_fallback(request.method(), request.path()) {
                    match NamedFile::open_async(&index).await {
                        Ok(file) => file.into_response(&request),
                        Err(error) => HttpResponse::InternalServerError().body(error.to_string()),
                    }
                } else {
                    HttpResponse::NotFound()
                        .content_type("text/plain; charset=utf-8")
                        .body("404 Not Found")
                };
                Ok(ServiceResponse::new(request, response))
            }
        }))
}

/// The encodings the build writes beside an asset, best first, with their file suffix.
const PRECOMPRESSED: &[(&str, &str, ContentEncoding)] = &[
    ("br", "br", ContentEncoding::Brotli),
    ("gzip", "gz", ContentEncoding::Gzip),
];

/// Middleware: answers a GET or HEAD of `/assets/<name>` with `<name>.br` or `<name>.gz` when
/// the browser accepts that encoding and the file exists; anything else goes on unchanged.
async fn precompressed(
    dir: &Path,
    request: ServiceRequest,
    next: Next<BoxBody>,
) -> Result<ServiceResponse, Error> {
    let name = request
        .path()
        .strip_prefix("/assets/")
        .filter(|name| is_asset_name(name));
    let readable = request.method() == Method::GET || request.method() == Method::HEAD;
    if let (Some(name), true) = (name, readable) {
        let accepted = request
            .headers()
            .get(header::ACCEPT_ENCODING)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("");
        for (token, suffix, encoding) in PRECOMPRESSED {
            if !accepts(accepted, token) {
                continue;
            }
            let path = dir.join("assets").join(format!("{name}.{suffix}"));
            let Ok(file) = NamedFile::open_async(&path).await else {
                continue;
            };
            let extension = Path::new(name)
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("");
            let file = file
                .set_content_type(file_extension_to_mime(extension))
                .set_content_encoding(*encoding)
                .use_etag(true)
                .use_last_modified(true);
            let (request, _) = request.into_parts();
            let mut response = file.into_response(&request);
            response
                .headers_mut()
                .insert(header::VARY, HeaderValue::from_static("accept-encoding"));
            return Ok(ServiceResponse::new(request, response));
        }
    }
    next.call(request).await
}

/// A file name Vite writes under `assets/`: no directories, nothing but name characters.
fn is_asset_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
}

/// Whether an `Accept-Encoding` value accepts `token` (listed, and not with `q=0`).
fn accepts(accept_encoding: &str, token: &str) -> bool {
    accept_encoding.split(',').any(|item| {
        let mut parts = item.split(';').map(str::trim);
        parts
            .next()
            .is_some_and(|name| name.eq_ignore_ascii_case(token))
            && !parts.any(|param| {
                param
                    .strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q == 0.0)
            })
    })
}

/// Client-side routes: GET/HEAD of a path whose last segment has no file extension.
fn wants_spa_fallback(method: &Method, path: &str) -> bool {
    (method == Method::GET || method == Method::HEAD)
        && !path
            .rsplit('/')
            .next()
            .is_some_and(|segment| segment.contains('.'))
}

/// Handler form of [`no_route`].
pub async fn no_route_handler() -> HttpResponse {
    no_route()
}

/// What Supabase's API gateway answers for a path no service owns.
pub fn no_route() -> HttpResponse {
    HttpResponse::NotFound().json(json!({"message": "no Route matched with those values"}))
}

async fn not_built(request: actix_web::HttpRequest) -> HttpResponse {
    if is_api_path(request.path()) {
        return no_route();
    }
    HttpResponse::ServiceUnavailable()
        .content_type("text/html; charset=utf-8")
        .body(concat!(
            "<!doctype html><html lang=\"es-CL\"><meta charset=\"utf-8\">",
            "<title>Cielo</title><body style=\"font-family:sans-serif;margin:3rem\">",
            "<h1>La aplicación web no está compilada</h1>",
            "<p>Ejecute <code>make run</code> (o <code>npm run build</code> en ",
            "<code>frontend/</code>) y vuelva a cargar esta página.</p></body></html>"
        ))
}

/// Middleware around the web app's files: their cache headers. Only a served file is a
/// 200 here; 404s (API paths no route took included) are left alone.
async fn cache_headers(
    request: ServiceRequest,
    next: Next<BoxBody>,
) -> Result<ServiceResponse, Error> {
    let asset = request.path().starts_with("/assets/");
    let mut response = next.call(request).await?;
    if response.status() != StatusCode::OK {
        return Ok(response);
    }
    let headers = response.headers_mut();
    if !headers.contains_key(header::CACHE_CONTROL) {
        let value = if asset {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        };
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(value));
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_paths_are_recognised_exactly() {
        assert!(is_api_path("/rest/v1"));
        assert!(is_api_path("/rest/v1/todos"));
        assert!(is_api_path("/storage/v1/object"));
        assert!(!is_api_path("/rest/v10"));
        assert!(!is_api_path("/restaurants"));
        assert!(!is_api_path("/"));
    }

    #[test]
    fn accept_encoding_is_read_by_token_and_quality() {
        assert!(accepts("gzip, deflate, br, zstd", "br"));
        assert!(accepts("GZIP;q=0.5", "gzip"));
        assert!(!accepts("gzip, br;q=0", "br"));
        assert!(!accepts("brotli", "br"));
        assert!(!accepts("", "gzip"));
    }

    #[test]
    fn asset_names_never_leave_the_assets_folder() {
        assert!(is_asset_name("index-D1deIpDD.js"));
        assert!(is_asset_name("index-Bsf4_dMx.css"));
        assert!(!is_asset_name("../index.html"));
        assert!(!is_asset_name("a/b.js"));
        assert!(!is_asset_name(".hidden"));
        assert!(!is_asset_name(""));
    }

    #[test]
    fn only_extensionless_gets_fall_back_to_the_app() {
        assert!(wants_spa_fallback(&Method::GET, "/planner/sequential/42"));
        assert!(wants_spa_fallback(&Method::HEAD, "/dashboard"));
        assert!(wants_spa_fallback(&Method::GET, "/v1.2/x"));
        assert!(!wants_spa_fallback(&Method::GET, "/assets/missing.js"));
        assert!(!wants_spa_fallback(&Method::POST, "/dashboard"));
    }
}
