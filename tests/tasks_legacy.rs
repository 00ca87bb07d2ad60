//! Tasks in protocol 2025-11-25 (SEP-1686), on one connection in process:
//! `params.task` makes a task, answered `{"task": …}`; `tasks/get`,
//! `tasks/result` (waits, then answers what the call would have),
//! `tasks/list` (only for identified callers), `tasks/cancel`; the tool's
//! `execution.taskSupport` enforced; related-task `_meta` on what a task
//! sends meanwhile; each caller sees only its own tasks, in both eras.

mod common;

use std::time::Duration;

use common::step::within;
use mcp_runtime::auth::Identity;
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::{RpcError, TestClient};
use mcp_runtime::{Context, Elicit, Elicited, Server, tool};

const RELATED: &str = "io.modelcontextprotocol/related-task";

/// Sleeps `ms` milliseconds, reporting progress halfway.
#[tool(task = "optional")]
async fn sleepy(ctx: Context, ms: u64) -> String {
    ctx.progress(1.0, Some(2.0), Some("halfway"));
    ctx.log(mcp_runtime::LogLevel::Info, "sleeping");
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// Runs only as a task.
#[tool(task = "required")]
async fn must_task() -> String {
    "done as a task".into()
}

/// Never a task.
#[tool]
async fn plain() -> String {
    "plain".into()
}

/// Fails as a tool.
#[tool(task = "optional")]
async fn tool_error() -> Result<String, String> {
    tokio::time::sleep(Duration::from_millis(20)).await;
    Err("the tool broke".into())
}

/// Fails with a JSON-RPC error.
#[tool(task = "optional")]
async fn rpc_error(ctx: Context) -> Result<String, String> {
    Err(ctx.protocol_error(-32000, "the backend refused"))
}

#[derive(Debug, Elicit)]
struct Confirm {
    confirm: bool,
}

/// Asks for a confirmation.
#[tool(task = "optional")]
async fn asks(ctx: Context) -> Result<String, String> {
    match ctx
        .elicit::<Confirm>("Sure?")
        .await
        .map_err(|e| e.to_string())?
    {
        Elicited::Accepted(Confirm { confirm }) => Ok(format!("confirmed: {confirm}")),
        other => Ok(format!("not confirmed: {other:?}")),
    }
}

fn server() -> Server {
    Server::new("tasks-legacy-test", "1")
        .task_poll_interval(Duration::from_millis(50))
        .task_ttl(Duration::from_secs(60), Duration::from_secs(600))
}

/// Sends `initialize` for `version`, declaring elicitation.
async fn initialize(client: &mut TestClient, version: &str) -> Value {
    let params = json!({
        "protocolVersion": version,
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "tasks-legacy-test", "version": "1"},
    });
    let result = within(client.request("initialize", params)).await.unwrap();
    client.notify("notifications/initialized", json!({})).await;
    result
}

async fn client() -> TestClient {
    let mut client = TestClient::start(server()).unwrap();
    initialize(&mut client, "2025-11-25").await;
    client
}

async fn ask(client: &mut TestClient, method: &str, params: Value) -> Result<Value, RpcError> {
    within(client.request(method, params)).await
}

/// Calls `name` as a task; the task.
async fn create(client: &mut TestClient, name: &str, arguments: Value) -> Value {
    let params = json!({"name": name, "arguments": arguments, "task": {}});
    let created = ask(client, "tools/call", params).await.unwrap();
    created["task"].clone()
}

fn id_of(task: &Value) -> String {
    task["taskId"].as_str().expect("a task id").to_owned()
}

async fn get(client: &mut TestClient, id: &str) -> Value {
    ask(client, "tasks/get", json!({"taskId": id}))
        .await
        .unwrap()
}

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

