//! The tasks of one server instance: made in its store, run here on the
//! runtime (not on the connection that started them, which may close),
//! cancelled from any instance, and kept alive by a lease that the
//! instance renews while it runs them. An instance that stops renewing
//! (killed, or cut off) leaves its tasks to the next instance that looks:
//! they end `failed`, never `working` forever.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;
use tokio::task::AbortHandle;

use super::id::now_ms;
use super::record::{Change, Lease, TaskOutcome, TaskRecord, TaskStatus};
use super::store::{StoreError, TaskEvents, TaskStore, Updated};
use super::waiters::{Waiter, Waiters};
use crate::context::Context;
use crate::jsonrpc::{ErrorObject, INTERNAL_ERROR, INVALID_PARAMS};
use crate::protocol::shape;
use crate::protocol::version::ProtocolVersion;
use crate::tools::def::Outcome;

/// How tasks are kept, set on the [`Server`](crate::Server).
#[derive(Clone)]
pub(crate) struct TaskSettings {
    /// Where; `None`: in memory, made when some tool may run as a task.
    pub(crate) store: Option<Arc<dyn TaskStore>>,
    /// How long a task is kept when its client asks for no TTL.
    pub(crate) default_ttl: Duration,
    /// The longest TTL granted.
    pub(crate) max_ttl: Duration,
    /// How often clients are advised to poll.
    pub(crate) poll_interval: Duration,
    /// How long an instance's claim on the tasks it runs lasts without a
    /// renewal.
    pub(crate) lease: Duration,
}

impl Default for TaskSettings {
    fn default() -> Self {
        TaskSettings {
            store: None,
            default_ttl: Duration::from_secs(3_600),
            max_ttl: Duration::from_secs(24 * 3_600),
            poll_interval: Duration::from_secs(1),
            lease: Duration::from_secs(30),
        }
    }
}

fn ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// A call running here as a task.
struct Local {
    abort: AbortHandle,
    ctx: Context,
}

/// What a store error is to the client: -32603, saying so.
pub(crate) fn unavailable(error: &StoreError) -> ErrorObject {
    tracing::warn!(%error, "task store");
    ErrorObject::new(INTERNAL_ERROR, error.to_string())
}

/// -32602 for a task the caller cannot see: unknown, expired, another
/// caller's or another era's (all alike: never a hint that it exists).
pub(crate) fn not_found(id: &str) -> ErrorObject {
    ErrorObject::new(INVALID_PARAMS, format!("Unknown task: {id:?}"))
        .with_data(json!({ "taskId": id }))
}

/// The tasks of this instance, and its way to the store.
pub(crate) struct TaskRunner {
    pub(crate) store: Arc<dyn TaskStore>,
    settings: TaskSettings,
    /// This instance's id in leases.
    instance: String,
    local: Mutex<HashMap<String, Local>>,
    /// Who waits on which task, woken by the watcher.
    waiters: Arc<Waiters>,
    /// The watcher of the store's events and of leases, started with the
    /// first task request.
    watching: OnceLock<()>,
}

impl TaskRunner {
    pub(crate) fn new(settings: TaskSettings) -> Arc<TaskRunner> {
        let store = settings
            .store
            .clone()
            .unwrap_or_else(|| Arc::new(super::MemoryTasks::new()));
        Arc::new(TaskRunner {
            store,
            settings,
            instance: super::id::new_task_id().unwrap_or_else(|| "instance".into()),
            local: Mutex::default(),
            waiters: Arc::default(),
            watching: OnceLock::new(),
        })
    }

    /// The runner of a server with these settings serving `registry`:
    /// `None` (no tasks, nothing declared, nothing paid) unless a store was
    /// set, some tool may run as a task, or tools may come later (`dynamic`:
    /// a [`ServerHandle`](crate::ServerHandle) may add a task tool, which
    /// must then run as one).
    pub(crate) fn for_server(
        settings: TaskSettings,
        registry: &crate::registry::Registry,
        dynamic: bool,
    ) -> Option<Arc<TaskRunner>> {
        let wanted = settings.store.is_some()
            || dynamic
            || registry
                .tools()
                .iter()
                .any(|tool| tool.task_support() != crate::tools::def::TaskSupport::Forbidden);
        wanted.then(|| TaskRunner::new(settings))
    }

