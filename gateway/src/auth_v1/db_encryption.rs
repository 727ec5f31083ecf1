//! GoTrue's database encryption (`SECURITY_DB_ENCRYPTION_*`) for secrets at rest — here,
//! TOTP secrets in `auth.mfa_factors.secret`.
//!
//! An encrypted value is GoTrue's `EncryptedString`: the JSON
//! `{"key_id":…,"alg":"aes-gcm-hkdf","data":…,"nonce":…}` (standard base64), AES-256-GCM
//! under a key derived with HKDF-SHA256 from the named 256-bit key and the id of the row
//! that holds it, so a value cannot be moved to another row. Values that are not such a
//! string are plaintext, as GoTrue stores them with encryption off; both are read, so
//! factors move between Supabase and Cielo either way as long as the keys come along.

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rand::RngCore;
use serde::{Deserialize, Serialize};

use crate::config::DbEncryption;

const ALGORITHM: &str = "aes-gcm-hkdf";

#[derive(Debug, Serialize, Deserialize)]
struct EncryptedString {
    key_id: String,
    alg: String,
    #[serde(with = "base64_bytes")]
    data: Vec<u8>,
    #[serde(with = "base64_bytes", default)]
    nonce: Vec<u8>,
}

/// Go's `[]byte` in JSON: standard base64 with padding.
mod base64_bytes {
    use super::*;

