//! Asking the client's model for a completion (`sampling/createMessage`):
//! the request a tool builds, the answer it gets, and [`Context::sample`];
//! with tools the model may ask to use (protocol 2025-11-25), which the
//! server runs and answers in the next request.

mod blocks;
pub(crate) mod rules;
mod tools;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::asking::ask::ClientRequestError;
use crate::content::Role;
use crate::context::Context;

pub use self::blocks::{SamplingContent, SamplingMessage, ToolResult, ToolUse};
pub use self::tools::{SamplingTool, StopReason, ToolChoice};

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
///
/// With tools (protocol 2025-11-25, clients that declare `sampling.tools`),
/// the model may answer with [`ToolUse`]s instead of text; the server runs
/// them and asks again with the answer and the results appended:
///
/// ```
/// use mcp_runtime::{Sampled, SamplingRequest, SamplingTool, ToolChoice, ToolResult, ToolUse};
/// use mcp_runtime::serde_json::json;
///
/// let weather = SamplingTool::new(
///     "get_weather",
///     "The current weather of a city.",
///     json!({"type": "object", "properties": {"city": {"type": "string"}}}),
/// );
/// let first = SamplingRequest::new(500)
///     .user("Should I take an umbrella in Paris?")
///     .tool(weather)
///     .tool_choice(ToolChoice::Auto);
///
/// // What the model might answer:
/// let answer = Sampled::using_tools(
///     "some-model",
///     [ToolUse::new("call-1", "get_weather", json!({"city": "Paris"}))],
/// );
/// let results: Vec<ToolResult> = answer
///     .tool_uses()
///     .map(|asked| ToolResult::text(&asked.id, "Paris: rain, 14°C"))
///     .collect();
/// let second = first.answered(answer).tool_results(results);
/// assert_eq!(second.messages.len(), 3);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingRequest {
    /// The conversation: text, images or audio from the user or the
    /// assistant, and the assistant's tool uses each followed by a user
    /// message of their results.
    pub messages: Vec<SamplingMessage>,
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
    /// The tools the model may ask to use (protocol 2025-11-25, clients
    /// that declare `sampling.tools`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<SamplingTool>,
    /// How the model may use them (`auto` when not given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
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
            tools: Vec::new(),
            tool_choice: None,
        }
    }

    /// Adds a message from the user: a `String`, a `&str` or a
    /// [`Content`](crate::Content) (text, an image or audio).
    pub fn user(self, content: impl Into<SamplingContent>) -> SamplingRequest {
        self.message(SamplingMessage::user(content))
    }

    /// Adds a message from the assistant.
    pub fn assistant(self, content: impl Into<SamplingContent>) -> SamplingRequest {
        self.message(SamplingMessage::assistant(content))
    }

    /// Adds a message: several blocks, or with `_meta`.
    pub fn message(mut self, message: SamplingMessage) -> SamplingRequest {
        self.messages.push(message);
        self
    }

    /// Adds the model's answer to the conversation (an assistant message,
    /// with its tool uses), to ask it again.
    pub fn answered(self, answer: Sampled) -> SamplingRequest {
        self.message(answer.into_message())
    }

    /// Adds the results of the tool uses of the last answer, as the user
    /// message of tool results only that must follow it: one result for
    /// each use, by its id.
    pub fn tool_results(self, results: impl IntoIterator<Item = ToolResult>) -> SamplingRequest {
        self.message(SamplingMessage::tool_results(results))
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

    /// Offers the model a tool it may ask to use.
    pub fn tool(mut self, tool: impl Into<SamplingTool>) -> SamplingRequest {
        self.tools.push(tool.into());
        self
    }

    /// Offers the model several tools.
    pub fn tools<T: Into<SamplingTool>>(
        mut self,
        tools: impl IntoIterator<Item = T>,
    ) -> SamplingRequest {
        self.tools.extend(tools.into_iter().map(Into::into));
        self
    }

    /// Says how the model may use the tools: as it likes, at least one, or
    /// none (to get a final answer on the last round of a loop).
    pub fn tool_choice(mut self, choice: ToolChoice) -> SamplingRequest {
        self.tool_choice = Some(choice);
        self
    }
}

/// What the client's model answered: text (or an image, or audio), or
/// tools it asks the server to run.
///
/// ```
/// use mcp_runtime::{Sampled, StopReason, ToolUse};
/// use mcp_runtime::serde_json::json;
///
/// let text = Sampled::new("some-model", "Take an umbrella.");
/// assert_eq!(text.text(), Some("Take an umbrella."));
/// assert!(!text.wants_tools());
///
/// let asking = Sampled::using_tools(
///     "some-model",
///     [ToolUse::new("call-1", "get_weather", json!({"city": "Paris"}))],
/// );
/// assert_eq!(asking.stop_reason, Some(StopReason::ToolUse));
/// assert_eq!(asking.tool_uses().map(|u| u.name.as_str()).collect::<Vec<_>>(), ["get_weather"]);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Sampled {
    /// Who speaks: the assistant.
    pub role: Role,
    /// The answer: text, an image or audio, and tool uses (one block or
    /// several; clients before 2025-11-25 send exactly one).
    #[serde(with = "blocks::one_or_many")]
    pub content: Vec<SamplingContent>,
    /// The model that answered.
    pub model: String,
    /// Why the answer ended: [`StopReason::ToolUse`] when the model asks
    /// for tools to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
}

