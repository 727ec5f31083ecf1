//! Where auth may send a browser: `redirect_to` checked against `SITE_URL` and the
//! allow-list (`ADDITIONAL_REDIRECT_URLS`), with GoTrue's rules.
//!
//! Allowed: the site URL's scheme and host (any port when the host is localhost), and
//! anything matching an allow-list glob (`*` stops at `.` and `/`, `**` does not; the
//! fragment is ignored). Decimal-IP hosts and odd host names never pass; IP literals only
//! when loopback. Anything else falls back to the site URL, so a link can never become an
//! open redirect.

use url::Url;

#[derive(Debug, Clone)]
pub struct RedirectPolicy {
    site_url: Url,
    allow_list: Vec<String>,
}

impl RedirectPolicy {
    pub fn new(site_url: Url, allow_list: Vec<String>) -> Self {
        Self {
            site_url,
            allow_list,
        }
    }

    /// The site URL as GoTrue renders it (no trailing slash added or removed).
    pub fn site_url(&self) -> String {
        let text = self.site_url.as_str();
        // `Url` adds a `/` to bare origins; GoTrue keeps SITE_URL as configured.
        match text.strip_suffix('/') {
            Some(bare) if self.site_url.path() == "/" => bare.to_owned(),
            _ => text.to_owned(),
        }
    }

    pub fn is_allowed(&self, candidate: &str) -> bool {
        if candidate.is_empty() {
            return false;
        }
        let Ok(target) = Url::parse(candidate) else {
            return false;
        };
        // The URL parser rewrites decimal hosts (`2130706433` becomes `127.0.0.1`); GoTrue
        // refuses them, so look at the host as written.
        if raw_host(candidate)
            .is_some_and(|host| !host.is_empty() && host.bytes().all(|b| b.is_ascii_digit()))
        {
            return false;
        }
        let host = target.host_str().unwrap_or_default();
        let bare_host = host.trim_start_matches('[').trim_end_matches(']');
        if Some(host) == self.site_url.host_str()
            && target.scheme() == self.site_url.scheme()
            && (target.port() == self.site_url.port() || is_localhost(bare_host))
        {
            return true;
        }
        let is_http = matches!(target.scheme(), "http" | "https");
        if !bare_host.is_empty() && bare_host.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        if let Ok(ip) = bare_host.parse::<std::net::IpAddr>() {
            return ip.is_loopback();
        }
        if is_http && !is_regular_hostname(bare_host) {
            return false;
        }
        let without_fragment = candidate.split('#').next().unwrap_or_default();
        self.allow_list
            .iter()
            .any(|pattern| glob_matches(pattern, without_fragment))
    }

    /// `candidate` when allowed, else the site URL.
    pub fn resolve(&self, candidate: Option<&str>) -> String {
        match candidate {
            Some(candidate) if self.is_allowed(candidate) => candidate.to_owned(),
            _ => self.site_url(),
        }
    }
}

/// The host part of an absolute URL as written (no userinfo, no port).
fn raw_host(candidate: &str) -> Option<&str> {
    let rest = candidate.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    if host_port.starts_with('[') {
        return host_port
            .split(']')
            .next()
            .map(|h| h.trim_start_matches('['));
    }
    host_port.split(':').next()
}

fn is_localhost(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn is_regular_hostname(host: &str) -> bool {
    let bytes = host.as_bytes();
    !bytes.is_empty()
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'.' || *b == b'-')
}

/// gobwas/glob semantics with separators `.` and `/`: `*` matches within a segment, `**`
/// across segments, `?` one non-separator character.
pub fn glob_matches(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    matches_from(&pattern, &text)
}

fn is_separator(c: char) -> bool {
    c == '.' || c == '/'
}

fn matches_from(pattern: &[char], text: &[char]) -> bool {
    match pattern.first() {
        None => text.is_empty(),
        Some('*') if pattern.get(1) == Some(&'*') => {
            let rest = &pattern[2..];
            (0..=text.len()).any(|skip| matches_from(rest, &text[skip..]))
        }
        Some('*') => {
            let rest = &pattern[1..];
            let segment = text.iter().take_while(|c| !is_separator(**c)).count();
            (0..=segment).any(|skip| matches_from(rest, &text[skip..]))
        }
        Some('?') => {
            text.first().is_some_and(|c| !is_separator(*c))
                && matches_from(&pattern[1..], &text[1..])
        }
        Some(c) => text.first() == Some(c) && matches_from(&pattern[1..], &text[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allow: &[&str]) -> RedirectPolicy {
        RedirectPolicy::new(
            Url::parse("https://planifica.cl").unwrap(),
            allow.iter().map(|s| (*s).to_owned()).collect(),
        )
    }

    #[test]
    fn the_site_url_and_its_paths_are_allowed() {
        let p = policy(&[]);
        assert!(p.is_allowed("https://planifica.cl/confirm-email"));
        assert!(p.is_allowed("https://planifica.cl"));
        assert!(!p.is_allowed("http://planifica.cl/x"));
        assert!(!p.is_allowed("https://planifica.cl:8443/x"));
        assert!(!p.is_allowed("https://evil.com/?https://planifica.cl"));
        assert!(!p.is_allowed(""));
        assert!(!p.is_allowed("not a url"));
        assert_eq!(p.site_url(), "https://planifica.cl");
    }

    #[test]
    fn localhost_ignores_the_port() {
        let p = RedirectPolicy::new(Url::parse("http://localhost:3000").unwrap(), vec![]);
        assert!(p.is_allowed("http://localhost:5173/auth"));
        assert!(p.is_allowed("http://127.0.0.1:9/x"));
        assert!(!p.is_allowed("http://2130706433/x"));
        assert!(!p.is_allowed("http://10.0.0.1/x"));
    }

    #[test]
    fn allow_list_globs() {
        let p = policy(&["https://*.planifica.cl/**", "http://localhost:5173/*"]);
        assert!(p.is_allowed("https://preview-1.planifica.cl/auth/callback"));
        assert!(!p.is_allowed("https://a.b.planifica.cl.evil.com/x"));
        assert!(p.is_allowed("http://localhost:5173/auth#fragment"));
        assert!(!p.is_allowed("https://evil.com/"));
        assert!(!p.is_allowed("https://exa_mple.com/"));
        assert_eq!(p.resolve(Some("https://evil.com/")), "https://planifica.cl");
        assert_eq!(
            p.resolve(Some("http://localhost:5173/auth")),
            "http://localhost:5173/auth"
        );
        assert_eq!(p.resolve(None), "https://planifica.cl");
    }

    #[test]
    fn glob_semantics() {
        assert!(glob_matches(
            "https://*.example.com",
            "https://a.example.com"
        ));
        assert!(!glob_matches(
            "https://*.example.com",
            "https://a.b.example.com"
        ));
        assert!(glob_matches(
            "https://**.example.com",
            "https://a.b.example.com"
        ));
        assert!(glob_matches(
            "https://example.com/**",
            "https://example.com/a/b?c=d"
        ));
        assert!(glob_matches(
            "https://example.com/?",
            "https://example.com/a"
        ));
        assert!(!glob_matches(
            "https://example.com/?",
            "https://example.com/ab"
        ));
        assert!(glob_matches("exact", "exact"));
        assert!(!glob_matches("exact", "exactly"));
    }
}
