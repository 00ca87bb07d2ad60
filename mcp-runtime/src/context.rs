//! Values the runtime injects into tools: [`Context`] and [`State<T>`].

use std::any::{Any, TypeId};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use tokio::sync::Notify;

use crate::auth::Identity;
use crate::jsonrpc::{self, RequestId};
use crate::outbox::Outbox;
use crate::protocol::version::ProtocolVersion;
use crate::tools::output::{CallToolResult, RawOutput};

/// Shared values registered with [`Server::state`](crate::Server::state), by type.
#[derive(Clone, Default)]
pub(crate) struct StateMap {
    values: HashMap<TypeId, (Arc<dyn Any + Send + Sync>, &'static str)>,
}

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        self.values
            .insert(TypeId::of::<T>(), (value, std::any::type_name::<T>()));
    }

    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let (value, _) = self.values.get(&TypeId::of::<T>())?;
        Arc::clone(value).downcast::<T>().ok()
    }

    pub(crate) fn contains(&self, type_id: TypeId) -> bool {
        self.values.contains_key(&type_id)
    }
}

impl fmt::Debug for StateMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.values.values().map(|(_, name)| name))
            .finish()
    }
}

/// Information about the call in progress, injected into any tool that takes
/// a parameter of this type. It is not part of the tool's input schema.
///
/// ```
/// use mcp_runtime::{tool, Context, LogLevel};
///
/// /// Counts to ten, reporting progress.
/// #[tool]
/// async fn count(ctx: Context) -> String {
///     for i in 1..=10 {
///         if ctx.is_cancelled() {
///             return "stopped".into();
///         }
///         ctx.progress(i as f64, Some(10.0), None);
///     }
///     ctx.log(LogLevel::Info, "counted to ten");
///     format!("{} counted", ctx.tool_name())
/// }
/// ```
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
    /// The key of this handle's questions in a 2026-07-28 `inputRequests`
    /// ([`Context::input_key`]); made from their position and content
    /// without one.
    key: Option<Arc<str>>,
    /// The tool it serves when that is not the one the request named (the
    /// target of progressive discovery's proxy).
    tool: Option<Arc<str>>,
}

// Lives in an `Arc`, built once per call and never moved: the size of the
// rare in-process variant does not matter, and boxing the other would cost
// every call an allocation.
#[allow(clippy::large_enum_variant)]
enum ContextInner {
    /// Called in process through [`Registry::call`](crate::Registry::call).
    Detached {
        tool_name: Arc<str>,
        state: Arc<StateMap>,
    },
    /// Called by a client.
    Request(RequestScope),
}

/// What every call of one client connection shares, fixed at `initialize`.
pub(crate) struct SessionShared {
    /// The server's shared values, for `State<T>`.
    pub(crate) state: Arc<StateMap>,
    pub(crate) version: ProtocolVersion,
    pub(crate) client: ClientInfo,
    pub(crate) log_level: AtomicU8,
    /// The URIs of the resources the client subscribed to.
    pub(crate) subscriptions: Mutex<HashSet<String>>,
    /// The server's requests to this client that wait for answers.
    pub(crate) asks: crate::asking::ask::Asks,
    /// How long each of them waits.
    pub(crate) ask_timeout: Duration,
    /// The client's roots, once asked for; forgotten when it says they
    /// changed.
    pub(crate) roots: Mutex<Option<Vec<crate::asking::ask::Root>>>,
    /// Where messages that belong to no call go (stdout on stdio, the GET
    /// stream on HTTP), once the session is initialized.
    pub(crate) notices: std::sync::OnceLock<crate::outbox::WeakOutbox>,
    /// The round of the one request a 2026-07-28 session serves, when that
    /// request may ask (its questions are answered from it).
    pub(crate) round: Option<Arc<crate::asking::rounds::Round>>,
    /// A stateless HTTP request's stand-in for a session: the client's
    /// answer to a question would come in a request of its own, which
    /// nothing routes back here, so the client cannot be asked.
    pub(crate) one_way: bool,
    /// How many times the client said its roots changed, as last known
    /// here: a session served by a fleet forgets the roots it kept when
    /// the stored count moves (see `dispatch::fleet`).
    pub(crate) roots_epoch: AtomicU64,
    /// Told of each change the client makes to the session, once made:
    /// the transport of a fleet writes them to its store. Unset (memory
    /// mode, stdio), nobody is told.
    pub(crate) on_change: std::sync::OnceLock<ChangeHook>,
}

