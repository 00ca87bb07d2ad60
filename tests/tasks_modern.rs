//! Tasks in the 2026-07-28 era (the extension `io.modelcontextprotocol/tasks`),
//! on one connection in process: which calls become tasks, the flat
//! `resultType: "task"` answer, `tasks/get` with the result, error or
//! questions inlined, `tasks/update`, `tasks/cancel`, the gate on the
//! extension, and the errors for bad input.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::step::within;
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::{RpcError, TestClient};
use mcp_runtime::{Context, Elicit, Elicited, Server, tool};

const MODERN: &str = "2026-07-28";
const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Sleeps `ms` milliseconds.
#[tool(task = "optional")]
async fn sleepy(ms: u64) -> String {
    if ms > 0 {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    format!("slept {ms} ms")
}

/// Runs only as a task.
#[tool(task = "required")]
async fn must_task() -> String {
    tokio::time::sleep(Duration::from_millis(20)).await;
    "done as a task".into()
}

/// Never a task.
#[tool]
async fn plain(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    "plain".into()
}

/// Fails as a tool (an `isError` result).
#[tool(task = "optional")]
async fn tool_error() -> Result<String, String> {
    tokio::time::sleep(Duration::from_millis(20)).await;
    Err("the tool broke".into())
}

/// Fails with a JSON-RPC error.
#[tool(task = "optional")]
async fn rpc_error(ctx: Context) -> Result<String, String> {
    tokio::time::sleep(Duration::from_millis(20)).await;
    Err(ctx.protocol_error(-32000, "the backend refused"))
}

static STOPPED: AtomicBool = AtomicBool::new(false);
static FINISHED: AtomicBool = AtomicBool::new(false);

/// Sets [`STOPPED`] when dropped.
struct Tripwire;

impl Drop for Tripwire {
    fn drop(&mut self) {
        STOPPED.store(true, Ordering::SeqCst);
    }
}

/// Works for a minute unless stopped.
#[tool(task = "optional")]
async fn long_job() -> String {
    let _tripwire = Tripwire;
    tokio::time::sleep(Duration::from_secs(60)).await;
    FINISHED.store(true, Ordering::SeqCst);
    "finished".into()
}

#[derive(Debug, Elicit)]
struct Confirm {
    confirm: bool,
}

/// Starts, then asks for a confirmation (a question of the task).
#[tool(task = "optional")]
async fn asks_later(ctx: Context) -> Result<String, String> {
    tokio::task::yield_now().await;
    match ctx
        .input_key("sure")
        .elicit::<Confirm>("Sure?")
        .await
        .map_err(|e| e.to_string())?
    {
        Elicited::Accepted(Confirm { confirm }) => Ok(format!("confirmed: {confirm}")),
        other => Ok(format!("not confirmed: {other:?}")),
    }
}

#[derive(Debug, Elicit)]
struct Name {
    name: String,
}

/// Asks a name before anything else (a round), then works as a task.
#[tool(task = "required")]
async fn asks_first(ctx: Context) -> Result<String, String> {
    let Elicited::Accepted(Name { name }) = ctx
        .elicit::<Name>("Your name?")
        .await
        .map_err(|e| e.to_string())?
    else {
        return Ok("nameless".into());
    };
    tokio::time::sleep(Duration::from_millis(30)).await;
    Ok(format!("hello {name}"))
}

/// Reports where it stands, then ends.
#[tool(task = "optional")]
async fn reports(ctx: Context) -> String {
    tokio::task::yield_now().await;
    ctx.progress(1.0, Some(2.0), Some("halfway"));
    ctx.log(mcp_runtime::LogLevel::Warning, "half done");
    tokio::time::sleep(Duration::from_millis(30)).await;
    "reported".into()
}

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "tasks-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// A client that takes tasks and answers elicitations.
fn tasking() -> Value {
    json!({"elicitation": {}, "extensions": {EXTENSION: {}}})
}

fn with(mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = meta(capabilities);
    params
}

fn client() -> TestClient {
    let server = Server::new("tasks-test", "1").task_poll_interval(Duration::from_millis(50));
    TestClient::start(server).unwrap()
}

async fn ask(client: &mut TestClient, method: &str, params: Value) -> Result<Value, RpcError> {
    within(client.request(method, params)).await
}

async fn call(client: &mut TestClient, name: &str, arguments: Value) -> Value {
    let params = json!({"name": name, "arguments": arguments});
    ask(client, "tools/call", with(params, tasking()))
        .await
        .unwrap()
}

async fn get(client: &mut TestClient, id: &str) -> Value {
    ask(client, "tasks/get", with(json!({"taskId": id}), tasking()))
        .await
        .unwrap()
}

/// Polls `tasks/get` until `until` holds (bounded by the step's timeout).
async fn poll(client: &mut TestClient, id: &str, until: impl Fn(&Value) -> bool) -> Value {
    within(async {
        loop {
            let task = get(client, id).await;
            if until(&task) {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
}

fn ended(task: &Value) -> bool {
    matches!(
        task["status"].as_str(),
        Some("completed" | "failed" | "cancelled")
    )
}

fn task_id(created: &Value) -> String {
    created["taskId"].as_str().expect("a task id").to_owned()
}

#[tokio::test]
async fn the_extension_is_declared_and_tools_list_has_no_execution() {
    let mut client = client();
    let discovered = ask(&mut client, "server/discover", with(json!({}), json!({})))
        .await
        .unwrap();
    let capabilities = &discovered["capabilities"];
    assert_eq!(capabilities["extensions"][EXTENSION], json!({}));
    assert!(capabilities.get("tasks").is_none(), "{capabilities}");
    let list = ask(&mut client, "tools/list", with(json!({}), tasking()))
        .await
        .unwrap();
    for tool in list["tools"].as_array().unwrap() {
        assert!(tool.get("execution").is_none(), "{tool}");
    }
}

#[tokio::test]
async fn a_call_that_waits_becomes_a_task_and_its_result_is_inlined_when_done() {
    let mut client = client();
    let created = call(&mut client, "sleepy", json!({"ms": 200})).await;
    assert_eq!(created["resultType"], "task", "{created}");
    assert_eq!(created["status"], "working");
    let id = task_id(&created);
    assert_eq!(id.len(), 22);
    assert!(created["ttlMs"].as_u64().unwrap() > 0);
    assert_eq!(created["pollIntervalMs"], 50);
    for absent in [
        "task",
        "ttl",
        "pollInterval",
        "requestState",
        "result",
        "content",
    ] {
        assert!(created.get(absent).is_none(), "{absent} in {created}");
    }
    let created_at = created["createdAt"].as_str().unwrap();
    assert!(
        created_at.ends_with('Z') && created_at.contains('T'),
        "{created_at}"
    );
    let done = poll(&mut client, &id, ended).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["result"]["content"][0]["text"], "slept 200 ms");
    assert!(done["result"].get("_meta").is_none(), "{done}");
    // Still there after it ended.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(get(&mut client, &id).await["status"], "completed");
}

#[tokio::test]
async fn a_call_that_ends_at_once_is_answered_plainly() {
    let mut client = client();
    let answered = call(&mut client, "sleepy", json!({"ms": 0})).await;
    assert_eq!(answered["resultType"], "complete", "{answered}");
    assert_eq!(answered["content"][0]["text"], "slept 0 ms");
    // A plain tool never becomes a task.
    let answered = call(&mut client, "plain", json!({"ms": 50})).await;
    assert_eq!(answered["resultType"], "complete", "{answered}");
    assert!(answered.get("taskId").is_none());
}

#[tokio::test]
async fn without_the_extension_there_are_no_tasks() {
    let mut client = client();
    let plain = ask(
        &mut client,
        "tools/call",
        with(
            json!({"name": "sleepy", "arguments": {"ms": 100}}),
            json!({}),
        ),
    )
    .await
    .unwrap();
    assert_eq!(plain["resultType"], "complete", "{plain}");
    assert_eq!(plain["content"][0]["text"], "slept 100 ms");
    // The legacy ask for a task is ignored in this era.
    let plain = ask(
        &mut client,
        "tools/call",
        with(
            json!({"name": "sleepy", "arguments": {"ms": 50}, "task": {"ttl": 1000}}),
            json!({}),
        ),
    )
    .await
    .unwrap();
    assert_eq!(plain["resultType"], "complete", "{plain}");
    let refused = ask(
        &mut client,
        "tools/call",
        with(json!({"name": "must_task", "arguments": {}}), json!({})),
    )
    .await
    .unwrap_err();
    assert_eq!(refused.code, -32021, "{refused:?}");
    assert_eq!(
        refused.data.unwrap()["requiredCapabilities"]["extensions"][EXTENSION],
        json!({})
    );
    for method in ["tasks/get", "tasks/cancel", "tasks/update"] {
        let params = json!({"taskId": "gate-test", "inputResponses": {}});
        let refused = ask(&mut client, method, with(params, json!({})))
            .await
            .unwrap_err();
        assert_eq!(refused.code, -32021, "{method}: {refused:?}");
    }
}

#[tokio::test]
async fn removed_methods_unknown_ids_and_bad_params_get_the_specified_errors() {
    let mut client = client();
    for method in ["tasks/result", "tasks/list"] {
        let refused = ask(&mut client, method, with(json!({"taskId": "x"}), tasking()))
            .await
            .unwrap_err();
        assert_eq!(refused.code, -32601, "{method}");
    }
    for method in ["tasks/get", "tasks/cancel", "tasks/update"] {
        let params = json!({"taskId": "nonexistent-12345", "inputResponses": {}});
        let refused = ask(&mut client, method, with(params, tasking()))
            .await
            .unwrap_err();
        assert_eq!(refused.code, -32602, "{method}: {refused:?}");
        let refused = ask(&mut client, method, with(json!({"taskId": 7}), tasking()))
            .await
            .unwrap_err();
        assert_eq!(refused.code, -32602, "{method}: {refused:?}");
    }
    let created = call(&mut client, "asks_later", json!({})).await;
    let id = task_id(&created);
    for bad in [json!([1]), json!({"k": "yes"}), json!(null)] {
        let params = json!({"taskId": id, "inputResponses": bad});
        let refused = ask(&mut client, "tasks/update", with(params, tasking()))
            .await
            .unwrap_err();
        assert_eq!(refused.code, -32602, "{bad}");
    }
    // The server still serves, and the task is unharmed.
    let waiting = poll(&mut client, &id, |t| t["status"] == "input_required").await;
    assert_eq!(waiting["inputRequests"].as_object().unwrap().len(), 1);
}

#[tokio::test]
async fn an_error_result_completes_the_task_and_a_protocol_error_fails_it() {
    let mut client = client();
    let id = task_id(&call(&mut client, "tool_error", json!({})).await);
    let done = poll(&mut client, &id, ended).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], true);
    assert_eq!(done["result"]["content"][0]["text"], "the tool broke");
    let id = task_id(&call(&mut client, "rpc_error", json!({})).await);
    let failed = poll(&mut client, &id, ended).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32000);
    assert_eq!(failed["error"]["message"], "the backend refused");
    assert!(failed.get("result").is_none());
}

#[tokio::test]
async fn a_required_tool_runs_as_a_task_for_a_client_that_takes_them() {
    let mut client = client();
    let created = call(&mut client, "must_task", json!({})).await;
    let id = task_id(&created);
    let done = poll(&mut client, &id, ended).await;
    assert_eq!(done["result"]["content"][0]["text"], "done as a task");
}

#[tokio::test]
async fn cancel_stops_the_work_and_is_acknowledged_again_once_ended() {
    let mut client = client();
    let id = task_id(&call(&mut client, "long_job", json!({})).await);
    let ack = ask(
        &mut client,
        "tasks/cancel",
        with(json!({"taskId": id}), tasking()),
    )
    .await
    .unwrap();
    assert_eq!(ack["resultType"], "complete", "{ack}");
    for absent in ["taskId", "status", "result", "error", "inputRequests"] {
        assert!(ack.get(absent).is_none(), "{absent} in {ack}");
    }
    // Cancelled before the acknowledgement.
    assert_eq!(get(&mut client, &id).await["status"], "cancelled");
    within(async {
        while !STOPPED.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(!FINISHED.load(Ordering::SeqCst));
    let again = ask(
        &mut client,
        "tasks/cancel",
        with(json!({"taskId": id}), tasking()),
    )
    .await
    .unwrap();
    assert_eq!(again["resultType"], "complete");
    // A finished task is acknowledged too, and stays completed.
    let id = task_id(&call(&mut client, "sleepy", json!({"ms": 30})).await);
    poll(&mut client, &id, ended).await;
    ask(
        &mut client,
        "tasks/cancel",
        with(json!({"taskId": id}), tasking()),
    )
    .await
    .unwrap();
    assert_eq!(get(&mut client, &id).await["status"], "completed");
}

#[tokio::test]
async fn a_task_asks_through_tasks_get_and_hears_through_tasks_update() {
    let mut client = client();
    let id = task_id(&call(&mut client, "asks_later", json!({})).await);
    let waiting = poll(&mut client, &id, |t| t["status"] == "input_required").await;
    let requests = waiting["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{waiting}");
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(key, "sure");
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Sure?");
    // An answer to a question never asked is acknowledged and ignored.
    let params = json!({"taskId": id, "inputResponses": {"unknown-key": {"action": "accept"}}});
    let ack = ask(&mut client, "tasks/update", with(params, tasking()))
        .await
        .unwrap();
    assert_eq!(ack["resultType"], "complete");
    assert!(ack.get("taskId").is_none());
    assert_eq!(get(&mut client, &id).await["status"], "input_required");
    let answer = json!({"action": "accept", "content": {"confirm": true}});
    let params = json!({"taskId": id, "inputResponses": {key: answer}});
    ask(&mut client, "tasks/update", with(params, tasking()))
        .await
        .unwrap();
    let done = poll(&mut client, &id, ended).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "confirmed: true",
        "{done}"
    );
    assert!(done.get("inputRequests").is_none());
}

#[tokio::test]
async fn questions_before_the_first_wait_are_a_round_and_the_task_follows() {
    let mut client = client();
    let round = call(&mut client, "asks_first", json!({})).await;
    assert_eq!(round["resultType"], "input_required", "{round}");
    assert!(round.get("taskId").is_none());
    let key = round["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let params = json!({
        "name": "asks_first",
        "arguments": {},
        "inputResponses": {key: {"action": "accept", "content": {"name": "Alice"}}},
        "requestState": round["requestState"],
    });
    let created = ask(&mut client, "tools/call", with(params, tasking()))
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    for absent in ["requestState", "inputRequests"] {
        assert!(created.get(absent).is_none(), "{absent} in {created}");
    }
    let done = poll(&mut client, &task_id(&created), ended).await;
    assert_eq!(done["result"]["content"][0]["text"], "hello Alice");
}

#[tokio::test]
async fn progress_becomes_the_status_message_and_nothing_is_notified() {
    let mut client = client();
    let mut params = with(json!({"name": "reports", "arguments": {}}), tasking());
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
    params["_meta"]["progressToken"] = json!("p1");
    let created = ask(&mut client, "tools/call", params).await.unwrap();
    let id = task_id(&created);
    let done = poll(&mut client, &id, ended).await;
    assert_eq!(done["statusMessage"], "halfway", "{done}");
    // This era has no progress nor log notifications for tasks.
    let sent = within(client.drain_notifications()).await.unwrap();
    assert!(sent.is_empty(), "{sent:?}");
}

#[tokio::test]
async fn a_task_outlives_the_connection_that_started_it() {
    let mut first = client();
    let mut second = first.start_another(None);
    let id = task_id(&call(&mut first, "sleepy", json!({"ms": 300})).await);
    // The connection that made it ends: its plain calls would stop.
    let leftovers = within(first.close()).await;
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let done = poll(&mut second, &id, ended).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "slept 300 ms",
        "{done}"
    );
}
