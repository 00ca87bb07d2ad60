//! Middleware (`Server::layer`): what a layer sees of each request, what
//! it can do with it (observe, refuse, rewrite params and results, time
//! out), that cancellation, progress and tower's own limits still work
//! through the layers, the example's layers (`examples/middleware/`), and
//! the same over HTTP, with the README's HTTP layers.

#[allow(dead_code)]
#[path = "../examples/middleware/main.rs"]
mod example;

mod common;
#[path = "middleware/over_http.rs"]
mod over_http;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use governor::Quota;
use mcp_runtime::auth::Identity;
use mcp_runtime::middleware::{McpError, McpRequest, McpService};
use mcp_runtime::testing::{CompletionRef, RpcError, TestClient};
use mcp_runtime::{Context, Server, prompt, resource, tool};
use serde_json::{Value, json};
use tower::ServiceExt;

use example::{AuditLayer, RateLimitLayer, RedactLayer};

/// How long any wait lasts before the test fails.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Echo the text.
#[tool]
async fn echo(text: String) -> String {
    text
}

/// Add two numbers (structured output).
#[tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Count to `to`, one number every `step_ms`, reporting progress.
#[tool]
async fn count(to: u32, step_ms: u64, ctx: Context) -> String {
    for i in 1..=to {
        tokio::time::sleep(Duration::from_millis(step_ms)).await;
        ctx.progress(f64::from(i), Some(f64::from(to)), None);
    }
    format!("counted to {to}")
}

/// What the tools below report: how many run now, at most, and how many
/// were dropped before they ended.
#[derive(Default)]
struct Probe {
    running: AtomicUsize,
    most: AtomicUsize,
    started: AtomicUsize,
    dropped: AtomicUsize,
}

/// Marks a call of a probed tool as running until dropped.
struct Running(Arc<Probe>, bool);

