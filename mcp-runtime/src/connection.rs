//! One client connection: the lifecycle gate, routing by method, in-flight
//! calls (bounded, cancellable), batches, and shutdown. Transports feed it
//! lines and drain its output; it never touches stdin or stdout itself.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::Poll;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio::task::{AbortHandle, JoinSet};
use tracing::Instrument;

use crate::context::{CallChannel, Cancellation, ClientInfo, Context, LogLevel, RequestScope};
use crate::jsonrpc::{
    self, ErrorObject, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, Line, METHOD_NOT_FOUND,
    Message, PARSE_ERROR, RequestId,
};
use crate::protocol::{self, ProtocolVersion};
use crate::registry::Registry;

/// What a transport hands the connection.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// One line, without its terminator.
    Line(Vec<u8>),
    /// A line longer than the limit; its bytes were skipped, not buffered.
    TooLarge,
}

/// Tunables of a server, set on the builder.
#[derive(Clone, Debug)]
pub(crate) struct Limits {
    pub(crate) max_in_flight: usize,
    pub(crate) max_message_bytes: usize,
    pub(crate) shutdown_grace: Duration,
    pub(crate) page_size: Option<usize>,
    pub(crate) default_timeout: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_in_flight: 1024,
            max_message_bytes: 16 * 1024 * 1024,
            shutdown_grace: Duration::from_secs(5),
            page_size: None,
            default_timeout: None,
        }
    }
}

/// Everything shared by the connections of one server, built once.
pub(crate) struct ServerCore {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) instructions: Option<String>,
    pub(crate) registry: Registry,
    /// `tools/list` results, serialized once: `[version][page]`.
    pages: Vec<Vec<Box<RawValue>>>,
    pub(crate) limits: Limits,
}

impl ServerCore {
    pub(crate) fn new(
        name: String,
        version: String,
        instructions: Option<String>,
        registry: Registry,
        limits: Limits,
    ) -> ServerCore {
        let page_size = limits.page_size.unwrap_or(usize::MAX).max(1);
        let pages = ProtocolVersion::ALL
            .iter()
            .map(|&version| {
                let tools = registry.tools();
                let chunks: Vec<_> = if tools.is_empty() {
                    vec![&tools[..0]]
                } else {
                    tools.chunks(page_size.min(tools.len())).collect()
                };
                let count = chunks.len();
                chunks
                    .into_iter()
                    .enumerate()
                    .map(|(i, chunk)| {
                        let tools: Vec<Value> = chunk
                            .iter()
                            .map(|tool| protocol::tool_json(tool, version))
                            .collect();
                        let mut page = json!({ "tools": tools });
                        if i + 1 < count {
                            page["nextCursor"] = Value::String(cursor(i + 1));
                        }
                        serde_json::value::to_raw_value(&page).unwrap_or_default()
                    })
                    .collect()
            })
            .collect();
        ServerCore {
            name,
            version,
            instructions,
            registry,
            pages,
            limits,
        }
    }
}

fn cursor(page: usize) -> String {
    format!("page-{page}")
}

fn parse_cursor(cursor: &str) -> Option<usize> {
    cursor.strip_prefix("page-")?.parse().ok()
}

/// The lifecycle state of one connection.
struct Session {
    version: OnceLock<ProtocolVersion>,
    client: OnceLock<Arc<ClientInfo>>,
    log_level: Arc<AtomicU8>,
}

struct InFlight {
    /// `None` while the call is being polled inline by the dispatcher.
    abort: Option<AbortHandle>,
    cancellation: Arc<Cancellation>,
}

/// Where the response to a call goes.
enum Route {
    /// Straight to the output.
    Direct,
    /// To the batch it belongs to (`None` when cancelled).
    Batch(oneshot::Sender<Option<Vec<u8>>>),
}

enum BatchPart {
    Ready(Vec<u8>),
    Pending(oneshot::Receiver<Option<Vec<u8>>>),
}

