//! [`MemoryTasks`]: the default store, in the server's memory. Bounded
//! (the oldest ended tasks make room for new ones) and reaped (a task is
//! forgotten once its TTL has passed), so a server that runs tasks for
//! months holds no more than its bound.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, MutexGuard};

use tokio::sync::broadcast;

use super::id::now_ms;
use super::record::{Change, TaskRecord};
use super::store::{StoreError, StoreFuture, TaskEvents, TaskStore, Updated};

/// How many tasks a [`MemoryTasks`] keeps unless told otherwise.
pub const DEFAULT_MAX_TASKS: usize = 10_000;

/// Keeps tasks in this process: they end with it, and other instances of
/// the server do not see them (use Redis for a fleet).
///
/// ```
/// use mcp_runtime::tasks::MemoryTasks;
///
/// let store = MemoryTasks::with_capacity(1_000);
/// assert!(store.is_empty());
/// ```
pub struct MemoryTasks {
    inner: Mutex<Inner>,
    events: broadcast::Sender<String>,
    max_tasks: usize,
}

/// A task's place in a caller's list: owner, era, creation, id.
type ListKey = (Option<String>, bool, u64, String);

#[derive(Default)]
struct Inner {
    tasks: HashMap<String, TaskRecord>,
    /// `(expires_ms, id)`, soonest first.
    by_expiry: BTreeSet<(u64, String)>,
    by_owner: BTreeSet<ListKey>,
}

fn list_key(record: &TaskRecord) -> ListKey {
    (
        record.owner.clone(),
        record.modern,
        record.created_ms,
        record.id.clone(),
    )
}

impl Inner {
    fn remove(&mut self, id: &str) {
        if let Some(record) = self.tasks.remove(id) {
            self.by_expiry
                .remove(&(record.expires_ms(), record.id.clone()));
            self.by_owner.remove(&list_key(&record));
        }
    }

    /// Forgets the tasks whose TTL has passed.
    fn reap(&mut self, now: u64) {
        while let Some((expires, id)) = self.by_expiry.first().cloned() {
            if expires > now {
                break;
            }
            self.remove(&id);
        }
    }

    /// Makes room for one more task under `max`: the ended tasks that
    /// expire first go. `false` when every task kept is still running.
    fn make_room(&mut self, max: usize) -> bool {
        if self.tasks.len() < max {
            return true;
        }
        let excess = self.tasks.len() + 1 - max;
        let ended: Vec<String> = self
            .by_expiry
            .iter()
            .filter(|(_, id)| self.tasks.get(id).is_some_and(|r| r.status.is_terminal()))
            .take(excess)
            .map(|(_, id)| id.clone())
            .collect();
        for id in &ended {
            self.remove(id);
        }
        self.tasks.len() < max
    }
}

impl MemoryTasks {
    /// A store that keeps up to [`DEFAULT_MAX_TASKS`] tasks.
    pub fn new() -> MemoryTasks {
        MemoryTasks::with_capacity(DEFAULT_MAX_TASKS)
    }

    /// A store that keeps up to `max_tasks` tasks: past it, the ended
    /// tasks that would expire first are forgotten early, and a new task
    /// is refused when all are still running.
    pub fn with_capacity(max_tasks: usize) -> MemoryTasks {
        MemoryTasks {
            inner: Mutex::default(),
            events: broadcast::channel(1024).0,
            max_tasks: max_tasks.max(1),
        }
    }

    /// How many tasks it keeps now (expired ones are counted until the
    /// next access forgets them).
    pub fn len(&self) -> usize {
        self.lock().map_or(0, |inner| inner.tasks.len())
    }

    /// Whether it keeps no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> Result<MutexGuard<'_, Inner>, StoreError> {
        self.inner
            .lock()
            .map_err(|_| StoreError("the in-memory task store is poisoned".into()))
    }

    fn announce(&self, id: &str) {
        // No receiver is fine: no one watches.
        let _ = self.events.send(id.to_owned());
    }
}

impl Default for MemoryTasks {
    fn default() -> Self {
        MemoryTasks::new()
    }
}

impl std::fmt::Debug for MemoryTasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryTasks")
            .field("tasks", &self.len())
            .field("max_tasks", &self.max_tasks)
            .finish()
    }
}

