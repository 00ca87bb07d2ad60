//! Finding the authorization server: the protected resource metadata (RFC
//! 9728) and the authorization server metadata (RFC 8414, OpenID Connect
//! discovery), each checked before anything is sent to what it names.

use serde_json::{Map, Value};
use url::Url;

use super::OAuthError;
use crate::auth::discovery::{metadata_urls, split_origin};
use crate::auth::fetch::Fetcher;

/// The protected resource metadata, as far as the client uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ResourceMetadata {
    /// The resource, canonical (see [`canonical`]).
    pub(crate) resource: String,
    pub(crate) authorization_servers: Vec<String>,
    pub(crate) scopes_supported: Option<Vec<String>>,
}

/// The authorization server metadata, as far as the client uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ServerMetadata {
    pub(crate) issuer: String,
    pub(crate) authorization_endpoint: Option<String>,
    pub(crate) token_endpoint: String,
    pub(crate) registration_endpoint: Option<String>,
    pub(crate) scopes_supported: Option<Vec<String>>,
    /// `None`: the server does not say (RFC 8414's default applies:
    /// `client_secret_basic`).
    pub(crate) token_endpoint_auth_methods: Option<Vec<String>>,
    pub(crate) client_id_metadata_document_supported: bool,
    pub(crate) iss_parameter_supported: bool,
    /// `dpop_signing_alg_values_supported` (RFC 9449 section 5.1).
    pub(crate) dpop_algorithms: Vec<String>,
}

impl ServerMetadata {
    /// Whether `scope` is among the server's `scopes_supported`.
    pub(crate) fn offers_scope(&self, scope: &str) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|scopes| scopes.iter().any(|s| s == scope))
    }
}

/// The canonical form of a resource URI (RFC 8707, MCP "Canonical Server
/// URI"): lowercase scheme and host (the URL parser does both), no
/// fragment, no trailing slash.
pub(crate) fn canonical(url: &Url) -> String {
    let mut url = url.clone();
    url.set_fragment(None);
    let text = url.to_string();
    match text.strip_suffix('/') {
        Some(trimmed) if url.query().is_none() => trimmed.to_owned(),
        _ => text,
    }
}

/// Where the protected resource metadata of `server` may be, in the order
/// to try (RFC 9728 section 3.1, MCP "Protected Resource Metadata
/// Discovery Requirements"): the well-known name inserted before the
/// server's path, then at the root.
pub(crate) fn resource_metadata_urls(server: &Url) -> Vec<String> {
    let canonical = canonical(server);
    let (origin, path) = split_origin(&canonical);
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let root = format!("{origin}/.well-known/oauth-protected-resource");
    if path.is_empty() || path == "/" {
        vec![root]
    } else {
        vec![format!("{root}{path}"), root]
    }
}

/// Fetches and checks the protected resource metadata of `server`: from
/// the challenge's `resource_metadata` when it named one (and only from
/// there), else from the well-known addresses in order.
pub(crate) async fn protected_resource(
    fetcher: &Fetcher,
    server: &Url,
    from_challenge: Option<&str>,
) -> Result<ResourceMetadata, OAuthError> {
    let addresses = match from_challenge {
        Some(url) => vec![url.to_owned()],
        None => resource_metadata_urls(server),
    };
    let mut failures = Vec::new();
    for address in addresses {
        match fetcher.get_json(&address).await {
            Ok(document) => return read_resource(&document, server, &address),
            Err(error) => failures.push(error.0),
        }
    }
    Err(OAuthError::Discovery(format!(
        "no protected resource metadata for {server}: {}",
        failures.join("; ")
    )))
}

