//! The project's key material: the JWT secret and the four API keys derived from it.
//!
//! Like a Supabase project, Cielo has a legacy pair of API keys (HS256 JWTs with
//! `role: anon` / `role: service_role`) and the newer opaque pair (`sb_publishable_…`,
//! `sb_secret_…`). When `JWT_SECRET` is not configured, a random one is generated on first
//! start and kept in `DATA_DIR/jwt_secret`; keys that are not configured are derived from
//! the secret deterministically, so they stay the same across restarts and change when the
//! secret is rotated.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arc_swap::ArcSwap;
use base64::Engine;
use hmac::{Hmac, Mac};
use jsonwebtoken::jwk::JwkSet;
use rand::Rng;
use rand::distr::Alphanumeric;
use secrecy::{ExposeSecret, SecretString};
use serde_json::{Value, json};
use sha2::Sha256;

use super::jwks::PrivateJwk;
use super::jwt::{Hs256Key, JwtVerifier};
use super::key_ring::{KeyRing, SharedKeyRing};
use super::secrets::constant_time_eq;
use crate::config::Settings;

/// File in the data directory that keeps a generated JWT secret.
pub const JWT_SECRET_FILE: &str = "jwt_secret";

/// `iat` of the derived legacy keys: 2025-01-01T00:00:00Z. Fixed so derivation is stable.
const DERIVED_KEY_IAT: i64 = 1_735_689_600;
/// `exp` of the derived legacy keys: 2035-01-01T00:00:00Z, "far ahead" as Supabase's are.
const DERIVED_KEY_EXP: i64 = 2_051_222_400;

/// Which of the project's keys a presented `apikey` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiKeyKind {
    /// The legacy anon JWT.
    Anon,
    /// The legacy service_role JWT.
    ServiceRole,
    /// `sb_publishable_…`: acts as the anon role.
    Publishable,
    /// `sb_secret_…`: acts as the service_role role.
    Secret,
    /// Any other JWT signed with the project's secret (custom or rotated keys).
    SignedJwt,
}

/// All key material of the project.
#[derive(Clone)]
pub struct ProjectKeys {
    jwt_secret: SecretString,
    signer: Hs256Key,
    verifier: JwtVerifier,
    /// Keys of `JWT_KEYS` (then fixed), or the managed signing keys (swapped on rotation).
    ring: SharedKeyRing,
    /// True when `JWT_KEYS` is set: the ring comes from configuration, not the database.
    configured_ring: bool,
    anon: SecretString,
    service_role: SecretString,
    publishable: SecretString,
    secret: SecretString,
}