    pub fn serialize<S: serde::Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(deserializer)?;
        STANDARD.decode(text).map_err(serde::de::Error::custom)
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CryptoError {
    #[error("decryption key with name {0:?} does not exist")]
    UnknownKey(String),
    #[error("the value does not decrypt with key {0:?}")]
    Corrupt(String),
}

/// GoTrue's `ParseEncryptedString`: a JSON object of the right shape, or `None`.
fn parse(stored: &str) -> Option<EncryptedString> {
    if !stored.starts_with('{') {
        return None;
    }
    let parsed: EncryptedString = serde_json::from_str(stored).ok()?;
    let valid = !parsed.key_id.is_empty()
        && !parsed.data.is_empty()
        && parsed.nonce.len() == 12
        && parsed.alg == ALGORITHM;
    valid.then_some(parsed)
}

/// The AES-256-GCM key for the row `id` (HKDF-SHA256, no salt, the id as info).
fn cipher(id: &str, key: &[u8; 32]) -> Aes256Gcm {
    let hkdf = hkdf::Hkdf::<sha2::Sha256>::new(None, key);
    let mut derived = [0u8; 32];
    // 32 bytes are always within HKDF-SHA256's output limit.
    let _ = hkdf.expand(id.as_bytes(), &mut derived);
    Aes256Gcm::new(&aes_gcm::Key::<Aes256Gcm>::from(derived))
}

/// Encrypts `plaintext` for the row `id` with the configured encryption key.
pub fn encrypt(id: &str, plaintext: &str, config: &DbEncryption) -> String {
    let mut nonce = [0u8; 12];
    rand::rng().fill_bytes(&mut nonce);
    let data = cipher(id, &config.encryption_key)
        .encrypt(&Nonce::from(nonce), plaintext.as_bytes())
        .unwrap_or_default();
    let value = EncryptedString {
        key_id: config.encryption_key_id.clone(),
        alg: ALGORITHM.into(),
        data,
        nonce: nonce.to_vec(),
    };
    serde_json::to_string(&value).unwrap_or_default()
}

/// What is stored for a secret: encrypted when encryption is on, else as it is.
pub fn seal(id: &str, plaintext: &str, config: Option<&DbEncryption>) -> String {
    match config.filter(|config| config.encrypt) {
        Some(config) => encrypt(id, plaintext, config),
        None => plaintext.to_owned(),
    }
}

/// The plaintext of a stored value of row `id`, and whether it should be stored again
/// (encryption is on and the value is plaintext or under an older key), as GoTrue's
/// `GetSecret`.
pub fn open(
    id: &str,
    stored: &str,
    config: Option<&DbEncryption>,
) -> Result<(String, bool), CryptoError> {
    let encrypting = config.is_some_and(|config| config.encrypt);
    let Some(value) = parse(stored) else {
        return Ok((stored.to_owned(), encrypting));
    };
    let key = config
        .and_then(|config| config.decryption_keys.get(&value.key_id))
        .ok_or_else(|| CryptoError::UnknownKey(value.key_id.clone()))?;
    let corrupt = || CryptoError::Corrupt(value.key_id.clone());
    let nonce = <[u8; 12]>::try_from(value.nonce.as_slice()).map_err(|_| corrupt())?;
    let plaintext = cipher(id, key)
        .decrypt(&Nonce::from(nonce), value.data.as_slice())
        .map_err(|_| CryptoError::Corrupt(value.key_id.clone()))?;
    let plaintext =
        String::from_utf8(plaintext).map_err(|_| CryptoError::Corrupt(value.key_id.clone()))?;
    let reencrypt = config.is_some_and(|c| c.encrypt && c.encryption_key_id != value.key_id);
    Ok((plaintext, reencrypt))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn config(id: &str, key: [u8; 32], old: &[(&str, [u8; 32])]) -> DbEncryption {
        let mut decryption_keys: HashMap<String, [u8; 32]> = old
            .iter()
            .map(|(name, key)| ((*name).to_owned(), *key))
            .collect();
        decryption_keys.insert(id.to_owned(), key);
        DbEncryption {
            encrypt: true,
            encryption_key_id: id.into(),
            encryption_key: key,
            decryption_keys,
        }
    }

    #[test]
    fn round_trip_bound_to_the_row() {
        let config = config("k1", [7; 32], &[]);
        let row = "0b5c2c0e-3d1a-4f7e-9a43-2f0f7b2f3c11";
        let sealed = seal(row, "JBSWY3DPEHPK3PXP", Some(&config));
        assert!(sealed.starts_with(r#"{"key_id":"k1","alg":"aes-gcm-hkdf","data":""#));
        assert!(!sealed.contains("JBSWY3DPEHPK3PXP"));
        assert_eq!(
            open(row, &sealed, Some(&config)),
            Ok(("JBSWY3DPEHPK3PXP".into(), false))
        );
        // Another row's id derives another key.
        assert_eq!(
            open("another-row", &sealed, Some(&config)),
            Err(CryptoError::Corrupt("k1".into()))
        );
    }

    #[test]
    fn plaintext_and_old_keys_are_read_and_flagged_for_re_encryption() {
        let old = config("old", [1; 32], &[]);
        let sealed = seal("row", "SECRET", Some(&old));
        let rotated = config("new", [2; 32], &[("old", [1; 32])]);
        assert_eq!(
            open("row", &sealed, Some(&rotated)),
            Ok(("SECRET".into(), true))
        );
        assert_eq!(
            open("row", "SECRET", Some(&rotated)),
            Ok(("SECRET".into(), true))
        );
        assert_eq!(open("row", "SECRET", None), Ok(("SECRET".into(), false)));
        assert_eq!(seal("row", "SECRET", None), "SECRET");
        assert_eq!(
            open("row", &sealed, None),
            Err(CryptoError::UnknownKey("old".into()))
        );
    }

    /// A value in the shape GoTrue's `crypto.NewEncryptedString` writes, built here from
    /// the primitives it names (HKDF-SHA256 with the row id as info, AES-256-GCM, base64
    /// fields), reads back; other shapes are plaintext, as GoTrue's parser decides.
    #[test]
    fn reads_gotrues_format() {
        let key = [9u8; 32];
        let row = "factor-id";
        let nonce = [3u8; 12];
        let hkdf = hkdf::Hkdf::<sha2::Sha256>::new(None, &key);
        let mut derived = [0u8; 32];
        hkdf.expand(row.as_bytes(), &mut derived).unwrap();
        let data = Aes256Gcm::new_from_slice(&derived)
            .unwrap()
            .encrypt(&Nonce::from(nonce), b"ABCDEF".as_slice())
            .unwrap();
        let stored = format!(
            r#"{{"key_id":"gotrue","alg":"aes-gcm-hkdf","data":"{}","nonce":"{}"}}"#,
            STANDARD.encode(&data),
            STANDARD.encode(nonce)
        );
        let config = config("gotrue", key, &[]);
        assert_eq!(
            open(row, &stored, Some(&config)),
            Ok(("ABCDEF".into(), false))
        );
        // Not GoTrue's shape: taken as plaintext.
        let odd = r#"{"key_id":"gotrue","alg":"other","data":"AA==","nonce":"AAAAAAAAAAAAAAAA"}"#;
        assert_eq!(open(row, odd, Some(&config)), Ok((odd.into(), true)));
    }
}
