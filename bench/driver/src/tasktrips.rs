//! The tasks suite's requests and round trips: a `tools/call` made a task
//! in either era, then its result (`tasks/result`, or `tasks/get` until
//! completed), many in flight on one connection, every answer checked.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::load::Conn;
use crate::tasks::Era;

/// The tasks extension of the 2026-07-28 era.
const EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// What every task is given, and must answer.
pub const TEXT: &str = "hello, world";

pub fn modern_meta(tasks: bool) -> Value {
    let capabilities = if tasks {
        json!({ "extensions": { EXTENSION: {} } })
    } else {
        json!({})
    };
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "mcp-bench-driver", "version": env!("CARGO_PKG_VERSION") },
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

fn request(id: u64, method: &str, params: &Value) -> Vec<u8> {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
        .to_string()
        .into_bytes()
}

/// `tools/call work` made a task: `params.task` (2025-11-25) or the
/// extension declared (2026-07-28).
pub fn create_params(era: Era) -> Value {
    match era {
        Era::Legacy => json!({ "name": "work", "arguments": { "text": TEXT }, "task": {} }),
        Era::Modern => json!({
            "name": "work", "arguments": { "text": TEXT }, "_meta": modern_meta(true)
        }),
    }
}

pub fn task_params(era: Era, id: &str) -> Value {
    match era {
        Era::Legacy => json!({ "taskId": id }),
        Era::Modern => json!({ "taskId": id, "_meta": modern_meta(true) }),
    }
}

/// The plain call of the `echo` workloads (2026-07-28: from a client that
/// takes tasks; echo never is one).
pub fn echo_params(era: Era) -> Value {
    let mut params = json!({ "name": "echo", "arguments": { "text": TEXT } });
    if era == Era::Modern {
        params["_meta"] = modern_meta(true);
    }
    params
}

/// The result of a response, or why it is not one.
fn result_of(value: &Value) -> Result<&Value, String> {
    if let Some(error) = value.get("error") {
        return Err(format!("request {} failed: {error}", value["id"]));
    }
    let result = value
        .get("result")
        .ok_or_else(|| format!("neither result nor error: {value}"))?;
    if result.get("isError") == Some(&Value::Bool(true)) {
        return Err(format!("isError: {result}"));
    }
    Ok(result)
}

/// The task id of a `tools/call` answered with a task.
fn created_id(era: Era, result: &Value) -> Result<String, String> {
    let task = match era {
        Era::Legacy => result.get("task").ok_or_else(|| {
            format!(
                "answered without a task (no 2025-11-25 tasks): {}",
                crate::load::preview(result.to_string().as_bytes(), 200)
            )
        })?,
        Era::Modern => {
            if result.get("resultType").and_then(Value::as_str) != Some("task") {
                return Err(format!(
                    "answered without a task: {}",
                    crate::load::preview(result.to_string().as_bytes(), 200)
                ));
            }
            result
        }
    };
    task.get("taskId")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("no taskId in {task}"))
}

/// Checks a tool result: the text it was given.
pub fn check_text(result: &Value) -> Result<(), String> {
    if result["content"][0]["text"] == TEXT {
        Ok(())
    } else {
        Err(format!("unexpected result: {result}"))
    }
}

/// What a 2026-07-28 `tasks/get` says: `Some(())` once completed with the
/// right result, `None` while it works.
pub fn polled(result: &Value) -> Result<Option<()>, String> {
    match result.get("status").and_then(Value::as_str) {
        Some("working") => Ok(None),
        Some("completed") => check_text(&result["result"]).map(Some),
        _ => Err(format!("tasks/get: {result}")),
    }
}

/// What a slot waits for.
#[derive(Clone, Copy)]
enum Step {
    Create,
    /// `tasks/result` (2025-11-25) or `tasks/get` (2026-07-28).
    Finish,
}

pub struct Trips {
    pub times: Vec<Duration>,
    pub polls: u64,
    pub wall: Duration,
}

