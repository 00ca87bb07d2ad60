//! Content blocks of a tool result: text, image, audio, resource links and
//! embedded resources, each with optional [`Annotations`].

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Who a piece of content is meant for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human user.
    User,
    /// The model.
    Assistant,
}

/// Hints to the client about how to use a content block.
///
/// ```
/// use mcp_runtime::{Annotations, Content, Role};
///
/// let note = Content::text("internal detail")
///     .with_annotations(Annotations::new().audience([Role::Assistant]).priority(0.2));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the content is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0.0 (optional) to 1.0 (required).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// When the content was last modified, as an ISO 8601 timestamp.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

impl Annotations {
    /// Empty annotations.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the intended audience.
    pub fn audience(mut self, audience: impl IntoIterator<Item = Role>) -> Self {
        self.audience = Some(audience.into_iter().collect());
        self
    }

    /// Sets the priority, clamped to 0.0..=1.0.
    pub fn priority(mut self, priority: f64) -> Self {
        self.priority = Some(priority.clamp(0.0, 1.0));
        self
    }

    /// Sets the last-modified timestamp (ISO 8601, for example `2025-01-12T15:00:58Z`).
    pub fn last_modified(mut self, timestamp: impl Into<String>) -> Self {
        self.last_modified = Some(timestamp.into());
        self
    }
}

/// A text block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Optional hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
}

/// Binary media (an image or audio clip), base64-encoded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaContent {
    /// The base64-encoded bytes.
    pub data: String,
    /// The MIME type, for example `image/png`.
    pub mime_type: String,
    /// Optional hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
}

/// A link to a resource the client can read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// A name for the resource.
    pub name: String,
    /// A human-readable title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The size in bytes, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Optional hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
}

/// The contents of an embedded resource: text or base64 bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged, rename_all = "camelCase")]
pub enum ResourceContents {
    /// A text resource.
    Text {
        /// The resource's URI.
        uri: String,
        /// The MIME type, if known.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
        /// Its `_meta` (protocol 2025-06-18 and later; a view's `ui`
        /// metadata, for example).
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Map<String, Value>>,
    },
    /// A binary resource.
    Blob {
        /// The resource's URI.
        uri: String,
        /// The MIME type, if known.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The base64-encoded bytes.
        blob: String,
        /// Its `_meta` (protocol 2025-06-18 and later).
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Map<String, Value>>,
    },
}

impl ResourceContents {
    /// Text contents, with no MIME type (a `#[resource]` returning it fills
    /// in its `mime_type`).
    ///
    /// ```
    /// use mcp_runtime::ResourceContents;
    ///
    /// let readme = ResourceContents::text("file:///README.md", "# Hello")
    ///     .with_mime_type("text/markdown");
    /// assert_eq!(readme.mime_type(), Some("text/markdown"));
    /// ```
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents::Text {
            uri: uri.into(),
            mime_type: None,
            text: text.into(),
            meta: None,
        }
    }

    /// Binary contents from their raw bytes (encoded to base64 here), with
    /// no MIME type.
    pub fn blob(uri: impl Into<String>, bytes: impl AsRef<[u8]>) -> Self {
        ResourceContents::Blob {
            uri: uri.into(),
            mime_type: None,
            blob: base64(bytes.as_ref()),
            meta: None,
        }
    }

    /// Sets the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.set_mime_type(mime_type);
        self
    }

    pub(crate) fn set_mime_type(&mut self, mime_type: impl Into<String>) {
        match self {
            ResourceContents::Text { mime_type: m, .. }
            | ResourceContents::Blob { mime_type: m, .. } => *m = Some(mime_type.into()),
        }
    }

    /// The resource's URI.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text { uri, .. } | ResourceContents::Blob { uri, .. } => uri,
        }
    }

    /// The MIME type, if set.
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            ResourceContents::Text { mime_type, .. } | ResourceContents::Blob { mime_type, .. } => {
                mime_type.as_deref()
            }
        }
    }

    /// Sets its `_meta`, a JSON object (sent to clients of protocol
    /// 2025-06-18 and later).
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        *self.meta_mut() = Some(meta);
        self
    }

    /// Its `_meta`, if set.
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        match self {
            ResourceContents::Text { meta, .. } | ResourceContents::Blob { meta, .. } => {
                meta.as_ref()
            }
        }
    }

    pub(crate) fn meta_mut(&mut self) -> &mut Option<Map<String, Value>> {
        match self {
            ResourceContents::Text { meta, .. } | ResourceContents::Blob { meta, .. } => meta,
        }
    }
}