    /// How often clients are advised to poll, in milliseconds.
    pub(crate) fn poll_interval_ms(&self) -> u64 {
        ms(self.settings.poll_interval)
    }

    /// The TTL granted for one asked (milliseconds; none: the default).
    pub(crate) fn ttl_ms(&self, asked: Option<u64>) -> u64 {
        let max = ms(self.settings.max_ttl).max(1);
        asked
            .unwrap_or_else(|| ms(self.settings.default_ttl))
            .clamp(1, max)
    }

    /// A new task's record, not yet stored: leased to this instance.
    pub(crate) fn record(
        &self,
        owner: Option<String>,
        modern: bool,
        tool: &str,
        ttl_ms: u64,
    ) -> Result<TaskRecord, ErrorObject> {
        let id = super::id::new_task_id().ok_or_else(|| {
            ErrorObject::new(
                INTERNAL_ERROR,
                "no random bytes from the operating system for a task id",
            )
        })?;
        let mut record = TaskRecord::new(id, owner, modern, tool);
        record.ttl_ms = ttl_ms;
        record.poll_interval_ms = self.poll_interval_ms();
        record.lease = Some(self.lease());
        Ok(record)
    }

    fn lease(&self) -> Lease {
        Lease {
            instance: self.instance.clone(),
            until_ms: now_ms().saturating_add(ms(self.settings.lease)),
        }
    }

    /// Stores `record`; it can be read anywhere once this returns.
    pub(crate) async fn create(self: &Arc<Self>, record: TaskRecord) -> Result<(), ErrorObject> {
        self.watch();
        self.store
            .create(record)
            .await
            .map_err(|error| unavailable(&error))
    }

