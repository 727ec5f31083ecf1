//! One websocket connection's channels, as Supabase Realtime runs them: joins (topic, token,
//! config, limits), leaves, heartbeats, broadcasts, presence, token updates and expiry.
//! Transport-free: the gateway feeds it decoded frames and writes what it answers, in order;
//! what other sockets send this one arrives through the [`Hub`] into its queue.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use tokio::sync::mpsc::UnboundedSender;

use crate::binary::{self, BroadcastPayload};
use crate::changes::{ChangeListener, ChangeSource, SubscribeError, parse_bindings};
use crate::hub::{Delivery, Hub, Joining, SharedBroadcast, room_key};
use crate::policy::Policies;
use crate::presence::MemberId;
use crate::protocol::{Message, Vsn};

/// A verified token's claims: what realtime uses, and all of them for policies.
#[derive(Debug, Clone, PartialEq)]
pub struct Claims {
    pub role: String,
    pub exp: i64,
    pub all: Value,
}

/// Why a token was refused, each worded as Supabase Realtime words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenRefusal {
    Expired { seconds_ago: i64 },
    MissingRoleOrExp,
    Malformed,
    BadSignature,
}

impl TokenRefusal {
    /// The message of a system error or of an HTTP refusal.
    pub fn message(&self) -> String {
        match self {
            TokenRefusal::Expired { seconds_ago } => {
                format!("Token has expired {seconds_ago} seconds ago")
            }
            TokenRefusal::MissingRoleOrExp => "Fields `role` and `exp` are required in JWT".into(),
            TokenRefusal::Malformed => "The token provided is not a valid JWT".into(),
            TokenRefusal::BadSignature => "Failed to validate JWT signature".into(),
        }
    }

    /// The `reason` of a refused join.
    fn join_reason(&self) -> String {
        let code = match self {
            TokenRefusal::Expired { .. } | TokenRefusal::MissingRoleOrExp => "InvalidJWTToken",
            TokenRefusal::Malformed => "MalformedJWT",
            TokenRefusal::BadSignature => "JwtSignatureError",
        };
        format!("{code}: {}", self.message())
    }
}

/// Checks tokens: the gateway's one place for keys and signatures.
pub trait Authorizer: Send + Sync {
    fn verify(&self, token: &str, now: i64) -> Result<Claims, TokenRefusal>;
}

/// Supabase Realtime's per-client limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub channels_per_connection: usize,
    pub joins_per_second: usize,
    pub events_per_second: usize,
    pub payload_bytes: usize,
    pub presence_calls: usize,
    pub presence_window: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            channels_per_connection: 100,
            joins_per_second: 100,
            events_per_second: 100,
            payload_bytes: 3_000 * 1_000,
            presence_calls: 5,
            presence_window: Duration::from_secs(30),
        }
    }
}

/// What the connection writes next.
#[derive(Debug, Clone, PartialEq)]
pub enum Outgoing {
    Message(Message),
    /// Close the websocket with this code (after what came before).
    Close(u16),
}

/// A frame ready for the websocket.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    Text(String),
    Binary(Vec<u8>),
}

/// At most `limit` events in any `span`.
struct Window {
    limit: usize,
    span: Duration,
    stamps: VecDeque<Instant>,
}

impl Window {
    fn new(limit: usize, span: Duration) -> Self {
        Self {
            limit,
            span,
            stamps: VecDeque::new(),
        }
    }

    /// Counts one event; false when it is over the limit.
    fn allow(&mut self, now: Instant) -> bool {
        while self
            .stamps
            .front()
            .is_some_and(|at| now.duration_since(*at) >= self.span)
        {
            self.stamps.pop_front();
        }
        if self.stamps.len() >= self.limit {
            return false;
        }
        self.stamps.push_back(now);
        true
    }
}

struct Channel {
    join_ref: String,
    /// The hub's room (private channels apart from public ones).
    room: String,
    /// The bare topic name and, for a private channel, what its token may write (asked once).
    name: String,
    private: bool,
    may_write: HashMap<&'static str, bool>,
    claims: Claims,
    member: MemberId,
    to_self: bool,
    ack: bool,
    presence: bool,
    presence_key: String,
    presence_calls: Window,
    token: String,
    exp: i64,
    /// Whether it is subscribed to postgres_changes.
    listening: bool,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Connection")
            .field("vsn", &self.vsn)
            .field("channels", &self.channels.len())
            .finish_non_exhaustive()
    }
}

