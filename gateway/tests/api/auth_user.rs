//! auth/v1 user endpoints, logout scopes, recovery, OTP, e-mail change, reauthentication.

use reqwest::Method;
use serde_json::json;

use crate::auth_support::*;
use crate::helpers::{spawn_app, spawn_app_with};

fn token(session: &serde_json::Value) -> &str {
    session["access_token"].as_str().unwrap()
}

/// Makes every session older than GoTrue's 24 hours of grace, after which a password change
/// needs the reauthentication nonce.
async fn age_sessions(app: &crate::helpers::TestApp) {
    app.admin()
        .await
        .execute(
            "UPDATE auth.sessions SET created_at = now() - interval '2 days'",
            &[],
        )
        .await
        .unwrap();
}

#[tokio::test]
async fn user_endpoints_check_the_bearer_like_gotrue() {
    let app = spawn_app().await;
    let response = app
        .http
        .get(app.url("/auth/v1/user"))
        .header("apikey", app.anon_key())
        .header("authorization", "")
        .header("x-supabase-api-version", "2024-01-01")
        .send()
        .await
        .unwrap();
    // No user token: the apikey is never taken for one.
    let (status, body) = json_of(response).await;
    assert_eq!(
        (status, body["code"].as_str(), body["message"].as_str()),
        (
            401,
            Some("no_authorization"),
            Some("This endpoint requires a valid Bearer token")
        )
    );
    // auth-js sends the anon key as the bearer when there is no session: it has no `sub`.
    let (status, body) = call(&app, Method::GET, "/user", Some(&app.anon_key()), None).await;
    assert_eq!((status, body["code"].as_str()), (403, Some("bad_jwt")));
    assert_eq!(body["message"], "invalid claim: missing sub claim");
    let none = {
        use base64::Engine;
        let e = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        format!(
            "{}.{}.",
            e.encode(br#"{"alg":"none"}"#),
            e.encode(br#"{"sub":"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa","role":"service_role"}"#)
        )
    };
    let (status, body) = call(&app, Method::GET, "/user", Some(&none), None).await;
    assert_eq!((status, body["code"].as_str()), (403, Some("bad_jwt")));
    let expired = app.token(json!({"sub": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "role": "authenticated",
                                   "aud": "authenticated", "exp": chrono::Utc::now().timestamp() - 40}));
    let (status, body) = call(&app, Method::GET, "/user", Some(&expired), None).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("bad_jwt")),
        "{body}"
    );
    let skewed = app.token(json!({"sub": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "role": "authenticated",
                                  "aud": "authenticated", "exp": chrono::Utc::now().timestamp() - 10}));
    let (status, body) = call(&app, Method::GET, "/user", Some(&skewed), None).await;
    assert_eq!(
        (status, body["email"].as_str()),
        (200, Some("ana@colegio.cl")),
        "{body}"
    );
    let missing = app.token(json!({"sub": "dddddddd-dddd-4ddd-8ddd-dddddddddddd", "role": "authenticated", "aud": "authenticated"}));
    let (status, body) = call(&app, Method::GET, "/user", Some(&missing), None).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("user_not_found"))
    );
    let (status, body) = call(
        &app,
        Method::POST,
        "/logout?scope=everything",
        Some(&skewed),
        None,
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("validation_failed"))
    );
}

#[tokio::test]
async fn logout_scopes_end_the_right_sessions() {
    let app = spawn_app_with(&[("ENABLE_EMAIL_AUTOCONFIRM", "true")]).await;
    post(
        &app,
        "/signup",
        json!({"email": "scopes@x.cl", "password": PASSWORD}),
    )
    .await;
    let sessions: Vec<_> = futures_util::future::join_all(
        (0..4).map(|_| password_grant(&app, "scopes@x.cl", PASSWORD)),
    )
    .await;
    let [a, b, c, d] = [
        &sessions[0].1,
        &sessions[1].1,
        &sessions[2].1,
        &sessions[3].1,
    ];
    let alive = |session: &serde_json::Value| {
        let app = &app;
        let access = token(session).to_owned();
        async move { call(app, Method::GET, "/user", Some(&access), None).await.0 == 200 }
    };
    assert_eq!(
        call(
            &app,
            Method::POST,
            "/logout?scope=local",
            Some(token(a)),
            None
        )
        .await
        .0,
        204
    );
    assert!(!alive(a).await);
    assert!(alive(b).await);
    assert_eq!(
        call(
            &app,
            Method::POST,
            "/logout?scope=others",
            Some(token(b)),
            None
        )
        .await
        .0,
        204
    );
    assert!(alive(b).await);
    assert!(!alive(c).await);
    assert!(!alive(d).await);
    let (status, body) = refresh(&app, c["refresh_token"].as_str().unwrap()).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("refresh_token_not_found"))
    );
    assert_eq!(
        call(&app, Method::POST, "/logout", Some(token(b)), None)
            .await
            .0,
        204
    );
    assert!(!alive(b).await);
}

