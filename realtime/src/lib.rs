//! realtime/v1: Supabase Realtime's channels over a websocket, as the unchanged realtime-js
//! expects them. [`protocol`] and [`binary`] are the wire (Phoenix messages in their two JSON
//! encodings, vsn 2.0.0's binary broadcast frames); [`connection`] runs one socket's channels
//! (joins with their tokens and limits, broadcast, presence, token expiry); [`changes`] is
//! postgres_changes (bindings, filters, each change's data); [`hub`] holds this
//! process's topics and delivers to their members; [`presence`] is one topic's presence;
//! [`policy`] is how private channels are authorised (Realtime Authorization). The
//! websocket itself and the HTTP broadcast endpoint are the gateway's (`realtime_v1`).

pub mod binary;
pub mod changes;
pub mod connection;
pub mod hub;
pub mod policy;
pub mod presence;
pub mod protocol;

pub use changes::{Change, ChangeListener, ChangeSource, SubscribeError};
pub use connection::{Authorizer, Claims, Connection, Frame, Limits, Outgoing, TokenRefusal};
pub use hub::{Delivery, Hub, PresenceRelayed, Relayed, room_key};
pub use policy::{Policies, PolicyFuture, ReadAccess};
pub use protocol::{Message, ProtocolError, Vsn};

/// Interval at which realtime-js sends `heartbeat` on topic `phoenix`.
pub const CLIENT_HEARTBEAT_INTERVAL_SECS: u64 = 25;

/// A socket from which nothing arrives for this long is closed (Phoenix's default).
pub const IDLE_TIMEOUT_SECS: u64 = 60;
