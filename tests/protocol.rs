//! The protocol, input by input: the answers the MCP specification
//! (<https://modelcontextprotocol.io/specification/2025-11-25>: "Basic"
//! for JSON-RPC messages and errors, "Lifecycle", "Server Features ›
//! Tools", "Utilities") and JSON-RPC 2.0 (<https://www.jsonrpc.org/specification>,
//! "Error object") require, each input sent through the in-process
//! [`TestClient`] over the real wire format, checking the exact answer and
//! that the server still answers `ping` afterwards. Where the documents
//! leave a choice (an unknown tool, arguments that break the schema), the
//! test says which answer this runtime gives.

mod common;

use std::collections::{BTreeMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use common::results::text_of;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Content, Context, LogLevel, Server, tool};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------
// Tools served by every test in this file

/// Echo the text back.
#[tool(title = "Echo text", read_only, idempotent)]
async fn echo(
    /// The text to echo.
    text: String,
) -> String {
    text
}

/// What happened to each tagged `sleepy` call: "started", then "completed"
/// or "dropped".
static EVENTS: Mutex<Vec<(String, &'static str)>> = Mutex::new(Vec::new());

fn record(tag: &str, event: &'static str) {
    EVENTS.lock().unwrap().push((tag.to_owned(), event));
}

fn has_event(tag: &str, event: &str) -> bool {
    EVENTS
        .lock()
        .unwrap()
        .iter()
        .any(|(t, e)| t == tag && *e == event)
}

/// Waits (up to 5 s) until `tag` has recorded `event`.
async fn wait_for_event(tag: &str, event: &str) {
    for _ in 0..500 {
        if has_event(tag, event) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("`{tag}` never recorded `{event}`");
}

/// Records on drop whether the call ran to its end.
struct Guard {
    tag: Option<String>,
    completed: bool,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(tag) = &self.tag {
            record(
                tag,
                if self.completed {
                    "completed"
                } else {
                    "dropped"
                },
            );
        }
    }
}

/// Sleep for a while, then answer.
#[tool]
async fn sleepy(
    /// How long to sleep, in milliseconds.
    ms: u64,
    /// A tag under which the call records what happened to it.
    tag: Option<String>,
) -> String {
    if let Some(tag) = &tag {
        record(tag, "started");
    }
    let mut guard = Guard {
        tag,
        completed: false,
    };
    tokio::time::sleep(Duration::from_millis(ms)).await;
    guard.completed = true;
    format!("slept {ms}ms")
}

/// Report progress in `steps` steps, then answer.
#[tool]
async fn report_progress(
    /// How many steps.
    steps: u32,
    ctx: Context,
) -> String {
    for i in 1..=steps {
        let value = f64::from(i);
        ctx.progress(value, Some(f64::from(steps)), Some(&format!("step {i}")));
        // Not above the last value: dropped.
        ctx.progress(value, Some(f64::from(steps)), Some("repeated"));
        ctx.progress(value - 0.5, None, Some("backwards"));
        tokio::task::yield_now().await;
    }
    // A task that outlives the call tries to report after the response.
    let late = ctx.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(30)).await;
        late.progress(1e9, None, Some("too late"));
    });
    format!("{steps} steps")
}

/// Log at several levels.
#[tool]
async fn chatty(ctx: Context) -> String {
    ctx.log(LogLevel::Debug, "debug line");
    ctx.log(LogLevel::Info, "info line");
    ctx.log(LogLevel::Error, json!({"problem": "error line"}));
    "logged".into()
}

/// A summary of numbers.
#[derive(Serialize, JsonSchema)]
struct Summary {
    /// How many numbers.
    count: usize,
    /// Their sum.
    total: f64,
}

/// Sum numbers.
#[tool(title = "Sum numbers")]
async fn summarize(
    /// The numbers.
    values: Vec<f64>,
) -> Summary {
    Summary {
        count: values.len(),
        total: values.iter().sum(),
    }
}

/// Return text, audio and a resource link.
#[tool]
async fn media() -> Vec<Content> {
    let mut link = Content::resource_link("file:///reports/q3.pdf", "q3.pdf");
    if let Content::ResourceLink(link) = &mut link {
        link.title = Some("Q3 report".into());
        link.description = Some("Quarterly numbers".into());
    }
    vec![
        Content::text("here you are"),
        Content::audio(b"RIFF", "audio/wav"),
        link,
    ]
}

/// Always panics.
#[tool]
async fn explode() -> String {
    panic!("secret panic detail 4711")
}

/// Always refuses.
#[tool]
async fn refuse(
    /// Why.
    reason: String,
) -> Result<String, String> {
    Err(format!("refused: {reason}"))
}

/// Never answers in time.
#[tool(timeout = "50ms")]
async fn stuck() -> String {
    tokio::time::sleep(Duration::from_secs(10)).await;
    "never".into()
}

/// Book seats.
#[tool]
async fn book(
    /// Who books.
    name: String,
    /// How many seats, 1 to 10.
    #[schemars(range(min = 1, max = 10))]
    seats: u8,
    /// Labels.
    tags: Vec<String>,
) -> String {
    format!("{name}: {seats} seats {tags:?}")
}

/// Every tool above, in name order.
const ALL_TOOLS: [&str; 10] = [
    "book",
    "chatty",
    "echo",
    "explode",
    "media",
    "refuse",
    "report_progress",
    "sleepy",
    "stuck",
    "summarize",
];

// ---------------------------------------------------------------------------
// Helpers

const VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const LATEST: &str = "2025-11-25";
const WAIT: Duration = Duration::from_secs(10);
const NOT_INITIALIZED: &str = "server not initialized: send initialize first";

fn server() -> Server {
    Server::new("protocol-test", "9.8.7")
}

async fn connect() -> TestClient {
    TestClient::connect(server()).await.unwrap()
}

async fn connect_with(version: &str) -> TestClient {
    TestClient::connect_with_version(server(), version)
        .await
        .unwrap()
}

fn init_params(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "protocol-tests", "version": "1"}
    })
}

/// The next message the server sends; fails after 10 s or if it stopped.
async fn next(client: &mut TestClient) -> Value {
    tokio::time::timeout(WAIT, client.recv())
        .await
        .expect("no message from the server within 10 s")
        .expect("the server stopped")
}

/// Sends one raw line and returns the next message.
async fn exchange(client: &mut TestClient, line: impl Into<Vec<u8>>) -> Value {
    client.send_line(line).await;
    next(client).await
}

/// Asserts a JSON-RPC error response with this id and code.
#[track_caller]
fn assert_error(message: &Value, id: &Value, code: i64) {
    assert_eq!(message["jsonrpc"], "2.0", "{message}");
    assert_eq!(&message["id"], id, "id not echoed: {message}");
    assert_eq!(message["error"]["code"], code, "{message}");
    assert!(message["error"]["message"].is_string(), "{message}");
    assert!(message.get("result").is_none(), "{message}");
}

/// Asserts a successful response with this id; returns its result.
#[track_caller]
fn assert_result<'a>(message: &'a Value, id: &Value) -> &'a Value {
    assert_eq!(message["jsonrpc"], "2.0", "{message}");
    assert_eq!(&message["id"], id, "id not echoed: {message}");
    assert!(message.get("error").is_none(), "{message}");
    message.get("result").expect("a result")
}

