//! `generate-plan` with the embedded model (`AI_PROVIDER=local`) for real: the tests' GGUF
//! model run by llama.cpp in the gateway writes every zone; codes stay the requested ones;
//! the stars are the tokenizer's count, charged exactly once.

use serde_json::Value;

use crate::generation::user;
use crate::helpers::{spawn_product_app, test_model_path};

const PINNED: &str = r#"{"level_code":"7B","subject_code":"matematica","objective_codes":["MA07 OA 03"],"blocks":2}"#;

fn plain_text(node: &Value) -> String {
    let own = node["text"].as_str().unwrap_or_default().to_owned();
    let children = node["content"]
        .as_array()
        .map(|children| children.iter().map(plain_text).collect::<String>())
        .unwrap_or_default();
    own + &children
}

#[actix_web::test]
async fn the_local_model_writes_the_plan_and_its_tokens_are_charged() {
    let path = test_model_path().await;
    let path = path.to_str().unwrap();
    let app = spawn_product_app(&[
        ("AI_PROVIDER", "local"),
        ("AI_MODEL_PATH", path),
        ("AI_ZONE_MAX_TOKENS", "24"),
    ])
    .await;
    let teacher = user(&app, Some(100)).await;
    let admin = app.admin().await;

    let response = app
        .http
        .post(app.url("/functions/v1/generate-plan"))
        .header("apikey", app.anon_key())
        .bearer_auth(app.user_token(&teacher))
        .header("content-type", "application/json")
        .body(PINNED)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["source"], "model");
    assert_eq!(body["model"], "smollm2-135m-instruct-q4_1");
    assert_eq!(body["draft"], true);
    assert_eq!(body["objective_codes"], serde_json::json!(["MA07 OA 03"]));

    let zones = body["zones"].as_array().unwrap();
    assert_eq!(zones.len(), 8);
    let codes =
        regex::Regex::new(r"(?i)\b[A-Z]{2,4}\s*-?\s*\d{1,2}\s*-?\s*OA\s*-?\s*\d{1,2}\b").unwrap();
    for zone in zones {
        assert!(zone["zone_type"].is_string() && zone["title"].is_string());
        assert_eq!(zone["content"]["type"], "doc", "editor document JSON");
        let text = plain_text(&zone["content"]);
        for code in codes.find_iter(&text) {
            assert_eq!(code.as_str(), "MA07 OA 03", "{text}");
        }
    }

    // The usage is the tokenizer's count; the charge is one star per started 515 tokens.
    let usage = &body["usage"];
    let prompt = usage["prompt_tokens"].as_i64().unwrap();
    let completion = usage["completion_tokens"].as_i64().unwrap();
    assert!(
        prompt > 8 * 50,
        "eight prompts with the curriculum: {prompt}"
    );
    assert!((1..=8 * 24).contains(&completion), "{completion}");
    let stars = (prompt + completion + 514) / 515;
    assert_eq!(usage["stars_charged"], stars);
    let ledger = admin
        .query_one(
            "SELECT prompt_tokens::bigint, completion_tokens::bigint, stars_charged::bigint,
                    (SELECT used_stars::bigint FROM public.demo_users_2025 WHERE user_id = l.user_id)
               FROM public.ai_usage_ledger l WHERE l.user_id = $1::text::uuid",
            &[&teacher],
        )
        .await
        .unwrap();
    assert_eq!(ledger.get::<_, i64>(0), prompt);
    assert_eq!(ledger.get::<_, i64>(1), completion);
    assert_eq!(ledger.get::<_, i64>(2), stars);
    assert_eq!(ledger.get::<_, i64>(3), stars);
}