pub struct Connection {
    vsn: Vsn,
    hub: Arc<Hub>,
    authorizer: Arc<dyn Authorizer>,
    policies: Arc<dyn Policies>,
    changes: Arc<dyn ChangeSource>,
    limits: Limits,
    /// The `apikey` the socket connected with: the token of joins that bring none.
    socket_token: String,
    queue: UnboundedSender<Delivery>,
    channels: HashMap<String, Channel>,
    joins: Window,
    events: Window,
}

fn reply(message: &Message, status: &str, response: Value) -> Outgoing {
    Outgoing::Message(Message {
        join_ref: message.join_ref.clone(),
        msg_ref: message.msg_ref.clone(),
        topic: message.topic.clone(),
        event: "phx_reply".into(),
        payload: json!({ "status": status, "response": response }),
    })
}

/// Booleans as realtime-js and older clients send them: `true` or `"true"`.
fn flag(value: &Value) -> bool {
    match value {
        Value::Bool(flag) => *flag,
        Value::String(text) => text.eq_ignore_ascii_case("true"),
        _ => false,
    }
}

impl Connection {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        vsn: Vsn,
        hub: Arc<Hub>,
        authorizer: Arc<dyn Authorizer>,
        policies: Arc<dyn Policies>,
        changes: Arc<dyn ChangeSource>,
        limits: Limits,
        socket_token: String,
        queue: UnboundedSender<Delivery>,
    ) -> Self {
        Self {
            vsn,
            hub,
            authorizer,
            policies,
            changes,
            limits,
            socket_token,
            queue,
            channels: HashMap::new(),
            joins: Window::new(limits.joins_per_second, Duration::from_secs(1)),
            events: Window::new(limits.events_per_second, Duration::from_secs(1)),
        }
    }

    pub fn vsn(&self) -> Vsn {
        self.vsn
    }

    /// A text frame from the client.
    pub async fn handle_text(&mut self, text: &str, now: i64) -> Vec<Outgoing> {
        match Message::decode(self.vsn, text) {
            Ok(message) => self.handle(message, now).await,
            // Supabase drops malformed frames and keeps the connection.
            Err(_) => Vec::new(),
        }
    }

    /// A binary frame from the client: a broadcast push.
    pub async fn handle_binary(&mut self, frame: &[u8]) -> Vec<Outgoing> {
        let Ok(push) = binary::decode_push(frame) else {
            return Vec::new();
        };
        let message = Message {
            join_ref: push.join_ref,
            msg_ref: push.msg_ref,
            topic: push.topic,
            event: "broadcast".into(),
            payload: Value::Null,
        };
        if !self.channels.contains_key(&message.topic) {
            return vec![reply(
                &message,
                "error",
                json!({ "reason": "unmatched topic" }),
            )];
        }
        self.broadcast(&message, &push.event, push.payload).await
    }

    async fn handle(&mut self, message: Message, now: i64) -> Vec<Outgoing> {
        if message.topic == "phoenix" {
            return if message.event == "heartbeat" {
                vec![reply(&message, "ok", json!({}))]
            } else {
                Vec::new()
            };
        }
        if message.event == "phx_join" {
            return self.join(&message, now).await;
        }
        if !self.channels.contains_key(&message.topic) {
            return vec![reply(
                &message,
                "error",
                json!({ "reason": "unmatched topic" }),
            )];
        }
        match message.event.as_str() {
            "phx_leave" => self.leave(&message),
            "broadcast" => {
                let event = message.payload["event"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                let payload = BroadcastPayload::Json(
                    message
                        .payload
                        .get("payload")
                        .cloned()
                        .unwrap_or(Value::Null),
                );
                self.broadcast(&message, &event, payload).await
            }
            "presence" => self.presence(&message).await,
            "access_token" => self.access_token(&message, now).await,
            _ => vec![reply(&message, "error", json!({}))],
        }
    }

    async fn join(&mut self, message: &Message, now: i64) -> Vec<Outgoing> {
        let refuse = |reason: &str| vec![reply(message, "error", json!({ "reason": reason }))];
        let Some(name) = message.topic.strip_prefix("realtime:") else {
            return refuse("unmatched topic");
        };
        let mut out = Vec::new();
        // A second join of a topic replaces the first, which is closed.
        if let Some(old) = self.channels.remove(&message.topic) {
            self.hub.leave(&old.room, old.member);
            out.push(close_message(&message.topic, &old.join_ref));
        }
        if name.is_empty() {
            out.extend(refuse("TopicNameRequired: You must provide a topic name"));
            return out;
        }
        if !self.joins.allow(Instant::now()) {
            out.extend(refuse(
                "ClientJoinRateLimitReached: Too many joins per second",
            ));
            out.push(Outgoing::Close(1001));
            return out;
        }
        if self.channels.len() >= self.limits.channels_per_connection {
            out.extend(refuse("ChannelRateLimitReached: Too many channels"));
            return out;
        }
        let payload = &message.payload;
        let token = payload
            .get("access_token")
            .or_else(|| payload.get("user_token"))
            .and_then(Value::as_str)
            .filter(|token| !token.starts_with("sb_"))
            .unwrap_or(&self.socket_token)
            .to_owned();
        let claims = match self.authorizer.verify(&token, now) {
            Ok(claims) => claims,
            Err(refusal) => {
                out.extend(refuse(&refusal.join_reason()));
                return out;
            }
        };
        let config = &payload["config"];
        let private = flag(&config["private"]);
        let mut broadcasts = true;
        if private {
            match self.policies.read(name, &claims).await {
                Ok(access) if access.broadcast || access.presence => broadcasts = access.broadcast,
                _ => {
                    out.extend(refuse(&format!(
                        "Unauthorized: You do not have permissions to read from this Channel topic: {name}"
                    )));
                    return out;
                }
            }
        }
        let presence = flag(&config["presence"]["enabled"]);
        let presence_key = config["presence"]["key"]
            .as_str()
            .filter(|key| !key.is_empty())
            .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned);
        let join_ref = message
            .join_ref
            .clone()
            .or_else(|| message.msg_ref.clone())
            .unwrap_or_default();
        let entries = config["postgres_changes"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        let (echoed, bindings) = parse_bindings(entries);
        // Subscribed before the reply, as the reply tells the client it may count on them.
        let resolution = if echoed.is_empty() {
            None
        } else {
            Some(match bindings {
                Ok(bindings) => self.changes.resolve(&bindings).await,
                Err(error) => Err(SubscribeError::Refused(error)),
            })
        };
        if resolution == Some(Err(SubscribeError::Unavailable)) {
            out.extend(refuse(
                "UnableToConnectToProject: Realtime was unable to connect to the project database",
            ));
            return out;
        }
        let room = room_key(&message.topic, private);
        let member = self.hub.join(
            &Joining {
                room: &room,
                topic: &message.topic,
                join_ref: &join_ref,
                presence,
                broadcasts,
            },
            self.queue.clone(),
        );
        out.push(reply(message, "ok", json!({ "postgres_changes": echoed })));
        let mut listening = false;
        if let Some(resolved) = resolution {
            // After the reply, as Supabase sends it: the system message says how it went.
            match resolved {
                Ok(subscriptions) => {
                    self.hub.listen(
                        member,
                        ChangeListener {
                            queue: self.queue.clone(),
                            topic: message.topic.clone(),
                            join_ref: join_ref.clone(),
                            claims: claims.clone(),
                            subscriptions,
                        },
                    );
                    listening = true;
                    out.push(subscribed(&message.topic, &join_ref));
                }
                Err(SubscribeError::Refused(error)) => out.push(system(
                    &message.topic,
                    &join_ref,
                    "postgres_changes",
                    "error",
                    &error,
                )),
                Err(SubscribeError::Unavailable) => {}
            }
        }
        if presence {
            out.push(push(
                &message.topic,
                &join_ref,
                "presence_state",
                self.hub.presence_state(&room),
            ));
        }
        self.channels.insert(
            message.topic.clone(),
            Channel {
                join_ref,
                room,
                name: name.to_owned(),
                private,
                may_write: HashMap::new(),
                claims: claims.clone(),
                member,
                to_self: flag(&config["broadcast"]["self"]),
                ack: flag(&config["broadcast"]["ack"]),
                presence,
                presence_key,
                presence_calls: Window::new(
                    self.limits.presence_calls,
                    self.limits.presence_window,
                ),
                token,
                exp: claims.exp,
                listening,
            },
        );
        out
    }

    fn leave(&mut self, message: &Message) -> Vec<Outgoing> {
        let Some(channel) = self.channels.remove(&message.topic) else {
            return Vec::new();
        };
        self.hub.leave(&channel.room, channel.member);
        vec![
            reply(message, "ok", json!({})),
            close_message(&message.topic, &channel.join_ref),
        ]
    }

    /// Whether a private channel's token may write `extension`, asked of the policies once.
    async fn may_write(&mut self, topic: &str, extension: &'static str) -> bool {
        let Some(channel) = self.channels.get(topic) else {
            return false;
        };
        if !channel.private {
            return true;
        }
        if let Some(known) = channel.may_write.get(extension) {
            return *known;
        }
        let allowed = self
            .policies
            .write(&channel.name, &channel.claims, extension)
            .await
            .unwrap_or(false);
        if let Some(channel) = self.channels.get_mut(topic) {
            channel.may_write.insert(extension, allowed);
        }
        allowed
    }

    async fn broadcast(
        &mut self,
        message: &Message,
        event: &str,
        payload: BroadcastPayload,
    ) -> Vec<Outgoing> {
        if !self.events.allow(Instant::now()) {
            return self.shutdown(&message.topic, "Too many messages per second");
        }
        // A private channel without write permission: dropped, and no reply even with ack
        // (as Supabase).
        if !self.may_write(&message.topic, "broadcast").await {
            return Vec::new();
        }
        let Some(channel) = self.channels.get(&message.topic) else {
            return Vec::new();
        };
        let size = match &payload {
            BroadcastPayload::Json(value) => value.to_string().len(),
            BroadcastPayload::Raw(bytes) => bytes.len(),
        };
        if size > self.limits.payload_bytes {
            return if channel.ack {
                vec![reply(message, "error", json!("payload_size_exceeded"))]
            } else {
                Vec::new()
            };
        }
        self.hub.publish(
            &channel.room,
            Some(channel.member),
            channel.to_self,
            event,
            payload,
        );
        if channel.ack {
            vec![reply(message, "ok", json!({}))]
        } else {
            Vec::new()
        }
    }

    async fn presence(&mut self, message: &Message) -> Vec<Outgoing> {
        let now = Instant::now();
        let Some(channel) = self.channels.get_mut(&message.topic) else {
            return Vec::new();
        };
        if !channel.presence_calls.allow(now) {
            return self.shutdown(&message.topic, "Client presence rate limit exceeded");
        }
        if message.payload["event"] == "track" && !self.may_write(&message.topic, "presence").await
        {
            return vec![reply(message, "error", json!({}))];
        }
        let Some(channel) = self.channels.get_mut(&message.topic) else {
            return Vec::new();
        };
        match message.payload["event"].as_str() {
            Some("track") => {
                let payload = match message.payload.get("payload") {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(map)) => map.clone(),
                    Some(_) => {
                        return vec![reply(
                            message,
                            "error",
                            json!({ "reason": "Presence track payload must be a map" }),
                        )];
                    }
                };
                let mut out = vec![reply(message, "ok", json!({}))];
                if !channel.presence {
                    channel.presence = true;
                    self.hub.enable_presence(&channel.room, channel.member);
                    out.push(push(
                        &message.topic,
                        &channel.join_ref,
                        "presence_state",
                        self.hub.presence_state(&channel.room),
                    ));
                }
                self.hub.track(
                    &channel.room,
                    channel.member,
                    &channel.presence_key,
                    payload,
                );
                out
            }
            Some("untrack") => {
                self.hub.untrack(&channel.room, channel.member);
                vec![reply(message, "ok", json!({}))]
            }
            _ => vec![reply(message, "error", json!({}))],
        }
    }

    /// A new token for a joined channel; no reply either way (as Supabase).
    async fn access_token(&mut self, message: &Message, now: i64) -> Vec<Outgoing> {
        let Some(token) = message.payload["access_token"].as_str() else {
            return Vec::new();
        };
        let Some(channel) = self.channels.get(&message.topic) else {
            return Vec::new();
        };
        if token.starts_with("sb_") || token == channel.token {
            return Vec::new();
        }
        match self.authorizer.verify(token, now) {
            Ok(claims) => {
                // A private channel is read with the new token's rights, or closed.
                if let Some(channel) = self.channels.get(&message.topic)
                    && channel.private
                {
                    let name = channel.name.clone();
                    let readable = self
                        .policies
                        .read(&name, &claims)
                        .await
                        .is_ok_and(|access| access.broadcast || access.presence);
                    if !readable {
                        return self.shutdown(
                            &message.topic,
                            &format!("You no longer have permission to read from this Channel topic: {name}"),
                        );
                    }
                }
                let Some(channel) = self.channels.get_mut(&message.topic) else {
                    return Vec::new();
                };
                channel.token = token.to_owned();
                channel.exp = claims.exp;
                channel.claims = claims.clone();
                channel.may_write.clear();
                if channel.listening {
                    // Resubscribed with the new claims, which Supabase announces again.
                    self.hub.set_listener_claims(channel.member, claims);
                    return vec![subscribed(&message.topic, &channel.join_ref)];
                }
                Vec::new()
            }
            Err(refusal) => self.shutdown(&message.topic, &refusal.message()),
        }
    }

    /// Closes the channels whose token has expired (called every few seconds).
    pub fn tick(&mut self, now: i64) -> Vec<Outgoing> {
        let expired: Vec<(String, i64)> = self
            .channels
            .iter()
            .filter(|(_, channel)| channel.exp <= now)
            .map(|(topic, channel)| (topic.clone(), now - channel.exp))
            .collect();
        expired
            .into_iter()
            .flat_map(|(topic, ago)| {
                self.shutdown(&topic, &format!("Token has expired {ago} seconds ago"))
            })
            .collect()
    }

    /// A channel ended by the server: a system error, then `phx_close`.
    fn shutdown(&mut self, topic: &str, reason: &str) -> Vec<Outgoing> {
        let Some(channel) = self.channels.remove(topic) else {
            return Vec::new();
        };
        self.hub.leave(&channel.room, channel.member);
        vec![
            system(topic, &channel.join_ref, "system", "error", reason),
            close_message(topic, &channel.join_ref),
        ]
    }

    /// The socket is gone: every channel leaves (and what it tracked).
    pub fn close(&mut self) {
        for channel in self.channels.values() {
            self.hub.leave(&channel.room, channel.member);
        }
        self.channels.clear();
    }

    /// How a message or a delivery goes on this socket's wire.
    pub fn encode(&self, outgoing: &Message) -> Frame {
        Frame::Text(outgoing.encode(self.vsn))
    }

    pub fn encode_delivery(&self, delivery: &Delivery) -> Option<Frame> {
        match delivery {
            Delivery::Message(message) => Some(self.encode(message)),
            Delivery::Push(join_ref, push) => Some(Frame::Text(push.encode(self.vsn, join_ref))),
            Delivery::Broadcast(broadcast) => broadcast.frame(self.vsn, |broadcast| {
                let SharedBroadcast { topic, event, payload, .. } = broadcast;
                match (payload, self.vsn) {
                    (BroadcastPayload::Raw(_), Vsn::V2) => binary::encode_broadcast(topic, event, payload).map(Frame::Binary),
                    // vsn 1.0.0 has no binary frames.
                    (BroadcastPayload::Raw(_), Vsn::V1) => None,
                    (BroadcastPayload::Json(value), _) => Some(Frame::Text(
                        Message {
                            join_ref: None,
                            msg_ref: None,
                            topic: topic.clone(),
                            event: "broadcast".into(),
                            payload: json!({ "type": "broadcast", "event": event, "payload": value }),
                        }
                        .encode(self.vsn),
                    )),
                }
            }),
        }
    }
}