/// The server answers `ping`, and sent nothing else before that answer:
/// whatever the previous input was, it produced no stray output.
async fn assert_quiet_and_alive(client: &mut TestClient) {
    let reply = exchange(
        client,
        r#"{"jsonrpc":"2.0","id":"alive-probe","method":"ping"}"#,
    )
    .await;
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "id": "alive-probe", "result": {}}),
        "expected only the ping's answer"
    );
}

/// The server still answers `ping` (other messages may come first).
async fn assert_alive(client: &mut TestClient) {
    let pong = tokio::time::timeout(WAIT, client.request("ping", json!({})))
        .await
        .expect("ping not answered within 10 s")
        .expect("ping refused");
    assert_eq!(pong, json!({}));
}

/// Sends a raw request with a string id and collects everything the server
/// sends up to and including its response.
async fn collect_until_response(client: &mut TestClient, id: &str, line: Value) -> Vec<Value> {
    client.send(line).await;
    let mut seen = Vec::new();
    loop {
        let message = next(client).await;
        let done = message["id"] == id;
        seen.push(message);
        if done {
            return seen;
        }
    }
}

fn call_line(id: Value, name: &str, arguments: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments}
    })
}

// ---------------------------------------------------------------------------
// Lifecycle

#[tokio::test]
async fn initialize_echoes_each_supported_version() {
    for version in VERSIONS {
        let mut client = TestClient::start(server()).unwrap();
        let result = client
            .request("initialize", init_params(version))
            .await
            .unwrap();
        assert_eq!(result["protocolVersion"], version);
        assert_alive(&mut client).await;
    }
}

#[tokio::test]
async fn initialize_with_an_unknown_version_answers_the_latest() {
    for version in ["2099-01-01", "1.0", "", "2025-06-18 "] {
        let mut client = TestClient::start(server()).unwrap();
        let result = client
            .request("initialize", init_params(version))
            .await
            .unwrap_or_else(|e| panic!("{version:?} refused: {e}"));
        assert_eq!(result["protocolVersion"], LATEST, "{version:?}");
        // The session then works at that version.
        assert_eq!(client.list_tools().await.unwrap().len(), ALL_TOOLS.len());
        assert_alive(&mut client).await;
    }
}

#[tokio::test]
async fn initialize_answers_capabilities_server_info_and_instructions() {
    let mut client = TestClient::start(server().instructions("Use echo to echo.")).unwrap();
    let result = client
        .request("initialize", init_params("2025-06-18"))
        .await
        .unwrap();
    let capabilities = result["capabilities"].as_object().unwrap();
    let mut served: Vec<&str> = capabilities.keys().map(String::as_str).collect();
    served.sort_unstable();
    assert_eq!(served, ["logging", "tools"], "only what we serve");
    assert!(capabilities["tools"].is_object());
    assert!(capabilities["logging"].is_object());
    assert_eq!(
        result["serverInfo"],
        json!({"name": "protocol-test", "version": "9.8.7"})
    );
    assert_eq!(result["instructions"], "Use echo to echo.");
    assert_alive(&mut client).await;
}

#[tokio::test]
async fn initialize_without_instructions_sends_none() {
    let mut client = TestClient::start(server()).unwrap();
    let result = client
        .request("initialize", init_params(LATEST))
        .await
        .unwrap();
    assert!(result.get("instructions").is_none(), "{result}");
    assert_alive(&mut client).await;
}

#[tokio::test]
async fn initialize_without_a_protocol_version_is_invalid_params() {
    let mut client = TestClient::start(server()).unwrap();
    for params in [
        json!({}),
        json!({"protocolVersion": 7}),
        json!("2025-06-18"),
    ] {
        let reply = exchange(
            &mut client,
            json!({"jsonrpc": "2.0", "id": "i", "method": "initialize", "params": params})
                .to_string(),
        )
        .await;
        assert_error(&reply, &json!("i"), -32602);
    }
    // Not initialized by the failed attempts.
    let reply = exchange(
        &mut client,
        r#"{"jsonrpc":"2.0","id":"l","method":"tools/list"}"#,
    )
    .await;
    assert_error(&reply, &json!("l"), -32600);
    assert_quiet_and_alive(&mut client).await;
}

#[tokio::test]
async fn a_second_initialize_is_invalid_request() {
    let mut client = connect().await;
    let reply = exchange(
        &mut client,
        json!({"jsonrpc": "2.0", "id": 99, "method": "initialize", "params": init_params("2024-11-05")})
            .to_string(),
    )
    .await;
    assert_error(&reply, &json!(99), -32600);
    // The first negotiation stands: 2025-11-25 lists titles, 2024-11-05 would not.
    let tools = client.list_tools().await.unwrap();
    let echo = tools.iter().find(|t| t["name"] == "echo").unwrap();
    assert_eq!(echo["title"], "Echo text");
    assert_quiet_and_alive(&mut client).await;
}

#[tokio::test]
async fn requests_before_initialize_are_refused() {
    let mut client = TestClient::start(server()).unwrap();
    for (i, (method, params)) in [
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "x"}}),
        ),
        ("logging/setLevel", json!({"level": "debug"})),
        ("resources/list", json!({})),
    ]
    .into_iter()
    .enumerate()
    {
        let reply = exchange(
            &mut client,
            json!({"jsonrpc": "2.0", "id": i, "method": method, "params": params}).to_string(),
        )
        .await;
        assert_error(&reply, &json!(i), -32600);
        assert_eq!(reply["error"]["message"], NOT_INITIALIZED, "{method}");
        assert_quiet_and_alive(&mut client).await;
    }
    // The refusals did not break the handshake.
    client.initialize(LATEST).await.unwrap();
    assert_eq!(client.list_tools().await.unwrap().len(), ALL_TOOLS.len());
}

