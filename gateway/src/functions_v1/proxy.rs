//! Functions served by another server (`FUNCTIONS_PROXY`): a name relayed to an external
//! URL with the caller's method, headers, query and body, and its answer passed back
//! unchanged, so an app can move a function elsewhere (or keep one on Supabase's platform)
//! without changing the client. `verify_jwt` is checked here first, as for Edge Functions.
//! A target that cannot be reached is a relay failure (`x-relay-error`), one that does not
//! answer within `FUNCTIONS_TIMEOUT` is `504`.

use std::collections::HashMap;
use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse, web};
use functions::FunctionError;
use http_body::Body as _;
use http_body_util::BodyExt;
use tokio::time::Instant;
use url::Url;

use super::{error_response, relay};

/// The proxied names and the client that relays to them.
#[derive(Debug)]
pub struct Proxies {
    targets: HashMap<String, Url>,
    client: reqwest::Client,
    timeout: Duration,
}

impl Proxies {
    pub fn new(targets: &[(String, Url)], timeout: Duration) -> Self {
        let client = reqwest::Client::builder()
            // A redirect is the target's answer, for the client to follow or not.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        Proxies {
            targets: targets.iter().cloned().collect(),
            client,
            timeout,
        }
    }

    /// Where `name` is relayed to, if it is proxied.
    pub fn target(&self, name: &str) -> Option<&Url> {
        self.targets.get(name)
    }

    /// Relays one request to `target` (plus the sub-path and query) and streams the answer.
    pub async fn relay(
        &self,
        name: &str,
        target: &Url,
        request: &HttpRequest,
        body: web::Payload,
        sub_path: &str,
    ) -> HttpResponse {
        let deadline = Instant::now() + self.timeout;
        let url = target_url(target, sub_path, request.query_string());
        let Ok(method) = reqwest::Method::from_bytes(request.method().as_str().as_bytes()) else {
            return error_response(FunctionError::MethodNotAllowed);
        };
        let mut headers = relay::outgoing_headers(request);
        // The target's own host, not the gateway's.
        headers.remove(http::header::HOST);
        let mut outgoing = self.client.request(method, url).headers(headers);
        if relay::has_body(request) {
            outgoing = outgoing.body(reqwest::Body::wrap_stream(relay::forward_body(body)));
        }
        let answer = match tokio::time::timeout_at(deadline, outgoing.send()).await {
            Err(_) => {
                tracing::warn!(
                    function = name,
                    "the proxied function did not answer in time"
                );
                return error_response(FunctionError::IdleTimeout);
            }
            Ok(Err(error)) => {
                tracing::warn!(function = name, %error, "relay to the proxied function failed");
                return error_response(FunctionError::Relay);
            }
            Ok(Ok(answer)) => answer,
        };
        let (head, body) = http::Response::<reqwest::Body>::from(answer).into_parts();
        let length = body.size_hint().exact();
        relay::answer(&head, length, body.into_data_stream(), deadline)
    }
}

/// `target` with the request's sub-path appended to its path and the request's query added to
/// its own.
fn target_url(target: &Url, sub_path: &str, query: &str) -> Url {
    let mut url = target.clone();
    if !sub_path.is_empty() {
        let path = format!("{}{sub_path}", target.path().trim_end_matches('/'));
        url.set_path(&path);
    }
    if !query.is_empty() {
        let joined = match target.query() {
            Some(own) if !own.is_empty() => format!("{own}&{query}"),
            _ => query.to_owned(),
        };
        url.set_query(Some(&joined));
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sub_path_and_query_follow_the_target() {
        let target = Url::parse("http://10.0.0.5:8000/search/").unwrap();
        assert_eq!(
            target_url(&target, "", "").as_str(),
            "http://10.0.0.5:8000/search/"
        );
        assert_eq!(
            target_url(&target, "/items/a%20b", "q=1").as_str(),
            "http://10.0.0.5:8000/search/items/a%20b?q=1"
        );
        let with_query = Url::parse("https://hooks.example.com/in?token=t").unwrap();
        assert_eq!(
            target_url(&with_query, "", "q=1").as_str(),
            "https://hooks.example.com/in?token=t&q=1"
        );
    }
}
