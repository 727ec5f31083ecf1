//! Managed JWT signing keys (used when `JWT_KEYS` is not set): asymmetric keys kept in
//! `cielo.jwt_signing_keys`, with Supabase's life cycle.
//!
//! * `standby`: published in the JWKS, not signing yet (so caches learn it first);
//! * `in_use`: signs new user tokens (at most one);
//! * `previously_used`: still published and accepted until tokens signed with it expire;
//! * `revoked`: gone from the JWKS and refused everywhere.
//!
//! `JWT_SIGNING_ALG=ES256|RS256` creates an in-use key at first start; `cielo signing-keys`
//! adds, rotates and revokes. Every gateway re-reads the table every few seconds, so a
//! rotation reaches all of them without a restart. The shared `JWT_SECRET` always stays
//! valid for HS256 tokens (the anon and service_role keys are such tokens) and signs user
//! tokens while no key is in use. Private keys are encrypted with AES-256-GCM under a key
//! derived from `JWT_SECRET` (HKDF-SHA256).

use std::sync::Arc;
use std::time::Duration;

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};
use deadpool_postgres::Pool;
use jsonwebtoken::Algorithm;
use rand::RngCore;
use secrecy::ExposeSecret;
use serde_json::Value;
use uuid::Uuid;

use super::jwks::{PrivateJwk, generate_private_jwk};
use super::key_ring::{KeyRing, SigningKey};
use super::project_keys::ProjectKeys;