#[tokio::test]
async fn ping_answers_an_empty_object_at_any_time() {
    let mut client = TestClient::start(server()).unwrap();
    // Before initialize, with and without params.
    let reply = exchange(&mut client, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).await;
    assert_eq!(reply, json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    let reply = exchange(
        &mut client,
        r#"{"jsonrpc":"2.0","id":2,"method":"ping","params":{}}"#,
    )
    .await;
    assert_eq!(reply, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    client.initialize(LATEST).await.unwrap();
    let reply = exchange(&mut client, r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#).await;
    assert_eq!(reply, json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
}

#[tokio::test]
async fn notifications_initialized_is_not_required() {
    let mut client = TestClient::start(server()).unwrap();
    client
        .request("initialize", init_params(LATEST))
        .await
        .unwrap();
    // No notifications/initialized: requests are served anyway.
    assert_eq!(client.list_tools().await.unwrap().len(), ALL_TOOLS.len());
    let result = client
        .call_tool("echo", json!({"text": "no handshake"}))
        .await
        .unwrap();
    assert_eq!(text_of(&result), "no handshake");
    // A late notifications/initialized is harmless and unanswered.
    client.notify("notifications/initialized", json!({})).await;
    assert_quiet_and_alive(&mut client).await;
}

#[tokio::test]
async fn server_discover_is_answered_before_initialize_and_refused_after() {
    // Before `initialize`, discover is of the 2026-07-28 era: answered with
    // `_meta`, refused (-32602) without.
    let line = r#"{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{}}"#;
    let mut client = TestClient::start(server()).unwrap();
    let reply = exchange(&mut client, line).await;
    assert_error(&reply, &json!("d"), -32602);
    let modern = r#"{"jsonrpc":"2.0","id":"m","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let reply = exchange(&mut client, modern).await;
    assert_eq!(reply["result"]["supportedVersions"][1], LATEST, "{reply}");
    assert_quiet_and_alive(&mut client).await;
    // A legacy session stays legacy: discover is not one of its methods.
    client.initialize(LATEST).await.unwrap();
    let reply = exchange(&mut client, line).await;
    assert_error(&reply, &json!("d"), -32601);
    assert_quiet_and_alive(&mut client).await;
}

// ---------------------------------------------------------------------------
// Messages and errors

#[tokio::test]
async fn invalid_json_is_a_parse_error_with_a_null_id() {
    let mut client = connect().await;
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"method":"ping""#,
        "{oops",
        "not json",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"} trailing"#,
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        "01",
        r#"{"jsonrpc":"2.0","id":01,"method":"ping"}"#,
    ] {
        let reply = exchange(&mut client, line).await;
        assert_error(&reply, &Value::Null, -32700);
        assert_quiet_and_alive(&mut client).await;
    }
}

#[tokio::test]
async fn invalid_utf8_is_a_parse_error() {
    let mut client = connect_with("2025-03-26").await;
    let lines: [&[u8]; 4] = [
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"s\":\"\xff\"}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\xc3ng\"}",
        // A batch (this session accepts them) and a bare string.
        b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"s\":\"\xfe\"}}]",
        b"\"\xff\xfe\"",
    ];
    for line in lines {
        let reply = exchange(&mut client, line).await;
        assert_error(&reply, &Value::Null, -32700);
        assert_quiet_and_alive(&mut client).await;
    }
}

/// A ping whose params nest `depth` arrays and objects in all (the message
/// object itself counts as one).
fn nested_ping(depth: usize) -> String {
    let arrays = depth - 2;
    format!(
        r#"{{"jsonrpc":"2.0","id":"deep","method":"ping","params":{{"a":{}1{}}}}}"#,
        "[".repeat(arrays),
        "]".repeat(arrays)
    )
}

#[tokio::test]
async fn nesting_deeper_than_128_is_a_parse_error() {
    let mut client = connect().await;
    let reply = exchange(&mut client, nested_ping(128)).await;
    assert_eq!(
        assert_result(&reply, &json!("deep")),
        &json!({}),
        "128 levels are accepted"
    );
    for depth in [129, 1000, 100_000] {
        let reply = exchange(&mut client, nested_ping(depth)).await;
        assert_error(&reply, &Value::Null, -32700);
        assert_quiet_and_alive(&mut client).await;
    }
    // Brackets inside strings do not count.
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}}}}}}"#,
        "[".repeat(500)
    );
    let reply = exchange(&mut client, line).await;
    assert_eq!(text_of(assert_result(&reply, &json!("s"))), "[".repeat(500));
    assert_quiet_and_alive(&mut client).await;
}

#[tokio::test]
async fn json_that_is_not_an_object_is_invalid_request_with_a_null_id() {
    let mut client = connect().await;
    for line in ["42", r#""x""#, "true", "null", "-1.5"] {
        let reply = exchange(&mut client, line).await;
        assert_error(&reply, &Value::Null, -32600);
        assert_quiet_and_alive(&mut client).await;
    }
}

#[tokio::test]
async fn an_object_that_is_no_message_is_invalid_request_with_its_id_when_readable() {
    let mut client = connect().await;
    for (line, id) in [
        (r#"{}"#, Value::Null),
        (r#"{"foo":1}"#, Value::Null),
        (r#"{"jsonrpc":"2.0","id":5}"#, json!(5)),
        (r#"{"jsonrpc":"2.0","id":"m","method":5}"#, json!("m")),
        (r#"{"jsonrpc":"2.0","id":"m","method":null}"#, json!("m")),
        // Duplicate members: not a well-formed message.
        (
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
            Value::Null,
        ),
    ] {
        let reply = exchange(&mut client, line).await;
        assert_error(&reply, &id, -32600);
        assert_quiet_and_alive(&mut client).await;
    }
}

#[tokio::test]
async fn a_missing_or_wrong_jsonrpc_member_is_invalid_request_with_the_id_echoed() {
    let mut client = connect().await;
    for (line, id) in [
        (r#"{"id":7,"method":"ping"}"#, json!(7)),
        (r#"{"jsonrpc":"1.0","id":"v","method":"ping"}"#, json!("v")),
        (r#"{"jsonrpc":2.0,"id":-3,"method":"ping"}"#, json!(-3)),
        (
            r#"{"jsonrpc":null,"id":"n","method":"tools/list"}"#,
            json!("n"),
        ),
        (r#"{"jsonrpc":"2.0 ","id":8,"method":"ping"}"#, json!(8)),
    ] {
        let reply = exchange(&mut client, line).await;
        assert_error(&reply, &id, -32600);
        assert_quiet_and_alive(&mut client).await;
    }
}

#[tokio::test]
async fn ids_that_are_null_or_not_a_string_or_integer_are_invalid_request() {
    let mut client = connect().await;
    for id in [
        "null",
        "1.5",
        "1.0",
        "1e3",
        "true",
        "false",
        "{}",
        r#"{"a":1}"#,
        "[1]",
    ] {
        for method in ["ping", "tools/list"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#);
            let reply = exchange(&mut client, line).await;
            assert_error(&reply, &Value::Null, -32600);
            assert_quiet_and_alive(&mut client).await;
        }
    }
}

#[tokio::test]
async fn ids_are_echoed_exactly() {
    let mut client = connect().await;
    // Integers, compared as their JSON text (u64 values survive parsing).
    for id in [
        "0",
        "1",
        "-1",
        "-9223372036854775808",
        "9223372036854775807",
        "12345678901234567890",
        "18446744073709551615",
    ] {
        let reply = exchange(
            &mut client,
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#),
        )
        .await;
        assert_eq!(reply["id"].to_string(), id);
        assert_eq!(reply["result"], json!({}));
        // The same through a tool call, answered from its own task.
        let reply = exchange(
            &mut client,
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"t"}}}}}}"#
            ),
        )
        .await;
        assert_eq!(reply["id"].to_string(), id);
        assert_eq!(text_of(&reply["result"]), "t");
        // And through an error.
        let reply = exchange(
            &mut client,
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"no/such"}}"#),
        )
        .await;
        assert_eq!(reply["id"].to_string(), id);
        assert_eq!(reply["error"]["code"], -32601);
    }
    // Strings, with escapes, compared as JSON values.
    for id in [
        r#""abc""#,
        r#""""#,
        r#""a\"b\\c\/d\n\t""#,
        r#""\u00e9\ud83d\ude00 é""#,
        r#""42""#,
    ] {
        let expected: Value = serde_json::from_str(id).unwrap();
        let reply = exchange(
            &mut client,
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#),
        )
        .await;
        assert_eq!(reply["id"], expected, "{id}");
        assert!(reply["id"].is_string(), "{id}");
        let reply = exchange(
            &mut client,
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"t"}}}}}}"#
            ),
        )
        .await;
        assert_eq!(reply["id"], expected, "{id}");
    }
    assert_quiet_and_alive(&mut client).await;
}

