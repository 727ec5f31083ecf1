//! JSON Web Tokens: HS256 with the project's `JWT_SECRET`, the project's own keyed keys
//! (GoTrue's `JWT_KEYS` or the managed signing keys: HS256, RS256, ES256 with a `kid`), and
//! third-party public keys from a configured JWKS.
//!
//! This module only signs and checks signatures; what a service does with the claims
//! (role selection, expiry rules, error wording) belongs to that service. The algorithm is
//! bound to the key: an HS256 token is only checked with the shared secret, an RS/ES token
//! only with a JWKS key of the matching type, so a public key can never be used as an HMAC
//! secret; `alg: none` is never accepted.

use std::sync::Arc;

use arc_swap::ArcSwap;
use base64::Engine;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, JwkSet};
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

/// Why a token's signature could not be verified, in the terms PostgREST reports.
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// A key the project signs with or accepts, from `JWT_KEYS` or the managed signing keys.
#[derive(Clone)]
pub struct RingKey {
    pub kid: String,
    pub alg: Algorithm,
    decoding: DecodingKey,
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

/// Why a private JWK could not be used.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct JwkError(pub String);

fn b64(field: &Value, name: &str) -> Result<Vec<u8>, JwkError> {
    let text = field
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| JwkError(format!("missing \"{name}\"")))?;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text.trim_end_matches('='))
        .map_err(|_| JwkError(format!("\"{name}\" is not base64url")))
}

/// A private key in JWK form (GoTrue's `GOTRUE_JWT_KEYS` entries), ready to sign and verify.
#[derive(Clone)]
pub struct PrivateJwk {
    pub kid: String,
    pub alg: Algorithm,
    /// `key_ops` contains `sign`: this is the key new tokens are signed with.
    pub signs: bool,
    encoding: EncodingKey,
    decoding: DecodingKey,
    public_jwk: Option<Value>,
}

impl std::fmt::Debug for PrivateJwk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrivateJwk")
            .field("kid", &self.kid)
            .field("alg", &self.alg)
            .field("signs", &self.signs)
            .finish()
    }
}

impl PrivateJwk {
    /// Parses one private JWK: `oct` (HS256), `RSA` (RS256) or `EC` P-256 (ES256).
    pub fn parse(jwk: &Value) -> Result<Self, JwkError> {
        let kty = jwk.get("kty").and_then(Value::as_str).unwrap_or_default();
        let kid = jwk
            .get("kid")
            .and_then(Value::as_str)
            .filter(|kid| !kid.is_empty())
            .ok_or_else(|| JwkError("every key needs a \"kid\"".into()))?
            .to_owned();
        let signs = jwk
            .get("key_ops")
            .and_then(Value::as_array)
            .is_some_and(|ops| ops.iter().any(|op| op == "sign"));
        let declared = jwk.get("alg").and_then(Value::as_str);
        let (alg, encoding, decoding, public_jwk) = match kty {
            "oct" => {
                let secret = b64(jwk, "k")?;
                (
                    Algorithm::HS256,
                    EncodingKey::from_secret(&secret),
                    DecodingKey::from_secret(&secret),
                    None,
                )
            }
            "RSA" => {
                use rsa::pkcs1::EncodeRsaPrivateKey;
                let n = b64(jwk, "n")?;
                let e = b64(jwk, "e")?;
                let d = b64(jwk, "d")?;
                let primes = vec![
                    rsa::BigUint::from_bytes_be(&b64(jwk, "p")?),
                    rsa::BigUint::from_bytes_be(&b64(jwk, "q")?),
                ];
                let key = rsa::RsaPrivateKey::from_components(
                    rsa::BigUint::from_bytes_be(&n),
                    rsa::BigUint::from_bytes_be(&e),
                    rsa::BigUint::from_bytes_be(&d),
                    primes,
                )
                .map_err(|error| JwkError(format!("invalid RSA key: {error}")))?;
                let der = key
                    .to_pkcs1_der()
                    .map_err(|error| JwkError(format!("invalid RSA key: {error}")))?;
                let alg = match declared {
                    None | Some("RS256") => Algorithm::RS256,
                    Some(other) => return Err(JwkError(format!("unsupported RSA alg {other}"))),
                };
                (
                    alg,
                    EncodingKey::from_rsa_der(der.as_bytes()),
                    DecodingKey::from_rsa_raw_components(&n, &e),
                    Some(serde_json::json!({
                        "alg": "RS256",
                        "e": jwk["e"],
                        "key_ops": ["verify"],
                        "kid": kid,
                        "kty": "RSA",
                        "n": jwk["n"],
                        "use": "sig",
                    })),
                )
            }
            "EC" => {
                use p256::pkcs8::EncodePrivateKey;
                if jwk.get("crv").and_then(Value::as_str) != Some("P-256") {
                    return Err(JwkError("only EC keys on curve P-256 (ES256)".into()));
                }
                let secret = p256::SecretKey::from_slice(&b64(jwk, "d")?)
                    .map_err(|_| JwkError("invalid EC private key".into()))?;
                let der = secret
                    .to_pkcs8_der()
                    .map_err(|error| JwkError(format!("invalid EC key: {error}")))?;
                let x = jwk.get("x").and_then(Value::as_str).unwrap_or_default();
                let y = jwk.get("y").and_then(Value::as_str).unwrap_or_default();
                let decoding = DecodingKey::from_ec_components(x, y)
                    .map_err(|error| JwkError(format!("invalid EC public key: {error}")))?;
                (
                    Algorithm::ES256,
                    EncodingKey::from_ec_der(der.as_bytes()),
                    decoding,
                    Some(serde_json::json!({
                        "alg": "ES256",
                        "crv": "P-256",
                        "key_ops": ["verify"],
                        "kid": kid,
                        "kty": "EC",
                        "use": "sig",
                        "x": x,
                        "y": y,
                    })),
                )
            }
            other => return Err(JwkError(format!("unsupported key type {other:?}"))),
        };
        Ok(Self {
            kid,
            alg,
            signs,
            encoding,
            decoding,
            public_jwk,
        })
    }

