//! One store's pub/sub subscription: a background task subscribed to a set
//! of channels (fixed when it is made) on a connection of its own, that
//! hands each message to the store, subscribes again when Redis went away,
//! and runs the store's hook each time it (re)subscribes, for the store to
//! catch up on what it may have missed meanwhile.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use ::redis::{Client, RedisError};
use futures_util::StreamExt;
use tokio::sync::watch;

use super::now_ms;

/// The first retry after this, doubling up to [`MAX_BACKOFF`].
const MIN_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// How often the subscription checks that Redis still answers (a
/// connection that went silent, not closed, is found out this way).
const PING_EVERY: Duration = Duration::from_secs(10);

/// Where the subscription stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Subscription {
    /// Its first attempt has not ended yet.
    Starting,
    Subscribed,
    Down,
}

/// One message heard: the channel it came on, and its payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Message {
    pub(crate) channel: String,
    pub(crate) payload: Vec<u8>,
}

/// Where the messages go, in the order heard (called on the subscriber's
/// task: it must not block).
pub(crate) type Delivery = Arc<dyn Fn(Message) + Send + Sync>;

/// What a store does each time the subscription is made (the first time
/// too), before the messages heard on it are delivered: given the time
/// (ms since the epoch, this process's clock) it was last known
/// subscribed, or when it started, it catches up on what was published
/// meanwhile. Best effort: a failure means the subscription is about to be
/// lost again anyway.
pub(crate) type Resubscribed =
    Arc<dyn Fn(u64) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// The background task: see the module's docs. Runs until aborted.
pub(crate) struct Subscriber {
    pub(crate) client: Client,
    /// `host:port`, for the logs.
    pub(crate) addr: String,
    /// What the logs call it (`task events`).
    pub(crate) name: &'static str,
    pub(crate) channels: Vec<String>,
    pub(crate) timeout: Duration,
    pub(crate) deliver: Delivery,
    pub(crate) resubscribed: Option<Resubscribed>,
    pub(crate) report: watch::Sender<Subscription>,
}

impl Subscriber {
    /// Runs until aborted (when the store is dropped).
    pub(crate) async fn run(self) {
        let name = self.name;
        let mut backoff = MIN_BACKOFF;
        // Since when every message must be heard: the subscription was up
        // then, or (at first) the store's receivers taken before are
        // waiting.
        let mut alive_at = now_ms();
        let mut again = false;
        loop {
            match self.subscribe().await {
                Ok((sink, stream)) => {
                    backoff = MIN_BACKOFF;
                    if again {
                        tracing::info!(redis = %self.addr, "{name}: subscribed again");
                    }
                    again = true;
                    if let Some(hook) = &self.resubscribed {
                        hook(alive_at).await;
                    }
                    self.report.send_replace(Subscription::Subscribed);
                    let why = self.forward(sink, stream, &mut alive_at).await;
                    tracing::warn!(redis = %self.addr, "{name}: subscription lost ({why}); retrying");
                }
                Err(why) => {
                    tracing::debug!(redis = %self.addr, "{name}: cannot subscribe ({why}); retrying in {backoff:?}");
                }
            }
            self.report.send_replace(Subscription::Down);
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }

    async fn subscribe(
        &self,
    ) -> Result<(::redis::aio::PubSubSink, ::redis::aio::PubSubStream), String> {
        let attempt = async {
            let (mut sink, stream) = self.client.get_async_pubsub().await?.split();
            sink.subscribe(&self.channels).await?;
            Ok::<_, RedisError>((sink, stream))
        };
        match tokio::time::timeout(self.timeout, attempt).await {
            Ok(Ok(pair)) => Ok(pair),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!("no answer within {:?}", self.timeout)),
        }
    }

    /// Delivers messages until the connection ends or stops answering;
    /// why. Notes in `alive_at` when the subscription was last known up.
    async fn forward(
        &self,
        mut sink: ::redis::aio::PubSubSink,
        mut stream: ::redis::aio::PubSubStream,
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
                    (self.deliver)(Message {
                        channel: message.get_channel_name().to_owned(),
                        payload: message.get_payload_bytes().to_vec(),
                    });
                }
                _ = ping.tick() => {
                    match tokio::time::timeout(self.timeout, sink.ping::<::redis::Value>()).await {
                        Ok(Ok(_)) => *alive_at = now_ms(),
                        Ok(Err(e)) => return e.to_string(),
                        Err(_) => return format!("no answer to PING within {:?}", self.timeout),
                    }
                }
            }
        }
    }
}
