//! Whether a `tools/call` becomes a task, and the hand-over of one that
//! does: run once, then moved to the server's task runner and answered
//! with the task. Also the 2026-07-28 gate on the `tasks/*` methods. The
//! methods themselves are `tasks`'.

use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use serde_json::Value;
use serde_json::value::RawValue;

use super::core::ServerCore;
use super::frame::Frame;
use super::job::Job;
use super::reply::{Answer, method_not_found};
use super::tails::finish;
use crate::asking::rounds::Interim;
use crate::context::{Context, SessionShared};
use crate::jsonrpc::{self, ErrorObject, INVALID_PARAMS, METHOD_NOT_FOUND};
use crate::protocol::version::ProtocolVersion;
use crate::tasks::wire::{self, EXTENSION};
use crate::tasks::{LegacyLink, TaskLink};
use crate::tasks::{TaskOutcome, TaskStatus};
use crate::telemetry::Answered;
use crate::tools::def::TaskSupport;

/// How a `tools/call` runs.
pub(crate) enum Plan {
    /// As a plain call.
    Plain,
    /// As a 2025-11-25 task, which the client asked for (`params.task`).
    Legacy {
        /// The TTL it asked for, in milliseconds.
        ttl: Option<u64>,
    },
    /// As a 2026-07-28 task, if it does not end when first run.
    Modern,
}

/// -32021 for a request whose client did not declare the tasks extension.
pub(crate) fn missing_extension(what: &str) -> ErrorObject {
    ErrorObject::missing_capability_at(
        &["extensions", EXTENSION],
        format!(
            "Missing required client capability: {what} needs the extension \"{EXTENSION}\", \
             which this request's client did not declare in \
             \"io.modelcontextprotocol/clientCapabilities\".extensions"
        ),
    )
}

/// Whether a client's capabilities declare the tasks extension.
fn declares_extension(capabilities: &Value) -> bool {
    capabilities
        .get("extensions")
        .and_then(|extensions| extensions.get(EXTENSION))
        .is_some_and(Value::is_object)
}

/// How a call of a tool with `support` runs for `session`, given the
/// `task` its params carry (2025-11-25); the error to answer instead when
/// the two do not fit.
pub(crate) fn plan(
    core: &ServerCore,
    support: TaskSupport,
    session: &SessionShared,
    task: Option<&RawValue>,
    tool: &str,
) -> Result<Plan, ErrorObject> {
    if core.tasks.is_none() {
        return Ok(Plan::Plain);
    }
    match session.version {
        ProtocolVersion::V2025_11_25 => {
            let asked = task.filter(|raw| raw.get() != "null");
            match (support, asked) {
                (TaskSupport::Forbidden, Some(_)) => Err(ErrorObject::new(
                    METHOD_NOT_FOUND,
                    format!(
                        "the tool {tool:?} does not run as a task (its taskSupport is \"forbidden\"): call it without `task`"
                    ),
                )),
                (TaskSupport::Required, None) => Err(ErrorObject::new(
                    METHOD_NOT_FOUND,
                    format!(
                        "the tool {tool:?} runs only as a task (its taskSupport is \"required\"): call it with `task`, e.g. \"task\": {{}}"
                    ),
                )),
                (_, None) => Ok(Plan::Plain),
                (_, Some(raw)) => {
                    let ttl = match serde_json::from_str::<Value>(raw.get()) {
                        Ok(Value::Object(task)) => match task.get("ttl") {
                            None | Some(Value::Null) => None,
                            Some(ttl) => Some(ttl.as_u64().ok_or_else(|| {
                                ErrorObject::new(
                                    INVALID_PARAMS,
                                    "`task.ttl` must be a whole number of milliseconds",
                                )
                            })?),
                        },
                        _ => {
                            return Err(ErrorObject::new(
                                INVALID_PARAMS,
                                "`task` must be an object: {\"ttl\": milliseconds} or {}",
                            ));
                        }
                    };
                    Ok(Plan::Legacy { ttl })
                }
            }
        }
        version if version.is_modern() => {
            // Most tools are never tasks: their calls skip the lookup.
            if support == TaskSupport::Forbidden {
                return Ok(Plan::Plain);
            }
            match (support, declares_extension(&session.client.capabilities)) {
                (_, true) => Ok(Plan::Modern),
                (TaskSupport::Required, false) => {
                    Err(missing_extension(&format!("the tool {tool:?}")))
                }
                (_, false) => Ok(Plan::Plain),
            }
        }
        // Before 2025-11-25 there are no tasks: a required tool runs as a
        // plain call, the one way such a client can call it.
        _ => Ok(Plan::Plain),
    }
}

