//! Telemetry: every request a connection serves is a `tracing` span named
//! and described after the OpenTelemetry semantic conventions for MCP
//! (`docs/gen-ai/mcp.md` of the conventions), and so is every session, for
//! its duration.
//!
//! A request's span is named `{mcp.method.name} {target}` (`tools/call
//! get_weather`, `prompts/get review`, `ping`), is of kind `server`, and
//! carries `mcp.method.name`, `jsonrpc.request.id`, `mcp.protocol.version`,
//! `mcp.session.id` (HTTP), `network.transport` (`pipe` on stdio, `tcp`
//! over HTTP, with `network.protocol.name` `http`), `gen_ai.tool.name` and
//! `gen_ai.operation.name` (`execute_tool`) for a tool call,
//! `gen_ai.prompt.name`, `mcp.resource.uri`; when it fails, `error.type`
//! (the JSON-RPC error code, `tool_error` for a tool's result with
//! `isError`, `cancelled` for a call cancelled before it answered),
//! `rpc.response.status_code` (a JSON-RPC error code) and an error status.
//! It ends when the answer is written: a call that has to wait keeps it
//! open from its task. A tool, prompt or resource is named only when the
//! server has it, so a client cannot make up names (span names and metric
//! attributes stay few).
//!
//! The spans are `DEBUG` spans of their own targets, `mcp_runtime::request`
//! and `mcp_runtime::session`: with no subscriber interested in them, a
//! request pays the `is_disabled` check it always did, and nothing here
//! runs. The `otel` feature's `otel` module exports them over OTLP, the
//! requests as traces and both as the `mcp.server.operation.duration` and
//! `mcp.server.session.duration` histograms.

#[cfg(feature = "otel")]
mod metrics;
#[cfg(feature = "otel")]
pub mod otel;
#[cfg(feature = "stderr-log")]
pub(crate) mod stderr;

use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt;

use serde::Deserialize;
use serde_json::value::RawValue;
use tracing::field::{self, Empty};
use tracing::{Level, Span};

use crate::context::SessionShared;
use crate::dispatch::ServerCore;
use crate::jsonrpc::call_params::Checked;
use crate::jsonrpc::{ErrorObject, RequestId};
use crate::protocol::version::ProtocolVersion;
use crate::tools::def::Outcome;

/// The target of the request spans.
pub(crate) const REQUEST_TARGET: &str = "mcp_runtime::request";
/// The target of the session spans (never exported as traces: only their
/// duration is, as a metric).
pub(crate) const SESSION_TARGET: &str = "mcp_runtime::session";

/// Where a connection's messages come from.
#[derive(Clone, Copy)]
pub(crate) struct Peer<'a> {
    /// The session `initialize` started, once it did.
    pub(crate) session: Option<&'a SessionShared>,
    /// The HTTP session id (`Mcp-Session-Id`).
    pub(crate) session_id: Option<&'a str>,
    /// Whether the messages come over HTTP (else: stdio, or in-process).
    pub(crate) http: bool,
}

/// `network.transport`: TCP under HTTP, a pipe for stdio.
fn transport(http: bool) -> &'static str {
    if http { "tcp" } else { "pipe" }
}

/// `network.protocol.name`, over HTTP.
fn protocol_name(http: bool) -> Option<&'static str> {
    http.then_some("http")
}

/// The span of one request (or notification, without an `id`), a child
/// of the current span (or of the remote parent its
/// `params._meta.traceparent` names, with the `otel` feature). Nothing is
/// looked at unless the span is enabled.
pub(crate) fn request_span(
    core: &ServerCore,
    method: &str,
    id: Option<&RequestId>,
    params: Option<&RawValue>,
    call: Option<&Checked<'_>>,
    peer: Peer<'_>,
) -> Span {
    // The field values are evaluated only when the span is enabled.
    let about = OnceCell::new();
    let about = || about.get_or_init(|| About::of(core, method, params, call));
    let span = tracing::debug_span!(
        target: REQUEST_TARGET,
        "request",
        otel.name = %SpanName(method, about().target()),
        otel.kind = "server",
        otel.status_code = Empty,
        otel.status_description = Empty,
        mcp.method.name = method,
        jsonrpc.request.id = id.map(|id| field::display(IdText(id))),
        mcp.protocol.version = peer.session.map(|s| s.version.as_str()),
        mcp.session.id = peer.session_id,
        network.transport = transport(peer.http),
        network.protocol.name = protocol_name(peer.http),
        gen_ai.operation.name = about().operation,
        gen_ai.tool.name = about().tool.as_deref(),
        gen_ai.prompt.name = about().prompt.as_deref(),
        mcp.resource.uri = about().uri.as_deref(),
        error.type = Empty,
        rpc.response.status_code = Empty,
    );
    #[cfg(feature = "otel")]
    if !span.is_disabled() {
        otel::adopt_parent(&span, about().meta);
    }
    span
}

