//! Where the calls go and what they carry: the base URL (`.base_url(..)`,
//! else the first `servers` entry with its variables), an operation's own
//! `servers` (refused on another origin unless allowed by name), and the
//! credentials each operation sends, chosen from its security
//! requirements and what was configured.

use std::sync::Arc;

use serde_json::Value;
use url::Url;

use super::OpenApi;
use super::document::Document;
use super::plan::{Credential, KeyLocation};

/// The base URL of the document's calls, without a trailing `/`.
pub(crate) fn base_url(
    api: &OpenApi,
    doc: &Document,
    document_url: Option<&Url>,
) -> Result<Url, String> {
    let url = match &api.base_url {
        Some(given) => {
            Url::parse(given).map_err(|e| format!("`.base_url(\"{given}\")` is not a URL: {e}"))?
        }
        None => {
            let server = doc
                .root
                .get("servers")
                .and_then(Value::as_array)
                .and_then(|s| s.first());
            let known: Vec<&str> = server
                .and_then(|s| s.get("variables"))
                .and_then(Value::as_object)
                .map(|v| v.keys().map(String::as_str).collect())
                .unwrap_or_default();
            if let Some((name, _)) = api
                .variables
                .iter()
                .find(|(name, _)| !known.contains(&name.as_str()))
            {
                return Err(format!(
                    "`.server_variable(\"{name}\", ..)` names no variable of the first `servers` \
                     entry; its variables are: {}",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ));
            }
            server_url(server, "#/servers/0", &api.variables, document_url)?
        }
    };
    check_base(api, url)
}

