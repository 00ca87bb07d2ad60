//! What every result of the 2026-07-28 era adds (`resultType`, the
//! server's name, a cache hint), serialized once per server, and the
//! finishing of a result written by either era's routing with it.

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::jsonrpc::{self, RequestId};
use crate::protocol::cache::{CacheHint, CacheHints, CacheScope};
use crate::protocol::capabilities::Served;
use crate::protocol::info::ServerInfo;
use crate::protocol::version::ProtocolVersion;

/// The `_meta` key of the server's name in a result.
pub(crate) const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// Every version served, newest first: `supportedVersions`, and the
/// `supported` of an unsupported-version error.
pub(crate) fn supported_versions() -> Vec<&'static str> {
    ProtocolVersion::ALL
        .iter()
        .rev()
        .map(|v| v.as_str())
        .collect()
}

/// The parts every 2026-07-28 result adds, serialized once per server.
pub(crate) struct Tails {
    /// `"resultType":"complete","_meta":{serverInfo}`.
    complete: Arc<str>,
    /// `"resultType":"task","_meta":{serverInfo}`: a call that became a task.
    task: Arc<str>,
    /// The same with the lists' cache hint.
    lists: Arc<str>,
    /// The lists of a server whose lists depend on the caller.
    private_lists: Arc<str>,
    /// The same with `resources/read`'s.
    reads: Arc<str>,
    /// The whole `server/discover` result.
    discover: Box<RawValue>,
}

impl Tails {
    /// The tails of a server with this `info`, `instructions`, capabilities
    /// (`served`) and freshness hints.
    pub(crate) fn new(
        info: &ServerInfo,
        instructions: Option<&str>,
        served: &Served,
        hints: CacheHints,
    ) -> Tails {
        let info = serde_json::to_string(&info.for_version(ProtocolVersion::MODERN))
            .unwrap_or_else(|_| "{}".into());
        let complete =
            format!("\"resultType\":\"complete\",\"_meta\":{{\"{SERVER_INFO}\":{info}}}");
        let with = |hint: CacheHint| Arc::from(format!("{},{complete}", hint.fields()));
        let mut discover = json!({
            "supportedVersions": supported_versions(),
            "capabilities": served.capabilities(ProtocolVersion::MODERN, false),
        });
        if let Some(instructions) = instructions {
            discover["instructions"] = Value::String(instructions.to_owned());
        }
        let mut text = serde_json::to_string(&discover).unwrap_or_else(|_| "{}".into());
        text.pop();
        text.push(',');
        text.push_str(&with(hints.discover));
        text.push('}');
        Tails {
            lists: with(hints.lists),
            private_lists: with(CacheHint {
                scope: CacheScope::Private,
                ..hints.lists
            }),
            reads: with(hints.reads),
            task: Arc::from(complete.replacen("\"complete\"", "\"task\"", 1)),
            complete: Arc::from(complete),
            discover: RawValue::from_string(text).unwrap_or_default(),
        }
    }

    /// What the answer to a call that became a task adds.
    pub(crate) fn task(&self) -> &Arc<str> {
        &self.task
    }

    pub(crate) fn discover(&self) -> &RawValue {
        &self.discover
    }

    /// What a result of `method` adds (`private`: a list filtered by the
    /// caller's scopes).
    pub(crate) fn of(&self, method: &str, private: bool) -> &Arc<str> {
        match method {
            "tools/list"
            | "resources/list"
            | "resources/templates/list"
            | "prompts/list"
            | "skills/list"
            | "skills/get" => {
                if private {
                    &self.private_lists
                } else {
                    &self.lists
                }
            }
            "resources/read" => &self.reads,
            _ => &self.complete,
        }
    }
}

/// Whether a result's text has a `_meta` (anywhere: one nested in its
/// content only costs it the server's name).
fn has_meta(body: &[u8]) -> bool {
    memchr::memmem::find(body, b"\"_meta\"").is_some()
}

/// Adds `tail`'s fields to the response to `id` written in `out` since
/// `start`, when it is a result (an error stays as it is). In place: the
/// response ends with the result's `}` and its own.
pub(crate) fn finish(out: &mut Vec<u8>, start: usize, id: &RequestId, tail: &str) {
    let Some(result_at) = jsonrpc::result_offset(&out[start..], id) else {
        return;
    };
    if !out.ends_with(b"}}") {
        return;
    }
    let result = start + result_at;
    let end = out.len() - 2;
    let empty = end == result + 1;
    let tail = if has_meta(&out[result..end]) {
        tail.split_once(",\"_meta\":")
            .map_or(tail, |(fields, _)| fields)
    } else {
        tail
    };
    out.truncate(end);
    if !empty {
        out.push(b',');
    }
    out.extend_from_slice(tail.as_bytes());
    out.extend_from_slice(b"}}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::ErrorObject;

    #[test]
    fn results_gain_their_type_and_keep_their_own_meta() {
        let tail = r#""resultType":"complete","_meta":{"s":1}"#;
        let id = RequestId::server(7);
        let finished = |result: Value| {
            let mut out = Vec::new();
            crate::jsonrpc::write_result(&mut out, &id, &result);
            finish(&mut out, 0, &id, tail);
            let out: Value = serde_json::from_slice(&out).unwrap();
            out["result"].to_string()
        };
        assert_eq!(
            finished(json!({"tools": []})),
            r#"{"tools":[],"resultType":"complete","_meta":{"s":1}}"#
        );
        assert_eq!(
            finished(json!({})),
            r#"{"resultType":"complete","_meta":{"s":1}}"#
        );
        assert_eq!(
            finished(json!({"_meta": {"mine": true}})),
            r#"{"_meta":{"mine":true},"resultType":"complete"}"#
        );
        let id = RequestId::server(7);
        let mut out = b"[".to_vec();
        crate::jsonrpc::write_result(&mut out, &id, &json!({"a": 1}));
        finish(&mut out, 1, &id, tail);
        let expected = format!(
            r#"[{{"jsonrpc":"2.0","id":{},"result":{{"a":1,"resultType":"complete","_meta":{{"s":1}}}}}}"#,
            id.as_json()
        );
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        let mut out = Vec::new();
        crate::jsonrpc::write_error(&mut out, Some(&id), &ErrorObject::new(-1, "no"));
        let error = out.clone();
        finish(&mut out, 0, &id, tail);
        assert_eq!(out, error);
    }
}