/// A change the client made to its session, which a fleet's store keeps
/// (see [`SessionShared::on_change`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SessionChange {
    /// `logging/setLevel`: the new level ([`LogLevel`] as `u8`).
    LogLevel(u8),
    /// `resources/subscribe` of this URI.
    Subscribe(String),
    /// `resources/unsubscribe` of this URI.
    Unsubscribe(String),
    /// `notifications/roots/list_changed`.
    RootsChanged,
}

/// What is told of a session's changes: called on the task that made
/// the change, before the client is answered, so it must not block (it
/// queues the write).
pub(crate) type ChangeHook = Arc<dyn Fn(SessionChange) + Send + Sync>;

impl SessionShared {
    pub(crate) fn new(
        state: Arc<StateMap>,
        version: ProtocolVersion,
        client: ClientInfo,
    ) -> SessionShared {
        SessionShared {
            state,
            version,
            client,
            log_level: AtomicU8::new(LogLevel::Info as u8),
            subscriptions: Mutex::default(),
            asks: crate::asking::ask::Asks::default(),
            ask_timeout: crate::asking::ask::DEFAULT_TIMEOUT,
            roots: Mutex::new(None),
            notices: std::sync::OnceLock::new(),
            round: None,
            one_way: false,
            roots_epoch: AtomicU64::new(0),
            on_change: std::sync::OnceLock::new(),
        }
    }

    /// Tells the session's hook, if it has one, of `change`.
    pub(crate) fn changed(&self, change: SessionChange) {
        if let Some(hook) = self.on_change.get() {
            hook(change);
        }
    }

    /// The same session, with no way back from the client (stateless
    /// HTTP), unless it is of the 2026-07-28 era, whose requests carry the
    /// answers to its questions.
    #[cfg(feature = "http")]
    pub(crate) fn one_way(mut self) -> SessionShared {
        self.one_way = !self.version.is_modern();
        self
    }

    /// The same session, whose requests to the client wait `timeout`.
    pub(crate) fn with_ask_timeout(mut self, timeout: Duration) -> SessionShared {
        self.ask_timeout = timeout;
        self
    }

    /// Whether a log message at `level` reaches this client.
    pub(crate) fn lets_through(&self, level: LogLevel) -> bool {
        level as u8 >= self.log_level.load(Ordering::Relaxed)
    }
}

/// What the connection knows about one request.
pub(crate) struct RequestScope {
    pub(crate) session: Arc<SessionShared>,
    /// The name of the tool called (or of the resource or prompt asked for).
    pub(crate) name: Arc<str>,
    pub(crate) id: RequestId,
    pub(crate) progress_token: Option<Value>,
    pub(crate) cancellation: Cancellation,
    pub(crate) progress: Mutex<CallProgress>,
    /// Where this request's messages go: the connection's output on stdio,
    /// the request's own response stream on HTTP.
    pub(crate) out: Outbox,
    /// Who sent the request, when the transport authenticated it.
    pub(crate) identity: Option<Arc<Identity>>,
    /// The answers given in advance, when the call's questions are served
    /// by running it again (the 2026-07-28 era) rather than asked.
    pub(crate) replay: Option<Arc<crate::asking::replay::Replay>>,
    /// The error the call ends with instead of its result, when it asked
    /// for one (`Context::url_elicitation_required`).
    pub(crate) required: Mutex<Option<Box<crate::jsonrpc::ErrorObject>>>,
    /// The task the call runs as, once it became one (2026-07-28): its
    /// questions and progress then go through the task.
    pub(crate) task: std::sync::OnceLock<Arc<dyn crate::asking::tasked::TaskChannel>>,
}