fn check_base(api: &OpenApi, mut url: Url) -> Result<Url, String> {
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(format!(
            "the base URL {url} is not an http or https URL with a host; give one with \
             `.base_url(..)`"
        ));
    }
    let has_credentials = api.bearer.is_some() || api.api_key.is_some() || api.basic.is_some();
    if has_credentials && url.scheme() == "http" && !is_loopback(&url) && !api.allow_insecure_http {
        return Err(format!(
            "credentials would go over plain http to {url}; use https, or call \
             `.allow_insecure_http()` if this network is trusted"
        ));
    }
    url.set_query(None);
    url.set_fragment(None);
    let path = url.path().trim_end_matches('/').to_owned();
    url.set_path(&path);
    Ok(url)
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// A `servers` entry's URL with its variables filled in.
fn server_url(
    server: Option<&Value>,
    at: &str,
    given: &[(String, String)],
    document_url: Option<&Url>,
) -> Result<Url, String> {
    let template = server
        .and_then(|s| s.get("url"))
        .and_then(Value::as_str)
        .unwrap_or("/");
    let mut text = template.to_owned();
    let variables = server
        .and_then(|s| s.get("variables"))
        .and_then(Value::as_object);
    for (name, variable) in variables.into_iter().flatten() {
        let value = match given.iter().find(|(n, _)| n == name) {
            Some((_, value)) => {
                if let Some(allowed) = variable.get("enum").and_then(Value::as_array)
                    && !allowed.iter().any(|a| a.as_str() == Some(value))
                {
                    return Err(format!(
                        "`.server_variable(\"{name}\", \"{value}\")` is not one of the values \
                         the document allows: {} (at {at}/variables)",
                        allowed
                            .iter()
                            .map(Value::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                value.clone()
            }
            None => match variable.get("default").and_then(Value::as_str) {
                Some(default) => default.to_owned(),
                None => {
                    return Err(format!(
                        "the server variable \"{name}\" has no default; give one with \
                         `.server_variable(\"{name}\", ..)` (at {at}/variables)"
                    ));
                }
            },
        };
        text = text.replace(&format!("{{{name}}}"), &value);
    }
    match Url::parse(&text) {
        Ok(url) => Ok(url),
        Err(url::ParseError::RelativeUrlWithoutBase) => match document_url {
            Some(base) => base
                .join(&text)
                .map_err(|e| format!("the server URL {text} (at {at}) cannot be resolved: {e}")),
            None => Err(format!(
                "the server URL \"{text}\" (at {at}) is relative, and a document read from a file \
                 has no URL to resolve it against; give the API's URL with `.base_url(..)`"
            )),
        },
        Err(e) => Err(format!(
            "the server URL \"{text}\" (at {at}) is not a URL: {e}"
        )),
    }
}

/// The base of one operation: its own (or its path's) `servers` entry,
/// or the document's. Another origin is refused unless allowed.
pub(crate) fn operation_base(
    api: &OpenApi,
    base: &Url,
    servers: Option<(&Value, String)>,
) -> Result<Url, String> {
    let Some((servers, at)) = servers else {
        return Ok(base.clone());
    };
    let Some(first) = servers.as_array().and_then(|s| s.first()) else {
        return Ok(base.clone());
    };
    let url = server_url(Some(first), &format!("{at}/0"), &[], Some(base))?;
    let origin = url.origin();
    if origin != base.origin()
        && !api
            .allowed_origins
            .iter()
            .any(|allowed| Url::parse(allowed).is_ok_and(|a| a.origin() == origin))
    {
        return Err(format!(
            "its `servers` entry {url} is on another origin than the base URL {base}, and \
             credentials must not go there unasked; allow it with `.allow_origin(\"{}\")` (at {at})",
            origin.ascii_serialization()
        ));
    }
    check_base(api, url)
}

/// The security schemes of the document, if it declares any.
fn schemes(doc: &Document) -> Option<&serde_json::Map<String, Value>> {
    doc.root
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object)
        .filter(|s| !s.is_empty())
}

fn scheme_kind(scheme: &Value) -> (&str, &str) {
    let kind = scheme.get("type").and_then(Value::as_str).unwrap_or("");
    let http = scheme.get("scheme").and_then(Value::as_str).unwrap_or("");
    (kind, http)
}

/// Refuses a credential the document has no scheme for.
pub(crate) fn check_configured(api: &OpenApi, doc: &Document) -> Result<(), String> {
    let Some(schemes) = schemes(doc) else {
        if api.api_key.is_some() {
            return Err(
                "`.api_key(..)` was given, but the document declares no apiKey security scheme \
                 saying where the key goes; leave it out, or use `.bearer(..)` or `.basic(..)`"
                    .into(),
            );
        }
        return Ok(());
    };
    let has = |test: &dyn Fn(&str, &str) -> bool| {
        schemes.values().any(|s| {
            let (kind, http) = scheme_kind(s);
            test(kind, &http.to_ascii_lowercase())
        })
    };
    let names = schemes.keys().cloned().collect::<Vec<_>>().join(", ");
    if api.bearer.is_some()
        && !has(&|k, h| (k == "http" && h == "bearer") || k == "oauth2" || k == "openIdConnect")
    {
        return Err(format!(
            "`.bearer(..)` was given, but no security scheme of the document takes a bearer \
             token (its schemes: {names})"
        ));
    }
    if api.basic.is_some() && !has(&|k, h| k == "http" && h == "basic") {
        return Err(format!(
            "`.basic(..)` was given, but no security scheme of the document is http basic (its \
             schemes: {names})"
        ));
    }
    if api.api_key.is_some() && !has(&|k, _| k == "apiKey") {
        return Err(format!(
            "`.api_key(..)` was given, but no security scheme of the document is an apiKey (its \
             schemes: {names})"
        ));
    }
    Ok(())
}

/// The header names the configured API key takes (lower case); no
/// argument may set them.
pub(crate) fn key_headers(api: &OpenApi, doc: &Document) -> Vec<String> {
    if api.api_key.is_none() {
        return Vec::new();
    }
    schemes(doc)
        .into_iter()
        .flat_map(|s| s.values())
        .filter(|s| {
            scheme_kind(s).0 == "apiKey" && s.get("in").and_then(Value::as_str) == Some("header")
        })
        .filter_map(|s| s.get("name").and_then(Value::as_str))
        .map(str::to_ascii_lowercase)
        .collect()
}

/// The credentials one operation sends: with no schemes in the document,
/// every configured one; else the first security requirement (the
/// operation's, or the document's) whose schemes are all configured.
pub(crate) fn credentials(
    api: &OpenApi,
    doc: &Document,
    security: Option<(&Value, String)>,
) -> Result<Vec<Credential>, String> {
    let Some(schemes) = schemes(doc) else {
        let mut all = Vec::new();
        if let Some(token) = &api.bearer {
            all.push(Credential::Bearer(Arc::clone(token)));
        }
        if let Some((user, password)) = &api.basic {
            all.push(Credential::Basic {
                user: Arc::clone(user),
                password: Arc::clone(password),
            });
        }
        return Ok(all);
    };
    let Some((requirements, at)) = security else {
        return Ok(Vec::new());
    };
    let Some(requirements) = requirements.as_array() else {
        return Err(format!("its `security` is not a list (at {at})"));
    };
    'requirement: for (i, requirement) in requirements.iter().enumerate() {
        let Some(requirement) = requirement.as_object() else {
            return Err(format!(
                "a security requirement is not an object (at {at}/{i})"
            ));
        };
        let mut chosen = Vec::new();
        for name in requirement.keys() {
            let Some(scheme) = schemes.get(name) else {
                return Err(format!(
                    "its security requirement names the scheme \"{name}\", which \
                     components.securitySchemes lacks (at {at}/{i})"
                ));
            };
            match credential(api, scheme) {
                Some(credential) => chosen.push(credential),
                None => continue 'requirement,
            }
        }
        return Ok(chosen);
    }
    Ok(Vec::new())
}

fn credential(api: &OpenApi, scheme: &Value) -> Option<Credential> {
    match scheme_kind(scheme) {
        ("http", http) if http.eq_ignore_ascii_case("bearer") => api
            .bearer
            .as_ref()
            .map(|t| Credential::Bearer(Arc::clone(t))),
        ("oauth2" | "openIdConnect", _) => api
            .bearer
            .as_ref()
            .map(|t| Credential::Bearer(Arc::clone(t))),
        ("http", http) if http.eq_ignore_ascii_case("basic") => {
            api.basic
                .as_ref()
                .map(|(user, password)| Credential::Basic {
                    user: Arc::clone(user),
                    password: Arc::clone(password),
                })
        }
        ("apiKey", _) => {
            let value = api.api_key.as_ref()?;
            let name = scheme.get("name").and_then(Value::as_str)?.to_owned();
            let location = match scheme.get("in").and_then(Value::as_str)? {
                "header" => KeyLocation::Header,
                "query" => KeyLocation::Query,
                "cookie" => KeyLocation::Cookie,
                _ => return None,
            };
            Some(Credential::ApiKey {
                name,
                location,
                value: Arc::clone(value),
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::openapi::document::Version;

    fn doc(root: Value) -> Document {
        Document {
            root,
            version: Version::V31,
        }
    }

    fn secured() -> Document {
        doc(json!({
            "servers": [{"url": "https://{region}.example.com/v{major}", "variables": {
                "region": {"default": "eu", "enum": ["eu", "us"]},
                "major": {"default": "1"}
            }}],
            "security": [{"bearer": []}],
            "components": {"securitySchemes": {
                "bearer": {"type": "http", "scheme": "Bearer"},
                "key": {"type": "apiKey", "in": "query", "name": "k"},
                "both_a": {"type": "apiKey", "in": "header", "name": "X-Key"},
                "basic": {"type": "http", "scheme": "basic"}
            }}
        }))
    }

    fn api() -> OpenApi {
        OpenApi::from_text("t.json", "")
    }

    fn kinds(credentials: &[Credential]) -> Vec<String> {
        credentials.iter().map(|c| format!("{c:?}")).collect()
    }

    #[test]
    fn the_base_url_comes_from_the_first_server_and_its_variables() {
        let doc = secured();
        let base = base_url(&api(), &doc, None).unwrap();
        assert_eq!(base.as_str(), "https://eu.example.com/v1");
        let base = base_url(&api().server_variable("region", "us"), &doc, None).unwrap();
        assert_eq!(base.as_str(), "https://us.example.com/v1");
        assert_eq!(
            base_url(&api().server_variable("region", "mars"), &doc, None).unwrap_err(),
            "`.server_variable(\"region\", \"mars\")` is not one of the values the document \
             allows: \"eu\", \"us\" (at #/servers/0/variables)"
        );
        assert_eq!(
            base_url(&api().server_variable("port", "1"), &doc, None).unwrap_err(),
            "`.server_variable(\"port\", ..)` names no variable of the first `servers` entry; its \
             variables are: region, major"
        );
        let given = base_url(&api().base_url("http://127.0.0.1:4010/"), &doc, None).unwrap();
        assert_eq!(given.as_str(), "http://127.0.0.1:4010/");
        // A relative server resolves against the document's URL.
        let relative = doc_with_server("/api/v3");
        let from = Url::parse("https://petstore.example.com/openapi.json").unwrap();
        let base = base_url(&api(), &relative, Some(&from)).unwrap();
        assert_eq!(base.as_str(), "https://petstore.example.com/api/v3");
    }

    fn doc_with_server(url: &str) -> Document {
        doc(json!({"servers": [{"url": url}]}))
    }

    #[test]
    fn the_first_requirement_with_every_scheme_configured_wins() {
        let doc = secured();
        let requirements = json!([{"key": [], "basic": []}, {"key": []}, {}]);
        let security = || Some((&requirements, "#/paths/~1a/get/security".to_owned()));
        // Only the API key: the second requirement.
        let chosen = credentials(&api().api_key("s3cret"), &doc, security()).unwrap();
        assert_eq!(kinds(&chosen), ["ApiKey(k in Query, ..)"]);
        // Key and basic: the first.
        let both = api().api_key("s3cret").basic("me", "pw");
        let chosen = credentials(&both, &doc, security()).unwrap();
        assert_eq!(kinds(&chosen), ["ApiKey(k in Query, ..)", "Basic(me, ..)"]);
        // Nothing configured: anonymous (`{}`).
        assert!(credentials(&api(), &doc, security()).unwrap().is_empty());
        // The document's own requirement, by scheme name in any case.
        let root = json!([{"bearer": []}]);
        let chosen = credentials(&api().bearer("t"), &doc, Some((&root, "#/security".into())));
        assert_eq!(kinds(&chosen.unwrap()), ["Bearer(..)"]);
        let unknown = json!([{"oauth": []}]);
        assert_eq!(
            credentials(
                &api().bearer("t"),
                &doc,
                Some((&unknown, "#/security".into()))
            )
            .unwrap_err(),
            "its security requirement names the scheme \"oauth\", which \
             components.securitySchemes lacks (at #/security/0)"
        );
    }

    #[test]
    fn without_schemes_every_operation_gets_the_bearer_or_basic() {
        let plain = doc(json!({}));
        let chosen = credentials(&api().bearer("t").basic("u", "p"), &plain, None).unwrap();
        assert_eq!(kinds(&chosen), ["Bearer(..)", "Basic(u, ..)"]);
        assert!(check_configured(&api().bearer("t"), &plain).is_ok());
        assert!(check_configured(&api().api_key("k"), &plain).is_err());
        let secured = secured();
        assert!(
            check_configured(&api().bearer("t").basic("u", "p").api_key("k"), &secured).is_ok()
        );
        assert_eq!(key_headers(&api().api_key("k"), &secured), ["x-key"]);
        assert!(key_headers(&api(), &secured).is_empty());
    }

    #[test]
    fn operation_servers_stay_on_the_base_origin_unless_allowed() {
        let base = Url::parse("https://api.example.com/v1").unwrap();
        let same = json!([{"url": "https://api.example.com/v2"}]);
        let url = operation_base(&api(), &base, Some((&same, "#/s".into()))).unwrap();
        assert_eq!(url.as_str(), "https://api.example.com/v2");
        let relative = json!([{"url": "/v3"}]);
        let url = operation_base(&api(), &base, Some((&relative, "#/s".into()))).unwrap();
        assert_eq!(url.as_str(), "https://api.example.com/v3");
        let other = json!([{"url": "https://uploads.example.com"}]);
        assert!(operation_base(&api(), &base, Some((&other, "#/s".into()))).is_err());
        let allowed = api().allow_origin("https://uploads.example.com/");
        let url = operation_base(&allowed, &base, Some((&other, "#/s".into()))).unwrap();
        assert_eq!(url.host_str(), Some("uploads.example.com"));
    }

    #[test]
    fn credentials_over_plain_http_go_to_loopback_only() {
        let doc = doc(json!({}));
        for url in [
            "http://127.0.0.1:4010",
            "http://localhost",
            "http://[::1]:80",
        ] {
            assert!(
                base_url(&api().base_url(url).bearer("t"), &doc, None).is_ok(),
                "{url}"
            );
        }
        let remote = api().base_url("http://api.example.com").bearer("t");
        assert!(base_url(&remote, &doc, None).is_err());
        assert!(base_url(&remote.allow_insecure_http(), &doc, None).is_ok());
        // No credentials, no concern.
        assert!(base_url(&api().base_url("http://api.example.com"), &doc, None).is_ok());
        assert_eq!(
            base_url(&api().base_url("ftp://example.com"), &doc, None).unwrap_err(),
            "the base URL ftp://example.com/ is not an http or https URL with a host; give one \
             with `.base_url(..)`"
        );
    }
}
