//! One client connection: the lifecycle gate and routing by method.
//! Transports feed it lines and drain its [`Outbox`]; it never touches
//! stdin or stdout itself.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};
use tracing::Instrument;

use super::calls::Calls;
use super::core::ServerCore;
use super::incoming::{Incoming, lines_of, without_cr};
use super::live::Held;
use super::modern;
use super::reply::{Answer, Replies};
use super::resources::subscribe;
use crate::auth::Identity;
use crate::context::{ClientInfo, LogLevel, SessionShared};
use crate::jsonrpc::call_params;
use crate::jsonrpc::{
    self, ErrorObject, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, Line, METHOD_NOT_FOUND,
    Message, PARSE_ERROR, RequestId,
};
use crate::outbox::Outbox;
use crate::protocol::version::ProtocolVersion;
use crate::telemetry;

pub(crate) struct Connection {
    pub(super) core: Arc<ServerCore>,
    /// Where [`Connection::handle`] sends what it reads (stdio); a message
    /// dispatched with [`Connection::handle_parsed`] (HTTP) names its own.
    out: Outbox,
    /// Set by `initialize`.
    pub(super) session: Option<Arc<SessionShared>>,
    pub(super) calls: Calls,
    /// What is served, as this connection last saw it.
    pub(super) held: Held,
    /// Who sent the message being dispatched, when the transport
    /// authenticated it (HTTP with auth); set before each dispatch.
    pub(super) identity: Option<Arc<Identity>>,
    /// The HTTP session this connection serves, for middleware and
    /// telemetry.
    pub(super) session_id: Option<Arc<str>>,
    /// The extensions of the HTTP request being dispatched, for middleware
    /// (empty elsewhere); set before each dispatch.
    pub(super) extensions: http::Extensions,
    /// Whether messages come over HTTP (`handle_parsed`), for telemetry.
    http: bool,
    /// Every request is of the 2026-07-28 era (an HTTP request whose
    /// headers said so), whatever its `_meta` claims.
    pub(super) modern_only: bool,
    /// The 2026-07-28 subscriptions this connection's listen requests
    /// opened: they last as long as it does.
    pub(super) listens: super::listen::Listens,
    /// The session's span, from `initialize` until the connection is dropped.
    session_span: tracing::Span,
}

/// Serves `connection` until `incoming` ends (EOF) or the output closes.
/// On EOF, calls in flight get the grace period to finish and answer.
pub(crate) async fn serve(
    mut connection: Connection,
    mut incoming: mpsc::Receiver<Incoming<'static>>,
) {
    while let Some(message) = incoming.recv().await {
        if !connection.handle(message).await {
            return;
        }
    }
    connection.finish().await;
}

impl Connection {
    pub(crate) fn new(core: Arc<ServerCore>, out: Outbox) -> Connection {
        let calls = Calls::new(&core.limits);
        Connection {
            held: core.live.hold(),
            core,
            out,
            session: None,
            calls,
            identity: None,
            session_id: None,
            extensions: http::Extensions::new(),
            http: false,
            modern_only: false,
            listens: Vec::new(),
            session_span: tracing::Span::none(),
        }
    }

    /// Handles one piece of input; its replies, and whatever calls report
    /// meanwhile, go out together when it is done. Waits while the client
    /// is not reading its output. Returns `false` once the output is
    /// closed: the calls in flight were dropped and the connection is over.
    pub(crate) async fn handle(&mut self, message: Incoming<'_>) -> bool {
        let out = self.out.clone();
        out.hold();
        match message {
            Incoming::Line(line) => self.handle_line(&line, &out).await,
            Incoming::Lines(block) => {
                for line in lines_of(&block) {
                    self.handle_line(line, &out).await;
                }
            }
            Incoming::TooLarge => self.too_large(&out),
        }
        out.release();
        out.wait_for_room().await;
        self.calls.reap();
        if out.is_closed() {
            tracing::debug!("output closed; stopping");
            self.calls.abort_all();
            return false;
        }
        true
    }

    /// The input ended: calls in flight get the grace period to finish and
    /// answer, then are dropped.
    pub(crate) async fn finish(mut self) {
        self.end_listens();
        self.calls.finish(self.core.limits.shutdown_grace).await;
    }

    fn too_large(&self, out: &Outbox) {
        let max_message_bytes = self.core.limits.max_message_bytes;
        out.write_with(|reply| {
            jsonrpc::write_error(reply, None, &ErrorObject::too_large(max_message_bytes));
        });
    }

