//! Metadata every served primitive can carry beside its own fields: icons
//! (2025-11-25) and `_meta` (2025-06-18), and their shaping per version;
//! and the OAuth scopes a caller needs to use it, which no client is shown.

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::{Map, Value};

use crate::protocol::version::ProtocolVersion;

/// An icon a client may show for a tool, resource, prompt or the server
/// (protocol 2025-11-25; older clients are not sent it).
///
/// ```
/// use mcp_runtime::Icon;
///
/// let icon = Icon::new("https://example.com/weather.png")
///     .mime_type("image/png")
///     .sizes(["48x48"]);
/// # let _ = icon;
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    src: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime_type: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sizes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    theme: Option<String>,
}

impl Icon {
    /// An icon at this URI (`https:` or a `data:` URI).
    pub fn new(src: impl Into<String>) -> Self {
        Icon {
            src: src.into(),
            mime_type: None,
            sizes: Vec::new(),
            theme: None,
        }
    }

    /// The image's MIME type, when the URI does not make it plain.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The sizes it is available in, such as `"48x48"` or `"any"`.
    pub fn sizes<I, S>(mut self, sizes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.sizes = sizes.into_iter().map(Into::into).collect();
        self
    }

    /// The theme it is meant for: `"light"` or `"dark"`.
    pub fn theme(mut self, theme: impl Into<String>) -> Self {
        self.theme = Some(theme.into());
        self
    }

    /// The URI.
    pub fn src(&self) -> &str {
        &self.src
    }
}

/// Icons, `_meta` and scopes of one served primitive.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Metadata {
    pub(crate) icons: Vec<Icon>,
    pub(crate) meta: Option<Map<String, Value>>,
    /// The OAuth scopes a caller's token must carry to call, read or get
    /// it; never listed (HTTP authorization reads them).
    pub(crate) scopes: Vec<String>,
}

impl Metadata {
    /// From an attribute's `icons = [..]`, `meta = ".."` and `scopes = [..]`:
    /// the `_meta` text must be a JSON object and each scope a scope token
    /// (checked at start-up; the error says why).
    pub(crate) fn from_attribute(
        icons: &[&'static str],
        meta: Option<&'static str>,
        scopes: &[&'static str],
    ) -> Result<Metadata, String> {
        let meta = match meta {
            None => None,
            Some(text) => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(map)) => Some(map),
                Ok(_) => return Err(format!("`meta = {text:?}` is not a JSON object")),
                Err(error) => {
                    return Err(format!("`meta = {text:?}` is not valid JSON: {error}"));
                }
            },
        };
        check_scopes(scopes)?;
        Ok(Metadata {
            icons: icons.iter().map(|src| Icon::new(*src)).collect(),
            meta,
            scopes: scopes.iter().map(|scope| (*scope).to_owned()).collect(),
        })
    }

    /// From a dynamic primitive's `.icon(..)`, `.meta(..)` and
    /// `.scopes(..)`: `_meta` must be a JSON object and each scope a scope
    /// token.
    pub(crate) fn from_dynamic(
        icons: &[Icon],
        meta: Option<&Value>,
        scopes: &[String],
    ) -> Result<Metadata, String> {
        let meta = match meta {
            None => None,
            Some(Value::Object(map)) => Some(map.clone()),
            Some(other) => return Err(format!("its `_meta` must be a JSON object, not {other}")),
        };
        check_scopes(scopes)?;
        Ok(Metadata {
            icons: icons.to_vec(),
            meta,
            scopes: scopes.to_vec(),
        })
    }

    /// How many of its fields `version` is sent.
    pub(crate) fn fields(&self, version: ProtocolVersion) -> usize {
        usize::from(self.shown_icons(version).is_some())
            + usize::from(self.shown_meta(version).is_some())
    }

