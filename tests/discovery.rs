//! Progressive discovery (`Server::tool_search`): what `tools/list` shows
//! in every protocol version, what `search_tools` answers (the same
//! entries a plain server lists), `call_tool` calling any tool as
//! `tools/call` would (validation, scopes, layers), and `list_changed`
//! sent only when the listed view changes.

use std::time::Duration;

use mcp_runtime::auth::Identity;
use mcp_runtime::middleware::{McpError, McpRequest, McpService};
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::{RpcError, TestClient};
use mcp_runtime::{CallToolResult, DynamicTool, RegistryError, Server, TaskSupport, ToolSearch};
use tower::ServiceExt;

/// How long any wait lasts before the test fails.
const TIMEOUT: Duration = Duration::from_secs(10);

const LEGACY: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];
const MODERN: &str = "2026-07-28";

/// A tool that answers `ok`, with an object schema of `properties`.
fn tool(name: &str, description: &str, properties: Value) -> DynamicTool {
    DynamicTool::new(
        name,
        description,
        json!({"type": "object", "properties": properties}),
        |_, _| async { "ok" },
    )
}

/// The tools of a small GitHub-like server.
fn catalog() -> Vec<DynamicTool> {
    let create = DynamicTool::new(
        "issues_create",
        "Opens an issue in a repository.",
        json!({
            "type": "object",
            "properties": {
                "title": {"type": "string", "description": "The issue's title."},
                "body": {"type": "string"}
            },
            "required": ["title"],
            "additionalProperties": false
        }),
        |arguments, _| async move {
            CallToolResult::structured(json!({"number": 7, "title": arguments["title"]}))
        },
    )
    .title("Create an issue")
    .output_schema(json!({
        "type": "object",
        "properties": {"number": {"type": "integer"}, "title": {"type": "string"}}
    }))
    .tags(["issues"]);
    vec![
        tool("get_me", "Who the token belongs to.", json!({})).read_only(true),
        create,
        tool(
            "pulls_list",
            "Lists the pull requests of a repository.",
            json!({}),
        )
        .tags(["pulls"])
        .read_only(true),
        tool(
            "repo_delete",
            "Deletes a repository.",
            json!({"repo": {"type": "string"}}),
        )
        .destructive(true)
        .tags(["repos"]),
        tool("admin_audit", "Reads the audit log.", json!({})).scopes(["admin"]),
    ]
}

fn plain() -> Server {
    catalog()
        .into_iter()
        .fold(Server::new("gh", "1.0.0"), Server::tool)
}

fn discovering() -> Server {
    plain().tool_search(ToolSearch::new().pin(["get_me"]))
}

/// `params` with the 2026-07-28 `_meta` added.
fn modern(mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "discovery-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    params
}

async fn within<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(TIMEOUT, future)
        .await
        .expect("no answer within 10 s")
}

/// A client of `version` (a legacy one initializes; 2026-07-28 does not).
async fn connect(server: Server, version: &str) -> TestClient {
    if version == MODERN {
        TestClient::start(server).unwrap()
    } else {
        within(TestClient::connect_with_version(server, version))
            .await
            .unwrap()
    }
}

/// A request of `version`'s shape.
async fn ask(
    client: &mut TestClient,
    version: &str,
    method: &str,
    params: Value,
) -> Result<Value, RpcError> {
    let params = if version == MODERN {
        modern(params)
    } else {
        params
    };
    within(client.request(method, params)).await
}

/// Every tool `tools/list` shows, across pages.
async fn list(client: &mut TestClient, version: &str) -> Vec<Value> {
    let mut tools = Vec::new();
    let mut cursor = Value::Null;
    loop {
        let params = if cursor.is_null() {
            json!({})
        } else {
            json!({"cursor": cursor})
        };
        let page = ask(client, version, "tools/list", params).await.unwrap();
        tools.extend(page["tools"].as_array().unwrap().iter().cloned());
        cursor = page.get("nextCursor").cloned().unwrap_or(Value::Null);
        if cursor.is_null() {
            return tools;
        }
    }
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools.iter().map(|t| t["name"].as_str().unwrap()).collect()
}

