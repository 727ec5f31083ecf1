//! The base schema: roles, auth tables and helper functions, grants, migrations.

use gateway::db::migrate::{self, Migration, MigrationError};
use tokio_postgres::NoTls;

use crate::helpers::{TestApp, spawn_app};

/// A connection as the API pool has it: logged in as `authenticator`.
async fn authenticator(app: &TestApp) -> tokio_postgres::Client {
    let url = app
        .database_url
        .replacen("postgresql://postgres:", "postgresql://authenticator:", 1);
    let (client, connection) = tokio_postgres::connect(&url, NoTls).await.unwrap();
    tokio::spawn(connection);
    client
}

/// Runs `sql` in a transaction as `role` with `claims`, the way the API sets a request up.
async fn as_role(
    client: &tokio_postgres::Client,
    role: &str,
    claims: &str,
    sql: &str,
) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
    client.batch_execute("BEGIN").await?;
    client
        .execute(
            "SELECT set_config('search_path', 'public, extensions', true),
                    set_config('role', $1, true), set_config('request.jwt.claims', $2, true)",
            &[&role, &claims],
        )
        .await?;
    let rows = client.query(sql, &[]).await;
    client.batch_execute("ROLLBACK").await?;
    rows
}

#[tokio::test]
async fn api_roles_exist_with_supabases_attributes() {
    let app = spawn_app().await;
    let admin = app.admin().await;
    let rows = admin
        .query(
            "SELECT rolname, rolcanlogin, rolinherit, rolbypassrls, rolsuper
               FROM pg_roles
              WHERE rolname IN ('anon', 'authenticated', 'service_role', 'authenticator')
              ORDER BY rolname",
            &[],
        )
        .await
        .unwrap();
    let roles: Vec<(String, bool, bool, bool, bool)> = rows
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect();
    assert_eq!(
        roles,
        vec![
            ("anon".into(), false, false, false, false),
            ("authenticated".into(), false, false, false, false),
            ("authenticator".into(), true, false, false, false),
            ("service_role".into(), false, false, true, false),
        ]
    );
    let members: Vec<String> = admin
        .query(
            "SELECT r.rolname FROM pg_auth_members m
               JOIN pg_roles r ON r.oid = m.roleid
               JOIN pg_roles u ON u.oid = m.member
              WHERE u.rolname = 'authenticator' ORDER BY 1",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(members, ["anon", "authenticated", "service_role"]);
}

#[tokio::test]
async fn authenticator_cannot_become_a_superuser() {
    let app = spawn_app().await;
    let client = authenticator(&app).await;
    for role in ["postgres", "supabase_admin", "supabase_auth_admin"] {
        let error = client
            .batch_execute(&format!("SET ROLE {role}"))
            .await
            .unwrap_err();
        assert_eq!(error.code().unwrap().code(), "42501", "{role}");
    }
}

#[tokio::test]
async fn auth_helpers_read_the_request_claims_like_supabases() {
    let app = spawn_app().await;
    let client = authenticator(&app).await;
    let claims = r#"{"sub":"6f0c5b55-3b7e-4a5e-9d0c-1a2b3c4d5e6f","role":"authenticated","email":"profe@colegio.cl","aal":"aal1"}"#;
    let rows = as_role(
        &client,
        "authenticated",
        claims,
        "SELECT auth.uid()::text, auth.role(), auth.email(), auth.jwt() ->> 'aal'",
    )
    .await
    .unwrap();
    let row = &rows[0];
    assert_eq!(
        row.get::<_, String>(0),
        "6f0c5b55-3b7e-4a5e-9d0c-1a2b3c4d5e6f"
    );
    assert_eq!(row.get::<_, String>(1), "authenticated");
    assert_eq!(row.get::<_, String>(2), "profe@colegio.cl");
    assert_eq!(row.get::<_, String>(3), "aal1");

    // The legacy per-claim settings win over request.jwt.claims, and empty ones are ignored.
    client.batch_execute("BEGIN").await.unwrap();
    client
        .batch_execute(
            "SELECT set_config('role', 'authenticated', true),
                    set_config('request.jwt.claim.sub', '11111111-1111-1111-1111-111111111111', true),
                    set_config('request.jwt.claim.email', '', true),
                    set_config('request.jwt.claims', '{\"sub\":\"22222222-2222-2222-2222-222222222222\",\"email\":\"b@c.cl\"}', true)",
        )
        .await
        .unwrap();
    let row = client
        .query_one("SELECT auth.uid()::text, auth.email()", &[])
        .await
        .unwrap();
    client.batch_execute("ROLLBACK").await.unwrap();
    assert_eq!(
        row.get::<_, String>(0),
        "11111111-1111-1111-1111-111111111111"
    );
    assert_eq!(row.get::<_, String>(1), "b@c.cl");

    // Without any claims the helpers return NULL rather than failing.
    let rows = as_role(
        &client,
        "anon",
        "",
        "SELECT auth.uid() IS NULL, auth.jwt() IS NULL",
    )
    .await
    .unwrap();
    assert!(rows[0].get::<_, bool>(0) && rows[0].get::<_, bool>(1));
}

#[tokio::test]
async fn rls_policies_written_for_supabase_work_unchanged() {
    let app = spawn_app().await;
    let admin = app.admin().await;
    // As a Supabase project would create it: no explicit grants, RLS on, auth.uid() policy.
    admin
        .batch_execute(
            "CREATE TABLE public.notes (id serial PRIMARY KEY, owner uuid NOT NULL, body text);
             ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
             CREATE POLICY own_notes ON public.notes FOR ALL TO authenticated
               USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
             INSERT INTO public.notes (owner, body) VALUES
               ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', 'de A'),
               ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb', 'de B');",
        )
        .await
        .unwrap();
    let client = authenticator(&app).await;
    let a = r#"{"sub":"aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa","role":"authenticated"}"#;

    let rows = as_role(&client, "authenticated", a, "SELECT body FROM notes")
        .await
        .unwrap();
    let bodies: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(bodies, ["de A"]);

    let rows = as_role(
        &client,
        "anon",
        r#"{"role":"anon"}"#,
        "SELECT body FROM notes",
    )
    .await
    .unwrap();
    assert!(rows.is_empty());

    let rows = as_role(
        &client,
        "service_role",
        r#"{"role":"service_role"}"#,
        "SELECT body FROM notes",
    )
    .await
    .unwrap();
    assert_eq!(rows.len(), 2);

    let error = as_role(
        &client,
        "authenticated",
        a,
        "INSERT INTO notes (owner, body) VALUES ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb', 'falsa') RETURNING id",
    )
    .await
    .unwrap_err();
    assert_eq!(error.code().unwrap().code(), "42501");
    assert!(
        error
            .as_db_error()
            .unwrap()
            .message()
            .contains("row-level security")
    );
}

#[tokio::test]
async fn auth_and_internal_schemas_are_not_readable_by_api_roles() {
    let app = spawn_app().await;
    let client = authenticator(&app).await;
    for role in ["anon", "authenticated", "service_role"] {
        for table in [
            "auth.users",
            "auth.sessions",
            "auth.refresh_tokens",
            "cielo.dev_mail",
            "cielo.schema_migrations",
        ] {
            let error = as_role(&client, role, "{}", &format!("SELECT 1 FROM {table}"))
                .await
                .unwrap_err();
            assert_eq!(error.code().unwrap().code(), "42501", "{role} read {table}");
        }
    }
}

#[tokio::test]
async fn auth_users_has_gotrues_columns() {
    let app = spawn_app().await;
    let rows = app
        .admin()
        .await
        .query(
            "SELECT column_name, data_type FROM information_schema.columns
              WHERE table_schema = 'auth' AND table_name = 'users'",
            &[],
        )
        .await
        .unwrap();
    let columns: std::collections::HashMap<String, String> =
        rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    for (name, data_type) in [
        ("id", "uuid"),
        ("aud", "character varying"),
        ("role", "character varying"),
        ("email", "character varying"),
        ("encrypted_password", "character varying"),
        ("email_confirmed_at", "timestamp with time zone"),
        ("phone", "text"),
        ("phone_confirmed_at", "timestamp with time zone"),
        ("confirmed_at", "timestamp with time zone"),
        ("last_sign_in_at", "timestamp with time zone"),
        ("raw_app_meta_data", "jsonb"),
        ("raw_user_meta_data", "jsonb"),
        ("is_anonymous", "boolean"),
        ("banned_until", "timestamp with time zone"),
        ("deleted_at", "timestamp with time zone"),
        ("created_at", "timestamp with time zone"),
        ("updated_at", "timestamp with time zone"),
        ("confirmation_token", "character varying"),
        ("recovery_token", "character varying"),
        ("email_change_token_new", "character varying"),
        ("email_change_token_current", "character varying"),
        ("reauthentication_token", "character varying"),
        ("phone_change_token", "character varying"),
    ] {
        assert_eq!(
            columns.get(name).map(String::as_str),
            Some(data_type),
            "auth.users.{name}"
        );
    }
}

#[tokio::test]
async fn a_user_exported_from_supabase_loads_unchanged() {
    let app = spawn_app().await;
    let admin = app.admin().await;
    // The shape of a row from `pg_dump --data-only -t auth.users` of a Supabase project.
    admin
        .batch_execute(
            "INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password,
                email_confirmed_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at,
                confirmation_token, recovery_token, email_change_token_new, email_change)
             VALUES ('00000000-0000-0000-0000-000000000000', 'c0ffee00-0000-4000-8000-000000000001',
                'authenticated', 'authenticated', 'profe@colegio.cl',
                '$2a$10$PznXR5VSgzjnAp7T/X7PCu6vtlgzdFt1zIr41IqP0CmVHQtShiXxS',
                now(), '{\"provider\":\"email\",\"providers\":[\"email\"]}', '{}', now(), now(), '', '', '', '');
             INSERT INTO auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
             VALUES ('c0ffee00-0000-4000-8000-000000000001', 'c0ffee00-0000-4000-8000-000000000001',
                '{\"sub\":\"c0ffee00-0000-4000-8000-000000000001\",\"email\":\"Profe@Colegio.cl\"}', 'email', now(), now());",
        )
        .await
        .unwrap();
    let row = admin
        .query_one(
            "SELECT u.confirmed_at IS NOT NULL, i.email, u.encrypted_password
               FROM auth.users u JOIN auth.identities i ON i.user_id = u.id",
            &[],
        )
        .await
        .unwrap();
    assert!(
        row.get::<_, bool>(0),
        "confirmed_at is generated from email_confirmed_at"
    );
    assert_eq!(row.get::<_, String>(1), "profe@colegio.cl");
    assert!(row.get::<_, String>(2).starts_with("$2a$10$"));
}

