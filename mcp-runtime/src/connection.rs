//! One client connection: the lifecycle gate, routing by method, in-flight
//! calls (bounded, cancellable), batches, and shutdown. Transports feed it
//! lines and drain its output; it never touches stdin or stdout itself.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::task::{AbortHandle, JoinSet};
use tracing::Instrument;

use crate::call_params::{self, CallParams};
use crate::context::{Cancellation, ClientInfo, Context, LogLevel, RequestScope, SessionShared};
use crate::jsonrpc::{
    self, ErrorObject, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, Line, METHOD_NOT_FOUND,
    Message, PARSE_ERROR, RequestId,
};
use crate::outbox::Outbox;
use crate::protocol::{self, ProtocolVersion};
use crate::registry::Registry;
use crate::tool::Outcome;

/// What a transport hands the connection.
#[derive(Debug)]
pub(crate) enum Incoming<'a> {
    /// One line, without its terminator.
    Line(Cow<'a, [u8]>),
    /// Whole lines, each ended by `\n` (the last one may lack it at EOF).
    Lines(Cow<'a, [u8]>),
    /// A line longer than the limit; its bytes were skipped, not buffered.
    TooLarge,
}

/// The lines of `block` (see [`Incoming::Lines`]), without their `\n`
/// (a `\r` before it is still there: it counts towards the size limit).
pub(crate) fn lines_of(block: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = block;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (line, next) = match memchr::memchr(b'\n', rest) {
            Some(end) => (&rest[..end], &rest[end + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        rest = next;
        Some(line)
    })
}

/// Calls `f` with each message of `incoming` as the connection sees it:
/// `None` for one over `max` bytes.
pub(crate) fn for_each_line(incoming: &Incoming<'_>, max: usize, mut f: impl FnMut(Option<&[u8]>)) {
    fn checked(line: &[u8], max: usize) -> Option<&[u8]> {
        (line.len() <= max).then(|| without_cr(line))
    }
    match incoming {
        Incoming::Line(line) => f(checked(line, max)),
        Incoming::Lines(block) => lines_of(block).for_each(|line| f(checked(line, max))),
        Incoming::TooLarge => f(None),
    }
}

fn without_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
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
                        #[derive(serde::Serialize)]
                        struct Page<'a> {
                            tools: Vec<protocol::ToolEntry<'a>>,
                            #[serde(
                                rename = "nextCursor",
                                skip_serializing_if = "Option::is_none"
                            )]
                            next_cursor: Option<String>,
                        }
                        let page = Page {
                            tools: chunk
                                .iter()
                                .map(|tool| protocol::ToolEntry { tool, version })
                                .collect(),
                            next_cursor: (i + 1 < count).then(|| cursor(i + 1)),
                        };
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

/// A call that had to wait, running as a task of its own.
struct InFlight {
    abort: AbortHandle,
    ctx: Context,
}

/// Where the response to a spawned call goes.
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

/// What a request handler did.
enum Answer {
    /// The reply was written.
    Written,
    /// A call is running as a task: it replies when it ends.
    Later,
}

/// Counts the calls running as tasks, against `max_in_flight`. A call that
/// completes when first polled never becomes a task and needs no slot of
/// its own, beyond the one it occupies while the dispatcher polls it.
struct Slots {
    running: AtomicUsize,
    freed: Notify,
    max: usize,
}

impl Slots {
    /// Waits until one more call may run.
    async fn wait(&self) {
        crate::wait::until(&self.freed, || self.has_room()).await;
    }

    fn has_room(&self) -> bool {
        self.running.load(Ordering::Acquire) < self.max
    }
}

/// One running task's slot, given back when the task ends or is aborted.
struct Slot(Arc<Slots>);

impl Slot {
    fn take(slots: &Arc<Slots>) -> Slot {
        slots.running.fetch_add(1, Ordering::AcqRel);
        Slot(Arc::clone(slots))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if self.0.running.fetch_sub(1, Ordering::AcqRel) == self.0.max {
            self.0.freed.notify_one();
        }
    }
}

/// Replies gathered beyond this many bytes are sent at once rather than at
/// the end of the block of input.
const FLUSH_AT: usize = 16 * 1024;

pub(crate) struct Connection {
    core: Arc<ServerCore>,
    out: Outbox,
    /// Replies produced while handling the current block of input, sent
    /// together when it is done.
    replies: Vec<u8>,
    /// Set by `initialize`.
    session: Option<Arc<SessionShared>>,
    in_flight: Arc<Mutex<HashMap<String, InFlight>>>,
    slots: Arc<Slots>,
    tasks: JoinSet<()>,
}

