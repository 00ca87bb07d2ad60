//! A 2025-11-25 task, as the call it runs sees it: it asks and reports
//! as a plain call does, on its session (stdout, or the session's GET
//! stream over HTTP), each message tied to the task by `_meta`; while it
//! waits on an answer the task is `input_required`. Each change of its
//! status is told to the session (`notifications/tasks/status`, with the
//! task), wherever the change was made.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use tokio::sync::mpsc;

use super::record::{Change, TaskStatus};
use super::runner::TaskRunner;
use super::wire;
use crate::asking::ask::ClientRequestError;
use crate::asking::tasked::{Asking, TaskChannel};
use crate::jsonrpc;
use crate::outbox::WeakOutbox;

pub(crate) struct LegacyLink {
    id: String,
    /// Questions waiting for answers.
    waiting: AtomicUsize,
    /// The status changes `waiting` makes, applied in order by the task's
    /// watcher.
    changes: mpsc::UnboundedSender<TaskStatus>,
}

impl LegacyLink {
    /// The link of the task `id`, whose status changes are told on
    /// `notices` (the session's stream); needs a Tokio runtime.
    pub(crate) fn new(
        runner: Arc<TaskRunner>,
        id: String,
        notices: Option<WeakOutbox>,
    ) -> LegacyLink {
        let (changes, pending) = mpsc::unbounded_channel();
        tokio::spawn(watch(runner, id.clone(), pending, notices));
        LegacyLink {
            id,
            waiting: AtomicUsize::new(0),
            changes,
        }
    }
}

/// Applies the link's status changes in order, and tells the session each
/// status the task takes, until it ends (or is gone).
async fn watch(
    runner: Arc<TaskRunner>,
    id: String,
    mut pending: mpsc::UnboundedReceiver<TaskStatus>,
    notices: Option<WeakOutbox>,
) {
    let mut waiter = runner.waiter(&id);
    // The client learnt `working` from the call's answer.
    let mut told = TaskStatus::Working;
    let mut linked = true;
    loop {
        waiter.mark();
        match runner.store.get(&id).await {
            Ok(Some(record)) => {
                if record.status != told {
                    told = record.status;
                    tell(notices.as_ref(), &record);
                }
                if record.status.is_terminal() {
                    return;
                }
            }
            Ok(None) => return,
            // The store is away: read again at the next change or tick.
            Err(_) => {}
        }
        tokio::select! {
            status = pending.recv(), if linked => match status {
                Some(status) => {
                    let change = Change::Status { status, message: None };
                    let _ = runner.update(&id, change).await;
                }
                None => linked = false,
            },
            () = waiter.changed(runner.recheck()) => {}
        }
    }
}

/// Tells the session (`notices`) where the task `record` stands.
fn tell(notices: Option<&WeakOutbox>, record: &super::TaskRecord) {
    if let Some(out) = notices.and_then(WeakOutbox::upgrade) {
        let params = Value::Object(wire::legacy_task(record));
        let mut line = Vec::new();
        jsonrpc::write_notification(&mut line, "notifications/tasks/status", &params);
        line.push(b'\n');
        out.try_send(&line);
    }
}

impl TaskChannel for LegacyLink {
    fn ask<'a>(&'a self, method: &'a str, _: Value, _: Option<&'a str>) -> Asking<'a> {
        // Never called: a 2025-11-25 task asks on its session.
        Box::pin(async move { Err(ClientRequestError::NotSupported(method.to_owned())) })
    }

    fn progress(&self, _: String) {}

    fn related_task(&self) -> Option<&str> {
        Some(&self.id)
    }

    fn waiting(&self, waiting: bool) {
        if waiting {
            if self.waiting.fetch_add(1, Ordering::AcqRel) == 0 {
                let _ = self.changes.send(TaskStatus::InputRequired);
            }
        } else if self.waiting.fetch_sub(1, Ordering::AcqRel) == 1 {
            let _ = self.changes.send(TaskStatus::Working);
        }
    }
}