fn enter(ctx: &Context) -> Running {
    let probe = ctx.state::<Probe>().expect("the test registers a Probe");
    let probe = probe.into_inner();
    let now = probe.running.fetch_add(1, Ordering::SeqCst) + 1;
    probe.most.fetch_max(now, Ordering::SeqCst);
    probe.started.fetch_add(1, Ordering::SeqCst);
    Running(probe, false)
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::SeqCst);
        if !self.1 {
            self.0.dropped.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Waits until cancelled.
#[tool]
async fn hold(ctx: Context) -> String {
    let _running = enter(&ctx);
    std::future::pending::<String>().await
}

/// Busy for `ms` milliseconds.
#[tool]
async fn busy(ms: u64, ctx: Context) -> String {
    let mut running = enter(&ctx);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    running.1 = true;
    "done".into()
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Credentials {
    user: String,
    token: String,
}

/// Credentials someone stored.
#[tool]
async fn credentials() -> Credentials {
    Credentials {
        user: "ci".into(),
        token: "ghp_abcdefghijklmnopqrstuvwxyz0123456789".into(),
    }
}

/// Today's note.
#[resource("notes://today")]
fn today() -> String {
    "buy milk".into()
}

fn topics(prefix: String) -> Vec<&'static str> {
    ["rust", "ruby"]
        .into_iter()
        .filter(|t| t.starts_with(&prefix))
        .collect()
}

/// Summarize a topic.
#[prompt]
fn summarize(#[complete(topics)] topic: String) -> String {
    format!("Summarize {topic}.")
}

/// A server of this file's tools and the example's, probed.
fn probed() -> (Server, Arc<Probe>) {
    let probe = Arc::new(Probe::default());
    let server = Server::new("layered", "1.0.0").shared_state(Arc::clone(&probe));
    (server, probe)
}

/// Waits for `condition`, failing the test after [`TIMEOUT`].
async fn until(what: &str, condition: impl Fn() -> bool) {
    let waiting = async {
        while !condition() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(TIMEOUT, waiting)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"));
}

/// What [`recording`] saw of one request.
#[derive(Clone, Debug, Default)]
struct Seen {
    method: String,
    id: String,
    params: Value,
    session: Option<String>,
    subject: Option<String>,
    version: Option<String>,
    tool: Option<(String, Option<bool>)>,
    http_request_id: Option<String>,
}

/// A layer that writes down every request it passes on.
fn recording(
    log: Arc<Mutex<Vec<Seen>>>,
) -> impl tower::Layer<McpService, Service = McpService> + Send + Sync + 'static {
    tower::layer::layer_fn(move |inner: McpService| {
        let log = Arc::clone(&log);
        McpService::new(tower::service_fn(move |request: McpRequest| {
            log.lock().unwrap().push(Seen {
                method: request.method().into(),
                id: request.request_id().to_string(),
                params: request.params().clone(),
                session: request.session_id().map(Into::into),
                subject: request.identity().map(|i| i.subject().into()),
                version: request.protocol_version().map(|v| v.as_str().into()),
                tool: request
                    .tool()
                    .map(|t| (t.name().into(), t.hints().destructive)),
                http_request_id: request
                    .extensions()
                    .get::<tower_http::request_id::RequestId>()
                    .map(|id| id.header_value().to_str().unwrap().into()),
            });
            inner.clone().oneshot(request)
        }))
    })
}

#[tokio::test]
async fn every_request_goes_through_with_what_it_carries() {
    let log = Arc::default();
    let (server, _) = probed();
    let alice = Identity::new("alice").with_scopes(["notes:read"]);
    let mut client = TestClient::connect_as(server.layer(recording(Arc::clone(&log))), alice)
        .await
        .unwrap();
    client.request("ping", json!({})).await.unwrap();
    client.list_tools().await.unwrap();
    let call = json!({"name": "echo", "arguments": {"text": "hi"}, "_meta": {"progressToken": 7, "trace": "t-1"}});
    client.request("tools/call", call.clone()).await.unwrap();
    client.read_resource("notes://today").await.unwrap();
    client.list_resources().await.unwrap();
    client.list_resource_templates().await.unwrap();
    client.subscribe("notes://today").await.unwrap();
    client.unsubscribe("notes://today").await.unwrap();
    client.list_prompts().await.unwrap();
    let topic = json!({"topic": "rust"});
    client.get_prompt("summarize", topic).await.unwrap();
    let reference = CompletionRef::Prompt("summarize".into());
    client.complete(&reference, "topic", "r").await.unwrap();
    client
        .request("logging/setLevel", json!({"level": "debug"}))
        .await
        .unwrap();

    let seen = log.lock().unwrap().clone();
    let methods: Vec<&str> = seen.iter().map(|s| s.method.as_str()).collect();
    assert_eq!(
        methods,
        [
            "initialize",
            "ping",
            "tools/list",
            "tools/call",
            "resources/read",
            "resources/list",
            "resources/templates/list",
            "resources/subscribe",
            "resources/unsubscribe",
            "prompts/list",
            "prompts/get",
            "completion/complete",
            "logging/setLevel"
        ]
    );
    for (i, seen) in seen.iter().enumerate() {
        assert_eq!(seen.id, (i + 1).to_string(), "{seen:?}");
        assert_eq!(seen.subject.as_deref(), Some("alice"), "{seen:?}");
        assert_eq!(seen.session, None, "stdio has no session id: {seen:?}");
        assert_eq!(seen.version.as_deref(), Some("2025-11-25"), "{seen:?}");
    }
    assert_eq!(seen[0].params["protocolVersion"], "2025-11-25");
    // The params of a tools/call whole, `_meta` included.
    assert_eq!(seen[3].params, call);
    assert_eq!(seen[3].tool, Some(("echo".into(), None)));
    assert!(
        seen.iter()
            .filter(|s| s.method != "tools/call")
            .all(|s| s.tool.is_none())
    );
    assert_eq!(seen[4].params, json!({"uri": "notes://today"}));
}

/// Sends the same requests to `client`, for [`results_through_layers_are_the_plain_ones`].
async fn answers(client: &mut TestClient) -> Vec<Result<Value, RpcError>> {
    let requests = [
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        ),
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        ),
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": "2"}}),
        ),
        ("tools/call", json!({"name": "credentials"})),
        ("tools/call", json!({"name": "missing", "arguments": {}})),
        ("tools/list", json!({"cursor": "nowhere"})),
        ("resources/list", json!({})),
        ("resources/read", json!({"uri": "notes://today"})),
        ("resources/read", json!({"uri": "notes://never"})),
        (
            "prompts/get",
            json!({"name": "summarize", "arguments": {"topic": "rust"}}),
        ),
        ("prompts/get", json!({"name": "summarize", "arguments": {}})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "summarize"}, "argument": {"name": "topic", "value": "ru"}}),
        ),
        ("logging/setLevel", json!({"level": "loud"})),
        ("resources/subscribe", json!({})),
        ("ping", Value::Null),
    ];
    let mut answers = Vec::new();
    for (method, params) in requests {
        answers.push(client.request(method, params).await);
    }
    answers
}