#[tokio::test]
async fn integer_ids_beyond_u64_are_answered_not_refused() {
    // TestClient parses output into serde_json::Value, which reads an
    // integer beyond u64 as a float: the echo is checked as that number.
    let mut client = connect().await;
    let id = "123456789012345678901234567890";
    let reply = exchange(
        &mut client,
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#),
    )
    .await;
    assert_eq!(reply["result"], json!({}), "{reply}");
    assert_eq!(reply["id"].as_f64(), Some(1.2345678901234568e29), "{reply}");
    let reply = exchange(
        &mut client,
        format!(r#"{{"jsonrpc":"2.0","id":-{id},"method":"ping"}}"#),
    )
    .await;
    assert_eq!(reply["result"], json!({}), "{reply}");
    assert_eq!(
        reply["id"].as_f64(),
        Some(-1.2345678901234568e29),
        "{reply}"
    );
    assert_quiet_and_alive(&mut client).await;
}

#[tokio::test]
async fn a_batch_in_2025_03_26_is_answered_with_an_array() {
    let mut client = connect_with("2025-03-26").await;
    let batch = json!([
        {"jsonrpc": "2.0", "id": "b1", "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "b2", "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "b3", "method": "no/such/method"},
        {"jsonrpc": "2.0", "method": "notifications/whatever", "params": {}},
        42,
        {"jsonrpc": "2.0", "id": "b4", "method": "initialize", "params": init_params("2025-03-26")},
        {"jsonrpc": "1.0", "id": "b5", "method": "ping"},
        {"jsonrpc": "2.0", "id": "b6", "result": {}},
    ]);
    let reply = exchange(&mut client, batch.to_string()).await;
    let entries = reply.as_array().expect("a batch is answered with an array");
    assert_eq!(
        entries.len(),
        6,
        "one entry per request and per invalid item, none for notifications or responses: {reply}"
    );
    let by_id = |id: &str| {
        entries
            .iter()
            .find(|e| e["id"] == id)
            .unwrap_or_else(|| panic!("no entry for {id}: {reply}"))
    };
    assert_eq!(assert_result(by_id("b1"), &json!("b1")), &json!({}));
    assert_eq!(
        assert_result(by_id("b2"), &json!("b2"))["tools"]
            .as_array()
            .unwrap()
            .len(),
        ALL_TOOLS.len()
    );
    assert_error(by_id("b3"), &json!("b3"), -32601);
    assert_error(by_id("b4"), &json!("b4"), -32600);
    assert_error(by_id("b5"), &json!("b5"), -32600);
    let anonymous: Vec<&Value> = entries.iter().filter(|e| e["id"].is_null()).collect();
    assert_eq!(anonymous.len(), 1, "{reply}");
    assert_error(anonymous[0], &Value::Null, -32600);
    assert_quiet_and_alive(&mut client).await;
}

#[tokio::test]
async fn a_batch_of_tool_calls_returns_their_results() {
    let mut client = connect_with("2025-03-26").await;
    let batch = json!([
        call_line(json!(1), "sleepy", json!({"ms": 80})),
        call_line(json!(2), "echo", json!({"text": "fast"})),
        call_line(json!(3), "refuse", json!({"reason": "no"})),
        call_line(json!(4), "nope", json!({})),
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}},
    ]);
    let reply = exchange(&mut client, batch.to_string()).await;
    let entries = reply.as_array().expect("an array");
    assert_eq!(entries.len(), 4, "{reply}");
    let by_id = |id: i64| entries.iter().find(|e| e["id"] == id).unwrap();
    assert_eq!(text_of(assert_result(by_id(1), &json!(1))), "slept 80ms");
    assert_eq!(text_of(assert_result(by_id(2), &json!(2))), "fast");
    let refused = assert_result(by_id(3), &json!(3));
    assert_eq!(refused["isError"], true);
    assert_eq!(text_of(refused), "refused: no");
    assert_error(by_id(4), &json!(4), -32602);
    assert_quiet_and_alive(&mut client).await;
}

#[tokio::test]
async fn a_batch_of_only_notifications_gets_no_reply() {
    let mut client = connect_with("2025-03-26").await;
    let batch = json!([
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 12345}},
        {"jsonrpc": "2.0", "method": "unknown/notification"},
    ]);
    client.send_line(batch.to_string()).await;
    assert_quiet_and_alive(&mut client).await;
}

#[tokio::test]
async fn an_empty_batch_is_invalid_request() {
    let mut client = connect_with("2025-03-26").await;
    for line in ["[]", "[ ]", " [\t] "] {
        let reply = exchange(&mut client, line).await;
        assert!(reply.is_object(), "a single error, not an array: {reply}");
        assert_error(&reply, &Value::Null, -32600);
        assert_quiet_and_alive(&mut client).await;
    }
}

#[tokio::test]
async fn a_batch_outside_2025_03_26_is_invalid_request() {
    let batch = json!([
        {"jsonrpc": "2.0", "id": "x", "method": "ping"},
        call_line(json!("y"), "sleepy", json!({"ms": 1, "tag": "batch-refused"})),
    ])
    .to_string();
    for version in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let mut client = connect_with(version).await;
        let reply = exchange(&mut client, batch.clone()).await;
        assert!(reply.is_object(), "{version}: {reply}");
        assert_error(&reply, &Value::Null, -32600);
        assert_quiet_and_alive(&mut client).await;
        let reply = exchange(&mut client, "[]").await;
        assert_error(&reply, &Value::Null, -32600);
        assert_quiet_and_alive(&mut client).await;
    }
    // Before initialize too.
    let mut client = TestClient::start(server()).unwrap();
    let reply = exchange(&mut client, batch).await;
    assert_error(&reply, &Value::Null, -32600);
    assert_quiet_and_alive(&mut client).await;
    assert!(!has_event("batch-refused", "started"), "no item was run");
}

#[tokio::test]
async fn an_unknown_method_is_method_not_found_naming_it() {
    let mut client = connect().await;
    for method in ["resources/list", "prompts/get", "tools/lists", "", "a\"b"] {
        let reply = exchange(
            &mut client,
            json!({"jsonrpc": "2.0", "id": "u", "method": method, "params": {}}).to_string(),
        )
        .await;
        assert_error(&reply, &json!("u"), -32601);
        assert_eq!(reply["error"]["data"]["method"], method, "{reply}");
        assert_quiet_and_alive(&mut client).await;
    }
}

#[tokio::test]
async fn an_unknown_notification_is_ignored() {
    // Before and after initialize.
    let mut client = TestClient::start(server()).unwrap();
    client
        .notify("notifications/unknown", json!({"x": 1}))
        .await;
    assert_quiet_and_alive(&mut client).await;
    client.initialize(LATEST).await.unwrap();
    for method in ["notifications/unknown", "tools/call", "initialize", "ping"] {
        client.notify(method, json!({})).await;
        assert_quiet_and_alive(&mut client).await;
    }
}

#[tokio::test]
async fn a_notification_with_a_malformed_body_is_ignored() {
    let mut client = connect().await;
    for line in [
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"oops"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"x":1}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1,2]}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":42}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":"x"}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/unknown","params":null}"#,
    ] {
        client.send_line(line).await;
        assert_quiet_and_alive(&mut client).await;
    }
}

#[tokio::test]
async fn responses_from_the_client_are_ignored() {
    let mut client = connect().await;
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}"#,
    ] {
        client.send_line(line).await;
        assert_quiet_and_alive(&mut client).await;
    }
}

#[tokio::test]
async fn tools_call_naming_no_known_tool_is_invalid_params() {
    let mut client = connect().await;
    for name in ["nope", "Echo", "echo ", ""] {
        let reply = exchange(
            &mut client,
            call_line(json!("c"), name, json!({})).to_string(),
        )
        .await;
        assert_error(&reply, &json!("c"), -32602);
        assert_eq!(reply["error"]["message"], format!("Unknown tool: {name}"));
        assert_quiet_and_alive(&mut client).await;
    }
}