    async fn handle_line(&mut self, line: &[u8], out: &Outbox) {
        // The limit holds whatever the transport (stdio skips lines that
        // outgrow it before they end, but one can arrive whole in a block;
        // the in-process TestClient does not check at all).
        if line.len() > self.core.limits.max_message_bytes {
            return self.too_large(out);
        }
        self.dispatch(jsonrpc::parse_line(without_cr(line)), line.len(), out)
            .await;
        // A client that sends faster than it reads: reading pauses until
        // it catches up, so a block of small requests with large replies
        // cannot pile up in memory.
        if out.is_full() {
            out.released_while(out.wait_for_room()).await;
        }
    }

    /// Serves one parsed message body (HTTP): replies, and everything the
    /// calls it starts report, go to `out` instead of the connection's
    /// output. Returns once the body is dispatched; calls that have to wait
    /// answer later, from their tasks.
    #[cfg(feature = "http")]
    pub(crate) async fn handle_parsed(&mut self, line: Line<'_>, size: usize, out: &Outbox) {
        self.http = true;
        out.hold();
        self.dispatch(line, size, out).await;
        out.release();
        self.calls.reap();
    }

    /// Who sends the messages dispatched from now on (each HTTP request
    /// carries its own token).
    pub(crate) fn set_identity(&mut self, identity: Option<Arc<Identity>>) {
        self.identity = identity;
    }

    /// The HTTP session this connection serves (its spans say so).
    #[cfg(feature = "http")]
    pub(crate) fn set_session_id(&mut self, id: Arc<str>) {
        self.session_id = Some(id);
    }

    /// The extensions of the HTTP request whose messages are dispatched
    /// from now on, for the layers of [`Server::layer`](crate::Server::layer)
    /// to read. Kept only when the server has layers: moving them here costs
    /// nothing, copying them would.
    #[cfg(feature = "http")]
    pub(crate) fn set_extensions(&mut self, extensions: http::Extensions) {
        if self.core.service.is_some() {
            self.extensions = extensions;
        }
    }

    /// The version negotiated by `initialize`, once it is done.
    #[cfg(feature = "http")]
    pub(crate) fn version(&self) -> Option<ProtocolVersion> {
        self.session.as_ref().map(|s| s.version)
    }

    /// Serves as if `initialize` had negotiated `version` with an unnamed
    /// client: a stateless HTTP request stands alone.
    #[cfg(feature = "http")]
    pub(crate) fn assume_initialized(&mut self, version: ProtocolVersion) {
        self.session = Some(Arc::new(
            SessionShared::new(Arc::clone(&self.core.state), version, ClientInfo::default())
                .with_ask_timeout(self.core.limits.client_request_timeout)
                .one_way(),
        ));
    }

    /// Serves every request in the 2026-07-28 era (an HTTP request whose
    /// headers said so), whatever its `_meta` claims.
    #[cfg(feature = "http")]
    pub(crate) fn serve_modern(&mut self) {
        self.modern_only = true;
    }

    /// Cancels every call in flight (the session ended).
    #[cfg(feature = "http")]
    pub(crate) fn abort_all(&mut self) {
        self.calls.abort_all();
    }

    /// Waits up to `grace` for the calls in flight to answer, then drops
    /// the rest (shutdown).
    #[cfg(feature = "http")]
    pub(crate) async fn drain(&mut self, grace: std::time::Duration) {
        self.calls.finish(grace).await;
    }

    async fn dispatch(&mut self, line: Line<'_>, size: usize, out: &Outbox) {
        match line {
            Line::Blank => {}
            Line::ParseError => out.write_with(|reply| {
                jsonrpc::write_error(
                    reply,
                    None,
                    &ErrorObject::new(PARSE_ERROR, "Parse error: the message is not valid JSON"),
                );
            }),
            Line::Single(message) => {
                self.handle_message(message, size, out, &mut None, &mut Replies::Out(out))
                    .await;
            }
            Line::Batch(items) => self.handle_batch(items, out).await,
        }
    }

