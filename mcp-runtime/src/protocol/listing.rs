//! The entries of `resources/list`, `resources/templates/list` and
//! `prompts/list`, shaped for each protocol version.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::completion::complete::Param;
use crate::prompts::build::Prompt;
use crate::protocol::version::ProtocolVersion;
use crate::resources::build::Resource;

/// A resource, or a template (then under `uriTemplate`), for `version`.
pub(crate) struct ResourceEntry<'a> {
    pub(crate) resource: &'a Resource,
    pub(crate) version: ProtocolVersion,
}

impl Serialize for ResourceEntry<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (resource, version) = (self.resource, self.version);
        let title = resource.title().filter(|_| version.has_titles());
        let fields = 2
            + usize::from(title.is_some())
            + usize::from(resource.description().is_some())
            + usize::from(resource.mime_type().is_some())
            + resource.metadata.fields(version);
        let mut map = serializer.serialize_map(Some(fields))?;
        let key = if resource.is_template() {
            "uriTemplate"
        } else {
            "uri"
        };
        map.serialize_entry(key, resource.uri())?;
        map.serialize_entry("name", resource.name())?;
        if let Some(title) = title {
            map.serialize_entry("title", title)?;
        }
        if let Some(description) = resource.description() {
            map.serialize_entry("description", description)?;
        }
        if let Some(mime_type) = resource.mime_type() {
            map.serialize_entry("mimeType", mime_type)?;
        }
        resource.metadata.serialize_into(&mut map, version)?;
        map.end()
    }
}

/// A prompt, with its arguments, for `version`.
pub(crate) struct PromptEntry<'a> {
    pub(crate) prompt: &'a Prompt,
    pub(crate) version: ProtocolVersion,
}

impl Serialize for PromptEntry<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (prompt, version) = (self.prompt, self.version);
        let title = prompt.title().filter(|_| version.has_titles());
        let fields = 1
            + usize::from(title.is_some())
            + usize::from(prompt.description().is_some())
            + usize::from(!prompt.arguments.is_empty())
            + prompt.metadata.fields(version);
        let mut map = serializer.serialize_map(Some(fields))?;
        map.serialize_entry("name", prompt.name())?;
        if let Some(title) = title {
            map.serialize_entry("title", title)?;
        }
        if let Some(description) = prompt.description() {
            map.serialize_entry("description", description)?;
        }
        if !prompt.arguments.is_empty() {
            map.serialize_entry("arguments", &Arguments(&prompt.arguments))?;
        }
        prompt.metadata.serialize_into(&mut map, version)?;
        map.end()
    }
}

struct Arguments<'a>(&'a [Param]);

impl Serialize for Arguments<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for param in self.0 {
            seq.serialize_element(&Argument(param))?;
        }
        seq.end()
    }
}

struct Argument<'a>(&'a Param);

impl Serialize for Argument<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let param = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &param.name)?;
        if let Some(description) = &param.description {
            map.serialize_entry("description", description)?;
        }
        map.serialize_entry("required", &param.required)?;
        map.end()
    }
}
