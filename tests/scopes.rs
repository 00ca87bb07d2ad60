//! Scopes declared on tools, resources, resource templates and prompts:
//! `scopes = [..]` on the attributes and `.scopes(..)` on the dynamic
//! builders reach the served entries' `scopes()` (which HTTP authorization
//! reads), never appear in what clients are sent, and an invalid scope on a
//! dynamic entry stops the server at start-up with a sentence naming it.
//! Without authorization nothing is enforced: every entry still answers.

use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{
    DynamicPrompt, DynamicResource, DynamicTool, GetPromptResult, PromptMessage, RegistryError,
    ResourceContents, Server, ServerHandle, prompt, resource, tool,
};

/// Reads the forecast for a city.
#[tool(read_only, scopes = ["weather:read", "weather:forecast"])]
async fn forecast(city: String) -> String {
    format!("sunny in {city}")
}

/// Needs no scope.
#[tool]
async fn ping() -> String {
    "pong".into()
}

/// The server's settings.
#[resource("config://app", scopes = ["config:read"])]
async fn settings() -> String {
    "dark".into()
}

/// One city's conditions.
#[resource("weather://cities/{name}", scopes = ["weather:read"])]
async fn city(name: String) -> String {
    format!("{name}: 21 C")
}

/// Plans a trip.
#[prompt(scopes = ["trips:plan"])]
async fn plan_trip(city: String) -> String {
    format!("Plan a trip to {city}.")
}

fn dynamic_tool(name: &str) -> DynamicTool {
    DynamicTool::new(
        name,
        "Repeats its text.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        |arguments, _ctx| async move { arguments["text"].as_str().unwrap_or_default().to_owned() },
    )
}

fn dynamic_resource(uri: &str) -> DynamicResource {
    DynamicResource::new(uri, "notes", |uri, _vars, _ctx| async move {
        Ok(vec![ResourceContents::Text {
            uri,
            mime_type: None,
            text: "a note".into(),
            meta: None,
        }])
    })
}

fn dynamic_prompt(name: &str) -> DynamicPrompt {
    DynamicPrompt::new(name, |_args, _ctx| async move {
        Ok(GetPromptResult::new(vec![PromptMessage::user("Hello.")]))
    })
}

/// The attributes' entries, and one dynamic entry of each kind with scopes.
fn server() -> Server {
    Server::new("scopes-test", "1.0.0")
        .tool(dynamic_tool("echo").scopes(["echo:use", "https://example.com/scopes/echo"]))
        .resource(dynamic_resource("notes://today").scopes(vec![String::from("notes:read")]))
        .resource(dynamic_resource("notes://days/{day}").scopes(["notes:read", "notes:history"]))
        .prompt(dynamic_prompt("greet").scopes(["greeting:use"]))
}

fn resource<'a>(resources: &'a [std::sync::Arc<mcp_runtime::Resource>], uri: &str) -> &'a [String] {
    resources
        .iter()
        .find(|r| r.uri() == uri)
        .unwrap_or_else(|| panic!("no resource {uri}"))
        .scopes()
}

#[test]
fn served_entries_report_the_scopes_they_declare() {
    let registry = server().registry().expect("the server starts");
    let tool = |name: &str| registry.get(name).expect(name).scopes().to_vec();
    assert_eq!(tool("forecast"), ["weather:read", "weather:forecast"]);
    assert!(tool("ping").is_empty());
    assert_eq!(
        tool("echo"),
        ["echo:use", "https://example.com/scopes/echo"]
    );

    assert_eq!(
        resource(registry.resources(), "config://app"),
        ["config:read"]
    );
    assert_eq!(
        resource(registry.resources(), "notes://today"),
        ["notes:read"]
    );
    assert_eq!(
        resource(registry.resource_templates(), "weather://cities/{name}"),
        ["weather:read"]
    );
    assert_eq!(
        resource(registry.resource_templates(), "notes://days/{day}"),
        ["notes:read", "notes:history"]
    );

    let prompt = |name: &str| registry.prompt(name).expect(name).scopes().to_vec();
    assert_eq!(prompt("plan_trip"), ["trips:plan"]);
    assert_eq!(prompt("greet"), ["greeting:use"]);
}

