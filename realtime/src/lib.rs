//! The wire protocol of realtime/v1: Phoenix channel messages over a websocket.
//!
//! realtime-js (vsn `2.0.0`, its default) sends text frames as JSON arrays
//! `[join_ref, ref, topic, event, payload]`; with vsn `1.0.0` a frame is a JSON object
//! `{"join_ref","ref","topic","event","payload"}`. The server answers in the encoding the
//! client asked for when it connected. Binary broadcast frames are handled separately.

pub mod protocol;

pub use protocol::{Message, ProtocolError, Vsn};

/// Interval at which realtime-js sends `heartbeat` on topic `phoenix`.
pub const CLIENT_HEARTBEAT_INTERVAL_SECS: u64 = 25;
