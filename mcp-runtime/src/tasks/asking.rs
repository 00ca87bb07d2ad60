//! Questions from a 2026-07-28 task: a call that became a task asks its
//! client through the task. The question is kept in the store (the task
//! goes `input_required`), the client sees it in `tasks/get`'s
//! `inputRequests`, answers it with `tasks/update` on any instance, and
//! the task reads the answer from the store and goes on.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::record::Change;
use super::runner::TaskRunner;
use super::store::Updated;
use crate::asking::ask::ClientRequestError;
use crate::asking::tasked::{Asking, TaskChannel};

/// A task, as the call it runs sees it.
pub(crate) struct TaskLink {
    runner: Arc<TaskRunner>,
    id: String,
    /// How long a question waits for its answer.
    timeout: Duration,
    asked: AtomicU64,
    /// The keys used so far: a key names one question for the task's life.
    keys: Mutex<HashSet<String>>,
    /// When the status message was last written, to write it at most
    /// about once a second.
    last_progress: Mutex<Option<tokio::time::Instant>>,
}

impl TaskLink {
    pub(crate) fn new(runner: Arc<TaskRunner>, id: String, timeout: Duration) -> TaskLink {
        TaskLink {
            runner,
            id,
            timeout,
            asked: AtomicU64::new(0),
            keys: Mutex::default(),
            last_progress: Mutex::new(None),
        }
    }

    /// A key for a question of `method`: the one its asker named, if that
    /// was never used in this task, else one made from the method and a
    /// count.
    fn key(&self, method: &str, named: Option<&str>) -> String {
        let n = self.asked.fetch_add(1, Ordering::Relaxed) + 1;
        let Ok(mut keys) = self.keys.lock() else {
            return format!("{method}#{n}");
        };
        let key = match named {
            Some(named) if !keys.contains(named) => named.to_owned(),
            Some(named) => format!("{named}#{n}"),
            None => {
                let short = method.split('/').next().unwrap_or(method);
                format!("{short}-{n}")
            }
        };
        keys.insert(key.clone());
        key
    }

    async fn wait_for_answer(&self, key: &str) -> Result<Value, ClientRequestError> {
        let store = &self.runner.store;
        let mut waiter = self.runner.waiter(&self.id);
        let deadline = tokio::time::Instant::now() + self.timeout;
        loop {
            waiter.mark();
            let record = store
                .get(&self.id)
                .await
                .map_err(|_| ClientRequestError::Disconnected)?;
            let Some(record) = record else {
                return Err(ClientRequestError::Cancelled);
            };
            if let Some(answer) = record.answers.get(key) {
                return Ok(answer.clone());
            }
            if record.status.is_terminal() {
                return Err(ClientRequestError::Cancelled);
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Err(ClientRequestError::Timeout(self.timeout));
            }
            let wait = self.runner.recheck().min(deadline - now);
            waiter.changed(wait).await;
        }
    }
}

impl TaskChannel for TaskLink {
    fn ask<'a>(&'a self, method: &'a str, params: Value, key: Option<&'a str>) -> Asking<'a> {
        Box::pin(async move {
            let key = self.key(method, key);
            let request = json!({ "method": method, "params": params });
            let change = Change::Ask {
                key: key.clone(),
                request,
            };
            match self.runner.store.update(&self.id, change).await {
                Ok(Updated::Changed(_)) => {}
                Ok(Updated::Unchanged(_) | Updated::NotFound) => {
                    return Err(ClientRequestError::Cancelled);
                }
                Err(error) => {
                    tracing::warn!(task = %self.id, %error, "a task's question could not be kept");
                    return Err(ClientRequestError::Disconnected);
                }
            }
            let answer = self.wait_for_answer(&key).await;
            if answer.is_err() {
                // No longer waited for: not shown to the client any more.
                let withdraw = Change::Withdraw { key };
                let _ = self.runner.store.update(&self.id, withdraw).await;
            }
            answer
        })
    }

    fn progress(&self, message: String) {
        let now = tokio::time::Instant::now();
        let due = self.last_progress.lock().is_ok_and(|mut last| {
            let due = last.is_none_or(|at| now.duration_since(at) >= Duration::from_secs(1));
            if due {
                *last = Some(now);
            }
            due
        });
        if !due {
            return;
        }
        let runner = Arc::clone(&self.runner);
        let id = self.id.clone();
        tokio::spawn(async move {
            let _ = runner.update(&id, Change::Message(Some(message))).await;
        });
    }
}