#[tokio::test]
async fn the_capability_is_declared_at_2025_11_25_only_and_without_list() {
    let mut client = TestClient::start(server()).unwrap();
    let result = initialize(&mut client, "2025-11-25").await;
    assert_eq!(
        result["capabilities"]["tasks"],
        json!({"cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    let mut older = client.start_another(None);
    let result = initialize(&mut older, "2025-06-18").await;
    assert!(result["capabilities"].get("tasks").is_none(), "{result}");
    // There, a required tool is called as a plain call; `task` is ignored.
    let called = ask(
        &mut older,
        "tools/call",
        json!({"name": "must_task", "task": {}}),
    )
    .await
    .unwrap();
    assert_eq!(called["content"][0]["text"], "done as a task", "{called}");
    // Without auth, tasks/list is not served.
    let refused = ask(&mut client, "tasks/list", json!({})).await.unwrap_err();
    assert_eq!(refused.code, -32601);
}

#[tokio::test]
async fn task_support_is_enforced() {
    let mut client = client().await;
    let refused = ask(
        &mut client,
        "tools/call",
        json!({"name": "plain", "task": {}}),
    )
    .await
    .unwrap_err();
    assert_eq!(refused.code, -32601, "{refused:?}");
    assert!(refused.message.contains("forbidden"), "{}", refused.message);
    let refused = ask(&mut client, "tools/call", json!({"name": "must_task"}))
        .await
        .unwrap_err();
    assert_eq!(refused.code, -32601, "{refused:?}");
    assert!(refused.message.contains("required"), "{}", refused.message);
    for bad in [json!(5), json!({"ttl": "soon"}), json!({"ttl": -1})] {
        let params = json!({"name": "sleepy", "arguments": {"ms": 1}, "task": bad});
        let refused = ask(&mut client, "tools/call", params).await.unwrap_err();
        assert_eq!(refused.code, -32602, "{bad}");
    }
    // An optional tool called without `task` is a plain call.
    let plain = ask(
        &mut client,
        "tools/call",
        json!({"name": "sleepy", "arguments": {"ms": 1}}),
    )
    .await
    .unwrap();
    assert_eq!(plain["content"][0]["text"], "slept 1 ms");
}

#[tokio::test]
async fn a_task_is_made_polled_and_its_result_given_with_its_id() {
    let mut client = client().await;
    let params = json!({"name": "sleepy", "arguments": {"ms": 200}, "task": {"ttl": 5000}});
    let created = ask(&mut client, "tools/call", params).await.unwrap();
    let task = &created["task"];
    assert_eq!(task["status"], "working", "{created}");
    assert_eq!(task["ttl"], 5000);
    assert_eq!(task["pollInterval"], 50);
    for absent in ["content", "resultType", "ttlMs"] {
        assert!(created.get(absent).is_none() && task.get(absent).is_none());
    }
    let id = id_of(task);
    let got = get(&mut client, &id).await;
    assert_eq!(got["taskId"], id.as_str());
    assert!(got["createdAt"].as_str().unwrap().ends_with('Z'));
    assert_eq!(got["ttl"], 5000);
    // tasks/result waits for the end, then answers what the call would have.
    let result = ask(&mut client, "tasks/result", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "slept 200 ms", "{result}");
    assert_eq!(result["_meta"][RELATED]["taskId"], id.as_str());
    assert_eq!(get(&mut client, &id).await["status"], "completed");
    // The TTL asked for is capped at the server's longest.
    let params = json!({"name": "sleepy", "arguments": {"ms": 1}, "task": {"ttl": 99_999_999}});
    let created = ask(&mut client, "tools/call", params).await.unwrap();
    assert_eq!(created["task"]["ttl"], 600_000);
}

#[tokio::test]
async fn what_a_task_sends_meanwhile_names_it() {
    let mut client = client().await;
    let params = json!({
        "name": "sleepy", "arguments": {"ms": 50}, "task": {},
        "_meta": {"progressToken": "p1"},
    });
    let created = ask(&mut client, "tools/call", params).await.unwrap();
    let id = id_of(&created["task"]);
    ask(&mut client, "tasks/result", json!({"taskId": id}))
        .await
        .unwrap();
    let progress =
        within(client.next_notification("notifications/progress", Duration::from_secs(5)))
            .await
            .expect("a progress notification");
    assert_eq!(progress["params"]["progressToken"], "p1", "{progress}");
    assert_eq!(progress["params"]["_meta"][RELATED]["taskId"], id.as_str());
    let log = within(client.next_notification("notifications/message", Duration::from_secs(5)))
        .await
        .expect("a log message");
    assert_eq!(
        log["params"]["_meta"][RELATED]["taskId"],
        id.as_str(),
        "{log}"
    );
}

#[tokio::test]
async fn errors_fail_the_task_and_tasks_result_gives_them() {
    let mut client = client().await;
    let id = id_of(&create(&mut client, "tool_error", json!({})).await);
    let result = ask(&mut client, "tasks/result", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(result["content"][0]["text"], "the tool broke");
    // A failed task says why in its statusMessage (SHOULD, tasks.mdx).
    let task = get(&mut client, &id).await;
    assert_eq!(
        (&task["status"], &task["statusMessage"]),
        (&json!("failed"), &json!("the tool broke")),
        "{task}"
    );
    let id = id_of(&create(&mut client, "rpc_error", json!({})).await);
    let error = ask(&mut client, "tasks/result", json!({"taskId": id}))
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.message.as_str()),
        (-32000, "the backend refused")
    );
    let task = get(&mut client, &id).await;
    assert_eq!(
        (&task["status"], &task["statusMessage"]),
        (&json!("failed"), &json!("the backend refused")),
        "{task}"
    );
}

#[tokio::test]
async fn cancel_ends_a_task_once_and_refuses_an_ended_one() {
    let mut client = client().await;
    let id = id_of(&create(&mut client, "sleepy", json!({"ms": 60_000})).await);
    let cancelled = ask(&mut client, "tasks/cancel", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert_eq!(cancelled["taskId"], id.as_str());
    let again = ask(&mut client, "tasks/cancel", json!({"taskId": id}))
        .await
        .unwrap_err();
    assert_eq!(again.code, -32602);
    assert!(again.message.contains("'cancelled'"), "{}", again.message);
    let no_result = ask(&mut client, "tasks/result", json!({"taskId": id}))
        .await
        .unwrap_err();
    assert_eq!(no_result.code, -32602, "{no_result:?}");
    let id = id_of(&create(&mut client, "must_task", json!({})).await);
    poll(&mut client, &id, |t| t["status"] == "completed").await;
    let refused = ask(&mut client, "tasks/cancel", json!({"taskId": id}))
        .await
        .unwrap_err();
    assert_eq!(refused.code, -32602);
    assert!(
        refused.message.contains("'completed'"),
        "{}",
        refused.message
    );
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        let unknown = ask(&mut client, method, json!({"taskId": "nope"}))
            .await
            .unwrap_err();
        assert_eq!(unknown.code, -32602, "{method}");
        let malformed = ask(&mut client, method, json!({"taskId": 3}))
            .await
            .unwrap_err();
        assert_eq!(malformed.code, -32602, "{method}");
    }
    // The 2026-07-28 method does not exist here.
    let refused = ask(&mut client, "tasks/update", json!({"taskId": id}))
        .await
        .unwrap_err();
    assert_eq!(refused.code, -32601);
}

#[tokio::test]
async fn a_task_asks_its_client_on_the_session_and_waits_input_required() {
    let mut client = client().await;
    let id = id_of(&create(&mut client, "asks", json!({})).await);
    // The question, and maybe the status notification of the wait before it.
    let question = within(async {
        loop {
            let message = client.recv().await.expect("a question");
            if message.get("id").is_some() {
                return message;
            }
            assert_eq!(message["method"], "notifications/tasks/status", "{message}");
        }
    })
    .await;
    assert_eq!(question["method"], "elicitation/create", "{question}");
    assert_eq!(question["params"]["_meta"][RELATED]["taskId"], id.as_str());
    poll(&mut client, &id, |t| t["status"] == "input_required").await;
    let answer = json!({"action": "accept", "content": {"confirm": true}});
    client
        .send(json!({"jsonrpc": "2.0", "id": question["id"], "result": answer}))
        .await;
    let result = ask(&mut client, "tasks/result", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "confirmed: true", "{result}");
}

#[tokio::test]
async fn each_caller_sees_only_its_own_tasks_in_both_eras() {
    let alice = Identity::new("alice");
    // Two tasks a page: the list of three takes two.
    let mut mine = TestClient::start_as(server().page_size(2), alice.clone()).unwrap();
    let result = initialize(&mut mine, "2025-11-25").await;
    // Callers are identified: tasks/list is declared.
    assert_eq!(result["capabilities"]["tasks"]["list"], json!({}));
    let mut theirs = mine.start_another(Some(Identity::new("bob")));
    initialize(&mut theirs, "2025-11-25").await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(id_of(&create(&mut mine, "sleepy", json!({"ms": 1})).await));
    }
    let bobs = id_of(&create(&mut theirs, "sleepy", json!({"ms": 1})).await);
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        let hidden = ask(&mut theirs, method, json!({"taskId": ids[0]}))
            .await
            .unwrap_err();
        assert_eq!(hidden.code, -32602, "{method}");
    }
    let mut listed = within(mine.list_all_tasks()).await;
    listed.sort();
    ids.sort();
    assert_eq!(listed, ids);
    let forged = ask(&mut mine, "tasks/list", json!({"cursor": "not-a-cursor"}))
        .await
        .unwrap_err();
    assert_eq!(forged.code, -32602);
    let listed = within(theirs.list_all_tasks()).await;
    assert_eq!(listed, [bobs]);
    // 2026-07-28: the same binding.
    let mut modern = mine.start_another(Some(Identity::new("bob")));
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
    });
    let params = json!({"name": "sleepy", "arguments": {"ms": 300}, "_meta": meta});
    let created = ask(&mut modern, "tools/call", params).await.unwrap();
    let modern_id = id_of(&created);
    let mut stranger = mine.start_another(Some(Identity::new("eve")));
    let hidden = ask(
        &mut stranger,
        "tasks/get",
        json!({"taskId": modern_id, "_meta": meta}),
    )
    .await
    .unwrap_err();
    assert_eq!(hidden.code, -32602);
    // A task of one era is not served by the other's methods.
    let other_era = ask(&mut theirs, "tasks/get", json!({"taskId": modern_id}))
        .await
        .unwrap_err();
    assert_eq!(other_era.code, -32602);
}

