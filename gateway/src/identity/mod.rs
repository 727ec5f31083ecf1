//! Who a request is: the project's keys and every check made on them. The legacy and opaque
//! API keys ([`project_keys`]), JWT signatures with each algorithm bound to its key
//! ([`jwt`], [`key_ring`], [`jwks`], [`signing_keys`]), time claims ([`time_claims`]), the
//! mapping of `apikey` and `Authorization` to a bearer token ([`request`]) and from it to a
//! role and claims ([`authenticate`]). One-time secrets of auth/v1 (OTPs, refresh tokens,
//! PKCE) are in [`secrets`]. Refusals are typed; each service turns them into its own wire
//! errors (rest/v1 and auth/v1 in their `error` modules).

pub mod authenticate;
pub mod jwks;
pub mod jwt;
pub mod key_ring;
pub mod project_keys;
pub mod request;
pub mod secrets;
pub mod signing_keys;
pub mod time_claims;
pub mod token;

pub use self::authenticate::{Identity, IdentityContext, IdentityError, authenticate};
pub use self::project_keys::{ApiKeyKind, KeyError, ProjectKeys};
pub use self::request::{Credentials, identify};
pub use self::token::{TokenError, verify_token};
