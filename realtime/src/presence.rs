//! Presence of one topic: who is tracked under which key, each track a "meta" (the tracked
//! payload plus its `phx_ref`). Tracking, untracking and a member leaving produce the
//! `presence_diff` every member receives; the whole state is the `presence_state` a member
//! gets after joining.

use std::collections::BTreeMap;

use base64::Engine;
use serde_json::{Map, Value, json};

/// Who tracks: a member of the topic (one joined channel of one socket).
pub type MemberId = u64;

#[derive(Debug, Clone, PartialEq)]
struct Meta {
    member: MemberId,
    phx_ref: String,
    phx_ref_prev: Option<String>,
    payload: Map<String, Value>,
}

impl Meta {
    fn to_json(&self) -> Value {
        let mut meta = self.payload.clone();
        meta.insert("phx_ref".into(), Value::String(self.phx_ref.clone()));
        if let Some(prev) = &self.phx_ref_prev {
            meta.insert("phx_ref_prev".into(), Value::String(prev.clone()));
        }
        Value::Object(meta)
    }
}

/// A change to announce: metas that joined and metas that left, by key.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Diff {
    joins: BTreeMap<String, Vec<Value>>,
    leaves: BTreeMap<String, Vec<Value>>,
}

impl Diff {
    pub fn is_empty(&self) -> bool {
        self.joins.is_empty() && self.leaves.is_empty()
    }

    /// Adds `next` as if both diffs had been applied in turn: realtime-js applies a diff's
    /// joins then its leaves, and tells metas apart by their `phx_ref`, so appending each
    /// key's metas keeps the outcome.
    pub fn merge(&mut self, next: Diff) {
        for (into, from) in [
            (&mut self.joins, next.joins),
            (&mut self.leaves, next.leaves),
        ] {
            for (key, metas) in from {
                into.entry(key).or_default().extend(metas);
            }
        }
    }

    /// The `presence_diff` payload.
    pub fn to_json(&self) -> Value {
        let side = |entries: &BTreeMap<String, Vec<Value>>| {
            Value::Object(
                entries
                    .iter()
                    .map(|(key, metas)| (key.clone(), json!({ "metas": metas })))
                    .collect(),
            )
        };
        json!({ "joins": side(&self.joins), "leaves": side(&self.leaves) })
    }
}

#[derive(Debug, Default)]
pub struct Presence {
    by_key: BTreeMap<String, Vec<Meta>>,
}

impl Presence {
    /// Tracks `payload` for `member` under `key`: a new meta, or the member's meta under that
    /// key replaced (a leave of the old and a join of the new, which names the old one). The
    /// same payload again changes nothing.
    pub fn track(&mut self, member: MemberId, key: &str, payload: Map<String, Value>) -> Diff {
        let mut diff = Diff::default();
        let metas = self.by_key.entry(key.to_owned()).or_default();
        let previous = metas.iter().position(|meta| meta.member == member);
        if let Some(at) = previous {
            if metas[at].payload == payload {
                return diff;
            }
            let old = metas.remove(at);
            diff.leaves
                .entry(key.to_owned())
                .or_default()
                .push(old.to_json());
            let meta = Meta {
                member,
                phx_ref: new_ref(),
                phx_ref_prev: Some(old.phx_ref),
                payload,
            };
            diff.joins
                .entry(key.to_owned())
                .or_default()
                .push(meta.to_json());
            metas.push(meta);
        } else {
            let meta = Meta {
                member,
                phx_ref: new_ref(),
                phx_ref_prev: None,
                payload,
            };
            diff.joins
                .entry(key.to_owned())
                .or_default()
                .push(meta.to_json());
            metas.push(meta);
        }
        diff
    }

    /// Everything `member` tracks, gone (untrack, leave, a socket that died).
    pub fn untrack(&mut self, member: MemberId) -> Diff {
        let mut diff = Diff::default();
        self.by_key.retain(|key, metas| {
            metas.retain(|meta| {
                let mine = meta.member == member;
                if mine {
                    diff.leaves
                        .entry(key.clone())
                        .or_default()
                        .push(meta.to_json());
                }
                !mine
            });
            !metas.is_empty()
        });
        diff
    }