struct Connection {
    core: Arc<ServerCore>,
    out: mpsc::Sender<Vec<u8>>,
    session: Session,
    in_flight: Arc<Mutex<HashMap<String, InFlight>>>,
    permits: Arc<Semaphore>,
    tasks: JoinSet<()>,
}

/// Serves one connection until `incoming` ends (EOF) or the output closes.
/// On EOF, calls in flight get the grace period to finish and answer.
pub(crate) async fn serve(
    core: Arc<ServerCore>,
    mut incoming: mpsc::Receiver<Incoming>,
    out: mpsc::Sender<Vec<u8>>,
) {
    let permits = Arc::new(Semaphore::new(core.limits.max_in_flight.max(1)));
    let mut connection = Connection {
        core,
        out,
        session: Session {
            version: OnceLock::new(),
            client: OnceLock::new(),
            log_level: Arc::new(AtomicU8::new(LogLevel::Info as u8)),
        },
        in_flight: Arc::default(),
        permits,
        tasks: JoinSet::new(),
    };
    let max_message_bytes = connection.core.limits.max_message_bytes;
    while let Some(message) = incoming.recv().await {
        match message {
            // The limit holds whatever the transport (stdio skips such lines
            // before they get here; the in-process TestClient does not).
            Incoming::Line(line) if line.len() <= max_message_bytes => {
                connection.handle_line(&line).await
            }
            Incoming::Line(_) | Incoming::TooLarge => {
                connection
                    .send_error(
                        None,
                        ErrorObject::new(INVALID_REQUEST, "message too large")
                            .with_data(json!({ "limitBytes": max_message_bytes })),
                    )
                    .await;
            }
        }
        while connection.tasks.try_join_next().is_some() {}
        if connection.out.is_closed() {
            tracing::debug!("output closed; stopping");
            connection.tasks.abort_all();
            return;
        }
    }
    tracing::debug!(
        in_flight = connection.tasks.len(),
        "input ended; finishing calls in flight"
    );
    let grace = connection.core.limits.shutdown_grace;
    let drained = tokio::time::timeout(grace, async {
        while connection.tasks.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            abandoned = connection.tasks.len(),
            "calls still running after the shutdown grace period were abandoned"
        );
        connection.tasks.abort_all();
    }
}

impl Connection {
    async fn handle_line(&mut self, line: &[u8]) {
        match jsonrpc::parse_line(line) {
            Line::Blank => {}
            Line::ParseError => {
                self.send_error(
                    None,
                    ErrorObject::new(PARSE_ERROR, "Parse error: the message is not valid JSON"),
                )
                .await
            }
            Line::Single(message) => {
                if let Some(mut reply) = self.handle_message(message, &mut None).await {
                    reply.push(b'\n');
                    let _ = self.out.send(reply).await;
                }
            }
            Line::Batch(items) => self.handle_batch(items).await,
        }
    }

    async fn send_error(&self, id: Option<&RequestId>, error: ErrorObject) {
        let mut reply = error_bytes(id, error);
        reply.push(b'\n');
        let _ = self.out.send(reply).await;
    }

    /// Handles one message; returns the reply (without its newline) when
    /// there is one to send now. A call's reply is sent by its task, to the
    /// batch when `batch_slot` holds a sender (which it then takes).
    async fn handle_message(
        &mut self,
        message: Message<'_>,
        batch_slot: &mut Option<oneshot::Sender<Option<Vec<u8>>>>,
    ) -> Option<Vec<u8>> {
        match message {
            Message::Response => None,
            Message::Invalid { id, reason } => Some(error_bytes(
                id.as_ref(),
                ErrorObject::new(INVALID_REQUEST, format!("Invalid request: {reason}")),
            )),
            Message::Notification { method, params } => {
                self.handle_notification(&method, params);
                None
            }
            Message::Request { id, method, params } => {
                let span = tracing::debug_span!("request", %method, %id);
                let started = Instant::now();
                let outcome = self
                    .handle_request(&id, &method, params, batch_slot)
                    .instrument(span.clone())
                    .await;
                let elapsed_us = started.elapsed().as_micros() as u64;
                match outcome {
                    Ok(Some(result)) => {
                        span.in_scope(|| tracing::debug!(elapsed_us, outcome = "ok", "answered"));
                        let mut reply = Vec::new();
                        jsonrpc::write_result(&mut reply, &id, &result);
                        Some(reply)
                    }
                    // A call: its task reports when it ends.
                    Ok(None) => None,
                    Err(error) => {
                        span.in_scope(|| {
                            tracing::debug!(
                                elapsed_us,
                                outcome = "error",
                                code = error.code,
                                message = %error.message,
                                "answered"
                            )
                        });
                        Some(error_bytes(Some(&id), error))
                    }
                }
            }
        }
    }

