//! The 2026-07-28 era at the endpoint: each POST stands alone (no
//! session, no GET stream, no resumption); which requests are of this era
//! is [`era`](super::era)'s to say.
//!
//! Before the body is served, its headers are checked against it
//! (-32020 and 400 on any difference): `MCP-Protocol-Version` against
//! `_meta`'s version, `Mcp-Method` against the method, `Mcp-Name` against
//! `params.name` (`tools/call`, `prompts/get`), `params.uri`
//! (`resources/read`) or `params.taskId` (`tasks/get`, `tasks/update`,
//! `tasks/cancel`, the tasks extension's routing header), and each `Mcp-Param-{Name}` a tool's input schema
//! marks with `x-mcp-header` against that argument. `Mcp-Name` and
//! `Mcp-Param-*` may carry `=?base64?…?=`, decoded first. Errors keep the
//! request's id, and their status says what they are: 404 for a method
//! this era does not have (-32601), 400 for the request's own faults.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderName, Response, StatusCode};
use base64::Engine;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::headers::{Accepts, PROTOCOL_VERSION};
use super::reply::{accepted, error, json_response_with, method_not_allowed};
use super::request::{Posts, REPLY_ROOM, Sender, respond};
use crate::dispatch::{ServerCore, declared_version, meta_in};
use crate::jsonrpc::call_params::Checked;
use crate::jsonrpc::{self, ErrorObject, HEADER_MISMATCH, INVALID_REQUEST, Line, Message};
use crate::protocol::version::ProtocolVersion;
use crate::schema::headers::marked;

const METHOD: HeaderName = HeaderName::from_static("mcp-method");
const NAME: HeaderName = HeaderName::from_static("mcp-name");
/// The prefix of the headers that mirror marked tool arguments.
const PARAM_PREFIX: &str = "mcp-param-";

/// The body fields the headers mirror.
struct Mirrored {
    method: String,
    /// `params.name`, `params.uri` or `params.taskId`, for the methods that
    /// have `Mcp-Name`.
    name: Option<String>,
    arguments: Option<Value>,
    version: Option<String>,
}

impl Mirrored {
    fn of(method: &str, params: Option<&RawValue>, call: Option<&Checked<'_>>) -> Mirrored {
        let version = declared_version(meta_in(params, call));
        let (name, arguments) = match call {
            Some(Ok(call)) => (Some(call.name.to_string()), Some(call.arguments.clone())),
            _ => {
                let params: Option<Map<String, Value>> =
                    params.and_then(|raw| serde_json::from_str(raw.get()).ok());
                let key = match method {
                    "resources/read" => "uri",
                    "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
                    _ => "name",
                };
                let name = params
                    .as_ref()
                    .and_then(|p| p.get(key))
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let arguments = params.and_then(|mut p| p.remove("arguments"));
                (name, arguments)
            }
        };
        Mirrored {
            method: method.to_owned(),
            name,
            arguments,
            version,
        }
    }
}

fn mismatch(message: String) -> ErrorObject {
    ErrorObject::new(HEADER_MISMATCH, format!("Header mismatch: {message}"))
}

/// A header's value as text, without the optional whitespace around it;
/// `Err` for one that is not visible ASCII.
fn text<'h>(headers: &'h HeaderMap, name: &HeaderName) -> Result<Option<&'h str>, ErrorObject> {
    match headers.get(name) {
        None => Ok(None),
        Some(value) => value
            .to_str()
            .map(|v| Some(v.trim_matches([' ', '\t'])))
            .map_err(|_| mismatch(format!("the {name} header has characters a header may not"))),
    }
}

/// A mirrored value as sent: `=?base64?…?=` decoded (strict Base64 with
/// padding, UTF-8), anything else as it is.
pub(super) fn decode(value: &str) -> Result<String, String> {
    let Some(encoded) = value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Ok(value.to_owned());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|_| format!("{value:?} is not valid Base64"))?;
    String::from_utf8(bytes).map_err(|_| format!("{value:?} does not decode to UTF-8 text"))
}

/// Whether a header's text stands for `value` (a string as it is, an
/// integer by number, a boolean as `true`/`false`).
fn same(header: &str, value: &Value) -> bool {
    match value {
        Value::String(text) => header == text,
        Value::Bool(flag) => header == if *flag { "true" } else { "false" },
        Value::Number(number) => header
            .parse::<f64>()
            .ok()
            .zip(number.as_f64())
            .is_some_and(|(a, b)| a == b),
        _ => false,
    }
}

