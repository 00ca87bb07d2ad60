//! The fleet's bus for [`Notifier`](crate::Notifier) events on Redis: what
//! an instance's notifier hands over is published on the channel every
//! instance hears (`mcp:sessions:events`), in order, by one task; every
//! instance, this one included, passes each event it hears to its hub,
//! which tells the sessions whose GET stream it holds and its 2026-07-28
//! listen streams. A resource update reaches the legacy sessions
//! subscribed to it through the store instead (appended to each one's GET
//! stream, kept for a session whose stream is open nowhere), and only the
//! listen streams through the channel.

use std::sync::Arc;

use serde_json::json;
use tokio::sync::mpsc;

use crate::jsonrpc::write_notification;
use crate::notify::{FleetBus, FleetEvent, Hub};
use crate::sessions::RedisSessions;

/// [`FleetBus`] on Redis: a queue, and the task that publishes it.
pub(super) struct RedisBus {
    queue: mpsc::UnboundedSender<FleetEvent>,
}

impl RedisBus {
    /// A bus publishing through `store`, a resource update appended to the
    /// GET streams of its subscribers keeping about `keep` entries. Needs
    /// a tokio runtime (its task starts now).
    pub(super) fn new(store: RedisSessions, keep: usize) -> RedisBus {
        let (queue, events) = mpsc::unbounded_channel();
        tokio::spawn(publish(store, keep, events));
        RedisBus { queue }
    }
}

impl FleetBus for RedisBus {
    fn publish(&self, event: FleetEvent) {
        let _ = self.queue.send(event);
    }
}

/// Publishes the events queued, in order, until the bus is dropped.
async fn publish(
    store: RedisSessions,
    keep: usize,
    mut events: mpsc::UnboundedReceiver<FleetEvent>,
) {
    while let Some(event) = events.recv().await {
        if let FleetEvent::ResourceUpdated { uri } = &event {
            let mut line = Vec::new();
            write_notification(
                &mut line,
                "notifications/resources/updated",
                &json!({ "uri": uri }),
            );
            let line = String::from_utf8_lossy(&line);
            if let Err(error) = store.notify_uri(uri, &line, keep).await {
                tracing::warn!(%uri, %error, "the sessions subscribed to a resource were not told of its update");
            }
        }
        if let Err(error) = store.broadcast(&event.encode()).await {
            tracing::warn!(%error, "a notifier event was not told to the fleet");
        }
    }
}

/// What an instance heard on the fleet's channel, if it is a notifier
/// event: told to `hub`'s outputs. Whether it was one.
pub(super) fn heard(hub: &Arc<Hub>, text: &str) -> bool {
    let Some(event) = FleetEvent::decode(text) else {
        return false;
    };
    let delivered = hub.deliver(&event, event.audience());
    tracing::debug!(
        ?event,
        told = delivered.total(),
        "a notifier event from the fleet"
    );
    true
}
