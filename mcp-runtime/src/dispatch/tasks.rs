//! The `tasks/*` methods of both eras, past the era's gate: `tasks/get`,
//! `tasks/cancel` and `tasks/update` (2026-07-28, the extension),
//! `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`
//! (2025-11-25). Whether a call becomes a task is `task_calls`'.

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::frame::{Frame, params_object};
use super::job::{Job, request_context};
use super::reply::{Answer, json_result, method_not_found};
use super::state::Connection;
use crate::context::SessionShared;
use crate::jsonrpc::{self, ErrorObject, INVALID_PARAMS};
use crate::tasks::runner::TaskRunner;
use crate::tasks::wire;
use crate::tasks::{Change, TaskOutcome, TaskRecord, TaskStatus};

/// The `taskId` of a `tasks/*` request.
fn task_id(params: &Map<String, Value>, method: &str) -> Result<String, ErrorObject> {
    match params.get("taskId") {
        Some(Value::String(id)) => Ok(id.clone()),
        _ => Err(ErrorObject::new(
            INVALID_PARAMS,
            format!("Invalid params: {method} needs `taskId`, a string"),
        )),
    }
}

/// A page position in `tasks/list`: `(created_ms, id)` as an opaque
/// cursor.
fn cursor(created_ms: u64, id: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{created_ms}.{id}"))
}

fn read_cursor(cursor: &Value) -> Result<(u64, String), ErrorObject> {
    let invalid = || ErrorObject::new(INVALID_PARAMS, "Invalid params: unknown `cursor`");
    let text = cursor.as_str().ok_or_else(invalid)?;
    let bytes = URL_SAFE_NO_PAD.decode(text).map_err(|_| invalid())?;
    let text = String::from_utf8(bytes).map_err(|_| invalid())?;
    let (created, id) = text.split_once('.').ok_or_else(invalid)?;
    Ok((created.parse().map_err(|_| invalid())?, id.to_owned()))
}

/// The result of an ended 2025-11-25 task, as `tasks/result` gives it:
/// what the call would have answered, tied to its task.
fn legacy_result(record: &TaskRecord) -> Result<Value, ErrorObject> {
    match (&record.status, &record.outcome) {
        (_, Some(TaskOutcome::Result(result))) => {
            let mut result = result.clone();
            if let Value::Object(object) = &mut result {
                wire::tie_to_task(object, &record.id);
            }
            Ok(result)
        }
        (_, Some(TaskOutcome::Error(error))) => Err(serde_json::from_value(error.clone())
            .unwrap_or_else(|_| ErrorObject::new(jsonrpc::INTERNAL_ERROR, "the task failed"))),
        (TaskStatus::Cancelled, None) => Err(ErrorObject::new(
            INVALID_PARAMS,
            format!("the task {:?} was cancelled: it has no result", record.id),
        )),
        _ => Err(ErrorObject::new(
            jsonrpc::INTERNAL_ERROR,
            format!("the task {:?} ended without a result", record.id),
        )),
    }
}

/// Waits until the task `id` ends, then gives its result.
async fn wait_result(
    runner: Arc<TaskRunner>,
    id: String,
    owner: Option<String>,
) -> Result<Value, ErrorObject> {
    let mut waiter = runner.waiter(&id);
    loop {
        waiter.mark();
        let record = runner.find(&id, owner.as_deref(), false).await?;
        if record.status.is_terminal() {
            return legacy_result(&record);
        }
        waiter.changed(runner.recheck()).await;
    }
}

impl Connection {
    /// Serves `tasks/get`, `tasks/cancel`, `tasks/update` (2026-07-28),
    /// `tasks/result` and `tasks/list` (2025-11-25), past the era's gate.
    pub(super) async fn task_method(
        &mut self,
        method: &str,
        params: Option<&RawValue>,
        session: Arc<SessionShared>,
        frame: &mut Frame<'_>,
    ) -> Result<Answer, ErrorObject> {
        let Some(runner) = self.core.tasks.clone() else {
            return Err(method_not_found(method));
        };
        let modern = session.version.is_modern();
        let method: &'static str = match (method, modern) {
            ("tasks/get", _) => "tasks/get",
            ("tasks/cancel", _) => "tasks/cancel",
            ("tasks/update", true) => "tasks/update",
            ("tasks/result", false) => "tasks/result",
            // Only callers that are identified see a list: theirs.
            ("tasks/list", false) if self.identity.is_some() => "tasks/list",
            _ => return Err(method_not_found(method)),
        };
        let asked = Asked {
            method,
            modern,
            owner: self.identity.as_deref().map(|i| i.subject().to_owned()),
            params: params_object(params)?,
            page_size: self.core.limits.page_size.unwrap_or(100),
        };
        // Run as a call of the connection: a store that has to wait
        // (Redis) does not hold up the connection's other requests, and
        // `tasks/result` waits for as long as its task runs.
        let ctx = request_context(
            &session,
            Arc::from(method),
            frame.id,
            None,
            frame.out,
            self.identity.as_ref(),
        );
        let job = Job::json(method, &session, &self.core);
        let answer = async move { json_result(&serve(runner, asked).await?) };
        self.calls.run(ctx, Box::pin(answer), job, frame).await
    }
}

