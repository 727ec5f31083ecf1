//! Phoenix channel messages and their two JSON text encodings.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Serializer version negotiated by the `vsn` query parameter of the websocket URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vsn {
    /// `1.0.0`: JSON objects.
    V1,
    /// `2.0.0`: JSON arrays (realtime-js default).
    V2,
}

impl Vsn {
    /// Parses the `vsn` query parameter; a missing one means `1.0.0`, as in Phoenix.
    pub fn from_query(value: Option<&str>) -> Result<Self, ProtocolError> {
        match value {
            None | Some("1.0.0") => Ok(Vsn::V1),
            Some("2.0.0") => Ok(Vsn::V2),
            Some(other) => Err(ProtocolError::UnsupportedVsn(other.to_owned())),
        }
    }
}

/// One Phoenix message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub join_ref: Option<String>,
    #[serde(rename = "ref")]
    pub msg_ref: Option<String>,
    pub topic: String,
    pub event: String,
    pub payload: Value,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ProtocolError {
    #[error("unsupported serializer version {0:?}")]
    UnsupportedVsn(String),
    #[error("malformed message: {0}")]
    Malformed(String),
}

impl Message {
    /// Decodes a text frame.
    pub fn decode(vsn: Vsn, text: &str) -> Result<Self, ProtocolError> {
        let malformed = |error: serde_json::Error| ProtocolError::Malformed(error.to_string());
        match vsn {
            Vsn::V1 => serde_json::from_str(text).map_err(malformed),
            Vsn::V2 => {
                let (join_ref, msg_ref, topic, event, payload): (
                    Option<Ref>,
                    Option<Ref>,
                    String,
                    String,
                    Value,
                ) = serde_json::from_str(text).map_err(malformed)?;
                Ok(Message {
                    join_ref: join_ref.map(Ref::into_string),
                    msg_ref: msg_ref.map(Ref::into_string),
                    topic,
                    event,
                    payload,
                })
            }
        }
    }

    /// Encodes a text frame.
    pub fn encode(&self, vsn: Vsn) -> String {
        match vsn {
            Vsn::V1 => serde_json::to_value(self)
                .unwrap_or(Value::Null)
                .to_string(),
            // Serialized in place: the payload may be large and go to many sockets.
            Vsn::V2 => serde_json::to_string(&(
                &self.join_ref,
                &self.msg_ref,
                &self.topic,
                &self.event,
                &self.payload,
            ))
            .unwrap_or_default(),
        }
    }
}

/// Refs are strings in realtime-js but integers in some Phoenix clients; accept both.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Ref {
    Text(String),
    Number(i64),
}

impl Ref {
    fn into_string(self) -> String {
        match self {
            Ref::Text(text) => text,
            Ref::Number(number) => number.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decodes_a_v2_heartbeat() {
        let message = Message::decode(Vsn::V2, r#"[null,"12","phoenix","heartbeat",{}]"#).unwrap();
        assert_eq!(message.join_ref, None);
        assert_eq!(message.msg_ref.as_deref(), Some("12"));
        assert_eq!(message.topic, "phoenix");
        assert_eq!(message.event, "heartbeat");
        assert_eq!(message.payload, json!({}));
    }

    #[test]
    fn round_trips_in_both_encodings() {
        let message = Message {
            join_ref: Some("1".into()),
            msg_ref: Some("1".into()),
            topic: "realtime:room".into(),
            event: "phx_reply".into(),
            payload: json!({"status": "ok", "response": {"postgres_changes": []}}),
        };
        for vsn in [Vsn::V1, Vsn::V2] {
            assert_eq!(Message::decode(vsn, &message.encode(vsn)).unwrap(), message);
        }
        assert_eq!(
            message.encode(Vsn::V2),
            r#"["1","1","realtime:room","phx_reply",{"response":{"postgres_changes":[]},"status":"ok"}]"#
        );
    }

    #[test]
    fn numeric_refs_are_accepted() {
        let message = Message::decode(Vsn::V2, r#"[1,2,"t","e",null]"#).unwrap();
        assert_eq!(message.join_ref.as_deref(), Some("1"));
        assert_eq!(message.msg_ref.as_deref(), Some("2"));
    }

    #[test]
    fn malformed_frames_are_errors_not_panics() {
        for frame in [
            "",
            "[]",
            "[1,2,3]",
            "{}",
            "not json",
            r#"[null,null,1,"e",{}]"#,
        ] {
            assert!(Message::decode(Vsn::V2, frame).is_err(), "{frame}");
        }
        assert!(Message::decode(Vsn::V1, r#"{"topic":"t"}"#).is_err());
    }

    #[test]
    fn vsn_comes_from_the_query() {
        assert_eq!(Vsn::from_query(Some("2.0.0")), Ok(Vsn::V2));
        assert_eq!(Vsn::from_query(None), Ok(Vsn::V1));
        assert!(Vsn::from_query(Some("3.0.0")).is_err());
    }
}
