//! auth/v1 sign-up, confirmation and password sign-in, on the wire.

use reqwest::Method;
use serde_json::{Value, json};

use crate::auth_support::*;
use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn signup_needs_confirmation_by_default_and_the_link_signs_in() {
    let app = spawn_app().await;
    let (status, user) = json_of(
        post(
            &app,
            "/signup",
            json!({"email": "Ana.Nueva@Colegio.cl", "password": PASSWORD, "data": {"nombre": "Ana"},
                   "gotrue_meta_security": {}, "code_challenge": null, "code_challenge_method": null}),
        )
        .await,
    )
    .await;
    assert_eq!(status, 200, "{user}");
    // No session: the bare user, unconfirmed, with GoTrue's fields.
    assert!(user.get("access_token").is_none());
    assert_eq!(user["email"], "ana.nueva@colegio.cl");
    assert_eq!(user["aud"], "authenticated");
    assert_eq!(user["role"], "authenticated");
    assert_eq!(user["phone"], "");
    assert!(user.get("email_confirmed_at").is_none());
    assert!(user["confirmation_sent_at"].is_string());
    assert_eq!(
        user["app_metadata"],
        json!({"provider": "email", "providers": ["email"]})
    );
    assert_eq!(user["user_metadata"]["nombre"], "Ana");
    assert_eq!(user["user_metadata"]["email_verified"], false);
    assert_eq!(user["identities"][0]["provider"], "email");
    assert_eq!(
        user["identities"][0]["identity_data"]["email"],
        "ana.nueva@colegio.cl"
    );
    assert_eq!(user["is_anonymous"], false);

    // Unconfirmed: the right password is still refused.
    let (status, body) = password_grant(&app, "ana.nueva@colegio.cl", PASSWORD).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("email_not_confirmed"))
    );

    // The Spanish mail in the dev inbox carries the link and the code.
    let mail = &inbox(&app, "ana.nueva@colegio.cl").await[0];
    assert_eq!(mail["subject"], "Confirma tu correo en Cielo");
    let link = mail["links"][0].as_str().unwrap();
    assert!(link.contains("/auth/v1/verify?token="), "{link}");
    assert!(link.contains("&type=signup&redirect_to="), "{link}");
    let stored: String = app
        .admin()
        .await
        .query_one(
            "SELECT confirmation_token FROM auth.users WHERE email = 'ana.nueva@colegio.cl'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    // The link carries SHA-224(email + otp), never the code itself.
    assert_eq!(stored.len(), 56);
    assert!(link.contains(&stored));

    let location = open_link(&app, link).await;
    assert!(location.starts_with("http://localhost:0#"), "{location}");
    let tokens = fragment(&location);
    assert!(tokens.contains_key("type"), "{location}");
    assert_eq!(tokens["type"], "signup");
    assert_eq!(tokens["token_type"], "bearer");
    assert_eq!(tokens["expires_in"], "3600");
    assert_eq!(tokens["sb"], "");
    let (status, me) = call(
        &app,
        Method::GET,
        "/user",
        Some(&tokens["access_token"]),
        None,
    )
    .await;
    assert_eq!(status, 200, "{me}");
    assert!(me["email_confirmed_at"].is_string());
    assert_eq!(me["user_metadata"]["email_verified"], true);

    // The link works once.
    let again = open_link(&app, link).await;
    assert_eq!(fragment(&again)["error_code"], "otp_expired", "{again}");
    let (status, session) = password_grant(&app, "ana.nueva@colegio.cl", PASSWORD).await;
    assert_eq!(status, 200, "{session}");

    let audit: i64 = app
        .admin()
        .await
        .query_one("SELECT count(*) FROM auth.audit_log_entries WHERE payload->>'action' IN ('user_confirmation_requested', 'user_signedup', 'login')", &[])
        .await
        .unwrap()
        .get(0);
    assert!(audit >= 3, "audit rows: {audit}");
}

#[tokio::test]
async fn duplicate_signups_do_not_reveal_accounts() {
    let app = spawn_app_with(&[("SMTP_MAX_FREQUENCY", "0")]).await;
    confirmed_user(&app, "beto.nuevo@colegio.cl").await;
    let (status, fake) = json_of(
        post(
            &app,
            "/signup",
            json!({"email": "beto.nuevo@colegio.cl", "password": "otra-clave-1"}),
        )
        .await,
    )
    .await;
    assert_eq!(status, 200);
    let real: Value = call(
        &app,
        Method::GET,
        "/user",
        Some(
            password_grant(&app, "beto.nuevo@colegio.cl", PASSWORD)
                .await
                .1["access_token"]
                .as_str()
                .unwrap(),
        ),
        None,
    )
    .await
    .1;
    assert_ne!(fake["id"], real["id"]);
    assert_eq!(fake["identities"], json!([]));
    assert!(fake.get("email_confirmed_at").is_none());

    let autoconfirm = spawn_app_with(&[("ENABLE_EMAIL_AUTOCONFIRM", "true")]).await;
    let (status, session) = json_of(
        post(
            &autoconfirm,
            "/signup",
            json!({"email": "c@x.cl", "password": PASSWORD}),
        )
        .await,
    )
    .await;
    assert_eq!(status, 200);
    assert!(session["access_token"].is_string());
    assert!(session["user"]["email_confirmed_at"].is_string());
    let (status, body) = json_of(
        post(
            &autoconfirm,
            "/signup",
            json!({"email": "c@x.cl", "password": PASSWORD}),
        )
        .await,
    )
    .await;
    assert_eq!(status, 422);
    assert_eq!(
        body,
        json!({"code": "user_already_exists", "message": "User already registered"})
    );
}

