//! JSON Web Tokens: signing with the project's `JWT_SECRET` (HS256) and checking a token's
//! signature against every key the project accepts: the shared secret, the key ring
//! ([`super::key_ring`]: `JWT_KEYS` or the managed signing keys) and third-party public keys
//! from a configured JWKS (`JWT_JWKS`).
//!
//! This module only signs and checks signatures; time claims are [`super::time_claims`], role
//! selection is [`super::authenticate`], error wording belongs to each service. The
//! algorithm is bound to the key: an HS256 token is only checked with the shared secret or
//! a ring key of its `kid`, an RS/ES token only with a key of the matching type, so a
//! public key can never be used as an HMAC secret; `alg: none` is never accepted.

use std::sync::Arc;

use arc_swap::ArcSwap;
use base64::Engine;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use super::key_ring::{KeyRing, SharedKeyRing};

/// The project's shared HS256 key.
#[derive(Clone)]
pub struct Hs256Key {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl std::fmt::Debug for Hs256Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hs256Key(<redacted>)")
    }
}

/// Why a token was refused.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct JwtError(#[from] jsonwebtoken::errors::Error);

impl JwtError {
    /// What went wrong, for services that word each case their own way.
    pub fn kind(&self) -> &jsonwebtoken::errors::ErrorKind {
        self.0.kind()
    }
}

impl Hs256Key {
    pub fn new(secret: &SecretString) -> Self {
        let bytes = secret.expose_secret().as_bytes();
        Self {
            encoding: EncodingKey::from_secret(bytes),
            decoding: DecodingKey::from_secret(bytes),
        }
    }

    /// Signs `claims` as a compact JWT with header `{"alg":"HS256","typ":"JWT"}`.
    pub fn sign(&self, claims: &Value) -> Result<String, JwtError> {
        Ok(jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            claims,
            &self.encoding,
        )?)
    }

    /// Returns the claims when the signature is valid. Only HS256 is accepted (never
    /// `none`, never an asymmetric algorithm with this key); time claims are not checked
    /// here.
    pub fn verify_signature(&self, token: &str) -> Result<Value, JwtError> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.validate_exp = false;
        validation.validate_aud = false;
        validation.required_spec_claims.clear();
        Ok(jsonwebtoken::decode::<Value>(token, &self.decoding, &validation)?.claims)
    }
}

/// Why a token's signature could not be verified, in the terms PostgREST reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyError {
    /// Not three dot-separated parts.
    Parts(usize),
    /// Header or payload not decodable (base64url, JSON, unknown `alg`).
    Malformed,
    /// `alg: none`.
    Unsecured,
    /// No configured key fits the token's `alg`/`kid`.
    NoSuitableKey,
    /// Keys fit but none verified the signature.
    BadSignature,
}

/// Verifies tokens with the shared secret, the project's key ring and the optional
/// third-party JWKS (`JWT_JWKS`).
#[derive(Clone)]
pub struct JwtVerifier {
    secret: Hs256Key,
    keys: Vec<(Jwk, DecodingKey)>,
    ring: SharedKeyRing,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("asymmetric_keys", &self.keys.len())
            .field("ring_keys", &self.ring.load().keys.len())
            .finish()
    }
}

fn is_asymmetric(alg: Algorithm) -> bool {
    !matches!(alg, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512)
}

impl JwtVerifier {
    pub fn new(secret: Hs256Key, jwks: Option<&JwkSet>) -> Self {
        let ring = Arc::new(ArcSwap::from_pointee(KeyRing::secret_only(secret.clone())));
        Self::with_ring(secret, jwks, ring)
    }

