//! The client's address: the first entry of the header a trusted proxy sets
//! (`RATE_LIMIT_HEADER`, e.g. `X-Forwarded-For`) when one is configured and present, else the
//! socket's peer. Rate limits and per-address allowances count by it.

use actix_web::HttpRequest;

/// The address of the client that sent `request` (empty when there is none to tell).
pub fn client_address(request: &HttpRequest, trusted_header: Option<&str>) -> String {
    trusted_header
        .and_then(|name| request.headers().get(name))
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(',').next())
        .map(str::trim)
        .filter(|first| !first.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| {
            request
                .peer_addr()
                .map(|peer| peer.ip().to_string())
                .unwrap_or_default()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trusted_header_wins_over_the_peer_only_when_configured() {
        let request = actix_web::test::TestRequest::default()
            .peer_addr("10.0.0.9:5000".parse().unwrap())
            .insert_header(("x-forwarded-for", "203.0.113.7, 10.0.0.1"))
            .to_http_request();
        assert_eq!(
            client_address(&request, Some("x-forwarded-for")),
            "203.0.113.7"
        );
        assert_eq!(client_address(&request, None), "10.0.0.9");
        assert_eq!(client_address(&request, Some("x-real-ip")), "10.0.0.9");
    }
}
