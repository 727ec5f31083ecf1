//! auth/v1 admin API, imported GoTrue hashes, asymmetric signing keys and rotation.

use reqwest::Method;
use serde_json::json;

use crate::auth_support::*;
use crate::helpers::{spawn_app, spawn_app_with, spawn_fixture_app_with};

/// A bcrypt hash in the form Supabase's GoTrue writes (Go's bcrypt: `$2a$`, cost 10) of
/// "contraseña-de-supabase", produced with an independent implementation (pyca/bcrypt, prefix 2a).
const GOTRUE_HASH: &str = "$2a$10$V/UKSB0kibtIu39V5AYdsey9RxhiZLNMxEpVMjQXsK1bktLqYtura";

#[tokio::test]
async fn admin_endpoints_need_an_admin_role() {
    let app = spawn_app().await;
    let (status, body) = call(&app, Method::GET, "/admin/users", None, None).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (401, Some("no_authorization"))
    );
    let (status, body) = call(
        &app,
        Method::GET,
        "/admin/users",
        Some(&app.anon_key()),
        None,
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (403, Some("not_admin")));
    let user = app.user_token("aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa");
    let (status, body) = call(
        &app,
        Method::POST,
        "/admin/users",
        Some(&user),
        Some(json!({"email": "x@y.cl"})),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (403, Some("User not allowed"))
    );
}

#[tokio::test]
async fn admin_creates_lists_bans_and_deletes_users() {
    let app = spawn_app().await;
    let (status, created) = admin(
        &app,
        Method::POST,
        "/admin/users",
        Some(json!({
            "email": "Profe@Colegio.cl", "password": PASSWORD, "email_confirm": true,
            "user_metadata": {"nombre": "Profe"}, "app_metadata": {"colegio": 7}
        })),
    )
    .await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["email"], "profe@colegio.cl");
    assert!(created["email_confirmed_at"].is_string());
    assert_eq!(
        created["app_metadata"],
        json!({"provider": "email", "providers": ["email"], "colegio": 7})
    );
    // email_confirm confirms as GoTrue does, which marks the metadata too.
    assert_eq!(
        created["user_metadata"],
        json!({"nombre": "Profe", "email_verified": true})
    );
    let id = created["id"].as_str().unwrap().to_owned();
    let (status, body) = admin(
        &app,
        Method::POST,
        "/admin/users",
        Some(json!({"email": "profe@colegio.cl"})),
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (422, Some("email_exists")));
    assert_eq!(
        password_grant(&app, "profe@colegio.cl", PASSWORD).await.0,
        200
    );

    // Pagination: the fixture's two users plus this one.
    let response = app
        .http
        .get(app.url("/auth/v1/admin/users?page=1&per_page=2"))
        .header("apikey", app.service_role_key())
        .bearer_auth(app.service_role_key())
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-total-count"], "3");
    assert_eq!(
        response.headers()["link"],
        "</admin/users?page=2&per_page=2>; rel=\"next\", </admin/users?page=2&per_page=2>; rel=\"last\""
    );
    let (_, page) = json_of(response).await;
    assert_eq!(page["aud"], "authenticated");
    assert_eq!(page["users"].as_array().unwrap().len(), 2);
    assert_eq!(page["users"][0]["email"], "profe@colegio.cl");

    let (status, banned) = admin(
        &app,
        Method::PUT,
        &format!("/admin/users/{id}"),
        Some(json!({"ban_duration": "24h", "user_metadata": {"curso": "2B"}})),
    )
    .await;
    assert_eq!(status, 200, "{banned}");
    assert!(banned["banned_until"].is_string());
    assert_eq!(
        banned["user_metadata"],
        json!({"nombre": "Profe", "curso": "2B", "email_verified": true})
    );
    let (status, body) = password_grant(&app, "profe@colegio.cl", PASSWORD).await;
    assert_eq!((status, body["code"].as_str()), (400, Some("user_banned")));
    let (status, body) = admin(
        &app,
        Method::PUT,
        &format!("/admin/users/{id}"),
        Some(json!({"ban_duration": "forever"})),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("validation_failed"))
    );
    let (_, unbanned) = admin(
        &app,
        Method::PUT,
        &format!("/admin/users/{id}"),
        Some(json!({"ban_duration": "none", "password": "cambiada-123"})),
    )
    .await;
    assert!(unbanned.get("banned_until").is_none(), "{unbanned}");
    assert_eq!(
        password_grant(&app, "profe@colegio.cl", "cambiada-123")
            .await
            .0,
        200
    );

    let (status, body) = admin(
        &app,
        Method::DELETE,
        &format!("/admin/users/{id}"),
        Some(json!({"should_soft_delete": true})),
    )
    .await;
    assert_eq!((status, body), (200, json!({})));
    let (_, soft) = admin(&app, Method::GET, &format!("/admin/users/{id}"), None).await;
    assert!(soft["deleted_at"].is_string());
    assert_ne!(soft["email"], "profe@colegio.cl");
    assert_eq!(
        password_grant(&app, "profe@colegio.cl", "cambiada-123")
            .await
            .0,
        400
    );
    let (status, _) = admin(&app, Method::DELETE, &format!("/admin/users/{id}"), None).await;
    assert_eq!(status, 200);
    let (status, body) = admin(&app, Method::GET, &format!("/admin/users/{id}"), None).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("user_not_found"))
    );
    let (status, body) = admin(&app, Method::GET, "/admin/users/not-a-uuid", None).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (404, Some("user_id must be an UUID"))
    );
}