    /// Runs `call` as the task `id` until it ends, then records how
    /// (`settle` says, for the era `modern`).
    pub(crate) fn spawn<R: Send + 'static>(
        self: &Arc<Self>,
        id: String,
        ctx: Context,
        call: Pin<Box<dyn Future<Output = R> + Send>>,
        settle: fn(&R, bool) -> (TaskStatus, TaskOutcome),
        modern: bool,
    ) {
        let runner = Arc::clone(self);
        let task_id = id.clone();
        let task_ctx = ctx.clone();
        let task = async move {
            let outcome = call.await;
            task_ctx.finish();
            // The work is done: nothing is left here to stop. Out before
            // the end is recorded, so that the announcement of that end
            // does not have the watcher abort this very recording.
            if let Ok(mut local) = runner.local.lock() {
                local.remove(&task_id);
            }
            let (status, outcome) = settle(&outcome, modern);
            let message = match status {
                TaskStatus::Failed => failure_message(&outcome),
                _ => None,
            };
            let change = Change::Finish {
                status,
                outcome: Some(outcome),
                message,
            };
            runner.record_end(&task_id, change).await;
        };
        // Held while spawning, so the task cannot end (and look for its
        // entry) before the entry is there.
        let Ok(mut local) = self.local.lock() else {
            return;
        };
        let abort = tokio::spawn(task).abort_handle();
        local.insert(id, Local { abort, ctx });
    }

    /// Records a task's end, retrying while the store is unreachable (up
    /// to about a lease: past it, another instance fails the task).
    async fn record_end(&self, id: &str, change: Change) {
        let mut wait = Duration::from_millis(100);
        let give_up = tokio::time::Instant::now() + self.settings.lease;
        loop {
            match self.store.update(id, change.clone()).await {
                Ok(_) => return,
                Err(error) if tokio::time::Instant::now() + wait < give_up => {
                    tracing::warn!(task = id, %error, "recording a task's end; retrying");
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(5));
                }
                Err(error) => {
                    tracing::error!(task = id, %error, "a task's end could not be recorded");
                    return;
                }
            }
        }
    }

    /// Stops the task `id` if it runs here.
    fn stop_local(&self, id: &str) {
        let entry = self.local.lock().ok().and_then(|mut m| m.remove(id));
        if let Some(entry) = entry {
            entry.ctx.cancel();
            entry.abort.abort();
            tracing::info!(
                task = id,
                "stopped the work of a task that was cancelled or is gone"
            );
        }
    }

    /// The task `id` as `owner` may see it in its era, or -32602.
    pub(crate) async fn find(
        self: &Arc<Self>,
        id: &str,
        owner: Option<&str>,
        modern: bool,
    ) -> Result<TaskRecord, ErrorObject> {
        self.watch();
        let record = self
            .store
            .get(id)
            .await
            .map_err(|error| unavailable(&error))?;
        record
            .filter(|r| r.owner.as_deref() == owner && r.modern == modern)
            .ok_or_else(|| not_found(id))
    }

    /// Cancels the task `id` of `owner`: the record says `cancelled`
    /// before this returns, and the instance running it stops it. The
    /// record as it is after (an ended task stays as it ended), and
    /// whether this cancelled it.
    pub(crate) async fn cancel(
        self: &Arc<Self>,
        id: &str,
        owner: Option<&str>,
        modern: bool,
    ) -> Result<(TaskRecord, bool), ErrorObject> {
        self.find(id, owner, modern).await?;
        let change = Change::Finish {
            status: TaskStatus::Cancelled,
            outcome: None,
            message: Some("cancelled by the client".into()),
        };
        match self.store.update(id, change).await {
            Ok(Updated::Changed(record)) => {
                self.stop_local(id);
                Ok((record, true))
            }
            Ok(Updated::Unchanged(record)) => Ok((record, false)),
            Ok(Updated::NotFound) => Err(not_found(id)),
            Err(error) => Err(unavailable(&error)),
        }
    }

    /// Applies `change` to the task `id` (already found for its caller).
    pub(crate) async fn update(&self, id: &str, change: Change) -> Result<Updated, ErrorObject> {
        self.store
            .update(id, change)
            .await
            .map_err(|error| unavailable(&error))
    }

    /// A page of `owner`'s 2025-11-25 tasks, oldest first, after `after`.
    pub(crate) async fn list(
        self: &Arc<Self>,
        owner: Option<&str>,
        after: Option<(u64, &str)>,
        limit: usize,
    ) -> Result<Vec<TaskRecord>, ErrorObject> {
        self.watch();
        self.store
            .list(owner, false, after, limit)
            .await
            .map_err(|error| unavailable(&error))
    }

    /// A wait on the changes of the task `id`, on any instance.
    pub(crate) fn waiter(self: &Arc<Self>, id: &str) -> Waiter {
        self.watch();
        self.waiters.wait(id)
    }

    /// The longest a waiter sleeps before it reads the task again.
    pub(crate) fn recheck(&self) -> Duration {
        self.settings.poll_interval.max(Duration::from_millis(200))
    }

    /// Starts, once, the watcher of this instance: it stops local tasks
    /// cancelled elsewhere, renews this instance's leases, and fails the
    /// tasks of instances whose leases ran out.
    fn watch(self: &Arc<Self>) {
        self.watching.get_or_init(|| {
            let events = self.store.events();
            let period = (self.settings.lease / 3).max(Duration::from_millis(100));
            tokio::spawn(watch(Arc::downgrade(self), events, period));
        });
    }

    /// Reads again each local task `ids` names, and stops those that ended
    /// elsewhere (cancelled) or are gone (expired).
    async fn check_local(&self, ids: Vec<String>) {
        for id in ids {
            match self.store.get(&id).await {
                Ok(Some(record)) if !record.status.is_terminal() => {}
                Ok(_) => self.stop_local(&id),
                Err(_) => {}
            }
        }
    }

    fn local_ids(&self) -> Vec<String> {
        self.local
            .lock()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Renews the leases of the tasks running here; fails those of
    /// instances that stopped renewing theirs.
    async fn renew_and_reap(&self) {
        for id in self.local_ids() {
            match self.store.update(&id, Change::Renew(self.lease())).await {
                Ok(Updated::NotFound) => self.stop_local(&id),
                Ok(Updated::Unchanged(record)) if record.status.is_terminal() => {
                    self.stop_local(&id);
                }
                _ => {}
            }
        }
        let Ok(lapsed) = self.store.expired_leases(now_ms()).await else {
            return;
        };
        for id in lapsed {
            tracing::warn!(task = %id, "the instance running this task stopped; it fails");
            let change = Change::Finish {
                status: TaskStatus::Failed,
                outcome: Some(TaskOutcome::Error(json!({
                    "code": INTERNAL_ERROR,
                    "message": "the server instance running this task stopped before it ended",
                }))),
                message: Some("the server instance running this task stopped".into()),
            };
            let _ = self.store.update(&id, change).await;
        }
    }
}