    /// Handles one message of `size` bytes; writes its reply to `reply` and
    /// returns `true` when there is one to send now. A call that has to
    /// wait replies from its task, to the batch when `batch_slot` holds a
    /// sender (which it then takes).
    pub(super) async fn handle_message(
        &mut self,
        message: Message<'_>,
        size: usize,
        out: &Outbox,
        batch_slot: &mut Option<oneshot::Sender<Option<Vec<u8>>>>,
        reply: &mut Replies<'_>,
    ) -> bool {
        match message {
            Message::Response { id, result, error } => {
                // The client's answer to a request of ours.
                let routed = self
                    .session
                    .as_ref()
                    .is_some_and(|session| session.asks.answer(id.as_ref(), result, error));
                if !routed {
                    tracing::debug!(
                        id = id.as_ref().map(RequestId::as_json),
                        "ignored a response that answers no request of ours"
                    );
                }
                false
            }
            Message::Invalid { id, reason } => {
                reply.write(|reply| {
                    jsonrpc::write_error(
                        reply,
                        id.as_ref(),
                        &ErrorObject::new(INVALID_REQUEST, format!("Invalid request: {reason}")),
                    );
                });
                true
            }
            Message::Notification { method, params } => {
                let peer = self.peer();
                let span = telemetry::request_span(&self.core, &method, None, params, None, peer);
                span.in_scope(|| self.handle_notification(&method, params));
                false
            }
            Message::Request {
                id,
                method,
                params,
                call,
            } => {
                let peer = self.peer();
                let span = telemetry::request_span(
                    &self.core,
                    &method,
                    Some(&id),
                    params,
                    call.as_ref(),
                    peer,
                );
                let started = (!span.is_disabled()).then(Instant::now);
                let request = Request {
                    id: &id,
                    method: &method,
                    params,
                    call,
                    size,
                };
                let handling = self.handle_request(request, out, batch_slot, reply);
                // Wrapping moves the whole future: only when it is logged.
                let outcome = if started.is_some() {
                    handling.instrument(span.clone()).await
                } else {
                    handling.await
                };
                let elapsed_us = || started.map_or(0, |s| s.elapsed().as_micros() as u64);
                match outcome {
                    Ok(Answer::Written) => {
                        if started.is_some() {
                            let session = self.session.as_deref();
                            telemetry::answered(&span, &method, session, elapsed_us());
                        }
                        true
                    }
                    Ok(Answer::Later) => false,
                    Err(error) => {
                        if started.is_some() {
                            telemetry::failed(&span, &error, elapsed_us());
                        }
                        reply.write(|reply| jsonrpc::write_error(reply, Some(&id), &error));
                        true
                    }
                }
            }
        }
    }