#[tokio::test]
async fn generate_link_and_invite() {
    let app = spawn_app().await;
    let (status, link) = admin(
        &app,
        Method::POST,
        "/admin/generate_link",
        Some(json!({"type": "signup", "email": "gen@x.cl", "password": PASSWORD})),
    )
    .await;
    assert_eq!(status, 200, "{link}");
    assert_eq!(link["verification_type"], "signup");
    assert_eq!(link["email_otp"].as_str().unwrap().len(), 6);
    assert_eq!(link["hashed_token"].as_str().unwrap().len(), 56);
    assert!(
        inbox(&app, "gen@x.cl").await.is_empty(),
        "generate_link sends nothing"
    );
    let location = open_link(&app, link["action_link"].as_str().unwrap()).await;
    assert_eq!(fragment(&location)["type"], "signup");
    let (status, link) = admin(
        &app,
        Method::POST,
        "/admin/generate_link",
        Some(json!({"type": "magiclink", "email": "gen@x.cl"})),
    )
    .await;
    assert_eq!(status, 200);
    let (status, session) = json_of(
        post(
            &app,
            "/verify",
            json!({"type": "magiclink", "token_hash": link["hashed_token"]}),
        )
        .await,
    )
    .await;
    assert_eq!(status, 200, "{session}");
    let (status, body) = admin(
        &app,
        Method::POST,
        "/admin/generate_link",
        Some(json!({"type": "recovery", "email": "nadie@x.cl"})),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("user_not_found"))
    );

    let (status, invited) = admin(
        &app,
        Method::POST,
        "/invite",
        Some(json!({"email": "invitada@x.cl", "data": {"rol": "profesora"}})),
    )
    .await;
    assert_eq!(status, 200, "{invited}");
    assert!(invited["invited_at"].is_string());
    let mail = &inbox(&app, "invitada@x.cl").await[0];
    assert_eq!(mail["subject"], "Te invitaron a Cielo");
    let location = open_link(&app, mail["links"][0].as_str().unwrap()).await;
    let tokens = fragment(&location);
    assert_eq!(tokens["type"], "invite");
    let (_, me) = call(
        &app,
        Method::GET,
        "/user",
        Some(&tokens["access_token"]),
        None,
    )
    .await;
    assert!(me["email_confirmed_at"].is_string());
}

