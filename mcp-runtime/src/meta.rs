//! Metadata every served primitive can carry beside its own fields: icons
//! (2025-11-25) and `_meta` (2025-06-18), and their shaping per version.

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

/// Icons and `_meta` of one served primitive.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Metadata {
    pub(crate) icons: Vec<Icon>,
    pub(crate) meta: Option<Map<String, Value>>,
}

impl Metadata {
    /// From an attribute's `icons = [..]` and `meta = ".."`: the `_meta`
    /// text must be a JSON object (checked at start-up; the error says why).
    pub(crate) fn from_attribute(
        icons: &[&'static str],
        meta: Option<&'static str>,
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
        Ok(Metadata {
            icons: icons.iter().map(|src| Icon::new(*src)).collect(),
            meta,
        })
    }

    /// From a dynamic primitive's `.icon(..)` and `.meta(..)`: `_meta` must
    /// be a JSON object.
    pub(crate) fn from_dynamic(icons: &[Icon], meta: Option<&Value>) -> Result<Metadata, String> {
        let meta = match meta {
            None => None,
            Some(Value::Object(map)) => Some(map.clone()),
            Some(other) => return Err(format!("its `_meta` must be a JSON object, not {other}")),
        };
        Ok(Metadata {
            icons: icons.to_vec(),
            meta,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_must_be_a_json_object() {
        assert!(Metadata::from_attribute(&[], Some(r#"{"a": 1}"#)).is_ok());
        let error = Metadata::from_attribute(&[], Some("[1]")).unwrap_err();
        assert_eq!(error, "`meta = \"[1]\"` is not a JSON object");
        let error = Metadata::from_attribute(&[], Some("{")).unwrap_err();
        assert!(
            error.starts_with("`meta = \"{\"` is not valid JSON: "),
            "{error}"
        );
    }

    #[test]
    fn icons_and_meta_are_shown_only_to_versions_that_define_them() {
        let metadata =
            Metadata::from_attribute(&["https://x/i.png"], Some(r#"{"k": true}"#)).unwrap();
        assert_eq!(metadata.fields(ProtocolVersion::V2025_11_25), 2);
        assert_eq!(metadata.fields(ProtocolVersion::V2025_06_18), 1);
        assert_eq!(metadata.fields(ProtocolVersion::V2025_03_26), 0);
    }
}