#[tokio::test]
async fn tools_call_with_malformed_params_is_invalid_params() {
    let mut client = connect().await;
    for params in [
        json!("echo"),
        json!(["echo"]),
        json!(42),
        json!({"name": "echo", "arguments": "text"}),
        json!({"name": "echo", "arguments": ["text"]}),
        json!({"name": "echo", "arguments": 1}),
        json!({"arguments": {"text": "x"}}),
        json!({"name": 5, "arguments": {}}),
        json!({"name": null}),
        json!({}),
    ] {
        let reply = exchange(
            &mut client,
            json!({"jsonrpc": "2.0", "id": "p", "method": "tools/call", "params": params})
                .to_string(),
        )
        .await;
        assert_error(&reply, &json!("p"), -32602);
        assert_quiet_and_alive(&mut client).await;
    }
    // No params at all: no name.
    let reply = exchange(
        &mut client,
        r#"{"jsonrpc":"2.0","id":"p","method":"tools/call"}"#,
    )
    .await;
    assert_error(&reply, &json!("p"), -32602);
    assert_quiet_and_alive(&mut client).await;
}

#[tokio::test]
async fn arguments_failing_the_input_schema_are_a_tool_error_listing_every_violation() {
    for version in VERSIONS {
        let mut client = connect_with(version).await;
        let result = client
            .call_tool(
                "book",
                json!({"seats": 20, "tags": ["ok", 5], "extra": true}),
            )
            .await
            .expect("a result, not a JSON-RPC error");
        assert_eq!(result["isError"], true, "{version}: {result}");
        let text = text_of(&result);
        for expected in [
            "book",
            "`/name`",
            "missing required argument `name`",
            "`/seats`",
            "`/tags/1`",
            "`extra`",
        ] {
            assert!(
                text.contains(expected),
                "{version}: {expected:?} missing from:\n{text}"
            );
        }
        // Wrong types are reported too, and the tool never runs.
        let result = client
            .call_tool("sleepy", json!({"ms": "soon", "tag": 7}))
            .await
            .unwrap();
        assert_eq!(result["isError"], true);
        let text = text_of(&result);
        assert!(text.contains("`/ms`") && text.contains("`/tag`"), "{text}");
        assert_alive(&mut client).await;
    }
}

#[tokio::test]
async fn an_err_from_the_tool_is_a_tool_error_with_its_text() {
    let mut client = connect().await;
    let result = client
        .call_tool("refuse", json!({"reason": "closed on Sundays"}))
        .await
        .unwrap();
    assert_eq!(
        result,
        json!({
            "content": [{"type": "text", "text": "refused: closed on Sundays"}],
            "isError": true
        })
    );
    assert_quiet_and_alive(&mut client).await;
}

#[tokio::test]
async fn a_panic_in_the_tool_is_a_generic_tool_error() {
    let mut client = connect().await;
    let result = client.call_tool("explode", json!({})).await.unwrap();
    assert_eq!(result["isError"], true, "{result}");
    let text = text_of(&result);
    assert!(!text.is_empty());
    assert!(
        !text.contains("secret") && !text.contains("4711"),
        "the panic message leaked: {text}"
    );
    assert_quiet_and_alive(&mut client).await;
    // The server keeps calling tools, the panicking one included.
    let again = client.call_tool("explode", json!({})).await.unwrap();
    assert_eq!(again["isError"], true);
    let echo = client
        .call_tool("echo", json!({"text": "ok"}))
        .await
        .unwrap();
    assert_eq!(text_of(&echo), "ok");
}

#[tokio::test]
async fn a_tool_past_its_timeout_is_a_tool_error() {
    let mut client = connect().await;
    let started = std::time::Instant::now();
    let result = client.call_tool("stuck", json!({})).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(5), "not cut short");
    assert_eq!(
        result,
        json!({
            "content": [{"type": "text", "text": "timed out after 50ms"}],
            "isError": true
        })
    );
    assert_quiet_and_alive(&mut client).await;
}

#[tokio::test]
async fn the_default_timeout_applies_to_tools_without_one() {
    let mut client = TestClient::connect(server().default_timeout(Duration::from_millis(30)))
        .await
        .unwrap();
    let result = client
        .call_tool("sleepy", json!({"ms": 5000}))
        .await
        .unwrap();
    assert_eq!(result["isError"], true);
    assert_eq!(text_of(&result), "timed out after 30ms");
    // A tool's own timeout wins.
    let result = client.call_tool("stuck", json!({})).await.unwrap();
    assert_eq!(text_of(&result), "timed out after 50ms");
    assert_quiet_and_alive(&mut client).await;
}

/// A ping padded with a string to exactly `len` bytes.
fn padded_ping(id: &str, len: usize) -> String {
    let bare = format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping","params":{{"pad":""}}}}"#);
    let pad = "x".repeat(len - bare.len());
    let line =
        format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping","params":{{"pad":"{pad}"}}}}"#);
    assert_eq!(line.len(), len);
    line
}

#[tokio::test]
async fn a_message_over_the_size_limit_is_refused_and_skipped() {
    let mut client = TestClient::connect(server().max_message_size(1000))
        .await
        .unwrap();
    let reply = exchange(&mut client, padded_ping("big", 5000)).await;
    assert_error(&reply, &Value::Null, -32600);
    assert_eq!(reply["error"]["message"], "message too large");
    assert_quiet_and_alive(&mut client).await;
    // Exactly at the limit is accepted; one byte over is not.
    let reply = exchange(&mut client, padded_ping("at", 1000)).await;
    assert_eq!(assert_result(&reply, &json!("at")), &json!({}));
    let reply = exchange(&mut client, padded_ping("over", 1001)).await;
    assert_error(&reply, &Value::Null, -32600);
    assert_eq!(reply["error"]["message"], "message too large");
    // The server keeps serving, tool calls included.
    let result = client
        .call_tool("echo", json!({"text": "still here"}))
        .await;
    assert_eq!(text_of(&result.unwrap()), "still here");
    assert_quiet_and_alive(&mut client).await;
}

// ---------------------------------------------------------------------------
// Tools

#[tokio::test]
async fn tools_list_is_sorted_by_name_and_every_tool_has_a_description() {
    for version in VERSIONS {
        let mut client = connect_with(version).await;
        let page = client.request("tools/list", json!({})).await.unwrap();
        assert!(page.get("nextCursor").is_none(), "one page by default");
        let tools = page["tools"].as_array().unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ALL_TOOLS, "{version}");
        for tool in tools {
            assert!(
                tool["description"].as_str().is_some_and(|d| !d.is_empty()),
                "{tool}"
            );
        }
        // Deterministic: the same answer every time.
        let again = client.request("tools/list", json!({})).await.unwrap();
        assert_eq!(again, page);
        assert_quiet_and_alive(&mut client).await;
    }
}

