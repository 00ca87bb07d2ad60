//! Every return form of a `#[prompt]`, from async and plain fns, with
//! optional and enum arguments and with `Context` and `State<T>` injected.

use mcp_runtime::__private::{PromptDef, inventory};
use mcp_runtime::schemars::JsonSchema;
use mcp_runtime::serde::Deserialize;
use mcp_runtime::{Content, Context, GetPromptResult, PromptMessage, State, prompt};

/// A unit-only enum: given by its serde names, completed with no code.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde", rename_all = "lowercase")]
#[schemars(crate = "mcp_runtime::schemars")]
enum Tone {
    /// Short and plain.
    Formal,
    Casual,
}

struct Style(String);

/// Text is one user message.
#[prompt]
async fn greet(name: String) -> String {
    format!("Say hello to {name}.")
}

/// Static text, from a plain fn.
#[prompt]
fn fixed() -> &'static str {
    "Say hello."
}

/// One message.
#[prompt]
async fn picture() -> PromptMessage {
    PromptMessage::user(Content::image([1u8, 2, 3], "image/png"))
}

/// Several messages, with an optional argument and an enum one.
#[prompt(title = "Code review")]
async fn code_review(
    ctx: Context,
    /// The code.
    code: String,
    /// What to focus on.
    focus: Option<String>,
    tone: Tone,
    max_lines: Option<u32>,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(format!(
            "{}: review {code} ({focus:?}, {tone:?}, {max_lines:?})",
            ctx.tool_name()
        )),
        PromptMessage::assistant("Sure."),
    ]
}

/// A whole result, with shared state.
#[prompt(name = "styled")]
fn styled_prompt(style: State<Style>, topic: String) -> GetPromptResult {
    GetPromptResult::new(vec![PromptMessage::user(topic)]).description(style.0.clone())
}

/// A prompt that can fail.
#[prompt]
async fn fallible(tone: Option<Tone>) -> Result<String, String> {
    tone.map(|t| format!("{t:?}")).ok_or_else(|| "no tone".to_owned())
}

/// Messages that can fail.
#[prompt]
fn fallible_messages(n: u8) -> Result<Vec<PromptMessage>, std::num::TryFromIntError> {
    let n = i8::try_from(n)?;
    Ok(vec![PromptMessage::user(n.to_string())])
}

fn main() {
    let defs: Vec<&PromptDef> = inventory::iter::<PromptDef>.into_iter().collect();
    assert_eq!(defs.len(), 7);
    let review = defs.iter().find(|d| d.name == "code_review").unwrap();
    let arguments: Vec<_> = review.arguments.iter().map(|a| (a.name, a.required)).collect();
    assert_eq!(
        arguments,
        [("code", true), ("focus", false), ("tone", true), ("max_lines", false)]
    );
    assert_eq!(
        (review.arguments[2].enum_values)(),
        Some(vec!["casual".to_owned(), "formal".to_owned()])
    );
    assert!(defs.iter().any(|d| d.name == "styled"));
}