/// The client, as it described itself in `initialize`.
#[derive(Clone, Debug, Default)]
pub struct ClientInfo {
    /// `clientInfo.name`.
    pub name: String,
    /// `clientInfo.version`.
    pub version: String,
    /// The `capabilities` object the client sent.
    pub capabilities: Value,
}

/// Severity of a log message sent to the client (`notifications/message`),
/// in the syslog order the protocol uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[allow(missing_docs)]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// The level with this wire name.
    pub fn parse(name: &str) -> Option<LogLevel> {
        LogLevel::ALL.into_iter().find(|l| l.as_str() == name)
    }

    /// The stored level of a session that wants no log messages (a
    /// 2026-07-28 request without a `logLevel`): above every level.
    pub(crate) const SILENT: u8 = u8::MAX;
}

/// The cancellation signal of one call.
#[derive(Default)]
pub(crate) struct Cancellation {
    cancelled: AtomicBool,
    notify: Notify,
}

impl Cancellation {
    pub(crate) fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    pub(crate) async fn cancelled(&self) {
        crate::wait::until(&self.notify, || self.is_cancelled()).await;
    }
}

/// Progress reported by one call: nothing once its response is on its way.
#[derive(Default)]
pub(crate) struct CallProgress {
    done: bool,
    last: Option<f64>,
}

impl Context {
    pub(crate) fn new(tool_name: Arc<str>, state: Arc<StateMap>) -> Self {
        Context {
            inner: Arc::new(ContextInner::Detached { tool_name, state }),
            key: None,
            tool: None,
        }
    }

    pub(crate) fn for_request(request: RequestScope) -> Self {
        Context {
            inner: Arc::new(ContextInner::Request(request)),
            key: None,
            tool: None,
        }
    }

    /// The same context, whose questions ([`Context::elicit`],
    /// [`Context::sample`], [`Context::roots`], [`Context::send_request`])
    /// go under `key` in a 2026-07-28 `input_required` answer, and whose
    /// answer is looked up by that key on the retry.
    ///
    /// Without one, a question's key is made from its position in the
    /// call and a fingerprint of what it asks (`q1-…`), which every client
    /// echoes back as it is. Name a key when a client or a test expects a
    /// particular one; each question of a call needs its own. The legacy
    /// era, which asks during the call, ignores it.
    ///
    /// ```
    /// use mcp_runtime::{Context, Elicit, Elicited, tool};
    ///
    /// #[derive(Elicit)]
    /// struct Name {
    ///     name: String,
    /// }
    ///
    /// /// Greets the user by name, asking for it first.
    /// #[tool]
    /// async fn greet(ctx: Context) -> Result<String, String> {
    ///     let asked = ctx.input_key("user_name").elicit::<Name>("Your name?").await;
    ///     match asked.map_err(|e| e.to_string())? {
    ///         Elicited::Accepted(Name { name }) => Ok(format!("Hello, {name}!")),
    ///         _ => Ok("Hello!".into()),
    ///     }
    /// }
    /// ```
    pub fn input_key(&self, key: impl Into<String>) -> Context {
        Context {
            inner: Arc::clone(&self.inner),
            key: Some(Arc::from(key.into())),
            tool: self.tool.clone(),
        }
    }

    /// The same context, for the tool `name` (the proxy of progressive
    /// discovery calls another tool with its own context).
    pub(crate) fn for_tool(&self, name: Arc<str>) -> Context {
        Context {
            inner: Arc::clone(&self.inner),
            key: self.key.clone(),
            tool: Some(name),
        }
    }

