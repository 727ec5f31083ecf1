//! The topics of one gateway process: which channels (members) are joined to each topic,
//! delivering broadcasts to them, and each topic's presence. A member is one joined channel
//! of one socket; what it is sent goes into its socket's queue as a [`Delivery`], which the
//! socket encodes in its own serializer version.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::mpsc::UnboundedSender;

use crate::binary::BroadcastPayload;
use crate::changes::ChangeListener;
use crate::connection::{Claims, Frame};
use crate::presence::{Diff, MemberId, Presence};
use crate::protocol::{Message, Vsn};

/// What a socket is sent from outside its own request/reply flow.
#[derive(Debug, Clone)]
pub enum Delivery {
    /// A message for one of its channels (system, postgres_changes); boxed, as every
    /// socket's queue holds its deliveries at the size of the largest.
    Message(Box<Message>),
    /// A broadcast, shared by every member it goes to.
    Broadcast(Arc<SharedBroadcast>),
    /// A message for the channel joined with this `join_ref`, shared by every member it
    /// goes to (a `presence_diff`).
    Push(String, Arc<SharedPush>),
}

/// A message several members get, its payload encoded once.
#[derive(Debug)]
pub struct SharedPush {
    pub topic: String,
    pub event: String,
    pub payload: Value,
    encoded: OnceLock<String>,
}

impl SharedPush {
    pub fn new(topic: String, event: &str, payload: Value) -> Self {
        Self {
            topic,
            event: event.to_owned(),
            payload,
            encoded: OnceLock::new(),
        }
    }

    /// The frame for the member joined with `join_ref`.
    pub fn encode(&self, vsn: Vsn, join_ref: &str) -> String {
        let payload = self.encoded.get_or_init(|| self.payload.to_string());
        let text = |value: &str| Value::from(value).to_string();
        match vsn {
            Vsn::V1 => format!(
                r#"{{"event":{},"join_ref":{},"payload":{payload},"ref":null,"topic":{}}}"#,
                text(&self.event),
                text(join_ref),
                text(&self.topic)
            ),
            Vsn::V2 => format!(
                "[{},null,{},{},{payload}]",
                text(join_ref),
                text(&self.topic),
                text(&self.event)
            ),
        }
    }
}

/// A broadcast on `topic` (the full topic, `realtime:<name>`), with its frame in each
/// serializer version made once, by the first socket that writes it.
#[derive(Debug)]
pub struct SharedBroadcast {
    pub topic: String,
    pub event: String,
    pub payload: BroadcastPayload,
    frames: [OnceLock<Option<Frame>>; 2],
}

impl SharedBroadcast {
    pub fn new(topic: String, event: String, payload: BroadcastPayload) -> Self {
        Self {
            topic,
            event,
            payload,
            frames: Default::default(),
        }
    }

    /// The frame for `vsn` (none: this broadcast cannot go in that version).
    pub fn frame(&self, vsn: Vsn, encode: impl FnOnce(&Self) -> Option<Frame>) -> Option<Frame> {
        let cell = match vsn {
            Vsn::V1 => &self.frames[0],
            Vsn::V2 => &self.frames[1],
        };
        cell.get_or_init(|| encode(self)).clone()
    }
}

struct Member {
    queue: UnboundedSender<Delivery>,
    join_ref: String,
    /// Whether the channel asked for presence (its `presence_state` and diffs).
    presence: bool,
    /// Whether it may read broadcasts (a private channel's policies may allow presence only).
    broadcasts: bool,
}

#[derive(Default)]
struct Topic {
    /// The topic as clients name it (`realtime:<name>`), for what is sent to them.
    wire: String,
    members: HashMap<MemberId, Member>,
    presence: Presence,
    /// Presence changes not announced yet (while not empty, an announcement is due).
    pending: Diff,
}

/// The hub's key of a topic: private channels are a room of their own, apart from the public
/// channel of the same name (as in Supabase).
pub fn room_key(topic: &str, private: bool) -> String {
    if private {
        format!("private|{topic}")
    } else {
        topic.to_owned()
    }
}

