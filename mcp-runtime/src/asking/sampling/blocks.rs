//! What the messages of a sampling conversation are made of: text, images
//! and audio, and (protocol 2025-11-25) the model's tool uses and the
//! results the server sends back for them.

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::content::{Content, Role};
use crate::prompts::PromptMessage;
use crate::tools::output::CallToolResult;

/// One block of a sampling message: text, an image or audio, a tool use
/// (the model asks for a tool to run) or a tool result (what it gave).
///
/// ```
/// use mcp_runtime::{Content, SamplingContent, ToolResult, ToolUse};
/// use mcp_runtime::serde_json::json;
///
/// let text = SamplingContent::from("What is the weather in Paris?");
/// assert_eq!(text.as_text(), Some("What is the weather in Paris?"));
/// let image = SamplingContent::from(Content::image(b"\x89PNG", "image/png"));
/// let asked = SamplingContent::from(ToolUse::new("call-1", "get_weather", json!({"city": "Paris"})));
/// let given = SamplingContent::from(ToolResult::text("call-1", "18°C, cloudy"));
/// assert_eq!(asked.as_tool_use().map(|u| u.name.as_str()), Some("get_weather"));
/// # let _ = (image, given);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SamplingContent {
    /// Text, an image or audio (the protocol allows no other [`Content`]
    /// in sampling).
    Content(Content),
    /// The model asks for a tool to run (`tool_use`, in an assistant
    /// message).
    ToolUse(ToolUse),
    /// What a tool use gave (`tool_result`, in a user message that holds
    /// only tool results).
    ToolResult(ToolResult),
}

impl SamplingContent {
    /// A text block.
    pub fn text(text: impl Into<String>) -> SamplingContent {
        SamplingContent::Content(Content::text(text))
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SamplingContent::Content(content) => content.as_text(),
            _ => None,
        }
    }

    /// The tool use, if this is one.
    pub fn as_tool_use(&self) -> Option<&ToolUse> {
        match self {
            SamplingContent::ToolUse(tool_use) => Some(tool_use),
            _ => None,
        }
    }

    /// The tool result, if this is one.
    pub fn as_tool_result(&self) -> Option<&ToolResult> {
        match self {
            SamplingContent::ToolResult(result) => Some(result),
            _ => None,
        }
    }

    /// The block's `type` on the wire (`text`, `image`, `tool_use`…).
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            SamplingContent::Content(Content::Text(_)) => "text",
            SamplingContent::Content(Content::Image(_)) => "image",
            SamplingContent::Content(Content::Audio(_)) => "audio",
            SamplingContent::Content(Content::ResourceLink(_)) => "resource_link",
            SamplingContent::Content(Content::Resource(_)) => "resource",
            SamplingContent::ToolUse(_) => "tool_use",
            SamplingContent::ToolResult(_) => "tool_result",
        }
    }
}

impl From<Content> for SamplingContent {
    fn from(content: Content) -> Self {
        SamplingContent::Content(content)
    }
}

impl From<String> for SamplingContent {
    fn from(text: String) -> Self {
        SamplingContent::text(text)
    }
}

impl From<&str> for SamplingContent {
    fn from(text: &str) -> Self {
        SamplingContent::text(text)
    }
}

impl From<ToolUse> for SamplingContent {
    fn from(tool_use: ToolUse) -> Self {
        SamplingContent::ToolUse(tool_use)
    }
}

impl From<ToolResult> for SamplingContent {
    fn from(result: ToolResult) -> Self {
        SamplingContent::ToolResult(result)
    }
}

/// The two kinds sampling adds, tagged as on the wire.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum TaggedRef<'a> {
    ToolUse(&'a ToolUse),
    ToolResult(&'a ToolResult),
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Tagged {
    ToolUse(ToolUse),
    ToolResult(ToolResult),
}

impl Serialize for SamplingContent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SamplingContent::Content(content) => content.serialize(serializer),
            SamplingContent::ToolUse(tool_use) => {
                TaggedRef::ToolUse(tool_use).serialize(serializer)
            }
            SamplingContent::ToolResult(result) => {
                TaggedRef::ToolResult(result).serialize(serializer)
            }
        }
    }
}

