//! Broadcast from servers over HTTP, as Supabase Realtime's API: `POST /api/broadcast` with a
//! batch of messages, and `POST /api/broadcast/{topic}/events/{event}` with one payload (what
//! realtime-js's `httpSend` calls). The caller's token (`Authorization`, else the `apikey`)
//! must be valid; accepted messages answer 202 with no body. Private channels need Realtime
//! Authorization, not served yet: their messages are skipped, as Supabase skips messages the
//! caller may not write.

use actix_web::http::header::CONTENT_TYPE;
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use realtime::Authorizer;
use realtime::binary::BroadcastPayload;
use serde_json::{Value, json};

use super::RealtimeState;
use crate::identity::Credentials;

fn authorized(request: &HttpRequest, realtime: &RealtimeState) -> bool {
    let bearer = request
        .extensions()
        .get::<Credentials>()
        .and_then(|credentials| credentials.bearer.clone());
    bearer.is_some_and(|token| {
        realtime
            .tokens
            .verify(&token, chrono::Utc::now().timestamp())
            .is_ok()
    })
}

fn unauthorized() -> HttpResponse {
    HttpResponse::Unauthorized().json(json!({ "message": "Unauthorized" }))
}

/// The problems of one message of a batch, by field (Ecto's wording), empty when valid.
fn problems(message: &Value) -> serde_json::Map<String, Value> {
    let mut found = serde_json::Map::new();
    let blank = || json!(["can't be blank"]);
    if message["topic"].as_str().is_none_or(str::is_empty) {
        found.insert("topic".into(), blank());
    }
    if message["event"].as_str().is_none_or(str::is_empty) {
        found.insert("event".into(), blank());
    }
    if !message["payload"].is_object() {
        found.insert("payload".into(), blank());
    }
    found
}

pub async fn batch(
    request: HttpRequest,
    body: web::Bytes,
    realtime: web::Data<RealtimeState>,
) -> HttpResponse {
    if !authorized(&request, &realtime) {
        return unauthorized();
    }
    let parsed: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let Some(messages) = parsed["messages"].as_array() else {
        return HttpResponse::UnprocessableEntity()
            .json(json!({ "errors": { "messages": ["can't be blank"] } }));
    };
    let found: Vec<Value> = messages
        .iter()
        .map(|message| Value::Object(problems(message)))
        .collect();
    if found
        .iter()
        .any(|problems| problems.as_object().is_some_and(|map| !map.is_empty()))
    {
        return HttpResponse::UnprocessableEntity()
            .json(json!({ "errors": { "messages": found } }));
    }
    for message in messages {
        if message["private"].as_bool().unwrap_or(false) {
            continue;
        }
        let topic = format!("realtime:{}", message["topic"].as_str().unwrap_or_default());
        realtime.hub.broadcast(
            &topic,
            None,
            true,
            message["event"].as_str().unwrap_or_default(),
            BroadcastPayload::Json(message["payload"].clone()),
        );
    }
    HttpResponse::Accepted().finish()
}

pub async fn single(
    request: HttpRequest,
    path: web::Path<(String, String)>,
    body: web::Bytes,
    realtime: web::Data<RealtimeState>,
) -> HttpResponse {
    if !authorized(&request, &realtime) {
        return unauthorized();
    }
    let (topic, event) = path.into_inner();
    let private = request
        .query_string()
        .split('&')
        .any(|pair| pair == "private=true");
    if private {
        return HttpResponse::Forbidden().json(json!({ "message": "Unauthorized" }));
    }
    let content_type = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    let payload = if content_type.starts_with("application/json") {
        match serde_json::from_slice(&body) {
            Ok(value) => BroadcastPayload::Json(value),
            Err(_) => {
                return HttpResponse::BadRequest()
                    .json(json!({ "message": "The body is not valid JSON" }));
            }
        }
    } else if content_type.starts_with("application/octet-stream") {
        BroadcastPayload::Raw(body.to_vec())
    } else {
        return HttpResponse::UnsupportedMediaType().json(json!({
            "error": "Unsupported Media Type. Use application/json or application/octet-stream"
        }));
    };
    realtime
        .hub
        .broadcast(&format!("realtime:{topic}"), None, true, &event, payload);
    HttpResponse::Accepted().finish()
}