#[tokio::test]
async fn recovery_link_signs_in_for_a_password_change() {
    let app = spawn_app_with(&[("SMTP_MAX_FREQUENCY", "0")]).await;
    confirmed_user(&app, "olvido@x.cl").await;
    // Unknown addresses get the same answer.
    let (status, body) =
        json_of(post(&app, "/recover", json!({"email": "nadie@x.cl"})).await).await;
    assert_eq!((status, body), (200, json!({})));
    assert!(inbox(&app, "nadie@x.cl").await.is_empty());
    let (status, body) =
        json_of(post(&app, "/recover", json!({"email": "olvido@x.cl"})).await).await;
    assert_eq!((status, body), (200, json!({})));
    let mail = &inbox(&app, "olvido@x.cl").await[0];
    assert_eq!(mail["subject"], "Restablece tu contraseña de Cielo");
    let location = open_link(&app, mail["links"][0].as_str().unwrap()).await;
    let tokens = fragment(&location);
    assert_eq!(tokens["type"], "recovery");
    let access = tokens["access_token"].clone();
    let (status, body) = call(
        &app,
        Method::PUT,
        "/user",
        Some(&access),
        Some(json!({"password": PASSWORD})),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("same_password"))
    );
    let (status, user) = call(
        &app,
        Method::PUT,
        "/user",
        Some(&access),
        Some(json!({"password": "nueva-clave-456", "data": {"nombre": "Olga"}})),
    )
    .await;
    assert_eq!(status, 200, "{user}");
    assert_eq!(user["user_metadata"]["nombre"], "Olga");
    assert_eq!(password_grant(&app, "olvido@x.cl", PASSWORD).await.0, 400);
    assert_eq!(
        password_grant(&app, "olvido@x.cl", "nueva-clave-456")
            .await
            .0,
        200
    );
    let (status, body) = call(
        &app,
        Method::PUT,
        "/user",
        Some(&access),
        Some(json!({"app_metadata": {"role": "admin"}})),
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (403, Some("not_admin")));
}

#[tokio::test]
async fn email_otp_signs_in_once() {
    let app = spawn_app().await;
    confirmed_user(&app, "codigo@x.cl").await;
    let (status, _) = json_of(
        post(
            &app,
            "/otp",
            json!({"email": "codigo@x.cl", "create_user": true}),
        )
        .await,
    )
    .await;
    assert_eq!(status, 200);
    let mail = &inbox(&app, "codigo@x.cl").await[0];
    assert_eq!(mail["subject"], "Tu enlace para entrar a Cielo");
    let code = latest_code(&app, "codigo@x.cl").await;
    let (status, body) = json_of(
        post(
            &app,
            "/verify",
            json!({"type": "email", "email": "codigo@x.cl", "token": "000000"}),
        )
        .await,
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (403, Some("otp_expired")));
    let (status, session) = json_of(
        post(
            &app,
            "/verify",
            json!({"type": "email", "email": "codigo@x.cl", "token": code}),
        )
        .await,
    )
    .await;
    assert_eq!(status, 200, "{session}");
    let (_, claims) = decode(token(&session));
    assert_eq!(claims["amr"][0]["method"], "otp");
    let (status, body) = json_of(
        post(
            &app,
            "/verify",
            json!({"type": "email", "email": "codigo@x.cl", "token": code}),
        )
        .await,
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (403, Some("otp_expired")));
    // A second mail within SMTP_MAX_FREQUENCY (60 s) is refused.
    let (status, body) = json_of(post(&app, "/otp", json!({"email": "codigo@x.cl"})).await).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (429, Some("over_email_send_rate_limit"))
    );
    // create_user false for an unknown address.
    let (status, body) = json_of(
        post(
            &app,
            "/otp",
            json!({"email": "nuevo@x.cl", "create_user": false}),
        )
        .await,
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (422, Some("otp_disabled")));
}

