//! vsn 2.0.0 binary frames: the "user broadcast push" realtime-js sends for every websocket
//! broadcast (kind 3) and the "user broadcast" the server sends back (kind 4). Each string
//! is length-prefixed by one byte; the payload is the rest of the frame, JSON (encoding 1) or
//! raw bytes (encoding 0).

use serde_json::Value;

use crate::protocol::ProtocolError;

const PUSH: u8 = 3;
const BROADCAST: u8 = 4;
const RAW: u8 = 0;
const JSON: u8 = 1;

/// A broadcast's payload as it travels: JSON, or bytes the sender gave as an ArrayBuffer.
#[derive(Debug, Clone, PartialEq)]
pub enum BroadcastPayload {
    Json(Value),
    Raw(Vec<u8>),
}

/// A kind-3 frame decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct BroadcastPush {
    pub join_ref: Option<String>,
    pub msg_ref: Option<String>,
    pub topic: String,
    pub event: String,
    pub payload: BroadcastPayload,
}

/// Decodes a client's binary frame; only kind 3 exists client to server.
pub fn decode_push(frame: &[u8]) -> Result<BroadcastPush, ProtocolError> {
    let malformed = |what: &str| ProtocolError::Malformed(format!("binary frame: {what}"));
    let header = frame
        .get(..7)
        .ok_or_else(|| malformed("shorter than its header"))?;
    if header[0] != PUSH {
        return Err(malformed("not a user broadcast push (kind 3)"));
    }
    let lengths = [header[1], header[2], header[3], header[4], header[5]].map(usize::from);
    let mut at = 7;
    let mut parts = Vec::with_capacity(5);
    for length in lengths {
        let part = frame
            .get(at..at + length)
            .ok_or_else(|| malformed("a field runs past the end"))?;
        parts.push(std::str::from_utf8(part).map_err(|_| malformed("a field is not UTF-8"))?);
        at += length;
    }
    let rest = &frame[at..];
    let payload = match header[6] {
        JSON => BroadcastPayload::Json(
            serde_json::from_slice(rest).map_err(|_| malformed("payload is not JSON"))?,
        ),
        RAW => BroadcastPayload::Raw(rest.to_vec()),
        _ => return Err(malformed("unknown payload encoding")),
    };
    let text = |part: &str| (!part.is_empty()).then(|| part.to_owned());
    Ok(BroadcastPush {
        join_ref: text(parts[0]),
        msg_ref: text(parts[1]),
        topic: parts[2].to_owned(),
        event: parts[3].to_owned(),
        payload,
    })
}

/// Encodes a kind-4 frame for a subscriber; `None` when a field is over 255 bytes (the
/// caller then sends the broadcast as a text frame).
pub fn encode_broadcast(topic: &str, event: &str, payload: &BroadcastPayload) -> Option<Vec<u8>> {
    let topic_len = u8::try_from(topic.len()).ok()?;
    let event_len = u8::try_from(event.len()).ok()?;
    let (encoding, body) = match payload {
        BroadcastPayload::Json(value) => (JSON, value.to_string().into_bytes()),
        BroadcastPayload::Raw(bytes) => (RAW, bytes.clone()),
    };
    let mut frame = Vec::with_capacity(5 + topic.len() + event.len() + body.len());
    frame.extend_from_slice(&[BROADCAST, topic_len, event_len, 0, encoding]);
    frame.extend_from_slice(topic.as_bytes());
    frame.extend_from_slice(event.as_bytes());
    frame.extend_from_slice(&body);
    Some(frame)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn push(
        join_ref: &str,
        msg_ref: &str,
        topic: &str,
        event: &str,
        meta: &str,
        encoding: u8,
        payload: &[u8],
    ) -> Vec<u8> {
        let mut frame = vec![
            3,
            join_ref.len() as u8,
            msg_ref.len() as u8,
            topic.len() as u8,
            event.len() as u8,
            meta.len() as u8,
            encoding,
        ];
        for part in [join_ref, msg_ref, topic, event, meta] {
            frame.extend_from_slice(part.as_bytes());
        }
        frame.extend_from_slice(payload);
        frame
    }

    #[test]
    fn a_json_push_is_decoded() {
        let frame = push("1", "3", "realtime:room", "cursor", "", 1, br#"{"x":1}"#);
        let decoded = decode_push(&frame).unwrap();
        assert_eq!(decoded.join_ref.as_deref(), Some("1"));
        assert_eq!(decoded.msg_ref.as_deref(), Some("3"));
        assert_eq!(decoded.topic, "realtime:room");
        assert_eq!(decoded.event, "cursor");
        assert_eq!(decoded.payload, BroadcastPayload::Json(json!({"x": 1})));
    }

    #[test]
    fn a_raw_push_keeps_its_bytes_and_metadata_is_skipped() {
        let frame = push(
            "1",
            "",
            "realtime:room",
            "file",
            r#"{"persist":true}"#,
            0,
            &[0, 159, 255],
        );
        let decoded = decode_push(&frame).unwrap();
        assert_eq!(decoded.msg_ref, None);
        assert_eq!(decoded.payload, BroadcastPayload::Raw(vec![0, 159, 255]));
    }

    #[test]
    fn broken_frames_are_errors() {
        let good = push("1", "3", "realtime:room", "cursor", "", 1, b"{}");
        for bad in [
            vec![],
            vec![3, 1, 1],
            good[..9].to_vec(),
            push("1", "3", "t", "e", "", 1, b"not json"),
            push("1", "3", "t", "e", "", 7, b"{}"),
            [&[4u8][..], &good[1..]].concat(),
        ] {
            assert!(decode_push(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_broadcast_is_encoded_as_kind_4() {
        let frame = encode_broadcast(
            "realtime:room",
            "cursor",
            &BroadcastPayload::Json(json!({"x": 1})),
        )
        .unwrap();
        assert_eq!(&frame[..5], &[4, 13, 6, 0, 1]);
        assert_eq!(&frame[5..18], b"realtime:room");
        assert_eq!(&frame[18..24], b"cursor");
        assert_eq!(&frame[24..], br#"{"x":1}"#);
        assert!(encode_broadcast(&"t".repeat(300), "e", &BroadcastPayload::Raw(vec![])).is_none());
    }
}