    /// `error`; in the 2026-07-28 era, when it says the client lacks a
    /// capability, the call also ends with -32021 naming it instead of its
    /// result (a server must not go on as if the capability were there).
    /// On stateless HTTP the capabilities are not known (no session keeps
    /// them), and not the point: there is no way to ask at all.
    pub(crate) fn refused(
        &self,
        error: crate::asking::ask::ClientRequestError,
    ) -> crate::asking::ask::ClientRequestError {
        if let crate::asking::ask::ClientRequestError::NotSupported(capability) = &error
            && self.session().is_some_and(|session| session.one_way)
        {
            let capability = capability.split('.').next().unwrap_or(capability);
            return crate::asking::ask::ClientRequestError::Stateless(capability.to_owned());
        }
        if let crate::asking::ask::ClientRequestError::NotSupported(capability) = &error
            && let Some(request) = self.request()
            && request.session.version.is_modern()
            && let Ok(mut required) = request.required.lock()
            && required.is_none()
        {
            *required = Some(Box::new(crate::jsonrpc::ErrorObject::missing_capability(
                capability,
            )));
        }
        error
    }

    /// The key of this handle's questions ([`Context::input_key`]), if named.
    pub(crate) fn question_key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    pub(crate) fn request(&self) -> Option<&RequestScope> {
        match &*self.inner {
            ContextInner::Request(request) => Some(request),
            ContextInner::Detached { .. } => None,
        }
    }

    /// The session of the client that called, if a client did.
    pub(crate) fn session(&self) -> Option<&Arc<SessionShared>> {
        self.request().map(|request| &request.session)
    }

    /// Whether the caller asked for progress (sent a progress token).
    #[cfg(feature = "client")]
    pub(crate) fn wants_progress(&self) -> bool {
        self.request()
            .is_some_and(|request| request.progress_token.is_some())
    }

    /// Cancels the call (the client sent `notifications/cancelled`).
    pub(crate) fn cancel(&self) {
        if let Some(request) = self.request() {
            request.cancellation.cancel();
        }
    }

    /// The error the call asked to end with instead of its result.
    pub(crate) fn take_required_error(&self) -> Option<crate::jsonrpc::ErrorObject> {
        self.request()?
            .required
            .lock()
            .ok()?
            .take()
            .map(|error| *error)
    }

    /// Makes the call's questions and progress go through `task` from now
    /// on (the call just became a task).
    pub(crate) fn set_task(&self, task: Arc<dyn crate::asking::tasked::TaskChannel>) {
        if let Some(request) = self.request() {
            let _ = request.task.set(task);
        }
    }

    /// Ends the call with a JSON-RPC error (`code`, `message`) instead of
    /// its result: the client gets an error response, not an `isError`
    /// result, and a task that ends so is `failed` with this error. For a
    /// call the protocol itself cannot serve; a tool's own failure is
    /// better returned as its `Err` (an `isError` result the model reads).
    ///
    /// Returns `message`: return it as the `Err` of the call. Called in
    /// process (no client), the call's result is that `Err`.
    ///
    /// ```
    /// use mcp_runtime::{Context, tool};
    ///
    /// /// Runs the nightly job.
    /// #[tool]
    /// async fn nightly(ctx: Context) -> Result<String, String> {
    ///     Err(ctx.protocol_error(-32603, "the job queue is gone"))
    /// }
    /// ```
    pub fn protocol_error(&self, code: i32, message: impl Into<String>) -> String {
        let message = message.into();
        if let Some(request) = self.request()
            && let Ok(mut required) = request.required.lock()
            && required.is_none()
        {
            *required = Some(Box::new(crate::jsonrpc::ErrorObject::new(
                code,
                message.clone(),
            )));
        }
        message
    }

    /// Marks the call answered: later progress is dropped.
    pub(crate) fn finish(&self) {
        // Without a progress token nothing is ever reported: no lock needed.
        if let Some(request) = self.request()
            && request.progress_token.is_some()
            && let Ok(mut progress) = request.progress.lock()
        {
            progress.done = true;
        }
    }

    /// The name of the tool being called.
    pub fn tool_name(&self) -> &str {
        if let Some(tool) = &self.tool {
            return tool;
        }
        match &*self.inner {
            ContextInner::Detached { tool_name, .. } => tool_name,
            ContextInner::Request(request) => &request.name,
        }
    }

