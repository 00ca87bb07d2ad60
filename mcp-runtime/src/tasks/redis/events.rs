//! The events of a [`RedisTasks`](super::RedisTasks): one subscription to
//! the store's channel (the shared [`Subscriber`]), whose messages are the
//! ids of changed tasks, and which replays, each time it subscribes, the
//! ids of the tasks changed since it was last known subscribed: those it
//! may have missed.

use std::sync::Arc;
use std::time::Duration;

use redis::{AsyncCommands, Client};
use tokio::sync::{broadcast, watch};

use crate::redis::{Message, Subscriber, Subscription};

/// How far before the subscription was last known alive it replays the
/// changes: the instances' clocks may differ by this much.
const CLOCK_SKEW_MS: u64 = 30_000;

/// What the tasks' subscriber needs to know.
pub(super) struct Events {
    pub(super) client: Client,
    /// `host:port`, for the logs.
    pub(super) addr: String,
    pub(super) channel: String,
    /// The key of the changes set.
    pub(super) changes: String,
    pub(super) timeout: Duration,
    pub(super) events: broadcast::Sender<String>,
}

impl Events {
    /// The subscriber behind [`TaskStore::events`](crate::tasks::TaskStore::events):
    /// forwards each id, and replays the changes set on every subscribe.
    pub(super) fn subscriber(self, report: watch::Sender<Subscription>) -> Subscriber {
        let events = self.events.clone();
        let deliver = Arc::new(move |message: Message| {
            if let Ok(id) = String::from_utf8(message.payload) {
                // No receiver is fine: no one watches.
                let _ = events.send(id);
            }
        });
        let replay = Arc::new(Replay {
            client: self.client.clone(),
            addr: self.addr.clone(),
            changes: self.changes,
            timeout: self.timeout,
            events: self.events,
        });
        Subscriber {
            client: self.client,
            addr: self.addr,
            name: "task events",
            channels: vec![self.channel],
            timeout: self.timeout,
            deliver,
            resubscribed: Some(Arc::new(move |alive_at| {
                let replay = Arc::clone(&replay);
                Box::pin(async move { replay.run(alive_at).await })
            })),
            report,
        }
    }
}

/// What a (re)subscription replays from.
struct Replay {
    client: Client,
    addr: String,
    changes: String,
    timeout: Duration,
    events: broadcast::Sender<String>,
}

impl Replay {
    /// Announces the tasks changed since a little before `alive_at` (a
    /// change announced twice is only read twice). Best effort: if Redis
    /// fails now, the subscription is about to be lost again anyway.
    async fn run(&self, alive_at: u64) {
        let since = alive_at.saturating_sub(CLOCK_SKEW_MS);
        let read = async {
            let mut connection = self.client.get_multiplexed_async_connection().await?;
            connection
                .zrangebyscore::<_, _, _, Vec<String>>(&self.changes, since, "+inf")
                .await
        };
        match tokio::time::timeout(self.timeout, read).await {
            Ok(Ok(ids)) => {
                tracing::debug!(redis = %self.addr, "task events: {} changed meanwhile", ids.len());
                for id in ids {
                    let _ = self.events.send(id);
                }
            }
            Ok(Err(e)) => {
                tracing::warn!(redis = %self.addr, "task events: cannot read what changed meanwhile: {e}");
            }
            Err(_) => {
                tracing::warn!(redis = %self.addr, "task events: cannot read what changed meanwhile: no answer within {:?}", self.timeout);
            }
        }
    }
}
