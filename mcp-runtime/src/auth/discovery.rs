//! Authorization server metadata (RFC 8414, and OpenID Connect discovery
//! as its fallback): where the JWKS and the introspection endpoint are.
//! The addresses (`metadata_urls`, `split_origin`) are shared with the
//! client's OAuth (`client::oauth::discovery`), which reads the rest of the
//! document itself.

#[cfg(feature = "auth")]
use serde_json::{Map, Value};

#[cfg(feature = "auth")]
use super::fetch::{FetchError, Fetcher};

/// What this resource server needs from the metadata.
#[cfg(feature = "auth")]
#[derive(Clone, Debug)]
pub(crate) struct Metadata {
    pub(crate) jwks_uri: Option<String>,
    pub(crate) introspection_endpoint: Option<String>,
}

/// The metadata addresses of `issuer`, in the order RFC 8414 and the MCP
/// specification (2025-11-25) try them: the well-known name inserted
/// before the issuer's path, then OpenID Connect's, both ways.
pub(crate) fn metadata_urls(issuer: &str) -> Vec<String> {
    let trimmed = issuer.trim_end_matches('/');
    let (origin, path) = split_origin(trimmed);
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{trimmed}/.well-known/openid-configuration"),
        ]
    }
}

/// `https://host:port/path` → (`https://host:port`, `/path`).
pub(crate) fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(slash) => url.split_at(after_scheme + slash),
        None => (url, ""),
    }
}

#[cfg(feature = "auth")]
/// Fetches the metadata of `issuer`: the first address that answers with
/// a document naming that same issuer.
pub(crate) async fn discover(fetcher: &Fetcher, issuer: &str) -> Result<Metadata, FetchError> {
    let mut failures = Vec::new();
    for url in metadata_urls(issuer) {
        match fetcher.get_json(&url).await {
            Ok(document) => return read(&document, issuer, &url),
            Err(error) => failures.push(error.0),
        }
    }
    Err(FetchError(format!(
        "no authorization server metadata for {issuer}: {}",
        failures.join("; ")
    )))
}

#[cfg(feature = "auth")]
fn read(document: &Map<String, Value>, issuer: &str, url: &str) -> Result<Metadata, FetchError> {
    let named = document.get("issuer").and_then(Value::as_str);
    // RFC 8414 section 3.3: the issuer in the document must be the one
    // asked for, or the metadata could send us to another server's keys.
    if named.map(|n| n.trim_end_matches('/')) != Some(issuer.trim_end_matches('/')) {
        return Err(FetchError(format!(
            "the metadata at {url} names the issuer {named:?}, not {issuer:?}"
        )));
    }
    let text = |key: &str| document.get(key).and_then(Value::as_str).map(str::to_owned);
    Ok(Metadata {
        jwks_uri: text("jwks_uri"),
        introspection_endpoint: text("introspection_endpoint"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_addresses_follow_rfc_8414() {
        assert_eq!(
            metadata_urls("https://login.example.com/"),
            [
                "https://login.example.com/.well-known/oauth-authorization-server",
                "https://login.example.com/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            metadata_urls("https://login.example.com/tenant1"),
            [
                "https://login.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://login.example.com/.well-known/openid-configuration/tenant1",
                "https://login.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
    }

    #[cfg(feature = "auth")]
    #[test]
    fn metadata_of_another_issuer_is_refused() {
        let document = serde_json::json!({"issuer": "https://evil.example", "jwks_uri": "x"});
        let error = read(
            document.as_object().unwrap(),
            "https://login.example.com",
            "u",
        )
        .unwrap_err();
        assert!(error.0.contains("evil.example"), "{error}");
        let document = serde_json::json!({"issuer": "https://login.example.com/", "jwks_uri": "x"});
        let metadata = read(
            document.as_object().unwrap(),
            "https://login.example.com",
            "u",
        )
        .unwrap();
        assert_eq!(metadata.jwks_uri.as_deref(), Some("x"));
    }
}
