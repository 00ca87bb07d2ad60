//! The messages of a prompt, in their wire shape.

use serde::{Deserialize, Serialize};

use crate::content::{Content, Role};

/// One message of a prompt: who says it, and what.
///
/// ```
/// use mcp_runtime::{Content, PromptMessage};
///
/// let messages = vec![
///     PromptMessage::user("Review this code."),
///     PromptMessage::assistant(Content::text("Which language is it?")),
/// ];
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// The speaker.
    pub role: Role,
    /// Text, an image, audio or an embedded resource.
    pub content: Content,
}

impl PromptMessage {
    /// A message from the user: a `String`, a `&str` or any [`Content`].
    pub fn user(content: impl Into<Content>) -> Self {
        PromptMessage {
            role: Role::User,
            content: content.into(),
        }
    }

    /// A message from the assistant: a `String`, a `&str` or any [`Content`].
    pub fn assistant(content: impl Into<Content>) -> Self {
        PromptMessage {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::text(text)
    }
}

/// The result of `prompts/get`. Return it from a prompt to give a
/// description along with the messages.
///
/// ```
/// use mcp_runtime::{GetPromptResult, PromptMessage};
///
/// let result = GetPromptResult::new(vec![PromptMessage::user("Hello")])
///     .description("A greeting");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GetPromptResult {
    /// What this prompt is, for this call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
}

impl GetPromptResult {
    /// A result with these messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult {
            description: None,
            messages,
        }
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wire_shape() {
        let result = GetPromptResult::new(vec![
            PromptMessage::user("Review this."),
            PromptMessage::assistant(Content::image([1u8, 2, 3], "image/png")),
            PromptMessage::user(Content::embedded_text("file:///a.rs", None, "fn main() {}")),
        ])
        .description("A review");
        let value = serde_json::to_value(&result).unwrap();
        assert_eq!(
            value,
            json!({
                "description": "A review",
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "Review this."}},
                    {"role": "assistant", "content": {"type": "image", "data": "AQID", "mimeType": "image/png"}},
                    {"role": "user", "content": {"type": "resource", "resource": {"uri": "file:///a.rs", "text": "fn main() {}"}}},
                ]
            })
        );
        let back: GetPromptResult = serde_json::from_value(value).unwrap();
        assert_eq!(back, result);
        let bare = GetPromptResult::new(vec![PromptMessage::user(String::from("hi"))]);
        assert_eq!(
            serde_json::to_value(&bare).unwrap(),
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]})
        );
    }
}
