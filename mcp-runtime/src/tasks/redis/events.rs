//! The events of a [`RedisTasks`](super::RedisTasks): one subscription to
//! the channel per store, run by a background task that subscribes again
//! when Redis went away, and replays what it may have missed meanwhile.

use std::time::Duration;

use futures_util::StreamExt;
use redis::{AsyncCommands, Client, RedisError};
use tokio::sync::{broadcast, watch};

use crate::tasks::id::now_ms;

/// The events subscription: first retry after this, doubling up to
/// [`MAX_BACKOFF`].
const MIN_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// How often the events subscription checks that Redis still answers (a
/// connection that went silent, not closed, is found out this way).
const PING_EVERY: Duration = Duration::from_secs(10);

/// How far before the subscription was last known alive it replays the
/// changes: the instances' clocks may differ by this much.
const CLOCK_SKEW_MS: u64 = 30_000;

/// Where the events subscription stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Subscription {
    /// Its first attempt has not ended yet.
    Starting,
    Subscribed,
    Down,
}

/// The background task behind [`TaskStore::events`](crate::tasks::TaskStore::events): subscribes to the
/// channel, forwards each id, and subscribes again when Redis went away.
/// Each time it subscribes, it first replays the ids of the tasks changed
/// since it was last known subscribed (or since it started), from the
/// changes set: those it may have missed.
pub(super) struct Subscriber {
    pub(super) client: Client,
    /// `host:port`, for the logs.
    pub(super) addr: String,
    pub(super) channel: String,
    /// The key of the changes set.
    pub(super) changes: String,
    pub(super) timeout: Duration,
    pub(super) events: broadcast::Sender<String>,
    pub(super) report: watch::Sender<Subscription>,
}

impl Subscriber {
    /// Runs until aborted (when the store is dropped).
    pub(super) async fn run(self) {
        let mut backoff = MIN_BACKOFF;
        // Since when every change must be heard: the subscription was up
        // then, or (at first) the receivers taken before are waiting.
        let mut alive_at = now_ms();
        let mut again = false;
        loop {
            match self.subscribe().await {
                Ok((sink, stream)) => {
                    backoff = MIN_BACKOFF;
                    if again {
                        tracing::info!(redis = %self.addr, "task events: subscribed again");
                    }
                    again = true;
                    self.replay(alive_at).await;
                    self.report.send_replace(Subscription::Subscribed);
                    let why = self.forward(sink, stream, &mut alive_at).await;
                    tracing::warn!(redis = %self.addr, "task events: subscription lost ({why}); retrying");
                }
                Err(why) => {
                    tracing::debug!(redis = %self.addr, "task events: cannot subscribe ({why}); retrying in {backoff:?}");
                }
            }
            self.report.send_replace(Subscription::Down);
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }

    async fn subscribe(
        &self,
    ) -> Result<(redis::aio::PubSubSink, redis::aio::PubSubStream), String> {
        let attempt = async {
            let (mut sink, stream) = self.client.get_async_pubsub().await?.split();
            sink.subscribe(&self.channel).await?;
            Ok::<_, RedisError>((sink, stream))
        };
        match tokio::time::timeout(self.timeout, attempt).await {
            Ok(Ok(pair)) => Ok(pair),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!("no answer within {:?}", self.timeout)),
        }
    }

    /// Announces the tasks changed since a little before `alive_at` (a
    /// change announced twice is only read twice). Best effort: if Redis
    /// fails now, the subscription is about to be lost again anyway.
    async fn replay(&self, alive_at: u64) {
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

    /// Forwards ids until the connection ends or stops answering; why.
    /// Notes in `alive_at` when the subscription was last known up.
    async fn forward(
        &self,
        mut sink: redis::aio::PubSubSink,
        mut stream: redis::aio::PubSubStream,
        alive_at: &mut u64,
    ) -> String {
        *alive_at = now_ms();
        let mut ping = tokio::time::interval(PING_EVERY);
        ping.tick().await;
        loop {
            tokio::select! {
                message = stream.next() => {
                    let Some(message) = message else {
                        return "connection closed".into();
                    };
                    *alive_at = now_ms();
                    if let Ok(id) = message.get_payload::<String>() {
                        // No receiver is fine: no one watches.
                        let _ = self.events.send(id);
                    }
                }
                _ = ping.tick() => {
                    match tokio::time::timeout(self.timeout, sink.ping::<redis::Value>()).await {
                        Ok(Ok(_)) => *alive_at = now_ms(),
                        Ok(Err(e)) => return e.to_string(),
                        Err(_) => return format!("no answer to PING within {:?}", self.timeout),
                    }
                }
            }
        }
    }
}
