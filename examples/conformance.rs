//! The fixtures of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`), whose server scenarios call tools
//! by exact name and check what they return. `tests/conformance/run` serves
//! this over Streamable HTTP and runs the suite against it.
//!
//! Run it with `cargo run --example conformance -- --http 127.0.0.1:8080`
//! (then `conformance server --url http://127.0.0.1:8080/mcp`), or without
//! arguments to serve stdio; `--help` says the rest.
//!
//! Sampling and elicitation fixtures (`test_sampling`, `test_elicitation`,
//! `test_elicitation_sep1034_defaults`, `test_elicitation_sep1330_enums`)
//! need requests from the server to the client, and the resource and prompt
//! fixtures need resources and prompts: they come with those features.

use std::time::Duration;

use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::{Content, Context, DynamicTool, LogLevel, Server, tool};

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

/// The input schema the `json-schema-2020-12` scenario looks for: `$schema`,
/// `$defs` holding an `$anchor`, `allOf`/`anyOf` and
/// `additionalProperties: false`, kept as written in `tools/list`.
///
/// The scenario's own fixture also has `if`/`then`/`else`, which the
/// argument validator does not implement and so refuses at start-up (it
/// will not serve a schema it cannot enforce). Protocol 2025-11-25 does not
/// require those keywords to survive, and the scenario skips that check.
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

/// The conformance server: every `#[tool]` above, and the dynamic one.
pub fn server() -> Server {
    Server::new("mcp-conformance-server", env!("CARGO_PKG_VERSION"))
        .tool(json_schema_2020_12_tool())
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    // `--http ADDR` serves Streamable HTTP at http://ADDR/mcp; no argument
    // serves stdio; `--help` says the rest.
    server().run().await
}
