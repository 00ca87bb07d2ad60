//! [`ViewMeta`]: a view's `_meta.ui`, and the check of its origins.

use serde_json::{Map, Value, json};

use super::{Permission, ViewDef};

/// What a view tells the host about itself (`_meta.ui` on the resource):
/// the origins its content security policy allows, the permissions it asks
/// for, whether it wants a border, its sandbox domain. Empty by default: a
/// self-contained page that loads nothing from elsewhere.
///
/// ```
/// use mcp_runtime::apps::{Permission, ViewMeta};
///
/// let meta = ViewMeta::new()
///     .connect_domains(["https://api.example.com"])
///     .resource_domains(["https://*.cdn.example.com"])
///     .permission(Permission::ClipboardWrite)
///     .prefers_border(true);
/// # let _ = meta;
/// ```
///
/// Each origin is `scheme://host` or `scheme://host:port`; a `*.` wildcard
/// is allowed only as the first label of the host. A server whose view has
/// another value refuses to start and says which.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ViewMeta {
    connect_domains: Vec<String>,
    resource_domains: Vec<String>,
    frame_domains: Vec<String>,
    base_uri_domains: Vec<String>,
    permissions: Vec<Permission>,
    prefers_border: Option<bool>,
    domain: Option<String>,
}

fn strings<I, S>(items: I) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    items.into_iter().map(Into::into).collect()
}

impl ViewMeta {
    /// No origins, no permissions: the host's default policy (inline
    /// scripts and styles, nothing loaded from elsewhere).
    pub fn new() -> Self {
        ViewMeta::default()
    }

    /// Origins the view may `fetch` from or open WebSockets to
    /// (`csp.connectDomains`, the `connect-src` directive).
    pub fn connect_domains<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.connect_domains = strings(origins);
        self
    }

    /// Origins the view may load scripts, styles, images, fonts and media
    /// from (`csp.resourceDomains`).
    pub fn resource_domains<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.resource_domains = strings(origins);
        self
    }

    /// Origins the view may embed in frames (`csp.frameDomains`,
    /// `frame-src`; none without it).
    pub fn frame_domains<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.frame_domains = strings(origins);
        self
    }

    /// Origins a `<base>` element may point at (`csp.baseUriDomains`,
    /// `base-uri`; only the view's own without it).
    pub fn base_uri_domains<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.base_uri_domains = strings(origins);
        self
    }

    /// Asks for a browser permission (`permissions`); call once per
    /// permission.
    pub fn permission(mut self, permission: Permission) -> Self {
        if !self.permissions.contains(&permission) {
            self.permissions.push(permission);
        }
        self
    }

    /// Whether the host should draw a border around the view
    /// (`prefersBorder`).
    pub fn prefers_border(mut self, border: bool) -> Self {
        self.prefers_border = Some(border);
        self
    }

    /// A dedicated sandbox origin for the view (`domain`), in the format
    /// the host defines.
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.domain = Some(domain.into());
        self
    }

    /// The `_meta.ui` object: only the keys that were given.
    pub(crate) fn to_json(&self) -> Map<String, Value> {
        let mut csp = Map::new();
        for (key, origins) in self.origin_lists() {
            if !origins.is_empty() {
                csp.insert(key.into(), json!(origins));
            }
        }
        let mut ui = Map::new();
        if !csp.is_empty() {
            ui.insert("csp".into(), Value::Object(csp));
        }
        if !self.permissions.is_empty() {
            let permissions: Map<String, Value> = self
                .permissions
                .iter()
                .map(|permission| (permission.as_str().to_owned(), json!({})))
                .collect();
            ui.insert("permissions".into(), Value::Object(permissions));
        }
        if let Some(border) = self.prefers_border {
            ui.insert("prefersBorder".into(), Value::Bool(border));
        }
        if let Some(domain) = &self.domain {
            ui.insert("domain".into(), Value::String(domain.clone()));
        }
        ui
    }

    fn origin_lists(&self) -> [(&'static str, &[String]); 4] {
        [
            ("connectDomains", &self.connect_domains),
            ("resourceDomains", &self.resource_domains),
            ("frameDomains", &self.frame_domains),
            ("baseUriDomains", &self.base_uri_domains),
        ]
    }

    /// Checks each origin; the error names the list and the value, to
    /// follow "its view's" in a sentence about the resource.
    pub(crate) fn check(&self) -> Result<(), String> {
        for (key, origins) in self.origin_lists() {
            for origin in origins {
                if let Err(why) = check_origin(origin) {
                    return Err(format!(
                        "its view's csp.{key} has {origin:?}, which is not an origin: {why}; \
                         write scheme://host or scheme://host:port, with `*.` only as the \
                         first label of the host"
                    ));
                }
            }
        }
        if self.domain.as_deref() == Some("") {
            return Err("its view's domain is empty".into());
        }
        Ok(())
    }
}

impl From<&ViewDef> for ViewMeta {
    fn from(def: &ViewDef) -> Self {
        ViewMeta {
            connect_domains: strings(def.connect_domains.iter().copied()),
            resource_domains: strings(def.resource_domains.iter().copied()),
            frame_domains: strings(def.frame_domains.iter().copied()),
            base_uri_domains: strings(def.base_uri_domains.iter().copied()),
            permissions: def.permissions.to_vec(),
            prefers_border: def.prefers_border,
            domain: def.domain.map(str::to_owned),
        }
    }
}