async fn call(client: &mut TestClient, version: &str, name: &str, arguments: Value) -> Value {
    let params = json!({"name": name, "arguments": arguments});
    ask(client, version, "tools/call", params).await.unwrap()
}

/// What a search answered, read from its text (every version has it) and
/// checked against `structuredContent` where the version has that.
fn found(result: &Value) -> Value {
    assert_ne!(result["isError"], true, "{result}");
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    if let Some(structured) = result.get("structuredContent") {
        assert_eq!(structured, &text);
    }
    text
}

#[tokio::test]
async fn tools_list_shows_the_pins_and_the_two_tools_in_every_version() {
    for version in LEGACY.into_iter().chain([MODERN]) {
        // Paging pages the listed view, not the catalog.
        let mut client = connect(discovering().page_size(2), version).await;
        let listed = list(&mut client, version).await;
        assert_eq!(
            names(&listed),
            ["call_tool", "get_me", "search_tools"],
            "{version}"
        );
        let search = &listed[2];
        assert_eq!(
            search["inputSchema"]["required"],
            json!(["query"]),
            "{version}"
        );
        assert_eq!(
            search.get("outputSchema").is_some(),
            version != "2025-03-26",
            "{version}: {search}"
        );
    }
}

#[tokio::test]
async fn search_answers_the_entries_a_plain_server_lists() {
    for version in LEGACY.into_iter().chain([MODERN]) {
        let mut plain_client = connect(plain(), version).await;
        let everything = list(&mut plain_client, version).await;
        let entry = |name: &str| {
            everything
                .iter()
                .find(|t| t["name"] == name)
                .unwrap()
                .clone()
        };

        let mut client = connect(discovering(), version).await;
        let result = call(
            &mut client,
            version,
            "search_tools",
            json!({"query": "issue"}),
        )
        .await;
        let answer = found(&result);
        let tools = answer["tools"].as_array().unwrap();
        assert_eq!(names(tools), ["issues_create"], "{version}");
        assert_eq!(answer["total"], 1);
        let mut listed = tools[0].clone();
        assert_eq!(listed["tags"], json!(["issues"]));
        listed.as_object_mut().unwrap().remove("tags");
        assert_eq!(listed, entry("issues_create"), "{version}");
        // The title and output schema come as the version has them.
        assert_eq!(
            listed.get("outputSchema").is_some(),
            version != "2025-03-26",
            "{version}"
        );

        // A tool without tags has no `tags`; several results, best first.
        let result = call(
            &mut client,
            version,
            "search_tools",
            json!({"query": "repository", "limit": 1}),
        )
        .await;
        let answer = found(&result);
        assert_eq!(answer["total"], 3, "{version}: {answer}");
        let tools = answer["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0], {
            let mut e = entry(tools[0]["name"].as_str().unwrap());
            if let Some(tags) = tools[0].get("tags") {
                e["tags"] = tags.clone();
            }
            e
        });
    }
}

#[tokio::test]
async fn search_filters_by_tags_and_never_returns_itself() {
    let mut client = connect(discovering(), "2025-06-18").await;
    let result = call(
        &mut client,
        "2025-06-18",
        "search_tools",
        json!({"query": "", "tags": ["pulls"]}),
    )
    .await;
    assert_eq!(
        names(found(&result)["tools"].as_array().unwrap()),
        ["pulls_list"]
    );
    let result = call(
        &mut client,
        "2025-06-18",
        "search_tools",
        json!({"query": "search call tool"}),
    )
    .await;
    let answer = found(&result);
    for tool in names(answer["tools"].as_array().unwrap()) {
        assert!(!["search_tools", "call_tool"].contains(&tool), "{answer}");
    }
    // Its own arguments are checked: a limit past the most is refused.
    let result = call(
        &mut client,
        "2025-06-18",
        "search_tools",
        json!({"query": "issue", "limit": 500}),
    )
    .await;
    assert_eq!(result["isError"], true, "{result}");
}