/// The watcher [`TaskRunner::watch`] starts; ends with its runner.
async fn watch(runner: Weak<TaskRunner>, mut events: TaskEvents, period: Duration) {
    let mut tick = tokio::time::interval(period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            event = events.recv() => {
                let Some(runner) = runner.upgrade() else { return };
                match event {
                    Ok(id) => {
                        runner.waiters.wake(&id);
                        let here = runner.local.lock().is_ok_and(|m| m.contains_key(&id));
                        if here {
                            runner.check_local(vec![id]).await;
                        }
                    }
                    Err(RecvError::Lagged(_)) => {
                        runner.waiters.wake_all();
                        runner.check_local(runner.local_ids()).await;
                    }
                    Err(RecvError::Closed) => return,
                }
            }
            _ = tick.tick() => {
                let Some(runner) = runner.upgrade() else { return };
                runner.renew_and_reap().await;
            }
        }
    }
}

/// How a call's outcome ends its task. 2026-07-28: a result (an error
/// result too) completes it, a JSON-RPC error fails it. 2025-11-25: an
/// error result fails it too, and `tasks/result` gives that result.
pub(crate) fn settle(outcome: &Outcome, modern: bool) -> (TaskStatus, TaskOutcome) {
    if let Outcome::Failed(error) = outcome {
        let error = serde_json::to_value(error)
            .unwrap_or_else(|_| json!({"code": INTERNAL_ERROR, "message": "internal error"}));
        return (TaskStatus::Failed, TaskOutcome::Error(error));
    }
    let version = if modern {
        ProtocolVersion::MODERN
    } else {
        ProtocolVersion::V2025_11_25
    };
    let mut text = Vec::new();
    shape::write_outcome(&mut text, outcome, version);
    let result: Value = serde_json::from_slice(&text).unwrap_or_else(|_| json!({"content": []}));
    settle_result(result, modern)
}

/// How a call's answer, as JSON, ends its task (see [`settle`]): what a
/// call through middleware layers ends with.
pub(crate) fn settle_json(
    answer: &Result<Value, ErrorObject>,
    modern: bool,
) -> (TaskStatus, TaskOutcome) {
    match answer {
        Ok(result) => settle_result(result.clone(), modern),
        Err(error) => settle(&Outcome::Failed(error.clone()), modern),
    }
}

/// The `statusMessage` of a failed task, which "SHOULD" say why
/// (2025-11-25 tasks.mdx, Task Execution Errors): the error's message, or
/// the first text of the error result.
fn failure_message(outcome: &TaskOutcome) -> Option<String> {
    let text = match outcome {
        TaskOutcome::Error(error) => error.get("message")?.as_str()?,
        TaskOutcome::Result(result) => result
            .get("content")?
            .as_array()?
            .iter()
            .find_map(|block| block.get("text")?.as_str())?,
    };
    Some(text.to_owned())
}

/// A `CallToolResult` ends its task `completed`, or in 2025-11-25
/// `failed` when it is an error result.
fn settle_result(result: Value, modern: bool) -> (TaskStatus, TaskOutcome) {
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let status = if is_error && !modern {
        TaskStatus::Failed
    } else {
        TaskStatus::Completed
    };
    (status, TaskOutcome::Result(result))
}
