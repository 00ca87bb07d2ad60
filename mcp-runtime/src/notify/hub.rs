//! The hub: the outputs of the sessions and subscriptions a
//! [`Notifier`](crate::Notifier) tells about changes.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, Weak};

use serde_json::{Value, json};

use super::subscription::{Filter, Subscription};
use crate::context::SessionShared;
use crate::jsonrpc::{self, RequestId};
use crate::outbox::{Outbox, WeakOutbox};

/// The sessions to tell, shared by the server and its [`Notifier`]s.
#[derive(Default)]
pub(crate) struct Hub {
    sessions: Mutex<Vec<Listener>>,
    subscriptions: Mutex<Vec<Weak<Subscription>>>,
}

struct Listener {
    session: Weak<SessionShared>,
    out: WeakOutbox,
}

impl Listener {
    fn is(&self, session: &Arc<SessionShared>) -> bool {
        std::ptr::eq(self.session.as_ptr(), Arc::as_ptr(session))
    }
}

impl Hub {
    /// Registers an initialized session and where its server-initiated
    /// messages go (in place of where they went, if it was registered
    /// already). It stays registered until it ends or is
    /// [unregistered](Hub::unregister).
    pub(crate) fn register(&self, session: &Arc<SessionShared>, out: WeakOutbox) {
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.retain(|l| l.session.strong_count() > 0 && !l.is(session));
            sessions.push(Listener {
                session: Arc::downgrade(session),
                out,
            });
        }
    }

    /// Stops telling `session` about changes (in a fleet: this instance no
    /// longer holds its GET stream). `false` if it was not registered.
    pub(crate) fn unregister(&self, session: &Arc<SessionShared>) -> bool {
        let Ok(mut sessions) = self.sessions.lock() else {
            return false;
        };
        let before = sessions.len();
        sessions.retain(|l| !l.is(session));
        let removed = sessions.len() < before;
        sessions.retain(|l| l.session.strong_count() > 0);
        removed
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
    pub(super) fn send(
        &self,
        method: &str,
        params: &Value,
        to: impl Fn(&SessionShared) -> bool,
    ) -> usize {
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