/// Who joins a room.
#[derive(Debug)]
pub struct Joining<'a> {
    pub room: &'a str,
    pub topic: &'a str,
    pub join_ref: &'a str,
    pub presence: bool,
    pub broadcasts: bool,
}

#[derive(Default)]
struct Topics {
    by_name: HashMap<String, Topic>,
    next_member: MemberId,
    /// Members of other processes that track presence here, by their process and id: the
    /// id they have here and their room.
    remote: HashMap<(String, MemberId), (MemberId, String)>,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Hub")
            .field("topics", &self.lock().by_name.len())
            .finish()
    }
}

/// A broadcast made on this process, for the other processes serving the same project.
#[derive(Debug, Clone, PartialEq)]
pub struct Relayed {
    pub room: String,
    pub event: String,
    pub payload: BroadcastPayload,
}

/// A presence change made on this process, for the other processes serving the project.
#[derive(Debug, Clone, PartialEq)]
pub enum PresenceRelayed {
    Track {
        room: String,
        topic: String,
        member: MemberId,
        key: String,
        payload: Map<String, Value>,
    },
    Untrack {
        room: String,
        member: MemberId,
    },
}

/// Every topic of this process.
#[derive(Default)]
pub struct Hub {
    topics: Mutex<Topics>,
    /// The channels subscribed to postgres_changes, by member.
    listeners: Mutex<HashMap<MemberId, Arc<ChangeListener>>>,
    /// Where broadcasts made here go to reach the other processes, if there is a way.
    relay: OnceLock<UnboundedSender<Relayed>>,
    /// Where presence changes made here go to reach the other processes.
    presence_relay: OnceLock<UnboundedSender<PresenceRelayed>>,
    /// The hub itself, for announcing presence a moment later.
    me: Weak<Hub>,
}

