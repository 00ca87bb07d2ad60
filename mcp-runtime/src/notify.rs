//! Telling connected clients that something changed: a resource they
//! subscribed to (`notifications/resources/updated`), or a list
//! (`notifications/{tools,resources,prompts}/list_changed`); and log
//! messages that belong to no call (`notifications/message`).
//!
//! Every initialized session registers its output with the server's hub:
//! on stdio the connection's stdout, on HTTP the session's GET stream. The
//! hub holds them weakly, so a session that ends simply stops receiving.
//!
//! The 2026-07-28 era has no sessions: a client opens a subscription
//! (`subscriptions/listen`) naming what it wants to hear of, and hears
//! only that, each notification tagged with the subscription's id. The
//! hub holds subscriptions weakly too: the connection serving the listen
//! request owns it, and a stream the client closed ends it.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use serde_json::{Value, json};

use crate::context::{LogLevel, SessionShared};
use crate::jsonrpc::{self, RequestId};
use crate::outbox::{Outbox, WeakOutbox};

/// The sessions to tell, shared by the server and its [`Notifier`]s.
#[derive(Default)]
pub(crate) struct Hub {
    sessions: Mutex<Vec<Listener>>,
    subscriptions: Mutex<Vec<Weak<Subscription>>>,
}

/// The `_meta` key that tags a notification with its subscription.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// What a 2026-07-28 subscription hears of (`notifications` of
/// `subscriptions/listen`, as acknowledged).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Filter {
    pub(crate) tools: bool,
    pub(crate) prompts: bool,
    pub(crate) resources: bool,
    pub(crate) uris: HashSet<String>,
}

impl Filter {
    /// Whether a notification `method` with `params` is one this filter
    /// asked for.
    fn wants(&self, method: &str, params: &Value) -> bool {
        match method {
            "notifications/tools/list_changed" => self.tools,
            "notifications/prompts/list_changed" => self.prompts,
            "notifications/resources/list_changed" => self.resources,
            "notifications/resources/updated" => params
                .get("uri")
                .and_then(Value::as_str)
                .is_some_and(|uri| self.uris.contains(uri)),
            _ => false,
        }
    }

    /// The `notifications` object of the acknowledgement.
    pub(crate) fn to_json(&self) -> Value {
        let mut notifications = serde_json::Map::new();
        for (key, on) in [
            ("toolsListChanged", self.tools),
            ("promptsListChanged", self.prompts),
            ("resourcesListChanged", self.resources),
        ] {
            if on {
                notifications.insert(key.into(), Value::Bool(true));
            }
        }
        if !self.uris.is_empty() {
            let mut uris: Vec<&String> = self.uris.iter().collect();
            uris.sort();
            notifications.insert("resourceSubscriptions".into(), json!(uris));
        }
        Value::Object(notifications)
    }
}

/// One open `subscriptions/listen`: where its notifications go, and what
/// it hears of.
pub(crate) struct Subscription {
    /// The id of the listen request, which tags its notifications.
    pub(crate) id: RequestId,
    /// The same id as a value, for the tag.
    tag: Value,
    pub(crate) filter: Filter,
    /// The listen request's stream (held: the stream ends when the
    /// subscription does).
    out: Outbox,
    ended: AtomicBool,
}

impl Subscription {
    /// Writes `method` with `params` tagged with this subscription's id.
    fn send(&self, method: &str, params: &Value) -> bool {
        let mut params = params.clone();
        if let Value::Object(map) = &mut params {
            let meta = map.entry("_meta").or_insert_with(|| json!({}));
            meta[SUBSCRIPTION_ID] = self.tag.clone();
        }
        let mut line = Vec::new();
        jsonrpc::write_notification(&mut line, method, &params);
        line.push(b'\n');
        self.out.try_send(&line)
    }

    /// Ends the subscription gracefully: its listen request is answered
    /// (a result naming the subscription), which closes its stream.
    pub(crate) fn end(&self) {
        if self.ended.swap(true, Ordering::AcqRel) {
            return;
        }
        let result = json!({
            "resultType": "complete",
            "_meta": { SUBSCRIPTION_ID: self.tag },
        });
        let mut line = Vec::new();
        jsonrpc::write_result(&mut line, &self.id, &result);
        line.push(b'\n');
        let _ = self.out.try_send(&line);
    }

    /// Stops it without an answer (the client cancelled it).
    pub(crate) fn cancel(&self) {
        self.ended.store(true, Ordering::Release);
    }

    fn is_live(&self) -> bool {
        !self.ended.load(Ordering::Acquire) && !self.out.is_closed()
    }
}

struct Listener {
    session: Weak<SessionShared>,
    out: WeakOutbox,
}

