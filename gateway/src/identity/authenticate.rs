//! Who a request acts as, for the services that run it as a database role (rest/v1 and
//! functions/v1, through [`super::identify`]): the bearer token (after the edge's mapping
//! of API keys, [`super::request`]) verified ([`super::token`]), its claims checked the way
//! PostgREST does, and turned into a role and the claims RLS policies read through
//! `request.jwt.claims`. Without a token the request is anonymous.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::jwt::JwtVerifier;
use super::key_ring::KeyRing;
use super::time_claims;
use super::token::{TokenError, verify_token};

/// What [`authenticate`] needs besides the token.
#[derive(Debug, Clone, Copy)]
pub struct IdentityContext<'a> {
    /// The project's keys ([`super::ProjectKeys::verifier`]).
    pub verifier: &'a JwtVerifier,
    /// The role of requests without a token, or whose token names none.
    pub anon_role: &'a str,
}

/// The identity of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// Database role the request switches to.
    pub role: String,
    /// Verified claims with `role` set to the effective role.
    pub claims: Arc<Map<String, Value>>,
    /// `claims` as JSON text, for `request.jwt.claims`.
    pub claims_json: Arc<str>,
    /// True when the request runs as the anonymous role.
    pub anonymous: bool,
}

impl Identity {
    fn new(role: String, claims: Map<String, Value>, anonymous: bool) -> Self {
        let claims_json = Value::Object(claims.clone()).to_string().into();
        Self {
            role,
            claims: Arc::new(claims),
            claims_json,
            anonymous,
        }
    }
}

/// Why a request has no identity. Each service words these its own way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdentityError {
    /// The bearer token is blank.
    EmptyToken,
    /// The token's signature or time claims were refused.
    Token(TokenError),
    /// The payload is not a JSON object.
    ClaimsNotObject,
    /// `aud` is neither a string nor an array of strings.
    Audience,
}

impl From<TokenError> for IdentityError {
    fn from(error: TokenError) -> Self {
        IdentityError::Token(error)
    }
}

/// How long a verified token is remembered, and how many per worker thread.
const VERIFIED_TTL: Duration = Duration::from_secs(60);
const VERIFIED_LIMIT: usize = 4_096;

/// A token that passed verification, with what time checks need on later uses.
struct Verified {
    /// Which verifier, key ring and anonymous role it was checked with. Holding the
    /// ring keeps its address unique, so a rotated or revoked key set is never mistaken
    /// for the one the token was checked against.
    verifier: usize,
    ring: Arc<KeyRing>,
    anon_role: String,
    at: Instant,
    identity: Identity,
}

thread_local! {
    /// Recently verified tokens of this worker thread. Clients send the same token with
    /// every request (the anon key, a user's access token for up to an hour), so the
    /// signature check and claims processing run once per token and minute; the time
    /// claims are still checked on every request. Only tokens that passed verification
    /// are keys, so a fast hasher (foldhash) is safe here.
    static VERIFIED: RefCell<HashMap<String, Verified, foldhash::fast::RandomState>> =
        RefCell::new(HashMap::default());
}

/// Verifies `bearer` (if any) and picks the role. `now` is the current Unix time.
pub fn authenticate(
    context: &IdentityContext<'_>,
    bearer: Option<&str>,
    now: i64,
) -> Result<Identity, IdentityError> {
    let IdentityContext {
        verifier,
        anon_role,
    } = *context;
    let Some(token) = bearer else {
        return Ok(anonymous(anon_role, Map::new()));
    };
    let verifier_id = std::ptr::from_ref(verifier) as usize;
    let ring = verifier.ring().load();
    let remembered = VERIFIED.with(|cache| {
        cache.borrow().get(token).and_then(|hit| {
            (hit.verifier == verifier_id
                && Arc::ptr_eq(&hit.ring, &ring)
                && hit.anon_role == anon_role
                && hit.at.elapsed() < VERIFIED_TTL)
                .then(|| hit.identity.clone())
        })
    });
    if let Some(identity) = remembered {
        time_claims::check(&identity.claims, now)
            .map_err(|error| IdentityError::Token(TokenError::TimeClaims(error)))?;
        return Ok(identity);
    }
    let identity = verify(token, verifier, anon_role, now)?;
    VERIFIED.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() >= VERIFIED_LIMIT {
            cache.retain(|_, entry| entry.at.elapsed() < VERIFIED_TTL);
            if cache.len() >= VERIFIED_LIMIT {
                cache.clear();
            }
        }
        cache.insert(
            token.to_owned(),
            Verified {
                verifier: verifier_id,
                ring: Arc::clone(&ring),
                anon_role: anon_role.to_owned(),
                at: Instant::now(),
                identity: identity.clone(),
            },
        );
    });
    Ok(identity)
}