/// Lists every task through `tasks/list`, page by page.
trait ListTasks {
    async fn list_all_tasks(&mut self) -> Vec<String>;
}

impl ListTasks for TestClient {
    async fn list_all_tasks(&mut self) -> Vec<String> {
        let mut ids = Vec::new();
        let mut params = json!({});
        loop {
            let page = self.request("tasks/list", params).await.unwrap();
            for task in page["tasks"].as_array().unwrap() {
                ids.push(id_of(task));
            }
            match page.get("nextCursor") {
                Some(Value::String(cursor)) => params = json!({"cursor": cursor}),
                _ => return ids,
            }
        }
    }
}

/// A layer that counts the requests it passes on, by method.
fn counting(
    seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
) -> impl tower::Layer<
    mcp_runtime::middleware::McpService,
    Service = mcp_runtime::middleware::McpService,
> + Send
+ Sync
+ 'static {
    use mcp_runtime::middleware::{McpRequest, McpService};
    use tower::ServiceExt;
    tower::layer::layer_fn(move |inner: McpService| {
        let seen = std::sync::Arc::clone(&seen);
        McpService::new(tower::service_fn(move |request: McpRequest| {
            seen.lock().unwrap().push(request.method().to_owned());
            inner.clone().oneshot(request)
        }))
    })
}