    /// `Ok(None)`: the reply will come from a spawned call.
    async fn handle_request(
        &mut self,
        id: &RequestId,
        method: &str,
        params: Option<&RawValue>,
        batch_slot: &mut Option<oneshot::Sender<Option<Vec<u8>>>>,
    ) -> Result<Option<Box<RawValue>>, ErrorObject> {
        match method {
            "server/discover" => {
                return Err(ErrorObject::new(
                    METHOD_NOT_FOUND,
                    "Method not found: server/discover (this server speaks the initialize-based protocol; send initialize)",
                )
                .with_data(json!({ "method": method })));
            }
            "initialize" => return self.initialize(params).map(Some),
            "ping" => return Ok(Some(raw("{}"))),
            _ => {}
        }
        let Some(&version) = self.session.version.get() else {
            return Err(ErrorObject::new(
                INVALID_REQUEST,
                "server not initialized: send initialize first",
            ));
        };
        match method {
            "tools/list" => self.list_tools(params, version).map(Some),
            "tools/call" => self
                .call_tool(id, params, version, batch_slot)
                .await
                .map(|()| None),
            "logging/setLevel" => {
                let params = params_object(params)?;
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
                self.session.log_level.store(level as u8, Ordering::Relaxed);
                Ok(Some(raw("{}")))
            }
            _ => Err(
                ErrorObject::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
                    .with_data(json!({ "method": method })),
            ),
        }
    }

    fn initialize(&self, params: Option<&RawValue>) -> Result<Box<RawValue>, ErrorObject> {
        if self.session.version.get().is_some() {
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
        let version = ProtocolVersion::parse(requested).unwrap_or(ProtocolVersion::LATEST);
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
        tracing::info!(
            client = %client.name,
            client_version = %client.version,
            requested = requested,
            negotiated = %version,
            "client initialized"
        );
        let _ = self.session.client.set(Arc::new(client));
        let _ = self.session.version.set(version);
        let mut result = json!({
            "protocolVersion": version.as_str(),
            "capabilities": {
                "logging": {},
                "tools": { "listChanged": false }
            },
            "serverInfo": { "name": self.core.name, "version": self.core.version },
        });
        if let Some(instructions) = &self.core.instructions {
            result["instructions"] = Value::String(instructions.clone());
        }
        serde_json::value::to_raw_value(&result)
            .map_err(|_| ErrorObject::new(INTERNAL_ERROR, "internal error"))
    }

    fn list_tools(
        &self,
        params: Option<&RawValue>,
        version: ProtocolVersion,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let params = params_object(params)?;
        let pages = &self.core.pages[version.index()];
        let page = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => match parse_cursor(c) {
                Some(i) if i > 0 && i < pages.len() => i,
                _ => {
                    return Err(ErrorObject::new(
                        INVALID_PARAMS,
                        format!("Invalid cursor: {c:?}"),
                    ));
                }
            },
            Some(_) => {
                return Err(ErrorObject::new(
                    INVALID_PARAMS,
                    "`cursor` must be a string",
                ));
            }
        };
        Ok(pages[page].clone())
    }