fn push(topic: &str, join_ref: &str, event: &str, payload: Value) -> Outgoing {
    Outgoing::Message(Message {
        join_ref: Some(join_ref.to_owned()),
        msg_ref: None,
        topic: topic.to_owned(),
        event: event.to_owned(),
        payload,
    })
}

fn system(topic: &str, join_ref: &str, extension: &str, status: &str, text: &str) -> Outgoing {
    let channel = topic.strip_prefix("realtime:").unwrap_or(topic);
    push(
        topic,
        join_ref,
        "system",
        json!({ "extension": extension, "status": status, "message": text, "channel": channel }),
    )
}

fn subscribed(topic: &str, join_ref: &str) -> Outgoing {
    system(
        topic,
        join_ref,
        "postgres_changes",
        "ok",
        "Subscribed to PostgreSQL",
    )
}

/// `phx_close` carries the join ref as both refs, so realtime-js accepts it.
fn close_message(topic: &str, join_ref: &str) -> Outgoing {
    Outgoing::Message(Message {
        join_ref: Some(join_ref.to_owned()),
        msg_ref: Some(join_ref.to_owned()),
        topic: topic.to_owned(),
        event: "phx_close".into(),
        payload: json!({}),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{PolicyFuture, ReadAccess};
    use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

    /// Tokens are "valid:<exp>", "expired" or anything else (malformed).
    struct Tokens;

    impl Authorizer for Tokens {
        fn verify(&self, token: &str, now: i64) -> Result<Claims, TokenRefusal> {
            match token.strip_prefix("valid:") {
                Some(exp) => Ok(Claims {
                    role: "authenticated".into(),
                    exp: exp.parse().unwrap(),
                    all: json!({}),
                }),
                None if token == "expired" => Err(TokenRefusal::Expired {
                    seconds_ago: now - 10,
                }),
                None => Err(TokenRefusal::Malformed),
            }
        }
    }

    /// Private topics: "abierta" may be read (broadcast) and written; "solo-presencia" read for
    /// presence only; any other is closed.
    struct Rooms;

    impl Policies for Rooms {
        fn read<'a>(
            &'a self,
            topic: &'a str,
            _claims: &'a Claims,
        ) -> PolicyFuture<'a, Result<ReadAccess, String>> {
            let access = match topic {
                "abierta" => ReadAccess {
                    broadcast: true,
                    presence: true,
                },
                "solo-presencia" => ReadAccess {
                    broadcast: false,
                    presence: true,
                },
                _ => ReadAccess {
                    broadcast: false,
                    presence: false,
                },
            };
            Box::pin(async move { Ok(access) })
        }

        fn write<'a>(
            &'a self,
            topic: &'a str,
            _claims: &'a Claims,
            extension: &'a str,
        ) -> PolicyFuture<'a, Result<bool, String>> {
            let allowed = topic == "abierta" && extension == "broadcast";
            Box::pin(async move { Ok(allowed) })
        }
    }

    /// Only `todos` is in the publication.
    struct Tables;

    impl ChangeSource for Tables {
        fn resolve<'a>(
            &'a self,
            bindings: &'a [crate::changes::Binding],
        ) -> PolicyFuture<'a, Result<Vec<crate::changes::Subscription>, SubscribeError>> {
            let resolved = bindings
                .iter()
                .map(|binding| {
                    if binding.table.as_deref() == Some("todos") {
                        Ok(crate::changes::Subscription {
                            id: binding.id,
                            event: binding.event,
                            schema: binding.schema.clone(),
                            table: binding.table.clone(),
                            filters: Vec::new(),
                        })
                    } else {
                        Err(SubscribeError::Refused(format!("Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: {}", binding.describe())))
                    }
                })
                .collect();
            Box::pin(async move { resolved })
        }
    }

    fn run<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    fn text(connection: &mut Connection, frame: &str, now: i64) -> Vec<Outgoing> {
        run(connection.handle_text(frame, now))
    }

    fn connection(hub: &Arc<Hub>) -> (Connection, UnboundedReceiver<Delivery>) {
        let (queue, deliveries) = unbounded_channel();
        (
            Connection::new(
                Vsn::V2,
                Arc::clone(hub),
                Arc::new(Tokens),
                Arc::new(Rooms),
                Arc::new(Tables),
                Limits::default(),
                "valid:2000".into(),
                queue,
            ),
            deliveries,
        )
    }

    fn messages(out: &[Outgoing]) -> Vec<&Message> {
        out.iter()
            .filter_map(|outgoing| match outgoing {
                Outgoing::Message(message) => Some(message),
                Outgoing::Close(_) => None,
            })
            .collect()
    }

    fn join(connection: &mut Connection, topic: &str, payload: Value) -> Vec<Outgoing> {
        text(
            connection,
            &json!(["1", "1", topic, "phx_join", payload]).to_string(),
            1000,
        )
    }

    #[test]
    fn a_join_echoes_the_bindings_with_ids_and_heartbeats_are_answered() {
        let hub = Hub::new();
        let (mut conn, _) = connection(&hub);
        let changes = json!([{"event": "*", "schema": "public", "table": "todos"}, {"event": "INSERT", "schema": "public", "table": "todos", "filter": "id=eq.1"}]);
        let out = join(
            &mut conn,
            "realtime:room",
            json!({"config": {"postgres_changes": changes}}),
        );
        let sent = messages(&out);
        assert_eq!(sent[0].event, "phx_reply");
        assert_eq!(sent[0].payload["status"], "ok");
        let bindings = sent[0].payload["response"]["postgres_changes"]
            .as_array()
            .unwrap();
        assert_eq!(bindings.len(), 2);
        assert_eq!(bindings[1]["filter"], "id=eq.1");
        assert!(bindings[0]["id"].as_u64().unwrap() < 1 << 27);
        assert_ne!(bindings[0]["id"], bindings[1]["id"]);
        assert_eq!(sent[1].event, "system");
        assert_eq!(
            sent[1].payload,
            json!({"extension": "postgres_changes", "status": "ok", "message": "Subscribed to PostgreSQL", "channel": "room"})
        );
        assert_eq!(hub.listeners().len(), 1);
        let out = join(
            &mut conn,
            "realtime:other",
            json!({"config": {"postgres_changes": [{"event": "*", "schema": "public", "table": "notes"}]}}),
        );
        let sent = messages(&out);
        assert_eq!(sent[1].payload["status"], "error");
        assert_eq!(
            sent[1].payload["message"],
            "Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: [event: *, schema: public, table: notes, filters: [], select: nil]"
        );
        assert_eq!(
            hub.listeners().len(),
            1,
            "a refused subscription is not kept"
        );
        text(
            &mut conn,
            r#"["1","3","realtime:room","phx_leave",{}]"#,
            1000,
        );
        assert!(hub.listeners().is_empty(), "leaving ends the subscription");
        let heartbeat = text(&mut conn, r#"[null,"7","phoenix","heartbeat",{}]"#, 1000);
        assert_eq!(
            messages(&heartbeat)[0].payload,
            json!({"status": "ok", "response": {}})
        );
    }

    #[test]
    fn joins_are_refused_as_supabase_words_it() {
        let hub = Hub::new();
        let (mut conn, _) = connection(&hub);
        let reason = |out: Vec<Outgoing>| {
            messages(&out)[0].payload["response"]["reason"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        assert_eq!(
            reason(join(&mut conn, "realtime:", json!({}))),
            "TopicNameRequired: You must provide a topic name"
        );
        assert_eq!(
            reason(join(&mut conn, "room", json!({}))),
            "unmatched topic"
        );
        assert!(
            reason(join(
                &mut conn,
                "realtime:a",
                json!({"access_token": "expired"})
            ))
            .starts_with("InvalidJWTToken: Token has expired")
        );
        assert_eq!(
            reason(join(&mut conn, "realtime:a", json!({"access_token": "x"}))),
            "MalformedJWT: The token provided is not a valid JWT"
        );
        // An sb_ key means the socket's own token.
        assert_eq!(
            messages(&join(
                &mut conn,
                "realtime:a",
                json!({"access_token": "sb_publishable_x"})
            ))[0]
                .payload["status"],
            "ok"
        );
    }

    #[test]
    fn broadcasts_reach_others_with_self_and_ack_as_configured() {
        let hub = Hub::new();
        let (mut a, mut a_rx) = connection(&hub);
        let (mut b, mut b_rx) = connection(&hub);
        join(
            &mut a,
            "realtime:room",
            json!({"config": {"broadcast": {"self": true, "ack": "true"}}}),
        );
        join(&mut b, "realtime:room", json!({"config": {}}));
        let out = text(&mut a, &json!(["1", "2", "realtime:room", "broadcast", {"type": "broadcast", "event": "hola", "payload": {"n": 1}}]).to_string(), 1000);
        assert_eq!(messages(&out)[0].payload["status"], "ok", "ack");
        for (conn, rx) in [(&a, &mut a_rx), (&b, &mut b_rx)] {
            let delivery = rx.try_recv().unwrap();
            let Some(Frame::Text(text)) = conn.encode_delivery(&delivery) else {
                panic!()
            };
            assert_eq!(
                text,
                r#"[null,null,"realtime:room","broadcast",{"event":"hola","payload":{"n":1},"type":"broadcast"}]"#
            );
        }
        let out = text(&mut b, &json!(["1", "2", "realtime:room", "broadcast", {"type": "broadcast", "event": "x", "payload": {}}]).to_string(), 1000);
        assert!(out.is_empty(), "no ack asked, no reply");
        assert!(b_rx.try_recv().is_err(), "not to itself");
        assert!(a_rx.try_recv().is_ok());
    }

    #[test]
    fn presence_state_follows_the_join_and_a_leave_closes_the_channel() {
        let hub = Hub::new();
        let (mut a, _) = connection(&hub);
        let out = join(
            &mut a,
            "realtime:room",
            json!({"config": {"presence": {"enabled": true, "key": "ana"}}}),
        );
        let sent = messages(&out);
        assert_eq!(sent[1].event, "presence_state");
        assert_eq!(sent[1].join_ref.as_deref(), Some("1"));
        let track = text(&mut a, &json!(["1", "3", "realtime:room", "presence", {"type": "presence", "event": "track", "payload": "nope"}]).to_string(), 1000);
        assert_eq!(
            messages(&track)[0].payload["response"]["reason"],
            "Presence track payload must be a map"
        );
        text(&mut a, &json!(["1", "4", "realtime:room", "presence", {"type": "presence", "event": "track", "payload": {"x": 1}}]).to_string(), 1000);
        assert!(hub.presence_state("realtime:room")["ana"].is_object());
        let out = text(&mut a, r#"["1","5","realtime:room","phx_leave",{}]"#, 1000);
        let sent = messages(&out);
        assert_eq!(
            (sent[0].event.as_str(), sent[1].event.as_str()),
            ("phx_reply", "phx_close")
        );
        assert_eq!(sent[1].msg_ref.as_deref(), Some("1"));
        assert_eq!(hub.presence_state("realtime:room"), json!({}));
    }

    #[test]
    fn an_expired_or_refused_token_closes_the_channel() {
        let hub = Hub::new();
        let (mut a, _) = connection(&hub);
        join(
            &mut a,
            "realtime:room",
            json!({"access_token": "valid:1500"}),
        );
        assert!(a.tick(1400).is_empty());
        let out = a.tick(1503);
        let sent = messages(&out);
        assert_eq!(
            sent[0].payload["message"],
            "Token has expired 3 seconds ago"
        );
        assert_eq!(sent[0].payload["channel"], "room");
        assert_eq!(sent[1].event, "phx_close");
        join(&mut a, "realtime:room", json!({}));
        let out = text(
            &mut a,
            r#"["1","6","realtime:room","access_token",{"access_token":"broken"}]"#,
            1000,
        );
        assert_eq!(
            messages(&out)[0].payload["message"],
            "The token provided is not a valid JWT"
        );
    }

    #[test]
    fn too_many_channels_are_refused() {
        let hub = Hub::new();
        let (queue, _rx) = unbounded_channel();
        let limits = Limits {
            channels_per_connection: 2,
            ..Limits::default()
        };
        let mut conn = Connection::new(
            Vsn::V2,
            hub,
            Arc::new(Tokens),
            Arc::new(Rooms),
            Arc::new(Tables),
            limits,
            "valid:2000".into(),
            queue,
        );
        join(&mut conn, "realtime:a", json!({}));
        join(&mut conn, "realtime:b", json!({}));
        let out = join(&mut conn, "realtime:c", json!({}));
        assert_eq!(
            messages(&out)[0].payload["response"]["reason"],
            "ChannelRateLimitReached: Too many channels"
        );
    }

    #[test]
    fn private_channels_follow_the_policies() {
        let hub = Hub::new();
        let (mut ana, mut ana_rx) = connection(&hub);
        let (mut beto, mut beto_rx) = connection(&hub);
        let (mut public, mut public_rx) = connection(&hub);
        let private = json!({"config": {"private": true, "broadcast": {"ack": true}}});
        let reason = |out: Vec<Outgoing>| messages(&out)[0].payload["response"]["reason"].clone();
        assert_eq!(
            reason(join(&mut ana, "realtime:cerrada", private.clone())),
            "Unauthorized: You do not have permissions to read from this Channel topic: cerrada"
        );
        assert_eq!(
            messages(&join(&mut ana, "realtime:abierta", private.clone()))[0].payload["status"],
            "ok"
        );
        assert_eq!(
            messages(&join(&mut beto, "realtime:abierta", private.clone()))[0].payload["status"],
            "ok"
        );
        join(&mut public, "realtime:abierta", json!({}));
        let sent = text(&mut ana, &json!(["1", "2", "realtime:abierta", "broadcast", {"type": "broadcast", "event": "e", "payload": {}}]).to_string(), 1000);
        assert_eq!(messages(&sent)[0].payload["status"], "ok");
        assert!(beto_rx.try_recv().is_ok(), "a private member reads it");
        assert!(
            public_rx.try_recv().is_err(),
            "the public channel of the same name is another room"
        );
        assert!(ana_rx.try_recv().is_err());

        // Presence-only readers join but get no broadcasts; no write: no reply, nothing sent.
        let (mut viewer, mut viewer_rx) = connection(&hub);
        join(&mut viewer, "realtime:solo-presencia", private.clone());
        let (mut other, _) = connection(&hub);
        join(&mut other, "realtime:solo-presencia", private);
        let dropped = text(&mut other, &json!(["1", "3", "realtime:solo-presencia", "broadcast", {"type": "broadcast", "event": "e", "payload": {}}]).to_string(), 1000);
        assert!(dropped.is_empty());
        assert!(viewer_rx.try_recv().is_err());
        let track = text(&mut other, &json!(["1", "4", "realtime:solo-presencia", "presence", {"type": "presence", "event": "track", "payload": {}}]).to_string(), 1000);
        assert_eq!(
            messages(&track)[0].payload,
            json!({"status": "error", "response": {}})
        );
    }
}
