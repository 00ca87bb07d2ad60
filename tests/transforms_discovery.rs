//! Transforms and progressive discovery together, as the chain and gateway
//! configs use them: a renamed tool is pinned and found under its new
//! name, a hidden one is neither found nor callable through the proxy, a
//! fixed argument is not in what the search returns, and a tool added
//! later is transformed before it is listed or searched; a mount's
//! `Upstream::tags` tag the tools its upstream adds later too.

mod common;

use std::time::Duration;

use common::http::HttpServer;
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{DynamicTool, Server, ToolSearch, ToolTransform, Upstream};

/// How long any wait lasts before the test fails.
const TIMEOUT: Duration = Duration::from_secs(10);

async fn within<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(TIMEOUT, future)
        .await
        .expect("no answer within 10 s")
}

/// `get_sum`: adds `a` and `b` (`b` defaulting to 0), as text.
fn get_sum() -> DynamicTool {
    DynamicTool::new(
        "get_sum",
        "Returns the sum of two numbers.",
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "number", "description": "First number"},
                "b": {"type": "number", "description": "Second number"}
            },
            "required": ["a", "b"]
        }),
        |arguments, _| async move {
            let sum = arguments["a"].as_f64().unwrap_or(f64::NAN)
                + arguments["b"].as_f64().unwrap_or(f64::NAN);
            sum.to_string()
        },
    )
}

/// `name`: echoes its `message`.
fn echo(name: &str) -> DynamicTool {
    DynamicTool::new(
        name,
        "Echoes back the input string.",
        json!({
            "type": "object",
            "properties": {"message": {"type": "string"}},
            "required": ["message"]
        }),
        |arguments, _| async move { format!("Echo: {}", arguments["message"].as_str().unwrap_or("?")) },
    )
}

/// A server of `get_sum`, `echo` and `admin_reset`, the first served as
/// `increment` with `b` fixed to 1, the last hidden, with discovery
/// pinning `increment`.
fn server() -> Server {
    let reset = DynamicTool::new(
        "admin_reset",
        "Resets the secret admin state.",
        json!({"type": "object"}),
        |_, _| async { "reset" },
    );
    Server::new("transformed", "1.0.0")
        .tool(get_sum())
        .tool(echo("echo"))
        .tool(reset)
        .transform(
            ToolTransform::new("get_sum")
                .rename("increment")
                .description("Adds one to a number.")
                .rename_arg("a", "number")
                .fix_arg("b", json!(1)),
        )
        .transform(ToolTransform::new("admin_reset").hide())
        .tool_search(ToolSearch::new().pin(["increment", "get_sum"]))
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect()
}

