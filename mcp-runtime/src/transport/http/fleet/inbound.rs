//! What this instance hears from the fleet, and what it does on its own
//! every so often: answers and cancellations routed to it go to the
//! cached sessions they are for; a session ended elsewhere (by `DELETE` on
//! another instance, the fleet's reaper, or to make room) leaves the cache,
//! which closes its GET stream. Every [`BUSY_EVERY`] it renews the busy
//! leases of the sessions it serves (a request in flight, a stream being
//! read), so that no instance ends them meanwhile; every
//! [`reap_every`]`(idle timeout)` it offers to reap the fleet's idle
//! sessions (one instance does, each round), and with the leases it notes
//! how far the GET streams it holds were sent. Both stop once the cache
//! (the endpoint) is gone.

use std::sync::Weak;
use std::time::Duration;

use tokio::sync::broadcast;

use std::sync::Arc;

use super::super::session::Session;
use super::super::sessions::Sessions;
use super::bus;
use super::export::{Exports, Told};
use super::routing::{self, Routed};
use super::stream::{Heard, Holders};
use crate::notify::Hub;
use crate::sessions::data::Inbound;
use crate::sessions::{BUSY_EVERY, RedisSessions, reap_every};

/// Hears `heard` for the sessions of `cache` and the GET streams of
/// `holders`, as long as the cache lives.
pub(super) async fn listen(
    cache: Weak<Sessions>,
    holders: Arc<Holders>,
    exports: Arc<Exports>,
    hub: Arc<Hub>,
    mut heard: broadcast::Receiver<Inbound>,
) {
    loop {
        let inbound = match heard.recv().await {
            Ok(inbound) => inbound,
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::warn!(missed, "session events came faster than they were handled");
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let Some(cache) = cache.upgrade() else {
            return;
        };
        match inbound {
            Inbound::Routed(text) | Inbound::Broadcast(text) => {
                // The fleet's channel carries the notifier's events too.
                if let Some(told) = Told::from_text(&text) {
                    exports.heard(&cache, told);
                } else if let Some(routed) = Routed::from_text(&text) {
                    deliver(&cache, &routed);
                } else {
                    bus::heard(&hub, &text);
                }
            }
            Inbound::Ended { session } => {
                holders.tell(&session, Heard::Over);
                if cache.peek(&session).is_some() {
                    tracing::debug!(%session, "session ended through another instance");
                    cache.remove(&session);
                }
            }
            Inbound::Event {
                session,
                stream,
                entry,
                line,
            } if stream == "0" => holders.tell(&session, Heard::Event { entry, line }),
            Inbound::Taken { session } => holders.tell(&session, Heard::Over),
            Inbound::Resubscribed => holders.read_again(),
            // A POST stream's event, or a change (read on the next request).
            Inbound::Event { .. } | Inbound::Changed { .. } => {}
        }
    }
}

/// An answer to one of this instance's questions, or a cancellation of
/// one of its calls, to the cached session it is for.
fn deliver(cache: &Sessions, routed: &Routed) {
    let Some(session) = cache.peek(&routed.s) else {
        return;
    };
    deliver_to(&session, routed);
}

/// An answer or cancellation to `session`, cached here.
pub(super) fn deliver_to(session: &Session, routed: &Routed) {
    let (Some(state), Some(id)) = (session.fleet.get(), routed.request()) else {
        return;
    };
    let delivered = match routed.k.as_str() {
        routing::ANSWER => {
            state
                .routed
                .answer(&id, routed.result.as_deref(), routed.error.as_deref())
        }
        routing::CANCEL => state.routed.cancel(&id, routed.reason.as_deref()),
        _ => false,
    };
    tracing::debug!(session = %routed.s, kind = %routed.k, delivered, "a message from another instance");
}

/// What the lease and reaping ticks work on.
pub(super) struct Ticks {
    /// The sessions cached here; the ticks stop once it is gone.
    pub(super) cache: Weak<Sessions>,
    pub(super) holders: Arc<Holders>,
    pub(super) store: RedisSessions,
    pub(super) instance: String,
    pub(super) idle: Duration,
}

impl Ticks {
    /// Every [`BUSY_EVERY`]: the busy leases renewed, and how far the GET
    /// streams held here were sent noted; every `reap_every(idle)`: a
    /// round of reaping offered. Until the cache is gone.
    pub(super) async fn run(self) {
        let mut lease = tokio::time::interval(BUSY_EVERY);
        let mut reap = tokio::time::interval(reap_every(self.idle));
        for ticks in [&mut lease, &mut reap] {
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        }
        loop {
            let leasing = tokio::select! {
                _ = lease.tick() => true,
                _ = reap.tick() => false,
            };
            if self.cache.strong_count() == 0 {
                return;
            }
            if leasing {
                self.lease().await;
            } else {
                self.reap().await;
            }
        }
    }

    async fn lease(&self) {
        let busy: Vec<String> = (self.cache.upgrade().map(|cache| cache.all()))
            .unwrap_or_default()
            .into_iter()
            .filter(|session| session.is_busy())
            .map(|session| session.id.to_string())
            .collect();
        if let Err(error) = self.store.busy(&busy).await {
            tracing::warn!(%error, "busy leases not renewed");
        }
        let cursors = self.holders.cursors();
        if let Err(error) = self.store.delivered(&self.instance, &cursors).await {
            tracing::debug!(%error, "how far GET streams were sent not noted");
        }
    }

    async fn reap(&self) {
        match self.store.reap(self.idle).await {
            Ok(ended) => {
                if let Some(cache) = self.cache.upgrade() {
                    for session in ended {
                        tracing::debug!(%session, "session ended after its idle timeout");
                        cache.remove(&session);
                    }
                }
            }
            Err(error) => tracing::warn!(%error, "idle sessions not reaped"),
        }
    }
}