/// A resource embedded in a result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The resource.
    pub resource: ResourceContents,
    /// Optional hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
}

/// One block of a tool result.
///
/// Return `Content` or `Vec<Content>` from a tool to send images, audio or
/// resources; return a `String` for plain text.
///
/// ```
/// use mcp_runtime::Content;
///
/// let blocks = vec![
///     Content::text("Here is the chart:"),
///     Content::image(b"\x89PNG...", "image/png"),
///     Content::resource_link("file:///reports/q3.pdf", "q3.pdf"),
/// ];
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Text.
    Text(TextContent),
    /// An image.
    Image(MediaContent),
    /// An audio clip (protocol 2025-03-26 and later).
    Audio(MediaContent),
    /// A link to a resource (protocol 2025-06-18 and later).
    ResourceLink(ResourceLink),
    /// An embedded resource.
    Resource(EmbeddedResource),
}

fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(TextContent {
            text: text.into(),
            annotations: None,
        })
    }

    /// An image from its raw bytes (encoded to base64 here).
    pub fn image(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Content::Image(MediaContent {
            data: base64(bytes.as_ref()),
            mime_type: mime_type.into(),
            annotations: None,
        })
    }

    /// An audio clip from its raw bytes (encoded to base64 here).
    pub fn audio(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Content::Audio(MediaContent {
            data: base64(bytes.as_ref()),
            mime_type: mime_type.into(),
            annotations: None,
        })
    }

    /// A link to a resource; set the optional fields on the [`ResourceLink`]
    /// with [`Content::ResourceLink`] directly.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Content::ResourceLink(ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
        })
    }

    /// An embedded text resource.
    pub fn embedded_text(
        uri: impl Into<String>,
        mime_type: Option<&str>,
        text: impl Into<String>,
    ) -> Self {
        Content::Resource(EmbeddedResource {
            resource: ResourceContents::Text {
                uri: uri.into(),
                mime_type: mime_type.map(str::to_owned),
                text: text.into(),
                meta: None,
            },
            annotations: None,
        })
    }

    /// An embedded binary resource from its raw bytes (encoded to base64 here).
    pub fn embedded_blob(
        uri: impl Into<String>,
        mime_type: Option<&str>,
        bytes: impl AsRef<[u8]>,
    ) -> Self {
        Content::Resource(EmbeddedResource {
            resource: ResourceContents::Blob {
                uri: uri.into(),
                mime_type: mime_type.map(str::to_owned),
                blob: base64(bytes.as_ref()),
                meta: None,
            },
            annotations: None,
        })
    }

    /// Attaches annotations to this block.
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        let slot = match &mut self {
            Content::Text(c) => &mut c.annotations,
            Content::Image(c) | Content::Audio(c) => &mut c.annotations,
            Content::ResourceLink(c) => &mut c.annotations,
            Content::Resource(c) => &mut c.annotations,
        };
        *slot = Some(annotations);
        self
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wire_format_of_every_kind() {
        let blocks = vec![
            Content::text("hi").with_annotations(
                Annotations::new()
                    .audience([Role::User, Role::Assistant])
                    .priority(2.0)
                    .last_modified("2025-01-12T15:00:58Z"),
            ),
            Content::image([1u8, 2, 3], "image/png"),
            Content::audio(b"abc", "audio/wav"),
            Content::resource_link("file:///a.txt", "a.txt"),
            Content::embedded_text("file:///b.txt", Some("text/plain"), "bee"),
            Content::embedded_blob("file:///c.bin", None, [255u8]),
        ];
        let value = serde_json::to_value(&blocks).unwrap();
        assert_eq!(
            value,
            json!([
                {"type": "text", "text": "hi", "annotations": {
                    "audience": ["user", "assistant"], "priority": 1.0,
                    "lastModified": "2025-01-12T15:00:58Z"}},
                {"type": "image", "data": "AQID", "mimeType": "image/png"},
                {"type": "audio", "data": "YWJj", "mimeType": "audio/wav"},
                {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
                {"type": "resource", "resource": {"uri": "file:///b.txt", "mimeType": "text/plain", "text": "bee"}},
                {"type": "resource", "resource": {"uri": "file:///c.bin", "blob": "/w=="}},
            ])
        );
        let back: Vec<Content> = serde_json::from_value(value).unwrap();
        assert_eq!(back, blocks);
    }
}