    /// A verifier that also accepts the keys of `ring` (as they are at each call).
    pub fn with_ring(secret: Hs256Key, jwks: Option<&JwkSet>, ring: SharedKeyRing) -> Self {
        let keys = jwks
            .map(|set| {
                set.keys
                    .iter()
                    .filter_map(|jwk| {
                        // Symmetric keys never come from a JWKS: the shared secret is the
                        // only HMAC key, which rules out key confusion.
                        if matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_)) {
                            return None;
                        }
                        DecodingKey::from_jwk(jwk)
                            .ok()
                            .map(|key| (jwk.clone(), key))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Self { secret, keys, ring }
    }

    /// The ring this verifier reads (shared with the signer).
    pub fn ring(&self) -> &SharedKeyRing {
        &self.ring
    }

    /// Checks the signature and returns the claims (time claims are the caller's job).
    pub fn verify(&self, token: &str) -> Result<Value, VerifyError> {
        let parts = token.split('.').count();
        if parts != 3 {
            return Err(VerifyError::Parts(parts));
        }
        let header_part = token.split('.').next().unwrap_or_default();
        let header_bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(header_part.trim_end_matches('='))
            .map_err(|_| VerifyError::Malformed)?;
        let raw_header: Value =
            serde_json::from_slice(&header_bytes).map_err(|_| VerifyError::Malformed)?;
        if raw_header.get("alg").and_then(Value::as_str) == Some("none") {
            return Err(VerifyError::Unsecured);
        }
        let header = jsonwebtoken::decode_header(token).map_err(|_| VerifyError::Malformed)?;
        let mut validation = Validation::new(header.alg);
        validation.validate_exp = false;
        validation.validate_nbf = false;
        validation.validate_aud = false;
        validation.required_spec_claims.clear();

        let ring = self.ring.load();
        // The algorithm is bound to the key: a ring key is only used for its own `alg`,
        // HMAC tokens never meet a public key and vice versa.
        let ring_keys = ring.keys.iter().filter(|key| {
            key.alg == header.alg
                && match &header.kid {
                    Some(kid) => &key.kid == kid,
                    None => is_asymmetric(key.alg),
                }
        });
        let mut candidates: Vec<&DecodingKey> = ring_keys.map(|key| &key.decoding).collect();
        match header.alg {
            // GoTrue falls back to the shared secret when the `kid` is not one of its keys
            // (legacy tokens and the anon/service_role keys have none).
            Algorithm::HS256 if candidates.is_empty() => {
                candidates.push(&self.secret.decoding);
            }
            alg if is_asymmetric(alg) => {
                candidates.extend(
                    self.keys
                        .iter()
                        .filter(|(jwk, _)| external_key_fits(jwk, &header))
                        .map(|(_, key)| key),
                );
            }
            _ => {}
        }
        if candidates.is_empty() {
            return Err(VerifyError::NoSuitableKey);
        }
        for key in candidates {
            if let Ok(data) = jsonwebtoken::decode::<Value>(token, key, &validation) {
                return Ok(data.claims);
            }
        }
        Err(VerifyError::BadSignature)
    }
}

/// Whether a third-party JWKS key may check a token with this header.
fn external_key_fits(jwk: &Jwk, header: &Header) -> bool {
    let alg = header.alg;
    let kid_matches = match (&header.kid, &jwk.common.key_id) {
        (Some(wanted), Some(have)) => wanted == have,
        (Some(_), None) => false,
        (None, _) => true,
    };
    let alg_matches = jwk
        .common
        .key_algorithm
        .map(|key_alg| format!("{key_alg:?}") == format!("{alg:?}"))
        .unwrap_or(true);
    let type_matches = matches!(
        (&jwk.algorithm, alg),
        (
            AlgorithmParameters::RSA(_),
            Algorithm::RS256 | Algorithm::RS384 | Algorithm::RS512
        ) | (
            AlgorithmParameters::EllipticCurve(_),
            Algorithm::ES256 | Algorithm::ES384
        ) | (AlgorithmParameters::OctetKeyPair(_), Algorithm::EdDSA)
    );
    kid_matches && alg_matches && type_matches
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(secret: &str) -> Hs256Key {
        Hs256Key::new(&SecretString::from(secret.to_owned()))
    }

    #[test]
    fn round_trips_claims() {
        let k = key("a-secret-that-is-at-least-32-characters");
        let token = k.sign(&json!({"role": "anon", "exp": 1})).unwrap();
        assert_eq!(token.split('.').count(), 3);
        assert_eq!(
            k.verify_signature(&token).unwrap(),
            json!({"role": "anon", "exp": 1})
        );
    }

    #[test]
    fn refuses_another_secret() {
        let token = key("a-secret-that-is-at-least-32-characters")
            .sign(&json!({"role": "service_role"}))
            .unwrap();
        assert!(
            key("another-secret-that-is-at-least-32-chars")
                .verify_signature(&token)
                .is_err()
        );
    }

    #[test]
    fn refuses_alg_none() {
        let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let header = engine.encode(br#"{"alg":"none","typ":"JWT"}"#);
        let body = engine.encode(br#"{"role":"service_role"}"#);
        let k = key("a-secret-that-is-at-least-32-characters");
        assert!(k.verify_signature(&format!("{header}.{body}.")).is_err());
        assert!(k.verify_signature(&format!("{header}.{body}")).is_err());
    }

    #[test]
    fn verifier_distinguishes_failures_like_postgrest() {
        let k = key("a-secret-that-is-at-least-32-characters");
        let verifier = JwtVerifier::new(k.clone(), None);
        let token = k.sign(&json!({"role": "authenticated"})).unwrap();
        assert_eq!(verifier.verify(&token).unwrap()["role"], "authenticated");
        assert_eq!(verifier.verify("a.b"), Err(VerifyError::Parts(2)));
        assert_eq!(verifier.verify("a.b.c.d"), Err(VerifyError::Parts(4)));
        assert_eq!(verifier.verify("!!.b.c"), Err(VerifyError::Malformed));
        let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let none = format!(
            "{}.{}.",
            engine.encode(br#"{"alg":"none"}"#),
            engine.encode(br#"{"role":"service_role"}"#)
        );
        assert_eq!(verifier.verify(&none), Err(VerifyError::Unsecured));
        let rs = format!(
            "{}.{}.c2ln",
            engine.encode(br#"{"alg":"RS256","typ":"JWT"}"#),
            engine.encode(br#"{"role":"service_role"}"#)
        );
        assert_eq!(verifier.verify(&rs), Err(VerifyError::NoSuitableKey));
        let other = key("another-secret-that-is-at-least-32-chars")
            .sign(&json!({"role": "x"}))
            .unwrap();
        assert_eq!(verifier.verify(&other), Err(VerifyError::BadSignature));
    }

    #[test]
    fn debug_hides_the_secret() {
        let k = key("a-secret-that-is-at-least-32-characters");
        assert_eq!(format!("{k:?}"), "Hs256Key(<redacted>)");
    }
}