/// The span of a session, from `initialize` until the connection is
/// dropped; only its duration is exported. A root: as a child it would keep
/// the `initialize` request's span open as long as the session.
pub(crate) fn session_span(version: ProtocolVersion, http: bool) -> Span {
    tracing::debug_span!(
        target: SESSION_TARGET,
        parent: None,
        "session",
        mcp.protocol.version = version.as_str(),
        network.transport = transport(http),
        network.protocol.name = protocol_name(http),
    )
}

/// The request of `span` was answered with a result (`initialize`: the
/// version it negotiated is the session's now).
pub(crate) fn answered(
    span: &Span,
    method: &str,
    session: Option<&SessionShared>,
    elapsed_us: u64,
) {
    if method == "initialize"
        && let Some(session) = session
    {
        span.record("mcp.protocol.version", session.version.as_str());
    }
    span.in_scope(|| tracing::debug!(elapsed_us, outcome = "ok", "answered"));
}

/// The request of `span` was answered with `error`.
pub(crate) fn failed(span: &Span, error: &ErrorObject, elapsed_us: u64) {
    mark(span, Failure::Rpc(error));
    span.in_scope(|| {
        tracing::debug!(
            elapsed_us,
            outcome = "error",
            code = error.code,
            message = %error.message,
            "answered"
        )
    });
}

/// How a request failed.
pub(crate) enum Failure<'a> {
    /// A JSON-RPC error.
    Rpc(&'a ErrorObject),
    /// A tool's result with `isError`.
    Tool,
    /// Cancelled before it answered.
    Cancelled,
}

/// What a call answers, seen from telemetry.
pub(crate) trait Answered {
    /// How it failed, if it did.
    fn failure(&self) -> Option<Failure<'_>>;
}

impl Answered for Outcome {
    fn failure(&self) -> Option<Failure<'_>> {
        self.is_error().then_some(Failure::Tool)
    }
}

/// The answer of a request that is not `tools/call`.
impl Answered for Result<Box<RawValue>, ErrorObject> {
    fn failure(&self) -> Option<Failure<'_>> {
        self.as_ref().err().map(Failure::Rpc)
    }
}

/// The answer of a request served through the layers of `Server::layer`.
impl Answered for Result<serde_json::Value, ErrorObject> {
    fn failure(&self) -> Option<Failure<'_>> {
        self.as_ref().err().map(Failure::Rpc)
    }
}

fn mark(span: &Span, failure: Failure<'_>) {
    match failure {
        Failure::Rpc(error) => {
            // Strings, as the conventions have them.
            span.record("error.type", field::display(error.code));
            span.record("rpc.response.status_code", field::display(error.code));
            // The status, with the message as its description.
            span.record("otel.status_description", error.message.as_str());
        }
        Failure::Tool => {
            span.record("error.type", "tool_error");
            span.record("otel.status_code", "error");
        }
        Failure::Cancelled => {
            span.record("error.type", "cancelled");
            span.record("otel.status_code", "error");
        }
    }
}

fn is_request(span: &Span) -> bool {
    span.metadata()
        .is_some_and(|m| m.target() == REQUEST_TARGET && m.name() == "request")
}

/// The span of the request being served, if it is enabled: a call that
/// completes at once, or that becomes a task (which then keeps the span
/// open until it answers), is dispatched inside it.
pub(crate) fn current_request() -> Span {
    if !tracing::level_enabled!(Level::DEBUG) {
        return Span::none();
    }
    let span = Span::current();
    if is_request(&span) {
        span
    } else {
        Span::none()
    }
}

/// Records on the current request's span how a call that completed at once
/// failed, if it did (its answer was written as a result).
pub(crate) fn completed<R: Answered>(result: &R) {
    if !tracing::level_enabled!(Level::DEBUG) {
        return;
    }
    if let Some(failure) = result.failure() {
        let span = Span::current();
        if is_request(&span) {
            mark(&span, failure);
        }
    }
}

/// A call running as a task, until it answers: dropped before (the task
/// was aborted: cancelled, or the session ended), its span says
/// `cancelled`.
pub(crate) struct Unanswered {
    span: Span,
    answered: bool,
}

impl Unanswered {
    pub(crate) fn new(span: &Span) -> Unanswered {
        Unanswered {
            span: span.clone(),
            answered: false,
        }
    }

    /// The call ended: with `result`, or cancelled when it is not `wanted`.
    pub(crate) fn ended<R: Answered>(mut self, wanted: bool, result: &R) {
        if !wanted {
            return;
        }
        self.answered = true;
        if let Some(failure) = result.failure() {
            mark(&self.span, failure);
        }
    }
}