#[tokio::test]
async fn mails_per_address_and_hour_are_limited() {
    let app = spawn_app_with(&[("SMTP_MAX_FREQUENCY", "0"), ("RATE_LIMIT_EMAIL_SENT", "2")]).await;
    for _ in 0..2 {
        let (status, _) = json_of(post(&app, "/otp", json!({"email": "muchos@x.cl"})).await).await;
        assert_eq!(status, 200);
    }
    let (status, body) = json_of(post(&app, "/otp", json!({"email": "muchos@x.cl"})).await).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (429, Some("over_email_send_rate_limit"))
    );
    assert_eq!(inbox(&app, "muchos@x.cl").await.len(), 2);
}

#[tokio::test]
async fn email_change_needs_both_addresses() {
    let app = spawn_app().await;
    let session = confirmed_user(&app, "viejo@x.cl").await;
    let (status, user) = call(
        &app,
        Method::PUT,
        "/user",
        Some(token(&session)),
        Some(json!({"email": "nuevo@x.cl"})),
    )
    .await;
    assert_eq!(status, 200, "{user}");
    assert_eq!(user["email"], "viejo@x.cl");
    assert_eq!(user["new_email"], "nuevo@x.cl");
    let to_new = latest_link(&app, "nuevo@x.cl").await;
    let to_old = inbox(&app, "viejo@x.cl").await[0]["links"][0]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(to_new, to_old);
    let first = open_link(&app, &to_new).await;
    assert_eq!(
        fragment(&first)["message"],
        "Confirmation link accepted. Please proceed to confirm link sent to the other email"
    );
    let second = open_link(&app, &to_old).await;
    let tokens = fragment(&second);
    assert_eq!(tokens["type"], "email_change", "{second}");
    let (_, me) = call(
        &app,
        Method::GET,
        "/user",
        Some(&tokens["access_token"]),
        None,
    )
    .await;
    assert_eq!(me["email"], "nuevo@x.cl");
    assert!(me.get("new_email").is_none());
    assert_eq!(password_grant(&app, "nuevo@x.cl", PASSWORD).await.0, 200);
    // An address already in use is refused.
    confirmed_user(&app, "otra@x.cl").await;
    let (status, body) = call(
        &app,
        Method::PUT,
        "/user",
        Some(&tokens["access_token"]),
        Some(json!({"email": "otra@x.cl"})),
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (422, Some("email_exists")));
}

#[tokio::test]
async fn secure_password_change_needs_the_reauthentication_nonce() {
    let app =
        spawn_app_with(&[("SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", "true")]).await;
    let session = confirmed_user(&app, "seguro@x.cl").await;
    age_sessions(&app).await;
    let access = token(&session);
    let (status, body) = call(
        &app,
        Method::PUT,
        "/user",
        Some(access),
        Some(json!({"password": "otra-clave-789"})),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("reauthentication_needed"))
    );
    let (status, body) = call(&app, Method::GET, "/reauthenticate", Some(access), None).await;
    assert_eq!((status, body), (200, json!({})));
    let mail = &inbox(&app, "seguro@x.cl").await[0];
    let nonce = latest_code(&app, "seguro@x.cl").await;
    assert!(mail["subject"].as_str().unwrap().starts_with(&nonce));
    let (status, body) = call(
        &app,
        Method::PUT,
        "/user",
        Some(access),
        Some(json!({"password": "otra-clave-789", "nonce": "111111"})),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("reauthentication_not_valid"))
    );
    let (status, body) = call(
        &app,
        Method::PUT,
        "/user",
        Some(access),
        Some(json!({"password": "otra-clave-789", "nonce": nonce})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        password_grant(&app, "seguro@x.cl", "otra-clave-789")
            .await
            .0,
        200
    );
}