#[tokio::test]
async fn an_unlisted_tool_is_callable_directly_and_through_the_proxy() {
    for version in LEGACY.into_iter().chain([MODERN]) {
        let mut client = connect(discovering(), version).await;
        let arguments = json!({"title": "Broken"});
        let direct = call(&mut client, version, "issues_create", arguments.clone()).await;
        let proxied = call(
            &mut client,
            version,
            "call_tool",
            json!({"name": "issues_create", "arguments": arguments}),
        )
        .await;
        assert_ne!(direct["isError"], true, "{version}: {direct}");
        // The same result, shaped for the version (structured from 2025-06-18).
        assert_eq!(direct["content"], proxied["content"], "{version}");
        assert_eq!(
            direct.get("structuredContent"),
            proxied.get("structuredContent"),
            "{version}"
        );

        // Validation is the tool's own, with the same message.
        let bad = json!({"title": 3});
        let direct = call(&mut client, version, "issues_create", bad.clone()).await;
        let proxied = call(
            &mut client,
            version,
            "call_tool",
            json!({"name": "issues_create", "arguments": bad}),
        )
        .await;
        assert_eq!(direct["isError"], true, "{version}: {direct}");
        assert_eq!(proxied["isError"], true, "{version}: {proxied}");
        assert_eq!(direct["content"], proxied["content"], "{version}");
    }
}

#[tokio::test]
async fn the_proxy_refuses_unknown_tools_itself_and_the_search() {
    let version = "2025-11-25";
    let mut client = connect(discovering(), version).await;
    let text = |result: &Value| result["content"][0]["text"].as_str().unwrap().to_owned();
    let unknown = call(&mut client, version, "call_tool", json!({"name": "nope"})).await;
    assert_eq!(unknown["isError"], true);
    assert!(text(&unknown).contains("Unknown tool: nope"), "{unknown}");
    assert!(text(&unknown).contains("search_tools"), "{unknown}");
    for own in ["call_tool", "search_tools"] {
        let refused = call(&mut client, version, "call_tool", json!({"name": own})).await;
        assert_eq!(refused["isError"], true, "{refused}");
        assert!(text(&refused).contains("directly"), "{refused}");
    }
    // Arguments default to none.
    let me = call(&mut client, version, "call_tool", json!({"name": "get_me"})).await;
    assert_eq!(text(&me), "ok");
}

#[tokio::test]
async fn a_proxied_tool_sees_its_own_name() {
    let named = DynamicTool::new(
        "named",
        "Says its name.",
        json!({"type": "object"}),
        |_, ctx| async move { ctx.tool_name().to_owned() },
    );
    let mut client = connect(discovering().tool(named), "2025-06-18").await;
    let called = call(
        &mut client,
        "2025-06-18",
        "call_tool",
        json!({"name": "named"}),
    )
    .await;
    assert_eq!(called["content"][0]["text"], "named");
}

