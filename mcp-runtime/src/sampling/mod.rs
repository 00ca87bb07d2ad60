//! Asking the client's model for a completion (`sampling/createMessage`):
//! the request a tool builds, the answer it gets, and [`Context::sample`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ask::ClientRequestError;
use crate::content::{Content, Role};
use crate::context::Context;
use crate::prompts::PromptMessage;

/// A request for a completion from the client's model: the conversation
/// so far, and how to answer.
///
/// ```
/// use mcp_runtime::SamplingRequest;
///
/// let request = SamplingRequest::new(200)
///     .system("You summarize weather forecasts in one sentence.")
///     .user("Paris: sunny, 21°C; Tuesday: rain, 14°C.")
///     .temperature(0.2);
/// assert_eq!(request.max_tokens, 200);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingRequest {
    /// The conversation: text, images or audio, from the user or the
    /// assistant.
    pub messages: Vec<PromptMessage>,
    /// Instructions for the model, if any (the client may ignore them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The most tokens the answer may take.
    pub max_tokens: u32,
    /// The sampling temperature, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Text that ends the answer where it appears.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    /// Which model the server would prefer (`hints`, `costPriority`,
    /// `speedPriority`, `intelligencePriority`), as the protocol defines
    /// `modelPreferences`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<Value>,
    /// Anything else for the model's provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

impl SamplingRequest {
    /// An empty conversation whose answer takes at most `max_tokens`.
    pub fn new(max_tokens: u32) -> SamplingRequest {
        SamplingRequest {
            messages: Vec::new(),
            system_prompt: None,
            max_tokens,
            temperature: None,
            stop_sequences: Vec::new(),
            model_preferences: None,
            metadata: None,
        }
    }

    /// Adds a message from the user: a `String`, a `&str` or any [`Content`].
    pub fn user(mut self, content: impl Into<Content>) -> SamplingRequest {
        self.messages.push(PromptMessage::user(content));
        self
    }

    /// Adds a message from the assistant.
    pub fn assistant(mut self, content: impl Into<Content>) -> SamplingRequest {
        self.messages.push(PromptMessage::assistant(content));
        self
    }

    /// Sets the system prompt.
    pub fn system(mut self, prompt: impl Into<String>) -> SamplingRequest {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Sets the temperature.
    pub fn temperature(mut self, temperature: f64) -> SamplingRequest {
        self.temperature = Some(temperature);
        self
    }

    /// Adds a stop sequence.
    pub fn stop_at(mut self, sequence: impl Into<String>) -> SamplingRequest {
        self.stop_sequences.push(sequence.into());
        self
    }

    /// Sets `modelPreferences` (for example
    /// `json!({"hints": [{"name": "claude"}], "speedPriority": 0.8})`).
    pub fn model_preferences(mut self, preferences: Value) -> SamplingRequest {
        self.model_preferences = Some(preferences);
        self
    }
}

/// What the client's model answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Sampled {
    /// Who speaks: the assistant, normally.
    pub role: Role,
    /// The answer: text, an image or audio.
    pub content: Content,
    /// The model that answered.
    pub model: String,
    /// Why the answer ended (`endTurn`, `stopSequence`, `maxTokens`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl Sampled {
    /// An answer of `model`: `content`, from the assistant, at the end of
    /// its turn.
    pub fn new(model: impl Into<String>, content: impl Into<Content>) -> Sampled {
        Sampled {
            role: Role::Assistant,
            content: content.into(),
            model: model.into(),
            stop_reason: Some("endTurn".into()),
        }
    }

    /// The answer's text, if it is text.
    pub fn text(&self) -> Option<&str> {
        self.content.as_text()
    }
}

impl Context {
    /// Asks the client's model for a completion (`sampling/createMessage`)
    /// and waits for it. Fails as [`Context::send_request`] does: a client
    /// that did not declare `sampling` gets
    /// [`ClientRequestError::NotSupported`], one that refuses (its user
    /// said no) [`ClientRequestError::Rejected`].
    pub async fn sample(&self, request: SamplingRequest) -> Result<Sampled, ClientRequestError> {
        let params = serde_json::to_value(&request).unwrap_or(Value::Null);
        let answer = self.send_request("sampling/createMessage", params).await?;
        serde_json::from_value(answer.clone()).map_err(|error| ClientRequestError::Rejected {
            code: crate::jsonrpc::INVALID_PARAMS,
            message: format!("the client's answer to sampling/createMessage is malformed: {error}"),
            data: Some(answer),
        })
    }
}