#[test]
fn scopes_given_twice_replace_the_first_list() {
    let server = Server::new("t", "1").tool(dynamic_tool("echo").scopes(["a"]).scopes(["b", "c"]));
    let registry = server.registry().expect("the server starts");
    assert_eq!(registry.get("echo").unwrap().scopes(), ["b", "c"]);
}

/// Every scope `server()` declares.
const DECLARED: &[&str] = &[
    "weather:read",
    "weather:forecast",
    "echo:use",
    "https://example.com/scopes/echo",
    "config:read",
    "notes:read",
    "notes:history",
    "trips:plan",
    "greeting:use",
];

/// No key of any entry (at any depth) names scopes, and no declared scope
/// shows anywhere.
fn assert_no_scopes_in(list: &[Value]) {
    fn keys(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, value) in map {
                    out.push(key.clone());
                    keys(value, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|item| keys(item, out)),
            _ => {}
        }
    }
    assert!(!list.is_empty());
    for entry in list {
        let mut names = Vec::new();
        keys(entry, &mut names);
        assert!(
            !names.iter().any(|key| key.to_lowercase().contains("scope")),
            "a scopes key in {entry}"
        );
        let text = entry.to_string();
        for scope in DECLARED {
            assert!(!text.contains(scope), "{scope} shows in {text}");
        }
    }
}

#[tokio::test]
async fn listings_do_not_show_scopes_and_nothing_is_enforced_without_auth() {
    for version in ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] {
        let mut client = TestClient::connect_with_version(server(), version)
            .await
            .expect("the server starts");
        assert_no_scopes_in(&client.list_tools().await.unwrap());
        assert_no_scopes_in(&client.list_resources().await.unwrap());
        assert_no_scopes_in(&client.list_resource_templates().await.unwrap());
        assert_no_scopes_in(&client.list_prompts().await.unwrap());

        let called = client
            .call_tool("forecast", json!({"city": "Paris"}))
            .await
            .unwrap();
        assert_eq!(called["isError"], json!(false), "{called}");
        assert_eq!(called["content"][0]["text"], "sunny in Paris");
        let echoed = client
            .call_tool("echo", json!({"text": "hi"}))
            .await
            .unwrap();
        assert_eq!(echoed["content"][0]["text"], "hi", "{echoed}");
        let read = client.read_resource("weather://cities/Oslo").await.unwrap();
        assert_eq!(read["contents"][0]["text"], "Oslo: 21 C");
        let read = client.read_resource("notes://days/monday").await.unwrap();
        assert_eq!(read["contents"][0]["text"], "a note");
        let got = client
            .get_prompt("plan_trip", json!({"city": "Rome"}))
            .await
            .unwrap();
        assert_eq!(
            got["messages"][0]["content"]["text"],
            "Plan a trip to Rome."
        );
    }
}

/// The reason each invalid list of scopes is refused with.
const INVALID: &[(&[&str], &str)] = &[
    (
        &["weather:read weather:write"],
        "its scope \"weather:read weather:write\" is invalid: ' ' is not allowed; a scope is \
         printable ASCII without spaces, `\"` or `\\` (RFC 6749, section 3.3); give several \
         scopes as separate items",
    ),
    (
        &["say\"hi"],
        "its scope \"say\\\"hi\" is invalid: '\"' is not allowed;",
    ),
    (
        &["back\\slash"],
        "its scope \"back\\\\slash\" is invalid: '\\\\' is not allowed;",
    ),
    (
        &["météo"],
        "its scope \"météo\" is invalid: 'é' is not allowed;",
    ),
    (
        &["a", ""],
        "one of its scopes is empty; a scope has at least one character",
    ),
    (&["a", "b", "a"], "its scope \"a\" is listed twice"),
];

