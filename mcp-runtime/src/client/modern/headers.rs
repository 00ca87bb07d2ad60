//! The HTTP headers of the 2026-07-28 era, built from the message they go
//! with, so that they always match its body: `MCP-Protocol-Version` (the
//! version its `_meta` names), `Mcp-Method` (every POST, notifications
//! too), `Mcp-Name` (`params.name` of `tools/call` and `prompts/get`,
//! `params.uri` of `resources/read`, `params.taskId` of the tasks
//! extension's `tasks/get`, `tasks/update` and `tasks/cancel`), and one `Mcp-Param-{Name}` for each
//! argument of a `tools/call` that the tool's input schema marks with
//! `x-mcp-header`. Values that are not plain visible ASCII (and values
//! that look like the encoding itself) are sent as `=?base64?…?=`.
//!
//! A tool whose marks break the rules (`crate::schema::headers::check`,
//! the rules a server checks its own tools by) is left out of
//! `tools/list` with a warning: the specification has clients over HTTP
//! exclude it rather than guess its headers.

use std::collections::HashMap;
use std::sync::Mutex;

use base64::Engine;
use serde_json::Value;

use crate::schema::headers::{check, marked};

/// The `_meta` key naming a request's protocol version (the server's).
pub(crate) use crate::dispatch::PROTOCOL_VERSION as PROTOCOL_VERSION_KEY;

/// One marked argument: the path of `properties` keys to it, and its
/// header's name part.
type Mark = (Vec<String>, String);

/// The `x-mcp-header` marks of the tools listed so far, by tool name.
#[derive(Default)]
pub(crate) struct Marks {
    tools: Mutex<HashMap<String, Vec<Mark>>>,
}

impl Marks {
    /// Learns the marks of `tools` (a `tools/list` page) and removes the
    /// tools whose marks break the rules, each with a warning.
    pub(crate) fn learn(&self, tools: &mut Vec<Value>) {
        let mut known = self.tools.lock().unwrap_or_else(|e| e.into_inner());
        tools.retain(|tool| {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
            let Some(schema) = tool.get("inputSchema").and_then(Value::as_object) else {
                known.remove(name);
                return true;
            };
            match check(schema) {
                Ok(()) => {
                    let marks = marked(schema);
                    if marks.is_empty() {
                        known.remove(name);
                    } else {
                        known.insert(name.to_owned(), marks);
                    }
                    true
                }
                Err(why) => {
                    tracing::warn!(
                        tool = name,
                        reason = why,
                        "the server lists a tool whose x-mcp-header marks are invalid: left out"
                    );
                    known.remove(name);
                    false
                }
            }
        });
    }

    fn of(&self, tool: &str) -> Vec<Mark> {
        let known = self.tools.lock().unwrap_or_else(|e| e.into_inner());
        known.get(tool).cloned().unwrap_or_default()
    }
}

/// A header value as the specification has it: as it is when it is plain
/// visible ASCII (inner spaces allowed), else the Base64 of its UTF-8
/// between `=?base64?` and `?=` (also for a plain value that looks like
/// that form).
pub(crate) fn encode(value: &str) -> String {
    let visible = value.bytes().all(|b| (0x20..=0x7e).contains(&b));
    let padded = value.starts_with(' ') || value.ends_with(' ');
    let sentinel = value.starts_with("=?base64?") && value.ends_with("?=");
    let plain = visible && !padded && !sentinel;
    if plain {
        value.to_owned()
    } else {
        let encoded = base64::engine::general_purpose::STANDARD.encode(value.as_bytes());
        format!("=?base64?{encoded}?=")
    }
}