/// How often gateways look for rotated keys.
const RELOAD_EVERY: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum SigningKeyError {
    #[error("signing keys: database error: {0}")]
    Database(#[from] tokio_postgres::Error),
    #[error("signing keys: no database connection: {0}")]
    Pool(#[from] deadpool_postgres::PoolError),
    #[error("signing keys: {0}")]
    Key(String),
}

/// One row of `cielo.jwt_signing_keys`, without the private part.
#[derive(Debug, Clone)]
pub struct KeyInfo {
    pub kid: Uuid,
    pub algorithm: String,
    pub status: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

fn cipher(keys: &ProjectKeys) -> Result<Aes256Gcm, SigningKeyError> {
    let hkdf = hkdf::Hkdf::<sha2::Sha256>::new(
        Some(b"cielo-jwt-signing-keys"),
        keys.jwt_secret().expose_secret().as_bytes(),
    );
    let mut key = [0u8; 32];
    hkdf.expand(b"aes-256-gcm", &mut key)
        .map_err(|error| SigningKeyError::Key(error.to_string()))?;
    Aes256Gcm::new_from_slice(&key).map_err(|error| SigningKeyError::Key(error.to_string()))
}

/// `nonce || ciphertext` of the private JWK.
fn seal(keys: &ProjectKeys, jwk: &Value) -> Result<Vec<u8>, SigningKeyError> {
    let mut nonce = [0u8; 12];
    rand::rng().fill_bytes(&mut nonce);
    let sealed = cipher(keys)?
        .encrypt(&Nonce::from(nonce), jwk.to_string().as_bytes())
        .map_err(|_| SigningKeyError::Key("could not encrypt the private key".into()))?;
    Ok([nonce.as_slice(), sealed.as_slice()].concat())
}

fn open(keys: &ProjectKeys, sealed: &[u8]) -> Result<Value, SigningKeyError> {
    if sealed.len() < 12 {
        return Err(SigningKeyError::Key("stored key is truncated".into()));
    }
    let (nonce, data) = sealed.split_at(12);
    let nonce: [u8; 12] = nonce
        .try_into()
        .map_err(|_| SigningKeyError::Key("stored key is truncated".into()))?;
    let plain = cipher(keys)?
        .decrypt(&Nonce::from(nonce), data)
        .map_err(|_| {
            SigningKeyError::Key(
                "a stored private key does not decrypt: was JWT_SECRET changed?".into(),
            )
        })?;
    serde_json::from_slice(&plain).map_err(|error| SigningKeyError::Key(error.to_string()))
}

fn algorithm(name: &str) -> Result<Algorithm, SigningKeyError> {
    match name {
        "ES256" => Ok(Algorithm::ES256),
        "RS256" => Ok(Algorithm::RS256),
        other => Err(SigningKeyError::Key(format!(
            "unsupported signing algorithm {other:?} (ES256 or RS256)"
        ))),
    }
}

/// Creates a key with `status`; returns its kid.
pub async fn create_key(
    pool: &Pool,
    keys: &ProjectKeys,
    alg: &str,
    status: &str,
) -> Result<Uuid, SigningKeyError> {
    let algorithm = algorithm(alg)?;
    let kid = Uuid::new_v4();
    let kid_text = kid.to_string();
    // RSA key generation is CPU-heavy: keep it off the async workers.
    let private = tokio::task::spawn_blocking(move || generate_private_jwk(algorithm, &kid_text))
        .await
        .map_err(|error| SigningKeyError::Key(error.to_string()))?
        .map_err(|error| SigningKeyError::Key(error.0))?;
    let parsed = PrivateJwk::parse(&private).map_err(|error| SigningKeyError::Key(error.0))?;
    let public = parsed.ring_key().public_jwk.unwrap_or(Value::Null);
    let sealed = seal(keys, &private)?;
    let client = pool.get().await?;
    client
        .execute(
            "INSERT INTO cielo.jwt_signing_keys (kid, algorithm, status, public_jwk, encrypted_private_jwk)
             VALUES ($1, $2, $3, $4, $5)",
            &[&kid, &alg, &status, &public, &sealed],
        )
        .await?;
    Ok(kid)
}

/// Reads the table into a key ring.
pub async fn load_ring(pool: &Pool, keys: &ProjectKeys) -> Result<KeyRing, SigningKeyError> {
    let client = pool.get().await?;
    let rows = client
        .query(
            "SELECT kid, status, encrypted_private_jwk FROM cielo.jwt_signing_keys
              WHERE status <> 'revoked' ORDER BY created_at",
            &[],
        )
        .await?;
    let mut ring = KeyRing {
        signing: SigningKey::Secret(keys.signer().clone()),
        keys: Vec::new(),
    };
    for row in rows {
        let kid: Uuid = row.get(0);
        let status: String = row.get(1);
        let sealed: Vec<u8> = row.get(2);
        let private = match open(keys, &sealed)
            .and_then(|jwk| PrivateJwk::parse(&jwk).map_err(|error| SigningKeyError::Key(error.0)))
        {
            Ok(private) => private,
            Err(error) => {
                tracing::error!(%kid, %error, "skipping a signing key that cannot be used");
                continue;
            }
        };
        if status == "in_use" {
            ring.signing = private.signing_key();
        }
        ring.keys.push(private.ring_key());
    }
    Ok(ring)
}

async fn fingerprint(pool: &Pool) -> Result<String, SigningKeyError> {
    let client = pool.get().await?;
    let row = client
        .query_one(
            "SELECT coalesce(string_agg(kid::text || status, ',' ORDER BY kid), '')
               FROM cielo.jwt_signing_keys",
            &[],
        )
        .await?;
    Ok(row.get(0))
}

/// At start: creates the first in-use key for `JWT_SIGNING_ALG` when none is in use,
/// then loads the ring.
pub async fn bootstrap(pool: &Pool, keys: &ProjectKeys, alg: &str) -> Result<(), SigningKeyError> {
    if alg != "HS256" {
        let in_use = {
            let client = pool.get().await?;
            client
                .query_opt(
                    "SELECT 1 FROM cielo.jwt_signing_keys WHERE status = 'in_use'",
                    &[],
                )
                .await?
                .is_some()
        };
        if !in_use {
            match create_key(pool, keys, alg, "in_use").await {
                Ok(kid) => tracing::info!(%kid, alg, "created the first JWT signing key"),
                // Another gateway created it at the same moment (unique index).
                Err(SigningKeyError::Database(error))
                    if error.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => {
                }
                Err(error) => return Err(error),
            }
        }
    }
    let ring = load_ring(pool, keys).await?;
    keys.ring().store(Arc::new(ring));
    Ok(())
}

/// Keeps the ring in step with the table (rotations by `cielo signing-keys` or another
/// gateway).
pub async fn keep_current(pool: Pool, keys: ProjectKeys) {
    let mut seen = fingerprint(&pool).await.unwrap_or_default();
    loop {
        tokio::time::sleep(RELOAD_EVERY).await;
        let now = match fingerprint(&pool).await {
            Ok(now) => now,
            Err(error) => {
                tracing::debug!(%error, "could not check the signing keys");
                continue;
            }
        };
        if now == seen {
            continue;
        }
        match load_ring(&pool, &keys).await {
            Ok(ring) => {
                keys.ring().store(Arc::new(ring));
                tracing::info!("JWT signing keys reloaded");
                seen = now;
            }
            Err(error) => tracing::warn!(%error, "could not reload the signing keys"),
        }
    }
}

pub async fn list(pool: &Pool) -> Result<Vec<KeyInfo>, SigningKeyError> {
    let client = pool.get().await?;
    let rows = client
        .query(
            "SELECT kid, algorithm, status, created_at FROM cielo.jwt_signing_keys
              ORDER BY created_at",
            &[],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| KeyInfo {
            kid: row.get(0),
            algorithm: row.get(1),
            status: row.get(2),
            created_at: row.get(3),
        })
        .collect())
}

/// Makes the standby key (a new one of `alg` if there is none) the signing key; the
/// previous one stays valid as `previously_used`.
pub async fn rotate(pool: &Pool, keys: &ProjectKeys, alg: &str) -> Result<Uuid, SigningKeyError> {
    let standby = {
        let client = pool.get().await?;
        client
            .query_opt(
                "SELECT kid FROM cielo.jwt_signing_keys WHERE status = 'standby'
                  ORDER BY created_at DESC LIMIT 1",
                &[],
            )
            .await?
            .map(|row| row.get::<_, Uuid>(0))
    };
    let kid = match standby {
        Some(kid) => kid,
        None => create_key(pool, keys, alg, "standby").await?,
    };
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    tx.execute(
        "UPDATE cielo.jwt_signing_keys SET status = 'previously_used', updated_at = now()
          WHERE status = 'in_use'",
        &[],
    )
    .await?;
    tx.execute(
        "UPDATE cielo.jwt_signing_keys SET status = 'in_use', updated_at = now() WHERE kid = $1",
        &[&kid],
    )
    .await?;
    tx.commit().await?;
    Ok(kid)
}

/// Revokes a key that no longer signs; tokens signed with it stop working everywhere.
pub async fn revoke(pool: &Pool, kid: Uuid) -> Result<(), SigningKeyError> {
    let client = pool.get().await?;
    let changed = client
        .execute(
            "UPDATE cielo.jwt_signing_keys SET status = 'revoked', updated_at = now()
              WHERE kid = $1 AND status IN ('standby', 'previously_used')",
            &[&kid],
        )
        .await?;
    if changed == 0 {
        return Err(SigningKeyError::Key(format!(
            "{kid} is not a standby or previously used key (the key in use cannot be revoked; rotate first)"
        )));
    }
    Ok(())
}

/// What `cielo signing-keys` was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyCommand {
    List,
    Add { alg: String },
    Rotate { alg: String },
    Revoke { kid: String },
}

/// Runs a `cielo signing-keys` command against the stack's database (the embedded cluster
/// must be running, or `DATABASE_URL` set); returns what to print.
pub async fn run_command(
    settings: &crate::config::Settings,
    command: KeyCommand,
) -> Result<String, SigningKeyError> {
    let keys =
        ProjectKeys::load(settings).map_err(|error| SigningKeyError::Key(error.to_string()))?;
    let url = secrecy::ExposeSecret::expose_secret(&settings.admin_database_url()).to_owned();
    let pool = deadpool_postgres::Config {
        url: Some(url),
        ..Default::default()
    }
    .create_pool(
        Some(deadpool_postgres::Runtime::Tokio1),
        tokio_postgres::NoTls,
    )
    .map_err(|error| SigningKeyError::Key(error.to_string()))?;
    if keys.ring_is_configured() {
        return Err(SigningKeyError::Key(
            "JWT_KEYS is set: keys come from that setting, not the managed signing keys".into(),
        ));
    }
    let mut out = String::new();
    match command {
        KeyCommand::List => {
            for key in list(&pool).await? {
                out.push_str(&format!(
                    "{}  {}  {:<15}  {}\n",
                    key.kid,
                    key.algorithm,
                    key.status,
                    key.created_at.format("%Y-%m-%d %H:%M:%S UTC")
                ));
            }
            if out.is_empty() {
                out.push_str(
                    "no managed signing keys: user tokens are signed with JWT_SECRET (HS256)\n",
                );
            }
        }
        KeyCommand::Add { alg } => {
            let kid = create_key(&pool, &keys, &alg, "standby").await?;
            out.push_str(&format!(
                "{kid}  {alg}  standby (published; `rotate` makes it sign)\n"
            ));
        }
        KeyCommand::Rotate { alg } => {
            let kid = rotate(&pool, &keys, &alg).await?;
            out.push_str(&format!(
                "{kid}  now signs user tokens; the previous key stays valid until revoked\n"
            ));
        }
        KeyCommand::Revoke { kid } => {
            let kid: Uuid = kid
                .parse()
                .map_err(|_| SigningKeyError::Key(format!("{kid:?} is not a key id")))?;
            revoke(&pool, kid).await?;
            out.push_str(&format!("{kid}  revoked\n"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    fn keys(secret: &str) -> ProjectKeys {
        let secret = secret.to_owned();
        let settings =
            Settings::from_lookup(move |name| (name == "JWT_SECRET").then(|| secret.clone()))
                .unwrap();
        ProjectKeys::load(&settings).unwrap()
    }

    #[test]
    fn private_keys_are_sealed_with_the_jwt_secret() {
        let a = keys("first-secret-with-at-least-32-characters-ok");
        let jwk = generate_private_jwk(Algorithm::ES256, "k1").unwrap();
        let sealed = seal(&a, &jwk).unwrap();
        assert!(!String::from_utf8_lossy(&sealed).contains("\"d\""));
        assert_eq!(open(&a, &sealed).unwrap(), jwk);
        let b = keys("other-secret-with-at-least-32-characters-ok");
        assert!(open(&b, &sealed).is_err());
        assert!(open(&a, &sealed[..5]).is_err());
    }

    #[test]
    fn only_es256_and_rs256_are_managed() {
        assert!(algorithm("ES256").is_ok());
        assert!(algorithm("RS256").is_ok());
        assert!(algorithm("HS256").is_err());
    }
}
