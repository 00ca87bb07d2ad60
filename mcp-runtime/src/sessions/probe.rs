//! Not public API: the crate-private operations of
//! [`RedisSessions`](super::RedisSessions), reached by the store's
//! contract tests (tests/session_store.rs). May change or disappear in any
//! release.

#![allow(missing_docs)]

use std::time::Duration;

use tokio::sync::broadcast;

pub use super::data::{Full, Held, Inbound, Limits, Loaded, SessionChange, SessionData};
use super::{RedisSessions, SessionStoreError};

/// How long a busy lease lasts.
pub const BUSY_LEASE: Duration = super::redis::BUSY_LEASE;

type Outcome<T> = Result<T, SessionStoreError>;

pub async fn check(store: &RedisSessions) -> Outcome<()> {
    store.check().await
}

pub async fn create(
    store: &RedisSessions,
    id: &str,
    data: &SessionData,
    limits: &Limits,
) -> Outcome<Result<Vec<String>, Full>> {
    store.create(id, data, limits).await
}

pub async fn load(
    store: &RedisSessions,
    id: &str,
    known_rev: Option<u64>,
) -> Outcome<Option<Loaded>> {
    store.load(id, known_rev).await
}

pub async fn change(
    store: &RedisSessions,
    id: &str,
    change: SessionChange,
) -> Outcome<Option<u64>> {
    store.change(id, change).await
}

pub async fn end(store: &RedisSessions, id: &str) -> Outcome<bool> {
    store.end(id).await
}

pub async fn busy(store: &RedisSessions, ids: &[String]) -> Outcome<Vec<String>> {
    store.busy(ids).await
}

pub async fn not_busy(store: &RedisSessions, ids: &[String]) -> Outcome<()> {
    store.not_busy(ids).await
}

pub async fn reap(store: &RedisSessions, idle_timeout: Duration) -> Outcome<Vec<String>> {
    store.reap(idle_timeout).await
}

pub async fn append(
    store: &RedisSessions,
    id: &str,
    stream: &str,
    line: &str,
    keep: usize,
) -> Outcome<Option<String>> {
    store.append(id, stream, line, keep).await
}

pub async fn replay(
    store: &RedisSessions,
    id: &str,
    stream: &str,
    after: Option<&str>,
    count: usize,
) -> Outcome<Vec<(String, String)>> {
    store.replay(id, stream, after, count).await
}

pub async fn hold(store: &RedisSessions, id: &str, instance: &str) -> Outcome<Option<Held>> {
    store.hold(id, instance).await
}

pub async fn release(
    store: &RedisSessions,
    id: &str,
    instance: &str,
    delivered: Option<&str>,
) -> Outcome<bool> {
    store.release(id, instance, delivered).await
}

pub async fn delivered(
    store: &RedisSessions,
    instance: &str,
    cursors: &[(String, String)],
) -> Outcome<u64> {
    store.delivered(instance, cursors).await
}

pub async fn route(store: &RedisSessions, instance: &str, payload: &str) -> Outcome<u64> {
    store.route(instance, payload).await
}

pub async fn broadcast(store: &RedisSessions, payload: &str) -> Outcome<u64> {
    store.broadcast(payload).await
}

pub async fn notify_uri(store: &RedisSessions, uri: &str, line: &str, keep: usize) -> Outcome<u64> {
    store.notify_uri(uri, line, keep).await
}

pub async fn listen(store: &RedisSessions, instance: &str) -> broadcast::Receiver<Inbound> {
    store.listen(instance).await
}
