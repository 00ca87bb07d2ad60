//! The fixtures of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`), whose server scenarios call tools,
//! read resources, get prompts and ask for completions by exact name or URI
//! and check what they return. `tests/conformance/run` serves this over
//! Streamable HTTP and runs the suite against it.
//!
//! Run it with `cargo run --example conformance -- --http 127.0.0.1:8080`
//! (then `conformance server --url http://127.0.0.1:8080/mcp`), or without
//! arguments to serve stdio; `--help` says the rest. While it runs,
//! `test://watched-resource` changes every 3 seconds and its subscribers are
//! told (`notifications/resources/updated`).
//!
//! Sampling and elicitation fixtures (`test_sampling`, `test_elicitation`,
//! `test_elicitation_sep1034_defaults`, `test_elicitation_sep1330_enums`)
//! need requests from the server to the client: they come with that feature.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::{
    Blob, ClientRequestError, Content, Context, DynamicPrompt, DynamicTool, Elicit, Elicited,
    GetPromptResult, LogLevel, Notifier, PromptMessage, SamplingRequest, Server, ServerHandle,
    State, prompt, resource, tool,
};
use serde::Serialize;

#[path = "conformance/tasks.rs"]
mod tasks;

/// A 1x1 red pixel, as a PNG (RGB, 8 bits per channel).
pub const RED_PIXEL_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0xf7, 0x03, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// One millisecond of silence as a WAV file: 8 kHz, mono, 16-bit PCM.
pub fn silent_wav() -> Vec<u8> {
    const RATE: u32 = 8000;
    const SAMPLES: u32 = 8;
    let data_len = SAMPLES * 2;
    let mut wav = Vec::with_capacity(44 + data_len as usize);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data_len).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // size of the fmt chunk
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // channels
    wav.extend_from_slice(&RATE.to_le_bytes());
    wav.extend_from_slice(&(RATE * 2).to_le_bytes()); // bytes per second
    wav.extend_from_slice(&2u16.to_le_bytes()); // bytes per frame
    wav.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data_len.to_le_bytes());
    wav.resize(44 + data_len as usize, 0);
    wav
}

/// Tests simple text content response.
#[tool(read_only, idempotent)]
async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Tests image content response.
#[tool(read_only, idempotent)]
async fn test_image_content() -> Content {
    Content::image(RED_PIXEL_PNG, "image/png")
}

/// Tests audio content response.
#[tool(read_only, idempotent)]
async fn test_audio_content() -> Content {
    Content::audio(silent_wav(), "audio/wav")
}

/// Tests embedded resource content response.
#[tool(read_only, idempotent)]
async fn test_embedded_resource() -> Content {
    Content::embedded_text(
        "test://embedded-resource",
        Some("text/plain"),
        "This is an embedded resource content.",
    )
}

/// Tests response with multiple content types (text, image, resource).
#[tool(read_only, idempotent)]
async fn test_multiple_content_types() -> Vec<Content> {
    vec![
        Content::text("Multiple content types test:"),
        Content::image(RED_PIXEL_PNG, "image/png"),
        Content::embedded_text(
            "test://mixed-content-resource",
            Some("application/json"),
            json!({"test": "data", "value": 123}).to_string(),
        ),
    ]
}

/// Tests tool that emits log messages during execution.
#[tool(read_only, idempotent)]
async fn test_tool_with_logging(ctx: Context) -> &'static str {
    // The pauses let the client see the messages arrive one by one, while
    // the call is still running.
    ctx.log(LogLevel::Info, "Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool execution completed");
    "Tool with logging executed successfully"
}

/// Tests tool that reports progress notifications.
#[tool(read_only, idempotent)]
async fn test_tool_with_progress(ctx: Context) -> &'static str {
    for step in [0.0, 50.0, 100.0] {
        if step > 0.0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let message = format!("Completed step {step} of 100");
        ctx.progress(step, Some(100.0), Some(&message));
    }
    "Tool with progress executed successfully"
}

/// Tests error response handling.
#[tool(read_only, idempotent)]
async fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".into())
}

/// Lists the client's roots (`roots/list`, through `ctx.roots()`): not a
/// fixture of the suite, but what the interop checks ask real clients for.
#[tool(read_only)]
async fn list_roots(ctx: Context) -> Result<Vec<String>, String> {
    let roots = ctx
        .roots()
        .await
        .map_err(|e| format!("roots failed: {e}"))?;
    Ok(roots
        .into_iter()
        .map(|root| match root.name {
            Some(name) => format!("{name}: {}", root.uri),
            None => root.uri,
        })
        .collect())
}

