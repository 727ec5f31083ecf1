//! rest/v1 reads on the wire: exact bodies, statuses and headers as PostgREST answers.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_fixture_app};

const ANA: &str = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const BETO: &str = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";

async fn get(app: &TestApp, path: &str) -> reqwest::Response {
    app.rest(Method::GET, path).send().await.unwrap()
}

async fn json_of(response: reqwest::Response) -> Value {
    response.json().await.unwrap()
}

fn header(response: &reqwest::Response, name: &str) -> String {
    response
        .headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_else(|| panic!("missing header {name}"))
}

#[tokio::test]
async fn reads_a_table_with_postgrests_headers() {
    let app = spawn_fixture_app().await;
    let response = get(&app, "/schools?select=id,name&order=id").await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        header(&response, "content-type"),
        "application/json; charset=utf-8"
    );
    assert_eq!(header(&response, "content-range"), "0-1/*");
    assert_eq!(
        header(&response, "content-location"),
        "/schools?order=id&select=id%2Cname"
    );
    assert!(header(&response, "vary").starts_with("Accept, Prefer, Range"));
    // json_agg's own layout, byte for byte what PostgREST sends.
    assert_eq!(
        response.text().await.unwrap(),
        "[{\"id\":1,\"name\":\"Liceo Bicentenario\"}, \n {\"id\":2,\"name\":\"Escuela Rural Las Lomas\"}]"
    );
}

#[tokio::test]
async fn unknown_tables_and_columns_are_postgrests_errors() {
    let app = spawn_fixture_app().await;
    let response = get(&app, "/school").await;
    assert_eq!(response.status(), 404);
    assert_eq!(
        header(&response, "proxy-status"),
        "PostgREST; error=PGRST205"
    );
    assert_eq!(
        json_of(response).await,
        json!({
            "code": "PGRST205",
            "details": null,
            "hint": "Perhaps you meant the table 'fixture.schools'",
            "message": "Could not find the table 'fixture.school' in the schema cache"
        })
    );

    let response = get(&app, "/schools?select=nope").await;
    assert_eq!(response.status(), 400);
    let body = json_of(response).await;
    assert_eq!(body["code"], "42703");
    assert_eq!(body["message"], "column schools.nope does not exist");
}

#[tokio::test]
async fn parse_errors_are_pgrst100() {
    let app = spawn_fixture_app().await;
    let response = get(&app, "/schools?id=0").await;
    assert_eq!(response.status(), 400);
    assert_eq!(
        response.text().await.unwrap(),
        r#"{"code":"PGRST100","details":"unexpected \"0\" expecting \"not\" or operator (eq, gt, ...)","hint":null,"message":"\"failed to parse filter (0)\" (line 1, column 1)"}"#
    );
}

#[tokio::test]
async fn jwt_failures_are_401_with_www_authenticate() {
    let app = spawn_fixture_app().await;
    let expired =
        app.token(json!({"role": "authenticated", "exp": chrono::Utc::now().timestamp() - 60}));
    let response = app
        .rest(Method::GET, "/schools")
        .bearer_auth(&expired)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    assert_eq!(
        header(&response, "www-authenticate"),
        "Bearer error=\"invalid_token\", error_description=\"JWT expired\""
    );
    assert_eq!(
        json_of(response).await,
        json!({"code": "PGRST303", "details": null, "hint": null, "message": "JWT expired"})
    );

    let forged = gateway::identity::jwt::Hs256Key::new(&secrecy::SecretString::from(
        "some-other-secret-that-is-long-enough-0123".to_owned(),
    ))
    .sign(&json!({"role": "service_role"}))
    .unwrap();
    let response = app
        .rest(Method::GET, "/schools")
        .bearer_auth(&forged)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let body = json_of(response).await;
    assert_eq!(body["code"], "PGRST301");
    assert_eq!(
        body["details"],
        "None of the keys was able to decode the JWT"
    );
}

#[tokio::test]
async fn a_signed_token_cannot_become_a_superuser() {
    let app = spawn_fixture_app().await;
    for role in ["postgres", "supabase_admin", "no_such_role"] {
        let token = app.token(json!({"role": role}));
        let response = app
            .rest(Method::GET, "/schools")
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert!(
            response.status() == 401 || response.status() == 403,
            "{role}: {}",
            response.status()
        );
        assert!(
            response
                .json::<Value>()
                .await
                .unwrap()
                .get("code")
                .is_some()
        );
    }
}

