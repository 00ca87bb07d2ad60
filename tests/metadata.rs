//! Icons, `_meta` and task support on tools, and the 2025-11-25
//! `serverInfo` fields, each sent only to the protocol versions that define
//! them.

use std::time::Duration;

use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{DynamicTool, Icon, Server, TaskSupport, tool};

/// Says hello.
#[tool(
    icons = ["https://example.com/hello.png"],
    meta = r#"{"example.com/tier": "free"}"#
)]
async fn hello() -> String {
    "hello".into()
}

/// Builds a report; a client may run it as a task.
#[tool(task = "optional")]
async fn report(days: u32) -> String {
    format!("{days} days")
}

/// Trains a model; a client must run it as a task.
#[tool(task = "required", read_only)]
async fn train(epochs: u32) -> String {
    format!("{epochs} epochs")
}

/// Says outright that it never runs as a task.
#[tool(task = "forbidden")]
async fn ping() -> &'static str {
    "pong"
}

fn server() -> Server {
    let echo = DynamicTool::new(
        "echo",
        "Repeats its text.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        |arguments, _ctx| async move { arguments["text"].as_str().unwrap_or_default().to_owned() },
    )
    .icon(Icon::new("https://example.com/echo.svg").mime_type("image/svg+xml"))
    .meta(json!({"example.com/source": "plugin"}));
    let batch = DynamicTool::new(
        "batch",
        "Runs a batch.",
        json!({"type": "object"}),
        |_arguments, _ctx| async move { "done".to_owned() },
    )
    .task(TaskSupport::Required);
    Server::new("meta-test", "2.0.0")
        .title("Metadata test")
        .description("Shows icons and _meta.")
        .website_url("https://example.com/meta-test")
        .icon(Icon::new("https://example.com/server.png").sizes(["48x48"]))
        .tool(echo)
        .tool(batch)
}

async fn tools_and_info(version: &str) -> (Vec<Value>, Value) {
    let mut client = TestClient::start(server()).expect("the server starts");
    let init = client
        .initialize(version)
        .await
        .expect("initialize answers");
    assert_eq!(init["protocolVersion"], version);
    let tools = client.list_tools().await.expect("tools/list answers");
    (tools, init["serverInfo"].clone())
}

/// The tools a 2026-07-28 client is listed (no `initialize` in that era).
async fn modern_tools() -> Vec<Value> {
    let mut client = TestClient::start(server()).expect("the server starts");
    let params = json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "metadata-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }});
    let list = tokio::time::timeout(
        Duration::from_secs(60),
        client.request("tools/list", params),
    )
    .await
    .expect("tools/list answers within a minute")
    .expect("tools/list answers");
    list["tools"].as_array().expect("a tools array").clone()
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {tools:?}"))
}

#[tokio::test]
async fn tools_carry_icons_and_meta_where_the_version_defines_them() {
    let (tools, _) = tools_and_info("2025-11-25").await;
    let hello = tool(&tools, "hello");
    assert_eq!(
        hello["icons"],
        json!([{"src": "https://example.com/hello.png"}])
    );
    assert_eq!(hello["_meta"], json!({"example.com/tier": "free"}));
    let echo = tool(&tools, "echo");
    assert_eq!(
        echo["icons"],
        json!([{"src": "https://example.com/echo.svg", "mimeType": "image/svg+xml"}])
    );
    assert_eq!(echo["_meta"], json!({"example.com/source": "plugin"}));

    let (tools, _) = tools_and_info("2025-06-18").await;
    for name in ["hello", "echo"] {
        let entry = tool(&tools, name);
        assert!(entry.get("icons").is_none(), "{entry}");
        assert!(entry.get("_meta").is_some(), "{entry}");
    }

    for version in ["2025-03-26", "2024-11-05"] {
        let (tools, _) = tools_and_info(version).await;
        for name in ["hello", "echo"] {
            let entry = tool(&tools, name);
            assert!(entry.get("icons").is_none(), "{version}: {entry}");
            assert!(entry.get("_meta").is_none(), "{version}: {entry}");
        }
    }
}

#[tokio::test]
async fn only_2025_11_25_clients_are_told_which_tools_run_as_tasks() {
    let (tools, _) = tools_and_info("2025-11-25").await;
    for (name, support) in [
        ("report", "optional"),
        ("train", "required"),
        ("batch", "required"),
    ] {
        let entry = tool(&tools, name);
        assert_eq!(
            entry["execution"],
            json!({"taskSupport": support}),
            "{entry}"
        );
    }
    // Absent means forbidden: a tool that never runs as a task says nothing.
    for name in ["hello", "echo", "ping"] {
        let entry = tool(&tools, name);
        assert!(entry.get("execution").is_none(), "{entry}");
    }
    // The annotations of a task tool are unchanged by it.
    assert_eq!(tool(&tools, "train")["annotations"]["readOnlyHint"], true);

    let mut others = Vec::new();
    for version in ["2025-06-18", "2025-03-26", "2024-11-05"] {
        others.push((version, tools_and_info(version).await.0));
    }
    others.push(("2026-07-28", modern_tools().await));
    for (version, tools) in others {
        for name in ["report", "train", "batch", "hello", "echo", "ping"] {
            let entry = tool(&tools, name);
            assert!(entry.get("execution").is_none(), "{version}: {entry}");
        }
    }
}

#[tokio::test]
async fn server_info_grows_with_the_version() {
    let (_, info) = tools_and_info("2025-11-25").await;
    assert_eq!(
        info,
        json!({
            "name": "meta-test",
            "title": "Metadata test",
            "version": "2.0.0",
            "description": "Shows icons and _meta.",
            "icons": [{"src": "https://example.com/server.png", "sizes": ["48x48"]}],
            "websiteUrl": "https://example.com/meta-test"
        })
    );
    let (_, info) = tools_and_info("2025-06-18").await;
    assert_eq!(
        info,
        json!({"name": "meta-test", "title": "Metadata test", "version": "2.0.0"})
    );
    for version in ["2025-03-26", "2024-11-05"] {
        let (_, info) = tools_and_info(version).await;
        assert_eq!(
            info,
            json!({"name": "meta-test", "version": "2.0.0"}),
            "{version}"
        );
    }
}

#[test]
fn a_dynamic_tool_whose_meta_is_not_an_object_stops_the_server() {
    let bad = DynamicTool::new(
        "bad",
        "Has a bad _meta.",
        json!({"type": "object"}),
        |_arguments, _ctx| async move { String::new() },
    )
    .meta(json!(["not", "an", "object"]));
    let error = Server::new("t", "1")
        .tool(bad)
        .registry()
        .expect_err("a non-object _meta is refused");
    let text = error.to_string();
    assert!(
        text.contains("the tool `bad` (defined at tests/metadata.rs:")
            && text.ends_with(
                "cannot be served: its `_meta` must be a JSON object, not [\"not\",\"an\",\"object\"]"
            ),
        "{text}"
    );
}