    /// Adds `icons` and `_meta` to a map being serialized, as `version`
    /// defines them.
    pub(crate) fn serialize_into<M: SerializeMap>(
        &self,
        map: &mut M,
        version: ProtocolVersion,
    ) -> Result<(), M::Error> {
        if let Some(icons) = self.shown_icons(version) {
            map.serialize_entry("icons", icons)?;
        }
        if let Some(meta) = self.shown_meta(version) {
            map.serialize_entry("_meta", meta)?;
        }
        Ok(())
    }

    fn shown_icons(&self, version: ProtocolVersion) -> Option<&[Icon]> {
        (!self.icons.is_empty() && version.has_icons()).then_some(&self.icons[..])
    }

    fn shown_meta(&self, version: ProtocolVersion) -> Option<&Map<String, Value>> {
        self.meta.as_ref().filter(|_| version.has_titles())
    }
}

/// Checks scopes as `#[tool(scopes = [..])]` does at compile time: each an
/// RFC 6749 `scope-token` (section 3.3: printable ASCII but space, `"` and
/// `\`), none listed twice.
fn check_scopes<S: AsRef<str>>(scopes: &[S]) -> Result<(), String> {
    for (i, scope) in scopes.iter().enumerate() {
        let scope = scope.as_ref();
        if scope.is_empty() {
            return Err("one of its scopes is empty; a scope has at least one character".into());
        }
        if let Some(bad) = scope
            .chars()
            .find(|&c| !matches!(c, '\x21' | '\x23'..='\x5b' | '\x5d'..='\x7e'))
        {
            let mut why = format!(
                "its scope {scope:?} is invalid: {bad:?} is not allowed; a scope is printable \
                 ASCII without spaces, `\"` or `\\` (RFC 6749, section 3.3)"
            );
            if bad == ' ' {
                why.push_str("; give several scopes as separate items");
            }
            return Err(why);
        }
        if scopes[..i].iter().any(|earlier| earlier.as_ref() == scope) {
            return Err(format!("its scope {scope:?} is listed twice"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_must_be_a_json_object() {
        assert!(Metadata::from_attribute(&[], Some(r#"{"a": 1}"#), &[]).is_ok());
        let error = Metadata::from_attribute(&[], Some("[1]"), &[]).unwrap_err();
        assert_eq!(error, "`meta = \"[1]\"` is not a JSON object");
        let error = Metadata::from_attribute(&[], Some("{"), &[]).unwrap_err();
        assert!(
            error.starts_with("`meta = \"{\"` is not valid JSON: "),
            "{error}"
        );
    }

    #[test]
    fn icons_and_meta_are_shown_only_to_versions_that_define_them() {
        let metadata =
            Metadata::from_attribute(&["https://x/i.png"], Some(r#"{"k": true}"#), &["a"]).unwrap();
        assert_eq!(metadata.fields(ProtocolVersion::V2025_11_25), 2);
        assert_eq!(metadata.fields(ProtocolVersion::V2025_06_18), 1);
        assert_eq!(metadata.fields(ProtocolVersion::V2025_03_26), 0);
    }

    #[test]
    fn scopes_are_scope_tokens() {
        let ok = Metadata::from_attribute(&[], None, &["weather:read", "https://x/y!#~"]);
        assert_eq!(ok.unwrap().scopes, ["weather:read", "https://x/y!#~"]);
        let scopes = |list: &[&str]| {
            let list: Vec<String> = list.iter().map(|s| (*s).to_owned()).collect();
            Metadata::from_dynamic(&[], None, &list).map(|m| m.scopes)
        };
        assert_eq!(
            scopes(&[""]).unwrap_err(),
            "one of its scopes is empty; a scope has at least one character"
        );
        assert_eq!(
            scopes(&["a", "a"]).unwrap_err(),
            "its scope \"a\" is listed twice"
        );
        for bad in ["a b", "a\"b", "a\\b", "tab\t", "é", "\x7f"] {
            let error = scopes(&[bad]).unwrap_err();
            assert!(error.contains("is not allowed"), "{bad:?}: {error}");
        }
        assert!(scopes(&["a b"]).unwrap_err().ends_with("as separate items"));
    }
}