#[tokio::test]
async fn rls_filters_rows_per_user_and_anon_is_401_where_not_granted() {
    let app = spawn_fixture_app().await;
    let ids = |body: Value| -> Vec<i64> {
        body.as_array()
            .unwrap()
            .iter()
            .map(|row| row["id"].as_i64().unwrap())
            .collect()
    };
    let as_user = |user: &str| app.user_token(user);
    let response = app
        .rest(Method::GET, "/courses?select=id&order=id")
        .bearer_auth(as_user(ANA))
        .send()
        .await
        .unwrap();
    assert_eq!(ids(json_of(response).await), [1, 2]);
    let response = app
        .rest(Method::GET, "/courses?select=id&order=id")
        .bearer_auth(as_user(BETO))
        .send()
        .await
        .unwrap();
    assert_eq!(ids(json_of(response).await), [3]);
    // Embedded rows are filtered by their own policies too.
    let response = app
        .rest(
            Method::GET,
            "/students?select=name,enrollments(course_id)&id=eq.1",
        )
        .bearer_auth(as_user(BETO))
        .send()
        .await
        .unwrap();
    assert_eq!(
        json_of(response).await,
        json!([{"name": "Diego", "enrollments": []}])
    );

    let response = get(&app, "/grades_private").await;
    assert_eq!(response.status(), 401);
    assert_eq!(header(&response, "www-authenticate"), "Bearer");
    assert_eq!(json_of(response).await["code"], "42501");
    let response = app
        .rest(Method::GET, "/grades_private")
        .bearer_auth(as_user(ANA))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn counts_ranges_and_partial_content() {
    let app = spawn_fixture_app().await;
    let response = app
        .rest(Method::GET, "/students?select=id&order=id&limit=2&offset=1")
        .header("Prefer", "count=exact")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 206);
    assert_eq!(header(&response, "content-range"), "1-2/4");
    assert_eq!(header(&response, "preference-applied"), "count=exact");
    assert_eq!(json_of(response).await, json!([{"id": 2}, {"id": 3}]));

    let response = app
        .rest(Method::GET, "/students?select=id&order=id")
        .header("Range", "0-1")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&response, "content-range"), "0-1/*");

    let response = app
        .rest(Method::GET, "/students?offset=10")
        .header("Prefer", "count=exact")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 416);
    assert_eq!(header(&response, "content-range"), "*/4");
    assert_eq!(
        json_of(response).await,
        json!({"code": "PGRST103", "details": "An offset of 10 was requested, but there are only 4 rows.", "hint": null, "message": "Requested range not satisfiable"})
    );

    let response = get(&app, "/students?limit=-1").await;
    assert_eq!(response.status(), 416);
    assert_eq!(
        json_of(response).await["details"],
        "Limit should be greater than or equal to zero."
    );

    for count in ["planned", "estimated"] {
        let response = app
            .rest(Method::GET, "/students?select=id")
            .header("Prefer", format!("count={count}"))
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success(), "{count}");
        let range = header(&response, "content-range");
        assert!(range.starts_with("0-3/"), "{count}: {range}");
        assert_ne!(range, "0-3/*", "{count}");
    }

    let response = app
        .rest(Method::HEAD, "/students")
        .header("Prefer", "count=exact")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "content-range"), "0-3/4");
    assert!(response.bytes().await.unwrap().is_empty());
}

#[tokio::test]
async fn singular_csv_and_media_types() {
    let app = spawn_fixture_app().await;
    let response = app
        .rest(Method::GET, "/schools?id=eq.1&select=name")
        .header("Accept", "application/vnd.pgrst.object+json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        header(&response, "content-type"),
        "application/vnd.pgrst.object+json; charset=utf-8"
    );
    assert_eq!(
        json_of(response).await,
        json!({"name": "Liceo Bicentenario"})
    );

    let response = app
        .rest(Method::GET, "/schools")
        .header("Accept", "application/vnd.pgrst.object+json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 406);
    assert_eq!(
        json_of(response).await,
        json!({"code": "PGRST116", "details": "The result contains 2 rows", "hint": null, "message": "Cannot coerce the result to a single JSON object"})
    );

    let response = app
        .rest(Method::GET, "/students?select=id,name&order=id")
        .header("Accept", "text/csv")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&response, "content-type"), "text/csv; charset=utf-8");
    assert_eq!(
        response.text().await.unwrap(),
        "id,name\n1,Diego\n2,Elena\n3,Fabián\n4,\"Gabriela, \"\"Gaby\"\"\""
    );

    let response = app
        .rest(Method::GET, "/schools")
        .header("Accept", "text/unknowntype")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 406);
    assert_eq!(json_of(response).await["code"], "PGRST107");

    let response = app
        .rest(Method::GET, "/schools")
        .header("Accept-Profile", "auth")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 406);
    assert_eq!(
        json_of(response).await,
        json!({"code": "PGRST106", "details": null, "hint": "Only the following schemas are exposed: fixture", "message": "Invalid schema: auth"})
    );
}