impl std::fmt::Debug for ProjectKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProjectKeys(<redacted>)")
    }
}

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("could not read or create the JWT secret file {path}: {source}")]
    SecretFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the JWT secret in {path} is shorter than 32 characters")]
    ShortSecret { path: PathBuf },
    #[error("could not sign the derived API keys: {0}")]
    Sign(#[from] super::jwt::JwtError),
    #[error("{name} is not signed with JWT_SECRET; regenerate it or unset it to derive it")]
    ForeignKey { name: &'static str },
    #[error("JWT_JWKS is not a JSON Web Key Set: {0}")]
    Jwks(String),
    #[error("JWT_KEYS is not usable: {0}")]
    JwtKeys(String),
}

impl ProjectKeys {
    /// Resolves the key material from settings, creating `DATA_DIR/jwt_secret` if needed.
    pub fn load(settings: &Settings) -> Result<Self, KeyError> {
        let secret = match &settings.jwt.secret {
            Some(secret) => secret.clone(),
            None => load_or_create_secret(&settings.data_dir)?,
        };
        Self::from_secret(secret, settings)
    }

    /// Derives (or takes from settings) every key for a given secret.
    pub fn from_secret(jwt_secret: SecretString, settings: &Settings) -> Result<Self, KeyError> {
        let signer = Hs256Key::new(&jwt_secret);
        let legacy = |role: &str| -> Result<SecretString, KeyError> {
            let claims = json!({
                "iss": "supabase",
                "ref": "cielo",
                "role": role,
                "iat": DERIVED_KEY_IAT,
                "exp": DERIVED_KEY_EXP,
            });
            Ok(SecretString::from(signer.sign(&claims)?))
        };
        let anon = match &settings.jwt.anon_key {
            Some(key) => checked_legacy_key(&signer, key, "ANON_KEY")?,
            None => legacy("anon")?,
        };
        let service_role = match &settings.jwt.service_role_key {
            Some(key) => checked_legacy_key(&signer, key, "SERVICE_ROLE_KEY")?,
            None => legacy("service_role")?,
        };
        let publishable = settings
            .jwt
            .publishable_key
            .clone()
            .unwrap_or_else(|| opaque_key(&jwt_secret, "sb_publishable_"));
        let secret = settings
            .jwt
            .secret_key
            .clone()
            .unwrap_or_else(|| opaque_key(&jwt_secret, "sb_secret_"));
        let jwks = settings.jwt.jwks.as_deref().map(parse_jwks).transpose()?;
        let (ring, configured_ring) = match settings.jwt.keys.as_deref() {
            Some(raw) => (parse_jwt_keys(raw)?, true),
            None => (KeyRing::secret_only(signer.clone()), false),
        };
        let ring: SharedKeyRing = Arc::new(ArcSwap::from_pointee(ring));
        let verifier = JwtVerifier::with_ring(signer.clone(), jwks.as_ref(), ring.clone());
        Ok(Self {
            jwt_secret,
            signer,
            verifier,
            ring,
            configured_ring,
            anon,
            service_role,
            publishable,
            secret,
        })
    }

    pub fn jwt_secret(&self) -> &SecretString {
        &self.jwt_secret
    }

    pub fn signer(&self) -> &Hs256Key {
        &self.signer
    }

    /// Verifies bearer tokens (HS256 secret, the project's key ring, `JWT_JWKS` keys).
    pub fn verifier(&self) -> &JwtVerifier {
        &self.verifier
    }

    /// The project's signing and verification keys (swapped when keys rotate).
    pub fn ring(&self) -> &SharedKeyRing {
        &self.ring
    }

    /// True when the keys come from `JWT_KEYS` rather than the managed signing keys.
    pub fn ring_is_configured(&self) -> bool {
        self.configured_ring
    }

    /// The legacy anon key; safe to publish (it is what browsers use).
    pub fn anon_key(&self) -> &str {
        self.anon.expose_secret()
    }

    pub fn service_role_key(&self) -> &SecretString {
        &self.service_role
    }

    /// The opaque publishable key; safe to publish.
    pub fn publishable_key(&self) -> &str {
        self.publishable.expose_secret()
    }

    pub fn secret_key(&self) -> &SecretString {
        &self.secret
    }

    /// Tells which of the project's keys `presented` is, if any. Opaque keys are compared
    /// in constant time; JWTs must carry a valid signature.
    pub fn classify(&self, presented: &str) -> Option<ApiKeyKind> {
        if presented.starts_with("sb_") {
            if constant_time_eq(presented, self.publishable.expose_secret()) {
                return Some(ApiKeyKind::Publishable);
            }
            if constant_time_eq(presented, self.secret.expose_secret()) {
                return Some(ApiKeyKind::Secret);
            }
            return None;
        }
        if constant_time_eq(presented, self.anon.expose_secret()) {
            return Some(ApiKeyKind::Anon);
        }
        if constant_time_eq(presented, self.service_role.expose_secret()) {
            return Some(ApiKeyKind::ServiceRole);
        }
        // Any JWT the project's keys verify (HS256 secret, `JWT_KEYS`, managed keys): an
        // RS256-signed anon key works as well as the legacy HS256 one.
        self.verifier
            .verify(presented)
            .ok()
            .map(|_| ApiKeyKind::SignedJwt)
    }
}

/// `JWT_KEYS`: a JSON array of private JWKs (inline or `@path`), GoTrue's format. Exactly
/// one key must have `sign` in `key_ops`.
fn parse_jwt_keys(raw: &str) -> Result<KeyRing, KeyError> {
    let text = match raw.strip_prefix('@') {
        Some(path) => fs::read_to_string(path)
            .map_err(|error| KeyError::JwtKeys(format!("{path}: {error}")))?,
        None => raw.to_owned(),
    };
    let entries: Vec<Value> =
        serde_json::from_str(&text).map_err(|error| KeyError::JwtKeys(error.to_string()))?;
    let mut keys = Vec::new();
    let mut signing = Vec::new();
    for entry in &entries {
        let key = PrivateJwk::parse(entry).map_err(|error| KeyError::JwtKeys(error.0))?;
        if key.signs {
            signing.push(key.signing_key());
        }
        keys.push(key.ring_key());
    }
    let signing = match signing.len() {
        0 => return Err(KeyError::JwtKeys("no key has \"sign\" in key_ops".into())),
        1 => signing.remove(0),
        _ => {
            return Err(KeyError::JwtKeys(
                "more than one key has \"sign\" in key_ops".into(),
            ));
        }
    };
    Ok(KeyRing { signing, keys })
}

/// `JWT_JWKS` is the JSON itself or `@path` of a file holding it.
fn parse_jwks(raw: &str) -> Result<JwkSet, KeyError> {
    let text = match raw.strip_prefix('@') {
        Some(path) => {
            fs::read_to_string(path).map_err(|error| KeyError::Jwks(format!("{path}: {error}")))?
        }
        None => raw.to_owned(),
    };
    serde_json::from_str(&text).map_err(|error| KeyError::Jwks(error.to_string()))
}

fn checked_legacy_key(
    signer: &Hs256Key,
    key: &SecretString,
    name: &'static str,
) -> Result<SecretString, KeyError> {
    signer
        .verify_signature(key.expose_secret())
        .map(|_| key.clone())
        .map_err(|_| KeyError::ForeignKey { name })
}

/// `prefix` + 32 URL-safe characters from HMAC-SHA256(secret, prefix).
fn opaque_key(secret: &SecretString, prefix: &str) -> SecretString {
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret.expose_secret().as_bytes()) {
        Ok(mac) => mac,
        // HMAC accepts keys of any length; this arm cannot be reached.
        Err(_) => return SecretString::from(prefix.to_owned()),
    };
    mac.update(b"cielo-api-key:");
    mac.update(prefix.as_bytes());
    let digest = mac.finalize().into_bytes();
    let encoded = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest);
    SecretString::from(format!("{prefix}{}", &encoded[..32]))
}