#[tokio::test]
async fn results_through_layers_are_the_plain_ones() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let (plain, _) = probed();
        let (layered, _) = probed();
        let layered = layered.layer(tower::layer::util::Identity::new());
        let mut plain = TestClient::start(plain).unwrap();
        let mut layered = TestClient::start(layered).unwrap();
        // Before initialize: ping is answered, anything else refused.
        for method in ["ping", "tools/list"] {
            let answer = plain.request(method, json!({})).await;
            assert_eq!(layered.request(method, json!({})).await, answer);
        }
        let initialized = plain.initialize(version).await;
        assert_eq!(layered.initialize(version).await, initialized, "{version}");
        assert_eq!(initialized.unwrap()["protocolVersion"], version);
        assert_eq!(
            answers(&mut layered).await,
            answers(&mut plain).await,
            "{version}"
        );
        if version == "2025-03-26" {
            // A batch: one array, its calls through the layers.
            let batch = r#"[{"jsonrpc":"2.0","id":"a","method":"ping"},
                {"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"count","arguments":{"to":2,"step_ms":1}}},
                {"jsonrpc":"2.0","method":"notifications/initialized"},
                {"jsonrpc":"2.0","id":"c","method":"tools/list","params":{"cursor":"x"}}]"#;
            let mut replies = Vec::new();
            for client in [&mut plain, &mut layered] {
                client.send_line(batch.replace('\n', "")).await;
                let reply = tokio::time::timeout(TIMEOUT, client.recv()).await;
                replies.push(reply.unwrap().expect("the batch's reply"));
            }
            assert_eq!(
                replies[0].as_array().map(Vec::len),
                Some(3),
                "{}",
                replies[0]
            );
            assert_eq!(replies[1], replies[0]);
        }
    }
}

#[tokio::test]
async fn modern_requests_through_layers_get_the_plain_answers() {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let requests = [
        ("server/discover", json!({})),
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        ),
        ("tools/call", json!({"name": "nope", "arguments": {}})),
        ("ping", json!({})),
        (
            "prompts/get",
            json!({"name": "summarize", "arguments": {"topic": "rust"}}),
        ),
    ];
    let (plain, _) = probed();
    let (layered, _) = probed();
    let mut plain = TestClient::start(plain).unwrap();
    let mut layered =
        TestClient::start(layered.layer(tower::layer::util::Identity::new())).unwrap();
    for (method, mut params) in requests {
        params["_meta"] = meta.clone();
        let answer = plain.request(method, params.clone()).await;
        if let Ok(result) = &answer {
            assert_eq!(result["resultType"], "complete", "{method}: {result}");
        }
        assert_eq!(layered.request(method, params).await, answer, "{method}");
    }
}