#[tokio::test]
async fn tools_list_pages_follow_next_cursor_to_every_tool() {
    for size in [1, 2, 3, 10, 11] {
        for version in VERSIONS {
            let mut paged = TestClient::connect_with_version(server().page_size(size), version)
                .await
                .unwrap();
            let mut whole = connect_with(version).await;
            let all = whole.request("tools/list", json!({})).await.unwrap();
            // Walk the pages by hand, checking each one's size.
            let mut params = json!({});
            let mut collected = Vec::new();
            let mut pages = 0;
            loop {
                let page = paged.request("tools/list", params).await.unwrap();
                let tools = page["tools"].as_array().unwrap();
                pages += 1;
                assert!(tools.len() <= size, "page of {} > {size}", tools.len());
                collected.extend(tools.iter().cloned());
                match page.get("nextCursor") {
                    Some(cursor) => {
                        assert!(cursor.is_string(), "{cursor}");
                        assert_eq!(tools.len(), size, "only the last page is short");
                        params = json!({ "cursor": cursor });
                    }
                    None => break,
                }
            }
            assert_eq!(pages, ALL_TOOLS.len().div_ceil(size), "size {size}");
            assert_eq!(&Value::Array(collected), &all["tools"], "size {size}");
            assert_eq!(paged.list_tools().await.unwrap().len(), ALL_TOOLS.len());
            assert_quiet_and_alive(&mut paged).await;
        }
    }
}

#[tokio::test]
async fn tools_list_with_a_bad_cursor_is_invalid_params() {
    let mut client = TestClient::connect(server().page_size(2)).await.unwrap();
    let first = client.request("tools/list", json!({})).await.unwrap();
    let good = first["nextCursor"].as_str().unwrap().to_owned();
    for cursor in [
        json!("garbage"),
        json!(""),
        json!(format!("{good}x")),
        json!("page-0"),
        json!("page-999"),
        json!("page--1"),
        json!(2),
        json!({"page": 1}),
    ] {
        let reply = exchange(
            &mut client,
            json!({"jsonrpc": "2.0", "id": "cur", "method": "tools/list", "params": {"cursor": cursor}})
                .to_string(),
        )
        .await;
        assert_error(&reply, &json!("cur"), -32602);
        assert_quiet_and_alive(&mut client).await;
    }
    // A good cursor still works afterwards; params that are not an object do not.
    let second = client
        .request("tools/list", json!({ "cursor": good }))
        .await
        .unwrap();
    assert_eq!(second["tools"].as_array().unwrap().len(), 2);
    let reply = exchange(
        &mut client,
        r#"{"jsonrpc":"2.0","id":"arr","method":"tools/list","params":[1]}"#,
    )
    .await;
    assert_error(&reply, &json!("arr"), -32602);
    assert_quiet_and_alive(&mut client).await;
}

async fn tools_for(version: &str) -> BTreeMap<String, Value> {
    let mut client = connect_with(version).await;
    let tools = client.list_tools().await.unwrap();
    assert_quiet_and_alive(&mut client).await;
    tools
        .into_iter()
        .map(|t| (t["name"].as_str().unwrap().to_owned(), t))
        .collect()
}

#[tokio::test]
async fn tools_list_for_2024_11_05_has_no_annotations_title_or_output_schema() {
    let tools = tools_for("2024-11-05").await;
    for (name, tool) in &tools {
        let mut keys: Vec<&str> = tool
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["description", "inputSchema", "name"],
            "{name}: {tool}"
        );
    }
}

#[tokio::test]
async fn tools_list_for_2025_03_26_has_annotations_with_the_title_inside() {
    let tools = tools_for("2025-03-26").await;
    for (name, tool) in &tools {
        assert!(tool.get("title").is_none(), "{name}: {tool}");
        assert!(tool.get("outputSchema").is_none(), "{name}: {tool}");
    }
    assert_eq!(
        tools["echo"]["annotations"],
        json!({"title": "Echo text", "readOnlyHint": true, "idempotentHint": true})
    );
    assert_eq!(
        tools["summarize"]["annotations"],
        json!({"title": "Sum numbers"})
    );
    assert!(tools["sleepy"].get("annotations").is_none());
}

#[tokio::test]
async fn tools_list_from_2025_06_18_has_title_and_output_schema() {
    for version in ["2025-06-18", "2025-11-25"] {
        let tools = tools_for(version).await;
        assert_eq!(tools["echo"]["title"], "Echo text", "{version}");
        assert_eq!(tools["summarize"]["title"], "Sum numbers");
        assert!(tools["sleepy"].get("title").is_none());
        assert_eq!(tools["echo"]["annotations"]["readOnlyHint"], true);
        // outputSchema only for the structured tool, always an object.
        for (name, tool) in &tools {
            assert_eq!(
                tool.get("outputSchema").is_some(),
                name == "summarize",
                "{version} {name}: {tool}"
            );
        }
        let schema = &tools["summarize"]["outputSchema"];
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], json!(["count", "total"]));
    }
}

