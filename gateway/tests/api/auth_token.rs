//! auth/v1 token grants: claims, refresh rotation and reuse, PKCE, rate limits.

use reqwest::Method;
use serde_json::json;

use crate::auth_support::*;
use crate::helpers::spawn_app_with;

const AUTOCONFIRM: (&str, &str) = ("ENABLE_EMAIL_AUTOCONFIRM", "true");

async fn session_for(app: &crate::helpers::TestApp, email: &str) -> serde_json::Value {
    let (status, session) = json_of(
        post(
            app,
            "/signup",
            json!({"email": email, "password": PASSWORD}),
        )
        .await,
    )
    .await;
    assert_eq!(status, 200, "{session}");
    session
}

#[tokio::test]
async fn access_tokens_carry_gotrues_claims() {
    let app = spawn_app_with(&[AUTOCONFIRM]).await;
    session_for(&app, "claims@x.cl").await;
    let (status, session) = password_grant(&app, "claims@x.cl", PASSWORD).await;
    assert_eq!(status, 200);
    assert_eq!(session["token_type"], "bearer");
    assert_eq!(session["expires_in"], 3600);
    assert_eq!(session["refresh_token"].as_str().unwrap().len(), 32);
    let (header, claims) = decode(session["access_token"].as_str().unwrap());
    assert_eq!(header["alg"], "HS256");
    assert!(header.get("kid").is_none());
    let mut keys: Vec<&str> = claims
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "aal",
            "amr",
            "app_metadata",
            "aud",
            "email",
            "exp",
            "iat",
            "is_anonymous",
            "iss",
            "phone",
            "role",
            "session_id",
            "sub",
            "user_metadata"
        ]
    );
    assert_eq!(claims["aud"], "authenticated");
    assert_eq!(claims["iss"], "http://localhost:0/auth/v1");
    assert_eq!(claims["email"], "claims@x.cl");
    assert_eq!(claims["phone"], "");
    assert_eq!(claims["role"], "authenticated");
    assert_eq!(claims["aal"], "aal1");
    assert_eq!(claims["is_anonymous"], false);
    assert_eq!(
        claims["app_metadata"],
        json!({"provider": "email", "providers": ["email"]})
    );
    assert_eq!(
        claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
        3600
    );
    assert_eq!(session["expires_at"], claims["exp"]);
    assert_eq!(claims["sub"], session["user"]["id"]);
    assert_eq!(claims["amr"][0]["method"], "password");
    assert!(claims["amr"][0]["timestamp"].is_i64());
    // The session exists, and signing out kills the token at once.
    let token = session["access_token"].as_str().unwrap();
    assert_eq!(
        call(&app, Method::GET, "/user", Some(token), None).await.0,
        200
    );
    assert_eq!(
        call(&app, Method::POST, "/logout", Some(token), None)
            .await
            .0,
        204
    );
    let (status, body) = call(&app, Method::GET, "/user", Some(token), None).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("session_not_found"))
    );
}

#[tokio::test]
async fn refresh_tokens_rotate_and_reuse_revokes_the_session() {
    // No reuse interval, so the test needs no waiting.
    let app = spawn_app_with(&[AUTOCONFIRM, ("SECURITY_REFRESH_TOKEN_REUSE_INTERVAL", "0")]).await;
    let first = session_for(&app, "rot@x.cl").await;
    let r1 = first["refresh_token"].as_str().unwrap().to_owned();
    let (status, second) = refresh(&app, &r1).await;
    assert_eq!(status, 200, "{second}");
    let r2 = second["refresh_token"].as_str().unwrap().to_owned();
    assert_ne!(r1, r2);
    assert_eq!(second["user"]["email"], "rot@x.cl");
    let (_, claims) = decode(second["access_token"].as_str().unwrap());
    let (_, first_claims) = decode(first["access_token"].as_str().unwrap());
    assert_eq!(claims["session_id"], first_claims["session_id"]);

    // The direct parent of the current token still answers the current token (a client
    // that lost the previous answer), without rotating again.
    let (status, again) = refresh(&app, &r1).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["refresh_token"], r2.as_str());

    let (_, third) = refresh(&app, &r2).await;
    let r3 = third["refresh_token"].as_str().unwrap().to_owned();
    // R1 is now two rotations old and past the reuse interval: theft. The session ends.
    let (status, body) = refresh(&app, &r1).await;
    assert_eq!(status, 400);
    assert_eq!(
        body,
        json!({"code": "refresh_token_already_used", "message": "Invalid Refresh Token: Already Used"})
    );
    let (status, body) = refresh(&app, &r3).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("refresh_token_not_found"))
    );
    let token = third["access_token"].as_str().unwrap();
    let (status, body) = call(&app, Method::GET, "/user", Some(token), None).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("session_not_found"))
    );

    // Tokens are stored hashed.
    let stored: i64 = app
        .admin()
        .await
        .query_one(
            "SELECT count(*) FROM auth.refresh_tokens WHERE token = $1",
            &[&r1],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(stored, 0);
    let (status, body) = refresh(&app, "short").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("validation_failed"))
    );
    let (status, body) = refresh(&app, "no-such-refresh-token-at-all").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("refresh_token_not_found"))
    );
}