#[tokio::test]
async fn bad_input_gets_gotrue_errors() {
    let app = spawn_app().await;
    let (status, body) = json_of(
        post(
            &app,
            "/signup",
            json!({"email": "a@b.cl", "password": "corta"}),
        )
        .await,
    )
    .await;
    assert_eq!(status, 422);
    assert_eq!(
        body,
        json!({"code": "weak_password", "message": "Password should be at least 6 characters.",
               "weak_password": {"reasons": ["length"]}})
    );
    let (status, body) = json_of(
        post(
            &app,
            "/signup",
            json!({"email": "a@b.cl", "password": "x".repeat(73)}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("validation_failed"))
    );
    assert_eq!(
        body["message"],
        "Password cannot be longer than 72 characters"
    );
    let (status, body) = json_of(
        post(
            &app,
            "/signup",
            json!({"email": "no-es-correo", "password": PASSWORD}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("validation_failed"))
    );
    let (status, body) = json_of(post(&app, "/signup", json!({"email": "a@b.cl"})).await).await;
    assert_eq!(
        body["message"], "Signup requires a valid password",
        "{status}"
    );
    let (status, body) = json_of(
        auth(&app, Method::POST, "/signup")
            .header("content-type", "application/json")
            .body("{nope")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (400, Some("bad_json")));
    let (status, body) = json_of(
        auth(&app, Method::POST, "/signup")
            .header("content-type", "application/json")
            .body(format!(
                "{{\"email\":\"a@b.cl\",\"password\":\"{}\"}}",
                "x".repeat(2 << 20)
            ))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (413, Some("request_entity_too_large"))
    );
    // Anonymous sign-ins are off by default.
    let (status, body) = json_of(post(&app, "/signup", json!({"data": {}})).await).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("anonymous_provider_disabled"))
    );
}

#[tokio::test]
async fn errors_follow_the_api_version_header() {
    let app = spawn_app().await;
    let response = app
        .http
        .post(app.url("/auth/v1/token?grant_type=password"))
        .header("apikey", app.anon_key())
        .json(&json!({"email": "nadie@x.cl", "password": "x"}))
        .send()
        .await
        .unwrap();
    assert!(response.headers().get("x-supabase-api-version").is_none());
    assert_eq!(response.headers()["x-sb-error-code"], "invalid_credentials");
    let (status, body) = json_of(response).await;
    assert_eq!(status, 400);
    assert_eq!(
        body,
        json!({"code": 400, "error_code": "invalid_credentials", "msg": "Invalid login credentials"})
    );
    let response = post(
        &app,
        "/token?grant_type=password",
        json!({"email": "nadie@x.cl", "password": "x"}),
    )
    .await;
    assert_eq!(response.headers()["x-supabase-api-version"], "2024-01-01");
    let (_, body) = json_of(response).await;
    assert_eq!(
        body,
        json!({"code": "invalid_credentials", "message": "Invalid login credentials"})
    );
    let (status, body) = json_of(post(&app, "/token?grant_type=magic", json!({})).await).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (400, Some("unsupported_grant_type"))
    );
}

#[tokio::test]
async fn signups_can_be_disabled_and_metadata_cannot_raise_the_role() {
    let app = spawn_app_with(&[("DISABLE_SIGNUP", "true")]).await;
    let (status, body) = json_of(
        post(
            &app,
            "/signup",
            json!({"email": "a@b.cl", "password": PASSWORD}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("signup_disabled"))
    );

    let app = spawn_app_with(&[("ENABLE_EMAIL_AUTOCONFIRM", "true")]).await;
    let (_, session) = json_of(
        post(
            &app,
            "/signup",
            json!({"email": "e@b.cl", "password": PASSWORD, "data": {"role": "service_role"}}),
        )
        .await,
    )
    .await;
    let (_, claims) = decode(session["access_token"].as_str().unwrap());
    assert_eq!(claims["role"], "authenticated");
    assert_eq!(claims["user_metadata"]["role"], "service_role");
}

#[tokio::test]
async fn wrong_password_and_unknown_user_look_the_same() {
    let app = spawn_app_with(&[("ENABLE_EMAIL_AUTOCONFIRM", "true")]).await;
    post(
        &app,
        "/signup",
        json!({"email": "d@b.cl", "password": PASSWORD}),
    )
    .await;
    let wrong = password_grant(&app, "d@b.cl", "incorrecta").await;
    let unknown = password_grant(&app, "nadie@b.cl", "incorrecta").await;
    assert_eq!(wrong, unknown);
    assert_eq!(wrong.0, 400);
    assert_eq!(wrong.1["code"], "invalid_credentials");
}

#[tokio::test]
async fn anonymous_sign_in_when_enabled() {
    let app = spawn_app_with(&[("ENABLE_ANONYMOUS_USERS", "true")]).await;
    let (status, session) =
        json_of(post(&app, "/signup", json!({"data": {"curso": "1A"}})).await).await;
    assert_eq!(status, 200, "{session}");
    let (_, claims) = decode(session["access_token"].as_str().unwrap());
    assert_eq!(claims["is_anonymous"], true);
    assert_eq!(claims["role"], "authenticated");
    assert_eq!(claims["amr"][0]["method"], "anonymous");
    assert_eq!(session["user"]["is_anonymous"], true);
    assert_eq!(session["user"]["app_metadata"], json!({}));
    assert_eq!(session["user"]["user_metadata"], json!({"curso": "1A"}));
}
