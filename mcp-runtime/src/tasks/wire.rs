//! A task as each era writes it.
//!
//! - 2025-11-25: a `Task` object (`taskId`, `status`, `statusMessage`,
//!   `createdAt`, `lastUpdatedAt`, `ttl`, `pollInterval`); a created task
//!   is answered `{"task": Task}`, `tasks/get` and `tasks/cancel` with the
//!   `Task`'s fields as the result itself.
//! - 2026-07-28: flat, with times in `ttlMs` and `pollIntervalMs`; a
//!   created task is answered with `resultType: "task"` (added by the
//!   result's tail), `tasks/get` with `resultType: "complete"` and the
//!   task's `inputRequests`, `result` or `error` as its status has them.
//!   Never `requestState`, `ttl`, `pollInterval` nor a nested `task`.

use serde_json::{Map, Value, json};

use super::record::{TaskOutcome, TaskRecord, TaskStatus};

/// The `_meta` key tying a message to its task (2025-11-25).
pub(crate) const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// Ties a message's `params` (or a result) to the task `id`:
/// `_meta["io.modelcontextprotocol/related-task"] = {"taskId": id}`, beside
/// whatever `_meta` holds already.
pub(crate) fn tie_to_task(object: &mut Map<String, Value>, id: &str) {
    let meta = object
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert(RELATED_TASK.into(), json!({ "taskId": id }));
    }
}

/// The extension's name (2026-07-28).
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Milliseconds since the Unix epoch as an ISO 8601 UTC time, to the
/// millisecond: `2026-11-27T17:08:02.123Z`.
pub(crate) fn iso8601(ms: u64) -> String {
    let (days, in_day) = (ms / 86_400_000, ms % 86_400_000);
    // Days since 1970-01-01 to a civil date (proleptic Gregorian), after
    // Howard Hinnant's `civil_from_days`.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, milli) = (
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1_000 % 60,
        in_day % 1_000,
    );
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

/// The fields both eras' tasks share.
fn common(record: &TaskRecord) -> Map<String, Value> {
    let mut task = Map::new();
    task.insert("taskId".into(), record.id.clone().into());
    task.insert("status".into(), record.status.as_str().into());
    if let Some(message) = &record.status_message {
        task.insert("statusMessage".into(), message.clone().into());
    }
    task.insert("createdAt".into(), iso8601(record.created_ms).into());
    task.insert("lastUpdatedAt".into(), iso8601(record.updated_ms).into());
    task
}

/// A 2025-11-25 `Task`.
pub(crate) fn legacy_task(record: &TaskRecord) -> Map<String, Value> {
    let mut task = common(record);
    task.insert("ttl".into(), record.ttl_ms.into());
    if record.poll_interval_ms > 0 {
        task.insert("pollInterval".into(), record.poll_interval_ms.into());
    }
    task
}

/// The 2025-11-25 answer to a `tools/call` that made a task.
pub(crate) fn legacy_created(record: &TaskRecord) -> Value {
    json!({ "task": legacy_task(record) })
}

/// The 2026-07-28 answer to a `tools/call` that made a task (its
/// `resultType` comes with the result's tail).
pub(crate) fn modern_created(record: &TaskRecord) -> Map<String, Value> {
    let mut task = common(record);
    task.insert("ttlMs".into(), record.ttl_ms.into());
    if record.poll_interval_ms > 0 {
        task.insert("pollIntervalMs".into(), record.poll_interval_ms.into());
    }
    task
}

/// The 2026-07-28 answer to `tasks/get`: the task, with its open
/// questions, its result or its error as its status has them.
pub(crate) fn modern_detailed(record: &TaskRecord) -> Map<String, Value> {
    let mut task = modern_created(record);
    match (record.status, &record.outcome) {
        (TaskStatus::InputRequired, _) => {
            let requests: Map<String, Value> = record
                .input_requests
                .iter()
                .map(|(key, request)| (key.clone(), request.clone()))
                .collect();
            task.insert("inputRequests".into(), Value::Object(requests));
        }
        (TaskStatus::Completed, Some(TaskOutcome::Result(result))) => {
            task.insert("result".into(), result.clone());
        }
        (TaskStatus::Failed, Some(TaskOutcome::Error(error))) => {
            task.insert("error".into(), error.clone());
        }
        // A 2026-07-28 task fails only with an error; a result here comes
        // from a store shared with older instances: shown as a result.
        (TaskStatus::Failed, Some(TaskOutcome::Result(result))) => {
            task.insert("result".into(), result.clone());
        }
        _ => {}
    }
    task
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::record::Change;

    #[test]
    fn times_are_iso_8601_utc() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso8601(1_764_066_600_123), "2025-11-25T10:30:00.123Z");
        assert_eq!(iso8601(4_102_444_799_999), "2099-12-31T23:59:59.999Z");
    }

    fn record() -> TaskRecord {
        let mut record = TaskRecord::new("abc".into(), None, true, "tool");
        record.created_ms = 1_764_066_600_000;
        record.updated_ms = 1_764_066_601_000;
        record.ttl_ms = 60_000;
        record.poll_interval_ms = 5_000;
        record
    }

    #[test]
    fn legacy_tasks_nest_on_creation_and_name_times_in_ms_without_suffix() {
        let created = legacy_created(&record());
        assert_eq!(
            created,
            json!({"task": {
                "taskId": "abc", "status": "working",
                "createdAt": "2025-11-25T10:30:00.000Z",
                "lastUpdatedAt": "2025-11-25T10:30:01.000Z",
                "ttl": 60_000, "pollInterval": 5_000,
            }})
        );
    }

    #[test]
    fn modern_tasks_are_flat_and_carry_what_their_status_has() {
        let mut task = record();
        let created = Value::Object(modern_created(&task));
        assert_eq!(
            created,
            json!({
                "taskId": "abc", "status": "working",
                "createdAt": "2025-11-25T10:30:00.000Z",
                "lastUpdatedAt": "2025-11-25T10:30:01.000Z",
                "ttlMs": 60_000, "pollIntervalMs": 5_000,
            })
        );
        task.apply(
            &Change::Ask {
                key: "q1".into(),
                request: json!({"method": "elicitation/create", "params": {}}),
            },
            1_764_066_602_000,
        );
        let asking = modern_detailed(&task);
        assert_eq!(asking["status"], "input_required");
        assert_eq!(
            asking["inputRequests"]["q1"]["method"],
            "elicitation/create"
        );
        let result = json!({"content": [], "isError": true});
        task.apply(
            &Change::Finish {
                status: TaskStatus::Completed,
                outcome: Some(TaskOutcome::Result(result.clone())),
                message: None,
            },
            1_764_066_603_000,
        );
        let done = modern_detailed(&task);
        assert_eq!(done["result"], result);
        assert!(!done.contains_key("inputRequests"));
        for absent in ["requestState", "ttl", "pollInterval", "task", "error"] {
            assert!(!done.contains_key(absent), "{absent}");
        }
    }
}