#[tokio::test]
async fn the_proxy_refuses_a_tool_that_runs_only_as_a_task() {
    let server = || {
        let export = tool("export", "Exports everything.", json!({})).task(TaskSupport::Required);
        discovering().tool(export)
    };
    let version = "2025-11-25";
    let mut client = connect(server(), version).await;
    let refused = call(&mut client, version, "call_tool", json!({"name": "export"})).await;
    assert_eq!(refused["isError"], true, "{refused}");
    let text = refused["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("only as a task"), "{text}");
    // A client that knows no tasks calls it plainly, as tools/call would.
    let version = "2025-06-18";
    let mut client = connect(server(), version).await;
    let called = call(&mut client, version, "call_tool", json!({"name": "export"})).await;
    assert_eq!(called["content"][0]["text"], "ok", "{called}");
}

#[tokio::test]
async fn the_2026_07_28_list_carries_the_cache_hint_private_when_filtered() {
    let mut client = connect(discovering(), MODERN).await;
    let page = ask(&mut client, MODERN, "tools/list", json!({}))
        .await
        .unwrap();
    assert_eq!(page["resultType"], "complete");
    assert!(page["ttlMs"].is_u64(), "{page}");
    assert_eq!(page["cacheScope"], "public");
    let searched = call(&mut client, MODERN, "search_tools", json!({"query": "x"})).await;
    assert!(searched.get("ttlMs").is_none(), "{searched}");

    let reader = Identity::new("reader");
    let server = discovering().list_only_permitted();
    let mut client = TestClient::start_as(server, reader).unwrap();
    let page = ask(&mut client, MODERN, "tools/list", json!({}))
        .await
        .unwrap();
    assert_eq!(page["cacheScope"], "private", "{page}");
    assert_eq!(
        names(page["tools"].as_array().unwrap()),
        ["call_tool", "get_me", "search_tools"]
    );
    // The search finds only what the caller's scopes grant; the proxy
    // refuses the rest.
    let result = call(
        &mut client,
        MODERN,
        "search_tools",
        json!({"query": "audit"}),
    )
    .await;
    assert_eq!(found(&result)["total"], 0);
    let refused = call(
        &mut client,
        MODERN,
        "call_tool",
        json!({"name": "admin_audit"}),
    )
    .await;
    assert_eq!(refused["isError"], true, "{refused}");

    let admin = Identity::new("root").with_scopes(["admin"]);
    let server = discovering().list_only_permitted();
    let mut client = TestClient::start_as(server, admin).unwrap();
    let result = call(
        &mut client,
        MODERN,
        "search_tools",
        json!({"query": "audit"}),
    )
    .await;
    assert_eq!(
        names(found(&result)["tools"].as_array().unwrap()),
        ["admin_audit"]
    );
    let called = call(
        &mut client,
        MODERN,
        "call_tool",
        json!({"name": "admin_audit"}),
    )
    .await;
    assert_eq!(called["content"][0]["text"], "ok", "{called}");
}

#[tokio::test]
async fn only_a_change_to_the_listed_view_is_announced() {
    let mut server = plain().tool_search(
        ToolSearch::new()
            .pin(["get_me", "later_pinned"])
            .pin_tags(["core"]),
    );
    let handle = server.handle();
    let mut client = connect(server, "2025-06-18").await;
    let changed = "notifications/tools/list_changed";
    let quiet = Duration::from_millis(300);

    handle
        .add_tool(tool("branches_list", "Lists the branches.", json!({})))
        .unwrap();
    assert_eq!(client.next_notification(changed, quiet).await, None);
    // The search finds it all the same, and it is callable.
    let result = call(
        &mut client,
        "2025-06-18",
        "search_tools",
        json!({"query": "branch"}),
    )
    .await;
    assert_eq!(
        names(found(&result)["tools"].as_array().unwrap()),
        ["branches_list"]
    );
    assert!(handle.remove_tool("branches_list"));
    assert_eq!(client.next_notification(changed, quiet).await, None);

    handle
        .add_tool(tool("later_pinned", "Pinned by name.", json!({})))
        .unwrap();
    assert!(client.next_notification(changed, TIMEOUT).await.is_some());
    handle
        .add_tool(tool("tagged", "Pinned by tag.", json!({})).tags(["core"]))
        .unwrap();
    assert!(client.next_notification(changed, TIMEOUT).await.is_some());
    assert_eq!(
        names(&list(&mut client, "2025-06-18").await),
        [
            "call_tool",
            "get_me",
            "later_pinned",
            "search_tools",
            "tagged"
        ]
    );
    assert!(handle.remove_tool("later_pinned"));
    assert!(client.next_notification(changed, TIMEOUT).await.is_some());
}

#[tokio::test]
async fn a_small_catalog_is_listed_whole_until_it_crosses_the_threshold() {
    let mut server = plain().tool_search(ToolSearch::new().threshold(6));
    let handle = server.handle();
    let mut client = connect(server, "2025-11-25").await;
    let changed = "notifications/tools/list_changed";
    assert_eq!(
        names(&list(&mut client, "2025-11-25").await),
        [
            "admin_audit",
            "get_me",
            "issues_create",
            "pulls_list",
            "repo_delete"
        ]
    );
    handle.add_tool(tool("sixth", "Six.", json!({}))).unwrap();
    assert!(client.next_notification(changed, TIMEOUT).await.is_some());
    assert_eq!(list(&mut client, "2025-11-25").await.len(), 6);
    handle
        .add_tool(tool("seventh", "Seven.", json!({})))
        .unwrap();
    assert!(client.next_notification(changed, TIMEOUT).await.is_some());
    assert_eq!(
        names(&list(&mut client, "2025-11-25").await),
        ["call_tool", "search_tools"]
    );
}

/// Refuses `tools/call` of destructive tools to callers without `admin`.
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
async fn a_layer_sees_the_proxied_tool_and_refuses_it() {
    let server = discovering().layer(tower::layer::layer_fn(admin_for_destructive));
    let mut client = connect(server, "2025-06-18").await;
    for (name, arguments) in [
        ("repo_delete", json!({"repo": "x"})),
        (
            "call_tool",
            json!({"name": "repo_delete", "arguments": {"repo": "x"}}),
        ),
    ] {
        let params = json!({"name": name, "arguments": arguments});
        let refused = within(client.request("tools/call", params)).await;
        assert_eq!(
            refused.unwrap_err().message,
            "this tool needs the `admin` scope",
            "{name}"
        );
    }
    let fine = call(
        &mut client,
        "2025-06-18",
        "call_tool",
        json!({"name": "get_me"}),
    )
    .await;
    assert_eq!(fine["content"][0]["text"], "ok");
}

#[tokio::test]
async fn a_served_tool_with_a_synthetic_name_stops_the_server() {
    let server = discovering().tool(tool("search_tools", "Mine.", json!({})));
    let Err(error) = TestClient::start(server) else {
        panic!("a second search_tools was served");
    };
    assert!(
        matches!(&error, RegistryError::DuplicateName { name, .. } if name == "search_tools"),
        "{error}"
    );
    // Renamed, both are served.
    let server = discovering()
        .tool(tool("search_tools", "Mine.", json!({})))
        .tool_search(ToolSearch::new().name("find_tools").call_proxy(false));
    let mut client = connect(server, "2025-06-18").await;
    assert_eq!(
        names(&list(&mut client, "2025-06-18").await),
        ["find_tools"]
    );
}

#[tokio::test]
async fn the_instructions_say_the_list_is_partial_unless_told_not_to() {
    let server = discovering().instructions("GitHub, as tools.");
    let mut client = TestClient::start(server).unwrap();
    let init = within(client.initialize("2025-06-18")).await.unwrap();
    let text = init["instructions"].as_str().unwrap();
    assert!(text.starts_with("GitHub, as tools.\n\n"), "{text}");
    assert!(
        text.contains("`search_tools`") && text.contains("`call_tool`"),
        "{text}"
    );

    let server = plain().tool_search(ToolSearch::new().instructions(false));
    let mut client = TestClient::start(server).unwrap();
    let init = within(client.initialize("2025-06-18")).await.unwrap();
    assert!(init.get("instructions").is_none(), "{init}");
}

#[tokio::test]
async fn registry_call_searches_and_proxies_in_process() {
    let registry = discovering().registry().unwrap();
    let found = registry
        .call("search_tools", json!({"query": "pull"}))
        .await
        .unwrap();
    let tools = found.structured_content.unwrap()["tools"].clone();
    assert_eq!(names(tools.as_array().unwrap()), ["pulls_list"]);
    let called = registry
        .call(
            "call_tool",
            json!({"name": "issues_create", "arguments": {"title": "x"}}),
        )
        .await
        .unwrap();
    assert_eq!(called.structured_content.unwrap()["number"], 7);
    let invalid = registry
        .call(
            "call_tool",
            json!({"name": "issues_create", "arguments": {}}),
        )
        .await
        .unwrap();
    assert!(invalid.is_error, "{invalid:?}");
    let unknown = registry
        .call("call_tool", json!({"name": "nope"}))
        .await
        .unwrap();
    assert!(unknown.text().contains("Unknown tool: nope"), "{unknown:?}");
    let own = registry
        .call("call_tool", json!({"name": "call_tool"}))
        .await
        .unwrap();
    assert!(own.is_error);
    let bad = registry
        .call("search_tools", json!({"limit": 3}))
        .await
        .unwrap();
    assert!(bad.is_error, "the query is required: {bad:?}");
}