    /// Where the messages come from, for their spans.
    fn peer(&self) -> telemetry::Peer<'_> {
        telemetry::Peer {
            session: self.session.as_deref(),
            session_id: self.session_id.as_deref(),
            http: self.http,
        }
    }

    async fn handle_request(
        &mut self,
        request: Request<'_, '_>,
        out: &Outbox,
        batch_slot: &mut Option<oneshot::Sender<Option<Vec<u8>>>>,
        reply: &mut Replies<'_>,
    ) -> Result<Answer, ErrorObject> {
        // A legacy session stays legacy; without one, a request may be of
        // the 2026-07-28 era.
        let modern = self.modern_only
            || (self.session.is_none()
                && modern::claims_modern(request.method, modern::meta_of(&request)));
        if modern {
            return Box::pin(self.handle_modern(request, out, batch_slot, reply)).await;
        }
        self.route(request, out, batch_slot, reply).await
    }

    /// Serves a request past the era's gate: `self.session` is the
    /// request's session (the connection's, or one made for a 2026-07-28
    /// request alone).
    pub(super) async fn route(
        &mut self,
        request: Request<'_, '_>,
        out: &Outbox,
        batch_slot: &mut Option<oneshot::Sender<Option<Vec<u8>>>>,
        reply: &mut Replies<'_>,
    ) -> Result<Answer, ErrorObject> {
        if self.core.service.is_some() {
            // Boxed: the layered path's state stays out of every request's
            // future.
            return Box::pin(self.handle_layered(request, out, batch_slot, reply)).await;
        }
        let Request {
            id,
            method,
            params,
            call,
            size,
        } = request;
        let write = |reply: &mut Replies<'_>, result: &RawValue| {
            reply.write(|reply| jsonrpc::write_result(reply, id, &result));
            Ok(Answer::Written)
        };
        match method {
            "server/discover" => return Err(discover_refused()),
            "initialize" => return write(reply, &self.initialize(params)?),
            "ping" => return write(reply, &raw("{}")),
            _ => {}
        }
        let Some(session) = self.session.clone() else {
            return Err(not_initialized());
        };
        if !self.core.served.serves(method) {
            return Err(method_not_found(method));
        }
        // The calls other than `tools/call` are awaited boxed: inline, their
        // state would make every request's future larger, and `tools/call`
        // pay to move it.
        match method {
            "tools/call" => {
                let params = call
                    .unwrap_or_else(|| call_params::parse(params))
                    .map_err(|error| *error)?;
                let snapshot = self.core.live.refresh(&mut self.held);
                self.calls
                    .start(
                        &self.core,
                        snapshot,
                        out,
                        id,
                        params,
                        session,
                        self.identity.as_ref(),
                        size,
                        batch_slot,
                        reply,
                    )
                    .await
            }
            "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" => {
                let params = params_object(params)?;
                let snapshot = self.core.live.refresh(&mut self.held);
                let cursor = params.get("cursor");
                let version = session.version;
                let caller = self.identity.as_ref();
                let permitted = self.core.limits.list_only_permitted && caller.is_some();
                let page = match caller.filter(|_| permitted) {
                    Some(caller) => {
                        Cow::Owned(snapshot.permitted_page(method, cursor, version, caller)?)
                    }
                    None => Cow::Borrowed(snapshot.page(method, cursor, version)?),
                };
                let tail = version
                    .is_modern()
                    .then(|| self.core.tails().of(method, permitted));
                reply.write(|reply| {
                    let start = reply.len();
                    jsonrpc::write_result(reply, id, &page);
                    if let Some(tail) = tail {
                        modern::finish(reply, start, id, tail);
                    }
                });
                Ok(Answer::Written)
            }
            "resources/read" => {
                let params = params_object(params)?;
                Box::pin(self.read_resource(params, session, out, id, size, batch_slot, reply))
                    .await
            }
            "resources/subscribe" | "resources/unsubscribe" => {
                let params = params_object(params)?;
                let snapshot = self.core.live.refresh(&mut self.held);
                subscribe(&snapshot.registry, &params, &session, method)?;
                write(reply, &raw("{}"))
            }
            "prompts/get" => {
                let params = params_object(params)?;
                Box::pin(self.get_prompt(params, session, out, id, size, batch_slot, reply)).await
            }
            "completion/complete" => {
                let params = params_object(params)?;
                Box::pin(self.complete(params, session, out, id, size, batch_slot, reply)).await
            }
            "logging/setLevel" => {
                set_level(&params_object(params)?, &session)?;
                write(reply, &raw("{}"))
            }
            _ => Err(method_not_found(method)),
        }
    }

    fn initialize(&mut self, params: Option<&RawValue>) -> Result<Box<RawValue>, ErrorObject> {
        let negotiated = self.negotiate(params)?;
        let result = serde_json::value::to_raw_value(&negotiated.result)
            .map_err(|_| ErrorObject::new(INTERNAL_ERROR, "internal error"))?;
        self.commit(negotiated);
        Ok(result)
    }

    /// What `initialize` with `params` agrees on, and its result; the
    /// session starts only when it is [committed](Connection::commit).
    pub(super) fn negotiate(&self, params: Option<&RawValue>) -> Result<Negotiated, ErrorObject> {
        if self.session.is_some() {
            return Err(ErrorObject::new(
                INVALID_REQUEST,
                "already initialized: initialize may be sent only once per connection",
            ));
        }
        let params = params_object(params)?;
        let Some(requested) = params.get("protocolVersion").and_then(Value::as_str) else {
            return Err(ErrorObject::new(
                INVALID_PARAMS,
                "initialize needs `protocolVersion`, a string such as \"2025-06-18\"",
            ));
        };
        let version = ProtocolVersion::parse_legacy(requested).unwrap_or(ProtocolVersion::LATEST);
        let client_info = params.get("clientInfo");
        let text = |key: &str| {
            client_info
                .and_then(|c| c.get(key))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let client = ClientInfo {
            name: text("name"),
            version: text("version"),
            capabilities: params
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| json!({})),
        };
        let session = Arc::new(
            SessionShared::new(Arc::clone(&self.core.state), version, client)
                .with_ask_timeout(self.core.limits.client_request_timeout),
        );
        let mut result = json!({
            "protocolVersion": version.as_str(),
            "capabilities": self.core.served.capabilities(version),
            "serverInfo": self.core.info.for_version(version),
        });
        if let Some(instructions) = &self.core.instructions {
            result["instructions"] = Value::String(instructions.clone());
        }
        Ok(Negotiated {
            session,
            requested: requested.to_owned(),
            result,
        })
    }

    /// Starts the session `initialize` negotiated.
    pub(super) fn commit(&mut self, negotiated: Negotiated) {
        let Negotiated {
            session, requested, ..
        } = negotiated;
        tracing::info!(
            client = %session.client.name,
            client_version = %session.client.version,
            requested = requested,
            negotiated = %session.version,
            "client initialized"
        );
        self.core.hub.register(&session, self.out.downgrade());
        let _ = session.notices.set(self.out.downgrade());
        self.session_span = telemetry::session_span(session.version, self.http);
        self.session = Some(session);
    }

    fn handle_notification(&mut self, method: &str, params: Option<&RawValue>) {
        match method {
            "notifications/cancelled" => {
                // The id as sent: parsed into a `Value`, an integer beyond
                // 64 bits would be rounded and could name another call.
                #[derive(serde::Deserialize)]
                struct Cancelled<'a> {
                    #[serde(rename = "requestId", borrow)]
                    request_id: &'a RawValue,
                }
                let Some(Ok(Cancelled { request_id })) =
                    params.map(|raw| serde_json::from_str::<Cancelled<'_>>(raw.get()))
                else {
                    return;
                };
                let key = jsonrpc::canonical_id(request_id.get());
                if self.calls.cancel(&key) {
                    tracing::debug!(request_id = %request_id, "call cancelled by the client");
                } else if self.unlisten(&key) {
                    tracing::debug!(request_id = %request_id, "subscription cancelled by the client");
                }
            }
            "notifications/initialized" => tracing::debug!("client sent notifications/initialized"),
            "notifications/roots/list_changed" => {
                // Asked again the next time a tool wants them.
                if let Some(session) = &self.session
                    && let Ok(mut roots) = session.roots.lock()
                {
                    *roots = None;
                }
            }
            other => tracing::trace!(method = other, "notification ignored"),
        }
    }
}