    async fn call_tool(
        &mut self,
        id: &RequestId,
        params: Option<&RawValue>,
        version: ProtocolVersion,
        batch_slot: &mut Option<oneshot::Sender<Option<Vec<u8>>>>,
    ) -> Result<(), ErrorObject> {
        let mut params = params_object(params)?;
        let name = match params.get("name") {
            Some(Value::String(name)) => name.clone(),
            _ => {
                return Err(ErrorObject::new(
                    INVALID_PARAMS,
                    "tools/call needs `name`, the name of a tool (see tools/list)",
                ));
            }
        };
        let arguments = match params.remove("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(Value::Object(map)) => Value::Object(map),
            Some(_) => {
                return Err(ErrorObject::new(
                    INVALID_PARAMS,
                    "`arguments` must be an object",
                ));
            }
        };
        let Some(index) = self.core.registry.index_of(&name) else {
            return Err(ErrorObject::new(
                INVALID_PARAMS,
                format!("Unknown tool: {name}"),
            ));
        };
        let progress_token = params
            .get("_meta")
            .and_then(|meta| meta.get("progressToken"))
            .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
            .cloned();
        let key = id.key();
        if self.in_flight.lock().is_ok_and(|m| m.contains_key(&key)) {
            return Err(ErrorObject::new(
                INVALID_REQUEST,
                format!("request id {id} is already in use by a call in progress"),
            ));
        }
        // Backpressure: with every permit taken, reading stops here.
        let Ok(permit) = Arc::clone(&self.permits).acquire_owned().await else {
            return Err(ErrorObject::new(INTERNAL_ERROR, "internal error"));
        };
        let cancellation = Arc::new(Cancellation::default());
        let call = Arc::new(CallChannel::new(self.out.clone()));
        let client = self.session.client.get().cloned().unwrap_or_default();
        let scope = RequestScope {
            id: id.clone(),
            version,
            client,
            progress_token,
            cancellation: Arc::clone(&cancellation),
            call: Arc::clone(&call),
            log_level: Arc::clone(&self.session.log_level),
        };
        let core = Arc::clone(&self.core);
        let ctx = Context::for_request(&name, core.registry.state(), scope);
        let route = match batch_slot.take() {
            Some(sender) => Route::Batch(sender),
            None => Route::Direct,
        };
        let in_flight = Arc::clone(&self.in_flight);
        let out = self.out.clone();
        let id = id.clone();
        let task_key = key.clone();
        // A root span: the call outlives the dispatch span it was started under.
        let span =
            tracing::debug_span!(parent: None, "request", method = "tools/call", %id, tool = %name);
        let mut call_future = Box::pin(
            async move {
                let _permit = permit;
                let tool = &core.registry.tools()[index];
                let started = Instant::now();
                let result = tool.call(arguments, ctx, core.limits.default_timeout).await;
                let mut reply = Vec::new();
                jsonrpc::write_result(
                    &mut reply,
                    &id,
                    &protocol::ShapedCallResult {
                        result: &result,
                        version,
                    },
                );
                call.finish();
                let wanted = in_flight
                    .lock()
                    .is_ok_and(|mut m| m.remove(&task_key).is_some());
                let outcome = match (wanted, result.is_error) {
                    (false, _) => "cancelled",
                    (true, true) => "tool error",
                    (true, false) => "ok",
                };
                tracing::debug!(
                    elapsed_us = started.elapsed().as_micros() as u64,
                    outcome,
                    "answered"
                );
                match route {
                    Route::Direct if wanted => {
                        reply.push(b'\n');
                        let _ = out.send(reply).await;
                    }
                    Route::Direct => {}
                    Route::Batch(sender) => {
                        let _ = sender.send(wanted.then_some(reply));
                    }
                }
            }
            .instrument(span),
        );
        match self.in_flight.lock() {
            Ok(mut map) => {
                map.insert(
                    key.clone(),
                    InFlight {
                        abort: None,
                        cancellation,
                    },
                );
            }
            Err(_) => return Err(ErrorObject::new(INTERNAL_ERROR, "internal error")),
        }
        // Most calls complete without waiting on anything: poll once here,
        // and only a call that has to wait becomes a task of its own. This
        // saves a spawn and a hand-over between threads per call.
        let finished =
            std::future::poll_fn(|cx| Poll::Ready(call_future.as_mut().poll(cx).is_ready())).await;
        if !finished {
            // Held while spawning, so the task cannot finish (and remove its
            // entry) before the entry knows how to abort it.
            let Ok(mut map) = self.in_flight.lock() else {
                return Err(ErrorObject::new(INTERNAL_ERROR, "internal error"));
            };
            let abort = self.tasks.spawn(call_future);
            if let Some(entry) = map.get_mut(&key) {
                entry.abort = Some(abort);
            }
        }
        Ok(())
    }

