//! From a request's `apikey` and `Authorization` to the bearer token the services verify,
//! as Supabase's API gateway maps them: the `apikey` must be one of the project's keys
//! where the edge requires one, and when `Authorization` is missing (or carries an `sb_`
//! key) the request proceeds as `Bearer <service_role JWT>` for `sb_secret_…`,
//! `Bearer <anon JWT>` for `sb_publishable_…`, and `Bearer <apikey>` for a legacy JWT key.
//! The edge stores the result in the request as [`Credentials`]; [`identify`] turns them
//! into the request's [`Identity`].

use actix_web::{HttpMessage, HttpRequest};
use secrecy::ExposeSecret;

use super::authenticate::{Identity, IdentityContext, IdentityError, authenticate};
use super::project_keys::{ApiKeyKind, ProjectKeys};

/// What the gateway learned about the caller before any service runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    /// Which project key was presented, if any valid one was.
    pub api_key: Option<ApiKeyKind>,
    /// The bearer token the services must verify (see the module docs for the mapping).
    pub bearer: Option<String>,
}

/// Whether a request needs a valid `apikey` (decided by path at the edge).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    KeyRequired,
    Open,
}

/// Why a request was refused at the gate (the edge answers it as Supabase's gateway does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateRejection {
    Missing,
    Invalid,
}

/// From the presented `apikey` and `Authorization` header to credentials; `gate` says
/// whether a valid key is required (the edge decides that by path).
pub fn resolve(
    keys: &ProjectKeys,
    gate: Gate,
    apikey: Option<&str>,
    authorization: Option<&str>,
) -> Result<Credentials, GateRejection> {
    let kind = match apikey {
        Some(key) => match keys.classify(key) {
            Some(kind) => Some(kind),
            None if gate == Gate::KeyRequired => return Err(GateRejection::Invalid),
            None => None,
        },
        None if gate == Gate::KeyRequired => return Err(GateRejection::Missing),
        None => None,
    };

    let presented_bearer = authorization
        .and_then(|value| {
            value
                .strip_prefix("Bearer ")
                .or_else(|| value.strip_prefix("bearer "))
        })
        .map(str::trim)
        .filter(|token| !token.is_empty());
    let bearer = match presented_bearer {
        Some(token) if !token.starts_with("sb_") => Some(token.to_owned()),
        // No usable Authorization: act with the key's own role.
        _ => match (kind, apikey) {
            (Some(ApiKeyKind::Secret), _) => {
                Some(keys.service_role_key().expose_secret().to_owned())
            }
            (Some(ApiKeyKind::Publishable), _) => Some(keys.anon_key().to_owned()),
            (Some(_), Some(key)) => Some(key.to_owned()),
            _ => presented_bearer
                .and_then(|token| keys.classify(token))
                .map(|kind| match kind {
                    ApiKeyKind::Secret => keys.service_role_key().expose_secret().to_owned(),
                    _ => keys.anon_key().to_owned(),
                }),
        },
    };
    Ok(Credentials {
        api_key: kind,
        bearer,
    })
}

/// Who an HTTP request acts as: the bearer token the edge mapped for it ([`Credentials`];
/// none when the edge did not run) authenticated by [`authenticate`]. `now` is the
/// current Unix time.
pub fn identify(
    request: &HttpRequest,
    context: &IdentityContext<'_>,
    now: i64,
) -> Result<Identity, IdentityError> {
    let extensions = request.extensions();
    let bearer = extensions
        .get::<Credentials>()
        .and_then(|credentials| credentials.bearer.as_deref());
    authenticate(context, bearer, now)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    fn keys() -> ProjectKeys {
        let settings = Settings::from_lookup(|name| {
            (name == "JWT_SECRET")
                .then(|| "super-secret-jwt-token-with-at-least-32-characters-long".to_owned())
        })
        .unwrap();
        ProjectKeys::load(&settings).unwrap()
    }

    #[test]
    fn missing_and_invalid_keys_are_refused_where_required() {
        let keys = keys();
        assert_eq!(
            resolve(&keys, Gate::KeyRequired, None, None),
            Err(GateRejection::Missing)
        );
        assert_eq!(
            resolve(&keys, Gate::KeyRequired, Some("nope"), None),
            Err(GateRejection::Invalid)
        );
        let open = resolve(&keys, Gate::Open, Some("nope"), None).unwrap();
        assert_eq!(open.api_key, None);
        assert_eq!(open.bearer, None);
    }

    #[test]
    fn legacy_key_without_authorization_becomes_the_bearer() {
        let keys = keys();
        let anon = keys.anon_key().to_owned();
        let credentials = resolve(&keys, Gate::KeyRequired, Some(&anon), None).unwrap();
        assert_eq!(credentials.api_key, Some(ApiKeyKind::Anon));
        assert_eq!(credentials.bearer.as_deref(), Some(anon.as_str()));
    }

    #[test]
    fn a_user_token_in_authorization_wins() {
        let keys = keys();
        let anon = keys.anon_key().to_owned();
        let credentials = resolve(
            &keys,
            Gate::KeyRequired,
            Some(&anon),
            Some("Bearer user.jwt.token"),
        )
        .unwrap();
        assert_eq!(credentials.bearer.as_deref(), Some("user.jwt.token"));
    }

    #[test]
    fn opaque_keys_map_to_their_roles() {
        let keys = keys();
        let publishable = keys.publishable_key().to_owned();
        let secret = keys.secret_key().expose_secret().to_owned();

        let credentials = resolve(&keys, Gate::KeyRequired, Some(&publishable), None).unwrap();
        assert_eq!(credentials.api_key, Some(ApiKeyKind::Publishable));
        assert_eq!(credentials.bearer.as_deref(), Some(keys.anon_key()));

        // supabase-js sends `Authorization: Bearer <key>` when there is no session.
        let credentials = resolve(
            &keys,
            Gate::KeyRequired,
            Some(&secret),
            Some(&format!("Bearer {secret}")),
        )
        .unwrap();
        assert_eq!(credentials.api_key, Some(ApiKeyKind::Secret));
        assert_eq!(
            credentials.bearer.as_deref(),
            Some(keys.service_role_key().expose_secret())
        );

        // A user session with a publishable key keeps the user's token.
        let credentials = resolve(
            &keys,
            Gate::KeyRequired,
            Some(&publishable),
            Some("Bearer user.jwt.token"),
        )
        .unwrap();
        assert_eq!(credentials.bearer.as_deref(), Some("user.jwt.token"));
    }

    #[test]
    fn open_paths_map_an_opaque_bearer_without_apikey() {
        let keys = keys();
        let secret = keys.secret_key().expose_secret().to_owned();
        let credentials =
            resolve(&keys, Gate::Open, None, Some(&format!("Bearer {secret}"))).unwrap();
        assert_eq!(
            credentials.bearer.as_deref(),
            Some(keys.service_role_key().expose_secret())
        );
        let credentials =
            resolve(&keys, Gate::Open, None, Some("Bearer sb_secret_forged")).unwrap();
        assert_eq!(credentials.bearer, None);
    }
}