#[tokio::test]
async fn the_example_refuses_destructive_tools_without_the_admin_scope() {
    let mut anonymous = TestClient::connect(example::server()).await.unwrap();
    let alice = Some(Identity::new("alice").with_scopes(["notes:read"]));
    let mut alice = anonymous
        .connect_another_as("2025-06-18", alice)
        .await
        .unwrap();
    let admin = Some(Identity::new("root").with_scopes(["admin"]));
    let mut admin = anonymous
        .connect_another_as("2025-06-18", admin)
        .await
        .unwrap();
    for client in [&mut anonymous, &mut alice] {
        let refused = client
            .call_tool("delete_note", json!({"id": 3}))
            .await
            .unwrap_err();
        assert_eq!(refused.code, -32600);
        assert_eq!(
            refused.message,
            "the tool `delete_note` is destructive: calling it needs the `admin` scope"
        );
        assert_eq!(
            refused.data,
            Some(json!({"tool": "delete_note", "requiredScope": "admin"}))
        );
    }
    let deleted = admin.call_tool("delete_note", json!({"id": 3})).await;
    assert_eq!(deleted.unwrap()["content"][0]["text"], "note 3 deleted");
    // A tool that is not destructive is anyone's.
    let found = alice
        .call_tool("search_notes", json!({"query": "eggs"}))
        .await;
    assert_eq!(
        found.unwrap()["content"][0]["text"],
        "Groceries: eggs, flour"
    );
}

#[tokio::test]
async fn the_example_removes_secrets_from_results() {
    let mut client = TestClient::connect(example::server()).await.unwrap();
    let found = client
        .call_tool("search_notes", json!({"query": "deploy"}))
        .await
        .unwrap();
    assert_eq!(
        found["content"][0]["text"],
        "Deploy checklist: rotate the Stripe key [REDACTED]"
    );

    // Structured content and its text alike.
    let (server, _) = probed();
    let mut client = TestClient::connect(server.layer(RedactLayer::api_keys()))
        .await
        .unwrap();
    let result = client.call_tool("credentials", json!({})).await.unwrap();
    assert_eq!(
        result["structuredContent"],
        json!({"user": "ci", "token": "[REDACTED]"})
    );
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        !text.contains("ghp_") && text.contains("[REDACTED]"),
        "{text}"
    );
}

/// Refuses `tools/call` of tools annotated `destructive` to callers
/// without the `admin` scope.
fn admin_for_destructive(inner: McpService) -> McpService {
    McpService::new(tower::service_fn(move |request: McpRequest| {
        let refused = request
            .tool()
            .is_some_and(|tool| tool.hints().destructive == Some(true))
            && !request
                .identity()
                .is_some_and(|caller| caller.has_scope("admin"));
        let inner = inner.clone();
        async move {
            if refused {
                return Err(McpError::invalid_request("this tool needs the `admin` scope").into());
            }
            inner.oneshot(request).await
        }
    }))
}

#[tokio::test]
async fn a_layer_written_as_a_function_refuses_and_passes() {
    let server = Server::new("notes", "1.0.0").layer(tower::layer::layer_fn(admin_for_destructive));
    let mut client = TestClient::connect(server).await.unwrap();
    let refused = client.call_tool("delete_note", json!({"id": 1})).await;
    assert_eq!(
        refused.unwrap_err().message,
        "this tool needs the `admin` scope"
    );
    let echoed = client.call_tool("echo", json!({"text": "hi"})).await;
    assert_eq!(echoed.unwrap()["content"][0]["text"], "hi");
}

/// Shouts: every `text` argument in capitals, and `hello` when missing.
fn shout(inner: McpService) -> McpService {
    McpService::new(tower::service_fn(move |mut request: McpRequest| {
        if let Some(arguments) = request.params_mut().get_mut("arguments") {
            let text = arguments["text"].as_str().unwrap_or("hello").to_uppercase();
            arguments["text"] = Value::String(text);
        }
        inner.clone().oneshot(request)
    }))
}