/// An argument's header text: a string as it is, an integer in decimal, a
/// boolean as `true`/`false`; nothing for null, and for what no header
/// carries.
fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// The era's headers for one outgoing message (complete JSON text), if it
/// is a request of the 2026-07-28 era; `version` is the era's version, for
/// a notification (which names none).
pub(crate) fn for_message(
    message: &[u8],
    version: Option<&str>,
    marks: &Marks,
) -> Option<Vec<(String, String)>> {
    let message: Value = serde_json::from_slice(message).ok()?;
    let method = message.get("method")?.as_str()?;
    let params = message.get("params");
    let declared = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(PROTOCOL_VERSION_KEY))
        .and_then(Value::as_str);
    let version = match (declared, message.get("id")) {
        (Some(declared), _) => declared,
        // A request without the era's `_meta` is of the legacy era.
        (None, Some(_)) => return None,
        (None, None) => version?,
    };
    let mut headers = vec![
        ("mcp-protocol-version".to_owned(), version.to_owned()),
        ("mcp-method".to_owned(), method.to_owned()),
    ];
    let name_key = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        // The tasks extension routes its methods by task id.
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    };
    let name = name_key
        .and_then(|key| params?.get(key))
        .and_then(Value::as_str);
    if let Some(name) = name {
        headers.push(("mcp-name".to_owned(), encode(name)));
    }
    if let (Some(tool), "tools/call") = (name, method) {
        let arguments = params.and_then(|p| p.get("arguments"));
        for (path, part) in marks.of(tool) {
            let value = path
                .iter()
                .try_fold(arguments?, |at, key| at.get(key))
                .and_then(text);
            if let Some(value) = value {
                headers.push((format!("mcp-param-{part}"), encode(&value)));
            }
        }
    }
    Some(headers)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn values_are_encoded_as_the_specification_shows() {
        assert_eq!(encode("us-west1"), "us-west1");
        assert_eq!(encode("us west 1"), "us west 1");
        assert_eq!(encode(""), "");
        assert_eq!(encode("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(encode("\tindented"), "=?base64?CWluZGVudGVk?=");
        assert_eq!(
            encode("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
    }

    #[test]
    fn invalid_tools_are_dropped_and_marks_mirrored() {
        let marks = Marks::default();
        let mut tools = vec![
            json!({"name": "q", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "n": {"type": "integer", "x-mcp-header": "N"},
                "flag": {"type": "boolean", "x-mcp-header": "Flag"},
                "plain": {"type": "string"}
            }}}),
            json!({"name": "bad", "inputSchema": {"type": "object", "properties": {
                "x": {"type": "object", "x-mcp-header": "X"}
            }}}),
            json!({"name": "twice", "inputSchema": {"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": "A"},
                "b": {"type": "string", "x-mcp-header": "a"}
            }}}),
        ];
        marks.learn(&mut tools);
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, ["q"]);
        let meta = json!({PROTOCOL_VERSION_KEY: "2026-07-28"});
        let message = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "q", "_meta": meta,
            "arguments": {"region": "Zürich", "n": 42, "flag": false, "plain": "x"}
        }});
        let headers = for_message(message.to_string().as_bytes(), None, &marks).unwrap();
        let get = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(get("mcp-protocol-version"), Some("2026-07-28"));
        assert_eq!(get("mcp-method"), Some("tools/call"));
        assert_eq!(get("mcp-name"), Some("q"));
        assert_eq!(get("mcp-param-Region"), Some("=?base64?WsO8cmljaA==?="));
        assert_eq!(get("mcp-param-N"), Some("42"));
        assert_eq!(get("mcp-param-Flag"), Some("false"));
        assert_eq!(headers.len(), 6);
        let null = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "q", "_meta": meta, "arguments": {"region": null}
        }});
        let headers = for_message(null.to_string().as_bytes(), None, &marks).unwrap();
        assert_eq!(headers.len(), 3, "{headers:?}");
        let legacy = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"});
        assert!(for_message(legacy.to_string().as_bytes(), Some("2026-07-28"), &marks).is_none());
        let task = json!({"jsonrpc": "2.0", "id": 6, "method": "tasks/get", "params": {
            "taskId": "t-1", "_meta": meta
        }});
        let headers = for_message(task.to_string().as_bytes(), None, &marks).unwrap();
        assert_eq!(headers[2], ("mcp-name".into(), "t-1".into()));
        let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled"});
        let headers = for_message(note.to_string().as_bytes(), Some("2026-07-28"), &marks).unwrap();
        assert_eq!(
            headers[1],
            ("mcp-method".into(), "notifications/cancelled".into())
        );
        assert!(for_message(note.to_string().as_bytes(), None, &marks).is_none());
    }
}
