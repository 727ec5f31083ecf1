//! Broadcasts between the gateway processes that serve one database: what a client (or the
//! HTTP API) broadcasts on one process is published on `NOTIFY cielo_realtime_relay` with the
//! process's id, and every other process delivers it to its own members of the room. A
//! broadcast too large for a notification is stored in `private.realtime_relay` and
//! announced by its id. Presence stays within a process.

use std::sync::Arc;

use base64::Engine;
use deadpool_postgres::Pool;
use realtime::binary::BroadcastPayload;
use realtime::{Hub, Relayed};
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use uuid::Uuid;

use crate::db::notifications::{Event, listen_forever};

const CHANNEL: &str = "cielo_realtime_relay";
/// NOTIFY payloads stop at 8000 bytes.
const NOTIFY_LIMIT: usize = 7_900;

/// Starts relaying this process's broadcasts out and the others' in; answers once it
/// listens (the caller waits a little for it, so a process that reports ready hears the
/// others).
pub fn start(
    hub: Arc<Hub>,
    config: tokio_postgres::Config,
    owner: Pool,
) -> tokio::sync::oneshot::Receiver<()> {
    let node = Uuid::new_v4();
    let (outgoing, to_publish) = unbounded_channel();
    hub.set_relay(outgoing);
    tokio::spawn(publish(node, owner.clone(), to_publish));
    let (arrived, arrivals) = unbounded_channel();
    let (listening, listening_rx) = tokio::sync::oneshot::channel();
    let mut listening = Some(listening);
    tokio::spawn(listen_forever(
        config,
        CHANNEL,
        "realtime relay",
        move |event| match event {
            Event::Listening { .. } => {
                if let Some(first) = listening.take() {
                    let _ = first.send(());
                }
            }
            Event::Notification(payload) => {
                let _ = arrived.send(payload.to_owned());
            }
        },
    ));
    tokio::spawn(deliver(node, hub, owner, arrivals));
    listening_rx
}

fn encode(node: Uuid, relayed: &Relayed) -> Value {
    let (payload, raw) = match &relayed.payload {
        BroadcastPayload::Json(value) => (value.clone(), false),
        BroadcastPayload::Raw(bytes) => (
            Value::String(base64::engine::general_purpose::STANDARD.encode(bytes)),
            true,
        ),
    };
    json!({ "node": node, "room": relayed.room, "event": relayed.event, "payload": payload, "raw": raw })
}

fn decode(body: &Value) -> Option<Relayed> {
    let payload = if body["raw"].as_bool().unwrap_or(false) {
        BroadcastPayload::Raw(
            base64::engine::general_purpose::STANDARD
                .decode(body["payload"].as_str()?)
                .ok()?,
        )
    } else {
        BroadcastPayload::Json(body["payload"].clone())
    };
    Some(Relayed {
        room: body["room"].as_str()?.to_owned(),
        event: body["event"].as_str()?.to_owned(),
        payload,
    })
}

async fn publish(node: Uuid, owner: Pool, mut to_publish: UnboundedReceiver<Relayed>) {
    while let Some(relayed) = to_publish.recv().await {
        let body = encode(node, &relayed);
        if let Err(error) = notify(&owner, CHANNEL, node, &body).await {
            tracing::warn!(%error, "could not relay a realtime broadcast to the other processes");
        }
    }
}

/// Publishes `body` on `channel` to the other processes: in the notification, or stored in
/// `private.realtime_relay` and announced by its id when too large.
pub(super) async fn notify(
    owner: &Pool,
    channel: &str,
    node: Uuid,
    body: &Value,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let client = owner.get().await?;
    let text = body.to_string();
    if text.len() <= NOTIFY_LIMIT {
        client
            .execute("SELECT pg_notify($1, $2)", &[&channel, &text])
            .await?;
    } else {
        let announcement = json!({ "node": node, "stored": Uuid::new_v4() });
        client
            .batch_execute(
                "DELETE FROM private.realtime_relay WHERE created_at < now() - interval '1 minute'",
            )
            .await?;
        client
            .execute(
                "WITH stored AS (INSERT INTO private.realtime_relay (id, body) VALUES ($1::text::uuid, $2::text::jsonb)) \
                 SELECT pg_notify($3, $4)",
                &[
                    &announcement["stored"].as_str().unwrap_or_default(),
                    &text,
                    &channel,
                    &announcement.to_string(),
                ],
            )
            .await?;
    }
    Ok(())
}

async fn deliver(node: Uuid, hub: Arc<Hub>, owner: Pool, mut arrivals: UnboundedReceiver<String>) {
    let me = node.to_string();
    while let Some(text) = arrivals.recv().await {
        let Ok(mut body) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        if body["node"].as_str() == Some(me.as_str()) {
            continue;
        }
        if let Some(stored) = body["stored"].as_str() {
            match read_stored(&owner, stored).await {
                Ok(Some(found)) => body = found,
                Ok(None) => continue,
                Err(error) => {
                    tracing::warn!(%error, "could not read a relayed realtime broadcast");
                    continue;
                }
            }
        }
        if let Some(relayed) = decode(&body) {
            hub.broadcast(&relayed.room, None, true, &relayed.event, relayed.payload);
        }
    }
}

/// A relayed body that was stored because it was too large to notify.
pub(super) async fn read_stored(
    owner: &Pool,
    id: &str,
) -> Result<Option<Value>, Box<dyn std::error::Error + Send + Sync>> {
    let client = owner.get().await?;
    let row = client
        .query_opt(
            "SELECT body FROM private.realtime_relay WHERE id = $1::text::uuid",
            &[&id],
        )
        .await?;
    Ok(row.map(|row| row.get::<_, Value>(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_raw_broadcasts_survive_the_trip() {
        let node = Uuid::new_v4();
        for payload in [
            BroadcastPayload::Json(json!({"n": 1})),
            BroadcastPayload::Raw(vec![0, 1, 255]),
        ] {
            let relayed = Relayed {
                room: "realtime:sala".into(),
                event: "e".into(),
                payload,
            };
            let body = encode(node, &relayed);
            assert_eq!(body["node"], node.to_string());
            assert_eq!(decode(&body), Some(relayed));
        }
        assert_eq!(decode(&json!({"room": "r"})), None);
    }
}