#[tokio::test]
async fn a_layer_rewrites_params() {
    let (server, _) = probed();
    let server = server.layer(tower::layer::layer_fn(shout));
    let mut client = TestClient::connect(server).await.unwrap();
    let echoed = client.call_tool("echo", json!({"text": "quiet"})).await;
    assert_eq!(echoed.unwrap()["content"][0]["text"], "QUIET");
    // An argument the client left out, put in by the layer.
    let echoed = client.call_tool("echo", json!({})).await;
    assert_eq!(echoed.unwrap()["content"][0]["text"], "HELLO");
}

#[tokio::test]
async fn tower_timeout_ends_a_request_that_takes_too_long() {
    let (server, probe) = probed();
    let server = server.layer(tower::timeout::TimeoutLayer::new(Duration::from_millis(
        100,
    )));
    let mut client = TestClient::connect(server).await.unwrap();
    let answer = tokio::time::timeout(TIMEOUT, client.call_tool("hold", json!({})));
    let error = answer.await.unwrap().unwrap_err();
    assert_eq!(
        (error.code, error.message.as_str()),
        (-32001, "request timed out")
    );
    // The tool was dropped, not left running.
    assert_eq!(probe.dropped.load(Ordering::SeqCst), 1);
    assert_eq!(probe.running.load(Ordering::SeqCst), 0);
    let echoed = client
        .call_tool("echo", json!({"text": "still here"}))
        .await;
    assert_eq!(echoed.unwrap()["content"][0]["text"], "still here");
}

#[tokio::test]
async fn cancellation_reaches_a_call_inside_the_layers() {
    let (server, probe) = probed();
    let server = server
        .layer(AuditLayer)
        .layer(tower::limit::ConcurrencyLimitLayer::new(1));
    let mut client = TestClient::connect(server).await.unwrap();
    let id = client
        .send_request("tools/call", json!({"name": "hold", "arguments": {}}))
        .await;
    until("the call to start", || {
        probe.started.load(Ordering::SeqCst) == 1
    })
    .await;
    client
        .notify("notifications/cancelled", json!({"requestId": id}))
        .await;
    until("the call to be dropped", || {
        probe.dropped.load(Ordering::SeqCst) == 1
    })
    .await;
    // Its slot of the concurrency limit is free again, and it is never
    // answered.
    let echoed = tokio::time::timeout(TIMEOUT, client.call_tool("echo", json!({"text": "next"})));
    assert_eq!(echoed.await.unwrap().unwrap()["content"][0]["text"], "next");
    let stray = tokio::time::timeout(Duration::from_millis(200), client.recv()).await;
    assert!(stray.is_err(), "the cancelled call was answered: {stray:?}");
}

#[tokio::test]
async fn progress_reaches_the_client_through_the_layers() {
    let (server, _) = probed();
    let server = server
        .layer(AuditLayer)
        .layer(tower::timeout::TimeoutLayer::new(TIMEOUT));
    let mut client = TestClient::connect(server).await.unwrap();
    let params = json!({"name": "count", "arguments": {"to": 3, "step_ms": 1}, "_meta": {"progressToken": "p"}});
    let id = client.send_request("tools/call", params).await;
    let result = tokio::time::timeout(TIMEOUT, client.response(id)).await;
    assert_eq!(
        result.unwrap().unwrap()["content"][0]["text"],
        "counted to 3"
    );
    for i in 1..=3 {
        let progress = client
            .next_notification("notifications/progress", Duration::from_millis(100))
            .await
            .expect("progress before the response");
        assert_eq!(
            progress["params"],
            json!({"progressToken": "p", "progress": f64::from(i), "total": 3.0})
        );
    }
}

