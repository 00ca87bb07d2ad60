//! The 2026-07-28 era: no `initialize` and no session. Every request
//! carries its protocol version and its client's capabilities in `_meta`,
//! is checked on its own, and is served as if its session had been opened
//! for it alone; every result says `resultType`.
//!
//! A connection with no legacy session serves a request in this era when
//! it is `server/discover` or its `_meta` names a protocol version (on
//! HTTP, also when its `MCP-Protocol-Version` header names no legacy
//! version). The checks, in the order the specification gives them:
//! `_meta` without `protocolVersion` or `clientCapabilities` is -32602; a
//! version not served is -32022 with `data.supported` and
//! `data.requested`; a method this era does not have (`initialize`,
//! `ping`, `logging/setLevel`, `resources/subscribe`,
//! `resources/unsubscribe`) or the server does not serve is -32601; a bad
//! `logLevel` is -32602. Log messages reach a request's stream only when
//! its `_meta` set a `logLevel`.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::core::ServerCore;
use super::frame::{Frame, Request};
use super::reply::{Answer, method_not_found};
use super::state::Connection;
use super::tails::supported_versions;
use crate::asking::rounds::{Asked, Round};
use crate::context::{ClientInfo, LogLevel, SessionShared};
use crate::jsonrpc::call_params::Checked;
use crate::jsonrpc::{self, ErrorObject, INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION};
use crate::protocol::version::ProtocolVersion;

/// The `_meta` keys of this era.
pub(crate) const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub(crate) const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub(crate) const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// The methods of the legacy era that this one removed.
pub(crate) fn removed(method: &str) -> bool {
    matches!(
        method,
        "initialize"
            | "ping"
            | "logging/setLevel"
            | "resources/subscribe"
            | "resources/unsubscribe"
    )
}

/// The `_meta` of a request's params, unparsed.
#[derive(Deserialize)]
struct WithMeta<'a> {
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<&'a RawValue>,
}

/// The `_meta` of a request, unparsed: from the params of a `tools/call`
/// read with its envelope, or from its params.
pub(super) fn meta_of<'r>(request: &'r Request<'_, '_>) -> Option<&'r RawValue> {
    meta_in(request.params, request.call.as_ref())
}

/// [`meta_of`] for a message's `params` and its `tools/call` params read
/// with the envelope, if they were.
pub(crate) fn meta_in<'r>(
    params: Option<&'r RawValue>,
    call: Option<&'r Checked<'_>>,
) -> Option<&'r RawValue> {
    match call {
        Some(Ok(call)) => call.meta,
        Some(Err(_)) => None,
        None => params
            .and_then(|raw| serde_json::from_str::<WithMeta<'_>>(raw.get()).ok())
            .and_then(|p| p.meta),
    }
}

/// Whether a request belongs to this era by what it says itself:
/// `server/discover`, or `_meta` (see [`meta_of`]) that names a protocol
/// version.
pub(crate) fn claims_modern(method: &str, meta: Option<&RawValue>) -> bool {
    method == "server/discover" || declared(meta).is_some_and(|d| d.version.is_some())
}

/// The protocol version a request's `_meta` names, if it names one as a
/// string (the HTTP transport checks its header against it).
#[cfg(feature = "http")]
pub(crate) fn declared_version(meta: Option<&RawValue>) -> Option<String> {
    declared(meta)?
        .version
        .and_then(|raw| serde_json::from_str::<String>(raw.get()).ok())
}

/// The fields of `_meta` this era defines, if `_meta` is an object.
fn declared(meta: Option<&RawValue>) -> Option<Declared<'_>> {
    serde_json::from_str(meta?.get()).ok()
}

/// What a request of this era says of itself in `_meta`.
pub(crate) struct RequestMeta {
    pub(crate) client: ClientInfo,
    /// The level of the log messages it wants; none without one.
    pub(crate) log_level: Option<LogLevel>,
}

fn invalid(message: &str) -> ErrorObject {
    ErrorObject::new(
        INVALID_PARAMS,
        format!(
            "Invalid params: {message}; every request of protocol 2026-07-28 carries `_meta` with \
             \"{PROTOCOL_VERSION}\" (a string) and \"{CLIENT_CAPABILITIES}\" (an object)"
        ),
    )
}