fn assert_refused(error: &RegistryError, entry: &str, reason: &str) {
    let text = error.to_string();
    let expected_start =
        format!("cannot start the MCP server: {entry} (defined at tests/scopes.rs:");
    assert!(text.starts_with(&expected_start), "{text}");
    assert!(
        text.contains(&format!(") cannot be served: {reason}")),
        "expected {reason:?} in {text}"
    );
}

#[tokio::test]
async fn an_invalid_dynamic_scope_stops_the_server_naming_the_entry() {
    for (scopes, reason) in INVALID {
        let tool =
            || Server::new("t", "1").tool(dynamic_tool("echo").scopes(scopes.iter().copied()));
        let error = tool().registry().expect_err("an invalid scope is refused");
        assert_refused(&error, "the tool `echo`", reason);
        let error = TestClient::start(tool())
            .err()
            .expect("the server does not start");
        assert_refused(&error, "the tool `echo`", reason);
        let error = tool().into_router().expect_err("no router is built");
        assert_refused(&error, "the tool `echo`", reason);

        for uri in ["notes://today", "notes://days/{day}"] {
            let server = Server::new("t", "1")
                .resource(dynamic_resource(uri).scopes(scopes.iter().copied()));
            let error = server.registry().expect_err("an invalid scope is refused");
            assert_refused(&error, &format!("the resource `{uri}`"), reason);
        }

        let server =
            Server::new("t", "1").prompt(dynamic_prompt("greet").scopes(scopes.iter().copied()));
        let error = TestClient::start(server)
            .err()
            .expect("the server does not start");
        assert_refused(&error, "the prompt `greet`", reason);
    }
}

#[tokio::test]
async fn serving_over_http_with_an_invalid_scope_fails_at_once() {
    let server = Server::new("t", "1").tool(dynamic_tool("echo").scopes(["a b"]));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let served = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        server.serve_http_with(listener, std::future::pending()),
    )
    .await
    .expect("serving fails at once rather than running");
    let error = served.expect_err("the server does not start");
    let error = error
        .get_ref()
        .and_then(|e| e.downcast_ref::<RegistryError>())
        .expect("the io::Error wraps the RegistryError");
    assert_refused(error, "the tool `echo`", "its scope \"a b\" is invalid");
}

#[tokio::test]
async fn a_handle_refuses_an_entry_with_an_invalid_scope_and_takes_a_valid_one() {
    let mut server = Server::new("t", "1");
    let handle: ServerHandle = server.handle();
    let mut client = TestClient::connect(server)
        .await
        .expect("the server starts");

    let error = handle
        .add_tool(dynamic_tool("late").scopes(["late", "late"]))
        .expect_err("a duplicate scope is refused");
    assert_refused(
        &error,
        "the tool `late`",
        "its scope \"late\" is listed twice",
    );
    let error = handle
        .add_resource(dynamic_resource("late://{x}").scopes([""]))
        .expect_err("an empty scope is refused");
    assert_refused(
        &error,
        "the resource `late://{x}`",
        "one of its scopes is empty",
    );
    let error = handle
        .add_prompt(dynamic_prompt("late").scopes(["a\\b"]))
        .expect_err("a backslash is refused");
    assert_refused(
        &error,
        "the prompt `late`",
        "its scope \"a\\\\b\" is invalid",
    );
    let names: Vec<Value> = client
        .list_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert!(!names.contains(&json!("late")), "{names:?}");

    handle
        .add_tool(dynamic_tool("late").scopes(["late:use"]))
        .expect("a valid scope is taken");
    let called = client
        .call_tool("late", json!({"text": "on time"}))
        .await
        .unwrap();
    assert_eq!(called["content"][0]["text"], "on time", "{called}");
}