#[tokio::test]
async fn the_concurrency_limit_holds_across_connections() {
    let (server, probe) = probed();
    let server = server.layer(tower::limit::ConcurrencyLimitLayer::new(2));
    let mut first = TestClient::connect(server).await.unwrap();
    let mut second = first.connect_another("2025-06-18").await.unwrap();
    let call = json!({"name": "busy", "arguments": {"ms": 100}});
    let mut ids = Vec::new();
    for client in [&mut first, &mut second] {
        for _ in 0..3 {
            ids.push(client.send_request("tools/call", call.clone()).await);
        }
    }
    for (i, id) in ids.into_iter().enumerate() {
        let client = if i < 3 { &mut first } else { &mut second };
        let done = tokio::time::timeout(TIMEOUT, client.response(id)).await;
        assert_eq!(done.unwrap().unwrap()["content"][0]["text"], "done");
    }
    assert_eq!(probe.started.load(Ordering::SeqCst), 6);
    assert_eq!(probe.most.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn errors_of_tower_and_of_layers_are_answered_clearly() {
    // LoadShed in front of a full ConcurrencyLimit: "server overloaded".
    let (server, probe) = probed();
    let server = server
        .layer(tower::load_shed::LoadShedLayer::new())
        .layer(tower::limit::ConcurrencyLimitLayer::new(1));
    let mut client = TestClient::connect(server).await.unwrap();
    let held = client
        .send_request("tools/call", json!({"name": "hold", "arguments": {}}))
        .await;
    until("the call to start", || {
        probe.started.load(Ordering::SeqCst) == 1
    })
    .await;
    let shed = client
        .call_tool("echo", json!({"text": "x"}))
        .await
        .unwrap_err();
    assert_eq!(
        (shed.code, shed.message.as_str()),
        (-32000, "server overloaded; try again later")
    );
    client
        .notify("notifications/cancelled", json!({"requestId": held}))
        .await;

    // Any other error is internal, and its text is never sent.
    let failing = tower::layer::layer_fn(|_: McpService| {
        tower::service_fn(|_: McpRequest| async {
            Err::<Value, _>(mcp_runtime::middleware::BoxError::from("password=hunter2"))
        })
    });
    let (server, _) = probed();
    let mut client = TestClient::start(server.layer(failing)).unwrap();
    let error = client.initialize("2025-06-18").await.unwrap_err();
    assert_eq!(
        (error.code, error.message.as_str()),
        (-32603, "internal error")
    );
}

#[tokio::test]
async fn the_rate_limit_refuses_each_caller_past_its_quota() {
    let (server, _) = probed();
    let quota = Quota::per_hour(std::num::NonZeroU32::new(3).unwrap());
    let alice = Identity::new("alice");
    let server = server.layer(RateLimitLayer::new(quota));
    // initialize counts: 1, 2, 3 pass, the 4th is refused.
    let mut alice = TestClient::connect_as(server, alice).await.unwrap();
    for _ in 0..2 {
        alice.call_tool("echo", json!({"text": "a"})).await.unwrap();
    }
    let refused = alice
        .call_tool("echo", json!({"text": "a"}))
        .await
        .unwrap_err();
    assert_eq!(refused.code, -32600);
    assert!(
        refused
            .message
            .starts_with("rate limit exceeded for subject alice: retry in "),
        "{}",
        refused.message
    );
    let retry_ms = refused.data.unwrap()["retryAfterMs"].as_u64().unwrap();
    assert!(retry_ms > 1000 && retry_ms <= 20 * 60 * 1000, "{retry_ms}");
    // Another caller has a quota of its own, on another connection too.
    let bob = Some(Identity::new("bob"));
    let mut bob = alice.connect_another_as("2025-06-18", bob).await.unwrap();
    bob.call_tool("echo", json!({"text": "b"})).await.unwrap();
}

/// Lets only authenticated callers in, and greets them by name.
fn members_only(inner: McpService) -> McpService {
    McpService::new(tower::service_fn(move |request: McpRequest| {
        let inner = inner.clone();
        async move {
            let subject = request.identity().map(|caller| caller.subject().to_owned());
            let is_initialize = request.method() == "initialize";
            let Some(subject) = subject else {
                return Err(McpError::invalid_request("members only").into());
            };
            let mut result = inner.oneshot(request).await?;
            if is_initialize {
                result["instructions"] = json!(format!("Welcome, {subject}."));
            }
            Ok(result)
        }
    }))
}

#[tokio::test]
async fn initialize_goes_through_the_layers_and_starts_the_session_only_if_they_agree() {
    let (server, _) = probed();
    let server = server.layer(tower::layer::layer_fn(members_only));
    let mut stranger = TestClient::start(server).unwrap();
    let refused = stranger.initialize("2025-06-18").await.unwrap_err();
    assert_eq!(refused.message, "members only");
    // No session started: the connection is still waiting for initialize.
    let error = stranger.request("tools/list", json!({})).await.unwrap_err();
    assert_eq!(
        error.message,
        "server not initialized: send initialize first"
    );

    let (server, _) = probed();
    let server = server.layer(tower::layer::layer_fn(members_only));
    let mut carol = TestClient::start_as(server, Identity::new("carol")).unwrap();
    let welcome = carol.initialize("2025-06-18").await.unwrap();
    assert_eq!(welcome["instructions"], "Welcome, carol.");
    assert_eq!(welcome["protocolVersion"], "2025-06-18");
    carol
        .call_tool("echo", json!({"text": "hi"}))
        .await
        .unwrap();
    // A second initialize is refused before the layers, as without them.
    let again = carol.initialize("2025-06-18").await.unwrap_err();
    assert!(again.message.starts_with("already initialized"), "{again}");
}

/// What a `tracing` subscriber writes, kept for the test to read.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn lines(&self, target: &str) -> Vec<String> {
        let text = String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned();
        let marker = format!(" {target}: ");
        text.lines()
            .filter_map(|line| Some(line[line.find(&marker)? + marker.len()..].to_owned()))
            .collect()
    }
}

