//! DNS-rebinding protection: the `Host` and `Origin` headers checked
//! against allow-lists, before anything else is read.
//!
//! A web page on `evil.example` that resolves its name to 127.0.0.1 makes
//! the browser send requests to a local server with `Host: evil.example`
//! and `Origin: http://evil.example`: refusing names that are not ours
//! stops it.

use axum::http::HeaderMap;
use axum::http::header::{HOST, ORIGIN};

/// The names a loopback server answers to.
const LOCAL_NAMES: [&str; 4] = ["localhost", "127.0.0.1", "[::1]", "::1"];

#[derive(Clone, Debug)]
pub(crate) struct Guard {
    /// `None`: any host.
    hosts: Option<Vec<String>>,
    /// `None`: any origin.
    origins: Option<Vec<String>>,
}

impl Guard {
    /// The allow-lists as configured; an empty list means the localhost
    /// names when `local` (the server is bound to loopback, or mounted
    /// where we cannot tell), anything otherwise. `*` allows anything.
    pub(crate) fn new(hosts: &[String], origins: &[String], local: bool) -> Guard {
        let list = |configured: &[String]| -> Option<Vec<String>> {
            if configured.iter().any(|h| h == "*") {
                None
            } else if configured.is_empty() {
                local.then(|| LOCAL_NAMES.iter().map(|s| (*s).to_owned()).collect())
            } else {
                Some(configured.iter().map(|h| h.to_ascii_lowercase()).collect())
            }
        };
        Guard {
            hosts: list(hosts),
            origins: list(origins),
        }
    }

    /// `Err` with what is wrong when the request must be refused (403).
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<(), &'static str> {
        if let Some(allowed) = &self.hosts {
            let host = headers.get(HOST).and_then(|h| h.to_str().ok());
            match host {
                Some(host) if matches_host(allowed, host) => {}
                Some(_) => {
                    return Err(
                        "Forbidden: the Host header names a host this server does not serve",
                    );
                }
                None => return Err("Forbidden: a Host header is required"),
            }
        }
        if let (Some(allowed), Some(origin)) = (&self.origins, headers.get(ORIGIN)) {
            let origin = origin.to_str().unwrap_or_default();
            if !matches_origin(allowed, origin) {
                return Err("Forbidden: requests from this Origin are not allowed");
            }
        }
        Ok(())
    }
}

/// `host` (`name` or `name:port`) against entries that are either a name
/// (any port) or `name:port`.
fn matches_host(allowed: &[String], host: &str) -> bool {
    // Entries are lowercase; compared without a lowercased copy.
    let host = host.trim();
    let name = strip_port(host);
    allowed
        .iter()
        .any(|entry| entry.eq_ignore_ascii_case(host) || entry.eq_ignore_ascii_case(name))
}

/// `origin` (`scheme://host[:port]`) against entries that are either a
/// whole origin or a host entry as for [`matches_host`].
fn matches_origin(allowed: &[String], origin: &str) -> bool {
    let origin = origin.trim().to_ascii_lowercase();
    if allowed.contains(&origin) {
        return true;
    }
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false; // `null`, or not an origin
    };
    matches!(scheme, "http" | "https")
        && !authority.contains('/')
        && matches_host(allowed, authority)
}

/// `name:port` → `name`; `[v6]:port` → `[v6]`.
fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        return host.find(']').map_or(host, |end| &host[..=end]);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => {
            name
        }
        _ => host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(host: Option<&str>, origin: Option<&str>) -> HeaderMap {
        let mut map = HeaderMap::new();
        if let Some(host) = host {
            map.insert(HOST, HeaderValue::from_str(host).unwrap());
        }
        if let Some(origin) = origin {
            map.insert(ORIGIN, HeaderValue::from_str(origin).unwrap());
        }
        map
    }

    #[test]
    fn a_loopback_server_answers_to_localhost_names_only() {
        let guard = Guard::new(&[], &[], true);
        for host in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:3000",
            "[::1]:80",
            "LOCALHOST",
        ] {
            assert!(guard.check(&headers(Some(host), None)).is_ok(), "{host}");
        }
        for host in [
            "evil.example",
            "evil.example:8080",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
        ] {
            assert!(guard.check(&headers(Some(host), None)).is_err(), "{host}");
        }
        assert!(guard.check(&headers(None, None)).is_err());
        let ok = Some("localhost:8080");
        assert!(
            guard
                .check(&headers(ok, Some("http://localhost:5173")))
                .is_ok()
        );
        assert!(guard.check(&headers(ok, Some("https://127.0.0.1"))).is_ok());
        assert!(
            guard
                .check(&headers(ok, Some("http://evil.example")))
                .is_err()
        );
        assert!(guard.check(&headers(ok, Some("null"))).is_err());
    }

    #[test]
    fn configured_lists_replace_the_defaults() {
        let guard = Guard::new(
            &["mcp.example.com".into()],
            &["https://app.example.com".into()],
            true,
        );
        assert!(
            guard
                .check(&headers(Some("mcp.example.com:443"), None))
                .is_ok()
        );
        assert!(guard.check(&headers(Some("localhost"), None)).is_err());
        let host = Some("mcp.example.com");
        assert!(
            guard
                .check(&headers(host, Some("https://app.example.com")))
                .is_ok()
        );
        assert!(
            guard
                .check(&headers(host, Some("https://other.example.com")))
                .is_err()
        );
    }

    #[test]
    fn a_server_bound_elsewhere_answers_any_host_unless_told() {
        let guard = Guard::new(&[], &[], false);
        assert!(
            guard
                .check(&headers(Some("anything.example"), Some("http://x.example")))
                .is_ok()
        );
        let guard = Guard::new(&["*".into()], &[], true);
        assert!(
            guard
                .check(&headers(Some("anything.example"), None))
                .is_ok()
        );
    }
}
