//! What a task is, as every store keeps it ([`TaskRecord`]), and the one
//! state machine that changes it ([`TaskRecord::apply`]), so stores differ
//! only in where records live.
//!
//! A task starts `working`; it goes to `input_required` while it waits on
//! answers from the client and back to `working` once they came; it ends
//! `completed`, `failed` or `cancelled`, and an ended task never changes
//! again: a late completion cannot overwrite a cancel, nor a cancel a
//! completion.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Where a task stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the client to answer its questions.
    InputRequired,
    /// Ended with the tool's result (in the 2026-07-28 era, an error result
    /// too).
    Completed,
    /// Ended with an error.
    Failed,
    /// Cancelled by the client.
    Cancelled,
}

impl TaskStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// Whether the task has ended, for good.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// How a task ended, when it did not end cancelled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskOutcome {
    /// The tool's `CallToolResult`, as JSON.
    Result(Value),
    /// A JSON-RPC error object (`code`, `message`, `data`).
    Error(Value),
}

/// The lease of the instance running a task: past `until_ms` without a
/// renewal, the instance is taken for dead and the task fails.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    /// The instance's id.
    pub instance: String,
    /// Milliseconds since the Unix epoch.
    pub until_ms: u64,
}

/// One task, as a [`TaskStore`](super::TaskStore) keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task's id (unguessable).
    pub id: String,
    /// The caller it belongs to (the authenticated subject), if the
    /// server authenticates; only that caller can see it.
    pub owner: Option<String>,
    /// Whether it was made in the 2026-07-28 era (the extension), rather
    /// than protocol 2025-11-25's: each era's methods see only its own.
    pub modern: bool,
    /// The tool called.
    pub tool: String,
    /// Where it stands.
    pub status: TaskStatus,
    /// A message for people about where it stands.
    pub status_message: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// Milliseconds since the Unix epoch.
    pub updated_ms: u64,
    /// How long it is kept from its creation, in milliseconds.
    pub ttl_ms: u64,
    /// How often the client is advised to poll, in milliseconds.
    pub poll_interval_ms: u64,
    /// How it ended, once it did (not when cancelled).
    pub outcome: Option<TaskOutcome>,
    /// The questions it waits on (2026-07-28): key → `{method, params}`.
    pub input_requests: BTreeMap<String, Value>,
    /// The answers received to its questions, by key. Kept for the task's
    /// life, so an answer to a question already answered is ignored.
    pub answers: BTreeMap<String, Value>,
    /// Who runs it, while it runs.
    pub lease: Option<Lease>,
}

impl TaskRecord {
    /// A new `working` task made now, with no TTL and no poll interval
    /// yet (set [`ttl_ms`](TaskRecord::ttl_ms) before keeping it: a task
    /// is forgotten once its TTL from creation has passed). The server
    /// makes tasks itself; this is for a [`TaskStore`](super::TaskStore)'s
    /// own tests.
    pub fn new(id: String, owner: Option<String>, modern: bool, tool: &str) -> TaskRecord {
        let now = super::id::now_ms();
        TaskRecord {
            id,
            owner,
            modern,
            tool: tool.to_owned(),
            status: TaskStatus::Working,
            status_message: None,
            created_ms: now,
            updated_ms: now,
            ttl_ms: 0,
            poll_interval_ms: 0,
            outcome: None,
            input_requests: BTreeMap::new(),
            answers: BTreeMap::new(),
            lease: None,
        }
    }

    /// When it is forgotten: milliseconds since the Unix epoch.
    pub fn expires_ms(&self) -> u64 {
        self.created_ms.saturating_add(self.ttl_ms)
    }

    /// Applies `change` at `now_ms`. Returns whether the record changed; an
    /// ended task changes no more (its status, outcome and questions stay).
    pub fn apply(&mut self, change: &Change, now_ms: u64) -> bool {
        if self.status.is_terminal() {
            return false;
        }
        match change {
            Change::Status { status, message } => {
                if status.is_terminal() {
                    return false;
                }
                if *status == self.status && *message == self.status_message {
                    return false;
                }
                self.status = *status;
                self.status_message.clone_from(message);
            }
            Change::Message(message) => {
                if *message == self.status_message {
                    return false;
                }
                self.status_message.clone_from(message);
            }
            Change::Finish {
                status,
                outcome,
                message,
            } => {
                if !status.is_terminal() {
                    return false;
                }
                self.status = *status;
                self.outcome.clone_from(outcome);
                if message.is_some() {
                    self.status_message.clone_from(message);
                }
                self.input_requests.clear();
                self.lease = None;
            }
            Change::Ask { key, request } => {
                if self.answers.contains_key(key) {
                    return false;
                }
                self.input_requests.insert(key.clone(), request.clone());
                self.status = TaskStatus::InputRequired;
            }
            Change::Answer(responses) => {
                let mut any = false;
                for (key, response) in responses {
                    if self.input_requests.remove(key).is_some() {
                        self.answers.insert(key.clone(), response.clone());
                        any = true;
                    }
                }
                if !any {
                    return false;
                }
                if self.input_requests.is_empty() {
                    self.status = TaskStatus::Working;
                }
            }
            Change::Withdraw { key } => {
                if self.input_requests.remove(key).is_none() {
                    return false;
                }
                if self.input_requests.is_empty() {
                    self.status = TaskStatus::Working;
                }
            }
            Change::Renew(lease) => {
                self.lease = Some(lease.clone());
                // A renewal is not news to the client.
                return true;
            }
        }
        self.updated_ms = now_ms.max(self.updated_ms);
        true
    }
}

