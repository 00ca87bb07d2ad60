//! The messages half of [`RedisSessions`]: each session's streams of
//! events (stored before they are announced, so that a holder that ranges
//! then goes live misses none), the instance holding its GET stream, the
//! channels instances hear, and routing to one instance or all.
//!
//! A holder's order is: [`hold`](RedisSessions::hold), then
//! [`replay`](RedisSessions::replay) from its cursor, then the
//! [`Inbound::Event`]s heard live, skipping entry ids it already sent: once
//! `hold` ran, every later append is announced to it, and every earlier one
//! is in what it ranges. After [`Inbound::Resubscribed`] it ranges again
//! from the last id it sent.

use std::sync::Arc;

use redis::Value;
use tokio::sync::broadcast;

use super::super::SessionStoreError;
use super::super::data::{Held, Inbound};
use super::{RedisSessions, decode};
use crate::redis::{Listening, Message, Subscriber};

impl RedisSessions {
    /// The channel of `instance`.
    fn instance_channel(&self, instance: &str) -> String {
        self.key(&format!("instance:{instance}"))
    }

    /// The channel every instance hears.
    fn events_channel(&self) -> String {
        self.key("sessions:events")
    }

    /// The key of stream `stream` of session `id`.
    fn stream_key(&self, id: &str, stream: &str) -> String {
        self.key(&format!("session:{id}:ev:{stream}"))
    }

    /// Appends `line` to stream `stream` of session `id` (`0`: its GET
    /// stream), keeping about `keep` entries, and announces it to the
    /// instance holding the GET stream, if one does: the entry's id
    /// (`MS-SEQ`), or `None` if the session is gone.
    pub(crate) async fn append(
        &self,
        id: &str,
        stream: &str,
        line: &str,
        keep: usize,
    ) -> Result<Option<String>, SessionStoreError> {
        let doing = format!("appending to session {id}");
        let keep = keep.max(1).to_string();
        // Not again on a broken connection: the line may be in already.
        let answer = self
            .invoke(
                &self.inner.scripts.append,
                &[id, stream, line, &keep],
                false,
                &doing,
            )
            .await?;
        match answer {
            Value::Nil => Ok(None),
            other => decode::text(&other)
                .map(Some)
                .ok_or_else(|| self.unexpected(&doing, "no entry id")),
        }
    }

    /// Copies `events` (numbered in their stream, in order) into stream
    /// `stream` of session `id` as the entries `0-{number}`, skipping those
    /// in already, keeping about `keep` entries; the stream lives `ttl`
    /// (and ends with the session). Then wakes each of `waiting` (an
    /// instance, heard there as [`Inbound::Routed`]). The number of the last
    /// event in, or `None` if the session is gone.
    pub(crate) async fn export(
        &self,
        id: &str,
        stream: &str,
        events: &[(u64, &str)],
        keep: usize,
        ttl: std::time::Duration,
        waiting: &[String],
    ) -> Result<Option<u64>, SessionStoreError> {
        let doing = format!("copying a stream of session {id}");
        let keep = keep.max(1).to_string();
        let ttl = ttl.as_millis().max(1).to_string();
        let waiting = waiting.join(" ");
        let numbers: Vec<String> = events.iter().map(|(n, _)| n.to_string()).collect();
        let mut args: Vec<&str> = vec![id, stream, &keep, &ttl, &waiting];
        for ((_, line), number) in events.iter().zip(&numbers) {
            args.extend([number.as_str(), line]);
        }
        // Again is harmless: what is in already is skipped.
        let answer = self
            .invoke(&self.inner.scripts.export, &args, true, &doing)
            .await?;
        match answer {
            Value::Nil => Ok(None),
            other => decode::number(&other)
                .map(Some)
                .ok_or_else(|| self.unexpected(&doing, "no number")),
        }
    }

    /// Up to `count` entries of stream `stream` of session `id` after the
    /// entry `after` (from the first kept, if `None`), oldest first: (entry
    /// id, line). Empty when there are none, or the session is gone.
    pub(crate) async fn replay(
        &self,
        id: &str,
        stream: &str,
        after: Option<&str>,
        count: usize,
    ) -> Result<Vec<(String, String)>, SessionStoreError> {
        let doing = format!("reading session {id}'s stream {stream}");
        let from = match after {
            None => "-".to_owned(),
            Some(entry) => decode::after(entry).ok_or_else(|| {
                self.unexpected(&doing, &format!("{entry:?} is not a stream entry id"))
            })?,
        };
        let key = self.stream_key(id, stream);
        let (key, from) = (&key, &from);
        let answer: Value = self
            .inner
            .link
            .run(true, &doing, |mut connection| async move {
                redis::cmd("XRANGE")
                    .arg(key)
                    .arg(from)
                    .arg("+")
                    .arg("COUNT")
                    .arg(count.max(1))
                    .query_async(&mut connection)
                    .await
            })
            .await
            .map_err(SessionStoreError::new)?;
        decode::entries(&answer).ok_or_else(|| self.unexpected(&doing, "not stream entries"))
    }