/// Whether `origin` is `scheme://host[:port]`, a `*.` wildcard allowed only
/// as the host's first label; the error says what is wrong.
pub(crate) fn check_origin(origin: &str) -> Result<(), &'static str> {
    let (scheme, rest) = origin
        .split_once("://")
        .ok_or("it has no scheme:// before the host")?;
    let mut chars = scheme.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return Err("its scheme is not a URI scheme");
    }
    // What a CSP source for fetches, scripts, styles, frames and `<base>`
    // can name from a view (the `view(csp(..))` attribute refuses the rest
    // at compile time, with the same rule).
    if !["https", "http", "wss", "ws"].contains(&scheme) {
        return Err("a view reaches only https, http, wss and ws origins");
    }
    if rest.contains(['/', '?', '#']) {
        return Err("an origin has no path, query or fragment");
    }
    if rest.contains('@') {
        return Err("an origin has no user name or password");
    }
    let (host, port) = if rest.starts_with('[') {
        // An IPv6 literal: `[..]`, then perhaps `:port`.
        let end = rest.find(']').ok_or("its host is not an IPv6 address")? + 1;
        let port = match &rest[end..] {
            "" => None,
            tail => Some(
                tail.strip_prefix(':')
                    .ok_or("its host is not an IPv6 address")?,
            ),
        };
        (&rest[..end], port)
    } else {
        match rest.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (rest, None),
        }
    };
    if let Some(port) = port
        && (port.is_empty()
            || port.len() > 5
            || !port.bytes().all(|b| b.is_ascii_digit())
            || port.parse::<u32>().map_or(true, |p| p > 65535))
    {
        return Err("its port is not a number from 0 to 65535");
    }
    if let Some(literal) = host.strip_prefix('[') {
        return literal
            .strip_suffix(']')
            .and_then(|address| address.parse::<std::net::Ipv6Addr>().ok())
            .map(|_| ())
            .ok_or("its host is not an IPv6 address");
    }
    if host.is_empty() {
        return Err("its host is empty");
    }
    let host = host.strip_prefix("*.").unwrap_or(host);
    for label in host.split('.') {
        if label.is_empty() {
            return Err("its host has an empty label");
        }
        if label == "*" || label.contains('*') {
            return Err("`*.` is allowed only as the first label of the host");
        }
        if label.starts_with('-')
            || label.ends_with('-')
            || !label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        {
            return Err("its host is not a host name");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        for good in [
            "https://api.example.com",
            "https://*.example.com",
            "http://localhost:3000",
            "wss://live.example.com:443",
            "http://127.0.0.1:8080",
            "http://[::1]:8080",
            "http://[::1]",
        ] {
            assert_eq!(check_origin(good), Ok(()), "{good}");
        }
        for (bad, why) in [
            ("api.example.com", "it has no scheme:// before the host"),
            (
                "https://example.com/path",
                "an origin has no path, query or fragment",
            ),
            (
                "https://example.com/",
                "an origin has no path, query or fragment",
            ),
            (
                "https://example.com?q",
                "an origin has no path, query or fragment",
            ),
            (
                "https://a.*.example.com",
                "`*.` is allowed only as the first label of the host",
            ),
            (
                "https://*",
                "`*.` is allowed only as the first label of the host",
            ),
            (
                "https://*example.com",
                "`*.` is allowed only as the first label of the host",
            ),
            (
                "https://example.com:99999",
                "its port is not a number from 0 to 65535",
            ),
            (
                "https://example.com:",
                "its port is not a number from 0 to 65535",
            ),
            ("https://", "its host is empty"),
            ("https://a..b", "its host has an empty label"),
            ("https://exa mple.com", "its host is not a host name"),
            ("1ttps://example.com", "its scheme is not a URI scheme"),
            (
                "ftp://files.example.com",
                "a view reaches only https, http, wss and ws origins",
            ),
            (
                "https://u@example.com",
                "an origin has no user name or password",
            ),
            ("https://[::g]", "its host is not an IPv6 address"),
            ("https://a:1:2", "its port is not a number from 0 to 65535"),
        ] {
            assert_eq!(check_origin(bad), Err(why), "{bad}");
        }
    }

    #[test]
    fn the_ui_object_has_only_the_keys_given() {
        assert_eq!(Value::Object(ViewMeta::new().to_json()), json!({}));
        let meta = ViewMeta::new()
            .connect_domains(["https://api.example.com"])
            .frame_domains(["https://maps.example.com"])
            .permission(Permission::Camera)
            .permission(Permission::ClipboardWrite)
            .permission(Permission::Camera)
            .prefers_border(false)
            .domain("a.example.com");
        assert_eq!(
            Value::Object(meta.to_json()),
            json!({
                "csp": {
                    "connectDomains": ["https://api.example.com"],
                    "frameDomains": ["https://maps.example.com"]
                },
                "permissions": {"camera": {}, "clipboardWrite": {}},
                "prefersBorder": false,
                "domain": "a.example.com"
            })
        );
        let bad = ViewMeta::new().resource_domains(["https://cdn.example.com/lib"]);
        assert_eq!(
            bad.check().unwrap_err(),
            "its view's csp.resourceDomains has \"https://cdn.example.com/lib\", which is not \
             an origin: an origin has no path, query or fragment; write scheme://host or \
             scheme://host:port, with `*.` only as the first label of the host"
        );
    }
}
