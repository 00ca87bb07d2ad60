//! A `prompts/get` result shaped for each protocol version: its messages'
//! content degraded where the version lacks a content type, as in tool
//! results.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::prompts::message::{GetPromptResult, PromptMessage};
use crate::protocol::shape::ShapedContent;
use crate::protocol::version::ProtocolVersion;

pub(crate) struct ShapedPromptResult<'a> {
    pub(crate) result: &'a GetPromptResult,
    pub(crate) version: ProtocolVersion,
}

impl Serialize for ShapedPromptResult<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let description = self.result.description.as_ref();
        let mut map = serializer.serialize_map(Some(1 + usize::from(description.is_some())))?;
        if let Some(description) = description {
            map.serialize_entry("description", description)?;
        }
        map.serialize_entry(
            "messages",
            &Messages {
                messages: &self.result.messages,
                version: self.version,
            },
        )?;
        map.end()
    }
}

struct Messages<'a> {
    messages: &'a [PromptMessage],
    version: ProtocolVersion,
}

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.messages.len()))?;
        for message in self.messages {
            seq.serialize_element(&Message {
                message,
                version: self.version,
            })?;
        }
        seq.end()
    }
}

struct Message<'a> {
    message: &'a PromptMessage,
    version: ProtocolVersion,
}

impl Serialize for Message<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let content = ShapedContent {
            block: &self.message.content,
            version: self.version,
        };
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("role", &self.message.role)?;
        map.serialize_entry("content", &content)?;
        map.end()
    }
}