#[tokio::test]
async fn embeds_resolve_relationships_and_report_ambiguity() {
    let app = spawn_fixture_app().await;
    let response = get(&app, "/courses?select=name,teachers(name)&id=eq.1").await;
    assert_eq!(
        json_of(response).await,
        json!([{"name": "Matemática", "teachers": {"name": "Ana Pérez"}}])
    );

    // Many-to-many through enrollments, which only signed-in teachers may read.
    let response = get(&app, "/students?select=name,courses(name)&id=eq.1").await;
    assert_eq!(
        json_of(response).await,
        json!([{"name": "Diego", "courses": []}])
    );
    let response = app
        .rest(
            Method::GET,
            "/students?select=name,courses(name)&id=eq.1&courses.order=id",
        )
        .bearer_auth(app.user_token(ANA))
        .send()
        .await
        .unwrap();
    assert_eq!(
        json_of(response).await,
        json!([{"name": "Diego", "courses": [{"name": "Matemática"}, {"name": "Lenguaje"}]}])
    );

    let response = get(&app, "/substitutions?select=id,teachers(name)").await;
    assert_eq!(response.status(), 300);
    let body = json_of(response).await;
    assert_eq!(body["code"], "PGRST201");
    assert_eq!(body["details"].as_array().unwrap().len(), 2);
    assert!(
        body["hint"]
            .as_str()
            .unwrap()
            .starts_with("Try changing 'teachers' to one of the following:")
    );

    let response = get(
        &app,
        "/substitutions?select=id,teachers!substitutions_substitute_teacher_id_fkey(name)",
    )
    .await;
    assert_eq!(
        json_of(response).await,
        json!([{"id": 1, "teachers": {"name": "Ana Pérez"}}])
    );

    let response = get(&app, "/schools?select=name,students(name)").await;
    assert_eq!(response.status(), 400);
    let body = json_of(response).await;
    assert_eq!(body["code"], "PGRST200");
    assert_eq!(
        body["message"],
        "Could not find a relationship between 'schools' and 'students' in the schema cache"
    );
}

#[tokio::test]
async fn computed_columns_and_views_work_like_tables() {
    let app = spawn_fixture_app().await;
    let response = get(&app, "/students?select=display_name&id=eq.1").await;
    assert_eq!(
        json_of(response).await,
        json!([{"display_name": "Diego (Dieguito)"}])
    );
    let response = get(
        &app,
        "/course_overview?select=name,teacher_name&order=id&limit=1",
    )
    .await;
    assert_eq!(
        json_of(response).await,
        json!([{"name": "Matemática", "teacher_name": "Ana Pérez"}])
    );
}

#[tokio::test]
async fn hostile_input_stays_data() {
    let app = spawn_fixture_app().await;
    for path in [
        "/schools?name=eq.x');drop table schools;--",
        "/schools?name=in.(\"a\",\"b');drop table schools;--\")",
        "/schools?or=(name.eq.x,name.eq.y%27%29%3Bdrop%20table%20schools%3B--)",
    ] {
        let response = get(&app, path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(json_of(response).await, json!([]), "{path}");
    }
    for path in [
        "/schools?select=id,\"x\"\";drop table schools;--\"",
        "/schools?select=*,pg_sleep(5)",
        "/schools?order=id%3Bselect%201",
        "/schools?select=id::text%3Bdrop",
        "/schools?select=id::pg_catalog.regclass",
    ] {
        let response = get(&app, path).await;
        assert_eq!(response.status(), 400, "{path}");
        // Refused by the gateway itself: nothing reached the database.
        let code = json_of(response).await["code"].as_str().unwrap().to_owned();
        assert!(code.starts_with("PGRST"), "{path}: {code}");
    }
    let response = get(&app, "/schools?select=id").await;
    assert_eq!(
        json_of(response).await.as_array().unwrap().len(),
        2,
        "table intact"
    );

    // 1,000 nested logic trees and a 5,000-item list are answered, not crashed on.
    let deep = format!(
        "/schools?or=({}id.eq.1{})",
        "or(".repeat(1000),
        ")".repeat(1000)
    );
    let response = get(&app, &deep).await;
    assert!(response.status().is_client_error(), "{}", response.status());
    let long_list: Vec<String> = (0..5_000).map(|i| i.to_string()).collect();
    let response = get(&app, &format!("/schools?id=in.({})", long_list.join(","))).await;
    assert!(response.status() == 200 || response.status().is_client_error());

    for schema in ["auth", "storage", "pg_catalog"] {
        let response = app
            .rest(Method::GET, "/users")
            .header("Accept-Profile", schema)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 406, "{schema}");
    }
}

