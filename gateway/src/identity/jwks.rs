//! Private keys as JSON Web Keys: parsing GoTrue's `JWT_KEYS` entries (`oct` HS256, `RSA`
//! RS256, `EC` P-256 ES256) into keys that sign and verify, their public JWK for
//! `/.well-known/jwks.json`, and generating new ones for the managed signing keys.

use base64::Engine;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey};
use serde_json::Value;

use super::key_ring::{RingKey, SigningKey};

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