impl<'de> Deserialize<'de> for SamplingContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let tool_kind = matches!(
            value.get("type").and_then(Value::as_str),
            Some("tool_use" | "tool_result")
        );
        if tool_kind {
            return match serde_json::from_value(value).map_err(D::Error::custom)? {
                Tagged::ToolUse(tool_use) => Ok(SamplingContent::ToolUse(tool_use)),
                Tagged::ToolResult(result) => Ok(SamplingContent::ToolResult(result)),
            };
        }
        serde_json::from_value(value)
            .map(SamplingContent::Content)
            .map_err(D::Error::custom)
    }
}

/// The model asks for a tool to run: which one, with what input, under an
/// id the [`ToolResult`] sent back repeats.
///
/// ```
/// use mcp_runtime::ToolUse;
/// use mcp_runtime::serde_json::json;
/// use serde::Deserialize;
///
/// #[derive(Deserialize)]
/// struct City {
///     city: String,
/// }
///
/// let asked = ToolUse::new("call-1", "get_weather", json!({"city": "Paris"}));
/// let City { city } = asked.input_as().unwrap();
/// assert_eq!(city, "Paris");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolUse {
    /// Names this use: the result sent back for it carries the same id.
    pub id: String,
    /// The tool to run, one of those the request offered.
    pub name: String,
    /// Its arguments, an object that should match the tool's input
    /// schema.
    pub input: Value,
    /// `_meta`: to be sent back unchanged with the conversation.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl ToolUse {
    /// A use of the tool `name` with `input` (an object), named `id`.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> ToolUse {
        ToolUse {
            id: id.into(),
            name: name.into(),
            input,
            meta: None,
        }
    }

    /// The input as a `T` (the tool's arguments type).
    pub fn input_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        T::deserialize(&self.input)
    }
}

/// What a tool use gave, sent back to the model in a user message of tool
/// results only: the same content blocks a tool call returns.
///
/// ```
/// use mcp_runtime::{CallToolResult, Content, ToolResult};
///
/// let sunny = ToolResult::text("call-1", "Paris: 21°C, sunny");
/// let failed = ToolResult::error("call-2", "no such city: Atlantis");
/// assert!(failed.is_error);
/// let from_a_call = ToolResult::from_call("call-3", CallToolResult::success(vec![Content::text("ok")]));
/// assert_eq!(from_a_call.tool_use_id, "call-3");
/// # let _ = sunny;
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolResult {
    /// The id of the [`ToolUse`] this answers.
    pub tool_use_id: String,
    /// What the tool returned: text, images, audio, resources.
    #[serde(default)]
    pub content: Vec<Content>,
    /// Its structured output, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool failed (the content then says why).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// `_meta`, if any.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl ToolResult {
    /// The result of the tool use `tool_use_id`: `content`.
    pub fn new(tool_use_id: impl Into<String>, content: Vec<Content>) -> ToolResult {
        ToolResult {
            tool_use_id: tool_use_id.into(),
            content,
            structured_content: None,
            is_error: false,
            meta: None,
        }
    }

    /// The result of the tool use `tool_use_id`: one text block.
    pub fn text(tool_use_id: impl Into<String>, text: impl Into<String>) -> ToolResult {
        ToolResult::new(tool_use_id, vec![Content::text(text)])
    }

    /// A failure of the tool use `tool_use_id`, for the model to read.
    pub fn error(tool_use_id: impl Into<String>, message: impl Into<String>) -> ToolResult {
        let mut result = ToolResult::text(tool_use_id, message);
        result.is_error = true;
        result
    }

    /// The result of the tool use `tool_use_id` from what a tool call
    /// returned (for example [`Registry::call`](crate::Registry::call)).
    pub fn from_call(tool_use_id: impl Into<String>, result: CallToolResult) -> ToolResult {
        ToolResult {
            tool_use_id: tool_use_id.into(),
            content: result.content,
            structured_content: result.structured_content,
            is_error: result.is_error,
            meta: None,
        }
    }
}