/// The full check of a token: signature, claims, role.
fn verify(
    token: &str,
    verifier: &JwtVerifier,
    anon_role: &str,
    now: i64,
) -> Result<Identity, IdentityError> {
    let token = token.trim();
    if token.is_empty() {
        return Err(IdentityError::EmptyToken);
    }
    let Value::Object(mut claims) = verify_token(verifier, token, now)? else {
        return Err(IdentityError::ClaimsNotObject);
    };
    if let Some(aud) = claims.get("aud") {
        let valid = match aud {
            Value::Null | Value::String(_) => true,
            Value::Array(items) => items.iter().all(Value::is_string),
            _ => false,
        };
        if !valid {
            return Err(IdentityError::Audience);
        }
    }
    match claims.get("role") {
        None | Some(Value::Null) => Ok(anonymous(anon_role, claims)),
        Some(role) => {
            let role = match role {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            claims.insert("role".into(), Value::String(role.clone()));
            let anonymous = role == anon_role;
            Ok(Identity::new(role, claims, anonymous))
        }
    }
}

fn anonymous(anon_role: &str, mut claims: Map<String, Value>) -> Identity {
    claims.insert("role".into(), Value::String(anon_role.to_owned()));
    Identity::new(anon_role.to_owned(), claims, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::jwt::Hs256Key;
    use crate::rest_v1::error::ApiError;
    use secrecy::SecretString;
    use serde_json::json;

    /// [`super::authenticate`] with its refusals as rest/v1 words them (PostgREST's).
    fn authenticate(
        bearer: Option<&str>,
        verifier: &JwtVerifier,
        anon_role: &str,
        now: i64,
    ) -> Result<Identity, ApiError> {
        super::authenticate(
            &IdentityContext {
                verifier,
                anon_role,
            },
            bearer,
            now,
        )
        .map_err(ApiError::from)
    }

    const NOW: i64 = 1_800_000_000;

    fn key() -> Hs256Key {
        Hs256Key::new(&SecretString::from(
            "a-secret-that-is-at-least-32-characters".to_owned(),
        ))
    }

    fn run(claims: Value) -> Result<Identity, ApiError> {
        let token = key().sign(&claims).unwrap();
        authenticate(Some(&token), &JwtVerifier::new(key(), None), "anon", NOW)
    }

    fn message(result: Result<Identity, ApiError>) -> String {
        result.unwrap_err().body()["message"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    #[test]
    fn no_token_is_the_anonymous_role() {
        let auth = authenticate(None, &JwtVerifier::new(key(), None), "anon", NOW).unwrap();
        assert_eq!(auth.role, "anon");
        assert!(auth.anonymous);
        assert_eq!(
            Value::Object((*auth.claims).clone()),
            json!({"role": "anon"})
        );
        assert_eq!(&*auth.claims_json, r#"{"role":"anon"}"#);
    }

    #[test]
    fn the_role_claim_selects_the_role() {
        let auth = run(json!({"role": "authenticated", "sub": "u1", "exp": NOW + 60})).unwrap();
        assert_eq!(auth.role, "authenticated");
        assert!(!auth.anonymous);
        assert_eq!(auth.claims["sub"], "u1");
        let auth = run(json!({"sub": "u1"})).unwrap();
        assert_eq!(auth.role, "anon");
        assert_eq!(auth.claims["role"], "anon");
    }

    #[test]
    fn time_claims_use_a_thirty_second_skew() {
        assert!(run(json!({"role": "a", "exp": NOW - 20})).is_ok());
        assert_eq!(
            message(run(json!({"role": "a", "exp": NOW - 31}))),
            "JWT expired"
        );
        assert_eq!(
            message(run(json!({"role": "a", "nbf": NOW + 60}))),
            "JWT not yet valid"
        );
        assert_eq!(
            message(run(json!({"role": "a", "iat": NOW + 60}))),
            "JWT issued at future"
        );
        assert_eq!(
            message(run(json!({"role": "a", "exp": "999999999999"}))),
            "The JWT 'exp' claim must be a number"
        );
        assert_eq!(
            message(run(json!({"role": "a", "aud": 5}))),
            "The JWT 'aud' claim must be a string or an array of strings"
        );
    }

    #[test]
    fn a_remembered_token_still_expires_and_stays_bound_to_its_verifier() {
        let token = key()
            .sign(&json!({"role": "authenticated", "exp": NOW + 60}))
            .unwrap();
        let verifier = JwtVerifier::new(key(), None);
        assert!(authenticate(Some(&token), &verifier, "anon", NOW).is_ok());
        assert!(authenticate(Some(&token), &verifier, "anon", NOW).is_ok());
        assert_eq!(
            message(authenticate(Some(&token), &verifier, "anon", NOW + 120)),
            "JWT expired"
        );
        let other = JwtVerifier::new(
            Hs256Key::new(&SecretString::from(
                "another-secret-of-at-least-32-chars!!".to_owned(),
            )),
            None,
        );
        assert_eq!(
            message(authenticate(Some(&token), &other, "anon", NOW)),
            "No suitable key or wrong key type"
        );
    }

    #[test]
    fn malformed_tokens_get_postgrests_messages() {
        let verifier = JwtVerifier::new(key(), None);
        let check = |token: &str| message(authenticate(Some(token), &verifier, "anon", NOW));
        assert_eq!(check(""), "Empty JWT is sent in Authorization header");
        assert_eq!(check("abc"), "Expected 3 parts in JWT; got 1");
        assert_eq!(check("a.b.c"), "JWT cryptographic operation failed");
        let other = Hs256Key::new(&SecretString::from(
            "another-secret-of-at-least-32-chars!!".to_owned(),
        ))
        .sign(&json!({"role": "service_role"}))
        .unwrap();
        let error = authenticate(Some(&other), &verifier, "anon", NOW).unwrap_err();
        assert_eq!(error.body()["message"], "No suitable key or wrong key type");
        assert_eq!(
            error.body()["details"],
            "None of the keys was able to decode the JWT"
        );
        assert_eq!(error.code(), "PGRST301");
    }
}
