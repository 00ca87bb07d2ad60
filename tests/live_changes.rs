//! Adding and removing tools, resources and prompts while the server runs,
//! through a `ServerHandle`: each change is served at once and announced.

use std::time::Duration;

use mcp_runtime::apps::ViewMeta;
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{
    DynamicPrompt, DynamicResource, DynamicTool, GetPromptResult, PromptMessage, RegistryError,
    ResourceContents, Server, tool,
};

/// Always there.
#[tool]
async fn resident() -> String {
    "resident".into()
}

fn echo(name: &str) -> DynamicTool {
    DynamicTool::new(
        name,
        "Repeats its text.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        |arguments, _ctx| async move { arguments["text"].as_str().unwrap_or_default().to_owned() },
    )
}

fn motd() -> DynamicResource {
    DynamicResource::new("plugin://motd", "motd", |uri, _vars, _ctx| async move {
        Ok(vec![ResourceContents::text(uri, "hello from the plugin")])
    })
}

fn greet() -> DynamicPrompt {
    DynamicPrompt::new("greet", |args, _ctx| async move {
        let name = args.get("name").unwrap_or("you").to_owned();
        Ok(GetPromptResult::new(vec![PromptMessage::user(format!(
            "Say hello to {name}."
        ))]))
    })
    .argument("name", "Who to greet.", true)
}

/// The next message, which must come within a few seconds.
async fn next(client: &mut TestClient) -> Value {
    tokio::time::timeout(Duration::from_secs(5), client.recv())
        .await
        .expect("a message within 5 s")
        .expect("the server is running")
}

fn names(list: &[Value], key: &str) -> Vec<String> {
    list.iter()
        .map(|entry| entry[key].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn a_handle_declares_every_list_as_changing() {
    let mut server = Server::new("live", "1.0.0");
    let _handle = server.handle();
    let mut client = TestClient::start(server).unwrap();
    let init = client.initialize("2025-11-25").await.unwrap();
    assert_eq!(
        init["capabilities"],
        json!({
            "logging": {},
            "tools": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "prompts": {"listChanged": true},
            "completions": {},
            // A task tool may come too.
            "tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}},
            // And a tool with a view (MCP Apps).
            "extensions": {"io.modelcontextprotocol/ui": {}}
        })
    );
    // Nothing is served yet, but the lists answer (empty), not -32601.
    let resources = client.request("resources/list", json!({})).await.unwrap();
    assert_eq!(resources, json!({"resources": []}));
    let prompts = client.request("prompts/list", json!({})).await.unwrap();
    assert_eq!(prompts, json!({"prompts": []}));
}

#[tokio::test]
async fn tools_added_and_removed_are_served_and_announced() {
    let mut server = Server::new("live", "1.0.0");
    let handle = server.handle();
    let mut client = TestClient::connect(server).await.unwrap();
    assert_eq!(
        names(&client.list_tools().await.unwrap(), "name"),
        ["resident"]
    );

    handle.add_tool(echo("echo")).unwrap();
    assert_eq!(
        next(&mut client).await,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}})
    );
    assert_eq!(
        names(&client.list_tools().await.unwrap(), "name"),
        ["echo", "resident"]
    );
    let result = client
        .call_tool("echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "hi");

    // A second tool of that name is refused, naming both definitions.
    let error = handle.add_tool(echo("echo")).unwrap_err();
    assert!(
        matches!(error, RegistryError::DuplicateName { ref name, .. } if name == "echo"),
        "{error}"
    );
    let text = error.to_string();
    assert_eq!(text.matches("tests/live_changes.rs:").count(), 2, "{text}");

    // A #[tool] can be removed as well as a dynamic one.
    assert!(handle.remove_tool("echo"));
    assert!(handle.remove_tool("resident"));
    for _ in 0..2 {
        assert_eq!(
            next(&mut client).await["method"],
            "notifications/tools/list_changed"
        );
    }
    assert!(client.list_tools().await.unwrap().is_empty());
    let error = client.call_tool("echo", json!({})).await.unwrap_err();
    assert_eq!(
        (error.code, error.message.as_str()),
        (-32602, "Unknown tool: echo")
    );

    // Removing what is not there changes nothing and announces nothing.
    assert!(!handle.remove_tool("echo"));
    client.request("ping", json!({})).await.unwrap();
    assert!(
        tokio::time::timeout(Duration::from_millis(100), client.recv())
            .await
            .is_err(),
        "nothing was announced"
    );
}

