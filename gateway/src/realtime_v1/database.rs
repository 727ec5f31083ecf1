//! Broadcasts from the database: rows inserted in `realtime.messages` (by `realtime.send`)
//! are announced on `NOTIFY cielo_realtime` at commit, and every gateway process delivers them
//! to its subscribers of the topic. An announcement too large for NOTIFY carries only the
//! row's key, and the row is read. A private message goes to the topic's private channels,
//! which the policies let in (and only to those allowed to read broadcasts).

use std::sync::Arc;

use deadpool_postgres::Pool;
use realtime::Hub;
use realtime::binary::BroadcastPayload;
use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::db::notifications::{Event, listen_forever};

const CHANNEL: &str = "cielo_realtime";

/// Starts listening; runs for as long as the process.
pub fn start(hub: Arc<Hub>, config: tokio_postgres::Config, owner: Pool) {
    let (announced, announcements) = unbounded_channel();
    tokio::spawn(listen_forever(config, CHANNEL, "realtime", move |event| {
        if let Event::Notification(payload) = event {
            let _ = announced.send(payload.to_owned());
        }
    }));
    tokio::spawn(deliver(hub, owner, announcements));
}

async fn deliver(hub: Arc<Hub>, owner: Pool, mut announcements: UnboundedReceiver<String>) {
    while let Some(text) = announcements.recv().await {
        let Ok(mut message) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        if message.get("topic").is_none() {
            match read_row(&owner, &message).await {
                Ok(Some(row)) => message = row,
                Ok(None) => continue,
                Err(error) => {
                    tracing::warn!(%error, "could not read an announced realtime message");
                    continue;
                }
            }
        }
        let (Some(topic), Some(event)) = (message["topic"].as_str(), message["event"].as_str())
        else {
            continue;
        };
        hub.broadcast(
            &realtime::room_key(
                &format!("realtime:{topic}"),
                message["private"].as_bool().unwrap_or(false),
            ),
            None,
            true,
            event,
            BroadcastPayload::Json(message["payload"].clone()),
        );
    }
}

/// The message whose key was announced (it was too large to announce whole).
async fn read_row(
    owner: &Pool,
    key: &Value,
) -> Result<Option<Value>, Box<dyn std::error::Error + Send + Sync>> {
    let client = owner.get().await?;
    let row = client
        .query_opt(
            "SELECT json_build_object('topic', topic, 'event', event, 'payload', payload, \
             'private', coalesce(private, false)) \
             FROM realtime.messages WHERE id = $1::text::uuid AND inserted_at = $2::text::timestamp",
            &[
                &key["id"].as_str().unwrap_or_default(),
                &key["inserted_at"].as_str().unwrap_or_default(),
            ],
        )
        .await?;
    Ok(row.map(|row| row.get::<_, Value>(0)))
}