#[tokio::test]
async fn a_task_is_the_whole_call_through_the_layers_in_both_eras() {
    let seen = std::sync::Arc::default();
    let server = server().layer(counting(std::sync::Arc::clone(&seen)));
    let mut client = TestClient::start(server).unwrap();
    initialize(&mut client, "2025-11-25").await;
    let id = id_of(&create(&mut client, "sleepy", json!({"ms": 50})).await);
    let result = ask(&mut client, "tasks/result", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "slept 50 ms", "{result}");
    let refused = ask(&mut client, "tools/call", json!({"name": "must_task"}))
        .await
        .unwrap_err();
    assert_eq!(refused.code, -32601);
    let mut modern = client.start_another(None);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
    });
    let params = json!({"name": "sleepy", "arguments": {"ms": 100}, "_meta": meta});
    let created = ask(&mut modern, "tools/call", params).await.unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    let id = id_of(&created);
    let done = within(async {
        loop {
            let task = ask(
                &mut modern,
                "tasks/get",
                json!({"taskId": id, "_meta": meta}),
            )
            .await
            .unwrap();
            if task["status"] == "completed" {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert_eq!(done["result"]["content"][0]["text"], "slept 100 ms");
    // The calls that made tasks went through the layers (the refused one
    // was refused before them); the task methods past them.
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen.iter().filter(|m| *m == "tools/call").count(),
        2,
        "{seen:?}"
    );
    assert!(!seen.iter().any(|m| m.starts_with("tasks/")), "{seen:?}");
}

/// The next `notifications/tasks/status` about the task `id`.
async fn status_of(client: &mut TestClient, id: &str) -> Value {
    within(async {
        loop {
            let note = client
                .next_notification("notifications/tasks/status", Duration::from_secs(30))
                .await
                .expect("a status notification");
            if note["params"]["taskId"] == id {
                return note["params"].clone();
            }
        }
    })
    .await
}

#[tokio::test]
async fn each_status_a_task_takes_is_told_to_its_session() {
    let mut client = client().await;
    let id = id_of(&create(&mut client, "sleepy", json!({"ms": 50})).await);
    let done = status_of(&mut client, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert!(done["lastUpdatedAt"].as_str().unwrap().ends_with('Z'));
    assert!(done.get("_meta").is_none(), "{done}");
    let id = id_of(&create(&mut client, "sleepy", json!({"ms": 60_000})).await);
    ask(&mut client, "tasks/cancel", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(status_of(&mut client, &id).await["status"], "cancelled");
}

#[tokio::test]
async fn a_task_tool_added_while_serving_runs_as_a_task() {
    let mut server = server();
    let handle = server.handle();
    let mut client = TestClient::start(server).unwrap();
    let result = initialize(&mut client, "2025-11-25").await;
    // A server that may gain tools declares tasks from the start.
    assert!(result["capabilities"].get("tasks").is_some(), "{result}");
    let later = mcp_runtime::DynamicTool::new(
        "later",
        "Runs only as a task.",
        json!({"type": "object"}),
        |_, _| async move { "later, as a task".to_owned() },
    )
    .task(mcp_runtime::TaskSupport::Required);
    handle.add_tool(later).unwrap();
    let refused = ask(&mut client, "tools/call", json!({"name": "later"}))
        .await
        .unwrap_err();
    assert_eq!(refused.code, -32601, "{refused:?}");
    let id = id_of(&create(&mut client, "later", json!({})).await);
    let result = ask(&mut client, "tasks/result", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "later, as a task");
}
