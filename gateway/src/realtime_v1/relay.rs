//! Broadcasts and presence between the gateway processes that serve one database: what a
//! client (or the HTTP API) broadcasts on one process is published on
//! `NOTIFY cielo_realtime_relay` with the process's id, and every other process delivers it
//! to its own members of the room; presence tracks and untracks are published the same way
//! and applied by the others as their members' own. A message too large for a notification
//! is stored in `private.realtime_relay` and announced by its id. Each process says it is
//! alive every few seconds; a silent one's presence leaves, and a process that starts
//! listening asks the others for what they track.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use deadpool_postgres::Pool;
use realtime::binary::BroadcastPayload;
use realtime::{Hub, PresenceRelayed, Relayed};
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use uuid::Uuid;

use crate::db::notifications::{Event, listen_forever};

const CHANNEL: &str = "cielo_realtime_relay";
/// NOTIFY payloads stop at 8000 bytes.
const NOTIFY_LIMIT: usize = 7_900;
/// How often a process says it is alive, and how long a silent one is trusted.
const ALIVE_INTERVAL: Duration = Duration::from_secs(5);
const SILENCE_LIMIT: Duration = Duration::from_secs(15);

/// What the listener hears.
enum Arrival {
    /// Listening (again): what was announced meanwhile was missed, so the others are asked.
    Listening,
    Notification(String),
}

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
    let (presence_out, presence_to_publish) = unbounded_channel();
    hub.set_presence_relay(presence_out);
    tokio::spawn(publish_presence(node, owner.clone(), presence_to_publish));
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
                let _ = arrived.send(Arrival::Listening);
            }
            Event::Notification(payload) => {
                let _ = arrived.send(Arrival::Notification(payload.to_owned()));
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

fn encode_presence(node: Uuid, change: &PresenceRelayed) -> Value {
    let presence = match change {
        PresenceRelayed::Track {
            room,
            topic,
            member,
            key,
            payload,
        } => {
            json!({ "op": "track", "room": room, "topic": topic, "member": member, "key": key, "payload": payload })
        }
        PresenceRelayed::Untrack { room, member } => {
            json!({ "op": "untrack", "room": room, "member": member })
        }
    };
    json!({ "node": node, "presence": presence })
}

fn decode_presence(presence: &Value) -> Option<PresenceRelayed> {
    let room = presence["room"].as_str()?.to_owned();
    let member = presence["member"].as_u64()?;
    match presence["op"].as_str()? {
        "track" => Some(PresenceRelayed::Track {
            room,
            topic: presence["topic"].as_str()?.to_owned(),
            member,
            key: presence["key"].as_str()?.to_owned(),
            payload: presence["payload"].as_object()?.clone(),
        }),
        "untrack" => Some(PresenceRelayed::Untrack { room, member }),
        _ => None,
    }
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

async fn publish_presence(
    node: Uuid,
    owner: Pool,
    mut to_publish: UnboundedReceiver<PresenceRelayed>,
) {
    while let Some(change) = to_publish.recv().await {
        if let Err(error) = notify(&owner, CHANNEL, node, &encode_presence(node, &change)).await {
            tracing::warn!(%error, "could not relay a presence change to the other processes");
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

async fn deliver(node: Uuid, hub: Arc<Hub>, owner: Pool, mut arrivals: UnboundedReceiver<Arrival>) {
    let me = node.to_string();
    let mut last_heard: HashMap<String, Instant> = HashMap::new();
    let mut ticks = tokio::time::interval(ALIVE_INTERVAL);
    loop {
        let text = tokio::select! {
            arrival = arrivals.recv() => match arrival {
                Some(Arrival::Notification(text)) => text,
                Some(Arrival::Listening) => {
                    send(&owner, node, &json!({ "node": node, "sync": true })).await;
                    continue;
                }
                None => break,
            },
            _ = ticks.tick() => {
                send(&owner, node, &json!({ "node": node, "alive": true })).await;
                last_heard.retain(|other, heard| {
                    let silent = heard.elapsed() > SILENCE_LIMIT;
                    if silent {
                        tracing::info!(process = %other, "a realtime process went silent; its presence leaves");
                        hub.forget_node(other);
                    }
                    !silent
                });
                continue;
            }
        };
        let Ok(body) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let Some(from) = body["node"].as_str().map(str::to_owned) else {
            continue;
        };
        if from == me {
            continue;
        }
        last_heard.insert(from.clone(), Instant::now());
        if body["alive"] == true {
            continue;
        }
        if body["sync"] == true {
            for change in hub.local_presence() {
                send(&owner, node, &encode_presence(node, &change)).await;
            }
            continue;
        }
        let Some(body) = unwrap_stored(&owner, body).await else {
            continue;
        };
        if let Some(presence) = body.get("presence") {
            if let Some(change) = decode_presence(presence) {
                hub.apply_remote_presence(&from, change);
            }
        } else if let Some(relayed) = decode(&body) {
            hub.broadcast(&relayed.room, None, true, &relayed.event, relayed.payload);
        }
    }
}

async fn send(owner: &Pool, node: Uuid, body: &Value) {
    if let Err(error) = notify(owner, CHANNEL, node, body).await {
        tracing::warn!(%error, "could not reach the other realtime processes");
    }
}

/// A relayed body as sent: itself, or the stored one its announcement names (`None` when
/// that is gone or cannot be read).
pub(super) async fn unwrap_stored(owner: &Pool, body: Value) -> Option<Value> {
    let Some(stored) = body["stored"].as_str() else {
        return Some(body);
    };
    match read_stored(owner, stored).await {
        Ok(found) => found,
        Err(error) => {
            tracing::warn!(%error, "could not read a relayed realtime message");
            None
        }
    }
}

/// A relayed body that was stored because it was too large to notify.
async fn read_stored(
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

    #[test]
    fn presence_changes_survive_the_trip() {
        let node = Uuid::new_v4();
        for change in [
            PresenceRelayed::Track {
                room: "realtime:sala".into(),
                topic: "realtime:sala".into(),
                member: 7,
                key: "ana".into(),
                payload: json!({"nombre": "Ana"}).as_object().unwrap().clone(),
            },
            PresenceRelayed::Untrack {
                room: "private|realtime:sala".into(),
                member: 7,
            },
        ] {
            let body = encode_presence(node, &change);
            assert_eq!(decode_presence(&body["presence"]), Some(change));
        }
    }
}
