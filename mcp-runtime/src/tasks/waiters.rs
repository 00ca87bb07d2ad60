//! Who waits on which task: a `tasks/result` waiting for the end, a task
//! waiting for its answers, a 2025-11-25 task's status watcher. The
//! instance's one watcher of the store's events wakes the waiters of the
//! task each event names, so an event costs the same however many tasks
//! are waited on (a receiver of the store's events each would make every
//! event cost every waiter).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;

/// The waiters of every task, by id.
#[derive(Default)]
pub(crate) struct Waiters {
    /// A counter bumped on each change, and how many wait on it.
    by_task: Mutex<HashMap<String, (watch::Sender<u64>, usize)>>,
}

impl Waiters {
    /// A waiter on the task `id`.
    pub(crate) fn wait(self: &Arc<Self>, id: &str) -> Waiter {
        let changes = match self.by_task.lock() {
            Ok(mut by_task) => {
                let entry = by_task
                    .entry(id.to_owned())
                    .or_insert_with(|| (watch::channel(0).0, 0));
                entry.1 += 1;
                entry.0.subscribe()
            }
            // Never woken: it reads again at each recheck.
            Err(_) => watch::channel(0).1,
        };
        Waiter {
            waiters: Arc::clone(self),
            id: id.to_owned(),
            changes,
        }
    }

    /// Wakes the waiters of the task `id`.
    pub(crate) fn wake(&self, id: &str) {
        if let Ok(by_task) = self.by_task.lock()
            && let Some((changes, _)) = by_task.get(id)
        {
            changes.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Wakes every waiter (events were lost: all read again).
    pub(crate) fn wake_all(&self) {
        if let Ok(by_task) = self.by_task.lock() {
            for (changes, _) in by_task.values() {
                changes.send_modify(|n| *n = n.wrapping_add(1));
            }
        }
    }
}

/// One wait on a task, until dropped.
pub(crate) struct Waiter {
    waiters: Arc<Waiters>,
    id: String,
    changes: watch::Receiver<u64>,
}

impl Waiter {
    /// Marks the changes so far as seen: call it before reading the task,
    /// so that a change made after the read wakes [`Waiter::changed`].
    pub(crate) fn mark(&mut self) {
        self.changes.borrow_and_update();
    }

    /// Waits for a change since the last [`Waiter::mark`], or `max` (so
    /// a lost announcement costs a read, never a hang).
    pub(crate) async fn changed(&mut self, max: Duration) {
        let _ = tokio::time::timeout(max, self.changes.changed()).await;
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        if let Ok(mut by_task) = self.waiters.by_task.lock()
            && let Some(entry) = by_task.get_mut(&self.id)
        {
            entry.1 -= 1;
            if entry.1 == 0 {
                by_task.remove(&self.id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_change_after_the_mark_wakes_and_the_last_waiter_leaves_nothing() {
        let waiters = Arc::new(Waiters::default());
        let mut first = waiters.wait("a");
        let mut second = waiters.wait("a");
        first.mark();
        second.mark();
        waiters.wake("b");
        waiters.wake("a");
        // Woken at once, not after the ten seconds.
        tokio::time::timeout(
            Duration::from_secs(5),
            first.changed(Duration::from_secs(10)),
        )
        .await
        .unwrap();
        tokio::time::timeout(
            Duration::from_secs(5),
            second.changed(Duration::from_secs(10)),
        )
        .await
        .unwrap();
        drop(first);
        assert_eq!(waiters.by_task.lock().unwrap().len(), 1);
        drop(second);
        assert!(waiters.by_task.lock().unwrap().is_empty());
    }
}