/// One message of a sampling conversation: who speaks, and one block or
/// several. On the wire a single block is sent as an object (what clients
/// before 2025-11-25 read), several as an array.
///
/// ```
/// use mcp_runtime::{Role, SamplingMessage, ToolResult};
///
/// let question = SamplingMessage::user("What is the weather in Paris and Oslo?");
/// assert_eq!(question.role, Role::User);
/// let results = SamplingMessage::tool_results([
///     ToolResult::text("call-1", "Paris: 21°C"),
///     ToolResult::text("call-2", "Oslo: 9°C"),
/// ]);
/// assert_eq!(results.content.len(), 2);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// The speaker.
    pub role: Role,
    /// Its blocks.
    #[serde(with = "one_or_many")]
    pub content: Vec<SamplingContent>,
    /// `_meta`, if any.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl SamplingMessage {
    /// A message of `role` made of `blocks`.
    pub fn new<B: Into<SamplingContent>>(
        role: Role,
        blocks: impl IntoIterator<Item = B>,
    ) -> SamplingMessage {
        SamplingMessage {
            role,
            content: blocks.into_iter().map(Into::into).collect(),
            meta: None,
        }
    }

    /// A message from the user: a `String`, a `&str`, a [`Content`]…
    pub fn user(content: impl Into<SamplingContent>) -> SamplingMessage {
        SamplingMessage::new(Role::User, [content])
    }

    /// A message from the assistant.
    pub fn assistant(content: impl Into<SamplingContent>) -> SamplingMessage {
        SamplingMessage::new(Role::Assistant, [content])
    }

    /// The user message that answers the model's tool uses: tool results
    /// only, as the protocol requires.
    pub fn tool_results(results: impl IntoIterator<Item = ToolResult>) -> SamplingMessage {
        SamplingMessage::new(Role::User, results)
    }

    /// The same message with one more block.
    pub fn with(mut self, block: impl Into<SamplingContent>) -> SamplingMessage {
        self.content.push(block.into());
        self
    }

    /// The text of its first text block, if it has one.
    pub fn text(&self) -> Option<&str> {
        self.content.iter().find_map(SamplingContent::as_text)
    }

    /// Its tool uses, in order.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUse> {
        self.content.iter().filter_map(SamplingContent::as_tool_use)
    }
}

impl From<PromptMessage> for SamplingMessage {
    fn from(message: PromptMessage) -> Self {
        SamplingMessage::new(message.role, [message.content])
    }
}

/// `content`: one block as an object, several as an array; either, read.
pub(crate) mod one_or_many {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(
        blocks: &[SamplingContent],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match blocks {
            [one] => one.serialize(serializer),
            many => many.serialize(serializer),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<SamplingContent>, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Array(many) => many
                .into_iter()
                .map(|block| serde_json::from_value(block).map_err(D::Error::custom))
                .collect(),
            one => serde_json::from_value(one)
                .map(|block| vec![block])
                .map_err(D::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_block_is_an_object_several_an_array_and_both_read_back() {
        let one = SamplingMessage::user("hi");
        assert_eq!(
            serde_json::to_value(&one).unwrap(),
            json!({"role": "user", "content": {"type": "text", "text": "hi"}})
        );
        let uses = SamplingMessage::new(
            Role::Assistant,
            [
                SamplingContent::text("Let me look."),
                ToolUse::new("a", "get_weather", json!({"city": "Paris"})).into(),
            ],
        );
        let value = serde_json::to_value(&uses).unwrap();
        assert_eq!(
            value,
            json!({"role": "assistant", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "a", "name": "get_weather", "input": {"city": "Paris"}}
            ]})
        );
        assert_eq!(
            serde_json::from_value::<SamplingMessage>(value).unwrap(),
            uses
        );

        let result = ToolResult::error("a", "no such city");
        let value = serde_json::to_value(SamplingMessage::tool_results([result.clone()])).unwrap();
        assert_eq!(
            value,
            json!({"role": "user", "content": {"type": "tool_result", "toolUseId": "a",
                "content": [{"type": "text", "text": "no such city"}], "isError": true}})
        );
        let back: SamplingMessage = serde_json::from_value(value).unwrap();
        assert_eq!(back.content, vec![SamplingContent::ToolResult(result)]);
    }

    #[test]
    fn a_prompts_message_is_a_sampling_message() {
        let message = SamplingMessage::from(PromptMessage::assistant("Hello."));
        assert_eq!(message, SamplingMessage::assistant("Hello."));
        assert_eq!(message.text(), Some("Hello."));
    }

    #[test]
    fn an_unknown_block_is_an_error_that_names_it() {
        let error = serde_json::from_value::<SamplingContent>(json!({"type": "video"}))
            .unwrap_err()
            .to_string();
        assert!(error.contains("video"), "{error}");
        let error =
            serde_json::from_value::<SamplingContent>(json!({"type": "tool_use", "id": "a"}))
                .unwrap_err()
                .to_string();
        assert!(error.contains("name"), "{error}");
    }
}