    pub fn ring_key(&self) -> RingKey {
        RingKey {
            kid: self.kid.clone(),
            alg: self.alg,
            decoding: self.decoding.clone(),
            public_jwk: self.public_jwk.clone(),
        }
    }

    pub fn signing_key(&self) -> SigningKey {
        SigningKey::Keyed {
            kid: self.kid.clone(),
            alg: self.alg,
            encoding: self.encoding.clone(),
        }
    }
}

/// A new private key as a JWK (for the managed signing keys).
pub fn generate_private_jwk(alg: Algorithm, kid: &str) -> Result<Value, JwkError> {
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    match alg {
        Algorithm::ES256 => {
            use p256::elliptic_curve::sec1::ToEncodedPoint;
            let secret = p256::SecretKey::random(&mut rand_core::OsRng);
            let point = secret.public_key().to_encoded_point(false);
            let (Some(x), Some(y)) = (point.x(), point.y()) else {
                return Err(JwkError("could not encode the EC public key".into()));
            };
            Ok(serde_json::json!({
                "kty": "EC", "crv": "P-256", "alg": "ES256", "kid": kid,
                "x": engine.encode(x), "y": engine.encode(y),
                "d": engine.encode(secret.to_bytes()),
                "key_ops": ["sign", "verify"],
            }))
        }
        Algorithm::RS256 => {
            use rsa::traits::{PrivateKeyParts, PublicKeyParts};
            let key = rsa::RsaPrivateKey::new(&mut rand_core::OsRng, 2048)
                .map_err(|error| JwkError(format!("could not generate an RSA key: {error}")))?;
            let primes = key.primes();
            let (Some(p), Some(q)) = (primes.first(), primes.get(1)) else {
                return Err(JwkError("RSA key without two primes".into()));
            };
            let (Some(dp), Some(dq)) = (key.dp(), key.dq()) else {
                return Err(JwkError("RSA key without CRT values".into()));
            };
            let qi = key
                .crt_coefficient()
                .ok_or_else(|| JwkError("RSA key without CRT coefficient".into()))?;
            let enc = |n: &rsa::BigUint| engine.encode(n.to_bytes_be());
            Ok(serde_json::json!({
                "kty": "RSA", "alg": "RS256", "kid": kid,
                "n": enc(key.n()), "e": enc(key.e()), "d": enc(key.d()),
                "p": enc(p), "q": enc(q), "dp": enc(dp), "dq": enc(dq), "qi": enc(&qi),
                "key_ops": ["sign", "verify"],
            }))
        }
        other => Err(JwkError(format!("cannot generate {other:?} keys"))),
    }
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
