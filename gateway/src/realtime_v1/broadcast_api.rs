//! Broadcast from servers over HTTP, as Supabase Realtime's API: `POST /api/broadcast` with a
//! batch of messages, and `POST /api/broadcast/{topic}/events/{event}` with one payload (what
//! realtime-js's `httpSend` calls). The caller's token (`Authorization`, else the `apikey`)
//! must be valid; accepted messages answer 202 with no body. A private message goes to the
//! private channels of its topic when the policies let the caller write there (once per topic
//! of a batch); otherwise it is skipped, as Supabase skips it (the single-event endpoint
//! answers 403).

use actix_web::http::header::CONTENT_TYPE;
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use std::collections::HashMap;

use realtime::binary::BroadcastPayload;
use realtime::{Authorizer, Claims, Policies, room_key};
use serde_json::{Value, json};

use super::RealtimeState;
use crate::identity::Credentials;

fn authorized(request: &HttpRequest, realtime: &RealtimeState) -> Option<Claims> {
    let bearer = request
        .extensions()
        .get::<Credentials>()
        .and_then(|credentials| credentials.bearer.clone())?;
    realtime
        .tokens
        .verify(&bearer, chrono::Utc::now().timestamp())
        .ok()
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
    let Some(claims) = authorized(&request, &realtime) else {
        return unauthorized();
    };
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
    let mut may_write: HashMap<String, bool> = HashMap::new();
    for message in messages {
        let name = message["topic"].as_str().unwrap_or_default();
        let private = message["private"].as_bool().unwrap_or(false);
        if private {
            if !may_write.contains_key(name) {
                let allowed = realtime
                    .policies
                    .write(name, &claims, "broadcast")
                    .await
                    .unwrap_or(false);
                may_write.insert(name.to_owned(), allowed);
            }
            if may_write.get(name) != Some(&true) {
                continue;
            }
        }
        realtime.hub.publish(
            &room_key(&format!("realtime:{name}"), private),
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
    let Some(claims) = authorized(&request, &realtime) else {
        return unauthorized();
    };
    let (topic, event) = path.into_inner();
    let private = request
        .query_string()
        .split('&')
        .any(|pair| pair == "private=true");
    if private
        && !realtime
            .policies
            .write(&topic, &claims, "broadcast")
            .await
            .unwrap_or(false)
    {
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
    realtime.hub.publish(
        &room_key(&format!("realtime:{topic}"), private),
        None,
        true,
        &event,
        payload,
    );
    HttpResponse::Accepted().finish()
}
