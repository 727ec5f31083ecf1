//! GoTrue's answers for the features Cielo does not offer: SAML single sign-on, passkeys,
//! the OAuth 2.1 server, custom OAuth providers and SCIM. GoTrue, with each of them
//! switched off (its default), answers every path under the feature's prefix with a JSON
//! 404 naming it, after the checks that come first in its router (a user session for
//! `/user/…`, admin credentials for `/admin/…`), so supabase-js gets an `AuthApiError` with
//! GoTrue's `code` (e.g. `saml_provider_disabled` from `signInWithSSO`), not a plain 404.
//! An existing user's passkeys are listed as GoTrue lists them: none, since none can be
//! registered.

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

use super::error::AuthError;
use super::{Ctx, Reply, admin, authn, respond};
use crate::state::AppState;

/// The features, each with GoTrue's error for it and the check that comes before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    /// `/sso/…`.
    Saml,
    /// `/passkeys/…`.
    Passkeys,
    /// `/oauth/…` and `/.well-known/oauth-authorization-server`.
    OAuthServer,
    /// `/user/oauth/grants/…`: a user session first.
    OAuthGrants,
    /// `/admin/oauth/…`: admin credentials first.
    OAuthClients,
    /// `/admin/custom-providers/…`: admin credentials first.
    CustomProviders,
    /// `/scim/v2/…`.
    Scim,
}

impl Feature {
    fn error(self) -> AuthError {
        match self {
            Feature::Saml => AuthError::not_found("saml_provider_disabled", "SAML 2.0 is disabled"),
            Feature::Passkeys => AuthError::not_found("passkey_disabled", "Passkeys are disabled"),
            Feature::OAuthServer | Feature::OAuthGrants | Feature::OAuthClients => {
                AuthError::not_found("feature_disabled", "OAuth server is disabled")
            }
            Feature::CustomProviders => {
                AuthError::not_found("feature_disabled", "Custom OAuth providers are disabled")
            }
            Feature::Scim => AuthError::not_found("feature_disabled", "SCIM server is disabled"),
        }
    }

    /// An actix handler for every method and path under the feature's prefix.
    pub fn handler(self) -> actix_web::Route {
        web::to(
            move |http: HttpRequest, state: web::Data<AppState>| async move {
                answer(self, &http, &state).await
            },
        )
    }
}

async fn answer(feature: Feature, http: &HttpRequest, state: &AppState) -> HttpResponse {
    let ctx = Ctx::from_request(http, &state.settings.auth);
    let result = async {
        let auth = &state.auth;
        match feature {
            Feature::OAuthGrants => {
                let mut connection = auth.connection().await?;
                let tx = connection.transaction().await?;
                authn::require_user(auth, &ctx, &tx).await?;
                tx.commit().await?;
            }
            Feature::OAuthClients | Feature::CustomProviders => {
                authn::require_admin(auth, &ctx)?;
            }
            Feature::Saml | Feature::Passkeys | Feature::OAuthServer | Feature::Scim => {}
        }
        Err(feature.error())
    }
    .await;
    respond(&ctx, result)
}

/// `GET /admin/users/{id}/passkeys`: the user's passkeys, always none.
pub async fn admin_passkeys_handler(
    http: HttpRequest,
    path: web::Path<String>,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = admin::admin_user(&state, &ctx, &path)
        .await
        .map(|_| Reply::Json(json!([])));
    respond(&ctx, result)
}

/// `DELETE /admin/users/{id}/passkeys/{passkey_id}`: no passkey is ever found (GoTrue gives
/// a malformed id and an unknown one the same answer).
pub async fn admin_delete_passkey_handler(
    http: HttpRequest,
    path: web::Path<(String, String)>,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = admin::admin_user(&state, &ctx, &path.0)
        .await
        .and_then(|_| {
            Err(AuthError::not_found(
                "validation_failed",
                "Passkey not found",
            ))
        });
    respond(&ctx, result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_feature_has_gotrues_code_and_message() {
        let cases = [
            (
                Feature::Saml,
                "saml_provider_disabled",
                "SAML 2.0 is disabled",
            ),
            (
                Feature::Passkeys,
                "passkey_disabled",
                "Passkeys are disabled",
            ),
            (
                Feature::OAuthServer,
                "feature_disabled",
                "OAuth server is disabled",
            ),
            (
                Feature::OAuthGrants,
                "feature_disabled",
                "OAuth server is disabled",
            ),
            (
                Feature::OAuthClients,
                "feature_disabled",
                "OAuth server is disabled",
            ),
            (
                Feature::CustomProviders,
                "feature_disabled",
                "Custom OAuth providers are disabled",
            ),
            (Feature::Scim, "feature_disabled", "SCIM server is disabled"),
        ];
        for (feature, code, message) in cases {
            let error = feature.error();
            assert_eq!(error.status.as_u16(), 404, "{feature:?}");
            assert_eq!(
                (error.code, error.message.as_str()),
                (code, message),
                "{feature:?}"
            );
        }
    }
}
