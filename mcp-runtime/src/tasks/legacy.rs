//! A 2025-11-25 task, as the call it runs sees it: it asks and reports
//! as a plain call does, on its session (stdout, or the session's GET
//! stream over HTTP), each message tied to the task by `_meta`; while it
//! waits on an answer the task is `input_required`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use tokio::sync::mpsc;

use super::record::{Change, TaskStatus};
use super::runner::TaskRunner;
use crate::asking::ask::ClientRequestError;
use crate::asking::tasked::{Asking, TaskChannel};

pub(crate) struct LegacyLink {
    id: String,
    /// Questions waiting for answers.
    waiting: AtomicUsize,
    /// The status changes `waiting` makes, applied in order by a task
    /// that ends with the link.
    changes: mpsc::UnboundedSender<TaskStatus>,
}

impl LegacyLink {
    /// The link of the task `id`; needs a Tokio runtime.
    pub(crate) fn new(runner: Arc<TaskRunner>, id: String) -> LegacyLink {
        let (changes, mut pending) = mpsc::unbounded_channel();
        let task_id = id.clone();
        tokio::spawn(async move {
            while let Some(status) = pending.recv().await {
                let change = Change::Status {
                    status,
                    message: None,
                };
                let _ = runner.update(&task_id, change).await;
            }
        });
        LegacyLink {
            id,
            waiting: AtomicUsize::new(0),
            changes,
        }
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