    /// The shared value of type `T` registered with
    /// [`Server::state`](crate::Server::state), if any.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        let state = match &*self.inner {
            ContextInner::Detached { state, .. } => state,
            ContextInner::Request(request) => &request.session.state,
        };
        state.get::<T>().map(State)
    }

    /// The JSON-RPC id of the request, when called by a client.
    pub fn request_id(&self) -> Option<&RequestId> {
        self.request().map(|r| &r.id)
    }

    /// The protocol version negotiated with the client, when called by one.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.request().map(|r| r.session.version)
    }

    /// Who is calling, when the HTTP transport authenticated the request
    /// (`Server::auth` (feature `auth`)): the token's subject,
    /// scopes and claims. `None` on stdio, in-process and without auth.
    pub fn auth(&self) -> Option<&Identity> {
        self.request().and_then(|r| r.identity.as_deref())
    }

    /// The client's name, version and capabilities, when called by a client.
    pub fn client_info(&self) -> Option<&ClientInfo> {
        self.request().map(|r| &r.session.client)
    }

    /// Whether the client has cancelled this call. Async tools are simply
    /// dropped on cancellation; synchronous ones can poll this.
    pub fn is_cancelled(&self) -> bool {
        self.request()
            .is_some_and(|r| r.cancellation.is_cancelled())
    }

    /// Completes when the client cancels this call (never, for in-process calls).
    pub async fn cancelled(&self) {
        match self.request() {
            Some(request) => request.cancellation.cancelled().await,
            None => std::future::pending().await,
        }
    }

    /// Reports progress, as `notifications/progress`, if the client asked
    /// for it with a progress token. Never blocks. Values must increase: a
    /// value not above the last one is dropped, as is anything sent after
    /// the call has been answered or cancelled. Returns whether a
    /// notification was sent.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        let Some(request) = self.request() else {
            return false;
        };
        let related = request.task.get().and_then(|task| task.related_task());
        if let Some(task) = request.task.get().filter(|_| related.is_none()) {
            // A 2026-07-28 task has no progress notifications: where it
            // stands is its status message.
            if request.cancellation.is_cancelled() || !progress.is_finite() {
                return false;
            }
            let message = match (message, total) {
                (Some(message), _) => message.to_owned(),
                (None, Some(total)) => format!("{progress}/{total}"),
                (None, None) => format!("{progress}"),
            };
            task.progress(message);
            return true;
        }
        let Some(token) = &request.progress_token else {
            return false;
        };
        let Ok(mut state) = request.progress.lock() else {
            return false;
        };
        if state.done
            || request.cancellation.is_cancelled()
            || state.last.is_some_and(|last| progress <= last)
            || !progress.is_finite()
        {
            return false;
        }
        let mut params = serde_json::Map::new();
        params.insert("progressToken".into(), token.clone());
        params.insert("progress".into(), progress.into());
        if let Some(total) = total {
            params.insert("total".into(), total.into());
        }
        if let Some(message) = message
            && request.session.version >= ProtocolVersion::V2025_03_26
        {
            params.insert("message".into(), message.into());
        }
        if let Some(id) = related {
            crate::tasks::wire::tie_to_task(&mut params, id);
        }
        let mut line = Vec::new();
        jsonrpc::write_notification(&mut line, "notifications/progress", &params);
        line.push(b'\n');
        // Sent while the lock is held, so it cannot overtake the response.
        if request.out.try_send(&line) {
            state.last = Some(progress);
            true
        } else {
            false
        }
    }

    /// Sends a log message to the client (`notifications/message`) if
    /// `level` is at or above the level the client set with
    /// `logging/setLevel` (`info` until it does). Never blocks. In a task of
    /// the 2026-07-28 era, which has no log notifications, the message goes
    /// to the server's log (`tracing`) instead.
    pub fn log(&self, level: LogLevel, data: impl Serialize) -> bool {
        let Some(request) = self.request() else {
            return false;
        };
        if !request.session.lets_through(level) {
            return false;
        }
        let Ok(data) = serde_json::to_value(data) else {
            return false;
        };
        if let Some(task) = request.task.get()
            && task.related_task().is_none()
        {
            // A 2026-07-28 task has no log notifications: its log goes to
            // the server's.
            tracing::info!(tool = self.tool_name(), level = level.as_str(), %data, "task log");
            return false;
        }
        let mut params = serde_json::json!({
            "level": level.as_str(),
            "logger": self.tool_name(),
            "data": data,
        });
        if let Some(id) = request.task.get().and_then(|task| task.related_task())
            && let serde_json::Value::Object(object) = &mut params
        {
            crate::tasks::wire::tie_to_task(object, id);
        }
        let mut line = Vec::new();
        jsonrpc::write_notification(&mut line, "notifications/message", &params);
        line.push(b'\n');
        request.out.try_send(&line)
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("tool_name", &self.tool_name())
            .field("request_id", &self.request_id())
            .field("protocol_version", &self.protocol_version())
            .finish_non_exhaustive()
    }
}

