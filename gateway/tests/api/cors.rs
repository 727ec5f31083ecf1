//! CORS as Supabase's API gateway answers browsers.

use crate::helpers::spawn_app;

#[tokio::test]
async fn preflight_reflects_the_requested_headers() {
    let app = spawn_app().await;
    let requested = "apikey, authorization, x-client-info, content-profile, accept-profile, prefer, range, x-supabase-api-version";
    let response = app
        .http
        .request(reqwest::Method::OPTIONS, app.url("/rest/v1/todos"))
        .header("Origin", "http://localhost:5173")
        .header("Access-Control-Request-Method", "PATCH")
        .header("Access-Control-Request-Headers", requested)
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success());
    let headers = response.headers();
    assert_eq!(headers["access-control-allow-origin"], "*");
    assert_eq!(headers["access-control-max-age"], "86400");
    assert!(headers.contains_key("x-request-id"), "{headers:?}");
    let allowed = headers["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_lowercase();
    for header in requested.split(", ") {
        assert!(allowed.contains(header), "{header} not allowed: {allowed}");
    }
    let methods = headers["access-control-allow-methods"].to_str().unwrap();
    for method in ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"] {
        assert!(methods.contains(method), "{method} missing from {methods}");
    }
    assert!(!headers.contains_key("access-control-allow-credentials"));
}

#[tokio::test]
async fn responses_expose_the_headers_supabase_js_reads() {
    let app = spawn_app().await;
    let response = app
        .http
        .get(app.url("/rest/v1/"))
        .header("Origin", "http://localhost:5173")
        .header("apikey", app.anon_key())
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
    let exposed = response.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .to_lowercase();
    for header in [
        "content-range",
        "x-supabase-api-version",
        "x-total-count",
        "link",
        "x-relay-error",
        "preference-applied",
        "location",
    ] {
        assert!(exposed.contains(header), "{header} not exposed: {exposed}");
    }
}

#[tokio::test]
async fn refusals_carry_cors_headers_too() {
    // Otherwise a browser sees a network error instead of the 401 body.
    let app = spawn_app().await;
    let response = app
        .http
        .get(app.url("/rest/v1/todos"))
        .header("Origin", "http://localhost:5173")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
}

#[tokio::test]
async fn requests_without_origin_get_the_wildcard_alone() {
    // No browser CORS check reads the rest: the expose list and `Vary: Origin` would be
    // ~370 bytes on every response. A wildcard origin needs no `Vary: Origin` (Fetch
    // standard, "CORS protocol and HTTP caches").
    let app = spawn_app().await;
    let response = app.rest(reqwest::Method::GET, "/").send().await.unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers();
    assert_eq!(headers["access-control-allow-origin"], "*");
    assert!(
        !headers.contains_key("access-control-expose-headers"),
        "{headers:?}"
    );
    let vary: Vec<_> = headers.get_all("vary").iter().collect();
    assert!(
        vary.iter()
            .all(|value| !value.to_str().unwrap().contains("Origin")),
        "{vary:?}"
    );
    assert!(headers.contains_key("x-request-id"), "{headers:?}");

    // A refusal too.
    let response = app.get("/rest/v1/todos").await;
    assert_eq!(response.status(), 401);
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
}
