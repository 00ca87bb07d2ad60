//! A stdio MCP server that answers badly on purpose, written by hand (no
//! framework) so that it can: the scripted upstream that
//! `tests/hostile_upstreams.rs` mounts to check that a client, a mount and
//! the gateway survive it. What it serves:
//!
//! - `initialize`, `ping`; the tools `echo` (`{"text"}` back) and `sized`
//!   (`{"bytes": N}`: an answer whose line is exactly N bytes, its id
//!   after the result as some SDKs write it, so a client must read to the
//!   end to find it);
//! - with the argument `deep`, `tools/list` also lists `deep`, whose input
//!   schema nests 100 levels of object properties (200 levels of JSON,
//!   valid, past the 128 a message may have), between the good tools;
//! - with `not-json`, `tools/list` is answered with a line that is not
//!   JSON (a stray comma), its id still readable.
//!
//! Run it with `cargo run --example broken_upstream -- deep`.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
            continue; // A notification or an answer: nothing to say.
        };
        let params = &message["params"];
        let answer = match method {
            "initialize" => result(id, &initialize(params)),
            "ping" => result(id, &json!({})),
            "tools/list" if mode == "not-json" => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{{"name":"echo",}}]}}}}"#
            ),
            "tools/list" => result(id, &json!({ "tools": tools(mode == "deep") })),
            "tools/call" => call(id, params),
            _ => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32601,"message":"Method not found: {method}"}}}}"#
            ),
        };
        let written = stdout
            .write_all(answer.as_bytes())
            .and_then(|()| stdout.write_all(b"\n"))
            .and_then(|()| stdout.flush());
        if written.is_err() {
            break;
        }
    }
}

fn initialize(params: &Value) -> Value {
    json!({
        "protocolVersion": params["protocolVersion"].as_str().unwrap_or("2025-11-25"),
        "capabilities": { "tools": {} },
        "serverInfo": { "name": "broken-upstream", "version": "1.0.0" },
    })
}

fn tools(deep: bool) -> Vec<Value> {
    let object = |properties: Value| json!({ "type": "object", "properties": properties });
    let echo = json!({
        "name": "echo",
        "description": "The text back.",
        "inputSchema": object(json!({ "text": { "type": "string" } })),
    });
    let sized = json!({
        "name": "sized",
        "description": "An answer whose line is exactly `bytes` long.",
        "inputSchema": object(json!({ "bytes": { "type": "integer" } })),
    });
    if !deep {
        return vec![echo, sized];
    }
    let mut schema = json!({ "type": "string" });
    for _ in 0..100 {
        schema = object(json!({ "inner": schema }));
    }
    let deep = json!({ "name": "deep", "description": "Nested too deep.", "inputSchema": schema });
    vec![echo, deep, sized]
}

fn call(id: &Value, params: &Value) -> String {
    match params["name"].as_str() {
        Some("echo") => result(
            id,
            &text(params["arguments"]["text"].as_str().unwrap_or("")),
        ),
        Some("sized") => {
            let bytes = params["arguments"]["bytes"].as_u64().unwrap_or(0) as usize;
            // The line without the text, then the text that makes it `bytes`.
            let frame = |text: &str| {
                format!(
                    r#"{{"jsonrpc":"2.0","result":{{"content":[{{"type":"text","text":"{text}"}}]}},"id":{id}}}"#
                )
            };
            let padding = bytes.saturating_sub(frame("").len());
            frame(&"a".repeat(padding))
        }
        _ => result(id, &json!({ "content": [], "isError": true })),
    }
}

fn text(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }] })
}

fn result(id: &Value, result: &Value) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string()
}
