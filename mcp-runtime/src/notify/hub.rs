//! The hub: the outputs of the sessions and subscriptions a
//! [`Notifier`](crate::Notifier) tells about changes.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use serde_json::{Value, json};

use super::fleet::{DeliverTo, Delivered, FleetBus, FleetEvent};
use super::subscription::{Filter, Subscription};
use crate::context::SessionShared;
use crate::jsonrpc::{self, RequestId};
use crate::outbox::{Outbox, WeakOutbox};

/// The sessions to tell, shared by the server and its
/// [`Notifier`](crate::Notifier)s.
#[derive(Default)]
pub(crate) struct Hub {
    sessions: Mutex<Vec<Listener>>,
    subscriptions: Mutex<Vec<Weak<Subscription>>>,
    /// In a fleet, where the notifier's events go instead of straight to
    /// this hub's outputs.
    bus: OnceLock<Arc<dyn FleetBus>>,
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

    /// Makes this hub's [`Notifier`](crate::Notifier)s hand their events
    /// to `bus` (the fleet) instead of telling this hub's outputs; the
    /// transport then delivers each event the fleet hears with
    /// [`Hub::deliver`]. Set once, before serving: `false` if a bus was
    /// set already (it stays).
    #[cfg_attr(not(test), allow(dead_code))] // The fleet transport calls it.
    pub(crate) fn set_bus(&self, bus: Arc<dyn FleetBus>) -> bool {
        self.bus.set(bus).is_ok()
    }

    /// The fleet's bus, if one was set.
    pub(super) fn bus(&self) -> Option<&Arc<dyn FleetBus>> {
        self.bus.get()
    }

    /// Tells this hub's outputs of `event`: the legacy sessions registered
    /// here that it [reaches](FleetEvent) (every one for a list change,
    /// those whose level lets a log message through, those subscribed to
    /// an updated resource), unless `to` is [`DeliverTo::Listens`], and
    /// the listen subscriptions that asked for it. Whether a bus is set
    /// makes no difference here. Returns how many of each were told.
    pub(crate) fn deliver(&self, event: &FleetEvent, to: DeliverTo) -> Delivered {
        match to {
            DeliverTo::All => self.deliver_where(event, |_| true),
            DeliverTo::Listens => {
                let (method, params) = event.notification();
                Delivered {
                    sessions: 0,
                    listens: self.send_to_subscriptions(method, &params),
                }
            }
        }
    }

    /// [`Hub::deliver`] to everyone, of the legacy sessions only those `to`
    /// selects.
    pub(super) fn deliver_where(
        &self,
        event: &FleetEvent,
        to: impl Fn(&SessionShared) -> bool,
    ) -> Delivered {
        let (method, params) = event.notification();
        Delivered {
            sessions: self.send_to_sessions(method, &params, |s| event.reaches(s) && to(s)),
            listens: self.send_to_subscriptions(method, &params),
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