#[tokio::test]
async fn a_hash_made_by_supabases_gotrue_signs_in() {
    let app = spawn_app().await;
    // A row exported from a Supabase project, loaded as is.
    app.admin()
        .await
        .batch_execute(&format!(
            "INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password,
                 email_confirmed_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at,
                 confirmation_token, recovery_token, email_change_token_new, email_change)
             VALUES ('00000000-0000-0000-0000-000000000000', 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee',
                 'authenticated', 'authenticated', 'importada@colegio.cl', '{GOTRUE_HASH}', now(),
                 '{{\"provider\":\"email\",\"providers\":[\"email\"]}}', '{{}}', now(), now(), '', '', '', '')"
        ))
        .await
        .unwrap();
    let (status, session) =
        password_grant(&app, "importada@colegio.cl", "contraseña-de-supabase").await;
    assert_eq!(status, 200, "{session}");
    assert_eq!(
        session["user"]["id"],
        "eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee"
    );
    assert_eq!(
        password_grant(&app, "importada@colegio.cl", "otra").await.0,
        400
    );
    // The admin API imports such hashes too.
    let (status, created) = admin(
        &app,
        Method::POST,
        "/admin/users",
        Some(json!({"email": "hash@x.cl", "password_hash": GOTRUE_HASH, "email_confirm": true})),
    )
    .await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(
        password_grant(&app, "hash@x.cl", "contraseña-de-supabase")
            .await
            .0,
        200
    );
    let (status, body) = admin(
        &app,
        Method::POST,
        "/admin/users",
        Some(json!({"email": "md5@x.cl", "password_hash": "5f4dcc3b5aa765d61d8327deb882cf99"})),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("validation_failed"))
    );
}

