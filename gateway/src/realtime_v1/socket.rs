//! The websocket: the upgrade (serializer version, `apikey` verified before the 101, as
//! Supabase refuses with an HTTP error), then one task per socket that feeds frames to its
//! [`Connection`], writes what it answers and what the hub delivers, checks token expiry
//! every few seconds and closes a socket silent for 60 s.

use std::time::{Duration, Instant};

use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use actix_ws::{AggregatedMessage, CloseCode, CloseReason, Session};
use realtime::{Authorizer, Connection, Frame, Outgoing, Vsn};
use serde_json::json;
use tokio::sync::mpsc::unbounded_channel;

use super::RealtimeState;
use crate::identity::Credentials;

/// Largest frame accepted (Supabase Realtime's `max_frame_size`).
const MAX_FRAME_BYTES: usize = 5_000_000;
const TICK: Duration = Duration::from_secs(5);

fn unix_now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn refusal(status: actix_web::http::StatusCode, message: &str) -> HttpResponse {
    HttpResponse::build(status).json(json!({ "error": message }))
}

pub async fn upgrade(
    request: HttpRequest,
    body: web::Payload,
    realtime: web::Data<RealtimeState>,
) -> actix_web::Result<HttpResponse> {
    let query =
        web::Query::<std::collections::HashMap<String, String>>::from_query(request.query_string())
            .map(web::Query::into_inner)
            .unwrap_or_default();
    let Ok(vsn) = Vsn::from_query(query.get("vsn").map(String::as_str)) else {
        return Ok(refusal(
            actix_web::http::StatusCode::BAD_REQUEST,
            "Unsupported serializer version",
        ));
    };
    let bearer = request
        .extensions()
        .get::<Credentials>()
        .and_then(|credentials| credentials.bearer.clone());
    let Some(token) = bearer else {
        return Ok(refusal(
            actix_web::http::StatusCode::UNAUTHORIZED,
            "API key is missing",
        ));
    };
    if let Err(refused) = realtime.tokens.verify(&token, unix_now()) {
        // At connect Supabase says only that the token expired, not when.
        let message = match refused {
            realtime::TokenRefusal::Expired { .. } => "Token has expired".to_owned(),
            other => other.message(),
        };
        return Ok(refusal(actix_web::http::StatusCode::UNAUTHORIZED, &message));
    }
    let (response, session, stream) = actix_ws::handle(&request, body)?;
    let stream = stream
        .max_frame_size(MAX_FRAME_BYTES)
        .aggregate_continuations()
        .max_continuation_size(MAX_FRAME_BYTES);
    let (queue, deliveries) = unbounded_channel();
    let connection = Connection::new(
        vsn,
        realtime.hub.clone(),
        realtime.tokens.clone(),
        realtime.policies.clone(),
        realtime.changes.clone(),
        realtime.limits,
        token,
        queue,
    );
    actix_web::rt::spawn(serve(connection, session, stream, deliveries));
    Ok(response)
}

async fn send(session: &mut Session, frame: Frame) -> bool {
    match frame {
        Frame::Text(text) => session.text(text).await.is_ok(),
        Frame::Binary(bytes) => session.binary(bytes).await.is_ok(),
    }
}

/// Writes answers in order; false once the socket is to be closed or is gone.
async fn write(
    session: &mut Session,
    connection: &Connection,
    answers: Vec<Outgoing>,
) -> Result<(), Option<u16>> {
    for answer in answers {
        match answer {
            Outgoing::Message(message) => {
                if !send(session, connection.encode(&message)).await {
                    return Err(None);
                }
            }
            Outgoing::Close(code) => return Err(Some(code)),
        }
    }
    Ok(())
}

async fn serve(
    mut connection: Connection,
    mut session: Session,
    mut stream: actix_ws::AggregatedMessageStream,
    mut deliveries: tokio::sync::mpsc::UnboundedReceiver<realtime::Delivery>,
) {
    let mut last_heard = Instant::now();
    let mut tick = tokio::time::interval(TICK);
    let idle = Duration::from_secs(realtime::IDLE_TIMEOUT_SECS);
    let close_with = loop {
        let answers = tokio::select! {
            frame = stream.recv() => match frame {
                Some(Ok(AggregatedMessage::Text(text))) => {
                    last_heard = Instant::now();
                    connection.handle_text(&text, unix_now()).await
                }
                Some(Ok(AggregatedMessage::Binary(bytes))) => {
                    last_heard = Instant::now();
                    connection.handle_binary(&bytes).await
                }
                Some(Ok(AggregatedMessage::Ping(bytes))) => {
                    last_heard = Instant::now();
                    if session.pong(&bytes).await.is_err() {
                        break None;
                    }
                    Vec::new()
                }
                Some(Ok(AggregatedMessage::Pong(_))) => {
                    last_heard = Instant::now();
                    Vec::new()
                }
                // The client's close code is echoed, as Supabase (Cowboy) answers.
                Some(Ok(AggregatedMessage::Close(reason))) => {
                    break reason.map(|reason| CloseReason { code: reason.code, description: None });
                }
                Some(Err(_)) | None => break None,
            },
            Some(delivery) = deliveries.recv() => {
                if let Some(frame) = connection.encode_delivery(&delivery)
                    && !send(&mut session, frame).await
                {
                    break None;
                }
                Vec::new()
            }
            _ = tick.tick() => {
                if last_heard.elapsed() >= idle {
                    break Some(CloseReason::from(CloseCode::Normal));
                }
                connection.tick(unix_now())
            }
        };
        if let Err(close) = write(&mut session, &connection, answers).await {
            break close.map(|code| CloseReason::from(CloseCode::from(code)));
        }
    };
    connection.close();
    let _ = session.close(close_with).await;
}