#[tokio::test]
async fn resources_and_prompts_added_and_removed_are_served_and_announced() {
    let mut server = Server::new("live", "1.0.0");
    let handle = server.handle();
    let mut client = TestClient::connect(server).await.unwrap();

    handle.add_resource(motd()).unwrap();
    assert_eq!(
        next(&mut client).await["method"],
        "notifications/resources/list_changed"
    );
    let read = client
        .request("resources/read", json!({"uri": "plugin://motd"}))
        .await
        .unwrap();
    assert_eq!(read["contents"][0]["text"], "hello from the plugin");

    handle.add_prompt(greet()).unwrap();
    assert_eq!(
        next(&mut client).await["method"],
        "notifications/prompts/list_changed"
    );
    let got = client
        .request(
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        )
        .await
        .unwrap();
    assert_eq!(got["messages"][0]["content"]["text"], "Say hello to Ada.");

    assert!(handle.remove_resource("plugin://motd"));
    assert_eq!(
        next(&mut client).await["method"],
        "notifications/resources/list_changed"
    );
    let error = client
        .request("resources/read", json!({"uri": "plugin://motd"}))
        .await
        .unwrap_err();
    assert_eq!(error.code, -32002);

    assert!(handle.remove_prompt("greet"));
    assert_eq!(
        next(&mut client).await["method"],
        "notifications/prompts/list_changed"
    );
    let list = client.request("prompts/list", json!({})).await.unwrap();
    assert_eq!(list, json!({"prompts": []}));
}

#[tokio::test]
async fn changes_made_before_the_server_starts_are_applied_when_it_starts() {
    let mut server = Server::new("live", "1.0.0");
    let handle = server.handle();
    handle.add_tool(echo("early")).unwrap();
    assert!(handle.remove_tool("resident"));
    let mut client = TestClient::connect(server).await.unwrap();
    assert_eq!(
        names(&client.list_tools().await.unwrap(), "name"),
        ["early"]
    );
}

#[tokio::test]
async fn a_duplicate_queued_before_start_stops_the_server() {
    let mut server = Server::new("live", "1.0.0");
    let handle = server.handle();
    handle.add_tool(echo("resident")).unwrap();
    let error = TestClient::start(server)
        .err()
        .expect("the server refuses to start");
    assert!(
        matches!(error, RegistryError::DuplicateName { ref name, .. } if name == "resident"),
        "{error}"
    );
}

#[tokio::test]
async fn a_call_in_progress_finishes_after_its_tool_is_removed() {
    let slow = DynamicTool::new(
        "slow",
        "Answers after a moment.",
        json!({"type": "object"}),
        |_arguments, _ctx| async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            "done"
        },
    );
    let mut server = Server::new("live", "1.0.0").tool(slow);
    let handle = server.handle();
    let mut client = TestClient::connect(server).await.unwrap();
    let id = client
        .send_request("tools/call", json!({"name": "slow", "arguments": {}}))
        .await;
    // Once the call has been read (a later ping is answered after it).
    client.request("ping", json!({})).await.unwrap();
    assert!(handle.remove_tool("slow"));
    let result = tokio::time::timeout(Duration::from_secs(5), client.response(id))
        .await
        .expect("the call answers")
        .unwrap();
    assert_eq!(result["content"][0]["text"], "done");
}

#[tokio::test]
async fn a_handle_whose_server_stopped_refuses_additions() {
    let mut server = Server::new("live", "1.0.0");
    let handle = server.handle();
    let client = TestClient::connect(server).await.unwrap();
    client.close().await;
    // The connection held the last reference to what was served.
    let error = handle.add_tool(echo("late")).unwrap_err();
    assert!(matches!(error, RegistryError::Stopped), "{error}");
    assert!(!handle.remove_tool("resident"));
}

fn chart() -> DynamicResource {
    DynamicResource::new(
        "ui://plugin/chart",
        "chart",
        |uri, _vars, _ctx| async move { Ok(vec![ResourceContents::text(uri, "<p>chart</p>")]) },
    )
    .view(ViewMeta::new())
}

#[tokio::test]
async fn a_tool_added_while_running_needs_its_view_served_already() {
    let mut server = Server::new("live", "1.0.0");
    let handle = server.handle();
    // Before the server starts, a tool may come before its view: the
    // changes are checked together when it starts.
    handle
        .add_tool(echo("early").ui("ui://plugin/chart"))
        .unwrap();
    handle.add_resource(chart()).unwrap();
    let mut client = TestClient::connect(server).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let early = tools.iter().find(|t| t["name"] == "early").unwrap();
    assert_eq!(early["_meta"]["ui"]["resourceUri"], "ui://plugin/chart");

    let error = handle
        .add_tool(echo("late").ui("ui://plugin/map"))
        .unwrap_err();
    assert!(
        matches!(&error, RegistryError::MissingView { tool, uri, views, .. }
            if tool == "late" && uri == "ui://plugin/map" && views == &["ui://plugin/chart"]),
        "{error}"
    );
    handle
        .add_tool(echo("later").ui("ui://plugin/chart"))
        .unwrap();
    let names = names(&client.list_tools().await.unwrap(), "name");
    assert_eq!(names, ["early", "later", "resident"]);
}

#[tokio::test]
async fn a_view_missing_when_the_server_starts_stops_it() {
    let mut server = Server::new("live", "1.0.0");
    let handle = server.handle();
    handle
        .add_tool(echo("early").ui("ui://plugin/chart"))
        .unwrap();
    let error = TestClient::start(server)
        .err()
        .expect("the server refuses to start");
    assert!(
        matches!(&error, RegistryError::MissingView { tool, .. } if tool == "early"),
        "{error}"
    );
}