/// A change to a task, applied by [`TaskRecord::apply`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Change {
    /// To `working` or `input_required`, with a message or none.
    Status {
        /// Not an ended status.
        status: TaskStatus,
        /// The new status message.
        message: Option<String>,
    },
    /// A new status message, the status unchanged.
    Message(Option<String>),
    /// The end: `completed` or `failed` with an outcome, or `cancelled`.
    Finish {
        /// An ended status.
        status: TaskStatus,
        /// The result or error (none when cancelled).
        outcome: Option<TaskOutcome>,
        /// A status message, when the end has one to give.
        message: Option<String>,
    },
    /// A question the task asks the client (2026-07-28): `input_required`.
    Ask {
        /// Unique for the task's life.
        key: String,
        /// `{method, params}`.
        request: Value,
    },
    /// The client's answers: those to questions still open are kept, the
    /// rest ignored; `working` again once none is open.
    Answer(Map<String, Value>),
    /// A question the task no longer waits on (it stopped waiting).
    Withdraw {
        /// The question's key.
        key: String,
    },
    /// The running instance's lease, renewed.
    Renew(Lease),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task() -> TaskRecord {
        let mut record = TaskRecord::new("t".into(), None, true, "tool");
        (record.created_ms, record.updated_ms) = (0, 0);
        record
    }

    fn finish(status: TaskStatus) -> Change {
        Change::Finish {
            status,
            outcome: None,
            message: None,
        }
    }

    #[test]
    fn an_ended_task_never_changes_again() {
        for end in [
            TaskStatus::Completed,
            TaskStatus::Failed,
            TaskStatus::Cancelled,
        ] {
            let mut record = task();
            assert!(record.apply(&finish(end), 10));
            let before = record.clone();
            for change in [
                finish(TaskStatus::Cancelled),
                finish(TaskStatus::Completed),
                Change::Status {
                    status: TaskStatus::Working,
                    message: None,
                },
                Change::Message(Some("late".into())),
                Change::Ask {
                    key: "k".into(),
                    request: json!({}),
                },
            ] {
                assert!(!record.apply(&change, 20), "{change:?} after {end:?}");
            }
            assert_eq!(record, before);
        }
    }

    #[test]
    fn questions_move_the_task_to_input_required_until_all_are_answered() {
        let mut record = task();
        for key in ["a", "b"] {
            let ask = Change::Ask {
                key: key.into(),
                request: json!({"method": "elicitation/create"}),
            };
            assert!(record.apply(&ask, 1));
        }
        assert_eq!(record.status, TaskStatus::InputRequired);
        let answers = |pairs: &[(&str, i32)]| {
            Change::Answer(
                pairs
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), json!(v)))
                    .collect(),
            )
        };
        // An answer to a question never asked changes nothing.
        assert!(!record.apply(&answers(&[("zz", 1)]), 2));
        assert!(record.apply(&answers(&[("a", 1), ("zz", 2)]), 3));
        assert_eq!(record.status, TaskStatus::InputRequired);
        assert_eq!(record.input_requests.keys().collect::<Vec<_>>(), ["b"]);
        // Answering `a` again is ignored; `b` ends the wait.
        assert!(!record.apply(&answers(&[("a", 9)]), 4));
        assert!(record.apply(&answers(&[("b", 2)]), 5));
        assert_eq!(record.status, TaskStatus::Working);
        assert_eq!(record.answers["a"], json!(1));
        assert_eq!(record.updated_ms, 5);
        // A key answered once is never asked again.
        let again = Change::Ask {
            key: "a".into(),
            request: json!({}),
        };
        assert!(!record.apply(&again, 6));
    }

    #[test]
    fn a_record_survives_json() {
        let mut record = task();
        record.apply(
            &Change::Finish {
                status: TaskStatus::Failed,
                outcome: Some(TaskOutcome::Error(json!({"code": -32603, "message": "x"}))),
                message: Some("boom".into()),
            },
            7,
        );
        let text = serde_json::to_string(&record).unwrap();
        assert_eq!(serde_json::from_str::<TaskRecord>(&text).unwrap(), record);
    }
}
