//! The session core, whatever the transport: numbering requests, the table
//! of requests waiting for their answer, routing what the server sends
//! (answers to their caller, progress to the caller's callback,
//! notifications to the receivers, the server's own requests answered
//! here), cancelling a request whose caller stopped waiting, and closing:
//! when the inbound channel closes, every waiting request gets
//! [`ClientError::Closed`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::client::elicitation::{self, ElicitationHandler, SamplingHandler};
use crate::client::error::ClientError;
use crate::client::malformed::{self, Malformed};
use crate::client::modern::cache::ListCache;
use crate::client::notification::{NOTIFICATION_CAPACITY, Notification};
use crate::client::transport::{BoxFuture, Received, Transport};
use crate::jsonrpc::{
    self, ErrorObject, Failed, INVALID_PARAMS, Line, METHOD_NOT_FOUND, Message, RequestId,
};

/// A progress callback: progress so far, the total if known, a message.
pub(crate) type ProgressFn = Arc<dyn Fn(f64, Option<f64>, Option<&str>) + Send + Sync>;

/// How long a request waits for its answer unless told otherwise.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// An answer as it came: its result unparsed (parsed by the waiter, which
/// may read it piece by piece), or why there is none.
type Answer = Result<Box<RawValue>, ClientError>;

struct Pending {
    answer: oneshot::Sender<Answer>,
    progress: Option<ProgressFn>,
}

struct Table {
    /// `false` once the inbound channel closed: nothing more will answer.
    open: bool,
    waiting: HashMap<u64, Pending>,
}

/// What the session answers the server's requests with, besides `ping`.
#[derive(Clone, Default)]
pub(crate) struct Handlers {
    pub(crate) elicitation: Option<ElicitationHandler>,
    pub(crate) sampling: Option<SamplingHandler>,
    /// The roots `roots/list` answers with, when the client has some.
    pub(crate) roots: Option<Arc<Mutex<Vec<crate::asking::ask::Root>>>>,
}

pub(crate) struct Session {
    transport: Box<dyn Transport>,
    /// The `_meta` fields every request carries in the 2026-07-28 era
    /// (none in the legacy era).
    meta: Mutex<Option<Map<String, Value>>>,
    /// The lists kept for as long as the server said they stay fresh
    /// (2026-07-28).
    pub(crate) cache: ListCache,
    next_id: AtomicU64,
    table: Mutex<Table>,
    /// Taken when the connection closes, so that receivers see the end.
    notifications: Mutex<Option<broadcast::Sender<Notification>>>,
    timeout_ms: AtomicU64,
    runtime: tokio::runtime::Handle,
    /// What the server's requests are answered with.
    handlers: Handlers,
}

impl Session {
    /// Starts the session over `transport`, reading what the server sends
    /// from `inbound` in a task of the current runtime.
    pub(crate) fn start(
        transport: Box<dyn Transport>,
        inbound: mpsc::Receiver<Received>,
        handlers: Handlers,
    ) -> (Arc<Session>, JoinHandle<()>) {
        let (notifications, _) = broadcast::channel(NOTIFICATION_CAPACITY);
        let session = Arc::new(Session {
            transport,
            meta: Mutex::new(None),
            cache: ListCache::default(),
            next_id: AtomicU64::new(1),
            table: Mutex::new(Table {
                open: true,
                waiting: HashMap::new(),
            }),
            notifications: Mutex::new(Some(notifications)),
            timeout_ms: AtomicU64::new(DEFAULT_TIMEOUT.as_millis() as u64),
            runtime: tokio::runtime::Handle::current(),
            handlers,
        });
        let reader = tokio::spawn(read(Arc::clone(&session), inbound));
        (session, reader)
    }

    fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.load(Ordering::Relaxed))
    }

    pub(crate) fn set_timeout(&self, timeout: Duration) {
        let ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        self.timeout_ms.store(ms.max(1), Ordering::Relaxed);
    }

    /// The `_meta` fields each request carries from now on: the 2026-07-28
    /// era's, or none (the legacy era).
    pub(crate) fn set_meta(&self, meta: Option<Map<String, Value>>) {
        *self.meta.lock().unwrap_or_else(|e| e.into_inner()) = meta;
    }

    /// Changes one `_meta` field of every request from now on (none
    /// removes it); `false` in the legacy era, which has no such fields.
    pub(crate) fn set_meta_field(&self, key: &str, value: Option<Value>) -> bool {
        let mut meta = self.meta.lock().unwrap_or_else(|e| e.into_inner());
        let Some(meta) = meta.as_mut() else {
            return false;
        };
        match value {
            Some(value) => meta.insert(key.to_owned(), value),
            None => meta.remove(key),
        };
        true
    }

    /// Whether requests carry the 2026-07-28 era's `_meta`.
    pub(crate) fn is_modern(&self) -> bool {
        self.meta
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Notification> {
        match &*self.notifications.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(sender) => sender.subscribe(),
            // Closed: a receiver that ends at once.
            None => broadcast::channel(1).1,
        }
    }

    /// Replaces the roots `roots/list` answers with and tells the server;
    /// `false` (and nothing sent) when the client declared no roots.
    pub(crate) async fn set_roots(
        &self,
        roots: Vec<crate::asking::ask::Root>,
    ) -> Result<bool, ClientError> {
        let Some(kept) = &self.handlers.roots else {
            return Ok(false);
        };
        *kept.lock().unwrap_or_else(|e| e.into_inner()) = roots;
        self.notify("notifications/roots/list_changed", &json!({}))
            .await
            .map(|()| true)
    }

    pub(crate) async fn close(&self) {
        self.transport.close().await;
    }

    /// Sends a notification.
    pub(crate) async fn notify(
        &self,
        method: &str,
        params: &impl Serialize,
    ) -> Result<(), ClientError> {
        let mut message = Vec::new();
        jsonrpc::write_notification(&mut message, method, params);
        self.transport.send(message).await
    }

    /// Sends a request and waits for its answer, at most the timeout. With
    /// `progress`, the request carries a progress token and the server's
    /// progress notifications for it reach the callback. `cancellable`:
    /// whether a caller that stops waiting cancels it (never `initialize`).
    pub(crate) async fn request(
        self: &Arc<Self>,
        method: &str,
        params: Value,
        progress: Option<ProgressFn>,
        cancellable: bool,
    ) -> Result<Value, ClientError> {
        let raw = self
            .request_raw(method, params, progress, cancellable)
            .await?;
        parse(method, &raw)
    }

    /// [`Session::request`], the result left as the server sent it.
    pub(crate) async fn request_raw(
        self: &Arc<Self>,
        method: &str,
        params: Value,
        progress: Option<ProgressFn>,
        cancellable: bool,
    ) -> Answer {
        let timeout = self.timeout();
        self.request_within_raw(method, params, progress, cancellable, Some(timeout))
            .await
    }

    /// [`Session::request`] waiting at most `timeout` (forever: `None`,
    /// for a request the server answers only when it ends, such as
    /// `subscriptions/listen`).
    pub(crate) async fn request_within(
        self: &Arc<Self>,
        method: &str,
        params: Value,
        progress: Option<ProgressFn>,
        cancellable: bool,
        timeout: Option<Duration>,
    ) -> Result<Value, ClientError> {
        let raw = self
            .request_within_raw(method, params, progress, cancellable, timeout)
            .await?;
        parse(method, &raw)
    }

    /// [`Session::request_within`], the result left as the server sent it.
    async fn request_within_raw(
        self: &Arc<Self>,
        method: &str,
        mut params: Value,
        progress: Option<ProgressFn>,
        cancellable: bool,
        timeout: Option<Duration>,
    ) -> Answer {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let era = self.meta.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if progress.is_some() || era.is_some() {
            if !params.is_object() {
                params = json!({});
            }
            let meta = params
                .as_object_mut()
                .and_then(|p| {
                    p.entry("_meta")
                        .or_insert_with(|| json!({}))
                        .as_object_mut()
                })
                .ok_or_else(|| ClientError::InvalidResponse {
                    method: method.to_owned(),
                    reason: "`_meta` of the params is not an object".into(),
                })?;
            if progress.is_some() {
                meta.insert("progressToken".into(), json!(id));
            }
            for (key, value) in era.into_iter().flatten() {
                meta.entry(key).or_insert(value);
            }
        }
        let (answer, answered) = oneshot::channel();
        {
            let mut table = self.table();
            if !table.open {
                return Err(ClientError::Closed);
            }
            table.waiting.insert(id, Pending { answer, progress });
        }
        let mut guard = Waiting {
            session: self,
            id,
            cancel: cancellable,
            reason: "the caller stopped waiting",
        };
        let mut message = Vec::new();
        jsonrpc::write_request(&mut message, &RequestId::number(id), method, &params);
        if let Err(error) = self.transport.send(message).await {
            guard.cancel = false;
            return Err(error);
        }
        let answered = async {
            match timeout {
                Some(timeout) => tokio::time::timeout(timeout, answered).await,
                None => Ok(answered.await),
            }
        };
        match answered.await {
            Ok(Ok(answer)) => {
                guard.cancel = false;
                answer.map_err(|error| match error {
                    ClientError::InvalidResponse { reason, .. } => ClientError::InvalidResponse {
                        method: method.to_owned(),
                        reason,
                    },
                    error => error,
                })
            }
            // The table was emptied: the connection closed.
            Ok(Err(_)) => {
                guard.cancel = false;
                Err(ClientError::Closed)
            }
            Err(_) => {
                guard.reason = "timeout";
                Err(ClientError::Timeout)
            }
        }
    }

    /// Handles one message from the server.
    fn receive(self: &Arc<Self>, line: &[u8]) {
        match jsonrpc::parse_line(line) {
            Line::Blank => {}
            Line::ParseError => self.malformed(line),
            Line::Single(message) => self.handle(message),
            Line::Batch(items) => {
                for item in items {
                    self.handle(jsonrpc::classify(item));
                }
            }
        }
    }

    /// A message the strict parser refused: an answer nested too deep
    /// still reaches its waiter; one that is not JSON fails the request it
    /// answers at once, when its id can be found.
    fn malformed(&self, line: &[u8]) {
        match malformed::read(line) {
            Malformed::DeepAnswer { id, result, error } => {
                self.answer(Some(RequestId::number(id)), result, error);
            }
            Malformed::Deep(what) => tracing::warn!("the server sent {what}; it is dropped"),
            Malformed::NotJson { id, reason } => {
                tracing::warn!(id, "the server sent a line that is not JSON: {reason}");
                let waiting = id.and_then(|id| self.table().waiting.remove(&id));
                if let Some(pending) = waiting {
                    let _ = pending.answer.send(Err(ClientError::InvalidResponse {
                        method: String::new(),
                        reason: format!("the answer is not JSON: {reason}"),
                    }));
                }
            }
        }
    }

    /// A message over the limit was skipped: the request it answers fails.
    fn too_large(&self, id: Option<u64>, size: Option<u64>, limit: usize) {
        let error = ClientError::TooLarge { size, limit };
        match id.and_then(|id| self.table().waiting.remove(&id)) {
            Some(pending) => {
                let _ = pending.answer.send(Err(error));
            }
            None => tracing::warn!(id, "a message from the server was dropped: {error}"),
        }
    }

    fn handle(self: &Arc<Self>, message: Message<'_>) {
        match message {
            Message::Response { id, result, error } => self.answer(id, result, error),
            Message::Notification { method, params } => self.notification(&method, params),
            Message::Request {
                id, method, params, ..
            } => self.serve(id, &method, params),
            Message::Invalid { reason, .. } => {
                tracing::warn!(reason, "the server sent an invalid message");
            }
        }
    }

    fn answer(&self, id: Option<RequestId>, result: Option<&RawValue>, error: Option<&RawValue>) {
        let Some(pending) = id
            .as_ref()
            .and_then(RequestId::as_u64)
            .and_then(|id| self.table().waiting.remove(&id))
        else {
            if let Some(error) = error {
                tracing::warn!(
                    error = error.get(),
                    ?id,
                    "the server sent an error for no request waiting"
                );
            }
            return;
        };
        let failed = |failed| match failed {
            Failed::Error(error) => ClientError::Rpc {
                code: error.code,
                message: error.message,
                data: error.data,
            },
            Failed::Malformed(reason) => ClientError::InvalidResponse {
                method: String::new(),
                reason,
            },
        };
        let answer = match (error, result) {
            (None, Some(result)) => Ok(result.to_owned()),
            // Never classified a response: it has one or the other.
            (None, None) => Ok(RawValue::NULL.to_owned()),
            (Some(error), _) => Err(match jsonrpc::outcome(None, Some(error)) {
                Err(error) => failed(error),
                Ok(_) => failed(Failed::Malformed("its error is not an object".into())),
            }),
        };
        let _ = pending.answer.send(answer);
    }

    /// The answer to `id` will not come (see [`Received::Lost`]).
    fn lost(&self, id: u64, reason: String) {
        match self.table().waiting.remove(&id) {
            Some(pending) => {
                let _ = pending
                    .answer
                    .send(Err(ClientError::ConnectionLost(reason)));
            }
            // Cancelled or timed out already: nobody waits.
            None => tracing::debug!(id, reason, "an answer nobody waits for was lost"),
        }
    }

    fn notification(&self, method: &str, params: Option<&RawValue>) {
        let params: Option<Value> = params.and_then(|p| serde_json::from_str(p.get()).ok());
        if method == "notifications/progress" && self.progress(params.as_ref()) {
            return;
        }
        if method == "notifications/subscriptions/acknowledged" {
            // The 2026-07-28 era's subscription opened: nothing to hand out.
            tracing::debug!(?params, "the server acknowledged the subscription");
            return;
        }
        if method == "notifications/cancelled" {
            // The server gave up a request of its own; we answer its only
            // requests (ping) at once, so there is nothing to stop.
            return;
        }
        self.cache.changed(method);
        let notification = Notification::from_message(method, params);
        if let Some(sender) = &*self.notifications.lock().unwrap_or_else(|e| e.into_inner()) {
            let _ = sender.send(notification);
        }
    }

    /// Passes a progress notification to its request's callback; `false`
    /// when no request waiting has its token.
    fn progress(&self, params: Option<&Value>) -> bool {
        let Some(params) = params else { return false };
        let Some(token) = params.get("progressToken").and_then(Value::as_u64) else {
            return false;
        };
        let Some(progress) = params.get("progress").and_then(Value::as_f64) else {
            return false;
        };
        let callback = match self.table().waiting.get(&token) {
            Some(pending) => pending.progress.clone(),
            None => return false,
        };
        let Some(callback) = callback else {
            return false;
        };
        let total = params.get("total").and_then(Value::as_f64);
        let message = params.get("message").and_then(Value::as_str);
        callback(progress, total, message);
        true
    }

    /// Answers a request from the server: `ping`, `elicitation/create` and
    /// `sampling/createMessage` when a handler was given, `roots/list` when
    /// roots were, and -32601 for the rest.
    fn serve(self: &Arc<Self>, id: RequestId, method: &str, params: Option<&RawValue>) {
        let params: Option<Value> = params.and_then(|p| serde_json::from_str(p.get()).ok());
        let answer = self.answer_for(method, params);
        let session = Arc::clone(self);
        // Answered from a task of its own: the reader goes on while a user
        // or a model takes its time, and never waits on the server reading
        // (which may be waiting on us reading).
        self.runtime.spawn(async move {
            let mut reply = Vec::new();
            match answer.await {
                Ok(result) => jsonrpc::write_result(&mut reply, &id, &result),
                Err(error) => jsonrpc::write_error(&mut reply, Some(&id), &error),
            }
            let _ = session.transport.send(reply).await;
        });
    }

    /// The answer to the server's request `method`: what the handlers
    /// given say (a request of its own in the legacy era, an input request
    /// of an `input_required` result in the 2026-07-28 era).
    pub(crate) fn answer_for(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> BoxFuture<'static, Result<Value, ErrorObject>> {
        if method == "ping" {
            return Box::pin(std::future::ready(Ok(json!({}))));
        }
        if method == "elicitation/create"
            && let Some(handler) = self.handlers.elicitation.clone()
        {
            let request = elicitation::request(params.unwrap_or(Value::Null));
            return Box::pin(async move {
                let schema = request.requested_schema.clone();
                Ok(elicitation::result(handler(request).await, &schema))
            });
        }
        if method == "sampling/createMessage"
            && let Some(handler) = self.handlers.sampling.clone()
        {
            let request = serde_json::from_value::<crate::asking::sampling::SamplingRequest>(
                params.unwrap_or(Value::Null),
            )
            .map_err(|error| error.to_string())
            .and_then(|request| {
                crate::asking::sampling::rules::check_messages(&request.messages).map(|()| request)
            });
            return Box::pin(async move {
                let request = request.map_err(|reason| {
                    let reason = format!("Invalid params: not a valid sampling request: {reason}");
                    ErrorObject::new(INVALID_PARAMS, reason)
                })?;
                match handler(request).await {
                    Ok(sampled) => Ok(serde_json::to_value(sampled).unwrap_or(Value::Null)),
                    // The code the specification gives a user's refusal.
                    Err(reason) => Err(ErrorObject::new(-1, reason)),
                }
            });
        }
        if method == "roots/list"
            && let Some(roots) = &self.handlers.roots
        {
            let roots = roots.lock().unwrap_or_else(|e| e.into_inner()).clone();
            return Box::pin(std::future::ready(Ok(json!({ "roots": roots }))));
        }
        let error = ErrorObject::new(METHOD_NOT_FOUND, format!("Method not found: {method}"));
        Box::pin(std::future::ready(Err(error)))
    }

    /// The connection is closed: every request waiting gets `Closed`, and
    /// notification receivers see the end.
    fn closed(&self) {
        let waiting = {
            let mut table = self.table();
            table.open = false;
            std::mem::take(&mut table.waiting)
        };
        for (_, pending) in waiting {
            let _ = pending.answer.send(Err(ClientError::Closed));
        }
        self.notifications
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
    }
}

