//! postgres_changes: changes captured from the database's logical replication slot by one
//! process ([`capture`], decoding [`pgoutput`], values per [`values`]), relayed to the other
//! processes on `NOTIFY cielo_realtime_changes`, and delivered by each process to its own
//! subscribers under their RLS ([`deliver`]); channels subscribe through [`subscribe`];
//! [`status`] is the capture's state for `/health`.

mod capture;
mod deliver;
mod pgoutput;
mod status;
mod subscribe;
mod values;

use std::sync::Arc;

use deadpool_postgres::Pool;
use realtime::Hub;
use realtime::changes::Change;
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use uuid::Uuid;

use crate::db::notifications::{Event, listen_forever};

pub use capture::CaptureSettings;
pub use status::{CaptureState, CaptureStatus};
pub use subscribe::DatabaseChanges;

use super::relay::{notify, unwrap_stored};
use capture::Captured;
use deliver::Deliverer;

const CHANNEL: &str = "cielo_realtime_changes";
/// What subscribed channels are told when the database connection is lost.
pub const LOST_MESSAGE: &str = "Realtime was unable to connect to the project database";
/// The most changes delivered together when batches queue up.
const MERGED_CHANGES: usize = 5_000;

/// Starts capturing (or standing by) and delivering; answers the capture's status.
pub fn start(
    hub: Arc<Hub>,
    config: tokio_postgres::Config,
    owner: Pool,
    settings: CaptureSettings,
) -> Arc<CaptureStatus> {
    let status = Arc::new(CaptureStatus::default());
    let node = Uuid::new_v4();
    let (captured, batches) = unbounded_channel();
    tokio::spawn(capture::run(
        config.clone(),
        settings,
        Arc::clone(&status),
        captured,
    ));
    let (relayed, arrivals) = unbounded_channel();
    tokio::spawn(listen_forever(
        config,
        CHANNEL,
        "realtime changes",
        move |event| {
            if let Event::Notification(payload) = event {
                let _ = relayed.send(payload.to_owned());
            }
        },
    ));
    tokio::spawn(run_delivery(node, hub, owner, batches, arrivals));
    status
}

/// One task delivers, in order: batches captured here (also relayed to the others) and
/// batches the capturing process relayed. Batches that queued up while a delivery ran go
/// out together, so a busy process checks RLS once for several of them.
async fn run_delivery(
    node: Uuid,
    hub: Arc<Hub>,
    owner: Pool,
    mut batches: UnboundedReceiver<Captured>,
    mut arrivals: UnboundedReceiver<String>,
) {
    let me = node.to_string();
    let mut deliverer = Deliverer::new(Arc::clone(&hub), owner.clone());
    loop {
        tokio::select! {
            Some(captured) = batches.recv() => {
                let mut changes = Vec::new();
                let mut lost = false;
                let mut next = Some(captured);
                while let Some(captured) = next.take() {
                    match captured {
                        Captured::Changes(batch) => changes.extend(batch),
                        Captured::Lost => {
                            lost = true;
                            break;
                        }
                    }
                    if changes.len() < MERGED_CHANGES {
                        next = batches.try_recv().ok();
                    }
                }
                if !changes.is_empty() {
                    let body = json!({ "node": node, "changes": changes });
                    let (relayed, ()) = tokio::join!(
                        notify(&owner, CHANNEL, node, &body),
                        deliverer.deliver(&changes)
                    );
                    if let Err(error) = relayed {
                        tracing::warn!(%error, "could not relay captured changes to the other processes");
                    }
                }
                if lost {
                    // As Supabase's channels fail with their database connection: the
                    // clients rejoin, and subscribe again once capture is back.
                    let errored = hub.fail_listeners(LOST_MESSAGE);
                    tracing::warn!(channels = errored, "realtime change capture lost the database; subscribed channels told to rejoin");
                }
            }
            Some(text) = arrivals.recv() => {
                let mut changes = Vec::new();
                let mut next = Some(text);
                while let Some(text) = next.take() {
                    changes.extend(relayed_changes(&owner, &me, &text).await);
                    if changes.len() < MERGED_CHANGES {
                        next = arrivals.try_recv().ok();
                    }
                }
                if !changes.is_empty() {
                    deliverer.deliver(&changes).await;
                }
            }
            else => break,
        }
    }
}

/// The changes of a batch another process relayed (none when it is this process's own).
async fn relayed_changes(owner: &Pool, me: &str, text: &str) -> Vec<Change> {
    let Ok(body) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    if body["node"].as_str() == Some(me) {
        return Vec::new();
    }
    let Some(mut body) = unwrap_stored(owner, body).await else {
        return Vec::new();
    };
    serde_json::from_value::<Vec<Change>>(body["changes"].take()).unwrap_or_else(|error| {
        tracing::warn!(%error, "relayed changes could not be read");
        Vec::new()
    })
}
