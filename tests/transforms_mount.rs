//! Tool transforms on mounted tools: the mount's collision check sees the
//! names tools are served under, a tool the upstream adds later gets its
//! transform (and loses it with the tool), and the reference server
//! `@modelcontextprotocol/server-everything` (tests/upstreams/install, run
//! on first use) is served with a tool renamed and an argument fixed.

mod common;

use common::http::HttpServer;
use common::step::{STEP, within};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{DynamicTool, MountError, Server, ServerHandle, ToolTransform, Upstream};
use serde_json::{Value, json};

/// A tool that answers the arguments it received, as JSON text, defined
/// where this is called.
#[track_caller]
fn echo(name: &str) -> DynamicTool {
    DynamicTool::new(
        name,
        "Answers its arguments.",
        json!({
            "type": "object",
            "properties": {"message": {"type": "string"}, "b": {"type": "integer"}},
            "required": ["message"]
        }),
        |arguments: Value, _ctx| async move { arguments.to_string() },
    )
}

/// An upstream serving `first` and `second`, and its handle.
fn upstream() -> (HttpServer, ServerHandle) {
    let mut server = Server::new("up", "1.0.0")
        .tool(echo("first"))
        .tool(echo("second"));
    let handle = server.handle();
    (HttpServer::start(server), handle)
}

fn mounted(upstream: &HttpServer) -> Upstream {
    Upstream::http(format!("http://{}/mcp", upstream.addr))
}

fn names(list: &[Value]) -> Vec<&str> {
    list.iter().filter_map(|t| t["name"].as_str()).collect()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hidden_local_tool_does_not_block_a_mount() {
    let (up, _handle) = upstream();
    // Hidden by name: the local tool and the mounted one alike.
    let front = Server::new("front", "1.0.0")
        .tool(echo("up_first"))
        .tool(echo("local"))
        .transform(ToolTransform::new("up_first").hide());
    let front = within(front.mount("up", mounted(&up))).await.unwrap();
    let mut client = within(TestClient::connect(front)).await.unwrap();
    let tools = within(client.list_tools()).await.unwrap();
    assert_eq!(names(&tools), ["local", "up_second"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mounted_tool_renamed_onto_a_local_name_refuses_the_mount() {
    let (up, _handle) = upstream();
    let line = line!() + 2;
    let front = Server::new("front", "1.0.0")
        .tool(echo("say"))
        .transform(ToolTransform::new("up_first").rename("say"));
    let error = within(front.mount("up", mounted(&up))).await.unwrap_err();
    let MountError::Collision { key, .. } = &error else {
        panic!("{error}");
    };
    assert_eq!(key, "up_first");
    let sentence = error.to_string();
    assert!(
        sentence.contains(&format!(
            "the tool added at tests/transforms_mount.rs:{line}"
        )),
        "{sentence}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_the_upstream_adds_later_is_transformed_and_removed_with_it() {
    let (up, handle) = upstream();
    let front = Server::new("front", "1.0.0").transform(
        ToolTransform::new("up_late")
            .rename("late")
            .rename_arg("message", "text")
            .fix_arg("b", json!(2))
            .optional(),
    );
    let front = within(front.mount("up", mounted(&up))).await.unwrap();
    let mut client = within(TestClient::connect(front)).await.unwrap();

    handle.add_tool(echo("late")).unwrap();
    within(client.next_notification("notifications/tools/list_changed", STEP))
        .await
        .expect("the front announces the upstream's change");
    let tools = within(client.list_tools()).await.unwrap();
    assert_eq!(names(&tools), ["late", "up_first", "up_second"]);
    let late = &tools[0];
    assert_eq!(
        late["inputSchema"]["properties"],
        json!({"text": {"type": "string"}})
    );
    // The upstream receives its own names, and the fixed value.
    let result = within(client.call_tool("late", json!({"text": "hi", "b": 9})))
        .await
        .unwrap();
    let received: Value = serde_json::from_str(text(&result)).unwrap();
    assert_eq!(received, json!({"message": "hi", "b": 2}));

    assert!(handle.remove_tool("late"));
    within(client.next_notification("notifications/tools/list_changed", STEP))
        .await
        .expect("announced");
    let tools = within(client.list_tools()).await.unwrap();
    assert_eq!(names(&tools), ["up_first", "up_second"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_server_everything_served_transformed() {
    let (node, args) = common::upstreams::everything();
    let front = Server::new("front", "1.0.0")
        .transform(
            ToolTransform::new("everything_echo")
                .rename("say")
                .description("Repeats the text.")
                .rename_arg("message", "text"),
        )
        .transform(ToolTransform::new("everything_get-sum").fix_arg("b", json!(1)));
    let front = within(front.mount("everything", Upstream::command(&node, &args)))
        .await
        .unwrap();
    let mut client = within(TestClient::connect(front)).await.unwrap();
    let tools = within(client.list_tools()).await.unwrap();
    let listed = names(&tools);
    assert!(listed.contains(&"say"), "{listed:?}");
    assert!(!listed.contains(&"everything_echo"), "{listed:?}");
    let say = tools.iter().find(|t| t["name"] == "say").unwrap();
    assert_eq!(say["description"], "Repeats the text.");
    let properties = say["inputSchema"]["properties"].as_object().unwrap();
    assert!(properties.contains_key("text"), "{say}");
    assert!(!properties.contains_key("message"), "{say}");
    let sum = tools
        .iter()
        .find(|t| t["name"] == "everything_get-sum")
        .unwrap();
    let properties = sum["inputSchema"]["properties"].as_object().unwrap();
    assert!(!properties.contains_key("b"), "{sum}");

    // The upstream is called with its own names.
    let echoed = within(client.call_tool("say", json!({"text": "hello there"})))
        .await
        .unwrap();
    assert!(text(&echoed).contains("hello there"), "{echoed}");
    let added = within(client.call_tool("everything_get-sum", json!({"a": 41})))
        .await
        .unwrap();
    assert_eq!(text(&added), "The sum of 41 and 1 is 42.", "{added}");
    // A client's `b` does not reach it.
    let added = within(client.call_tool("everything_get-sum", json!({"a": 41, "b": 100})))
        .await
        .unwrap();
    assert_eq!(text(&added), "The sum of 41 and 1 is 42.", "{added}");
}
