//! auth/v1 TOTP multi-factor authentication: enrollment, challenges, verification with
//! codes computed here as an authenticator app would, assurance levels, unenrollment and
//! the admin's factor endpoints, with GoTrue's error codes.

use reqwest::Method;
use serde_json::{Value, json};

use crate::auth_support::*;
use crate::helpers::{TestApp, spawn_app_with};

fn token(session: &Value) -> &str {
    session["access_token"].as_str().unwrap()
}

/// The current code of an enrolled factor's secret, as an authenticator app shows it.
fn current_code(secret: &str) -> String {
    let now = chrono::Utc::now().timestamp() as u64;
    gateway::auth_v1::mfa::totp_code(secret, now).unwrap()
}

/// A code that is not valid now (nor one step either way).
fn wrong_code(secret: &str) -> String {
    let now = chrono::Utc::now().timestamp() as u64;
    let valid: Vec<String> = [now - 30, now, now + 30]
        .iter()
        .map(|t| gateway::auth_v1::mfa::totp_code(secret, *t).unwrap())
        .collect();
    (0..)
        .map(|n| format!("{:06}", (n * 7919) % 1_000_000))
        .find(|code| !valid.contains(code))
        .unwrap()
}

async fn app() -> TestApp {
    spawn_app_with(&[("ENABLE_EMAIL_AUTOCONFIRM", "true")]).await
}

/// A challenge of `factor` answered with its current code: the session's step up to aal2.
async fn challenge_and_verify(
    app: &TestApp,
    access: &str,
    factor: &str,
    secret: &str,
) -> (u16, Value) {
    let (_, created) = challenge(app, access, factor).await;
    verify(
        app,
        access,
        factor,
        created["id"].as_str().unwrap(),
        &current_code(secret),
    )
    .await
}

