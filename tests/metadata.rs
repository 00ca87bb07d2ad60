//! Icons, `_meta` and task support on tools, and the 2025-11-25
//! `serverInfo` fields, each sent only to the protocol versions that define
//! them; the links of tools to their views (MCP Apps), the extension's
//! capability, and the start-up errors of bad links.

use std::time::Duration;

use mcp_runtime::apps::{EXTENSION, ViewMeta, Visibility};
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{
    DynamicResource, DynamicTool, Icon, RegistryError, ResourceContents, Server, TaskSupport, tool,
};

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

const VIEW: &str = "ui://weather/forecast";
const TASKS: &str = "io.modelcontextprotocol/tasks";

#[track_caller]
fn sunny(name: &str) -> DynamicTool {
    DynamicTool::new(
        name,
        "Shows the forecast.",
        json!({"type": "object"}),
        |_arguments, _ctx| async move { "sunny".to_owned() },
    )
}

#[track_caller]
fn view(uri: &str) -> DynamicResource {
    DynamicResource::new(uri, "forecast_view", |uri, _, _| async move {
        Ok(vec![ResourceContents::text(
            uri,
            "<!doctype html><p>chart</p>",
        )])
    })
}

/// A tool with a view and `_meta` of its own, an app-only tool, and the
/// view; this binary's `#[tool]`s too (two of which run as tasks).
fn apps_server() -> Server {
    Server::new("apps-test", "1.0.0")
        .tool(
            sunny("forecast")
                .ui(VIEW)
                .meta(json!({"example.com/tier": "free"})),
        )
        .tool(sunny("switch_day").ui(VIEW).visibility([Visibility::App]))
        .resource(view(VIEW).view(ViewMeta::new()))
}

/// The tools and the capabilities `version` is given; a 2026-07-28 client
/// reads the capabilities with `server/discover`.
async fn listed(server: Server, version: &str) -> (Vec<Value>, Value) {
    let mut client = TestClient::start(server).expect("the server starts");
    if version == "2026-07-28" {
        let params = json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientInfo": {"name": "metadata-test", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }});
        let discover = client.request("server/discover", params.clone());
        let discovered = tokio::time::timeout(Duration::from_secs(60), discover)
            .await
            .expect("server/discover answers within a minute")
            .expect("server/discover answers");
        let tools = tokio::time::timeout(
            Duration::from_secs(60),
            client.request("tools/list", params),
        )
        .await
        .expect("tools/list answers within a minute")
        .expect("tools/list answers");
        let tools = tools["tools"].as_array().expect("a tools array").clone();
        return (tools, discovered["capabilities"].clone());
    }
    let init = client
        .initialize(version)
        .await
        .expect("initialize answers");
    let tools = client.list_tools().await.expect("tools/list answers");
    (tools, init["capabilities"].clone())
}

#[tokio::test]
async fn a_tool_with_a_view_lists_both_keys_beside_its_meta_from_2025_06_18() {
    for version in ["2025-06-18", "2025-11-25", "2026-07-28"] {
        let (tools, _) = listed(apps_server(), version).await;
        assert_eq!(
            tool(&tools, "forecast")["_meta"],
            json!({
                "example.com/tier": "free",
                "ui": {"resourceUri": VIEW},
                "ui/resourceUri": VIEW
            }),
            "{version}"
        );
        assert_eq!(
            tool(&tools, "switch_day")["_meta"],
            json!({
                "ui": {"resourceUri": VIEW, "visibility": ["app"]},
                "ui/resourceUri": VIEW
            }),
            "{version}"
        );
    }
    // Before 2025-06-18 a tool has no `_meta`, so no link either.
    for version in ["2025-03-26", "2024-11-05"] {
        let (tools, _) = listed(apps_server(), version).await;
        for name in ["forecast", "switch_day"] {
            let entry = tool(&tools, name);
            assert!(entry.get("_meta").is_none(), "{version}: {entry}");
        }
    }
}

#[tokio::test]
async fn the_extension_is_declared_from_2025_06_18_in_both_eras_beside_tasks() {
    let without_tasks = || apps_server().exclude_tools(["report", "train"]);
    for (version, with_tasks, without) in [
        (
            "2026-07-28",
            json!({TASKS: {}, EXTENSION: {}}),
            json!({EXTENSION: {}}),
        ),
        // The legacy era has the `tasks` capability, not the extension.
        ("2025-11-25", json!({EXTENSION: {}}), json!({EXTENSION: {}})),
        ("2025-06-18", json!({EXTENSION: {}}), json!({EXTENSION: {}})),
    ] {
        let (_, capabilities) = listed(apps_server(), version).await;
        assert_eq!(capabilities["extensions"], with_tasks, "{version}");
        let (_, capabilities) = listed(without_tasks(), version).await;
        assert_eq!(capabilities["extensions"], without, "{version}");
    }
    for version in ["2025-03-26", "2024-11-05"] {
        let (_, capabilities) = listed(apps_server(), version).await;
        assert!(
            capabilities.get("extensions").is_none(),
            "{version}: {capabilities}"
        );
    }
    // No view, no extension: only tasks, in the 2026-07-28 era.
    let (_, capabilities) = listed(Server::new("plain", "1"), "2026-07-28").await;
    assert_eq!(capabilities["extensions"], json!({TASKS: {}}));
    let (_, capabilities) = listed(Server::new("plain", "1"), "2025-11-25").await;
    assert!(capabilities.get("extensions").is_none(), "{capabilities}");
}

/// The sentence a server that serves `server` stops with.
fn refused(server: Server) -> String {
    let error = server.registry().expect_err("the server is refused");
    assert_eq!(format!("{error:?}"), error.to_string());
    error.to_string()
}