/// Serves one connection until `incoming` ends (EOF) or the output closes.
/// On EOF, calls in flight get the grace period to finish and answer.
pub(crate) async fn serve(
    core: Arc<ServerCore>,
    mut incoming: mpsc::Receiver<Incoming<'static>>,
    out: Outbox,
) {
    let mut connection = Connection::new(core, out);
    while let Some(message) = incoming.recv().await {
        if !connection.handle(message).await {
            return;
        }
    }
    connection.finish().await;
}

impl Connection {
    pub(crate) fn new(core: Arc<ServerCore>, out: Outbox) -> Connection {
        let slots = Arc::new(Slots {
            running: AtomicUsize::new(0),
            freed: Notify::new(),
            max: core.limits.max_in_flight.max(1),
        });
        Connection {
            core,
            out,
            replies: Vec::new(),
            session: None,
            in_flight: Arc::default(),
            slots,
            tasks: JoinSet::new(),
        }
    }

    /// Handles one piece of input and sends its replies. Returns `false`
    /// once the output is closed: the calls in flight were dropped and the
    /// connection is over.
    pub(crate) async fn handle(&mut self, message: Incoming<'_>) -> bool {
        match message {
            Incoming::Line(line) => self.handle_line(&line).await,
            Incoming::Lines(block) => {
                for line in lines_of(&block) {
                    self.handle_line(line).await;
                }
            }
            Incoming::TooLarge => self.too_large(),
        }
        self.flush().await;
        while self.tasks.try_join_next().is_some() {}
        if self.out.is_closed() {
            tracing::debug!("output closed; stopping");
            self.tasks.abort_all();
            return false;
        }
        true
    }

    /// The input ended: calls in flight get the grace period to finish and
    /// answer, then are dropped.
    pub(crate) async fn finish(mut self) {
        tracing::debug!(
            in_flight = self.tasks.len(),
            "input ended; finishing calls in flight"
        );
        let grace = self.core.limits.shutdown_grace;
        let drained = tokio::time::timeout(grace, async {
            while self.tasks.join_next().await.is_some() {}
        })
        .await;
        if drained.is_err() {
            tracing::warn!(
                abandoned = self.tasks.len(),
                "calls still running after the shutdown grace period were abandoned"
            );
            self.tasks.abort_all();
        }
    }
}

impl Connection {
    async fn flush(&mut self) {
        self.out.send_buf(&mut self.replies).await;
    }

    fn too_large(&mut self) {
        let max_message_bytes = self.core.limits.max_message_bytes;
        jsonrpc::write_error(
            &mut self.replies,
            None,
            &ErrorObject::new(INVALID_REQUEST, "message too large")
                .with_data(json!({ "limitBytes": max_message_bytes })),
        );
        self.replies.push(b'\n');
    }

    async fn handle_line(&mut self, line: &[u8]) {
        // The limit holds whatever the transport (stdio skips lines that
        // outgrow it before they end, but one can arrive whole in a block;
        // the in-process TestClient does not check at all).
        if line.len() > self.core.limits.max_message_bytes {
            self.too_large();
        } else {
            match jsonrpc::parse_line(without_cr(line)) {
                Line::Blank => {}
                Line::ParseError => {
                    jsonrpc::write_error(
                        &mut self.replies,
                        None,
                        &ErrorObject::new(
                            PARSE_ERROR,
                            "Parse error: the message is not valid JSON",
                        ),
                    );
                    self.replies.push(b'\n');
                }
                Line::Single(message) => {
                    let mut replies = std::mem::take(&mut self.replies);
                    if self.handle_message(message, &mut None, &mut replies).await {
                        replies.push(b'\n');
                    }
                    self.replies = replies;
                }
                Line::Batch(items) => self.handle_batch(items).await,
            }
        }
        if self.replies.len() >= FLUSH_AT {
            self.flush().await;
        }
    }

