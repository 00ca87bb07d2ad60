//! What this resource server says about itself: the `WWW-Authenticate`
//! challenges of 401 and 403 (RFC 6750, with RFC 9728's
//! `resource_metadata`), and the Protected Resource Metadata document.

use serde_json::{Value, json};

use super::config::Auth;
use super::discovery::split_origin;

/// The well-known path of the Protected Resource Metadata (RFC 9728).
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

pub(crate) struct Challenge {
    /// This server's canonical URI.
    resource: Option<String>,
    /// Where the metadata is published, in full.
    metadata_url: Option<String>,
    /// The paths it is served at: the well-known path followed by the
    /// resource's path, and the bare well-known path.
    pub(crate) metadata_paths: Vec<String>,
    authorization_servers: Vec<String>,
    scopes_supported: Option<Vec<String>>,
}

impl Challenge {
    pub(crate) fn new(auth: &Auth) -> Challenge {
        let resource = auth.audience.clone();
        let (metadata_url, metadata_paths) = match &resource {
            Some(resource) => {
                let (origin, path) = split_origin(resource.trim_end_matches('/'));
                let path = path.split(['?', '#']).next().unwrap_or_default();
                let suffixed = format!("{WELL_KNOWN}{path}");
                let mut paths = vec![suffixed.clone()];
                if !path.is_empty() {
                    paths.push(WELL_KNOWN.to_owned());
                }
                (Some(format!("{origin}{suffixed}")), paths)
            }
            None => (None, Vec::new()),
        };
        Challenge {
            resource,
            metadata_url,
            metadata_paths,
            authorization_servers: auth.authorization_servers.clone(),
            scopes_supported: auth.scopes_supported.clone(),
        }
    }

    /// The scopes to advertise: those configured, or else `declared`
    /// (every scope a tool, resource or prompt declares).
    pub(crate) fn scopes<'a>(&'a self, declared: &'a [String]) -> &'a [String] {
        self.scopes_supported.as_deref().unwrap_or(declared)
    }

    /// `WWW-Authenticate` of a 401: the metadata, the scopes to ask for,
    /// and, for a token that was there but failed, why.
    pub(crate) fn unauthorized(&self, scopes: &[String], invalid: Option<&str>) -> String {
        let mut header = self.start();
        if !scopes.is_empty() {
            param(&mut header, "scope", &scopes.join(" "));
        }
        if let Some(reason) = invalid {
            param(&mut header, "error", "invalid_token");
            param(&mut header, "error_description", reason);
        }
        finish(header)
    }

    /// `WWW-Authenticate` of a 403: the scopes the request needs (RFC 6750
    /// section 3.1, and the step-up flow of MCP 2025-11-25).
    pub(crate) fn insufficient_scope(&self, needed: &[String]) -> String {
        let mut header = self.start();
        param(&mut header, "error", "insufficient_scope");
        param(&mut header, "scope", &needed.join(" "));
        param(
            &mut header,
            "error_description",
            &format!("this request needs the scope(s): {}", needed.join(", ")),
        );
        finish(header)
    }

    fn start(&self) -> String {
        let mut header = String::from("Bearer ");
        if let Some(url) = &self.metadata_url {
            param(&mut header, "resource_metadata", url);
        }
        header
    }

    /// The Protected Resource Metadata document (RFC 9728 section 2).
    pub(crate) fn document(&self, scopes: &[String]) -> Value {
        let mut document = json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        if !scopes.is_empty() {
            document["scopes_supported"] = json!(scopes);
        }
        document
    }
}

/// Appends `name="value"`, with the value cut down to the characters RFC
/// 6750 allows in a quoted parameter.
fn param(header: &mut String, name: &str, value: &str) {
    if !header.ends_with(' ') {
        header.push_str(", ");
    }
    header.push_str(name);
    header.push_str("=\"");
    header.extend(value.chars().map(|c| match c {
        ' ' | '!' | '#'..='[' | ']'..='~' => c,
        _ => '?',
    }));
    header.push('"');
}

fn finish(mut header: String) -> String {
    if header.ends_with(' ') {
        // No parameter at all (static tokens without an audience).
        header.push_str("realm=\"mcp\"");
    }
    header
}

#[cfg(test)]
mod tests {
    use super::*;

    fn challenge(audience: &str) -> Challenge {
        Challenge::new(&Auth::issuer("https://login.example.com").audience(audience))
    }

    #[test]
    fn metadata_lives_beside_the_resource_path() {
        let c = challenge("https://mcp.example.com/mcp");
        assert_eq!(
            c.metadata_paths,
            [
                "/.well-known/oauth-protected-resource/mcp",
                "/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            c.unauthorized(&["weather:read".into()], None),
            "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\", scope=\"weather:read\""
        );
        let root = challenge("https://mcp.example.com/");
        assert_eq!(
            root.metadata_paths,
            ["/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn invalid_and_insufficient() {
        let c = challenge("http://127.0.0.1:8080/mcp");
        let header = c.unauthorized(&[], Some("the token has \"expired\"\n"));
        assert!(
            header.ends_with(
                ", error=\"invalid_token\", error_description=\"the token has ?expired??\""
            ),
            "{header}"
        );
        let header = c.insufficient_scope(&["a".into(), "b".into()]);
        assert!(
            header.contains("error=\"insufficient_scope\", scope=\"a b\""),
            "{header}"
        );
    }

    #[test]
    fn the_document_names_the_resource_servers_and_scopes() {
        let c = challenge("https://mcp.example.com/mcp");
        assert_eq!(
            c.document(&["s".into()]),
            json!({
                "resource": "https://mcp.example.com/mcp",
                "authorization_servers": ["https://login.example.com"],
                "bearer_methods_supported": ["header"],
                "scopes_supported": ["s"],
            })
        );
    }
}