/// Reads a protected resource metadata document and checks that it is
/// about `server`.
pub(crate) fn read_resource(
    document: &Map<String, Value>,
    server: &Url,
    address: &str,
) -> Result<ResourceMetadata, OAuthError> {
    let resource = document
        .get("resource")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            OAuthError::Discovery(format!("the metadata at {address} names no resource"))
        })?;
    let parsed = Url::parse(resource).map_err(|e| {
        OAuthError::Discovery(format!(
            "the metadata at {address} names a bad resource {resource:?}: {e}"
        ))
    })?;
    if !covers(&parsed, server) {
        return Err(OAuthError::ResourceMismatch {
            expected: canonical(server),
            found: resource.to_owned(),
        });
    }
    let authorization_servers = strings(document, "authorization_servers").unwrap_or_default();
    if authorization_servers.is_empty() {
        return Err(OAuthError::Discovery(format!(
            "the metadata at {address} names no authorization server"
        )));
    }
    Ok(ResourceMetadata {
        resource: canonical(&parsed),
        authorization_servers,
        scopes_supported: strings(document, "scopes_supported"),
    })
}

/// Whether the resource identifier `resource` covers the endpoint `server`:
/// the same origin, and a path that is the server's or one of its parents
/// (a resource named by its origin, as a root metadata document does).
pub(crate) fn covers(resource: &Url, server: &Url) -> bool {
    let resource = canonical(resource);
    let server = canonical(server);
    let (resource_origin, resource_path) = split_origin(&resource);
    let (server_origin, server_path) = split_origin(&server);
    if resource_origin != server_origin {
        return false;
    }
    resource_path.is_empty()
        || resource_path == server_path
        || server_path
            .strip_prefix(resource_path)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Fetches the metadata of the authorization server `issuer` from the
/// addresses RFC 8414 and OpenID Connect give, in the MCP specification's
/// order, and checks it: the same issuer (character for character), and
/// PKCE with S256. A document that fails a check ends the search: a
/// server that publishes another issuer's metadata is not trusted at its
/// other addresses either.
pub(crate) async fn authorization_server(
    fetcher: &Fetcher,
    issuer: &str,
) -> Result<ServerMetadata, OAuthError> {
    let mut failures = Vec::new();
    for address in metadata_urls(issuer) {
        match fetcher.get_json(&address).await {
            Ok(document) => return read_server(&document, issuer, &address),
            Err(error) => failures.push(error.0),
        }
    }
    Err(OAuthError::Discovery(format!(
        "no authorization server metadata for {issuer}: {}",
        failures.join("; ")
    )))
}

/// Reads and checks an authorization server metadata document fetched
/// for `issuer` from `address`.
pub(crate) fn read_server(
    document: &Map<String, Value>,
    issuer: &str,
    address: &str,
) -> Result<ServerMetadata, OAuthError> {
    let named = document.get("issuer").and_then(Value::as_str);
    // RFC 8414 section 3.3 (and the 2026-07-28 revision's "identical"):
    // no normalization, or a server could speak for another.
    if named != Some(issuer) {
        return Err(OAuthError::IssuerMismatch {
            expected: issuer.to_owned(),
            found: named.map(str::to_owned),
            url: address.to_owned(),
        });
    }
    let methods = strings(document, "code_challenge_methods_supported").unwrap_or_default();
    if !methods.iter().any(|m| m == "S256") {
        return Err(OAuthError::PkceUnsupported {
            issuer: issuer.to_owned(),
        });
    }
    let text = |key: &str| document.get(key).and_then(Value::as_str).map(str::to_owned);
    let flag = |key: &str| document.get(key).and_then(Value::as_bool).unwrap_or(false);
    let token_endpoint = text("token_endpoint").ok_or_else(|| {
        OAuthError::Discovery(format!("the metadata at {address} names no token endpoint"))
    })?;
    Ok(ServerMetadata {
        issuer: issuer.to_owned(),
        authorization_endpoint: text("authorization_endpoint"),
        token_endpoint,
        registration_endpoint: text("registration_endpoint"),
        scopes_supported: strings(document, "scopes_supported"),
        token_endpoint_auth_methods: strings(document, "token_endpoint_auth_methods_supported"),
        client_id_metadata_document_supported: flag("client_id_metadata_document_supported"),
        iss_parameter_supported: flag("authorization_response_iss_parameter_supported"),
        dpop_algorithms: strings(document, "dpop_signing_alg_values_supported").unwrap_or_default(),
    })
}

/// An array of strings (other entries skipped); `None` when absent.
fn strings(document: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
    let array = document.get(key)?.as_array()?;
    Some(
        array
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn canonical_uris() {
        assert_eq!(
            canonical(&url("HTTPS://MCP.Example.com/mcp")),
            "https://mcp.example.com/mcp"
        );
        assert_eq!(
            canonical(&url("https://mcp.example.com/")),
            "https://mcp.example.com"
        );
        assert_eq!(
            canonical(&url("https://mcp.example.com/mcp/#x")),
            "https://mcp.example.com/mcp"
        );
        assert_eq!(
            canonical(&url("https://mcp.example.com:8443")),
            "https://mcp.example.com:8443"
        );
        assert_eq!(
            canonical(&url("https://mcp.example.com:443/a")),
            "https://mcp.example.com/a"
        );
    }

    #[test]
    fn resource_metadata_path_first_then_root() {
        assert_eq!(
            resource_metadata_urls(&url("https://mcp.example.com/public/mcp")),
            [
                "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            resource_metadata_urls(&url("https://mcp.example.com/")),
            ["https://mcp.example.com/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn the_resource_must_be_this_server() {
        let server = url("http://localhost:3000/mcp");
        let document = |resource: &str| {
            object(
                json!({"resource": resource, "authorization_servers": ["http://localhost:3001"]}),
            )
        };
        for good in [
            "http://localhost:3000/mcp",
            "http://LOCALHOST:3000/mcp/",
            "http://localhost:3000",
            "http://localhost:3000/",
        ] {
            let read = read_resource(&document(good), &server, "u").unwrap();
            assert!(read.resource.starts_with("http://localhost:3000"), "{good}");
        }
        for bad in [
            "https://evil.example.com/mcp",
            "http://localhost:3001/mcp",
            "https://localhost:3000/mcp",
            "http://localhost:3000/mcp2",
            "http://localhost:3000/other",
        ] {
            let error = read_resource(&document(bad), &server, "u").unwrap_err();
            assert!(
                matches!(error, OAuthError::ResourceMismatch { .. }),
                "{bad}: {error}"
            );
        }
        let none =
            object(json!({"resource": "http://localhost:3000/mcp", "authorization_servers": []}));
        assert!(read_resource(&none, &server, "u").is_err());
    }

    fn server_document(issuer: &str) -> Value {
        json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{issuer}/authorize"),
            "token_endpoint": format!("{issuer}/token"),
            "code_challenge_methods_supported": ["plain", "S256"],
            "scopes_supported": ["a", "offline_access"],
            "authorization_response_iss_parameter_supported": true,
        })
    }

    #[test]
    fn the_issuer_must_be_identical() {
        let issuer = "https://as.example.com/tenant1";
        let read = read_server(&object(server_document(issuer)), issuer, "u").unwrap();
        assert_eq!(read.token_endpoint, "https://as.example.com/tenant1/token");
        assert!(read.iss_parameter_supported && read.offers_scope("offline_access"));
        assert!(!read.client_id_metadata_document_supported);
        for other in [
            "https://evil.example.com",
            "https://as.example.com/tenant1/",
            "https://AS.example.com/tenant1",
        ] {
            let error = read_server(&object(server_document(other)), issuer, "u").unwrap_err();
            assert!(
                matches!(error, OAuthError::IssuerMismatch { .. }),
                "{other}: {error}"
            );
        }
    }

    #[test]
    fn pkce_with_s256_is_required() {
        let issuer = "https://as.example.com";
        let mut document = server_document(issuer);
        document["code_challenge_methods_supported"] = json!(["plain"]);
        let error = read_server(&object(document.clone()), issuer, "u").unwrap_err();
        assert!(
            matches!(error, OAuthError::PkceUnsupported { .. }),
            "{error}"
        );
        document
            .as_object_mut()
            .unwrap()
            .remove("code_challenge_methods_supported");
        let error = read_server(&object(document), issuer, "u").unwrap_err();
        assert!(error.to_string().contains("S256"), "{error}");
    }
}