#[tokio::test]
async fn the_schema_cache_follows_ddl() {
    let app = spawn_fixture_app().await;
    assert_eq!(get(&app, "/anuncios").await.status(), 404);
    app.admin()
        .await
        .batch_execute("CREATE TABLE fixture.anuncios (id int PRIMARY KEY, titulo text); INSERT INTO fixture.anuncios VALUES (1, 'Bienvenida')")
        .await
        .unwrap();
    let response = app
        .send_until(
            || app.rest(Method::GET, "/anuncios?select=titulo"),
            |status| status == 200,
        )
        .await;
    assert_eq!(json_of(response).await, json!([{"titulo": "Bienvenida"}]));
    // NOTIFY by hand works too.
    app.admin()
        .await
        .batch_execute("NOTIFY pgrst, 'reload schema'")
        .await
        .unwrap();
}

#[tokio::test]
async fn options_lists_allowed_methods() {
    let app = spawn_fixture_app().await;
    let response = app.rest(Method::OPTIONS, "/courses").send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        header(&response, "allow"),
        "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE"
    );
    let response = app
        .rest(Method::OPTIONS, "/course_overview")
        .send()
        .await
        .unwrap();
    // A view over a join is not automatically updatable.
    assert_eq!(header(&response, "allow"), "OPTIONS,GET,HEAD");
}

#[tokio::test]
async fn the_openapi_document_lists_readable_relations() {
    let app = spawn_fixture_app().await;
    let response = get(&app, "/").await;
    assert_eq!(response.status(), 200);
    let document = json_of(response).await;
    let paths = document["paths"].as_object().unwrap();
    assert!(paths.contains_key("/schools"));
    assert!(paths.contains_key("/courses"));
    assert!(
        !paths.contains_key("/grades_private"),
        "anon may not read it"
    );
    assert_eq!(
        document["definitions"]["schools"]["properties"]["id"]["type"],
        "integer"
    );
    assert_eq!(
        document["definitions"]["schools"]["properties"]["id"]["format"],
        "int32"
    );
    assert_eq!(
        document["definitions"]["schools"]["required"],
        json!(["id", "name"])
    );
    let description = document["definitions"]["teachers"]["properties"]["school_id"]["description"]
        .as_str()
        .unwrap();
    assert!(description.contains("This is a Foreign Key to `schools.id`."));
}

#[tokio::test]
async fn table_reads_are_read_only_transactions() {
    let app = spawn_fixture_app().await;
    app.admin()
        .await
        .batch_execute(
            "CREATE FUNCTION fixture.visits(fixture.schools) RETURNS int LANGUAGE sql VOLATILE
               AS 'UPDATE fixture.schools SET name = name WHERE id = ($1).id RETURNING 1';",
        )
        .await
        .unwrap();
    // Until the schema cache knows the computed column, it is an unknown column (400).
    let response = app
        .send_until(
            || {
                app.rest(Method::GET, "/schools?select=id,visits&id=eq.1")
                    .bearer_auth(app.service_role_key())
            },
            |status| status != 400,
        )
        .await;
    assert_eq!(response.status(), 405);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], "25006");
    assert_eq!(
        body["message"],
        "cannot execute UPDATE in a read-only transaction"
    );
}

/// `request.headers` and `request.cookies` as a function sees them: JSON objects with
/// lower-case names in order, the last of a repeated header or cookie winning, UTF-8 values
/// kept and quotes escaped.
#[tokio::test]
async fn functions_see_the_request_headers_and_cookies_as_json() {
    let app = spawn_fixture_app().await;
    app.admin()
        .await
        .batch_execute(
            "CREATE FUNCTION fixture.request_settings() RETURNS json LANGUAGE sql STABLE AS $$
               SELECT json_build_object(
                 'headers', current_setting('request.headers', true),
                 'cookies', current_setting('request.cookies', true)) $$",
        )
        .await
        .unwrap();
    let request = || {
        app.rest(Method::GET, "/rpc/request_settings")
            .header("X-Dup", "first")
            .header("X-Dup", "second")
            .header(
                "X-Place",
                reqwest::header::HeaderValue::from_bytes("Ñuñoa \"centro\"".as_bytes()).unwrap(),
            )
            .header("Cookie", "tema=oscuro; sesion=a; sesion=b")
    };
    let response = app.send_until(request, |status| status == 200).await;
    let body = json_of(response).await;
    let headers_text = body["headers"].as_str().unwrap();
    let headers: Value = serde_json::from_str(headers_text).unwrap();
    assert_eq!(headers["x-dup"], "second");
    assert_eq!(headers["x-place"], "Ñuñoa \"centro\"");
    assert_eq!(headers["apikey"], app.anon_key());
    assert!(headers.get("cookie").is_none(), "{headers_text}");
    let positions: Vec<usize> = ["\"apikey\":", "\"x-dup\":", "\"x-place\":"]
        .iter()
        .map(|key| headers_text.find(key).unwrap())
        .collect();
    assert!(positions.is_sorted(), "{headers_text}");
    assert_eq!(
        body["cookies"].as_str().unwrap(),
        r#"{"sesion":"b","tema":"oscuro"}"#
    );
}