#[tokio::test]
async fn the_example_audit_log_names_each_request_and_its_outcome() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    // This test's runtime has one thread: the server's tasks log here.
    let _guard = tracing::subscriber::set_default(subscriber);
    let (server, probe) = probed();
    let alice = Identity::new("alice");
    let mut client = TestClient::connect_as(server.layer(AuditLayer), alice)
        .await
        .unwrap();
    let secret = json!({"text": "my confidential text"});
    client.call_tool("echo", secret).await.unwrap();
    client.call_tool("add", json!({"a": "x"})).await.unwrap();
    client.call_tool("missing", json!({})).await.unwrap_err();
    let held = client
        .send_request("tools/call", json!({"name": "hold", "arguments": {}}))
        .await;
    until("the call to start", || {
        probe.started.load(Ordering::SeqCst) == 1
    })
    .await;
    client
        .notify("notifications/cancelled", json!({"requestId": held}))
        .await;
    until("the cancelled call to be logged", || {
        captured.lines("audit").len() == 5
    })
    .await;
    let lines = captured.lines("audit");
    let expected = [
        ("initialize", "-", "ok"),
        ("tools/call", "echo", "ok"),
        ("tools/call", "add", "tool_error"),
        ("tools/call", "-", "error -32602"),
        ("tools/call", "hold", "cancelled"),
    ];
    for (line, (method, tool, outcome)) in lines.iter().zip(expected) {
        let fields = format!(
            "request method={method} tool={tool} subject=alice session=- http_request=- outcome={outcome} duration_us="
        );
        assert!(line.starts_with(&fields), "{line}\nexpected {fields}");
    }
    let all = lines.join("\n");
    assert!(!all.contains("confidential"), "params were logged: {all}");
}