/// Tests server-initiated sampling: asks the client's model to complete
/// `prompt` (`sampling/createMessage`) and returns what it answered.
#[tool]
async fn test_sampling(
    ctx: Context,
    /// The prompt to send.
    prompt: String,
) -> Result<String, String> {
    let answer = ctx
        .sample(SamplingRequest::new(100).user(prompt))
        .await
        .map_err(|e| format!("sampling failed: {e}"))?;
    let text = answer.text().unwrap_or_default();
    Ok(format!("LLM response: {text}"))
}

/// What the user answered, as the fixtures report it.
fn answered<T: std::fmt::Debug>(
    answer: Result<Elicited<T>, ClientRequestError>,
) -> Result<String, String> {
    match answer.map_err(|e| format!("elicitation failed: {e}"))? {
        Elicited::Accepted(content) => {
            Ok(format!("User response: action=accept, content={content:?}"))
        }
        Elicited::Declined => Ok("User response: action=decline".into()),
        Elicited::Cancelled => Ok("User response: action=cancel".into()),
    }
}

/// The form `test_elicitation` asks for.
// The fields are read only to echo the answer (`Debug`).
#[allow(dead_code)]
#[derive(Debug, Elicit)]
struct Contact {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// Tests server-initiated elicitation: asks the user for a username and
/// an email address.
#[tool]
async fn test_elicitation(
    ctx: Context,
    /// What to ask.
    message: String,
) -> Result<String, String> {
    answered(ctx.elicit::<Contact>(message).await)
}

/// A status to pick (untitled: the values are shown as they are).
#[derive(Debug, Elicit)]
#[elicit(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

/// The form of `test_elicitation_sep1034_defaults`: a default for each
/// primitive type.
// The fields are read only to echo the answer (`Debug`).
#[allow(dead_code)]
#[derive(Debug, Elicit)]
struct Profile {
    /// User name
    #[elicit(default = "John Doe")]
    name: String,
    /// User age
    #[elicit(default = 30)]
    age: i64,
    /// User score
    #[elicit(default = 95.5)]
    score: f64,
    /// User status
    #[elicit(default = Status::Active)]
    status: Status,
    /// Verification status
    #[elicit(default = true)]
    verified: bool,
}

/// Tests elicitation with a default value for each primitive type (SEP-1034).
#[tool]
async fn test_elicitation_sep1034_defaults(ctx: Context) -> Result<String, String> {
    answered(
        ctx.elicit::<Profile>("Please review and update the form fields with defaults")
            .await,
    )
}

/// Three options shown as they are.
#[derive(Debug, Elicit)]
#[elicit(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

/// Three options, each with a label of its own.
#[derive(Debug, Elicit)]
#[elicit(rename_all = "lowercase")]
enum Titled {
    #[elicit(title = "Option 1")]
    Value1,
    #[elicit(title = "Option 2")]
    Value2,
    #[elicit(title = "Option 3")]
    Value3,
}

/// Three options labelled the deprecated way (`enumNames`).
#[derive(Debug, Elicit)]
#[elicit(rename_all = "lowercase", enum_names)]
enum Legacy {
    #[elicit(title = "Option One")]
    Opt1,
    #[elicit(title = "Option Two")]
    Opt2,
    #[elicit(title = "Option Three")]
    Opt3,
}

/// The form of `test_elicitation_sep1330_enums`: every enum form.
// The fields are read only to echo the answer (`Debug`).
#[allow(dead_code)]
#[derive(Debug, Elicit)]
#[elicit(rename_all = "camelCase")]
struct Choices {
    untitled_single: Option<Untitled>,
    titled_single: Option<Titled>,
    legacy_enum: Option<Legacy>,
    untitled_multi: Option<Vec<Untitled>>,
    titled_multi: Option<Vec<Titled>>,
}

/// Tests elicitation with the enum forms of SEP-1330: untitled and titled,
/// single and multiple choice, and the legacy `enumNames`.
#[tool]
async fn test_elicitation_sep1330_enums(ctx: Context) -> Result<String, String> {
    answered(
        ctx.elicit::<Choices>("Please select options from the enum fields")
            .await,
    )
}

// ---- Fixtures of the 2026-07-28 server-stateless scenario ---------------------

/// Asks the client's model (`sampling/createMessage`): a client that did
/// not declare the `sampling` capability is refused, which is what the
/// scenario checks.
#[tool]
async fn test_missing_capability(ctx: Context) -> Result<String, ClientRequestError> {
    let answer = ctx
        .sample(SamplingRequest::new(50).user("Reply with one word."))
        .await?;
    Ok(format!(
        "LLM response: {}",
        answer.text().unwrap_or_default()
    ))
}

/// Logs a message through the request's context, then answers: the client
/// sees the message only if it asked for a log level.
#[tool(read_only, idempotent)]
async fn test_logging_tool(ctx: Context) -> &'static str {
    ctx.log(LogLevel::Info, "test_logging_tool ran");
    "Logging tool executed successfully"
}

