//! Who a rest/v1 request runs as: the bearer token (after the API gateway's key mapping),
//! verified and checked the way PostgREST does, turned into a database role and the claims
//! that RLS policies read through `request.jwt.claims`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::error::{ApiError, JwtError};
use crate::identity::jwt::{JwtVerifier, VerifyError};
use crate::identity::key_ring::KeyRing;

/// Allowed clock difference for `exp`, `nbf` and `iat`, as in PostgREST.
const CLOCK_SKEW_SECONDS: i64 = 30;

/// The identity of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestAuth {
    /// Database role the request switches to.
    pub role: String,
    /// Verified claims with `role` set to the effective role.
    pub claims: Arc<Map<String, Value>>,
    /// `claims` as JSON text, for `request.jwt.claims`.
    pub claims_json: Arc<str>,
    /// True when the request runs as the anonymous role.
    pub anonymous: bool,
}

impl RequestAuth {
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
    auth: RequestAuth,
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
    bearer: Option<&str>,
    verifier: &JwtVerifier,
    anon_role: &str,
    now: i64,
) -> Result<RequestAuth, ApiError> {
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
                .then(|| hit.auth.clone())
        })
    });
    if let Some(auth) = remembered {
        check_time_claims(&auth.claims, now)?;
        return Ok(auth);
    }
    let auth = verify(token, verifier, anon_role, now)?;
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
                auth: auth.clone(),
            },
        );
    });
    Ok(auth)
}

/// The full check of a token: signature, claims, role.
fn verify(
    token: &str,
    verifier: &JwtVerifier,
    anon_role: &str,
    now: i64,
) -> Result<RequestAuth, ApiError> {
    let token = token.trim();
    if token.is_empty() {
        return Err(invalid("Empty JWT is sent in Authorization header", None));
    }
    let claims = verifier.verify(token).map_err(|error| match error {
        VerifyError::Parts(n) => invalid(&format!("Expected 3 parts in JWT; got {n}"), None),
        VerifyError::Malformed => invalid("JWT cryptographic operation failed", None),
        VerifyError::Unsecured => invalid(
            "Wrong or unsupported encoding algorithm",
            Some("JWT is unsecured but expected 'alg' was not 'none'"),
        ),
        VerifyError::NoSuitableKey => invalid(
            "No suitable key or wrong key type",
            Some("No suitable key was found to decode the JWT"),
        ),
        VerifyError::BadSignature => invalid(
            "No suitable key or wrong key type",
            Some("None of the keys was able to decode the JWT"),
        ),
    })?;
    let Value::Object(mut claims) = claims else {
        return Err(ApiError::Jwt(JwtError::Claims(
            "Parsing claims failed".into(),
        )));
    };
    check_time_claims(&claims, now)?;
    if let Some(aud) = claims.get("aud") {
        let valid = match aud {
            Value::Null | Value::String(_) => true,
            Value::Array(items) => items.iter().all(Value::is_string),
            _ => false,
        };
        if !valid {
            return Err(claims_error(
                "The JWT 'aud' claim must be a string or an array of strings",
            ));
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
            Ok(RequestAuth::new(role, claims, anonymous))
        }
    }
}

fn anonymous(anon_role: &str, mut claims: Map<String, Value>) -> RequestAuth {
    claims.insert("role".into(), Value::String(anon_role.to_owned()));
    RequestAuth::new(anon_role.to_owned(), claims, true)
}

fn invalid(message: &str, details: Option<&str>) -> ApiError {
    ApiError::Jwt(JwtError::Invalid {
        message: message.to_owned(),
        details: details.map(str::to_owned),
    })
}

fn claims_error(message: &str) -> ApiError {
    ApiError::Jwt(JwtError::Claims(message.to_owned()))
}

/// `exp`, `nbf`, `iat` must be numbers when present, checked with a 30 s skew.
fn check_time_claims(claims: &Map<String, Value>, now: i64) -> Result<(), ApiError> {
    let number = |name: &str| -> Result<Option<i64>, ApiError> {
        match claims.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => Ok(Some(
                n.as_i64()
                    .unwrap_or_else(|| n.as_f64().map_or(0, |f| f as i64)),
            )),
            Some(_) => Err(claims_error(&format!(
                "The JWT '{name}' claim must be a number"
            ))),
        }
    };
    if let Some(exp) = number("exp")?
        && now - CLOCK_SKEW_SECONDS > exp
    {
        return Err(claims_error("JWT expired"));
    }
    if let Some(nbf) = number("nbf")?
        && now + CLOCK_SKEW_SECONDS < nbf
    {
        return Err(claims_error("JWT not yet valid"));
    }
    if let Some(iat) = number("iat")?
        && now + CLOCK_SKEW_SECONDS < iat
    {
        return Err(claims_error("JWT issued at future"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::jwt::Hs256Key;
    use secrecy::SecretString;
    use serde_json::json;

    const NOW: i64 = 1_800_000_000;

    fn key() -> Hs256Key {
        Hs256Key::new(&SecretString::from(
            "a-secret-that-is-at-least-32-characters".to_owned(),
        ))
    }

    fn run(claims: Value) -> Result<RequestAuth, ApiError> {
        let token = key().sign(&claims).unwrap();
        authenticate(Some(&token), &JwtVerifier::new(key(), None), "anon", NOW)
    }

    fn message(result: Result<RequestAuth, ApiError>) -> String {
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