#[tokio::test]
async fn magic_link_with_pkce_and_settings() {
    use base64::Engine;
    use sha2::Digest;
    let app = spawn_app().await;
    confirmed_user(&app, "magia@x.cl").await;
    let verifier = "v".repeat(64);
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(verifier.as_bytes()));
    let (status, _) = json_of(post(&app, "/otp", json!({"email": "magia@x.cl", "code_challenge": challenge, "code_challenge_method": "s256"})).await).await;
    assert_eq!(status, 200);
    let location = open_link(&app, &latest_link(&app, "magia@x.cl").await).await;
    let code = location
        .split("?code=")
        .nth(1)
        .unwrap_or_else(|| panic!("{location}"));
    let (status, session) = json_of(
        post(
            &app,
            "/token?grant_type=pkce",
            json!({"auth_code": code, "code_verifier": verifier}),
        )
        .await,
    )
    .await;
    assert_eq!(status, 200, "{session}");
    let (_, claims) = decode(token(&session));
    assert_eq!(claims["amr"][0]["method"], "magiclink");

    let (status, settings) = call(&app, Method::GET, "/settings", None, None).await;
    assert_eq!(status, 200);
    assert_eq!(settings["external"]["email"], true);
    assert_eq!(settings["mailer_autoconfirm"], false);
    assert_eq!(settings["disable_signup"], false);
}

/// How many of `answers` had each status and error code, sorted.
fn tally(answers: &[(u16, serde_json::Value)]) -> Vec<(u16, String)> {
    let mut seen: Vec<_> = answers
        .iter()
        .map(|(status, body)| (*status, body["code"].as_str().unwrap_or("").to_owned()))
        .collect();
    seen.sort();
    seen
}

/// One `ok` answer and `times - 1` of `(status, code)`, sorted as `tally` sorts.
fn once_then(times: usize, ok: u16, status: u16, code: &str) -> Vec<(u16, String)> {
    let mut seen = vec![(ok, String::new())];
    seen.extend(std::iter::repeat_n((status, code.to_owned()), times - 1));
    seen.sort();
    seen
}

// A double-clicked "send me the link" sends the request twice at once. Each answer must be
// the one it would get after the other: one mail (a second one's token would replace the
// first's, whose link would then fail) and the frequency limit for the rest; and a
// reauthentication nonce changes the password once.
#[tokio::test]
async fn mails_and_nonces_requested_several_times_at_once_are_sent_and_spent_once() {
    const TIMES: usize = 8;
    let app = spawn_app_with(&[
        ("SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", "true"),
        ("RATE_LIMIT_EMAIL_SENT", "1000"),
    ])
    .await;
    let address = "doble@x.cl";
    let session = confirmed_user(&app, address).await;
    let access = token(&session);
    let mails = || async { inbox(&app, address).await.len() };
    let too_soon = once_then(TIMES, 200, 429, "over_email_send_rate_limit");

    let before = mails().await;
    let answers =
        futures_util::future::join_all((0..TIMES).map(|_| async {
            json_of(post(&app, "/recover", json!({"email": address})).await).await
        }))
        .await;
    assert_eq!(tally(&answers), too_soon, "recover");
    assert_eq!(mails().await, before + 1, "recovery mails");

    let before = mails().await;
    let answers = futures_util::future::join_all(
        (0..TIMES).map(|_| call(&app, Method::GET, "/reauthenticate", Some(access), None)),
    )
    .await;
    assert_eq!(tally(&answers), too_soon, "reauthenticate");
    assert_eq!(mails().await, before + 1, "reauthentication mails");

    age_sessions(&app).await;
    let nonce = latest_code(&app, address).await;
    let answers = futures_util::future::join_all((0..TIMES).map(|i| {
        let body = json!({"password": format!("clave-nueva-{i}-789"), "nonce": nonce});
        call(&app, Method::PUT, "/user", Some(access), Some(body))
    }))
    .await;
    assert_eq!(
        tally(&answers),
        once_then(TIMES, 200, 422, "reauthentication_not_valid"),
        "password changes with one nonce"
    );

    let before = mails().await;
    let answers = futures_util::future::join_all((0..TIMES).map(|i| {
        let body = json!({"email": format!("nuevo-{i}@x.cl")});
        call(&app, Method::PUT, "/user", Some(access), Some(body))
    }))
    .await;
    assert_eq!(tally(&answers), too_soon, "e-mail changes");
    // Secure e-mail change (on by default) mails the current address too.
    assert_eq!(
        mails().await,
        before + 1,
        "e-mail change mails to the current address"
    );
    let mut sent = 0;
    for i in 0..TIMES {
        sent += inbox(&app, &format!("nuevo-{i}@x.cl")).await.len();
    }
    assert_eq!(sent, 1, "e-mail change mails");
}