/// The form `test_streaming_elicitation` asks for.
// The field is read only to echo the answer (`Debug`).
#[allow(dead_code)]
#[derive(Debug, Elicit)]
struct Name {
    /// Your name
    name: String,
}

/// Asks the user for their name (`elicitation/create`) while the call runs.
#[tool]
async fn test_streaming_elicitation(ctx: Context) -> Result<String, String> {
    answered(ctx.elicit::<Name>("What is your name?").await)
}

/// The name of the tool `test_trigger_tool_change` adds and removes.
pub const TRANSIENT_TOOL: &str = "test_transient_tool";

/// The name of the prompt `test_trigger_prompt_change` adds and removes.
pub const TRANSIENT_PROMPT: &str = "test_transient_prompt";

/// The server's own handle, for the fixtures that change its lists.
pub struct Lists(ServerHandle);

/// Changes the tool list: adds [`TRANSIENT_TOOL`] and removes it again, so
/// that clients hear `notifications/tools/list_changed` while the list the
/// other scenarios see stays the same.
#[tool]
async fn test_trigger_tool_change(lists: State<Lists>) -> String {
    let transient = DynamicTool::new(
        TRANSIENT_TOOL,
        "A tool that exists only while test_trigger_tool_change runs.",
        json!({"type": "object"}),
        |_arguments, _ctx| async move { "transient" },
    );
    // A concurrent call may hold the name: its removal still changes the list.
    let added = lists.0.add_tool(transient).is_ok();
    let removed = lists.0.remove_tool(TRANSIENT_TOOL);
    format!("Tool list changed: added={added}, removed={removed}")
}

/// Changes the prompt list: adds [`TRANSIENT_PROMPT`] and removes it
/// again (`notifications/prompts/list_changed`), as
/// `test_trigger_tool_change` does for tools.
#[tool]
async fn test_trigger_prompt_change(lists: State<Lists>) -> String {
    let transient = DynamicPrompt::new(TRANSIENT_PROMPT, |_arguments, _ctx| async move {
        Ok(GetPromptResult::new(vec![PromptMessage::user(
            "A prompt that exists only while test_trigger_prompt_change runs.",
        )]))
    })
    .description("A prompt that exists only while test_trigger_prompt_change runs.");
    let added = lists.0.add_prompt(transient).is_ok();
    let removed = lists.0.remove_prompt(TRANSIENT_PROMPT);
    format!("Prompt list changed: added={added}, removed={removed}")
}

// ---- Input required (2026-07-28, SEP-2322): in conformance/input_required.rs

#[path = "conformance/input_required.rs"]
mod input_required;

/// Tests SSE stream disconnection and client reconnection (SEP-1699). Here
/// the call only waits 100 ms and answers: the runtime has no way yet for a
/// tool to close its SSE stream mid-call. With nothing sent before it, the
/// answer is plain JSON, and `server-sse-polling` finds no stream to check.
#[tool(read_only, idempotent)]
async fn test_reconnection() -> &'static str {
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed successfully. If you received this, the client properly \
     reconnected after stream closure."
}

/// Tests a parameter mirrored into an HTTP header (SEP-2243): over HTTP in
/// the 2026-07-28 era, `region` must also arrive as `Mcp-Param-Region`.
#[tool(read_only, idempotent)]
async fn test_custom_header(#[header("Region")] region: String) -> String {
    format!("Region: {region}")
}

/// The input schema of the `json-schema-2020-12` scenario, as its fixture
/// has it: `$schema`, `$defs` holding an `$anchor`, `allOf`/`anyOf`,
/// `if`/`then`/`else` and `additionalProperties: false`, all kept as written
/// in `tools/list` (SEP-1613, SEP-2106) and all enforced on the arguments:
/// a phone or an email, and the phone if `contactMethod` is `"phone"`, else
/// the email.
pub fn json_schema_2020_12_input() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string"}
                }
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {
            "properties": {"contactMethod": {"const": "phone"}},
            "required": ["contactMethod"]
        },
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

/// `json_schema_2020_12_tool`: a `#[tool]` cannot have this schema (the
/// runtime inlines `$ref`s and drops `$schema` from generated schemas), so it
/// is a [`DynamicTool`], whose schema is served as given.
pub fn json_schema_2020_12_tool() -> DynamicTool {
    DynamicTool::new(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features",
        json_schema_2020_12_input(),
        |arguments, _ctx| async move {
            format!("JSON Schema 2020-12 tool called with: {arguments}")
        },
    )
    .read_only(true)
    .idempotent(true)
}

// ---- Resources --------------------------------------------------------------