impl Hub {
    pub fn new() -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            me: me.clone(),
            ..Self::default()
        })
    }

    fn lock(&self) -> MutexGuard<'_, Topics> {
        // A panic while holding the lock leaves plain data behind; keep serving it.
        self.topics
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Adds a channel to a room; returns its member id.
    pub fn join(&self, joining: &Joining<'_>, queue: UnboundedSender<Delivery>) -> MemberId {
        let mut topics = self.lock();
        topics.next_member += 1;
        let id = topics.next_member;
        let room = topics.by_name.entry(joining.room.to_owned()).or_default();
        room.wire = joining.topic.to_owned();
        room.members.insert(
            id,
            Member {
                queue,
                join_ref: joining.join_ref.to_owned(),
                presence: joining.presence,
                broadcasts: joining.broadcasts,
            },
        );
        id
    }

    /// Subscribes a member to postgres_changes (replacing its earlier subscriptions).
    pub fn listen(&self, member: MemberId, listener: ChangeListener) {
        self.lock_listeners().insert(member, Arc::new(listener));
    }

    /// The listening member's new token (its changes are checked as these claims).
    pub fn set_listener_claims(&self, member: MemberId, claims: Claims) {
        let mut listeners = self.lock_listeners();
        if let Some(listener) = listeners.get_mut(&member) {
            let mut changed = (**listener).clone();
            changed.claims = claims;
            *listener = Arc::new(changed);
        }
    }

    /// Every channel subscribed to postgres_changes here.
    pub fn listeners(&self) -> Vec<Arc<ChangeListener>> {
        self.lock_listeners().values().cloned().collect()
    }

    /// Ends every postgres_changes subscription with a `system` error and `phx_error`, as a
    /// Supabase channel fails when its database connection does: realtime-js rejoins, which
    /// subscribes again. Answers how many channels were told.
    pub fn fail_listeners(&self, reason: &str) -> usize {
        let failed: Vec<Arc<ChangeListener>> = self
            .lock_listeners()
            .drain()
            .map(|(_, listener)| listener)
            .collect();
        for listener in &failed {
            let channel = listener
                .topic
                .strip_prefix("realtime:")
                .unwrap_or(&listener.topic);
            let message = |event: &str, msg_ref: Option<String>, payload: Value| {
                Delivery::Message(Box::new(Message {
                    join_ref: Some(listener.join_ref.clone()),
                    msg_ref,
                    topic: listener.topic.clone(),
                    event: event.to_owned(),
                    payload,
                }))
            };
            let _ = listener.queue.send(message(
                "system",
                None,
                json!({ "extension": "postgres_changes", "status": "error", "message": reason, "channel": channel }),
            ));
            let _ = listener.queue.send(message(
                "phx_error",
                Some(listener.join_ref.clone()),
                json!({}),
            ));
        }
        failed.len()
    }

    fn lock_listeners(&self) -> MutexGuard<'_, HashMap<MemberId, Arc<ChangeListener>>> {
        self.listeners
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Removes a channel: what it tracked leaves the topic's presence, and its
    /// postgres_changes end.
    pub fn leave(&self, topic: &str, member: MemberId) {
        self.lock_listeners().remove(&member);
        let mut topics = self.lock();
        let Some(state) = topics.by_name.get_mut(topic) else {
            return;
        };
        state.members.remove(&member);
        let diff = state.presence.untrack(member);
        if !diff.is_empty() {
            self.announce(topic, state, diff);
            self.relay_presence(PresenceRelayed::Untrack {
                room: topic.to_owned(),
                member,
            });
        }
        if state.members.is_empty() && state.presence.is_empty() {
            topics.by_name.remove(topic);
        }
    }

    /// Sends this process's presence changes to `relay` too, for the other processes.
    pub fn set_presence_relay(&self, relay: UnboundedSender<PresenceRelayed>) {
        let _ = self.presence_relay.set(relay);
    }

    fn relay_presence(&self, change: PresenceRelayed) {
        if let Some(relay) = self.presence_relay.get() {
            let _ = relay.send(change);
        }
    }

    /// A presence change another process made (`node` names it): its member is tracked here
    /// under an id of this process, so this process's members see it like their own.
    pub fn apply_remote_presence(&self, node: &str, change: PresenceRelayed) {
        let mut topics = self.lock();
        match change {
            PresenceRelayed::Track {
                room,
                topic,
                member,
                key,
                payload,
            } => {
                let known = topics.remote.get(&(node.to_owned(), member)).cloned();
                let alias = match known {
                    Some((alias, _)) => alias,
                    None => {
                        topics.next_member += 1;
                        let alias = topics.next_member;
                        topics
                            .remote
                            .insert((node.to_owned(), member), (alias, room.clone()));
                        alias
                    }
                };
                let state = topics.by_name.entry(room.clone()).or_default();
                if state.wire.is_empty() {
                    state.wire = topic;
                }
                let diff = state.presence.track(alias, &key, payload);
                self.announce(&room, state, diff);
            }
            PresenceRelayed::Untrack { member, .. } => {
                if let Some((alias, room)) = topics.remote.remove(&(node.to_owned(), member)) {
                    self.untrack_alias(&mut topics, &room, alias);
                }
            }
        }
    }

    /// Another process is gone: what its members tracked leaves.
    pub fn forget_node(&self, node: &str) {
        let mut topics = self.lock();
        let gone: Vec<(String, MemberId)> = topics
            .remote
            .keys()
            .filter(|(owner, _)| owner == node)
            .cloned()
            .collect();
        for key in gone {
            if let Some((alias, room)) = topics.remote.remove(&key) {
                self.untrack_alias(&mut topics, &room, alias);
            }
        }
    }

    /// What this process's own members track, for a process that asks for it (one that
    /// just started).
    pub fn local_presence(&self) -> Vec<PresenceRelayed> {
        let topics = self.lock();
        let aliases: std::collections::HashSet<MemberId> =
            topics.remote.values().map(|(alias, _)| *alias).collect();
        topics
            .by_name
            .iter()
            .flat_map(|(room, state)| {
                state
                    .presence
                    .tracked()
                    .into_iter()
                    .filter(|(member, _, _)| !aliases.contains(member))
                    .map(|(member, key, payload)| PresenceRelayed::Track {
                        room: room.clone(),
                        topic: state.wire.clone(),
                        member,
                        key,
                        payload,
                    })
            })
            .collect()
    }

    /// Sends this process's broadcasts to `relay` too, for the other processes.
    pub fn set_relay(&self, relay: UnboundedSender<Relayed>) {
        let _ = self.relay.set(relay);
    }

    /// A broadcast made here (by a client or over HTTP): delivered to this process's members
    /// and relayed to the other processes. Answers how many members here it reached.
    pub fn publish(
        &self,
        room: &str,
        from: Option<MemberId>,
        to_sender: bool,
        event: &str,
        payload: BroadcastPayload,
    ) -> usize {
        if let Some(relay) = self.relay.get() {
            let _ = relay.send(Relayed {
                room: room.to_owned(),
                event: event.to_owned(),
                payload: payload.clone(),
            });
        }
        self.broadcast(room, from, to_sender, event, payload)
    }

    /// Delivers a broadcast to the topic's members here; the sender too only when `to_sender`.
    /// Answers how many members it reached.
    pub fn broadcast(
        &self,
        topic: &str,
        from: Option<MemberId>,
        to_sender: bool,
        event: &str,
        payload: BroadcastPayload,
    ) -> usize {
        let topics = self.lock();
        let Some(state) = topics.by_name.get(topic) else {
            return 0;
        };
        let delivery = Delivery::Broadcast(Arc::new(SharedBroadcast::new(
            state.wire.clone(),
            event.to_owned(),
            payload,
        )));
        state
            .members
            .iter()
            .filter(|(_, member)| member.broadcasts)
            .filter(|(id, _)| to_sender || Some(**id) != from)
            .filter(|(_, member)| member.queue.send(delivery.clone()).is_ok())
            .count()
    }

    /// The topic's presence for a member that just joined (or started tracking).
    pub fn presence_state(&self, topic: &str) -> Value {
        self.lock()
            .by_name
            .get(topic)
            .map_or_else(|| json!({}), |state| state.presence.state())
    }

    /// Marks the member as taking part in presence (a track without `presence.enabled`).
    pub fn enable_presence(&self, topic: &str, member: MemberId) {
        if let Some(entry) = self
            .lock()
            .by_name
            .get_mut(topic)
            .and_then(|state| state.members.get_mut(&member))
        {
            entry.presence = true;
        }
    }

    pub fn track(&self, topic: &str, member: MemberId, key: &str, payload: Map<String, Value>) {
        let mut topics = self.lock();
        let Some(state) = topics.by_name.get_mut(topic) else {
            return;
        };
        let diff = state.presence.track(member, key, payload.clone());
        if !diff.is_empty() {
            self.announce(topic, state, diff);
            let change = PresenceRelayed::Track {
                room: topic.to_owned(),
                topic: state.wire.clone(),
                member,
                key: key.to_owned(),
                payload,
            };
            drop(topics);
            self.relay_presence(change);
        }
    }

    pub fn untrack(&self, topic: &str, member: MemberId) {
        let mut topics = self.lock();
        let Some(state) = topics.by_name.get_mut(topic) else {
            return;
        };
        let diff = state.presence.untrack(member);
        if !diff.is_empty() {
            self.announce(topic, state, diff);
            drop(topics);
            self.relay_presence(PresenceRelayed::Untrack {
                room: topic.to_owned(),
                member,
            });
        }
    }
}