/// What starting a task needs from a call answered with `R`.
pub(crate) struct Start<'a, R> {
    pub(crate) core: &'a Arc<ServerCore>,
    pub(crate) session: &'a Arc<SessionShared>,
    pub(crate) owner: Option<String>,
    pub(crate) ctx: Context,
    /// Writes the call's own answer, when it needs no task.
    pub(crate) job: Job<R>,
    /// How its answer ends its task.
    pub(crate) settle: fn(&R, bool) -> (TaskStatus, TaskOutcome),
}

/// Runs a call as a task, answering the request of `frame` with the task
/// (or, in the 2026-07-28 era, with the call's own answer when it needs no
/// task: it ended, or asked questions first).
pub(crate) async fn start<R>(
    start: Start<'_, R>,
    plan: Plan,
    call: Pin<Box<dyn Future<Output = R> + Send>>,
    frame: &mut Frame<'_>,
) -> Result<Answer, ErrorObject>
where
    R: Answered + Interim + Send + 'static,
{
    let Some(runner) = start.core.tasks.clone() else {
        return Err(ErrorObject::new(jsonrpc::INTERNAL_ERROR, "internal error"));
    };
    let id = frame.id;
    let (modern, ttl) = match plan {
        Plan::Plain => return Err(ErrorObject::new(jsonrpc::INTERNAL_ERROR, "internal error")),
        Plan::Legacy { ttl } => (false, ttl),
        Plan::Modern => (true, None),
    };
    let mut call = call;
    if modern {
        // Run once here: a call that ends at once, or asks before it
        // waits on anything else (a round of questions, answered with
        // `input_required`), needs no task.
        let mut driven: Pin<Box<dyn Future<Output = R> + Send>> = match &start.job.round {
            Some(round) => Box::pin(Arc::clone(round).drive(call)),
            None => call,
        };
        let first = std::future::poll_fn(|cx| Poll::Ready(driven.as_mut().poll(cx))).await;
        if let Poll::Ready(result) = first {
            start.ctx.finish();
            crate::telemetry::completed(&result);
            frame
                .reply
                .write(|reply| start.job.answer(reply, id, &result));
            return Ok(Answer::Written);
        }
        call = driven;
    }
    let ttl = runner.ttl_ms(ttl);
    let tool = start.ctx.tool_name();
    let record = runner.record(start.owner, modern, tool, ttl)?;
    runner.create(record.clone()).await?;
    tracing::debug!(task = %record.id, tool, "the call runs as a task");
    if modern {
        let link = TaskLink::new(
            Arc::clone(&runner),
            record.id.clone(),
            start.session.ask_timeout,
        );
        start.ctx.set_task(Arc::new(link));
    } else {
        let notices = start.session.notices.get().cloned();
        let link = LegacyLink::new(Arc::clone(&runner), record.id.clone(), notices);
        start.ctx.set_task(Arc::new(link));
    }
    runner.spawn(record.id.clone(), start.ctx, call, start.settle, modern);
    if modern {
        let tail = start.core.tails().task();
        let result = Value::Object(wire::modern_created(&record));
        frame.reply.write(|reply| {
            let begin = reply.len();
            jsonrpc::write_result(reply, id, &result);
            finish(reply, begin, id, tail);
        });
    } else {
        let result = wire::legacy_created(&record);
        frame
            .reply
            .write(|reply| jsonrpc::write_result(reply, id, &result));
    }
    Ok(Answer::Written)
}

/// The gate of the 2026-07-28 era's `tasks/*`: methods it removed are
/// -32601, and a request whose client did not declare the extension is
/// -32021 (before its task is looked up).
pub(crate) fn modern_gate(
    core: &ServerCore,
    method: &str,
    capabilities: &Value,
) -> Result<(), ErrorObject> {
    if !method.starts_with("tasks/") {
        return Ok(());
    }
    if matches!(method, "tasks/result" | "tasks/list") || core.tasks.is_none() {
        return Err(method_not_found(method));
    }
    if !declares_extension(capabilities) {
        return Err(missing_extension(&format!("`{method}`")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_missing_extension_is_named_as_an_object() {
        let error = missing_extension("`tasks/get`");
        assert_eq!(error.code, -32021);
        assert_eq!(
            error.data.unwrap(),
            json!({"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}})
        );
    }

    #[test]
    fn only_an_object_declares_the_extension() {
        assert!(declares_extension(
            &json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
        ));
        assert!(!declares_extension(&json!({"extensions": {}})));
        assert!(!declares_extension(
            &json!({"extensions": {"io.modelcontextprotocol/tasks": true}})
        ));
        assert!(!declares_extension(&json!({})));
    }
}