    /// The `presence_state` payload.
    pub fn state(&self) -> Value {
        Value::Object(
            self.by_key
                .iter()
                .map(|(key, metas)| {
                    let metas: Vec<Value> = metas.iter().map(Meta::to_json).collect();
                    (key.clone(), json!({ "metas": metas }))
                })
                .collect(),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// What each member tracks: its key and payload.
    pub fn tracked(&self) -> Vec<(MemberId, String, Map<String, Value>)> {
        self.by_key
            .iter()
            .flat_map(|(key, metas)| {
                metas
                    .iter()
                    .map(|meta| (meta.member, key.clone(), meta.payload.clone()))
            })
            .collect()
    }
}

/// A track's reference: 12 bytes (time and randomness) as 16 URL-safe base64 characters, the
/// shape Phoenix gives its refs.
fn new_ref() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos() as u64);
    let mut bytes = [0u8; 12];
    bytes[..8].copy_from_slice(&nanos.to_be_bytes());
    bytes[8..].copy_from_slice(&rand::random::<[u8; 4]>());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn a_track_joins_and_an_untrack_leaves() {
        let mut presence = Presence::default();
        let diff = presence.track(1, "ana", payload(json!({"online_at": 1})));
        let joined = &diff.to_json()["joins"]["ana"]["metas"][0];
        assert_eq!(joined["online_at"], 1);
        assert_eq!(joined["phx_ref"].as_str().unwrap().len(), 16);
        assert_eq!(
            presence.state()["ana"]["metas"][0]["phx_ref"],
            joined["phx_ref"]
        );

        let diff = presence.untrack(1);
        assert_eq!(
            diff.to_json()["leaves"]["ana"]["metas"][0]["phx_ref"],
            joined["phx_ref"]
        );
        assert!(presence.is_empty());
        assert_eq!(presence.state(), json!({}));
    }

    #[test]
    fn tracking_again_updates_or_changes_nothing() {
        let mut presence = Presence::default();
        let first = presence.track(1, "ana", payload(json!({"status": "a"})));
        assert!(
            presence
                .track(1, "ana", payload(json!({"status": "a"})))
                .is_empty()
        );
        let update = presence
            .track(1, "ana", payload(json!({"status": "b"})))
            .to_json();
        let old_ref = &first.to_json()["joins"]["ana"]["metas"][0]["phx_ref"];
        assert_eq!(&update["leaves"]["ana"]["metas"][0]["phx_ref"], old_ref);
        assert_eq!(&update["joins"]["ana"]["metas"][0]["phx_ref_prev"], old_ref);
        assert_eq!(update["joins"]["ana"]["metas"][0]["status"], "b");
        assert_eq!(
            presence.state()["ana"]["metas"].as_array().unwrap().len(),
            1
        );
    }

    #[test]
    fn merged_diffs_have_every_join_and_leave() {
        let mut presence = Presence::default();
        let mut merged = presence.track(1, "ana", Map::new());
        merged.merge(presence.track(2, "beto", Map::new()));
        merged.merge(presence.track(3, "ana", Map::new()));
        merged.merge(presence.untrack(2));
        let merged = merged.to_json();
        assert_eq!(merged["joins"]["ana"]["metas"].as_array().unwrap().len(), 2);
        assert_eq!(
            merged["joins"]["beto"]["metas"].as_array().unwrap().len(),
            1
        );
        assert_eq!(
            merged["leaves"]["beto"]["metas"].as_array().unwrap().len(),
            1
        );
    }

    #[test]
    fn two_members_under_one_key_are_two_metas() {
        let mut presence = Presence::default();
        presence.track(1, "ana", Map::new());
        presence.track(2, "ana", Map::new());
        assert_eq!(
            presence.state()["ana"]["metas"].as_array().unwrap().len(),
            2
        );
        presence.untrack(1);
        assert_eq!(
            presence.state()["ana"]["metas"].as_array().unwrap().len(),
            1
        );
    }
}