#[tokio::test]
async fn input_schemas_are_plain_objects_clients_can_read() {
    let tools = tools_for(LATEST).await;
    for (name, tool) in &tools {
        let schema = tool["inputSchema"].as_object().unwrap();
        assert_eq!(schema["type"], "object", "{name}");
        assert_eq!(schema["additionalProperties"], false, "{name}");
        assert!(!schema.contains_key("$schema"), "{name}");
        assert!(!schema.contains_key("title"), "{name}");
        let text = tool["inputSchema"].to_string();
        assert!(!text.contains("$ref") && !text.contains("$defs"), "{name}");
        assert!(!text.contains("null"), "{name}: {text}");
        assert!(
            jsonschema::draft202012::meta::is_valid(&tool["inputSchema"]),
            "{name}"
        );
    }
    let sleepy = &tools["sleepy"]["inputSchema"];
    assert_eq!(sleepy["required"], json!(["ms"]));
    assert_eq!(sleepy["properties"]["tag"]["type"], "string");
    assert_eq!(
        sleepy["properties"]["ms"]["description"],
        "How long to sleep, in milliseconds."
    );
    // Injected parameters are not arguments.
    let properties: Vec<&String> = tools["report_progress"]["inputSchema"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(properties, ["steps"]);
    assert!(
        tools["chatty"]["inputSchema"]
            .get("required")
            .is_none_or(|r| r == &json!([]))
    );
}

#[tokio::test]
async fn structured_output_conforms_to_the_output_schema_and_is_mirrored_in_text() {
    for version in ["2025-06-18", "2025-11-25"] {
        let mut client = connect_with(version).await;
        let tools = client.list_tools().await.unwrap();
        let schema =
            tools.iter().find(|t| t["name"] == "summarize").unwrap()["outputSchema"].clone();
        let result = client
            .call_tool("summarize", json!({"values": [1.5, 2.5, 3]}))
            .await
            .unwrap();
        assert_eq!(result["isError"], false);
        assert_eq!(
            result["structuredContent"],
            json!({"count": 3, "total": 7.0})
        );
        let validator = jsonschema::draft202012::new(&schema).unwrap();
        assert!(validator.is_valid(&result["structuredContent"]), "{result}");
        let text: Value = serde_json::from_str(&text_of(&result)).unwrap();
        assert_eq!(text, result["structuredContent"]);
        assert_quiet_and_alive(&mut client).await;
    }
}

#[tokio::test]
async fn call_results_are_shaped_for_each_version() {
    for version in VERSIONS {
        let mut client = connect_with(version).await;
        let structured = client
            .call_tool("summarize", json!({"values": [1, 2]}))
            .await
            .unwrap();
        let has_structured = version >= "2025-06-18";
        assert_eq!(
            structured.get("structuredContent").is_some(),
            has_structured,
            "{version}: {structured}"
        );
        // The JSON is in a text block for every version.
        let text: Value = serde_json::from_str(&text_of(&structured)).unwrap();
        assert_eq!(text, json!({"count": 2, "total": 3.0}), "{version}");

        let media = client.call_tool("media", json!({})).await.unwrap();
        assert_eq!(media["isError"], false);
        let content = media["content"].as_array().unwrap();
        assert_eq!(content.len(), 3, "{version}: {media}");
        assert_eq!(content[0], json!({"type": "text", "text": "here you are"}));
        // Audio arrived with 2025-03-26.
        if version == "2024-11-05" {
            assert_eq!(content[1]["type"], "text", "{media}");
            assert!(content[1]["text"].as_str().unwrap().contains("audio/wav"));
            assert!(content[1].get("data").is_none());
        } else {
            assert_eq!(
                content[1],
                json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"})
            );
        }
        // Resource links arrived with 2025-06-18.
        if version < "2025-06-18" {
            assert_eq!(
                content[2],
                json!({
                    "type": "text",
                    "text": "Resource: file:///reports/q3.pdf (Q3 report): Quarterly numbers"
                }),
                "{version}"
            );
        } else {
            assert_eq!(
                content[2],
                json!({
                    "type": "resource_link",
                    "uri": "file:///reports/q3.pdf",
                    "name": "q3.pdf",
                    "title": "Q3 report",
                    "description": "Quarterly numbers"
                }),
                "{version}"
            );
        }
        assert_quiet_and_alive(&mut client).await;
    }
}

// ---------------------------------------------------------------------------
// Utilities: cancellation

#[tokio::test]
async fn a_cancelled_call_gets_no_response() {
    let mut client = connect().await;
    let id = client
        .send_request(
            "tools/call",
            json!({"name": "sleepy", "arguments": {"ms": 400, "tag": "cancel-int"}}),
        )
        .await;
    wait_for_event("cancel-int", "started").await;
    client
        .notify(
            "notifications/cancelled",
            json!({"requestId": id, "reason": "changed my mind"}),
        )
        .await;
    // The call is stopped, not left to run.
    wait_for_event("cancel-int", "dropped").await;
    assert!(!has_event("cancel-int", "completed"));
    // Long after the call would have finished, still no response for it.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_quiet_and_alive(&mut client).await;
    let rest = client.close().await;
    assert!(
        rest.iter().all(|m| m["id"] != json!(id)),
        "a response for the cancelled call: {rest:?}"
    );
}

#[tokio::test]
async fn a_cancelled_call_with_a_string_id_gets_no_response() {
    let mut client = connect().await;
    // The id spelled with an escape; the cancellation spells it plainly.
    client
        .send_line(
            r#"{"jsonrpc":"2.0","id":"job-\u0031","method":"tools/call","params":{"name":"sleepy","arguments":{"ms":400,"tag":"cancel-str"}}}"#,
        )
        .await;
    wait_for_event("cancel-str", "started").await;
    client
        .notify("notifications/cancelled", json!({"requestId": "job-1"}))
        .await;
    wait_for_event("cancel-str", "dropped").await;
    assert_quiet_and_alive(&mut client).await;
    let rest = client.close().await;
    assert!(rest.is_empty(), "{rest:?}");
}

#[tokio::test]
async fn a_cancelled_call_in_a_batch_gets_no_entry() {
    let mut client = connect_with("2025-03-26").await;
    let batch = json!([
        call_line(json!("keep"), "echo", json!({"text": "kept"})),
        call_line(json!("drop"), "sleepy", json!({"ms": 400, "tag": "cancel-batch"})),
        {"jsonrpc": "2.0", "id": "ping", "method": "ping"},
    ]);
    client.send_line(batch.to_string()).await;
    wait_for_event("cancel-batch", "started").await;
    client
        .notify("notifications/cancelled", json!({"requestId": "drop"}))
        .await;
    let reply = next(&mut client).await;
    let entries = reply.as_array().expect("an array");
    assert_eq!(entries.len(), 2, "{reply}");
    assert_eq!(text_of(assert_result(&entries[0], &json!("keep"))), "kept");
    assert_eq!(assert_result(&entries[1], &json!("ping")), &json!({}));
    wait_for_event("cancel-batch", "dropped").await;
    assert_quiet_and_alive(&mut client).await;
    // Cancelling every request of a batch leaves nothing to answer.
    let batch = json!([call_line(
        json!("only"),
        "sleepy",
        json!({"ms": 400, "tag": "cancel-batch-2"})
    )]);
    client.send_line(batch.to_string()).await;
    wait_for_event("cancel-batch-2", "started").await;
    client
        .notify("notifications/cancelled", json!({"requestId": "only"}))
        .await;
    wait_for_event("cancel-batch-2", "dropped").await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_quiet_and_alive(&mut client).await;
    let rest = client.close().await;
    assert!(rest.is_empty(), "{rest:?}");
}

#[tokio::test]
async fn cancelling_unknown_or_finished_calls_is_ignored() {
    let mut client = connect().await;
    for request_id in [json!(424242), json!("never-sent"), json!(-1)] {
        client
            .notify("notifications/cancelled", json!({"requestId": request_id}))
            .await;
        assert_quiet_and_alive(&mut client).await;
    }
    let id = client
        .send_request(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "done"}}),
        )
        .await;
    let result = client.response(id).await.unwrap();
    assert_eq!(text_of(&result), "done");
    client
        .notify("notifications/cancelled", json!({"requestId": id}))
        .await;
    assert_quiet_and_alive(&mut client).await;
    // Cancelling one call leaves the others alone.
    let keep = client
        .send_request(
            "tools/call",
            json!({"name": "sleepy", "arguments": {"ms": 50}}),
        )
        .await;
    client
        .notify("notifications/cancelled", json!({"requestId": keep + 1000}))
        .await;
    let result = client.response(keep).await.unwrap();
    assert_eq!(text_of(&result), "slept 50ms");
    assert_quiet_and_alive(&mut client).await;
}

#[tokio::test]
async fn a_duplicate_id_while_the_first_is_in_flight_is_invalid_request() {
    let mut client = connect().await;
    let line = call_line(json!("dup"), "sleepy", json!({"ms": 500})).to_string();
    client.send_line(line.clone()).await;
    let reply = exchange(&mut client, line.clone()).await;
    assert_error(&reply, &json!("dup"), -32600);
    // The first call answers normally, once.
    let reply = next(&mut client).await;
    assert_eq!(text_of(assert_result(&reply, &json!("dup"))), "slept 500ms");
    assert_quiet_and_alive(&mut client).await;
    // Once answered, the id may be used again.
    let reply = exchange(
        &mut client,
        call_line(json!("dup"), "echo", json!({"text": "again"})).to_string(),
    )
    .await;
    assert_eq!(text_of(assert_result(&reply, &json!("dup"))), "again");
    // The same id as an integer and as a string are different ids.
    client
        .send_line(call_line(json!(5), "sleepy", json!({"ms": 100})).to_string())
        .await;
    client
        .send_line(call_line(json!("5"), "sleepy", json!({"ms": 50})).to_string())
        .await;
    let replies = [next(&mut client).await, next(&mut client).await];
    let by_id = |id: Value| replies.iter().find(|r| r["id"] == id).unwrap();
    assert_eq!(
        text_of(assert_result(by_id(json!("5")), &json!("5"))),
        "slept 50ms"
    );
    assert_eq!(
        text_of(assert_result(by_id(json!(5)), &json!(5))),
        "slept 100ms"
    );
    assert_quiet_and_alive(&mut client).await;
}

// ---------------------------------------------------------------------------
// Utilities: progress