    /// Makes `instance` the holder of session `id`'s GET stream: the
    /// previous holder (told, if another, that it lost it) and the noted
    /// cursor, or `None` if the session is gone.
    pub(crate) async fn hold(
        &self,
        id: &str,
        instance: &str,
    ) -> Result<Option<Held>, SessionStoreError> {
        let doing = format!("holding session {id}'s stream");
        let answer = self
            .invoke(&self.inner.scripts.hold, &[id, instance], true, &doing)
            .await?;
        if answer == Value::Nil {
            return Ok(None);
        }
        let words = decode::texts(&answer).ok_or_else(|| self.unexpected(&doing, "not a list"))?;
        let [previous, delivered] =
            <[String; 2]>::try_from(words).map_err(|_| self.unexpected(&doing, "not two words"))?;
        Ok(Some(Held {
            previous: decode::optional(previous),
            delivered: decode::optional(delivered),
        }))
    }

    /// Lets go of session `id`'s GET stream if `instance` still holds it,
    /// noting how far it was `delivered`: whether it held it.
    pub(crate) async fn release(
        &self,
        id: &str,
        instance: &str,
        delivered: Option<&str>,
    ) -> Result<bool, SessionStoreError> {
        let doing = format!("letting go of session {id}'s stream");
        let answer = self
            .invoke(
                &self.inner.scripts.release,
                &[id, instance, delivered.unwrap_or("")],
                true,
                &doing,
            )
            .await?;
        Ok(decode::number(&answer) == Some(1))
    }

    /// Notes how far `instance` delivered the GET streams it holds, as
    /// (session id, entry id) pairs (its lease tick does, so that a GET
    /// without `Last-Event-ID` after the instance is gone starts near
    /// there): how many it still held.
    pub(crate) async fn delivered(
        &self,
        instance: &str,
        cursors: &[(String, String)],
    ) -> Result<u64, SessionStoreError> {
        if cursors.is_empty() {
            return Ok(0);
        }
        let mut args = vec![instance];
        for (id, entry) in cursors {
            args.extend([id.as_str(), entry.as_str()]);
        }
        let doing = "noting how far GET streams were delivered";
        let answer = self
            .invoke(&self.inner.scripts.delivered, &args, true, doing)
            .await?;
        decode::number(&answer).ok_or_else(|| self.unexpected(doing, "no count"))
    }

    /// Sends `payload` to `instance` (heard there as [`Inbound::Routed`]):
    /// how many heard it (0: the instance is gone, or not listening).
    pub(crate) async fn route(
        &self,
        instance: &str,
        payload: &str,
    ) -> Result<u64, SessionStoreError> {
        let channel = self.instance_channel(instance);
        let message = format!("R {payload}");
        self.publish(
            &channel,
            &message,
            &format!("routing to instance {instance}"),
        )
        .await
    }

    /// Sends `payload` to every instance (heard as [`Inbound::Broadcast`],
    /// by this one too): how many heard it.
    pub(crate) async fn broadcast(&self, payload: &str) -> Result<u64, SessionStoreError> {
        self.publish(&self.events_channel(), payload, "broadcasting")
            .await
    }

    async fn publish(
        &self,
        channel: &str,
        message: &str,
        doing: &str,
    ) -> Result<u64, SessionStoreError> {
        let (channel, message) = (&channel, &message);
        self.inner
            .link
            .run(false, doing, |mut connection| async move {
                redis::cmd("PUBLISH")
                    .arg(channel)
                    .arg(message)
                    .query_async(&mut connection)
                    .await
            })
            .await
            .map_err(SessionStoreError::new)
    }

    /// Appends `line` to the GET stream of every session subscribed to
    /// `uri` (keeping about `keep` entries each), announced to their
    /// holders: how many sessions.
    pub(crate) async fn notify_uri(
        &self,
        uri: &str,
        line: &str,
        keep: usize,
    ) -> Result<u64, SessionStoreError> {
        let doing = format!("telling the subscribers of {uri}");
        let keep = keep.max(1).to_string();
        let answer = self
            .invoke(
                &self.inner.scripts.notify_uri,
                &[uri, line, &keep],
                false,
                &doing,
            )
            .await?;
        decode::number(&answer).ok_or_else(|| self.unexpected(&doing, "no count"))
    }

    /// What this process hears as `instance` (its own channel and the
    /// fleet's), from now on: the subscription starts on the first call
    /// (inside a tokio runtime; later calls, whatever their instance, share
    /// it), and the first attempt to subscribe is awaited (within the
    /// timeout). [`Inbound::Resubscribed`] comes each time it is made.
    pub(crate) async fn listen(&self, instance: &str) -> broadcast::Receiver<Inbound> {
        let receiver = self.inner.inbound.subscribe();
        let state = self.inner.listening.start(|report| {
            let mine = self.instance_channel(instance);
            let all = self.events_channel();
            let inbound = self.inner.inbound.clone();
            let (me, fleet) = (mine.clone(), all.clone());
            let deliver = Arc::new(move |message: Message| {
                match decode::inbound(&me, &fleet, &message.channel, &message.payload) {
                    // No receiver is fine: no one listens.
                    Some(heard) => drop(inbound.send(heard)),
                    None => tracing::debug!(channel = %message.channel, "session events: a message not understood"),
                }
            });
            let inbound = self.inner.inbound.clone();
            Subscriber {
                client: self.inner.link.client().clone(),
                addr: self.inner.link.addr().to_owned(),
                name: "session events",
                channels: vec![mine, all],
                timeout: self.inner.link.timeout(),
                deliver,
                resubscribed: Some(Arc::new(move |_alive_at| {
                    let _ = inbound.send(Inbound::Resubscribed);
                    Box::pin(async {})
                })),
                report,
            }
        });
        Listening::first_attempt(state, self.inner.link.timeout()).await;
        receiver
    }
}
