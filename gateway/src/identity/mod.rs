//! The project's keys and every check made on them: the legacy and opaque API keys
//! ([`project_keys`]), JWT signatures with each algorithm bound to its key ([`jwt`],
//! [`key_ring`], [`jwks`]), the managed signing keys ([`signing_keys`]) and the one-time
//! secrets of auth/v1 (OTPs, refresh tokens, PKCE: [`secrets`]).

pub mod jwks;
pub mod jwt;
pub mod key_ring;
pub mod project_keys;
pub mod secrets;
pub mod signing_keys;

pub use self::project_keys::{ApiKeyKind, KeyError, ProjectKeys};