    fn handle_notification(&self, method: &str, params: Option<&RawValue>) {
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
                let entry = self.in_flight.lock().ok().and_then(|mut m| m.remove(&key));
                if let Some(entry) = entry {
                    tracing::debug!(request_id = %request_id, "call cancelled by the client");
                    entry.cancellation.cancel();
                    if let Some(abort) = entry.abort {
                        abort.abort();
                    }
                }
            }
            "notifications/initialized" => tracing::debug!("client sent notifications/initialized"),
            other => tracing::trace!(method = other, "notification ignored"),
        }
    }

    async fn handle_batch(&mut self, items: Vec<&RawValue>) {
        let accepts = self
            .session
            .version
            .get()
            .is_some_and(|v| v.accepts_batches());
        if !accepts {
            let version = self
                .session
                .version
                .get()
                .map_or("(not initialized)", |v| v.as_str());
            self.send_error(
                None,
                ErrorObject::new(
                    INVALID_REQUEST,
                    format!("Invalid request: JSON-RPC batches are not supported in protocol version {version}"),
                ),
            )
            .await;
            return;
        }
        if items.is_empty() {
            self.send_error(
                None,
                ErrorObject::new(INVALID_REQUEST, "Invalid request: empty batch"),
            )
            .await;
            return;
        }
        let mut parts = Vec::new();
        for item in items {
            let message = jsonrpc::classify(item);
            if let Message::Request { id, method, .. } = &message
                && method == "initialize"
            {
                parts.push(BatchPart::Ready(error_bytes(
                    Some(id),
                    ErrorObject::new(
                        INVALID_REQUEST,
                        "Invalid request: initialize cannot be part of a batch",
                    ),
                )));
                continue;
            }
            let (sender, receiver) = oneshot::channel();
            let mut slot = Some(sender);
            match self.handle_message(message, &mut slot).await {
                Some(reply) => parts.push(BatchPart::Ready(reply)),
                None if slot.is_none() => parts.push(BatchPart::Pending(receiver)),
                None => {}
            }
        }
        if parts.is_empty() {
            return; // only notifications: no reply at all
        }
        let out = self.out.clone();
        self.tasks.spawn(async move {
            let mut body = vec![b'['];
            let mut empty = true;
            for part in parts {
                let reply = match part {
                    BatchPart::Ready(reply) => Some(reply),
                    BatchPart::Pending(receiver) => receiver.await.ok().flatten(),
                };
                if let Some(reply) = reply {
                    if !empty {
                        body.push(b',');
                    }
                    body.extend_from_slice(&reply);
                    empty = false;
                }
            }
            if !empty {
                body.extend_from_slice(b"]\n");
                let _ = out.send(body).await;
            }
        });
    }
}

fn error_bytes(id: Option<&RequestId>, error: ErrorObject) -> Vec<u8> {
    let mut reply = Vec::new();
    jsonrpc::write_error(&mut reply, id, &error);
    reply
}

fn raw(json: &str) -> Box<RawValue> {
    RawValue::from_string(json.to_owned()).unwrap_or_default()
}

/// `params` as an object: absent is empty; anything but an object is -32602.
fn params_object(params: Option<&RawValue>) -> Result<Map<String, Value>, ErrorObject> {
    match params {
        None => Ok(Map::new()),
        Some(raw) => match serde_json::from_str::<Value>(raw.get()) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(Value::Null) => Ok(Map::new()),
            _ => Err(ErrorObject::new(
                INVALID_PARAMS,
                "`params` must be an object",
            )),
        },
    }
}