/// Checks the headers of a POST against its body (see the module's docs);
/// `schema` is the called tool's input schema, if it is a known tool.
fn check(
    headers: &HeaderMap,
    body: &Mirrored,
    schema: Option<&Map<String, Value>>,
) -> Result<(), ErrorObject> {
    let Some(version) = text(headers, &PROTOCOL_VERSION)? else {
        return Err(mismatch(
            "the MCP-Protocol-Version header is required".into(),
        ));
    };
    if let Some(declared) = &body.version
        && declared != version
    {
        return Err(mismatch(format!(
            "MCP-Protocol-Version header value {version:?} does not match the body's \
             _meta protocol version {declared:?}"
        )));
    }
    match text(headers, &METHOD)? {
        None => return Err(mismatch("the Mcp-Method header is required".into())),
        Some(method) if method != body.method => {
            return Err(mismatch(format!(
                "Mcp-Method header value {method:?} does not match the body's method {:?}",
                body.method
            )));
        }
        Some(_) => {}
    }
    // The tasks extension routes its methods by task id.
    let named = matches!(
        body.method.as_str(),
        "tools/call"
            | "prompts/get"
            | "resources/read"
            | "tasks/get"
            | "tasks/update"
            | "tasks/cancel"
    );
    if named {
        let Some(header) = text(headers, &NAME)? else {
            return Err(mismatch(format!(
                "the Mcp-Name header is required for {}",
                body.method
            )));
        };
        let header = decode(header).map_err(|why| mismatch(format!("Mcp-Name: {why}")))?;
        if let Some(name) = &body.name
            && *name != header
        {
            return Err(mismatch(format!(
                "Mcp-Name header value {header:?} does not match the body value {name:?}"
            )));
        }
    }
    let (Some(schema), Some(arguments)) = (schema, &body.arguments) else {
        return Ok(());
    };
    for (path, part) in marked(schema) {
        let value = path
            .iter()
            .try_fold(arguments, |at, key| at.get(key))
            .filter(|v| !v.is_null());
        let Ok(name) = HeaderName::try_from(format!("{PARAM_PREFIX}{part}")) else {
            continue;
        };
        let header = text(headers, &name)?;
        match (value, header) {
            (None, _) => {}
            (Some(_), None) => {
                return Err(mismatch(format!(
                    "the Mcp-Param-{part} header is required: the body has `{}`",
                    path.join(".")
                )));
            }
            (Some(value), Some(header)) => {
                let header =
                    decode(header).map_err(|why| mismatch(format!("Mcp-Param-{part}: {why}")))?;
                if !same(&header, value) {
                    return Err(mismatch(format!(
                        "Mcp-Param-{part} header value {header:?} does not match the body \
                         value {value} of `{}`",
                        path.join(".")
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The endpoint of the 2026-07-28 era.
pub(super) struct Modern {
    core: Arc<ServerCore>,
    posts: Arc<Posts>,
}

/// A GET of this era: 405, there is no stream to open.
pub(super) fn get() -> Response<Body> {
    method_not_allowed(
        "Method Not Allowed: protocol 2026-07-28 has no GET stream; POST subscriptions/listen to hear of changes",
        "POST",
    )
}

impl Modern {
    pub(super) fn new(core: Arc<ServerCore>, posts: Arc<Posts>) -> Modern {
        Modern { core, posts }
    }

    /// A POST of the 2026-07-28 era: its headers checked, then served by a
    /// connection of its own, in the era's way.
    pub(super) async fn post(
        &self,
        line: Line<'_>,
        size: usize,
        headers: &HeaderMap,
        accepts: Accepts,
        sender: Sender,
    ) -> Response<Body> {
        let (id, method, params, call) = match &line {
            Line::Single(Message::Request {
                id,
                method,
                params,
                call,
            }) => (id, method, *params, call.as_ref()),
            // This era defines no notification a client posts: taken and
            // dropped, as the transport says.
            Line::Single(Message::Notification { .. }) => return accepted(),
            Line::Batch(_) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    Some(INVALID_REQUEST),
                    "Bad Request: protocol 2026-07-28 takes one request per POST, not a batch",
                );
            }
            _ => {
                return error(
                    StatusCode::BAD_REQUEST,
                    Some(INVALID_REQUEST),
                    "Bad Request: the body is not a JSON-RPC request",
                );
            }
        };
        let body = Mirrored::of(method, params, call);
        let schema = body
            .name
            .as_deref()
            .filter(|_| body.method == "tools/call")
            .and_then(|name| {
                let snapshot = self.core.live.load();
                snapshot
                    .registry
                    .get(name)
                    .map(|tool| tool.input_schema.clone())
            });
        if let Err(refused) = check(headers, &body, schema.as_ref()) {
            tracing::debug!(method = %body.method, error = %refused.message, "request refused");
            let mut reply = Vec::new();
            jsonrpc::write_error(&mut reply, Some(id), &refused);
            return json_response_with(StatusCode::BAD_REQUEST, reply.into());
        }
        let (reader, mut connection) = self.posts.lone();
        connection.serve_modern();
        sender.hand_to(&mut connection);
        connection
            .handle_parsed(line, size, &reader.stream().outbox(REPLY_ROOM))
            .await;
        respond(
            reader,
            accepts,
            None,
            Some(connection),
            ProtocolVersion::MODERN,
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(
                HeaderName::try_from(*name).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        map
    }

    fn body(method: &str, name: Option<&str>, arguments: Value) -> Mirrored {
        Mirrored {
            method: method.into(),
            name: name.map(str::to_owned),
            arguments: Some(arguments),
            version: Some("2026-07-28".into()),
        }
    }

    #[test]
    fn base64_values_are_decoded_strictly_and_others_taken_literally() {
        assert_eq!(decode("=?base64?SGVsbG8=?="), Ok("Hello".into()));
        assert!(decode("=?base64?SGVsbG8?=").is_err(), "padding is required");
        assert!(decode("=?base64?SGVs!!!bG8=?=").is_err());
        assert_eq!(decode("SGVsbG8="), Ok("SGVsbG8=".into()));
        assert_eq!(decode("=?base64?SGVsbG8="), Ok("=?base64?SGVsbG8=".into()));
        assert_eq!(
            decode("=?base64?SGVsbG8sIOS4lueVjA==?="),
            Ok("Hello, 世界".into())
        );
    }

    #[test]
    fn headers_must_mirror_the_body() {
        let ok = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
        ];
        let call = body("tools/call", Some("get_forecast"), json!({}));
        let code = |pairs: &[(&str, &str)], body: &Mirrored| {
            check(&headers(pairs), body, None).err().map(|e| e.code)
        };
        assert_eq!(
            code(&ok, &call),
            Some(-32020),
            "Mcp-Name is required for tools/call"
        );
        let named = [ok[0], ok[1], ("mcp-name", "  get_forecast  ")];
        assert_eq!(code(&named, &call), None);
        let wrong = [ok[0], ok[1], ("mcp-name", "other")];
        assert_eq!(code(&wrong, &call), Some(-32020));
        let list = body("tools/list", None, json!({}));
        assert_eq!(
            code(&[ok[0], ("mcp-method", "TOOLS/LIST")], &list),
            Some(-32020)
        );
        assert_eq!(code(&[ok[0]], &list), Some(-32020));
        assert_eq!(code(&[("mcp-method", "tools/list")], &list), Some(-32020));
        assert_eq!(code(&[ok[0], ("mcp-method", "tools/list")], &list), None);
        let other_version = [
            ("mcp-protocol-version", "v999"),
            ("mcp-method", "tools/list"),
        ];
        assert_eq!(code(&other_version, &list), Some(-32020));
    }

    #[test]
    fn marked_arguments_must_be_mirrored() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "limit": {"type": "integer", "x-mcp-header": "Limit"},
                "query": {"type": "string"}
            }
        });
        let schema = schema.as_object().unwrap();
        assert_eq!(marked(schema).len(), 2);
        let base = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "sql"),
        ];
        let call = body(
            "tools/call",
            Some("sql"),
            json!({"region": "us-west1", "limit": 42}),
        );
        let with = |extra: &[(&str, &str)]| {
            let mut pairs = base.to_vec();
            pairs.extend_from_slice(extra);
            check(&headers(&pairs), &call, Some(schema))
                .err()
                .map(|e| e.code)
        };
        assert_eq!(
            with(&[
                ("mcp-param-region", "us-west1"),
                ("mcp-param-limit", "42.0")
            ]),
            None
        );
        assert_eq!(with(&[("mcp-param-region", "us-west1")]), Some(-32020));
        assert_eq!(
            with(&[("mcp-param-region", "eu"), ("mcp-param-limit", "42")]),
            Some(-32020)
        );
        let absent = body("tools/call", Some("sql"), json!({"query": "x"}));
        assert_eq!(check(&headers(&base), &absent, Some(schema)).err(), None);
    }
}