/// A `tasks/*` request, read.
struct Asked {
    method: &'static str,
    modern: bool,
    /// The caller, when identified.
    owner: Option<String>,
    params: Map<String, Value>,
    /// Tasks per `tasks/list` page.
    page_size: usize,
}

/// The result of a `tasks/*` request.
async fn serve(runner: Arc<TaskRunner>, asked: Asked) -> Result<Value, ErrorObject> {
    let Asked {
        method,
        modern,
        owner,
        params,
        page_size,
    } = asked;
    let owner = owner.as_deref();
    if method == "tasks/list" {
        let after = params.get("cursor").map(read_cursor).transpose()?;
        let after_ref = after.as_ref().map(|(c, id)| (*c, id.as_str()));
        let page = runner.list(owner, after_ref, page_size + 1).await?;
        let tasks: Vec<Value> = page
            .iter()
            .take(page_size)
            .map(|r| Value::Object(wire::legacy_task(r)))
            .collect();
        let mut result = json!({ "tasks": tasks });
        if page.len() > page_size
            && let Some(last) = page.get(page_size - 1)
        {
            result["nextCursor"] = cursor(last.created_ms, &last.id).into();
        }
        return Ok(result);
    }
    let id = task_id(&params, method)?;
    match (method, modern) {
        ("tasks/get", true) => {
            let record = runner.find(&id, owner, true).await?;
            Ok(Value::Object(wire::modern_detailed(&record)))
        }
        ("tasks/get", false) => {
            let record = runner.find(&id, owner, false).await?;
            Ok(Value::Object(wire::legacy_task(&record)))
        }
        ("tasks/cancel", true) => {
            runner.cancel(&id, owner, true).await?;
            Ok(json!({}))
        }
        ("tasks/cancel", false) => {
            let (record, cancelled) = runner.cancel(&id, owner, false).await?;
            if !cancelled {
                return Err(ErrorObject::new(
                    INVALID_PARAMS,
                    format!(
                        "Cannot cancel task: already in terminal status '{}'",
                        record.status.as_str()
                    ),
                ));
            }
            Ok(Value::Object(wire::legacy_task(&record)))
        }
        ("tasks/update", _) => {
            let responses = match params.get("inputResponses") {
                Some(Value::Object(responses)) => responses.clone(),
                _ => {
                    return Err(ErrorObject::new(
                        INVALID_PARAMS,
                        "Invalid params: tasks/update needs `inputResponses`, an object of \
                         the client's results by input request key",
                    ));
                }
            };
            if let Some((key, _)) = responses.iter().find(|(_, r)| !r.is_object()) {
                return Err(ErrorObject::new(
                    INVALID_PARAMS,
                    format!("Invalid params: `inputResponses` entry {key:?} must be an object"),
                ));
            }
            runner.find(&id, owner, true).await?;
            // Answers to questions not (or no longer) open are ignored: the
            // acknowledgement is the same.
            runner.update(&id, Change::Answer(responses)).await?;
            Ok(json!({}))
        }
        // tasks/result: waits until the task ends.
        _ => wait_result(runner, id, owner.map(str::to_owned)).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_read_back_and_forged_ones_are_refused() {
        let text = cursor(1_764_066_600_000, "abc_-1");
        assert_eq!(
            read_cursor(&Value::String(text)).unwrap(),
            (1_764_066_600_000, "abc_-1".to_owned())
        );
        for forged in [json!("!!"), json!(5), json!(URL_SAFE_NO_PAD.encode("x"))] {
            assert_eq!(read_cursor(&forged).unwrap_err().code, -32602);
        }
    }
}