    /// Handles one message; appends its reply (without a newline) to
    /// `reply` and returns `true` when there is one to send now. A call
    /// that has to wait replies from its task, to the batch when
    /// `batch_slot` holds a sender (which it then takes).
    async fn handle_message(
        &mut self,
        message: Message<'_>,
        batch_slot: &mut Option<oneshot::Sender<Option<Vec<u8>>>>,
        reply: &mut Vec<u8>,
    ) -> bool {
        match message {
            Message::Response => false,
            Message::Invalid { id, reason } => {
                jsonrpc::write_error(
                    reply,
                    id.as_ref(),
                    &ErrorObject::new(INVALID_REQUEST, format!("Invalid request: {reason}")),
                );
                true
            }
            Message::Notification { method, params } => {
                self.handle_notification(&method, params);
                false
            }
            Message::Request {
                id,
                method,
                params,
                call,
            } => {
                let span = tracing::debug_span!("request", %method, %id);
                let started = (!span.is_disabled()).then(Instant::now);
                let handling = self.handle_request(&id, &method, params, call, batch_slot, reply);
                // Wrapping moves the whole future: only when it is logged.
                let outcome = if started.is_some() {
                    handling.instrument(span.clone()).await
                } else {
                    handling.await
                };
                let elapsed_us = || started.map_or(0, |s| s.elapsed().as_micros() as u64);
                match outcome {
                    Ok(Answer::Written) => {
                        span.in_scope(|| {
                            tracing::debug!(elapsed_us = elapsed_us(), outcome = "ok", "answered")
                        });
                        true
                    }
                    Ok(Answer::Later) => false,
                    Err(error) => {
                        span.in_scope(|| {
                            tracing::debug!(
                                elapsed_us = elapsed_us(),
                                outcome = "error",
                                code = error.code,
                                message = %error.message,
                                "answered"
                            )
                        });
                        jsonrpc::write_error(reply, Some(&id), &error);
                        true
                    }
                }
            }
        }
    }

