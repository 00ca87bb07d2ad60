//! Where tasks live: the [`TaskStore`] trait. A store keeps
//! [`TaskRecord`]s, changes them only through [`TaskRecord::apply`] (so
//! every store follows the same state machine, atomically per task), tells
//! every instance of the server about each change ([`TaskStore::events`]),
//! and forgets a task once its TTL has passed.

use std::future::Future;
use std::pin::Pin;

use super::record::{Change, TaskRecord};

/// A store's failure: it cannot be reached, or answered nonsense. Task
/// requests then get a clear error; plain calls are served as ever.
#[derive(Clone, Debug, thiserror::Error)]
#[error("task store unavailable: {0}")]
pub struct StoreError(pub String);

/// What a store's methods return.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// The ids of the tasks that changed, as a store announces them to every
/// instance. A receiver that lags behind re-reads what it watches.
pub type TaskEvents = tokio::sync::broadcast::Receiver<String>;

/// What [`TaskStore::update`] did.
#[derive(Clone, Debug, PartialEq)]
pub enum Updated {
    /// No such task (never made, or forgotten after its TTL).
    NotFound,
    /// The change applied; the record as it is now.
    Changed(TaskRecord),
    /// The change did not apply (the task had ended, or the change changed
    /// nothing); the record as it is.
    Unchanged(TaskRecord),
}

/// Keeps tasks, for one server or a fleet of its instances.
///
/// Implementations: [`MemoryTasks`](super::MemoryTasks) (the default), and
/// `RedisTasks` with the `tasks-redis` feature. Every method may fail with
/// [`StoreError`]; none may lose a change it reported done.
pub trait TaskStore: Send + Sync + 'static {
    /// Keeps a new task. Once this resolves, [`get`](TaskStore::get) finds
    /// it on every instance.
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()>;

    /// The task with this id, if it exists and has not expired.
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>>;

    /// Applies `change` with [`TaskRecord::apply`], atomically, and
    /// announces the task to [`events`](TaskStore::events) when it changed
    /// (a [`Change::Renew`] is not announced).
    fn update<'a>(&'a self, id: &'a str, change: Change) -> StoreFuture<'a, Updated>;

    /// Up to `limit` tasks of `owner` made in the era `modern`, oldest
    /// first, after the task `after` (`(created_ms, id)` of the last one
    /// of the previous page).
    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        modern: bool,
        after: Option<(u64, &'a str)>,
        limit: usize,
    ) -> StoreFuture<'a, Vec<TaskRecord>>;

    /// The ids of the unended tasks whose lease ran out before `now_ms`:
    /// their instance stopped renewing it.
    fn expired_leases(&self, now_ms: u64) -> StoreFuture<'_, Vec<String>>;

    /// The ids of tasks as they change, on any instance.
    fn events(&self) -> TaskEvents;
}