#[tokio::test]
async fn a_refresh_records_what_gotrue_records_and_refuses_banned_users_and_ended_sessions() {
    let app = spawn_app_with(&[AUTOCONFIRM]).await;
    let first = session_for(&app, "registro@x.cl").await;
    let r1 = first["refresh_token"].as_str().unwrap();
    let (_, first_claims) = decode(first["access_token"].as_str().unwrap());
    let (status, second) = json_of(
        auth(&app, Method::POST, "/token?grant_type=refresh_token")
            .header("user-agent", "Cielo-Test/1.0")
            .json(&json!({"refresh_token": r1}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{second}");
    let (_, claims) = decode(second["access_token"].as_str().unwrap());
    for claim in ["sub", "session_id", "aal", "amr", "email", "role"] {
        assert_eq!(claims[claim], first_claims[claim], "{claim}");
    }
    assert_eq!(second["user"]["id"], first["user"]["id"]);
    assert_eq!(second["user"]["identities"], first["user"]["identities"]);

    let db = app.admin().await;
    let session_id = claims["session_id"].as_str().unwrap();
    let row = db
        .query_one(
            "SELECT count(*) FILTER (WHERE revoked),
                    count(*) FILTER (WHERE revoked IS NOT TRUE AND parent IS NOT NULL),
                    (SELECT user_agent FROM auth.sessions WHERE id::text = $1),
                    (SELECT refreshed_at IS NOT NULL FROM auth.sessions WHERE id::text = $1)
               FROM auth.refresh_tokens WHERE session_id::text = $1",
            &[&session_id],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, i64>(0), 1, "the presented token is revoked");
    assert_eq!(row.get::<_, i64>(1), 1, "its child is the live token");
    assert_eq!(
        row.get::<_, Option<String>>(2).as_deref(),
        Some("Cielo-Test/1.0")
    );
    assert!(row.get::<_, bool>(3));
    let audit: Vec<(String, String)> = db
        .query(
            "SELECT payload->>'action', payload->>'actor_username' FROM auth.audit_log_entries
              WHERE payload->>'log_type' = 'token' ORDER BY payload->>'action'",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    assert_eq!(
        audit,
        [
            ("token_refreshed".to_owned(), "registro@x.cl".to_owned()),
            ("token_revoked".to_owned(), "registro@x.cl".to_owned())
        ]
    );

    // Refused grants write nothing: the live token stays live.
    let r2 = second["refresh_token"].as_str().unwrap();
    let user_id = claims["sub"].as_str().unwrap();
    let set_user = |sql: &'static str| {
        let db = &db;
        async move { db.execute(sql, &[&user_id]).await.unwrap() }
    };
    set_user("UPDATE auth.users SET banned_until = now() + interval '1 hour' WHERE id::text = $1")
        .await;
    let (status, body) = refresh(&app, r2).await;
    assert_eq!((status, body["code"].as_str()), (400, Some("user_banned")));
    set_user("UPDATE auth.users SET banned_until = NULL WHERE id::text = $1").await;
    set_user(
        "UPDATE auth.sessions SET not_after = now() - interval '1 second' WHERE user_id::text = $1",
    )
    .await;
    let (status, body) = refresh(&app, r2).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("session_expired"))
    );
    set_user("UPDATE auth.sessions SET not_after = NULL WHERE user_id::text = $1").await;
    let (status, third) = refresh(&app, r2).await;
    assert_eq!(status, 200, "{third}");
    assert_ne!(third["refresh_token"], second["refresh_token"]);
}

#[tokio::test]
async fn racing_refreshes_within_the_reuse_interval_get_the_same_token() {
    let app = spawn_app_with(&[AUTOCONFIRM]).await;
    let session = session_for(&app, "race@x.cl").await;
    let r1 = session["refresh_token"].as_str().unwrap();
    let (a, b) = tokio::join!(refresh(&app, r1), refresh(&app, r1));
    assert_eq!((a.0, b.0), (200, 200), "{} {}", a.1, b.1);
    assert_eq!(a.1["refresh_token"], b.1["refresh_token"]);
    // Two rotations later R1 is still inside the 10 s interval: the current token.
    let r2 = a.1["refresh_token"].as_str().unwrap();
    let (_, c) = refresh(&app, r2).await;
    let (status, d) = refresh(&app, r1).await;
    assert_eq!(status, 200, "{d}");
    assert_eq!(d["refresh_token"], c["refresh_token"]);
}

#[tokio::test]
async fn token_requests_are_rate_limited_per_client_and_address() {
    let app = spawn_app_with(&[AUTOCONFIRM, ("RATE_LIMIT_TOKEN_REFRESH", "3")]).await;
    for _ in 0..3 {
        let response = post(
            &app,
            "/token?grant_type=refresh_token",
            json!({"refresh_token": "abcdefghijklmnop"}),
        )
        .await;
        assert_eq!(response.status(), 400);
    }
    // A client-supplied X-Forwarded-For does not open a new bucket.
    let response = auth(&app, Method::POST, "/token?grant_type=refresh_token")
        .header("x-forwarded-for", "203.0.113.9")
        .json(&json!({"refresh_token": "abcdefghijklmnop"}))
        .send()
        .await
        .unwrap();
    let (status, body) = json_of(response).await;
    assert_eq!(status, 429);
    assert_eq!(
        body,
        json!({"code": "over_request_rate_limit", "message": "Request rate limit reached"})
    );
}