/// Signs up (autoconfirm) and returns the session.
async fn signed_up(app: &TestApp, email: &str) -> Value {
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

async fn enroll(app: &TestApp, access: &str, body: Value) -> (u16, Value) {
    call(app, Method::POST, "/factors", Some(access), Some(body)).await
}

async fn challenge(app: &TestApp, access: &str, factor: &str) -> (u16, Value) {
    call(
        app,
        Method::POST,
        &format!("/factors/{factor}/challenge"),
        Some(access),
        Some(json!({})),
    )
    .await
}

async fn verify(
    app: &TestApp,
    access: &str,
    factor: &str,
    challenge_id: &str,
    code: &str,
) -> (u16, Value) {
    call(
        app,
        Method::POST,
        &format!("/factors/{factor}/verify"),
        Some(access),
        Some(json!({"challenge_id": challenge_id, "code": code})),
    )
    .await
}

fn error_of(result: &(u16, Value)) -> (u16, Option<&str>) {
    (result.0, result.1["code"].as_str())
}

/// Enrolls a TOTP factor and verifies it; returns (factor id, secret, aal2 session).
async fn verified_factor(app: &TestApp, access: &str) -> (String, String, Value) {
    let (status, enrolled) = enroll(app, access, json!({"factor_type": "totp"})).await;
    assert_eq!(status, 200, "{enrolled}");
    let factor = enrolled["id"].as_str().unwrap().to_owned();
    let secret = enrolled["totp"]["secret"].as_str().unwrap().to_owned();
    let (_, created) = challenge(app, access, &factor).await;
    let (status, session) = verify(
        app,
        access,
        &factor,
        created["id"].as_str().unwrap(),
        &current_code(&secret),
    )
    .await;
    assert_eq!(status, 200, "{session}");
    (factor, secret, session)
}

#[tokio::test]
async fn enroll_challenge_verify_raises_the_session_to_aal2() {
    let app = app().await;
    let session = signed_up(&app, "mfa@colegio.cl").await;
    let access = token(&session).to_owned();
    // Another aal1 session of the same user, ended by the verification.
    let (_, other) = password_grant(&app, "mfa@colegio.cl", PASSWORD).await;

    let (status, enrolled) = enroll(
        &app,
        &access,
        json!({"factor_type": "totp", "friendly_name": "Teléfono"}),
    )
    .await;
    assert_eq!(status, 200, "{enrolled}");
    assert_eq!(enrolled["type"], "totp");
    assert_eq!(enrolled["friendly_name"], "Teléfono");
    let factor = enrolled["id"].as_str().unwrap().to_owned();
    let secret = enrolled["totp"]["secret"].as_str().unwrap().to_owned();
    assert_eq!(secret.len(), 32, "160 bits in base32: {secret}");
    assert_eq!(
        enrolled["totp"]["uri"],
        format!(
            "otpauth://totp/localhost:0:mfa@colegio.cl?algorithm=SHA1&digits=6&issuer=localhost:0&period=30&secret={secret}"
        )
    );
    let qr = enrolled["totp"]["qr_code"].as_str().unwrap();
    assert!(qr.starts_with("<?xml") && qr.contains("<svg"), "{qr}");

    // The user object lists the factor, unverified, without its secret.
    let (_, me) = call(&app, Method::GET, "/user", Some(&access), None).await;
    let listed = &me["factors"][0];
    assert_eq!(listed["id"], factor.as_str());
    assert_eq!(listed["status"], "unverified");
    assert_eq!(listed["factor_type"], "totp");
    assert_eq!(listed["friendly_name"], "Teléfono");
    assert_eq!(listed["last_challenged_at"], Value::Null);
    assert!(listed.get("secret").is_none(), "{listed}");

    let (status, created) = challenge(&app, &access, &factor).await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["type"], "totp");
    let challenge_id = created["id"].as_str().unwrap().to_owned();
    let expires_at = created["expires_at"].as_i64().unwrap();
    let in_five_minutes = chrono::Utc::now().timestamp() + 300;
    assert!((in_five_minutes - expires_at).abs() <= 5, "{created}");

    // A wrong code fails and leaves the challenge usable.
    let wrong = verify(&app, &access, &factor, &challenge_id, &wrong_code(&secret)).await;
    assert_eq!(error_of(&wrong), (422, Some("mfa_verification_failed")));
    assert_eq!(wrong.1["message"], "Invalid TOTP code entered");

    let (status, upgraded) = verify(
        &app,
        &access,
        &factor,
        &challenge_id,
        &current_code(&secret),
    )
    .await;
    assert_eq!(status, 200, "{upgraded}");
    let (_, claims) = decode(token(&upgraded));
    assert_eq!(claims["aal"], "aal2");
    assert_eq!(claims["amr"][0]["method"], "totp");
    assert_eq!(claims["amr"][1]["method"], "password");
    assert_eq!(claims["session_id"], decode(&access).1["session_id"]);
    assert_eq!(upgraded["user"]["factors"][0]["status"], "verified");
    assert!(upgraded["user"]["factors"][0]["last_challenged_at"].is_string());
    assert_ne!(upgraded["refresh_token"], session["refresh_token"]);

    // A used challenge cannot be verified again.
    let again = verify(
        &app,
        &access,
        &factor,
        &challenge_id,
        &current_code(&secret),
    )
    .await;
    assert_eq!(error_of(&again), (422, Some("mfa_ip_address_mismatch")));

    // The session stays aal2 across refreshes; the other aal1 session is gone.
    let (status, refreshed) = refresh(&app, upgraded["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, 200, "{refreshed}");
    let (_, claims) = decode(token(&refreshed));
    assert_eq!(claims["aal"], "aal2");
    assert_eq!(claims["amr"][0]["method"], "totp");
    let (status, gone) = refresh(&app, other["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, 400, "{gone}");

    // Password changes from an aal1 session need aal2 now; from the aal2 one they work.
    let (_, aal1) = password_grant(&app, "mfa@colegio.cl", PASSWORD).await;
    assert_eq!(decode(token(&aal1)).1["aal"], "aal1");
    let change = json!({"password": "otra-clave-segura-456"});
    let refused = call(
        &app,
        Method::PUT,
        "/user",
        Some(token(&aal1)),
        Some(change.clone()),
    )
    .await;
    assert_eq!(error_of(&refused), (401, Some("insufficient_aal")));
    // Metadata alone needs no aal2.
    let (status, _) = call(
        &app,
        Method::PUT,
        "/user",
        Some(token(&aal1)),
        Some(json!({"data": {"curso": "3°B"}})),
    )
    .await;
    assert_eq!(status, 200);
    let (status, body) = call(
        &app,
        Method::PUT,
        "/user",
        Some(token(&refreshed)),
        Some(change),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn expired_and_unknown_challenges() {
    let app = app().await;
    let session = signed_up(&app, "expira@colegio.cl").await;
    let access = token(&session).to_owned();
    let (_, enrolled) = enroll(&app, &access, json!({"factor_type": "totp"})).await;
    let factor = enrolled["id"].as_str().unwrap().to_owned();
    let secret = enrolled["totp"]["secret"].as_str().unwrap().to_owned();
    let (_, created) = challenge(&app, &access, &factor).await;
    let challenge_id = created["id"].as_str().unwrap().to_owned();

    // Six minutes later (the challenge lifetime is five).
    let db = app.admin().await;
    db.execute(
        "UPDATE auth.mfa_challenges SET created_at = created_at - interval '6 minutes' WHERE id = $1::text::uuid",
        &[&challenge_id],
    )
    .await
    .unwrap();
    let expired = verify(
        &app,
        &access,
        &factor,
        &challenge_id,
        &current_code(&secret),
    )
    .await;
    assert_eq!(error_of(&expired), (422, Some("mfa_challenge_expired")));
    assert_eq!(
        expired.1["message"],
        format!(
            "MFA challenge {challenge_id} has expired, verify against another challenge or create a new challenge."
        )
    );
    // The expired challenge is removed, so asking again finds nothing.
    let left: i64 = db
        .query_one(
            "SELECT count(*) FROM auth.mfa_challenges WHERE id = $1::text::uuid",
            &[&challenge_id],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(left, 0);
    let unknown = verify(
        &app,
        &access,
        &factor,
        &challenge_id,
        &current_code(&secret),
    )
    .await;
    assert_eq!(error_of(&unknown), (422, Some("mfa_factor_not_found")));
    assert_eq!(
        unknown.1["message"],
        "MFA factor with the provided challenge ID not found"
    );

    // The factor is still unverified and the session still aal1.
    let (_, me) = call(&app, Method::GET, "/user", Some(&access), None).await;
    assert_eq!(me["factors"][0]["status"], "unverified");

    // Request checks, in GoTrue's order and shapes.
    let empty = call(
        &app,
        Method::POST,
        &format!("/factors/{factor}/verify"),
        Some(&access),
        Some(json!({"challenge_id": challenge_id})),
    )
    .await;
    assert_eq!(error_of(&empty), (400, Some("validation_failed")));
    assert_eq!(empty.1["message"], "Code needs to be non-empty");
    let bad_id = call(
        &app,
        Method::POST,
        &format!("/factors/{factor}/verify"),
        Some(&access),
        Some(json!({"challenge_id": "nope", "code": "123456"})),
    )
    .await;
    assert_eq!(error_of(&bad_id), (400, Some("bad_json")));
    let not_uuid = challenge(&app, &access, "nope").await;
    assert_eq!(error_of(&not_uuid), (404, Some("validation_failed")));
    assert_eq!(not_uuid.1["message"], "factor_id must be an UUID");
    let missing = challenge(&app, &access, &uuid::Uuid::new_v4().to_string()).await;
    assert_eq!(error_of(&missing), (404, Some("mfa_factor_not_found")));

    // Another user cannot touch this factor.
    let intruder = signed_up(&app, "intruso@colegio.cl").await;
    let foreign = challenge(&app, token(&intruder), &factor).await;
    assert_eq!(error_of(&foreign), (404, Some("mfa_factor_not_found")));
    let foreign = call(
        &app,
        Method::DELETE,
        &format!("/factors/{factor}"),
        Some(token(&intruder)),
        None,
    )
    .await;
    assert_eq!(error_of(&foreign), (404, Some("mfa_factor_not_found")));
}

#[tokio::test]
async fn enrollment_rules_like_gotrue() {
    let app = spawn_app_with(&[
        ("ENABLE_EMAIL_AUTOCONFIRM", "true"),
        ("ENABLE_ANONYMOUS_USERS", "true"),
        ("MFA_MAX_ENROLLED_FACTORS", "3"),
    ])
    .await;
    // No bearer, anonymous users.
    let (status, body) = call(
        &app,
        Method::POST,
        "/factors",
        None,
        Some(json!({"factor_type": "totp"})),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (401, Some("no_authorization"))
    );
    let (_, anonymous) = json_of(post(&app, "/signup", json!({})).await).await;
    let refused = enroll(&app, token(&anonymous), json!({"factor_type": "totp"})).await;
    assert_eq!(error_of(&refused), (403, Some("no_authorization")));

    let session = signed_up(&app, "reglas@colegio.cl").await;
    let access = token(&session).to_owned();
    let wrong_type = enroll(&app, &access, json!({"factor_type": "sms"})).await;
    assert_eq!(error_of(&wrong_type), (400, Some("validation_failed")));
    assert_eq!(
        wrong_type.1["message"],
        "factor_type needs to be totp, phone, or webauthn"
    );
    let phone = enroll(
        &app,
        &access,
        json!({"factor_type": "phone", "phone": "+56911112222"}),
    )
    .await;
    assert_eq!(
        error_of(&phone),
        (422, Some("mfa_phone_enroll_not_enabled"))
    );
    let webauthn = enroll(&app, &access, json!({"factor_type": "webauthn"})).await;
    assert_eq!(
        error_of(&webauthn),
        (422, Some("mfa_webauthn_enroll_not_enabled"))
    );

    // Names are unique per user (the empty name too, as in GoTrue).
    let (status, first) = enroll(
        &app,
        &access,
        json!({"factor_type": "totp", "friendly_name": "Trabajo", "issuer": "Cielo Chile"}),
    )
    .await;
    assert_eq!(status, 200, "{first}");
    assert!(
        first["totp"]["uri"]
            .as_str()
            .unwrap()
            .starts_with("otpauth://totp/Cielo%20Chile:reglas@colegio.cl?"),
        "{first}"
    );
    let conflict = enroll(
        &app,
        &access,
        json!({"factor_type": "totp", "friendly_name": "Trabajo"}),
    )
    .await;
    assert_eq!(error_of(&conflict), (422, Some("mfa_factor_name_conflict")));
    assert_eq!(
        conflict.1["message"],
        "A factor with the friendly name \"Trabajo\" for this user already exists"
    );
    let (status, _) = enroll(&app, &access, json!({"factor_type": "totp"})).await;
    assert_eq!(status, 200);
    let unnamed = enroll(&app, &access, json!({"factor_type": "totp"})).await;
    assert_eq!(error_of(&unnamed), (422, Some("mfa_factor_name_conflict")));
    let (status, _) = enroll(
        &app,
        &access,
        json!({"factor_type": "totp", "friendly_name": "Casa"}),
    )
    .await;
    assert_eq!(status, 200);
    // MFA_MAX_ENROLLED_FACTORS counts unverified factors too.
    let too_many = enroll(
        &app,
        &access,
        json!({"factor_type": "totp", "friendly_name": "Cuarto"}),
    )
    .await;
    assert_eq!(
        error_of(&too_many),
        (422, Some("too_many_enrolled_mfa_factors"))
    );

    // Unverified factors go without aal2.
    let (_, me) = call(&app, Method::GET, "/user", Some(&access), None).await;
    let ids: Vec<String> = me["factors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 3);
    for id in &ids[1..] {
        let (status, body) = call(
            &app,
            Method::DELETE,
            &format!("/factors/{id}"),
            Some(&access),
            None,
        )
        .await;
        assert_eq!((status, body["id"].as_str()), (200, Some(id.as_str())));
    }

    // Verifying one factor drops the user's other unverified TOTP factors…
    let (factor, _, aal2) = verified_factor(&app, &access).await;
    let (_, me) = call(&app, Method::GET, "/user", Some(token(&aal2)), None).await;
    let factors = me["factors"].as_array().unwrap();
    assert_eq!(factors.len(), 1, "{me}");
    assert_eq!(factors[0]["id"], factor.as_str());
    assert!(factors[0].get("friendly_name").is_none(), "{me}");
    assert_eq!(factors[0]["phone"], "");

    // …and from then on new factors need an aal2 session.
    let (_, aal1) = password_grant(&app, "reglas@colegio.cl", PASSWORD).await;
    let refused = enroll(
        &app,
        token(&aal1),
        json!({"factor_type": "totp", "friendly_name": "Nuevo"}),
    )
    .await;
    assert_eq!(error_of(&refused), (403, Some("insufficient_aal")));
    assert_eq!(refused.1["message"], "AAL2 required to enroll a new factor");
    let (status, body) = enroll(
        &app,
        token(&aal2),
        json!({"factor_type": "totp", "friendly_name": "Nuevo"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn unenroll_needs_aal2_for_verified_factors_and_admins_manage_factors() {
    let app = app().await;
    let session = signed_up(&app, "baja@colegio.cl").await;
    let user_id = session["user"]["id"].as_str().unwrap().to_owned();
    let (factor, _, aal2) = verified_factor(&app, token(&session)).await;

    let (_, aal1) = password_grant(&app, "baja@colegio.cl", PASSWORD).await;
    let refused = call(
        &app,
        Method::DELETE,
        &format!("/factors/{factor}"),
        Some(token(&aal1)),
        None,
    )
    .await;
    assert_eq!(error_of(&refused), (422, Some("insufficient_aal")));
    assert_eq!(
        refused.1["message"],
        "AAL2 required to unenroll verified factor"
    );

    let (status, body) = call(
        &app,
        Method::DELETE,
        &format!("/factors/{factor}"),
        Some(token(&aal2)),
        None,
    )
    .await;
    assert_eq!((status, body), (200, json!({"id": factor})));
    // The session that the factor raised is aal1 again (and loses the totp method).
    let (status, refreshed) = refresh(&app, aal2["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, 200, "{refreshed}");
    let (_, claims) = decode(token(&refreshed));
    assert_eq!(claims["aal"], "aal1");
    assert!(
        claims["amr"]
            .as_array()
            .unwrap()
            .iter()
            .all(|entry| entry["method"] != "totp"),
        "{claims}"
    );
    let (_, me) = call(&app, Method::GET, "/user", Some(token(&refreshed)), None).await;
    assert!(me.get("factors").is_none(), "{me}");

    // Admin: list and delete (whatever the factor's state), 404s as GoTrue.
    let (second, _, raised) = verified_factor(&app, token(&refreshed)).await;
    let (status, listed) = admin(
        &app,
        Method::GET,
        &format!("/admin/users/{user_id}/factors"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(listed[0]["id"], second.as_str());
    assert_eq!(listed[0]["status"], "verified");
    let (status, renamed) = admin(
        &app,
        Method::PUT,
        &format!("/admin/users/{user_id}/factors/{second}"),
        Some(json!({"friendly_name": "Teléfono de la profe"})),
    )
    .await;
    assert_eq!(status, 200, "{renamed}");
    assert_eq!(renamed["id"], second.as_str());
    assert_eq!(renamed["friendly_name"], "Teléfono de la profe");
    assert_eq!(renamed["status"], "verified");
    let (_, listed) = admin(
        &app,
        Method::GET,
        &format!("/admin/users/{user_id}/factors"),
        None,
    )
    .await;
    assert_eq!(listed[0]["friendly_name"], "Teléfono de la profe");
    let updates: i64 = app
        .admin()
        .await
        .query_one(
            "SELECT count(*) FROM auth.audit_log_entries WHERE payload->>'action' = 'factor_updated'
                AND payload->'traits'->>'factor_id' = $1",
            &[&second],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(updates, 1);
    // A name the user's other factor has: 422, as at enrolment.
    let (status, other) = enroll(
        &app,
        token(&raised),
        json!({"factor_type": "totp", "friendly_name": "Otro"}),
    )
    .await;
    assert_eq!(status, 200, "{other}");
    let (status, body) = admin(
        &app,
        Method::PUT,
        &format!("/admin/users/{user_id}/factors/{second}"),
        Some(json!({"friendly_name": "Otro"})),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("mfa_factor_name_conflict"))
    );
    let other = other["id"].as_str().unwrap();
    let (status, _) = admin(
        &app,
        Method::DELETE,
        &format!("/admin/users/{user_id}/factors/{other}"),
        None,
    )
    .await;
    assert_eq!(status, 200);
    let (status, body) = admin(
        &app,
        Method::PUT,
        &format!("/admin/users/{user_id}/factors/{}", uuid::Uuid::new_v4()),
        Some(json!({"friendly_name": "otro"})),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("mfa_factor_not_found"))
    );
    let (status, deleted) = admin(
        &app,
        Method::DELETE,
        &format!("/admin/users/{user_id}/factors/{second}"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{deleted}");
    assert_eq!(deleted["id"], second.as_str());
    assert_eq!(deleted["factor_type"], "totp");
    let (_, listed) = admin(
        &app,
        Method::GET,
        &format!("/admin/users/{user_id}/factors"),
        None,
    )
    .await;
    assert_eq!(listed, json!([]));
    let (status, body) = admin(
        &app,
        Method::DELETE,
        &format!("/admin/users/{user_id}/factors/{second}"),
        None,
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("mfa_factor_not_found"))
    );
    let nobody = uuid::Uuid::new_v4();
    let (status, body) = admin(
        &app,
        Method::GET,
        &format!("/admin/users/{nobody}/factors"),
        None,
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("user_not_found"))
    );
    // Users cannot use the admin endpoints.
    let (status, body) = call(
        &app,
        Method::GET,
        &format!("/admin/users/{user_id}/factors"),
        Some(token(&refreshed)),
        None,
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (403, Some("not_admin")));
}

#[tokio::test]
async fn totp_can_be_switched_off() {
    let app = spawn_app_with(&[
        ("ENABLE_EMAIL_AUTOCONFIRM", "true"),
        ("GOTRUE_MFA_TOTP_ENROLL_ENABLED", "false"),
    ])
    .await;
    let session = signed_up(&app, "apagado@colegio.cl").await;
    let refused = enroll(&app, token(&session), json!({"factor_type": "totp"})).await;
    assert_eq!(
        error_of(&refused),
        (422, Some("mfa_totp_enroll_not_enabled"))
    );
    assert_eq!(refused.1["message"], "MFA enroll is disabled for TOTP");
}

#[tokio::test]
async fn secrets_are_encrypted_at_rest_like_gotrue() {
    // 32 bytes 0..31 in base64url, as GoTrue's SECURITY_DB_ENCRYPTION_* take them.
    let key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
    let app = spawn_app_with(&[
        ("ENABLE_EMAIL_AUTOCONFIRM", "true"),
        ("GOTRUE_SECURITY_DB_ENCRYPTION_ENCRYPT", "true"),
        ("GOTRUE_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID", "clave-1"),
        ("GOTRUE_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY", key),
    ])
    .await;
    let session = signed_up(&app, "cifrado@colegio.cl").await;
    let access = token(&session).to_owned();
    let stored_secret = |id: String| {
        let app = &app;
        async move {
            let db = app.admin().await;
            let row = db
                .query_one(
                    "SELECT secret FROM auth.mfa_factors WHERE id = $1::text::uuid",
                    &[&id],
                )
                .await
                .unwrap();
            row.get::<_, String>(0)
        }
    };

    let (factor, secret, upgraded) = verified_factor(&app, &access).await;
    let stored = stored_secret(factor.clone()).await;
    assert!(
        stored.starts_with(r#"{"key_id":"clave-1","alg":"aes-gcm-hkdf","data":""#),
        "{stored}"
    );
    assert!(!stored.contains(&secret), "{stored}");
    assert_eq!(decode(token(&upgraded)).1["aal"], "aal2");

    // A factor stored in plaintext (as by a GoTrue without encryption) still verifies and
    // is encrypted at that verification.
    let (_, second) = enroll(
        &app,
        token(&upgraded),
        json!({"factor_type": "totp", "friendly_name": "Importado"}),
    )
    .await;
    let second_id = second["id"].as_str().unwrap().to_owned();
    let second_secret = second["totp"]["secret"].as_str().unwrap().to_owned();
    app.admin()
        .await
        .execute(
            "UPDATE auth.mfa_factors SET secret = $2 WHERE id = $1::text::uuid",
            &[&second_id, &second_secret],
        )
        .await
        .unwrap();
    let (status, body) =
        challenge_and_verify(&app, token(&upgraded), &second_id, &second_secret).await;
    assert_eq!(status, 200, "{body}");
    let stored = stored_secret(second_id).await;
    assert!(stored.starts_with(r#"{"key_id":"clave-1""#), "{stored}");
}

// A user, factor or session deleted (by an admin, an unenrollment, a sign-out) while a
// request works on it: the request gets the answer it would get after the deletion, never
// a 500 from the foreign key of a row it was about to add.
#[tokio::test]
async fn what_a_request_works_on_deleted_meanwhile_gets_the_answer_after_the_deletion() {
    let app = app().await;
    let code = |(status, body): (u16, Value)| (status, body["code"].as_str().map(str::to_owned));

    let session = signed_up(&app, "borrado@colegio.cl").await;
    let user = session["user"]["id"].as_str().unwrap().to_owned();
    let answer = changed_meanwhile(
        &app,
        Wait::ForTheLock,
        &format!("SELECT pg_advisory_xact_lock(hashtextextended('auth.factors:{user}', 0))"),
        &format!("DELETE FROM auth.users WHERE id = '{user}'"),
        enroll(&app, token(&session), json!({"factor_type": "totp"})),
    )
    .await;
    assert_eq!(
        answer.1["message"], "User from sub claim in JWT does not exist",
        "{}",
        answer.1
    );
    assert_eq!(code(answer), (403, Some("user_not_found".into())), "enroll");

    let session = signed_up(&app, "ingreso@colegio.cl").await;
    let user = session["user"]["id"].as_str().unwrap().to_owned();
    let answer = deleted_meanwhile(
        &app,
        Wait::ForTheLock,
        "auth.users",
        &user,
        &[],
        password_grant(&app, "ingreso@colegio.cl", PASSWORD),
    )
    .await;
    assert_eq!(
        code(answer),
        (400, Some("invalid_credentials".into())),
        "sign-in"
    );

    let session = signed_up(&app, "factor@colegio.cl").await;
    let access = token(&session).to_owned();
    let (_, enrolled) = enroll(&app, &access, json!({"factor_type": "totp"})).await;
    let factor = enrolled["id"].as_str().unwrap().to_owned();
    let answer = deleted_meanwhile(
        &app,
        Wait::ForTheLock,
        "auth.mfa_factors",
        &factor,
        &[],
        challenge(&app, &access, &factor),
    )
    .await;
    assert_eq!(
        code(answer),
        (404, Some("mfa_factor_not_found".into())),
        "challenge"
    );

    let session = signed_up(&app, "enlace@colegio.cl").await;
    let user = session["user"]["id"].as_str().unwrap().to_owned();
    let answer = deleted_meanwhile(
        &app,
        Wait::ForTheLock,
        "auth.users",
        &user,
        &[],
        admin(
            &app,
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": "recovery", "email": "enlace@colegio.cl"})),
        ),
    )
    .await;
    assert_eq!(
        code(answer),
        (404, Some("user_not_found".into())),
        "generate_link"
    );

    let (_, enrolled) = enroll(&app, &access, json!({"factor_type": "totp"})).await;
    let factor = enrolled["id"].as_str().unwrap().to_owned();
    let secret = enrolled["totp"]["secret"].as_str().unwrap().to_owned();
    let (_, challenged) = challenge(&app, &access, &factor).await;
    let session_id = decode(&access).1["session_id"].as_str().unwrap().to_owned();
    let answer = deleted_meanwhile(
        &app,
        Wait::ForTheLock,
        "auth.sessions",
        &session_id,
        &[],
        verify(
            &app,
            &access,
            &factor,
            challenged["id"].as_str().unwrap(),
            &current_code(&secret),
        ),
    )
    .await;
    assert_eq!(
        code(answer),
        (403, Some("session_not_found".into())),
        "verify"
    );
}

// Unenrolling the factor that raised a session while that session is being ended (a
// sign-out, a refresh token reused): both take the session's row before its AMR claims,
// so one waits for the other (unenrolling took the claims first, and PostgreSQL aborted
// one of the two as a deadlock).
#[tokio::test]
async fn unenrolling_while_the_session_it_raised_ends_waits_for_it() {
    let app = app().await;
    let session = signed_up(&app, "baja@colegio.cl").await;
    let (_, enrolled) = enroll(&app, token(&session), json!({"factor_type": "totp"})).await;
    let factor = enrolled["id"].as_str().unwrap().to_owned();
    let secret = enrolled["totp"]["secret"].as_str().unwrap().to_owned();
    let (status, raised) = challenge_and_verify(&app, token(&session), &factor, &secret).await;
    assert_eq!(status, 200, "{raised}");
    let access = token(&raised).to_owned();
    let session_id = decode(&access).1["session_id"].as_str().unwrap().to_owned();
    let (status, body) = deleted_meanwhile(
        &app,
        Wait::ForTheLock,
        "auth.sessions",
        &session_id,
        &[("auth.mfa_amr_claims", "session_id")],
        call(
            &app,
            Method::DELETE,
            &format!("/factors/{factor}"),
            Some(&access),
            None,
        ),
    )
    .await;
    assert_eq!((status, &body["id"]), (200, &json!(factor)), "{body}");
}