impl TaskStore for MemoryTasks {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        let result = self.lock().and_then(|mut inner| {
            inner.reap(now_ms());
            if !inner.make_room(self.max_tasks) {
                return Err(StoreError(format!(
                    "too many tasks running: this server keeps at most {}",
                    self.max_tasks
                )));
            }
            inner.remove(&record.id);
            inner
                .by_expiry
                .insert((record.expires_ms(), record.id.clone()));
            inner.by_owner.insert(list_key(&record));
            inner.tasks.insert(record.id.clone(), record);
            Ok(())
        });
        Box::pin(std::future::ready(result))
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        let now = now_ms();
        let result = self.lock().map(|inner| {
            inner
                .tasks
                .get(id)
                .filter(|record| record.expires_ms() > now)
                .cloned()
        });
        Box::pin(std::future::ready(result))
    }

    fn update<'a>(&'a self, id: &'a str, change: Change) -> StoreFuture<'a, Updated> {
        let now = now_ms();
        let result = self.lock().map(|mut inner| {
            let Some(record) = inner.tasks.get_mut(id).filter(|r| r.expires_ms() > now) else {
                return Updated::NotFound;
            };
            if record.apply(&change, now) {
                Updated::Changed(record.clone())
            } else {
                Updated::Unchanged(record.clone())
            }
        });
        if matches!(result, Ok(Updated::Changed(_))) && !matches!(change, Change::Renew(_)) {
            self.announce(id);
        }
        Box::pin(std::future::ready(result))
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        modern: bool,
        after: Option<(u64, &'a str)>,
        limit: usize,
    ) -> StoreFuture<'a, Vec<TaskRecord>> {
        let now = now_ms();
        let owner = owner.map(str::to_owned);
        let result = self.lock().map(|inner| {
            let from = match after {
                Some((created, id)) => (owner.clone(), modern, created, id.to_owned()),
                None => (owner.clone(), modern, 0, String::new()),
            };
            inner
                .by_owner
                .range(from..)
                .filter(|key| after.is_none_or(|(c, id)| (key.2, key.3.as_str()) != (c, id)))
                .take_while(|key| key.0 == owner && key.1 == modern)
                .filter_map(|key| inner.tasks.get(&key.3))
                .filter(|record| record.expires_ms() > now)
                .take(limit)
                .cloned()
                .collect()
        });
        Box::pin(std::future::ready(result))
    }

    fn expired_leases(&self, now_ms: u64) -> StoreFuture<'_, Vec<String>> {
        let result = self.lock().map(|inner| {
            inner
                .tasks
                .values()
                .filter(|r| !r.status.is_terminal())
                .filter(|r| r.lease.as_ref().is_some_and(|l| l.until_ms < now_ms))
                .map(|r| r.id.clone())
                .collect()
        });
        Box::pin(std::future::ready(result))
    }

    fn events(&self) -> TaskEvents {
        self.events.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::record::{TaskOutcome, TaskStatus};

    fn record(id: &str, owner: Option<&str>, ttl_ms: u64) -> TaskRecord {
        let mut record = TaskRecord::new(id.into(), owner.map(str::to_owned), true, "tool");
        record.ttl_ms = ttl_ms;
        record
    }

    fn finished() -> Change {
        Change::Finish {
            status: TaskStatus::Completed,
            outcome: Some(TaskOutcome::Result(serde_json::json!({"content": []}))),
            message: None,
        }
    }

    #[tokio::test]
    async fn a_change_is_announced_and_an_ended_task_stays_ended() {
        let store = MemoryTasks::new();
        let mut events = store.events();
        store.create(record("a", None, 60_000)).await.unwrap();
        assert!(matches!(
            store.update("a", finished()).await.unwrap(),
            Updated::Changed(_)
        ));
        assert_eq!(events.try_recv().unwrap(), "a");
        let cancel = Change::Finish {
            status: TaskStatus::Cancelled,
            outcome: None,
            message: None,
        };
        let Updated::Unchanged(kept) = store.update("a", cancel).await.unwrap() else {
            panic!("a finished task was cancelled");
        };
        assert_eq!(kept.status, TaskStatus::Completed);
        assert!(events.try_recv().is_err());
        assert_eq!(
            store.update("nope", finished()).await.unwrap(),
            Updated::NotFound
        );
    }

    #[tokio::test]
    async fn an_expired_task_is_gone() {
        let store = MemoryTasks::new();
        store.create(record("old", None, 0)).await.unwrap();
        assert_eq!(store.get("old").await.unwrap(), None);
        store.create(record("new", None, 60_000)).await.unwrap();
        // Creating reaped the expired one.
        assert_eq!(store.len(), 1);
    }

    #[tokio::test]
    async fn lists_are_per_owner_and_era_and_page_without_gaps() {
        let store = MemoryTasks::new();
        let base = now_ms();
        for i in 0..5 {
            let mut mine = record(&format!("m{i}"), Some("me"), 60_000);
            mine.created_ms = base + i;
            store.create(mine).await.unwrap();
        }
        store
            .create(record("theirs", Some("them"), 60_000))
            .await
            .unwrap();
        let mut legacy = record("legacy", Some("me"), 60_000);
        legacy.modern = false;
        store.create(legacy).await.unwrap();
        let first = store.list(Some("me"), true, None, 2).await.unwrap();
        let ids = |page: &[TaskRecord]| page.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&first), ["m0", "m1"]);
        let last = &first[1];
        let next = store
            .list(Some("me"), true, Some((last.created_ms, &last.id)), 10)
            .await
            .unwrap();
        assert_eq!(ids(&next), ["m2", "m3", "m4"]);
        assert_eq!(
            ids(&store.list(Some("me"), false, None, 10).await.unwrap()),
            ["legacy"]
        );
        assert_eq!(
            ids(&store.list(Some("them"), true, None, 10).await.unwrap()),
            ["theirs"]
        );
    }

    #[tokio::test]
    async fn the_bound_holds_after_100_000_finished_tasks() {
        let store = MemoryTasks::with_capacity(1_000);
        for i in 0..100_000 {
            let id = format!("t{i}");
            store.create(record(&id, None, 3_600_000)).await.unwrap();
            store.update(&id, finished()).await.unwrap();
        }
        assert_eq!(store.len(), 1_000);
        // The newest are kept.
        assert!(store.get("t99999").await.unwrap().is_some());
        assert!(store.get("t0").await.unwrap().is_none());
    }

    #[tokio::test]
    async fn a_full_store_of_running_tasks_refuses_a_new_one() {
        let store = MemoryTasks::with_capacity(2);
        store.create(record("a", None, 60_000)).await.unwrap();
        store.create(record("b", None, 60_000)).await.unwrap();
        let refused = store.create(record("c", None, 60_000)).await.unwrap_err();
        assert!(refused.to_string().contains("at most 2"), "{refused}");
        store.update("a", finished()).await.unwrap();
        store.create(record("c", None, 60_000)).await.unwrap();
        assert!(store.get("a").await.unwrap().is_none());
    }
}
