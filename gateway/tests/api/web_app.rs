//! The web app: static files, SPA fallback, cache headers, compression, runtime config.

use serde_json::Value;

use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn root_and_client_routes_serve_index_html() {
    let app = spawn_app().await;
    for path in [
        "/",
        "/dashboard",
        "/planner/sequential/42/class/7/edit",
        "/dev/zones-sandbox",
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.headers()["cache-control"], "no-cache", "{path}");
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/html"),
            "{path}"
        );
        assert!(
            response.text().await.unwrap().contains("fixture-index"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn hashed_assets_are_immutable_and_compressed() {
    let app = spawn_app().await;
    let response = app
        .http
        .get(app.url("/assets/app-3f2a1b.js"))
        .header("Accept-Encoding", "br")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert_eq!(response.headers()["content-encoding"], "br");

    let response = app
        .http
        .get(app.url("/assets/app-3f2a1b.js"))
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-encoding"], "gzip");
    let original = hashed_asset_size();
    let compressed = response.bytes().await.unwrap().len() as u64;
    assert!(compressed < original / 4, "{compressed} vs {original}");
}

#[tokio::test]
async fn only_clients_that_accept_an_encoding_get_one() {
    let app = spawn_app().await;
    let plain = app.get("/assets/app-3f2a1b.js").await;
    assert_eq!(plain.status(), 200);
    assert!(!plain.headers().contains_key("content-encoding"));
    let original = hashed_asset_size();
    assert_eq!(plain.bytes().await.unwrap().len() as u64, original);

    let identity = app
        .http
        .get(app.url("/assets/app-3f2a1b.js"))
        .header("Accept-Encoding", "identity")
        .send()
        .await
        .unwrap();
    assert!(!identity.headers().contains_key("content-encoding"));
}

#[tokio::test]
async fn missing_files_are_404_not_the_app() {
    let app = spawn_app().await;
    let response = app.get("/assets/missing-123.js").await;
    assert_eq!(response.status(), 404);
    assert!(!response.text().await.unwrap().contains("fixture-index"));
}

#[tokio::test]
async fn unknown_api_paths_answer_json_not_the_app() {
    let app = spawn_app().await;
    // storage/v1 answers its own unknown routes, as Supabase Storage does.
    let response = app.get("/storage/v1/nope?x=1").await;
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["message"], "Route GET:/nope?x=1 not found");
    assert_eq!(body["statusCode"], "404");
}

#[tokio::test]
async fn path_traversal_stays_inside_the_web_dir() {
    let app = spawn_app().await;
    for path in [
        "/../Cargo.toml",
        "/assets/..%2f..%2fCargo.toml",
        "/%2e%2e/%2e%2e/Cargo.toml",
    ] {
        let response = app.get(path).await;
        let body = response.text().await.unwrap();
        assert!(!body.contains("[package]"), "{path} escaped the web dir");
    }
}

#[tokio::test]
async fn runtime_config_points_the_app_at_the_api() {
    let app = spawn_app_with(&[("API_EXTERNAL_URL", "https://cielo.example.cl")]).await;
    let response = app.get("/config.json").await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["supabaseUrl"], "https://cielo.example.cl");
    assert_eq!(body["supabaseAnonKey"], app.anon_key());
}

#[tokio::test]
async fn an_unbuilt_app_says_how_to_build_it() {
    let empty = tempfile::tempdir().unwrap();
    let app = spawn_app_with(&[("WEB_DIR", empty.path().to_str().unwrap())]).await;
    let response = app.get("/dashboard").await;
    assert_eq!(response.status(), 503);
    assert!(response.text().await.unwrap().contains("make run"));
    // The API keeps working.
    assert_eq!(app.get("/health").await.status(), 200);
}

/// Bytes of the fixture's hashed asset as it is on disk.
fn hashed_asset_size() -> u64 {
    std::fs::metadata(crate::helpers::fixture_web_dir().join("assets/app-3f2a1b.js"))
        .unwrap()
        .len()
}

#[tokio::test]
async fn precompressed_assets_are_sent_as_built() {
    let app = spawn_app().await;
    let dir = crate::helpers::fixture_web_dir().join("assets");
    for (accept, encoding, file) in [
        ("gzip, deflate, br, zstd", "br", "pre-9c1d.js.br"),
        ("gzip, br;q=0", "gzip", "pre-9c1d.js.gz"),
    ] {
        let response = app
            .http
            .get(app.url("/assets/pre-9c1d.js"))
            .header("Accept-Encoding", accept)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{accept}");
        assert_eq!(response.headers()["content-encoding"], encoding, "{accept}");
        assert_eq!(response.headers()["vary"], "accept-encoding", "{accept}");
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .contains("javascript"),
            "{accept}"
        );
        assert_eq!(
            response.headers()["cache-control"],
            "public, max-age=31536000, immutable"
        );
        // The build's file byte for byte: not compressed again on the way out.
        let body = response.bytes().await.unwrap();
        assert_eq!(
            body.as_ref(),
            std::fs::read(dir.join(file)).unwrap(),
            "{accept}"
        );
    }

    let plain = app.get("/assets/pre-9c1d.js").await;
    assert!(!plain.headers().contains_key("content-encoding"));
    assert_eq!(
        plain.bytes().await.unwrap().as_ref(),
        std::fs::read(dir.join("pre-9c1d.js")).unwrap()
    );
}