/// A static text resource for testing.
#[resource(
    "test://static-text",
    name = "static-text",
    title = "Static Text Resource",
    mime_type = "text/plain"
)]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource (image) for testing.
#[resource(
    "test://static-binary",
    name = "static-binary",
    title = "Static Binary Resource",
    mime_type = "image/png"
)]
fn static_binary() -> Blob {
    Blob::new(RED_PIXEL_PNG)
}

/// What `test://template/{id}/data` reads as, in JSON.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TemplateData {
    id: String,
    template_test: bool,
    data: String,
}

/// A resource template with parameter substitution.
#[resource(
    "test://template/{id}/data",
    name = "template",
    title = "Resource Template",
    mime_type = "application/json"
)]
fn template(id: String) -> TemplateData {
    TemplateData {
        data: format!("Data for ID: {id}"),
        id,
        template_test: true,
    }
}

/// The URI of the resource the subscription scenarios subscribe to.
pub const WATCHED_URI: &str = "test://watched-resource";

/// How often `main` changes [`WATCHED_URI`].
pub const WATCH_PERIOD: Duration = Duration::from_secs(3);

/// The revision of [`WATCHED_URI`]: each [`Watched::change`] makes a new one
/// and tells the sessions subscribed to it.
#[derive(Debug, Default)]
pub struct Watched {
    revision: AtomicU64,
}

impl Watched {
    /// The text the resource reads as now.
    pub fn text(&self) -> String {
        let revision = self.revision.load(Ordering::Relaxed);
        format!("Watched resource content, revision {revision}")
    }

    /// Moves to the next revision and announces it
    /// (`notifications/resources/updated`) to the sessions subscribed to
    /// [`WATCHED_URI`]; returns how many were told.
    pub fn change(&self, notifier: &Notifier) -> usize {
        self.revision.fetch_add(1, Ordering::Relaxed);
        notifier.resource_updated(WATCHED_URI)
    }
}

/// A resource that changes every 3 seconds while the example runs.
#[resource(
    "test://watched-resource",
    name = "watched-resource",
    title = "Watched Resource",
    mime_type = "text/plain"
)]
fn watched_resource(watched: State<Watched>) -> String {
    watched.text()
}

// ---- Prompts and completion --------------------------------------------------

/// A simple prompt without arguments.
#[prompt(title = "Simple Test Prompt")]
fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// The values `completion/complete` offers for the arguments of
/// `test_prompt_with_arguments`: the spec's example, and the values the
/// scenarios send.
pub const ARGUMENT_VALUES: &[&str] = &["paris", "park", "party", "testValue1", "testValue2"];

/// The [`ARGUMENT_VALUES`] that start with `prefix`, in order.
fn argument_values(prefix: String) -> Vec<&'static str> {
    ARGUMENT_VALUES
        .iter()
        .copied()
        .filter(|value| value.starts_with(&prefix))
        .collect()
}

/// A prompt with required arguments.
#[prompt(title = "Prompt With Arguments")]
fn test_prompt_with_arguments(
    /// First test argument
    #[complete(argument_values)]
    arg1: String,
    /// Second test argument
    #[complete(argument_values)]
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt that includes an embedded resource.
// The scenario names the argument `resourceUri`, and a prompt's arguments
// are named after its parameters.
#[allow(non_snake_case)]
#[prompt(title = "Prompt With Embedded Resource")]
fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed
    resourceUri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(Content::embedded_text(
            resourceUri,
            Some("text/plain"),
            "Embedded resource content for testing.",
        )),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt that includes image content.
#[prompt(title = "Prompt With Image")]
fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(Content::image(RED_PIXEL_PNG, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}

// ---- The server --------------------------------------------------------------

/// The conformance server: every `#[tool]`, `#[resource]` and `#[prompt]`
/// above, and the dynamic tool, with a watched resource that stays at its
/// first revision.
pub fn server() -> Server {
    server_with(Arc::default())
}

/// The conformance server, reading `test://watched-resource` from `watched`.
pub fn server_with(watched: Arc<Watched>) -> Server {
    let mut server = Server::new("mcp-conformance-server", env!("CARGO_PKG_VERSION"))
        .tool(json_schema_2020_12_tool())
        .shared_state(watched);
    let handle = server.handle();
    server.state(Lists(handle))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let watched = Arc::new(Watched::default());
    let mut server = server_with(Arc::clone(&watched));
    // The watched resource changes every few seconds, for as long as the
    // server runs; its subscribers hear of each change.
    let notifier = server.notifier();
    tokio::spawn(async move {
        let mut ticks =
            tokio::time::interval_at(tokio::time::Instant::now() + WATCH_PERIOD, WATCH_PERIOD);
        loop {
            ticks.tick().await;
            watched.change(&notifier);
        }
    });
    // `--http ADDR` serves Streamable HTTP at http://ADDR/mcp; no argument
    // serves stdio; `--help` says the rest.
    server.run().await
}