#[tokio::test]
async fn es256_keys_sign_publish_and_work_across_services() {
    let app = spawn_fixture_app_with(&[
        ("JWT_SIGNING_ALG", "ES256"),
        ("ENABLE_EMAIL_AUTOCONFIRM", "true"),
    ])
    .await;
    let (status, session) = json_of(
        post(
            &app,
            "/signup",
            json!({"email": "es@x.cl", "password": PASSWORD}),
        )
        .await,
    )
    .await;
    assert_eq!(status, 200, "{session}");
    let access = session["access_token"].as_str().unwrap().to_owned();
    let (header, _) = decode(&access);
    assert_eq!(header["alg"], "ES256");
    let kid = header["kid"].as_str().unwrap().to_owned();
    let response = app
        .http
        .get(app.url("/auth/v1/.well-known/jwks.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["cache-control"], "public, max-age=600");
    let (_, jwks) = json_of(response).await;
    let keys = jwks["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0]["kid"], kid.as_str());
    assert_eq!(keys[0]["kty"], "EC");
    assert_eq!(keys[0]["crv"], "P-256");
    assert!(keys[0].get("d").is_none(), "private part never published");
    assert_eq!(
        call(&app, Method::GET, "/user", Some(&access), None)
            .await
            .0,
        200
    );
    // rest/v1 accepts the ES256 token, and RLS sees auth.uid().
    let response = app
        .rest(Method::POST, "/rpc/whoami")
        .bearer_auth(&access)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let (status, body) = json_of(response).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["sub"], session["user"]["id"]);
    assert_eq!(body["role"], "authenticated");
    // The legacy HS256 keys keep working.
    let response = app
        .rest(Method::GET, "/courses?select=id")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    // Rotation: the new key signs, the old one still verifies until revoked.
    let pool = deadpool_postgres::Config {
        url: Some(app.database_url.clone()),
        ..Default::default()
    }
    .create_pool(
        Some(deadpool_postgres::Runtime::Tokio1),
        tokio_postgres::NoTls,
    )
    .unwrap();
    let new_kid = gateway::identity::signing_keys::rotate(&pool, &app.keys, "ES256")
        .await
        .unwrap();
    let ring = gateway::identity::signing_keys::load_ring(&pool, &app.keys)
        .await
        .unwrap();
    app.keys.ring().store(std::sync::Arc::new(ring));
    let (_, session) = password_grant(&app, "es@x.cl", PASSWORD).await;
    let (header, _) = decode(session["access_token"].as_str().unwrap());
    assert_eq!(header["kid"], new_kid.to_string().as_str());
    assert_eq!(
        call(&app, Method::GET, "/user", Some(&access), None)
            .await
            .0,
        200
    );
    let (_, jwks) = json_of(
        app.http
            .get(app.url("/auth/v1/.well-known/jwks.json"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(jwks["keys"].as_array().unwrap().len(), 2);
    gateway::identity::signing_keys::revoke(&pool, kid.parse().unwrap())
        .await
        .unwrap();
    let ring = gateway::identity::signing_keys::load_ring(&pool, &app.keys)
        .await
        .unwrap();
    app.keys.ring().store(std::sync::Arc::new(ring));
    let (status, body) = call(&app, Method::GET, "/user", Some(&access), None).await;
    assert_eq!((status, body["code"].as_str()), (403, Some("bad_jwt")));
    let response = app
        .rest(Method::GET, "/courses?select=id")
        .bearer_auth(&access)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
}

#[tokio::test]
async fn jwt_keys_in_gotrue_format_and_no_algorithm_confusion() {
    let rsa =
        gateway::identity::jwks::generate_private_jwk(jsonwebtoken::Algorithm::RS256, "rsa-1")
            .unwrap();
    let keys = json!([rsa]).to_string();
    let app = spawn_app_with(&[("JWT_KEYS", &keys), ("ENABLE_EMAIL_AUTOCONFIRM", "true")]).await;
    let (_, session) = json_of(
        post(
            &app,
            "/signup",
            json!({"email": "rs@x.cl", "password": PASSWORD}),
        )
        .await,
    )
    .await;
    let access = session["access_token"].as_str().unwrap();
    let (header, claims) = decode(access);
    assert_eq!(
        (header["alg"].as_str(), header["kid"].as_str()),
        (Some("RS256"), Some("rsa-1"))
    );
    assert_eq!(
        call(&app, Method::GET, "/user", Some(access), None).await.0,
        200
    );
    // HS256 signed with the published public key as the secret: refused.
    let (_, jwks) = json_of(
        app.http
            .get(app.url("/auth/v1/.well-known/jwks.json"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let public = jwks["keys"][0].to_string();
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
    header.kid = Some("rsa-1".into());
    let forged = jsonwebtoken::encode(
        &header,
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(public.as_bytes()),
    )
    .unwrap();
    let (status, body) = call(&app, Method::GET, "/user", Some(&forged), None).await;
    assert_eq!((status, body["code"].as_str()), (403, Some("bad_jwt")));
    let response = app
        .rest(Method::GET, "/courses?select=id")
        .bearer_auth(&forged)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    // An RS256-signed anon key passes the API gateway like the legacy one.
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
    header.kid = Some("rsa-1".into());
    let private = gateway::identity::jwks::PrivateJwk::parse(&rsa).unwrap();
    let anon = private
        .signing_key()
        .sign(&json!({"role": "anon", "iss": "supabase"}))
        .unwrap();
    let response = app
        .http
        .get(app.url("/rest/v1/courses?select=id"))
        .header("apikey", &anon)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let _ = header;
}

#[tokio::test]
async fn health_and_unknown_paths() {
    let app = spawn_app().await;
    let (status, body) = call(&app, Method::GET, "/health", None, None).await;
    assert_eq!((status, body["name"].as_str()), (200, Some("GoTrue")));
}

// An admin's change of a user and another admin's deletion of that user at the same moment:
// the change takes the user's row before the rows that belong to it (its identities), the
// order of the deletion's cascade, so one waits for the other. The change used to update the
// identity first, and PostgreSQL aborted one of the two as a deadlock (a 500).
#[tokio::test]
async fn an_admin_change_during_a_deletion_of_the_user_waits_for_it() {
    let app = spawn_app().await;
    let (status, user) = admin(
        &app,
        Method::POST,
        "/admin/users",
        Some(json!({"email": "cambio@x.cl", "email_confirm": true})),
    )
    .await;
    assert_eq!(status, 200, "{user}");
    let id = user["id"].as_str().unwrap().to_owned();
    let (status, body) = deleted_meanwhile(
        &app,
        Wait::ForTheLock,
        "auth.users",
        &id,
        &[("auth.identities", "user_id")],
        admin(
            &app,
            Method::PUT,
            &format!("/admin/users/{id}"),
            Some(json!({"email": "nuevo-cambio@x.cl"})),
        ),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("user_not_found")),
        "{body}"
    );
}
