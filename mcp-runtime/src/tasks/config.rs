//! The methods of the [`Server`] builder that say where tasks are kept
//! and for how long.

use std::sync::Arc;
use std::time::Duration;

use super::store::TaskStore;
use crate::Server;

/// The shortest lease [`Server::task_lease`] takes: a shorter one is
/// raised to it.
pub(crate) const SHORTEST_LEASE: Duration = Duration::from_millis(300);

impl Server {
    /// Keeps tasks in `store`: [`MemoryTasks`](crate::tasks::MemoryTasks)
    /// (the default, made when some tool may run as a task), or a store
    /// shared by every instance of a fleet (`RedisTasks`, with the
    /// `tasks-redis` feature). Setting a store serves the task methods
    /// even when no tool is declared `task = "optional"` or `"required"`
    /// yet (a [`ServerHandle`](crate::ServerHandle) may add one later).
    pub fn tasks(mut self, store: impl TaskStore) -> Self {
        self.tasks.store = Some(Arc::new(store));
        self
    }

    /// How long a task is kept from its creation when its client asks for
    /// no time (`default`, one hour unless set), and the longest time
    /// granted when it asks (`max`, a day unless set). Past it the task,
    /// its result with it, is forgotten.
    pub fn task_ttl(mut self, default: Duration, max: Duration) -> Self {
        self.tasks.max_ttl = max.max(Duration::from_millis(1));
        self.tasks.default_ttl = default.min(self.tasks.max_ttl);
        self
    }

    /// How often clients are advised to poll a task (`pollInterval`; one
    /// second unless set).
    pub fn task_poll_interval(mut self, interval: Duration) -> Self {
        self.tasks.poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// How long this instance's claim on the tasks it runs lasts without a
    /// renewal (30 seconds unless set; renewed every third of it). When an
    /// instance dies, its tasks fail once their lease runs out. At least
    /// 300 ms (a shorter lease is raised to it). `--task-lease` on
    /// [`Server::run`]'s command line sets it too.
    pub fn task_lease(mut self, lease: Duration) -> Self {
        self.tasks.lease = lease.max(SHORTEST_LEASE);
        self
    }
}