    async fn handle_request(
        &mut self,
        id: &RequestId,
        method: &str,
        params: Option<&RawValue>,
        call: Option<call_params::Checked<'_>>,
        batch_slot: &mut Option<oneshot::Sender<Option<Vec<u8>>>>,
        reply: &mut Vec<u8>,
    ) -> Result<Answer, ErrorObject> {
        let write = |reply: &mut Vec<u8>, result: &RawValue| {
            jsonrpc::write_result(reply, id, &result);
            Answer::Written
        };
        match method {
            "server/discover" => {
                return Err(ErrorObject::new(
                    METHOD_NOT_FOUND,
                    "Method not found: server/discover (this server speaks the initialize-based protocol; send initialize)",
                )
                .with_data(json!({ "method": method })));
            }
            "initialize" => return Ok(write(reply, &self.initialize(params)?)),
            "ping" => return Ok(write(reply, &raw("{}"))),
            _ => {}
        }
        let Some(session) = self.session.clone() else {
            return Err(ErrorObject::new(
                INVALID_REQUEST,
                "server not initialized: send initialize first",
            ));
        };
        match method {
            "tools/call" => {
                let params = call
                    .unwrap_or_else(|| call_params::parse(params))
                    .map_err(|error| *error)?;
                self.call_tool(id, params, session, batch_slot, reply).await
            }
            "tools/list" => {
                let core = Arc::clone(&self.core);
                let page = list_tools(&core, params, session.version)?;
                Ok(write(reply, page))
            }
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
                session.log_level.store(level as u8, Ordering::Relaxed);
                Ok(write(reply, &raw("{}")))
            }
            _ => Err(
                ErrorObject::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
                    .with_data(json!({ "method": method })),
            ),
        }
    }

    fn initialize(&mut self, params: Option<&RawValue>) -> Result<Box<RawValue>, ErrorObject> {
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
        self.session = Some(Arc::new(SessionShared {
            core: Arc::clone(&self.core),
            version,
            client,
            log_level: AtomicU8::new(LogLevel::Info as u8),
            out: self.out.clone(),
        }));
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

    async fn call_tool(
        &mut self,
        id: &RequestId,
        params: Box<CallParams<'_>>,
        session: Arc<SessionShared>,
        batch_slot: &mut Option<oneshot::Sender<Option<Vec<u8>>>>,
        reply: &mut Vec<u8>,
    ) -> Result<Answer, ErrorObject> {
        let Some(index) = self.core.registry.index_of(&params.name) else {
            return Err(ErrorObject::new(
                INVALID_PARAMS,
                format!("Unknown tool: {}", params.name),
            ));
        };
        // Most of the time no call is running as a task, and the id is not
        // looked up (nor its key built) at all. (A task's entry is removed
        // before its slot is given back.)
        let in_use = self.slots.running.load(Ordering::Acquire) > 0
            && self
                .in_flight
                .lock()
                .is_ok_and(|m| m.contains_key(&id.key()));
        if in_use {
            return Err(ErrorObject::new(
                INVALID_REQUEST,
                format!("request id {id} is already in use by a call in progress"),
            ));
        }
        // Backpressure: with every slot taken, reading stops here. What is
        // answered already goes out first.
        if !self.slots.has_room() {
            self.flush().await;
            self.slots.wait().await;
        }
        let version = session.version;
        let ctx = Context::for_request(RequestScope {
            session: Arc::clone(&session),
            tool: index,
            id: id.clone(),
            progress_token: params.progress_token,
            cancellation: Cancellation::default(),
            progress: Mutex::default(),
        });
        let call_ctx = ctx.clone();
        let arguments = params.arguments;
        let mut call = Box::pin(async move {
            let core = &session.core;
            core.registry.tools()[index]
                .call(arguments, call_ctx, core.limits.default_timeout)
                .await
        });
        // Most calls complete without waiting on anything: poll once here,
        // and only a call that has to wait becomes a task of its own. This
        // saves a spawn and a hand-over between threads per call.
        let first = std::future::poll_fn(|cx| Poll::Ready(call.as_mut().poll(cx))).await;
        if let Poll::Ready(result) = first {
            ctx.finish();
            write_call_result(reply, id, &result, version);
            return Ok(Answer::Written);
        }
        let route = match batch_slot.take() {
            Some(sender) => Route::Batch(sender),
            None => Route::Direct,
        };
        let key = id.key();
        let task_key = key.clone();
        let in_flight = Arc::clone(&self.in_flight);
        let out = self.out.clone();
        let id = id.clone();
        let slot = Slot::take(&self.slots);
        let task_ctx = ctx.clone();
        // A root span: the call outlives the dispatch span it was started under.
        let span = tracing::debug_span!(parent: None, "request", method = "tools/call", %id, tool = %ctx.tool_name());
        let task = async move {
            let _slot = slot;
            let started = Instant::now();
            let result = call.await;
            task_ctx.finish();
            let wanted = in_flight
                .lock()
                .is_ok_and(|mut m| m.remove(&task_key).is_some());
            let outcome = match (wanted, result.is_error()) {
                (false, _) => "cancelled",
                (true, true) => "tool error",
                (true, false) => "ok",
            };
            tracing::debug!(
                elapsed_us = started.elapsed().as_micros() as u64,
                outcome,
                "answered"
            );
            let mut reply = Vec::new();
            write_call_result(&mut reply, &id, &result, version);
            match route {
                Route::Direct if wanted => {
                    reply.push(b'\n');
                    out.send(reply).await;
                }
                Route::Direct => {}
                Route::Batch(sender) => {
                    let _ = sender.send(wanted.then_some(reply));
                }
            }
        }
        .instrument(span);
        // Held while spawning, so the task cannot finish (and look for its
        // entry) before the entry is there.
        let Ok(mut map) = self.in_flight.lock() else {
            return Err(ErrorObject::new(INTERNAL_ERROR, "internal error"));
        };
        let abort = self.tasks.spawn(task);
        map.insert(key, InFlight { abort, ctx });
        Ok(Answer::Later)
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
                    entry.ctx.cancel();
                    entry.abort.abort();
                }
            }
            "notifications/initialized" => tracing::debug!("client sent notifications/initialized"),
            other => tracing::trace!(method = other, "notification ignored"),
        }
    }

    async fn handle_batch(&mut self, items: Vec<&RawValue>) {
        let version = self.session.as_ref().map(|s| s.version);
        if !version.is_some_and(ProtocolVersion::accepts_batches) {
            let version = version.map_or("(not initialized)", ProtocolVersion::as_str);
            let error = ErrorObject::new(
                INVALID_REQUEST,
                format!(
                    "Invalid request: JSON-RPC batches are not supported in protocol version {version}"
                ),
            );
            jsonrpc::write_error(&mut self.replies, None, &error);
            self.replies.push(b'\n');
            return;
        }
        if items.is_empty() {
            let error = ErrorObject::new(INVALID_REQUEST, "Invalid request: empty batch");
            jsonrpc::write_error(&mut self.replies, None, &error);
            self.replies.push(b'\n');
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
            let mut reply = Vec::new();
            if self.handle_message(message, &mut slot, &mut reply).await {
                parts.push(BatchPart::Ready(reply));
            } else if slot.is_none() {
                parts.push(BatchPart::Pending(receiver));
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
                out.send(body).await;
            }
        });
    }
}

fn write_call_result(
    reply: &mut Vec<u8>,
    id: &RequestId,
    outcome: &Outcome,
    version: ProtocolVersion,
) {
    jsonrpc::write_result_with(reply, id, |reply| {
        protocol::write_outcome(reply, outcome, version)
    });
}

fn list_tools<'a>(
    core: &'a ServerCore,
    params: Option<&RawValue>,
    version: ProtocolVersion,
) -> Result<&'a RawValue, ErrorObject> {
    let params = params_object(params)?;
    let pages = &core.pages[version.index()];
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
    Ok(&pages[page])
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