#[tokio::test]
async fn extensions_are_available_on_the_api_search_path() {
    let app = spawn_app().await;
    let client = authenticator(&app).await;
    let rows = as_role(
        &client,
        "authenticated",
        "{}",
        "SELECT uuid_generate_v4() IS NOT NULL, length(gen_random_bytes(16)), length(crypt('x', gen_salt('bf', 4)))",
    )
    .await
    .unwrap();
    assert!(rows[0].get::<_, bool>(0));
    assert_eq!(rows[0].get::<_, i32>(1), 16);
    assert_eq!(rows[0].get::<_, i32>(2), 60);
}

#[tokio::test]
async fn migrations_are_a_no_op_the_second_time() {
    let app = spawn_app().await;
    let mut admin = app.admin().await;
    let all = migrate::embedded();
    let report = migrate::run(&mut admin, &all).await.unwrap();
    assert!(report.applied.is_empty());
    assert_eq!(report.already_applied, all.len());
}

#[tokio::test]
async fn a_failed_migration_names_the_file_and_leaves_nothing_behind() {
    let app = spawn_app().await;
    let mut admin = app.admin().await;
    let mut migrations = migrate::embedded();
    migrations.push(Migration {
        file: "9998_good.sql",
        version: "9998",
        sql: "CREATE TABLE public.kept (id int);",
    });
    migrations.push(Migration {
        file: "9999_broken.sql",
        version: "9999",
        sql: "CREATE TABLE public.half_done (id int);\n\nSELECT * FROM no_such_table;",
    });
    let error = migrate::run(&mut admin, &migrations).await.unwrap_err();
    let message = error.to_string();
    assert!(matches!(
        error,
        MigrationError::Failed {
            file: "9999_broken.sql",
            ..
        }
    ));
    assert!(message.contains("9999_broken.sql"), "{message}");
    assert!(message.contains("no_such_table"), "{message}");
    assert!(message.contains("at line 3"), "{message}");

    let row = admin
        .query_one(
            "SELECT to_regclass('public.kept') IS NOT NULL, to_regclass('public.half_done') IS NULL,
                    (SELECT count(*) FROM cielo.schema_migrations WHERE version IN ('9998', '9999'))",
            &[],
        )
        .await
        .unwrap();
    assert!(row.get::<_, bool>(0), "earlier migrations stay applied");
    assert!(
        row.get::<_, bool>(1),
        "the failed migration left a table behind"
    );
    assert_eq!(row.get::<_, i64>(2), 1);
}

#[tokio::test]
async fn an_edited_migration_is_refused() {
    let app = spawn_app().await;
    let mut admin = app.admin().await;
    let mut migrations = migrate::embedded();
    migrations[0].sql = "SELECT 'edited after it was applied';";
    let error = migrate::run(&mut admin, &migrations).await.unwrap_err();
    assert!(matches!(error, MigrationError::Changed { .. }), "{error}");
    assert!(error.to_string().contains(migrations[0].file));
}