#[tokio::test]
async fn pkce_sign_up_link_gives_a_code_for_the_verifier() {
    use base64::Engine;
    use sha2::Digest;
    let app = spawn_app_with(&[("ADDITIONAL_REDIRECT_URLS", "http://app.cielo.cl/**")]).await;
    let verifier = "a".repeat(56) + &"b".repeat(56);
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(verifier.as_bytes()));
    let response = auth(&app, Method::POST, "/signup")
        .query(&[("redirect_to", "http://app.cielo.cl/auth/callback")])
        .json(&json!({"email": "pkce@x.cl", "password": PASSWORD,
                      "code_challenge": challenge, "code_challenge_method": "s256"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let link = latest_link(&app, "pkce@x.cl").await;
    assert!(link.contains("token=pkce_"), "{link}");
    assert!(
        link.contains("redirect_to=http://app.cielo.cl/auth/callback"),
        "{link}"
    );
    let location = open_link(&app, &link).await;
    let code = location
        .strip_prefix("http://app.cielo.cl/auth/callback?code=")
        .unwrap_or_else(|| panic!("{location}"))
        .to_owned();
    let exchange = |verifier: String| {
        let app = &app;
        let code = code.clone();
        async move {
            json_of(
                post(
                    app,
                    "/token?grant_type=pkce",
                    json!({"auth_code": code, "code_verifier": verifier}),
                )
                .await,
            )
            .await
        }
    };
    let (status, body) = exchange("wrong-verifier".repeat(4)).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("bad_code_verifier"))
    );
    let (status, session) = exchange(verifier.clone()).await;
    assert_eq!(status, 200, "{session}");
    assert!(session["user"]["email_confirmed_at"].is_string());
    let (_, claims) = decode(session["access_token"].as_str().unwrap());
    assert_eq!(claims["amr"][0]["method"], "email/signup");
    // One use only.
    let (status, body) = exchange(verifier).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("flow_state_not_found"))
    );
    // A redirect outside the allow-list falls back to the site URL.
    let response = auth(&app, Method::POST, "/recover")
        .query(&[("redirect_to", "https://evil.example/steal")])
        .json(&json!({"email": "pkce@x.cl"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let link = latest_link(&app, "pkce@x.cl").await;
    assert!(link.ends_with("redirect_to=http://localhost:0"), "{link}");
}

/// Sends `request` while an admin transaction holds the session's row, as a sign-out does
/// when it deletes the session; then the transaction deletes the session's tokens and the
/// session (what the sign-out's cascade does, in that order) and commits. The general grant
/// retries on a held row instead of waiting, hence a pause rather than a lock wait.
async fn signed_out_meanwhile<T>(
    app: &crate::helpers::TestApp,
    session_id: &str,
    request: impl std::future::Future<Output = T>,
) -> T {
    deleted_meanwhile(
        app,
        Wait::For(std::time::Duration::from_millis(300)),
        "auth.sessions",
        session_id,
        &[("auth.refresh_tokens", "session_id")],
        request,
    )
    .await
}

// A refresh during a sign-out of the same session: each takes the session's row before its
// tokens, so one waits for the other (it was the reverse in the refresh, and PostgreSQL
// aborted one of them as a deadlock: a 500 or a failed sign-out).
#[tokio::test]
async fn a_refresh_during_a_sign_out_of_its_session_waits_for_it() {
    let app = spawn_app_with(&[AUTOCONFIRM, ("SECURITY_REFRESH_TOKEN_REUSE_INTERVAL", "0")]).await;
    let code = |(status, body): (u16, serde_json::Value)| {
        (status, body["code"].as_str().map(str::to_owned))
    };
    let gone = (400, Some("refresh_token_not_found".to_owned()));

    // A live token: the one-statement rotation.
    let session = session_for(&app, "salida@x.cl").await;
    let (_, claims) = decode(session["access_token"].as_str().unwrap());
    let session_id = claims["session_id"].as_str().unwrap().to_owned();
    let token = session["refresh_token"].as_str().unwrap();
    let answer = signed_out_meanwhile(&app, &session_id, refresh(&app, token)).await;
    assert_eq!(code(answer), gone, "live token");

    // A rotated token presented again: the general grant, which would end the session.
    let (_, session) = password_grant(&app, "salida@x.cl", PASSWORD).await;
    let (_, claims) = decode(session["access_token"].as_str().unwrap());
    let session_id = claims["session_id"].as_str().unwrap().to_owned();
    let spent = session["refresh_token"].as_str().unwrap().to_owned();
    assert_eq!(refresh(&app, &spent).await.0, 200);
    let answer = signed_out_meanwhile(&app, &session_id, refresh(&app, &spent)).await;
    assert_eq!(code(answer), gone, "reused token");
}
