//! The demo seed (`sql/seed/demo.sql`): loaded once, GoTrue-shaped accounts whose password
//! verifies, a filled week with plans in every class state, and usable through rest/v1.
//! Nothing else in the suites relies on it: only this file loads it.

use reqwest::Method;
use serde_json::{Value, json};

use gateway::db::seed::{DEMO_ACCOUNTS, DEMO_PASSWORD, apply_demo};

use crate::helpers::spawn_app;

const TEACHER: &str = "de000000-0000-4000-8000-000000000001";
const ADMIN: &str = "de000000-0000-4000-8000-000000000002";
const CREATOR: &str = "de000000-0000-4000-8000-000000000003";

#[tokio::test]
async fn the_demo_loads_once_with_accounts_that_can_sign_in() {
    let app = spawn_app().await;
    let mut admin = app.admin().await;
    assert!(apply_demo(&mut admin).await.unwrap(), "first run loads it");
    assert!(
        !apply_demo(&mut admin).await.unwrap(),
        "second run does nothing"
    );

    for account in DEMO_ACCOUNTS {
        let row = admin
            .query_one(
                "SELECT u.encrypted_password LIKE '$2a$10$%',
                        u.encrypted_password = extensions.crypt($2, u.encrypted_password),
                        u.email_confirmed_at IS NOT NULL AND u.confirmed_at IS NOT NULL,
                        u.aud = 'authenticated' AND u.role = 'authenticated',
                        u.raw_app_meta_data = '{\"provider\": \"email\", \"providers\": [\"email\"]}',
                        u.confirmation_token = '' AND u.recovery_token = '' AND u.email_change = '',
                        i.provider = 'email' AND i.provider_id = u.id::text AND i.email = u.email
                   FROM auth.users u JOIN auth.identities i ON i.user_id = u.id
                  WHERE u.email = $1",
                &[&account.email, &DEMO_PASSWORD],
            )
            .await
            .unwrap();
        for (column, what) in [
            "bcrypt $2a$10$ hash",
            "the demo password verifies",
            "e-mail confirmed",
            "GoTrue audience and role",
            "GoTrue app metadata",
            "empty token strings, not nulls",
            "an e-mail identity",
        ]
        .iter()
        .enumerate()
        {
            assert!(row.get::<_, bool>(column), "{}: {what}", account.email);
        }
    }

    let states: Vec<(String, i64, i64)> = admin
        .query(
            "SELECT s.status::text, count(*), count(pc.id)
               FROM public.class_sessions s
               LEFT JOIN public.plan_classes pc ON pc.class_session_id = s.id
              WHERE s.teacher_id = $1::text::uuid
              GROUP BY 1 ORDER BY 1",
            &[&TEACHER],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get(2)))
        .collect();
    assert_eq!(
        states,
        [
            ("Cancelada".to_owned(), 1, 1),
            ("Programada".to_owned(), 3, 2),
            ("Realizada".to_owned(), 4, 2),
        ],
        "a filled week with planned classes in every state"
    );
    let no_class_on_the_holiday: i64 = admin
        .query_one(
            "SELECT count(*) FROM public.class_sessions WHERE session_date = '2025-05-21'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(no_class_on_the_holiday, 0);

    // Through rest/v1, as the app sees it.
    let teacher = app.user_token(TEACHER);
    let stars: Value = app
        .rest(
            Method::GET,
            "/demo_stars?select=is_demo_user,total_stars,remaining_stars,usage_percentage",
        )
        .bearer_auth(&teacher)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        stars,
        json!([{"is_demo_user": true, "total_stars": 500, "remaining_stars": 380, "usage_percentage": 24.0}])
    );
    let courses: Value = app
        .rest(
            Method::GET,
            "/courses?select=level_code,letter,subject_code&order=level_code,subject_code",
        )
        .bearer_auth(&teacher)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(courses.as_array().unwrap().len(), 4);

    let legacy: Value = app
        .rest(
            Method::GET,
            "/plan_classes?select=id&content_format=eq.legacy",
        )
        .bearer_auth(&teacher)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let response = app
        .rest(Method::POST, "/rpc/migrate_legacy_plan_class")
        .bearer_auth(&teacher)
        .json(&json!({"plan_class_id": legacy[0]["id"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.json::<Value>().await.unwrap(), json!("migrated"));

    for (user, function, expected) in [
        (ADMIN, "is_admin", true),
        (TEACHER, "is_admin", false),
        (CREATOR, "is_content_creator", true),
        (ADMIN, "is_content_creator", false),
    ] {
        let answer: Value = app
            .rest(Method::POST, &format!("/rpc/{function}"))
            .bearer_auth(app.user_token(user))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(answer, json!(expected), "{function} for {user}");
    }
    let alerts = app
        .rest(
            Method::HEAD,
            "/admin_alerts?is_resolved=eq.false&severity=in.(error,critical)",
        )
        .header("Prefer", "count=exact")
        .bearer_auth(app.user_token(ADMIN))
        .send()
        .await
        .unwrap();
    assert_eq!(alerts.headers()["content-range"], "0-1/2");
}
