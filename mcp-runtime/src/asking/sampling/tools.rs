//! The tools a sampling request offers the client's model, and how it may
//! use them (protocol 2025-11-25).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Value, json};

use crate::tools::def::Tool;

/// A tool the model may ask to use while it answers: a name, what it does,
/// and the JSON Schema of its input, as `tools/list` describes tools. The
/// server runs it (the model only asks) and sends the result back in the
/// next request.
///
/// ```
/// use mcp_runtime::SamplingTool;
/// use mcp_runtime::serde_json::json;
///
/// // Written out…
/// let weather = SamplingTool::new(
///     "get_weather",
///     "The current weather of a city.",
///     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
/// );
///
/// // …or with the schema of an arguments type.
/// #[derive(schemars::JsonSchema)]
/// struct City {
///     /// The city's name.
///     city: String,
/// }
/// let same = SamplingTool::for_input::<City>("get_weather", "The current weather of a city.").unwrap();
/// assert_eq!(same.input_schema["required"], json!(["city"]));
/// # let _ = weather;
/// ```
///
/// A tool the server serves converts too: `SamplingTool::from(&*tool)` for
/// a `tool` of [`Registry::get`](crate::Registry::get).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingTool {
    /// The name the model's [`ToolUse`](crate::ToolUse) gives.
    pub name: String,
    /// A human-readable title, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema of its input (an object).
    pub input_schema: Value,
    /// The JSON Schema of its structured output, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}

impl SamplingTool {
    /// The tool `name`, described by `description`, whose input follows
    /// `input_schema`.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> SamplingTool {
        SamplingTool {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            input_schema,
            output_schema: None,
        }
    }

    /// The tool `name`, whose input is a `T`: its schema is generated as a
    /// `#[tool]`'s arguments are (doc comments become descriptions). Fails
    /// when `T` is not a struct or map (an input is an object).
    pub fn for_input<T: schemars::JsonSchema>(
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Result<SamplingTool, String> {
        let schema = crate::schema::generate::input_generator().into_root_schema_for::<T>();
        let (published, _) = crate::schema::generate::finish_inputs(schema)?;
        Ok(SamplingTool::new(
            name,
            description,
            Value::Object(published),
        ))
    }

    /// The same tool with a title.
    pub fn title(mut self, title: impl Into<String>) -> SamplingTool {
        self.title = Some(title.into());
        self
    }
}

impl From<&Tool> for SamplingTool {
    fn from(tool: &Tool) -> Self {
        SamplingTool {
            name: tool.name().to_owned(),
            title: tool.title().map(str::to_owned),
            description: Some(tool.description().to_owned()).filter(|d| !d.is_empty()),
            input_schema: Value::Object(tool.input_schema().clone()),
            output_schema: tool.output_schema().cloned().map(Value::Object),
        }
    }
}

#[cfg(feature = "client")]
impl From<&crate::client::ToolInfo> for SamplingTool {
    /// A tool another server listed (`Client::list_tools`).
    fn from(tool: &crate::client::ToolInfo) -> Self {
        SamplingTool {
            name: tool.name().to_owned(),
            title: tool.title().map(str::to_owned),
            description: tool.description().map(str::to_owned),
            input_schema: tool
                .input_schema()
                .cloned()
                .unwrap_or_else(|| json!({"type": "object"})),
            output_schema: tool.output_schema().cloned(),
        }
    }
}

/// How the model may use the tools offered (`toolChoice`).
///
/// ```
/// use mcp_runtime::{SamplingRequest, ToolChoice};
///
/// // On the last round of a loop, ask for an answer rather than more tool uses.
/// let last = SamplingRequest::new(500).user("Sum it up.").tool_choice(ToolChoice::None);
/// assert_eq!(last.tool_choice, Some(ToolChoice::None));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToolChoice {
    /// The model decides (what clients assume when none is given).
    Auto,
    /// The model must use at least one tool.
    Required,
    /// The model must not use any tool.
    None,
}

impl ToolChoice {
    /// Its `mode` on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolChoice::Auto => "auto",
            ToolChoice::Required => "required",
            ToolChoice::None => "none",
        }
    }
}

impl Serialize for ToolChoice {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        json!({ "mode": self.as_str() }).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolChoice {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Wire {
            mode: Option<String>,
        }
        let wire = Wire::deserialize(deserializer)?;
        match wire.mode.as_deref() {
            None | Some("auto") => Ok(ToolChoice::Auto),
            Some("required") => Ok(ToolChoice::Required),
            Some("none") => Ok(ToolChoice::None),
            Some(other) => Err(D::Error::custom(format!(
                "unknown toolChoice mode `{other}`, expected auto, required or none"
            ))),
        }
    }
}

/// Why the model's answer ended (`stopReason`).
///
/// ```
/// use mcp_runtime::StopReason;
///
/// assert_eq!(StopReason::ToolUse.as_str(), "toolUse");
/// assert_eq!(StopReason::from("contentFilter"), StopReason::Other("contentFilter".into()));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StopReason {
    /// The assistant's turn ended naturally (`endTurn`).
    EndTurn,
    /// A stop sequence appeared (`stopSequence`).
    StopSequence,
    /// The token limit was reached (`maxTokens`).
    MaxTokens,
    /// The model asks for tools to run (`toolUse`).
    ToolUse,
    /// Another reason, as the client named it.
    Other(String),
}

impl StopReason {
    /// Its name on the wire.
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::EndTurn => "endTurn",
            StopReason::StopSequence => "stopSequence",
            StopReason::MaxTokens => "maxTokens",
            StopReason::ToolUse => "toolUse",
            StopReason::Other(other) => other,
        }
    }
}

impl From<&str> for StopReason {
    fn from(name: &str) -> Self {
        match name {
            "endTurn" => StopReason::EndTurn,
            "stopSequence" => StopReason::StopSequence,
            "maxTokens" => StopReason::MaxTokens,
            "toolUse" => StopReason::ToolUse,
            other => StopReason::Other(other.to_owned()),
        }
    }
}

impl Serialize for StopReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for StopReason {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|name| StopReason::from(name.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_choice_and_stop_reason_on_the_wire() {
        assert_eq!(
            serde_json::to_value(ToolChoice::Required).unwrap(),
            json!({"mode": "required"})
        );
        let read: ToolChoice = serde_json::from_value(json!({})).unwrap();
        assert_eq!(read, ToolChoice::Auto);
        assert!(serde_json::from_value::<ToolChoice>(json!({"mode": "any"})).is_err());
        assert_eq!(
            serde_json::to_value(StopReason::ToolUse).unwrap(),
            json!("toolUse")
        );
        let other: StopReason = serde_json::from_value(json!("refusal")).unwrap();
        assert_eq!(other, StopReason::Other("refusal".into()));
    }
}