fn progress_call(id: &str, token: Value, steps: u32) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {
            "name": "report_progress",
            "arguments": {"steps": steps},
            "_meta": {"progressToken": token}
        }
    })
}

#[tokio::test]
async fn progress_notifications_come_before_the_response_and_increase() {
    for (version, token) in [
        ("2025-11-25", json!("t")),
        ("2025-03-26", json!(7)),
        ("2024-11-05", json!("old")),
    ] {
        let mut client = connect_with(version).await;
        let messages =
            collect_until_response(&mut client, "p1", progress_call("p1", token.clone(), 5)).await;
        let (response, notifications) = messages.split_last().unwrap();
        assert_eq!(text_of(assert_result(response, &json!("p1"))), "5 steps");
        assert_eq!(notifications.len(), 5, "{version}: {notifications:?}");
        for (i, notification) in notifications.iter().enumerate() {
            let step = i + 1;
            assert_eq!(notification["method"], "notifications/progress");
            assert!(notification.get("id").is_none());
            let params = &notification["params"];
            assert_eq!(params["progressToken"], token, "{version}");
            assert_eq!(params["progress"], json!(step as f64));
            assert_eq!(params["total"], json!(5.0));
            if version == "2024-11-05" {
                // `message` arrived with 2025-03-26.
                assert!(params.get("message").is_none(), "{params}");
            } else {
                assert_eq!(params["message"], format!("step {step}"));
            }
        }
        // None after the response, even from a task that outlived the call.
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert_quiet_and_alive(&mut client).await;
    }
}

#[tokio::test]
async fn no_progress_without_a_token() {
    let mut client = connect().await;
    for meta in [json!(null), json!({}), json!({"progressToken": null})] {
        let mut line = progress_call("np", Value::Null, 3);
        line["params"]["_meta"] = meta.clone();
        let messages = collect_until_response(&mut client, "np", line).await;
        assert_eq!(messages.len(), 1, "{meta}: {messages:?}");
        assert_eq!(
            text_of(assert_result(&messages[0], &json!("np"))),
            "3 steps"
        );
    }
    let result = client
        .call_tool("report_progress", json!({"steps": 2}))
        .await
        .unwrap();
    assert_eq!(text_of(&result), "2 steps");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_quiet_and_alive(&mut client).await;
}

// ---------------------------------------------------------------------------
// Utilities: logging

async fn chatty_logs(client: &mut TestClient, id: &str) -> Vec<Value> {
    let messages =
        collect_until_response(client, id, call_line(json!(id), "chatty", json!({}))).await;
    let (response, logs) = messages.split_last().unwrap();
    assert_eq!(text_of(assert_result(response, &json!(id))), "logged");
    for log in logs {
        assert_eq!(log["method"], "notifications/message", "{log}");
        assert!(log.get("id").is_none());
        assert_eq!(log["params"]["logger"], "chatty");
    }
    logs.iter().map(|log| log["params"].clone()).collect()
}

#[tokio::test]
async fn logging_set_level_filters_what_context_log_sends() {
    let mut client = connect().await;
    let info = json!({"level": "info", "logger": "chatty", "data": "info line"});
    let error = json!({"level": "error", "logger": "chatty", "data": {"problem": "error line"}});
    let debug = json!({"level": "debug", "logger": "chatty", "data": "debug line"});
    // Until the client sets a level: info and above.
    assert_eq!(
        chatty_logs(&mut client, "l0").await,
        [info.clone(), error.clone()]
    );

    let set = client
        .request("logging/setLevel", json!({"level": "error"}))
        .await
        .unwrap();
    assert_eq!(set, json!({}));
    assert_eq!(
        chatty_logs(&mut client, "l1").await,
        std::slice::from_ref(&error)
    );
    assert_quiet_and_alive(&mut client).await;

    client
        .request("logging/setLevel", json!({"level": "emergency"}))
        .await
        .unwrap();
    assert_eq!(chatty_logs(&mut client, "l2").await, Vec::<Value>::new());

    client
        .request("logging/setLevel", json!({"level": "debug"}))
        .await
        .unwrap();
    assert_eq!(chatty_logs(&mut client, "l3").await, [debug, info, error]);
    assert_quiet_and_alive(&mut client).await;
}

#[tokio::test]
async fn logging_set_level_with_an_invalid_level_is_invalid_params() {
    let mut client = connect().await;
    client
        .request("logging/setLevel", json!({"level": "error"}))
        .await
        .unwrap();
    for params in [
        json!({"level": "verbose"}),
        json!({"level": "ERROR"}),
        json!({"level": 3}),
        json!({"level": null}),
        json!({}),
        json!("error"),
    ] {
        let reply = exchange(
            &mut client,
            json!({"jsonrpc": "2.0", "id": "lvl", "method": "logging/setLevel", "params": params})
                .to_string(),
        )
        .await;
        assert_error(&reply, &json!("lvl"), -32602);
        assert_quiet_and_alive(&mut client).await;
    }
    // The level set before stands.
    let error = json!({"level": "error", "logger": "chatty", "data": {"problem": "error line"}});
    assert_eq!(chatty_logs(&mut client, "after").await, [error]);
}

// ---------------------------------------------------------------------------
// Shutdown and load

#[tokio::test]
async fn calls_in_flight_at_eof_still_finish_and_answer() {
    let mut client = connect().await;
    let slow = client
        .send_request(
            "tools/call",
            json!({"name": "sleepy", "arguments": {"ms": 200}}),
        )
        .await;
    let slower = client
        .send_request(
            "tools/call",
            json!({"name": "sleepy", "arguments": {"ms": 300}}),
        )
        .await;
    let fast = client
        .send_request(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "bye"}}),
        )
        .await;
    let rest = tokio::time::timeout(WAIT, client.close())
        .await
        .expect("close did not return");
    assert_eq!(rest.len(), 3, "{rest:?}");
    for (id, text) in [
        (slow, "slept 200ms"),
        (slower, "slept 300ms"),
        (fast, "bye"),
    ] {
        let reply = rest.iter().find(|m| m["id"] == id).unwrap();
        assert_eq!(text_of(assert_result(reply, &json!(id))), text);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ten_thousand_pipelined_calls_each_get_exactly_one_response() {
    const CALLS: usize = 10_000;
    let mut client = connect().await;
    let send_all = async {
        let mut ids = Vec::with_capacity(CALLS);
        for i in 0..CALLS {
            let id = client
                .send_request(
                    "tools/call",
                    json!({"name": "echo", "arguments": {"text": format!("m{i}")}}),
                )
                .await;
            ids.push(id);
        }
        ids
    };
    let ids = tokio::time::timeout(Duration::from_secs(60), send_all)
        .await
        .expect("sending stalled: the client must not have to read while it writes");
    let expected: BTreeMap<i64, String> = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, format!("m{i}")))
        .collect();
    let mut seen = HashSet::new();
    for _ in 0..CALLS {
        let reply = next(&mut client).await;
        let id = reply["id"].as_i64().unwrap_or_else(|| panic!("{reply}"));
        let text = expected
            .get(&id)
            .unwrap_or_else(|| panic!("unexpected id: {reply}"));
        assert!(seen.insert(id), "two responses for {id}");
        assert_eq!(&text_of(assert_result(&reply, &json!(id))), text);
    }
    assert_quiet_and_alive(&mut client).await;
    let rest = client.close().await;
    assert!(rest.is_empty(), "extra messages: {}", rest.len());
}