/// A request, as the router sees it.
pub(super) struct Request<'m, 'a> {
    pub(super) id: &'m RequestId,
    pub(super) method: &'m str,
    pub(super) params: Option<&'a RawValue>,
    pub(super) call: Option<call_params::Checked<'a>>,
    /// The length of the message it came in.
    pub(super) size: usize,
}

/// What `initialize` agreed on, before the session starts.
pub(super) struct Negotiated {
    pub(super) session: Arc<SessionShared>,
    /// The version the client asked for, for the log.
    requested: String,
    /// The result to answer with.
    pub(super) result: Value,
}

pub(super) fn discover_refused() -> ErrorObject {
    ErrorObject::new(
        METHOD_NOT_FOUND,
        "Method not found: server/discover (this server speaks the initialize-based protocol; send initialize)",
    )
    .with_data(json!({ "method": "server/discover" }))
}

pub(super) fn not_initialized() -> ErrorObject {
    ErrorObject::new(
        INVALID_REQUEST,
        "server not initialized: send initialize first",
    )
}

/// `logging/setLevel` of `session`.
pub(super) fn set_level(
    params: &Map<String, Value>,
    session: &SessionShared,
) -> Result<(), ErrorObject> {
    let name = params
        .get("level")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let level = LogLevel::parse(name).ok_or_else(|| {
        ErrorObject::new(
            INVALID_PARAMS,
            format!("unknown log level {name:?}; expected one of debug, info, notice, warning, error, critical, alert, emergency"),
        )
    })?;
    session.log_level.store(level as u8, Ordering::Relaxed);
    Ok(())
}

pub(super) fn method_not_found(method: &str) -> ErrorObject {
    ErrorObject::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
        .with_data(json!({ "method": method }))
}

pub(super) fn raw(json: &str) -> Box<RawValue> {
    RawValue::from_string(json.to_owned()).unwrap_or_default()
}

/// `params` as an object: absent is empty; anything but an object is -32602.
pub(super) fn params_object(params: Option<&RawValue>) -> Result<Map<String, Value>, ErrorObject> {
    match params {
        None => Ok(Map::new()),
        Some(raw) => match serde_json::from_str(raw.get()) {
            Ok(value) => object(value),
            Err(_) => Err(not_an_object()),
        },
    }
}

fn not_an_object() -> ErrorObject {
    ErrorObject::new(INVALID_PARAMS, "`params` must be an object")
}

/// `params` read already (or rewritten by a layer) as an object: `null` is
/// empty; anything but an object is -32602.
pub(super) fn object(params: Value) -> Result<Map<String, Value>, ErrorObject> {
    match params {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        _ => Err(not_an_object()),
    }
}