impl Drop for Unanswered {
    fn drop(&mut self) {
        if !self.answered && !self.span.is_disabled() {
            mark(&self.span, Failure::Cancelled);
        }
    }
}

/// What a request is about: the tool, prompt or resource it names, when
/// the server has it.
#[derive(Default)]
struct About<'a> {
    operation: Option<&'static str>,
    tool: Option<Cow<'a, str>>,
    prompt: Option<Cow<'a, str>>,
    uri: Option<Cow<'a, str>>,
    /// `params._meta`, for the remote parent.
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    meta: Option<&'a RawValue>,
}

/// The members of `params` that name what a request is about.
#[derive(Deserialize, Default)]
struct Params<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uri: Option<Cow<'a, str>>,
    #[serde(rename = "ref", borrow, default)]
    reference: Option<Reference<'a>>,
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<&'a RawValue>,
}

/// `params.ref` of `completion/complete`.
#[derive(Deserialize)]
struct Reference<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
}

impl<'a> About<'a> {
    fn of(
        core: &ServerCore,
        method: &str,
        params: Option<&'a RawValue>,
        call: Option<&'a Checked<'a>>,
    ) -> About<'a> {
        let parsed = || {
            params
                .and_then(|raw| serde_json::from_str::<Params<'a>>(raw.get()).ok())
                .unwrap_or_default()
        };
        // Loaded only for the methods that name something.
        let snapshot = || core.live.load();
        match method {
            "tools/call" => {
                let (name, meta) = match call {
                    Some(Ok(call)) => (Some(call.name.clone()), call.meta),
                    Some(Err(_)) => (None, None),
                    None => {
                        let params = parsed();
                        (params.name, params.meta)
                    }
                };
                let snapshot = snapshot();
                About {
                    operation: Some("execute_tool"),
                    tool: name.filter(|name| snapshot.registry.get(name).is_some()),
                    meta,
                    ..About::default()
                }
            }
            "prompts/get" => {
                let params = parsed();
                let snapshot = snapshot();
                About {
                    prompt: params
                        .name
                        .filter(|name| snapshot.registry.prompt(name).is_some()),
                    meta: params.meta,
                    ..About::default()
                }
            }
            "completion/complete" => {
                let params = parsed();
                let snapshot = snapshot();
                let prompt = params
                    .reference
                    .filter(|r| r.kind == "ref/prompt")
                    .and_then(|r| r.name)
                    .filter(|name| snapshot.registry.prompt(name).is_some());
                About {
                    prompt,
                    meta: params.meta,
                    ..About::default()
                }
            }
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                let params = parsed();
                let snapshot = snapshot();
                About {
                    uri: params
                        .uri
                        .filter(|uri| snapshot.registry.find_resource(uri).is_some()),
                    meta: params.meta,
                    ..About::default()
                }
            }
            _ => About {
                meta: parsed().meta,
                ..About::default()
            },
        }
    }

    /// The low-cardinality target of the span name.
    fn target(&self) -> Option<&str> {
        self.tool.as_deref().or(self.prompt.as_deref())
    }
}

/// `{mcp.method.name} {target}`, or the method alone.
struct SpanName<'a>(&'a str, Option<&'a str>);

impl fmt::Display for SpanName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(target) => write!(f, "{} {target}", self.0),
            None => f.write_str(self.0),
        }
    }
}

/// `jsonrpc.request.id`: the id as a string (a string id without its
/// quotes).
struct IdText<'a>(&'a RequestId);

impl fmt::Display for IdText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let json = self.0.as_json();
        match json.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            Some(plain) if !plain.contains('\\') => f.write_str(plain),
            Some(_) => match serde_json::from_str::<String>(json) {
                Ok(text) => f.write_str(&text),
                Err(_) => f.write_str(json),
            },
            None => f.write_str(json),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(json: &str) -> RequestId {
        RequestId::parse(&serde_json::from_str::<Box<RawValue>>(json).unwrap()).unwrap()
    }

    #[test]
    fn request_ids_are_written_as_strings() {
        assert_eq!(IdText(&id("7")).to_string(), "7");
        assert_eq!(IdText(&id("-3")).to_string(), "-3");
        assert_eq!(IdText(&id(r#""request-7""#)).to_string(), "request-7");
        assert_eq!(IdText(&id(r#""a\"b\u0041""#)).to_string(), "a\"bA");
    }

    #[test]
    fn span_names_have_a_target_when_there_is_one() {
        assert_eq!(
            SpanName("tools/call", Some("echo")).to_string(),
            "tools/call echo"
        );
        assert_eq!(SpanName("ping", None).to_string(), "ping");
    }
}