impl Hub {
    /// Registers an initialized session and where its server-initiated
    /// messages go.
    pub(crate) fn register(&self, session: &Arc<SessionShared>, out: WeakOutbox) {
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.retain(|l| l.session.strong_count() > 0);
            sessions.push(Listener {
                session: Arc::downgrade(session),
                out,
            });
        }
    }

    /// Opens a subscription on `out` (a listen request's stream) and
    /// acknowledges it there: the acknowledgement is its first message.
    pub(crate) fn subscribe(
        &self,
        id: RequestId,
        filter: Filter,
        out: Outbox,
    ) -> Arc<Subscription> {
        let subscription = Arc::new(Subscription {
            tag: serde_json::from_str(id.as_json()).unwrap_or(Value::Null),
            id,
            filter,
            out,
            ended: AtomicBool::new(false),
        });
        let ack = json!({ "notifications": subscription.filter.to_json() });
        subscription.send("notifications/subscriptions/acknowledged", &ack);
        if let Ok(mut subscriptions) = self.subscriptions.lock() {
            subscriptions.retain(|s| s.upgrade().is_some_and(|s| s.is_live()));
            subscriptions.push(Arc::downgrade(&subscription));
        }
        subscription
    }

    /// Ends every open subscription gracefully (shutdown).
    #[cfg(feature = "http")]
    pub(crate) fn end_subscriptions(&self) {
        let Ok(mut subscriptions) = self.subscriptions.lock() else {
            return;
        };
        for subscription in subscriptions.drain(..).filter_map(|s| s.upgrade()) {
            subscription.end();
        }
    }

    /// Sends `method` with `params` to every live subscription that asked
    /// for it; returns how many it was sent to.
    fn send_to_subscriptions(&self, method: &str, params: &Value) -> usize {
        let Ok(mut subscriptions) = self.subscriptions.lock() else {
            return 0;
        };
        subscriptions.retain(|s| s.upgrade().is_some_and(|s| s.is_live()));
        subscriptions
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|s| s.filter.wants(method, params) && s.send(method, params))
            .count()
    }

    /// Sends `method` with `params` to every live session `to` selects,
    /// and to every subscription that asked for it; returns how many it
    /// was sent to.
    fn send(&self, method: &str, params: &Value, to: impl Fn(&SessionShared) -> bool) -> usize {
        self.send_to_sessions(method, params, to) + self.send_to_subscriptions(method, params)
    }

    fn send_to_sessions(
        &self,
        method: &str,
        params: &Value,
        to: impl Fn(&SessionShared) -> bool,
    ) -> usize {
        let mut line = Vec::new();
        jsonrpc::write_notification(&mut line, method, params);
        line.push(b'\n');
        let Ok(mut sessions) = self.sessions.lock() else {
            return 0;
        };
        sessions.retain(|l| l.session.strong_count() > 0);
        let mut sent = 0;
        for listener in sessions.iter() {
            let (Some(session), Some(out)) = (listener.session.upgrade(), listener.out.upgrade())
            else {
                continue;
            };
            if to(&session) && out.try_send(&line) {
                sent += 1;
            }
        }
        sent
    }
}

/// A handle that tells the server's clients about changes, from any task.
/// Cheap to clone; get one with [`Server::notifier`](crate::Server::notifier)
/// before serving.
///
/// ```
/// use mcp_runtime::Server;
///
/// let mut server = Server::new("weather", "1.0.0");
/// let notifier = server.notifier();
/// // Later, from a task that refreshes the data:
/// notifier.resource_updated("weather://cities");
/// # let _ = server;
/// ```
#[derive(Clone, Default)]
pub struct Notifier {
    pub(crate) hub: Arc<Hub>,
}

impl Notifier {
    /// Tells the sessions subscribed to `uri` (`resources/subscribe`) that
    /// it changed. Returns how many sessions were told.
    pub fn resource_updated(&self, uri: &str) -> usize {
        self.hub.send(
            "notifications/resources/updated",
            &json!({ "uri": uri }),
            |session| {
                session
                    .subscriptions
                    .lock()
                    .is_ok_and(|subscribed| subscribed.contains(uri))
            },
        )
    }

    /// Tells every session that the list of tools changed.
    pub fn tools_changed(&self) -> usize {
        self.list_changed("notifications/tools/list_changed")
    }

    /// Tells every session that the list of resources changed.
    pub fn resources_changed(&self) -> usize {
        self.list_changed("notifications/resources/list_changed")
    }

    /// Tells every session that the list of prompts changed.
    pub fn prompts_changed(&self) -> usize {
        self.list_changed("notifications/prompts/list_changed")
    }

    /// Sends a log message (`notifications/message`) to every session
    /// whose level (`logging/setLevel`, `info` until set) lets `level`
    /// through, as `logger` if given. For messages that belong to no call;
    /// a tool logs with [`Context::log`](crate::Context::log). Returns how
    /// many sessions were told.
    pub fn log(&self, level: LogLevel, logger: Option<&str>, data: serde_json::Value) -> usize {
        self.log_where(level, logger, data, |_| true)
    }

    /// [`Notifier::log`] to the sessions `to` selects.
    pub(crate) fn log_where(
        &self,
        level: LogLevel,
        logger: Option<&str>,
        data: serde_json::Value,
        to: impl Fn(&SessionShared) -> bool,
    ) -> usize {
        let mut params = serde_json::Map::new();
        params.insert("level".into(), level.as_str().into());
        if let Some(logger) = logger {
            params.insert("logger".into(), logger.into());
        }
        params.insert("data".into(), data);
        self.hub.send(
            "notifications/message",
            &serde_json::Value::Object(params),
            |session| session.lets_through(level) && to(session),
        )
    }

    fn list_changed(&self, method: &str) -> usize {
        self.hub.send(method, &json!({}), |_| true)
    }
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier").finish_non_exhaustive()
    }
}