/// How long a topic's presence changes gather before they go out as one `presence_diff`:
/// a thousand clients tracking at once then cost each member a few frames, not a thousand.
const PRESENCE_BATCH: Duration = Duration::from_millis(10);

impl Hub {
    /// A remote member's tracks leave its room (which goes when nothing is left in it).
    fn untrack_alias(&self, topics: &mut Topics, room: &str, alias: MemberId) {
        let Some(state) = topics.by_name.get_mut(room) else {
            return;
        };
        let diff = state.presence.untrack(alias);
        self.announce(room, state, diff);
        if state.members.is_empty() && state.presence.is_empty() {
            topics.by_name.remove(room);
        }
    }

    /// Adds a presence change to the room's next `presence_diff`, which goes out
    /// [`PRESENCE_BATCH`] after the first change it holds (at once outside a runtime).
    fn announce(&self, room: &str, state: &mut Topic, diff: Diff) {
        if diff.is_empty() {
            return;
        }
        let due = !state.pending.is_empty();
        state.pending.merge(diff);
        if due {
            return;
        }
        match (tokio::runtime::Handle::try_current(), self.me.upgrade()) {
            (Ok(runtime), Some(hub)) => {
                let room = room.to_owned();
                runtime.spawn(async move {
                    tokio::time::sleep(PRESENCE_BATCH).await;
                    if let Some(state) = hub.lock().by_name.get_mut(&room) {
                        send_pending(state);
                    }
                });
            }
            _ => send_pending(state),
        }
    }
}