fn load_or_create_secret(data_dir: &Path) -> Result<SecretString, KeyError> {
    let path = data_dir.join(JWT_SECRET_FILE);
    let io_error = |source| KeyError::SecretFile {
        path: path.clone(),
        source,
    };
    match fs::read_to_string(&path) {
        Ok(contents) => {
            let secret = contents.trim().to_owned();
            if secret.len() < 32 {
                return Err(KeyError::ShortSecret { path });
            }
            Ok(SecretString::from(secret))
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            ensure_data_dir(data_dir).map_err(io_error)?;
            let secret: String = rand::rng()
                .sample_iter(&Alphanumeric)
                .take(64)
                .map(char::from)
                .collect();
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
                .map_err(io_error)?;
            file.write_all(secret.as_bytes()).map_err(io_error)?;
            file.sync_all().map_err(io_error)?;
            tracing::info!(path = %path.display(), "generated a new JWT secret");
            Ok(SecretString::from(secret))
        }
        Err(error) => Err(io_error(error)),
    }
}

/// Creates the data directory. It must stay traversable by the unprivileged user that runs
/// the embedded cluster, so it is 0755 and only individual secret files are private.
pub fn ensure_data_dir(data_dir: &Path) -> std::io::Result<()> {
    if !data_dir.exists() {
        fs::create_dir_all(data_dir)?;
        fs::set_permissions(data_dir, fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn settings(pairs: &[(&str, &str)]) -> Settings {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Settings::from_lookup(|name| map.get(name).cloned()).unwrap()
    }

    const SECRET: &str = "super-secret-jwt-token-with-at-least-32-characters-long";

    #[test]
    fn derived_keys_are_stable_and_carry_supabase_claims() {
        let s = settings(&[("JWT_SECRET", SECRET)]);
        let a = ProjectKeys::load(&s).unwrap();
        let b = ProjectKeys::load(&s).unwrap();
        assert_eq!(a.anon_key(), b.anon_key());
        assert_eq!(a.publishable_key(), b.publishable_key());

        let claims = a.signer().verify_signature(a.anon_key()).unwrap();
        assert_eq!(claims["role"], "anon");
        assert_eq!(claims["iss"], "supabase");
        assert!(claims["exp"].as_i64().unwrap() > 2_000_000_000);
        let claims = a
            .signer()
            .verify_signature(a.service_role_key().expose_secret())
            .unwrap();
        assert_eq!(claims["role"], "service_role");

        assert!(a.publishable_key().starts_with("sb_publishable_"));
        assert!(a.secret_key().expose_secret().starts_with("sb_secret_"));
        assert_ne!(a.publishable_key(), a.secret_key().expose_secret());
    }

    #[test]
    fn keys_change_with_the_secret() {
        let a = ProjectKeys::load(&settings(&[("JWT_SECRET", SECRET)])).unwrap();
        let b = ProjectKeys::load(&settings(&[(
            "JWT_SECRET",
            "another-secret-jwt-token-with-at-least-32-characters",
        )]))
        .unwrap();
        assert_ne!(a.anon_key(), b.anon_key());
        assert_ne!(a.publishable_key(), b.publishable_key());
    }

    #[test]
    fn classifies_every_kind_of_key() {
        let keys = ProjectKeys::load(&settings(&[("JWT_SECRET", SECRET)])).unwrap();
        assert_eq!(keys.classify(keys.anon_key()), Some(ApiKeyKind::Anon));
        assert_eq!(
            keys.classify(keys.service_role_key().expose_secret()),
            Some(ApiKeyKind::ServiceRole)
        );
        assert_eq!(
            keys.classify(keys.publishable_key()),
            Some(ApiKeyKind::Publishable)
        );
        assert_eq!(
            keys.classify(keys.secret_key().expose_secret()),
            Some(ApiKeyKind::Secret)
        );
        let custom = keys
            .signer()
            .sign(&json!({"role": "authenticated", "sub": "x"}))
            .unwrap();
        assert_eq!(keys.classify(&custom), Some(ApiKeyKind::SignedJwt));
        assert_eq!(keys.classify("sb_publishable_wrong"), None);
        assert_eq!(keys.classify("not-a-key"), None);
        assert_eq!(keys.classify(""), None);
    }

    #[test]
    fn configured_keys_win_but_must_match_the_secret() {
        let base = ProjectKeys::load(&settings(&[("JWT_SECRET", SECRET)])).unwrap();
        let custom_anon = base
            .signer()
            .sign(&json!({"role": "anon", "iss": "custom"}))
            .unwrap();
        let keys = ProjectKeys::load(&settings(&[
            ("JWT_SECRET", SECRET),
            ("ANON_KEY", &custom_anon),
            ("PUBLISHABLE_KEY", "sb_publishable_configured"),
        ]))
        .unwrap();
        assert_eq!(keys.anon_key(), custom_anon);
        assert_eq!(keys.publishable_key(), "sb_publishable_configured");

        let foreign = Hs256Key::new(&SecretString::from(
            "yet-another-secret-of-at-least-32-characters".to_owned(),
        ))
        .sign(&json!({"role": "anon"}))
        .unwrap();
        let error = ProjectKeys::load(&settings(&[("JWT_SECRET", SECRET), ("ANON_KEY", &foreign)]))
            .unwrap_err();
        assert!(error.to_string().contains("ANON_KEY"));
    }

    #[test]
    fn generates_and_keeps_a_secret_in_the_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = dir.path().join("data");
        let s = settings(&[("DATA_DIR", data_dir.to_str().unwrap())]);
        let first = ProjectKeys::load(&s).unwrap();
        let file = data_dir.join(JWT_SECRET_FILE);
        let mode = fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(first.jwt_secret().expose_secret().len(), 64);
        let second = ProjectKeys::load(&s).unwrap();
        assert_eq!(first.anon_key(), second.anon_key());
        assert_eq!(
            first.jwt_secret().expose_secret(),
            second.jwt_secret().expose_secret()
        );
    }
}
