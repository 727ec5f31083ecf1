//! HS256 JSON Web Tokens signed with the project's `JWT_SECRET`.
//!
//! This module only signs and checks signatures; what a service does with the claims
//! (role selection, expiry rules, error wording) belongs to that service.

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

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

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
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
    fn debug_hides_the_secret() {
        let k = key("a-secret-that-is-at-least-32-characters");
        assert_eq!(format!("{k:?}"), "Hs256Key(<redacted>)");
    }
}