/// Shared state of type `T`, registered once with
/// [`Server::state`](crate::Server::state) and injected into every tool that
/// takes a `State<T>` parameter. A tool asking for a type that was never
/// registered is reported when the server starts, not when it is called.
///
/// ```
/// use mcp_runtime::{tool, State};
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// #[derive(Default)]
/// struct Counter(AtomicU64);
///
/// /// Counts calls.
/// #[tool]
/// async fn count(counter: State<Counter>) -> String {
///     (counter.0.fetch_add(1, Ordering::Relaxed) + 1).to_string()
/// }
/// ```
pub struct State<T: ?Sized>(Arc<T>);

impl<T: ?Sized> State<T> {
    /// Wraps a shared value.
    pub fn new(value: Arc<T>) -> Self {
        State(value)
    }

    /// The shared `Arc`.
    pub fn into_inner(self) -> Arc<T> {
        self.0
    }
}

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        State(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// A state type a tool needs: checked against the registered state at start-up.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Requirement {
    pub type_id: TypeId,
    pub type_name: &'static str,
}

/// Parameter types the runtime provides instead of the client. Not
/// `#[doc(hidden)]` itself (it is re-exported hidden) so that compile errors
/// call it `Inject`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be injected into a #[tool], #[resource] or #[prompt] function",
    label = "parameters whose type is named `Context` or `State<...>` are injected by the runtime",
    note = "use `mcp_runtime::Context` or `mcp_runtime::State<T>`, or rename your type so it becomes a normal argument"
)]
pub trait Inject: Sized {
    /// The registered state this parameter needs, checked at start-up.
    fn requirement() -> Option<Requirement>;
    /// The value for one call.
    fn inject(ctx: &Context) -> Result<Self, RawOutput>;
}

/// What `State<T>` needs of `T`: the value is shared by calls running on
/// several threads at once. Only here for its diagnostic.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be shared state of a #[tool], #[resource] or #[prompt] function",
    label = "`State<T>` is shared by calls running on several threads at once, so `T` must be `Send + Sync + 'static`",
    note = "keep what changes in a `std::sync::Mutex`, an `RwLock` or atomics (a `tokio::sync::Mutex` if it is held across an `.await`), and own the data rather than borrow it"
)]
pub trait SharedState: Send + Sync + 'static {}

#[diagnostic::do_not_recommend]
impl<T: Send + Sync + 'static> SharedState for T {}

impl Inject for Context {
    fn requirement() -> Option<Requirement> {
        None
    }
    fn inject(ctx: &Context) -> Result<Self, RawOutput> {
        Ok(ctx.clone())
    }
}

impl<T: SharedState> Inject for State<T> {
    fn requirement() -> Option<Requirement> {
        Some(Requirement {
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
        })
    }
    fn inject(ctx: &Context) -> Result<Self, RawOutput> {
        // Checked at start-up, so this only fails for a registry used
        // without the server's state; say so rather than panic.
        ctx.state::<T>().ok_or_else(|| {
            tracing::error!(
                state = std::any::type_name::<T>(),
                "tool needs state that was not registered"
            );
            RawOutput::Done(CallToolResult::error(
                "internal error: the server is misconfigured",
            ))
        })
    }
}