/// Up to `count` round trips, `in_flight` at once (none started after
/// `max_time`): `tools/call` made a task, then `tasks/result` (2025-11-25)
/// or `tasks/get` until completed (2026-07-28, polled again at once while
/// it works). Every answer is checked.
pub fn trips(
    conn: &mut Conn,
    era: Era,
    count: u64,
    in_flight: u64,
    max_time: Duration,
) -> Result<Trips, String> {
    let create = create_params(era);
    let mut pending: HashMap<u64, (Instant, Step)> = HashMap::new();
    let mut times = Vec::with_capacity(count as usize);
    let mut polls = 0u64;
    let start = Instant::now();
    let mut started = 0u64;
    let begin = |conn: &mut Conn, pending: &mut HashMap<u64, (Instant, Step)>| {
        let id = conn.take_id();
        pending.insert(id, (Instant::now(), Step::Create));
        conn.send_line(&request(id, "tools/call", &create))
    };
    while started < count.min(in_flight.max(1)) {
        begin(conn, &mut pending)?;
        started += 1;
    }
    conn.flush()?;
    while !pending.is_empty() {
        let value = conn.read_value()?;
        let Some(id) = value.get("id").and_then(Value::as_u64) else {
            if value.get("method").is_some() {
                // A notification (2025-11-25 tasks tell their status): what
                // is written waits no longer than for an answer.
                if !conn.input_buffered() {
                    conn.flush()?;
                }
                continue;
            }
            return Err(format!("an answer without an id: {value}"));
        };
        let (since, step) = pending
            .remove(&id)
            .ok_or_else(|| format!("an answer to an id never sent or answered twice: {id}"))?;
        let result = result_of(&value)?;
        let finished = match (step, era) {
            (Step::Create, _) => {
                let task = created_id(era, result)?;
                let (method, next) = match era {
                    Era::Legacy => ("tasks/result", task_params(era, &task)),
                    Era::Modern => {
                        polls += 1;
                        ("tasks/get", task_params(era, &task))
                    }
                };
                let next_id = conn.take_id();
                pending.insert(next_id, (since, Step::Finish));
                conn.send_line(&request(next_id, method, &next))?;
                false
            }
            (Step::Finish, Era::Legacy) => {
                check_text(result)?;
                true
            }
            (Step::Finish, Era::Modern) => {
                if polled(result)?.is_some() {
                    true
                } else {
                    let task = result["taskId"].as_str().unwrap_or_default().to_owned();
                    polls += 1;
                    let next_id = conn.take_id();
                    pending.insert(next_id, (since, Step::Finish));
                    conn.send_line(&request(next_id, "tasks/get", &task_params(era, &task)))?;
                    false
                }
            }
        };
        if finished {
            times.push(since.elapsed());
            if started < count && start.elapsed() < max_time {
                begin(conn, &mut pending)?;
                started += 1;
            }
        }
        if !conn.input_buffered() {
            conn.flush()?;
        }
    }
    Ok(Trips {
        times,
        polls,
        wall: start.elapsed(),
    })
}

/// Makes one task and waits for its end; returns its id.
pub fn finished_task(conn: &mut Conn, era: Era) -> Result<String, String> {
    let id = conn.take_id();
    conn.send_line(&request(id, "tools/call", &create_params(era)))?;
    conn.flush()?;
    let created = answer(conn, id)?;
    let task = created_id(era, result_of(&created)?)?;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let id = conn.take_id();
        let method = match era {
            Era::Legacy => "tasks/result",
            Era::Modern => "tasks/get",
        };
        conn.send_line(&request(id, method, &task_params(era, &task)))?;
        conn.flush()?;
        let value = answer(conn, id)?;
        let result = result_of(&value)?;
        let done = match era {
            Era::Legacy => check_text(result).map(|()| true)?,
            Era::Modern => polled(result)?.is_some(),
        };
        if done {
            return Ok(task);
        }
        if Instant::now() > deadline {
            return Err(format!("task {task} still not done after 10 s"));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The answer to request `id`, notifications skipped.
fn answer(conn: &mut Conn, id: u64) -> Result<Value, String> {
    loop {
        let value = conn.read_value()?;
        match value.get("id").and_then(Value::as_u64) {
            Some(got) if got == id => return Ok(value),
            Some(got) => return Err(format!("expected the answer to {id}, got one to {got}")),
            None => continue,
        }
    }
}