/// -32022 for a request that asked for `requested`.
pub(crate) fn unsupported_version(requested: &str) -> ErrorObject {
    ErrorObject::new(
        UNSUPPORTED_PROTOCOL_VERSION,
        format!(
            "Unsupported protocol version {requested:?}: without `initialize`, this server speaks {}",
            ProtocolVersion::MODERN
        ),
    )
    .with_data(json!({ "supported": supported_versions(), "requested": requested }))
}

/// The fields of a request's `_meta` this era defines, unparsed.
#[derive(Deserialize)]
struct Declared<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    version: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow, default)]
    capabilities: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", borrow, default)]
    info: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/logLevel", borrow, default)]
    log_level: Option<&'a RawValue>,
}

/// `clientInfo`, as far as the server reads it.
#[derive(Deserialize, Default)]
struct Info {
    #[serde(default)]
    name: String,
    #[serde(default)]
    version: String,
}

/// Reads and checks the `_meta` of a request of this era (see
/// [`meta_of`]), before its method is looked at. Only the fields this era
/// defines are read, each once.
pub(crate) fn read_meta(meta: Option<&RawValue>) -> Result<RequestMeta, ErrorObject> {
    let Some(declared) = declared(meta) else {
        return Err(invalid("`_meta` is missing or not an object"));
    };
    let version = declared
        .version
        .and_then(|raw| serde_json::from_str::<std::borrow::Cow<'_, str>>(raw.get()).ok());
    let Some(version) = version else {
        return Err(invalid(&format!("`_meta` has no \"{PROTOCOL_VERSION}\"")));
    };
    let capabilities = match declared.capabilities.map(RawValue::get) {
        Some("{}") => Value::Object(Map::new()),
        Some(text) if text.starts_with('{') => serde_json::from_str(text).unwrap_or_default(),
        _ => {
            return Err(invalid(&format!(
                "`_meta` has no \"{CLIENT_CAPABILITIES}\""
            )));
        }
    };
    if ProtocolVersion::parse(&version) != Some(ProtocolVersion::MODERN) {
        return Err(unsupported_version(&version));
    }
    let info: Info = declared
        .info
        .and_then(|raw| serde_json::from_str(raw.get()).ok())
        .unwrap_or_default();
    let log_level = match declared.log_level.map(RawValue::get) {
        None | Some("null") => None,
        Some(level) => Some(
            serde_json::from_str::<std::borrow::Cow<'_, str>>(level)
                .ok()
                .and_then(|name| LogLevel::parse(&name))
                .ok_or_else(|| {
                    ErrorObject::new(
                        INVALID_PARAMS,
                        format!(
                            "Invalid params: unknown \"{LOG_LEVEL}\" {level}; expected one of \
                             debug, info, notice, warning, error, critical, alert, emergency"
                        ),
                    )
                })?,
        ),
    };
    Ok(RequestMeta {
        client: ClientInfo {
            name: info.name,
            version: info.version,
            capabilities,
        },
        log_level,
    })
}

/// The session one request of this era is served in: its client as its
/// `_meta` describes it, and logs only at the level it asked for.
pub(crate) fn session_for(
    core: &ServerCore,
    meta: RequestMeta,
    round: Option<Arc<Round>>,
) -> Arc<SessionShared> {
    let mut session = SessionShared::new(
        Arc::clone(&core.state),
        ProtocolVersion::MODERN,
        meta.client,
    )
    .with_ask_timeout(core.limits.client_request_timeout);
    session.round = round;
    let level = meta.log_level.map_or(LogLevel::SILENT, |level| level as u8);
    session.log_level.store(level, Ordering::Relaxed);
    Arc::new(session)
}

impl Connection {
    /// Serves a request of the 2026-07-28 era: checks its `_meta`, answers
    /// `server/discover` itself, refuses the methods this era removed,
    /// opens `subscriptions/listen`, and routes the rest by method as every
    /// era does (`route`), in a session made for the request alone.
    pub(super) async fn handle_modern(
        &mut self,
        request: Request<'_, '_>,
        frame: &mut Frame<'_>,
    ) -> Result<Answer, ErrorObject> {
        let meta = read_meta(meta_of(&request))?;
        let method = request.method;
        if method == "server/discover" {
            let discover = self.core.tails().discover();
            let id = frame.id;
            frame
                .reply
                .write(|reply| jsonrpc::write_result(reply, id, &discover));
            return Ok(Answer::Written);
        }
        if removed(method) || !self.core.served.serves(method) {
            return Err(method_not_found(method));
        }
        super::task_calls::modern_gate(&self.core, method, &meta.client.capabilities)?;
        if method == "subscriptions/listen" {
            return self.listen(frame.id, request.params, frame.out);
        }
        let round = self.round_of(&request)?.map(Arc::new);
        let session = session_for(&self.core, meta, round);
        let legacy = self.session.replace(session);
        let answer = self.route(request, frame).await;
        self.session = legacy;
        answer
    }

    /// The round of a request that may ask (`tools/call`, `prompts/get`,
    /// `resources/read`); `None` for the others, and for a `tools/call`
    /// whose params are refused anyway.
    fn round_of(&self, request: &Request<'_, '_>) -> Result<Option<Round>, ErrorObject> {
        let caller = self.identity.as_deref().map(crate::auth::Identity::subject);
        let keys = &self.core.limits.state_keys;
        if let (Some(Ok(call)), "tools/call") = (&request.call, request.method) {
            let asked = Asked {
                method: request.method,
                name: &call.name,
                arguments: &call.arguments,
                input_responses: call.input_responses,
                request_state: call.request_state,
                caller,
            };
            return Round::of(&asked, keys).map(Some);
        }
        let name_key = match request.method {
            "tools/call" | "prompts/get" => "name",
            "resources/read" => "uri",
            _ => return Ok(None),
        };
        let Some(Ok(Value::Object(params))) = request
            .params
            .map(|raw| serde_json::from_str::<Value>(raw.get()))
        else {
            return Ok(None);
        };
        let raw = |key: &str| {
            params
                .get(key)
                .and_then(|value| RawValue::from_string(value.to_string()).ok())
        };
        let (responses, state) = (raw("inputResponses"), raw("requestState"));
        let asked = Asked {
            method: request.method,
            name: params
                .get(name_key)
                .and_then(Value::as_str)
                .unwrap_or_default(),
            arguments: params.get("arguments").unwrap_or(&Value::Null),
            input_responses: responses.as_deref(),
            request_state: state.as_deref(),
            caller,
        };
        Round::of(&asked, keys).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn a_request_is_modern_by_its_meta_or_its_method() {
        assert!(claims_modern("server/discover", None));
        let meta = raw(r#"{"io.modelcontextprotocol/protocolVersion":"x"}"#);
        assert!(claims_modern("tools/list", Some(&meta)));
        let legacy = raw(r#"{"progressToken":1,"x":"io.modelcontextprotocol/protocolVersion"}"#);
        assert!(!claims_modern("tools/call", Some(&legacy)));
        assert!(!claims_modern("tools/list", None));
    }

    #[test]
    fn meta_is_checked_in_the_order_the_specification_gives() {
        let meta = |text: &str| {
            let params: Value = serde_json::from_str(text).unwrap();
            params.get("_meta").map(|m| raw(&m.to_string()))
        };
        let code = |text: &str| read_meta(meta(text).as_deref()).err().map(|e| e.code);
        assert_eq!(code("{}"), Some(-32602));
        assert_eq!(
            code(r#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}"#),
            Some(-32602)
        );
        // Missing fields come before an unknown version.
        assert_eq!(
            code(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9"}}"#),
            Some(-32602)
        );
        let unknown = read_meta(meta(
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9","io.modelcontextprotocol/clientCapabilities":{}}}"#,
        ).as_deref())
        .err()
        .unwrap();
        assert_eq!(unknown.code, -32022);
        let data = unknown.data.unwrap();
        assert_eq!(data["requested"], "v9");
        assert_eq!(data["supported"][0], "2026-07-28");
        assert_eq!(
            code(
                r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}"#
            ),
            Some(-32602)
        );
        let fine = read_meta(meta(
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/logLevel":"debug"}}"#,
        ).as_deref())
        .ok()
        .unwrap();
        assert_eq!(fine.log_level, Some(LogLevel::Debug));
        assert_eq!(fine.client.capabilities, json!({"sampling": {}}));
    }

    #[test]
    fn a_missing_capability_is_named_as_an_object() {
        let error = ErrorObject::missing_capability("sampling.tools");
        assert_eq!(error.code, -32021);
        assert_eq!(
            error.data.unwrap(),
            json!({"requiredCapabilities": {"sampling": {"tools": {}}}})
        );
    }
}