#[test]
fn a_tool_whose_view_is_not_served_stops_the_server_with_a_sentence() {
    let line = line!() + 2;
    let server = Server::new("t", "1")
        .tool(sunny("forecast").ui("ui://weather/forcast"))
        .resource(view(VIEW).view(ViewMeta::new()))
        .resource(view("ui://weather/map").view(ViewMeta::new()))
        // A template never counts, even one that matches.
        .resource(view("ui://weather/{name}"));
    let error = server.registry().expect_err("the server is refused");
    assert!(
        matches!(&error, RegistryError::MissingView { tool, uri, .. }
            if tool == "forecast" && uri == "ui://weather/forcast"),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "cannot start the MCP server: the tool `forecast` (defined at tests/metadata.rs:\
             {line}) shows the view \"ui://weather/forcast\", but no resource serves that URI: \
             add #[resource(\"ui://weather/forcast\", view)] (or a DynamicResource with \
             `.view(..)`), or correct the URI (resources with ui:// URIs: \
             \"ui://weather/forecast\", \"ui://weather/map\")"
        )
    );

    let text = refused(Server::new("t", "1").tool(sunny("forecast").ui(VIEW)));
    assert!(
        text.ends_with("or correct the URI (no resource with a ui:// URI is served)"),
        "{text}"
    );

    // Served, but not as a view.
    let error = Server::new("t", "1")
        .resource(view(VIEW).mime_type("text/html"))
        .tool(sunny("forecast").ui(VIEW))
        .registry()
        .expect_err("the server is refused");
    assert!(
        matches!(&error, RegistryError::NotAView { tool, mime_type: Some(html), .. }
            if tool == "forecast" && html == "text/html"),
        "{error:?}"
    );
    assert!(
        error.to_string().ends_with(
            "shows the view \"ui://weather/forecast\", but the resource \
             \"ui://weather/forecast\" is served as \"text/html\", not as a view \
             (\"text/html;profile=mcp-app\"); add `view` to its #[resource] attribute (or call \
             `.view(..)` on its DynamicResource)"
        ),
        "{error}"
    );
    let text = refused(
        Server::new("t", "1")
            .resource(view(VIEW))
            .tool(sunny("forecast").ui(VIEW)),
    );
    assert!(
        text.contains("is served with no MIME type, not as a view"),
        "{text}"
    );
    // A resource served with the view MIME type counts, `view` or not.
    let typed = view(VIEW).mime_type("text/html;profile=mcp-app");
    let served = Server::new("t", "1")
        .resource(typed)
        .tool(sunny("forecast").ui(VIEW));
    assert!(served.registry().is_ok());
    // A tool left out by the filter needs no view.
    let left_out = Server::new("t", "1")
        .tool(sunny("forecast").ui(VIEW))
        .exclude_tools(["forecast"]);
    assert!(left_out.registry().is_ok());
}

#[test]
fn bad_links_and_bad_view_metadata_stop_the_server_with_a_sentence() {
    let served = || Server::new("t", "1").resource(view(VIEW).view(ViewMeta::new()));
    let text = refused(
        served().tool(
            sunny("forecast")
                .ui(VIEW)
                .meta(json!({"ui": {"resourceUri": "ui://elsewhere"}})),
        ),
    );
    assert!(
        text.ends_with(
            "cannot be served: its `_meta` has a \"ui\" key of its own, but the tool links the \
             view \"ui://weather/forecast\", from which `_meta.ui` and \
             `_meta[\"ui/resourceUri\"]` are written; remove \"ui\" from its `_meta`"
        ),
        "{text}"
    );
    let text = refused(served().tool(sunny("forecast").ui("https://example.com/forecast")));
    assert!(
        text.ends_with(
            "cannot be served: its view \"https://example.com/forecast\" is not a ui:// URI; a \
             view's URI starts with ui://, such as \"ui://weather/forecast\""
        ),
        "{text}"
    );
    let text = refused(served().tool(sunny("forecast").visibility([Visibility::App])));
    assert!(
        text.ends_with(
            "cannot be served: it has a visibility but links no view; a visibility says who \
             may call a tool with a view: call `.ui(\"ui://..\")` too, or leave \
             `.visibility(..)` out"
        ),
        "{text}"
    );
    let text = refused(served().tool(sunny("forecast").ui(VIEW).visibility([])));
    assert!(
        text.ends_with(
            "cannot be served: its visibility is empty; give `Visibility::Model`, \
             `Visibility::App` or both, or leave `.visibility(..)` out for both"
        ),
        "{text}"
    );

    let line = line!() + 2;
    let text = refused(Server::new("t", "1").resource(
        view(VIEW).view(ViewMeta::new().connect_domains(["https://api.example.com/v1"])),
    ));
    assert_eq!(
        text,
        format!(
            "cannot start the MCP server: the resource `ui://weather/forecast` (defined at \
             tests/metadata.rs:{line}) cannot be served: its view's csp.connectDomains has \
             \"https://api.example.com/v1\", which is not an origin: an origin has no path, \
             query or fragment; write scheme://host or scheme://host:port, with `*.` only as \
             the first label of the host"
        )
    );
    let text = refused(
        Server::new("t", "1").resource(view(VIEW).mime_type("text/html").view(ViewMeta::new())),
    );
    assert!(
        text.ends_with(
            "cannot be served: it is a view, served as \"text/html;profile=mcp-app\", but its \
             MIME type is given as \"text/html\"; leave the MIME type out"
        ),
        "{text}"
    );
}