impl Sampled {
    /// An answer of `model`: `content`, from the assistant, at the end of
    /// its turn.
    pub fn new(model: impl Into<String>, content: impl Into<SamplingContent>) -> Sampled {
        Sampled {
            role: Role::Assistant,
            content: vec![content.into()],
            model: model.into(),
            stop_reason: Some(StopReason::EndTurn),
        }
    }

    /// An answer of `model` that asks for tools to run (`stopReason`
    /// `toolUse`).
    pub fn using_tools(
        model: impl Into<String>,
        uses: impl IntoIterator<Item = ToolUse>,
    ) -> Sampled {
        Sampled {
            role: Role::Assistant,
            content: uses.into_iter().map(SamplingContent::ToolUse).collect(),
            model: model.into(),
            stop_reason: Some(StopReason::ToolUse),
        }
    }

    /// The same answer with one more block (for example text before the
    /// tool uses).
    pub fn with(mut self, block: impl Into<SamplingContent>) -> Sampled {
        self.content.push(block.into());
        self
    }

    /// The same answer, ended for `reason`.
    pub fn stopped_by(mut self, reason: StopReason) -> Sampled {
        self.stop_reason = Some(reason);
        self
    }

    /// The text of the answer's first text block, if it has one.
    pub fn text(&self) -> Option<&str> {
        self.content.iter().find_map(SamplingContent::as_text)
    }

    /// The tools the model asks to run, in order: each [`ToolUse`] has an
    /// `id`, the tool's `name` and its `input`.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUse> {
        self.content.iter().filter_map(SamplingContent::as_tool_use)
    }

    /// Whether the model asks for tools to run: its answer has tool uses
    /// (it then normally stopped for [`StopReason::ToolUse`]).
    pub fn wants_tools(&self) -> bool {
        self.tool_uses().next().is_some()
    }

    /// The answer as a message of the conversation, to send back with the
    /// next request (see [`SamplingRequest::answered`]).
    pub fn into_message(self) -> SamplingMessage {
        SamplingMessage::new(self.role, self.content)
    }
}

impl Context {
    /// Asks the client's model for a completion (`sampling/createMessage`)
    /// and waits for it. Fails as [`Context::send_request`] does: a client
    /// that did not declare `sampling` gets
    /// [`ClientRequestError::NotSupported`], one that refuses (its user
    /// said no) [`ClientRequestError::Rejected`].
    ///
    /// A request with tools (or tool uses and results in its messages)
    /// needs a client that declared `sampling.tools` on protocol
    /// 2025-11-25 or later (`NotSupported("sampling.tools")` otherwise,
    /// and nothing is sent). A conversation that breaks the rules of tool
    /// use (a tool use without its result in the next message, results
    /// mixed with text…) is [`ClientRequestError::InvalidRequest`], not sent. An
    /// answer that is not a valid result, or that uses a tool the request
    /// did not offer, is [`ClientRequestError::InvalidAnswer`], saying what
    /// is wrong.
    ///
    /// ```
    /// use mcp_runtime::{tool, Context, SamplingRequest, SamplingTool, ToolResult};
    /// use mcp_runtime::serde_json::json;
    ///
    /// /// Answers a question about the weather with the client's model.
    /// #[tool]
    /// async fn ask_about_weather(ctx: Context, question: String) -> Result<String, String> {
    ///     let weather = SamplingTool::new(
    ///         "get_weather",
    ///         "The current weather of a city.",
    ///         json!({"type": "object", "properties": {"city": {"type": "string"}}}),
    ///     );
    ///     let mut request = SamplingRequest::new(500).user(question).tool(weather);
    ///     for _round in 0..5 {
    ///         let answer = ctx.sample(request.clone()).await.map_err(|e| e.to_string())?;
    ///         if !answer.wants_tools() {
    ///             return Ok(answer.text().unwrap_or_default().to_owned());
    ///         }
    ///         let results: Vec<ToolResult> = answer
    ///             .tool_uses()
    ///             .map(|asked| ToolResult::text(&asked.id, format!("{}: 18°C", asked.input["city"])))
    ///             .collect();
    ///         request = request.answered(answer).tool_results(results);
    ///     }
    ///     Err("the model kept asking for tools".into())
    /// }
    /// ```
    pub async fn sample(&self, request: SamplingRequest) -> Result<Sampled, ClientRequestError> {
        if let (Some(client), Some(version)) = (self.client_info(), self.protocol_version()) {
            rules::check_request(&request, version, &client.capabilities)
                .map_err(|error| self.refused(error))?;
        }
        let params = serde_json::to_value(&request).unwrap_or(Value::Null);
        let answer = self.send_request("sampling/createMessage", params).await?;
        let malformed = |reason: String| {
            ClientRequestError::InvalidAnswer(format!("sampling/createMessage: {reason}"))
        };
        let sampled: Sampled =
            serde_json::from_value(answer.clone()).map_err(|error| malformed(error.to_string()))?;
        rules::check_answer(&request, &sampled).map_err(malformed)?;
        Ok(sampled)
    }
}
