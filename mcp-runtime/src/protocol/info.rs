//! The `serverInfo` of the `initialize` result, shaped per version: a
//! `title` from 2025-06-18, `description`, `websiteUrl` and `icons` from
//! 2025-11-25.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::meta::Icon;
use crate::protocol::version::ProtocolVersion;

/// Who the server says it is.
#[derive(Clone, Debug, Default)]
pub(crate) struct ServerInfo {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) website_url: Option<String>,
    pub(crate) icons: Vec<Icon>,
}

impl ServerInfo {
    /// The `serverInfo` object for `version`.
    pub(crate) fn for_version(&self, version: ProtocolVersion) -> ServerInfoEntry<'_> {
        ServerInfoEntry {
            info: self,
            version,
        }
    }
}

/// [`ServerInfo`] as one protocol version sends it.
pub(crate) struct ServerInfoEntry<'a> {
    info: &'a ServerInfo,
    version: ProtocolVersion,
}

impl Serialize for ServerInfoEntry<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (info, version) = (self.info, self.version);
        let title = info.title.as_ref().filter(|_| version.has_titles());
        let description = info.description.as_ref().filter(|_| version.has_icons());
        let website_url = info.website_url.as_ref().filter(|_| version.has_icons());
        let icons = (!info.icons.is_empty() && version.has_icons()).then_some(&info.icons);
        let fields = 2
            + usize::from(title.is_some())
            + usize::from(description.is_some())
            + usize::from(website_url.is_some())
            + usize::from(icons.is_some());
        let mut map = serializer.serialize_map(Some(fields))?;
        map.serialize_entry("name", &info.name)?;
        if let Some(title) = title {
            map.serialize_entry("title", title)?;
        }
        map.serialize_entry("version", &info.version)?;
        if let Some(description) = description {
            map.serialize_entry("description", description)?;
        }
        if let Some(icons) = icons {
            map.serialize_entry("icons", icons)?;
        }
        if let Some(website_url) = website_url {
            map.serialize_entry("websiteUrl", website_url)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_version_is_sent_only_the_fields_it_defines() {
        let info = ServerInfo {
            name: "weather".into(),
            version: "1.0.0".into(),
            title: Some("Weather".into()),
            description: Some("Forecasts.".into()),
            website_url: Some("https://example.com".into()),
            icons: vec![Icon::new("https://example.com/i.png")],
        };
        let shaped = |v| serde_json::to_value(info.for_version(v)).unwrap();
        assert_eq!(
            shaped(ProtocolVersion::V2025_03_26),
            json!({"name": "weather", "version": "1.0.0"})
        );
        assert_eq!(
            shaped(ProtocolVersion::V2025_06_18),
            json!({"name": "weather", "title": "Weather", "version": "1.0.0"})
        );
        assert_eq!(
            shaped(ProtocolVersion::V2025_11_25),
            json!({
                "name": "weather", "title": "Weather", "version": "1.0.0",
                "description": "Forecasts.", "websiteUrl": "https://example.com",
                "icons": [{"src": "https://example.com/i.png"}]
            })
        );
    }
}