/// Sends the room's pending `presence_diff` to its members that take part in presence.
fn send_pending(state: &mut Topic) {
    let diff = std::mem::take(&mut state.pending);
    if diff.is_empty() {
        return;
    }
    let push = Arc::new(SharedPush::new(
        state.wire.clone(),
        "presence_diff",
        diff.to_json(),
    ));
    for member in state.members.values().filter(|member| member.presence) {
        let _ = member
            .queue
            .send(Delivery::Push(member.join_ref.clone(), Arc::clone(&push)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::mpsc::unbounded_channel;

    fn joining(join_ref: &'static str, presence: bool) -> Joining<'static> {
        Joining {
            room: "realtime:room",
            topic: "realtime:room",
            join_ref,
            presence,
            broadcasts: true,
        }
    }

    #[test]
    fn a_broadcast_reaches_the_others_and_the_sender_only_when_asked() {
        let hub = Hub::new();
        let (a_tx, mut a_rx) = unbounded_channel();
        let (b_tx, mut b_rx) = unbounded_channel();
        let a = hub.join(&joining("1", false), a_tx);
        hub.join(&joining("1", false), b_tx);
        assert_eq!(
            hub.broadcast(
                "realtime:room",
                Some(a),
                false,
                "e",
                BroadcastPayload::Json(json!({}))
            ),
            1
        );
        assert!(a_rx.try_recv().is_err());
        assert!(matches!(b_rx.try_recv(), Ok(Delivery::Broadcast(_))));
        assert_eq!(
            hub.broadcast(
                "realtime:room",
                Some(a),
                true,
                "e",
                BroadcastPayload::Json(json!({}))
            ),
            2
        );
        assert_eq!(
            hub.broadcast(
                "realtime:other",
                None,
                true,
                "e",
                BroadcastPayload::Json(json!({}))
            ),
            0
        );
    }

    #[test]
    fn presence_of_other_processes_is_shown_and_leaves_with_them() {
        let hub = Hub::new();
        let (relay_tx, mut relayed) = unbounded_channel();
        hub.set_presence_relay(relay_tx);
        let (a_tx, mut a_rx) = unbounded_channel();
        let a = hub.join(&joining("1", true), a_tx);
        hub.track("realtime:room", a, "ana", Map::new());
        assert!(
            matches!(relayed.try_recv(), Ok(PresenceRelayed::Track { member, .. }) if member == a)
        );
        while a_rx.try_recv().is_ok() {}

        let beto = PresenceRelayed::Track {
            room: "realtime:room".into(),
            topic: "realtime:room".into(),
            member: a, // the same id on another process is another member
            key: "beto".into(),
            payload: Map::new(),
        };
        hub.apply_remote_presence("otro", beto.clone());
        let Ok(Delivery::Push(_, diff)) = a_rx.try_recv() else {
            panic!("the local member sees the remote join")
        };
        assert!(diff.payload["joins"]["beto"].is_object());
        assert!(
            relayed.try_recv().is_err(),
            "remote changes are not relayed again"
        );
        hub.apply_remote_presence("otro", beto);
        assert!(
            a_rx.try_recv().is_err(),
            "the same track again changes nothing"
        );
        let state = hub.presence_state("realtime:room");
        assert!(state["ana"].is_object() && state["beto"].is_object());
        assert_eq!(
            hub.local_presence().len(),
            1,
            "only this process's own tracks"
        );

        hub.forget_node("otro");
        let Ok(Delivery::Push(_, diff)) = a_rx.try_recv() else {
            panic!("the remote member leaves with its process")
        };
        assert!(diff.payload["leaves"]["beto"].is_object());
        hub.leave("realtime:room", a);
        assert!(matches!(
            relayed.try_recv(),
            Ok(PresenceRelayed::Untrack { .. })
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn presence_changes_close_together_go_out_as_one_diff() {
        let hub = Hub::new();
        let (a_tx, mut a_rx) = unbounded_channel();
        let a = hub.join(&joining("1", true), a_tx);
        for key in ["ana", "beto", "carla"] {
            hub.apply_remote_presence(
                key,
                PresenceRelayed::Track {
                    room: "realtime:room".into(),
                    topic: "realtime:room".into(),
                    member: 1,
                    key: key.into(),
                    payload: Map::new(),
                },
            );
        }
        hub.forget_node("beto");
        assert!(a_rx.try_recv().is_err(), "not yet");
        tokio::time::sleep(PRESENCE_BATCH * 2).await;
        let Ok(Delivery::Push(join_ref, diff)) = a_rx.try_recv() else {
            panic!("one diff")
        };
        assert_eq!(join_ref, "1");
        assert_eq!(diff.payload["joins"].as_object().unwrap().len(), 3);
        assert!(diff.payload["leaves"]["beto"].is_object());
        assert!(a_rx.try_recv().is_err(), "only one");
        let frame: Value = serde_json::from_str(&diff.encode(Vsn::V2, &join_ref)).unwrap();
        assert_eq!(frame[0], "1");
        assert_eq!(frame[3], "presence_diff");
        assert_eq!(frame[4], diff.payload);
        let frame: Value = serde_json::from_str(&diff.encode(Vsn::V1, &join_ref)).unwrap();
        assert_eq!(frame["join_ref"], "1");
        assert_eq!(frame["topic"], "realtime:room");
        assert_eq!(frame["payload"], diff.payload);
        hub.leave("realtime:room", a);
    }

    #[test]
    fn presence_diffs_go_to_presence_members_and_a_leave_untracks() {
        let hub = Hub::new();
        let (a_tx, mut a_rx) = unbounded_channel();
        let (b_tx, mut b_rx) = unbounded_channel();
        let (c_tx, mut c_rx) = unbounded_channel();
        let a = hub.join(&joining("1", true), a_tx);
        hub.join(&joining("4", true), b_tx);
        hub.join(&joining("1", false), c_tx);
        hub.track("realtime:room", a, "ana", Map::new());
        let Ok(Delivery::Push(join_ref, diff)) = b_rx.try_recv() else {
            panic!("b gets the diff")
        };
        assert_eq!(diff.event, "presence_diff");
        assert_eq!(join_ref, "4");
        assert!(a_rx.try_recv().is_ok(), "the tracker gets its own diff");
        assert!(c_rx.try_recv().is_err(), "no presence, no diff");
        hub.leave("realtime:room", a);
        let Ok(Delivery::Push(_, diff)) = b_rx.try_recv() else {
            panic!("b sees the leave")
        };
        assert!(diff.payload["leaves"]["ana"].is_object());
        assert_eq!(hub.presence_state("realtime:room"), json!({}));
    }
}