/// The tools `search_tools` finds for `query`.
async fn search(client: &mut TestClient, query: &str) -> Vec<Value> {
    let found = within(client.call_tool("search_tools", json!({"query": query})))
        .await
        .unwrap();
    assert_ne!(found["isError"], true, "{found}");
    found["structuredContent"]["tools"]
        .as_array()
        .unwrap()
        .clone()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_renamed_tool_is_pinned_and_found_under_its_new_name() {
    let mut client = within(TestClient::connect(server())).await.unwrap();
    // `get_sum` is pinned too, but nothing is served under that name.
    let listed = within(client.list_tools()).await.unwrap();
    assert_eq!(names(&listed), ["call_tool", "increment", "search_tools"]);

    let found = search(&mut client, "sum of numbers").await;
    assert_eq!(names(&found)[0], "increment");
    let schema = &found[0]["inputSchema"];
    assert_eq!(
        schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["number"],
        "the fixed `b` is not shown: {schema}"
    );
    assert_eq!(schema["required"], json!(["number"]));
    assert_eq!(found[0]["description"], "Adds one to a number.");
    assert!(
        search(&mut client, "get_sum")
            .await
            .iter()
            .all(|tool| tool["name"] != "get_sum")
    );

    // Called by its new name, directly or through the proxy; a `b` sent
    // all the same does not replace the fixed one.
    let direct = within(client.call_tool("increment", json!({"number": 41})))
        .await
        .unwrap();
    assert_eq!(text(&direct), "42", "{direct}");
    let proxied = within(client.call_tool(
        "call_tool",
        json!({"name": "increment", "arguments": {"number": 41, "b": 100}}),
    ))
    .await
    .unwrap();
    // The schema allows other properties: the client's `b` is dropped.
    assert_eq!(
        text(&proxied),
        "42",
        "a client overrode a fixed argument: {proxied}"
    );
    let old = within(client.call_tool(
        "call_tool",
        json!({"name": "get_sum", "arguments": {"a": 1, "b": 2}}),
    ))
    .await
    .unwrap();
    assert_eq!(old["isError"], true, "the old name is not served: {old}");
}

#[tokio::test]
async fn a_hidden_tool_is_neither_found_nor_callable_through_the_proxy() {
    let mut client = within(TestClient::connect(server())).await.unwrap();
    let found = search(&mut client, "secret admin reset").await;
    assert!(
        found.iter().all(|tool| tool["name"] != "admin_reset"),
        "{found:?}"
    );
    let proxied = within(client.call_tool("call_tool", json!({"name": "admin_reset"})))
        .await
        .unwrap();
    assert_eq!(proxied["isError"], true, "{proxied}");
    assert!(
        text(&proxied).contains("Unknown tool: admin_reset"),
        "{proxied}"
    );
    let direct = within(client.call_tool("admin_reset", json!({}))).await;
    let error = direct.expect_err("a hidden tool is unknown");
    assert_eq!(error.code, -32602);
    assert_eq!(error.message, "Unknown tool: admin_reset");
}

#[tokio::test]
async fn a_tool_added_later_is_transformed_pinned_and_searchable() {
    let mut server = server()
        .transform(
            ToolTransform::new("everything_echo")
                .rename("say")
                .tags(["core"])
                .rename_arg("message", "text")
                .describe_arg("text", "What to repeat.")
                .optional(),
        )
        .tool_search(ToolSearch::new().pin(["increment"]).pin_tags(["core"]));
    let handle = server.handle();
    let mut client = within(TestClient::connect(server)).await.unwrap();
    assert_eq!(
        names(&within(client.list_tools()).await.unwrap()),
        ["call_tool", "increment", "search_tools"]
    );

    handle.add_tool(echo("everything_echo")).unwrap();
    // Pinned by its tag, under its new name: the listed view changed.
    assert!(
        client
            .next_notification("notifications/tools/list_changed", TIMEOUT)
            .await
            .is_some()
    );
    assert_eq!(
        names(&within(client.list_tools()).await.unwrap()),
        ["call_tool", "increment", "say", "search_tools"]
    );
    // Beside the server's own `echo`; never under its original name.
    let found = search(&mut client, "echoes").await;
    assert_eq!(names(&found), ["echo", "say"]);
    let say = &found[1];
    assert_eq!(say["tags"], json!(["core"]));
    assert_eq!(
        say["inputSchema"]["properties"]["text"]["description"],
        "What to repeat."
    );
    let said = within(client.call_tool(
        "call_tool",
        json!({"name": "say", "arguments": {"text": "later"}}),
    ))
    .await
    .unwrap();
    assert_eq!(text(&said), "Echo: later", "{said}");
    assert!(
        within(client.call_tool("everything_echo", json!({"message": "x"})))
            .await
            .is_err()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstreams_tags_reach_the_tools_it_adds_later() {
    let mut upstream = Server::new("up", "1.0.0").tool(echo("first"));
    let handle = upstream.handle();
    let upstream = HttpServer::start(upstream);
    let front = Server::new("front", "1.0.0")
        .transform(ToolTransform::new("up_late").rename("late").optional())
        .tool_search(ToolSearch::new().pin_tags(["demo"]));
    let mounted = Upstream::http(format!("http://{}/mcp", upstream.addr)).tags(["demo"]);
    let front = within(front.mount("up", mounted)).await.unwrap();
    let mut client = within(TestClient::connect(front)).await.unwrap();
    assert_eq!(
        names(&within(client.list_tools()).await.unwrap()),
        ["call_tool", "search_tools", "up_first"]
    );

    handle.add_tool(echo("late")).unwrap();
    assert!(
        client
            .next_notification("notifications/tools/list_changed", TIMEOUT)
            .await
            .is_some()
    );
    assert_eq!(
        names(&within(client.list_tools()).await.unwrap()),
        ["call_tool", "late", "search_tools", "up_first"]
    );
    let tagged = within(client.call_tool("search_tools", json!({"query": "", "tags": ["demo"]})))
        .await
        .unwrap();
    let found = tagged["structuredContent"]["tools"].as_array().unwrap();
    assert_eq!(names(found), ["late", "up_first"]);
    assert!(
        found.iter().all(|tool| tool["tags"] == json!(["demo"])),
        "{found:?}"
    );
}