/// Reads what the server sends until the transport closes the channel.
async fn read(session: Arc<Session>, mut inbound: mpsc::Receiver<Received>) {
    while let Some(received) = inbound.recv().await {
        match received {
            Received::Message(line) => session.receive(&line),
            Received::Lost { id, reason } => session.lost(id, reason),
            Received::TooLarge { id, size, limit } => session.too_large(id, size, limit),
        }
    }
    session.closed();
}

/// A request waiting for its answer. Dropped before the answer came (the
/// caller's future dropped, or the timeout), it leaves the table and, if
/// `cancel`, tells the server with `notifications/cancelled`.
struct Waiting<'a> {
    session: &'a Arc<Session>,
    id: u64,
    cancel: bool,
    reason: &'static str,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let removed = self.session.table().waiting.remove(&self.id).is_some();
        if !(removed && self.cancel) {
            return;
        }
        let session = Arc::clone(self.session);
        let (id, reason) = (self.id, self.reason);
        self.session.runtime.spawn(async move {
            let params = json!({ "requestId": id, "reason": reason });
            let _ = session.notify("notifications/cancelled", &params).await;
        });
    }
}

/// A raw result read as a value, or why it cannot be.
fn parse(method: &str, raw: &RawValue) -> Result<Value, ClientError> {
    serde_json::from_str(raw.get()).map_err(|error| ClientError::InvalidResponse {
        method: method.to_owned(),
        reason: malformed::why_unreadable(raw, &error),
    })
}
