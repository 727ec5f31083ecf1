//! The project's own signing and verification keys at one moment ([`KeyRing`]): the key
//! user access tokens are signed with and every key they may have been signed with, from
//! `JWT_KEYS` or the managed signing keys ([`super::signing_keys`]). The ring is shared and
//! swapped as a whole when keys rotate, while requests keep running.

use std::sync::Arc;

use arc_swap::ArcSwap;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header};
use serde_json::Value;

use super::jwt::{Hs256Key, JwtError};

/// A key the project signs with or accepts, from `JWT_KEYS` or the managed signing keys.
#[derive(Clone)]
pub struct RingKey {
    pub kid: String,
    pub alg: Algorithm,
    pub(super) decoding: DecodingKey,
    /// The public JWK published at `/.well-known/jwks.json` (never for HMAC keys).
    pub public_jwk: Option<Value>,
}

impl std::fmt::Debug for RingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RingKey")
            .field("kid", &self.kid)
            .field("alg", &self.alg)
            .finish()
    }
}

/// The key user access tokens are signed with.
#[derive(Clone)]
pub enum SigningKey {
    /// The shared `JWT_SECRET` (GoTrue's default), no `kid`.
    Secret(Hs256Key),
    /// A keyed key: HS256 with its own secret, or RS256 / ES256.
    Keyed {
        kid: String,
        alg: Algorithm,
        encoding: EncodingKey,
    },
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SigningKey::Secret(_) => f.write_str("SigningKey::Secret"),
            SigningKey::Keyed { kid, alg, .. } => f
                .debug_struct("SigningKey::Keyed")
                .field("kid", kid)
                .field("alg", alg)
                .finish(),
        }
    }
}

impl SigningKey {
    /// Signs `claims`; keyed keys put their `kid` in the header so verifiers (auth-js
    /// `getClaims()`, PostgREST, realtime) can pick the public key from the JWKS.
    pub fn sign(&self, claims: &Value) -> Result<String, JwtError> {
        match self {
            SigningKey::Secret(key) => key.sign(claims),
            SigningKey::Keyed { kid, alg, encoding } => {
                let mut header = Header::new(*alg);
                header.kid = Some(kid.clone());
                Ok(jsonwebtoken::encode(&header, claims, encoding)?)
            }
        }
    }

    pub fn algorithm(&self) -> Algorithm {
        match self {
            SigningKey::Secret(_) => Algorithm::HS256,
            SigningKey::Keyed { alg, .. } => *alg,
        }
    }
}

/// The project's own keys at one moment: the signing key and every key tokens may have
/// been signed with. Swapped as a whole when keys rotate.
#[derive(Debug, Clone)]
pub struct KeyRing {
    pub signing: SigningKey,
    pub keys: Vec<RingKey>,
}

impl KeyRing {
    /// Only the shared secret: GoTrue's default HS256 set-up.
    pub fn secret_only(secret: Hs256Key) -> Self {
        Self {
            signing: SigningKey::Secret(secret),
            keys: Vec::new(),
        }
    }

    /// Public JWKs of the asymmetric keys, as `/.well-known/jwks.json` lists them.
    pub fn published(&self) -> Vec<Value> {
        self.keys
            .iter()
            .filter_map(|key| key.public_jwk.clone())
            .collect()
    }
}

/// Shared, swappable key ring (rotation replaces it while requests run).
pub type SharedKeyRing = Arc<ArcSwap<KeyRing>>;
