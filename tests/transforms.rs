//! Tool transforms (`Server::transform`): tools served renamed,
//! re-described, with arguments renamed or hidden, or not at all, as a
//! client sees them in both eras, and as `Registry::call` and a
//! `ServerHandle` see them.
//!
//! This binary defines three `#[tool]`s: `add`, `list_items` and `secret`.

use std::time::Duration;

use mcp_runtime::testing::{RpcError, TestClient};
use mcp_runtime::{DynamicTool, RegistryError, Server, TaskSupport, ToolTransform, tool};
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";
const ERAS: [&str; 2] = ["2025-11-25", MODERN];

/// A client of `era`: initialized before 2026-07-28, or sending each
/// request's `_meta`.
struct Client {
    client: TestClient,
    era: &'static str,
}

impl Client {
    async fn connect(server: Server, era: &'static str) -> Client {
        let client = if era == MODERN {
            TestClient::start(server).unwrap()
        } else {
            TestClient::connect_with_version(server, era).await.unwrap()
        };
        Client { client, era }
    }

    async fn request(&mut self, method: &str, mut params: Value) -> Result<Value, RpcError> {
        if self.era == MODERN {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientInfo": {"name": "transforms-test", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            });
        }
        let answer = self.client.request(method, params);
        tokio::time::timeout(Duration::from_secs(30), answer)
            .await
            .expect("the server answers within 30 s")
    }

    async fn list_tools(&mut self) -> Vec<Value> {
        let listed = self.request("tools/list", json!({})).await.unwrap();
        assert_eq!(listed.get("nextCursor"), None, "{listed}");
        listed["tools"].as_array().cloned().unwrap_or_default()
    }

    async fn call_tool(&mut self, name: &str, arguments: Value) -> Result<Value, RpcError> {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }
}

/// Adds two numbers.
#[tool(tags = ["math", "read"], read_only)]
async fn add(
    /// The first number.
    a: i64,
    /// The second number.
    b: i64,
) -> i64 {
    a + b
}

const LIST_ITEMS_LINE: u32 = line!() + 2;
/// Lists the items of a page.
#[tool(tags = ["items"])]
async fn list_items(owner: String, page: Option<u32>) -> String {
    format!("{owner}: page {page:?}")
}

/// Never served.
#[tool]
async fn secret() -> String {
    "the secret".to_owned()
}

/// A tool whose schema allows more than its properties, which answers
/// the arguments it received.
fn echo(name: &str) -> DynamicTool {
    DynamicTool::new(
        name,
        "Answers its arguments.",
        json!({
            "type": "object",
            "properties": {
                "message": {"type": "string", "minLength": 1, "x-mcp-header": "Message"},
                "b": {"type": "integer"}
            },
            "required": ["message", "b"]
        }),
        |arguments: Value, _ctx| async move { arguments.to_string() },
    )
    .scopes(["echo:use"])
}

fn server() -> Server {
    Server::new("transforms", "1.0.0")
        .tool(echo("echo"))
        .transform(
            ToolTransform::new("add")
                .rename("increment")
                .title("Increment")
                .description("Adds one to a number.")
                .tags(["core"])
                .rename_arg("a", "number")
                .describe_arg("number", "The number to increment.")
                .fix_arg("b", json!(1)),
        )
        .transform(ToolTransform::new("list_items").hide_arg("page"))
        .transform(ToolTransform::new("secret").hide())
        .transform(
            ToolTransform::new("echo")
                .rename("say")
                .rename_arg("message", "text"),
        )
        .transform(ToolTransform::new("echo").fix_arg("b", json!(7)))
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn clients_see_the_transformed_tools_in_both_eras() {
    for era in ERAS {
        let mut client = Client::connect(server(), era).await;
        let tools = client.list_tools().await;
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, ["increment", "list_items", "say"], "{era}");

        let increment = &tools[0];
        assert_eq!(increment["description"], "Adds one to a number.");
        assert_eq!(increment["annotations"]["readOnlyHint"], true, "{era}");
        assert_eq!(increment["title"], "Increment", "{era}");
        let input = &increment["inputSchema"];
        assert_eq!(input["required"], json!(["number"]), "{era}");
        let properties: Vec<&String> = input["properties"].as_object().unwrap().keys().collect();
        assert_eq!(properties, ["number"], "{era}");
        assert_eq!(
            input["properties"]["number"]["description"],
            "The number to increment."
        );
        assert_eq!(input["additionalProperties"], false);
        // The output schema is the tool's own: an integer, wrapped under
        // `result` before 2026-07-28.
        let output = &increment["outputSchema"];
        if era == "2026-07-28" {
            assert_eq!(output["type"], "integer", "{output}");
        } else {
            assert_eq!(
                output["properties"]["result"]["type"], "integer",
                "{output}"
            );
        }

        let list_items = &tools[1];
        assert_eq!(list_items["description"], "Lists the items of a page.");
        assert_eq!(
            list_items["inputSchema"]["properties"],
            json!({"owner": {"type": "string"}})
        );

        let say = &tools[2];
        assert_eq!(
            say["inputSchema"],
            json!({
                "type": "object",
                "properties": {
                    "text": {"type": "string", "minLength": 1, "x-mcp-header": "Message"}
                },
                "required": ["text"]
            }),
            "{era}"
        );
    }
}

#[tokio::test]
async fn calls_with_the_new_names_reach_the_tool_with_its_own() {
    for era in ERAS {
        let mut client = Client::connect(server(), era).await;
        let result = client
            .call_tool("increment", json!({"number": 41}))
            .await
            .unwrap();
        assert_ne!(result["isError"], true, "{result}");
        let expected = if era == "2026-07-28" {
            json!(42)
        } else {
            json!({"result": 42})
        };
        assert_eq!(result["structuredContent"], expected, "{era}");

        let result = client
            .call_tool("list_items", json!({"owner": "ann"}))
            .await
            .unwrap();
        assert_eq!(text(&result), "ann: page None");

        // The fixed `b` is sent; a client's `b` or `message` is not.
        let result = client
            .call_tool(
                "say",
                json!({"text": "hi", "b": 99, "message": "not this one"}),
            )
            .await
            .unwrap();
        let received: Value = serde_json::from_str(text(&result)).unwrap();
        assert_eq!(received, json!({"message": "hi", "b": 7}), "{era}");
    }
}

#[tokio::test]
async fn a_hidden_argument_cannot_be_sent_where_the_schema_is_closed() {
    let mut client = Client::connect(server(), MODERN).await;
    let result = client
        .call_tool("increment", json!({"number": 1, "b": 100}))
        .await
        .unwrap();
    assert_eq!(result["isError"], true);
    assert_eq!(
        text(&result),
        "Invalid arguments for tool `increment`:\n- unknown argument `b` (valid arguments: \
         `number`)\nCorrect the arguments and call the tool again."
    );
    let result = client
        .call_tool("list_items", json!({"owner": "ann", "page": 2}))
        .await
        .unwrap();
    assert!(
        text(&result).contains("unknown argument `page` (valid arguments: `owner`)"),
        "{result}"
    );
}

#[tokio::test]
async fn validation_messages_name_the_arguments_as_the_client_sees_them() {
    for era in ERAS {
        let mut client = Client::connect(server(), era).await;
        let result = client.call_tool("increment", json!({})).await.unwrap();
        assert_eq!(
            text(&result),
            "Invalid arguments for tool `increment`:\n- `/number`: missing required argument \
             `number`\nCorrect the arguments and call the tool again.",
            "{era}"
        );
        let result = client.call_tool("say", json!({"text": ""})).await.unwrap();
        assert!(
            text(&result).starts_with("Invalid arguments for tool `say`:\n- `/text`: "),
            "{result}"
        );
    }
}

#[tokio::test]
async fn hidden_and_renamed_away_tools_are_unknown() {
    for era in ERAS {
        let mut client = Client::connect(server(), era).await;
        for name in ["secret", "add", "echo"] {
            let error = client.call_tool(name, json!({})).await.unwrap_err();
            assert_eq!(error.code, -32602, "{name} in {era}");
            assert!(error.message.contains("Unknown tool"), "{}", error.message);
        }
    }
}

#[tokio::test]
async fn registry_call_and_the_served_tools_agree() {
    let registry = server().registry().unwrap();
    let result = registry
        .call("increment", json!({"number": 1}))
        .await
        .unwrap();
    assert_eq!(result.structured_content, Some(json!({"result": 2})));
    assert!(registry.get("add").is_none());
    assert!(registry.get("secret").is_none());
    // Tags: a transform's replace the tool's; others keep their own.
    assert_eq!(registry.get("increment").unwrap().tags(), ["core"]);
    assert_eq!(registry.get("list_items").unwrap().tags(), ["items"]);
    // Scopes and output stay the tool's own.
    assert_eq!(registry.get("say").unwrap().scopes(), ["echo:use"]);
    assert!(registry.get("increment").unwrap().output_schema().is_some());
}

#[test]
fn attribute_tags_are_served() {
    let registry = Server::new("tags", "1").registry().unwrap();
    assert_eq!(registry.get("add").unwrap().tags(), ["math", "read"]);
    assert_eq!(registry.get("list_items").unwrap().tags(), ["items"]);
    assert!(registry.get("secret").unwrap().tags().is_empty());
}

#[test]
fn a_rename_onto_a_served_name_names_both_places() {
    let transform_line = line!() + 1;
    let server = Server::new("t", "1").transform(ToolTransform::new("add").rename("list_items"));
    let error = server.registry().unwrap_err();
    assert!(
        matches!(&error, RegistryError::DuplicateName { name, .. } if name == "list_items"),
        "{error}"
    );
    let text = error.to_string();
    for line in [transform_line, LIST_ITEMS_LINE] {
        assert!(
            text.contains(&format!("tests/transforms.rs:{line}")),
            "{line}: {text}"
        );
    }
}

#[test]
fn transforms_that_cannot_apply_are_refused_at_start_up() {
    let line = line!() + 2;
    let server =
        Server::new("t", "1").transform(ToolTransform::new("add").fix_arg("b", json!("one")));
    let error = server.registry().unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot start the MCP server: the transform of the tool `add` given at \
             tests/transforms.rs:{line} cannot apply: it fixes the argument `b` to \"one\", \
             which its schema refuses (\"one\" is not of type \"integer\"); give a value the \
             argument accepts"
        )
    );

    let server =
        Server::new("t", "1").transform(ToolTransform::new("list_items").hide_arg("owner"));
    let error = server.registry().unwrap_err().to_string();
    assert!(
        error.contains(
            "it hides the argument `owner`, which the tool requires; give it a value \
                        with `.fix_arg(\"owner\", value)` instead"
        ),
        "{error}"
    );

    let server = Server::new("t", "1").transform(ToolTransform::new("add").rename_arg("c", "d"));
    let error = server.registry().unwrap_err().to_string();
    assert!(
        error.contains(
            "it names the argument `c`, but the tool has no such argument; use one of `a`, `b`"
        ),
        "{error}"
    );

    let server = Server::new("t", "1")
        .transform(ToolTransform::new("add").rename("sum"))
        .transform(ToolTransform::new("add").rename("total"));
    let error = server.registry().unwrap_err().to_string();
    assert!(error.contains("renames it to `sum` already"), "{error}");

    let server = Server::new("t", "1").transform(ToolTransform::new("add").rename("a sum"));
    let error = server.registry().unwrap_err().to_string();
    assert!(error.contains("which is not a tool name"), "{error}");
}

#[test]
fn a_transform_of_no_tool_is_refused_unless_optional() {
    let line = line!() + 1;
    let server = Server::new("t", "1").transform(ToolTransform::new("ad").rename("x"));
    let error = server.registry().unwrap_err();
    assert!(
        matches!(&error, RegistryError::UnknownTransformName { name, .. } if name == "ad"),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "cannot start the MCP server: the transform given at tests/transforms.rs:{line} \
             names the tool `ad`, but no tool has that name; correct the name, or mark the \
             transform `.optional()` if the tool is added later (the tools: add, list_items, \
             secret)"
        )
    );
    let server = Server::new("t", "1").transform(ToolTransform::new("ad").rename("x").optional());
    assert_eq!(server.registry().unwrap().len(), 3);
}

#[tokio::test]
async fn tools_added_later_are_transformed_and_removed_by_their_own_name() {
    for era in ERAS {
        let mut server = Server::new("later", "1")
            .exclude_tools(["add", "list_items", "secret"])
            .transform(
                ToolTransform::new("echo")
                    .rename("say")
                    .rename_arg("message", "text")
                    .fix_arg("b", json!(3))
                    .optional(),
            )
            .transform(ToolTransform::new("hidden_echo").hide().optional());
        let handle = server.handle();
        let mut client = Client::connect(server, era).await;
        assert!(client.list_tools().await.is_empty());

        handle.add_tool(echo("echo")).unwrap();
        handle.add_tool(echo("hidden_echo")).unwrap();
        let tools = client.list_tools().await;
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, ["say"], "{era}");
        let result = client
            .call_tool("say", json!({"text": "later"}))
            .await
            .unwrap();
        let received: Value = serde_json::from_str(text(&result)).unwrap();
        assert_eq!(received, json!({"message": "later", "b": 3}));
        assert!(client.call_tool("hidden_echo", json!({})).await.is_err());

        // Removed by the name it was added under.
        assert!(!handle.remove_tool("hidden_echo"));
        assert!(handle.remove_tool("echo"));
        assert!(client.list_tools().await.is_empty(), "{era}");
        assert!(!handle.remove_tool("echo"));
    }
}

#[tokio::test]
async fn a_tool_added_later_under_a_renamed_tools_new_name_is_refused() {
    let mut server = Server::new("later", "1")
        .exclude_tools(["list_items", "secret"])
        .transform(ToolTransform::new("add").rename("increment"));
    let handle = server.handle();
    let _client = TestClient::connect(server).await.unwrap();
    let error = handle.add_tool(echo("increment")).unwrap_err();
    assert!(
        matches!(&error, RegistryError::DuplicateName { name, .. } if name == "increment"),
        "{error}"
    );
}

#[tokio::test]
async fn a_renamed_tool_runs_as_a_task_as_the_tool_would() {
    let server = Server::new("tasks", "1")
        .exclude_tools(["add", "list_items", "secret"])
        .tool(echo("echo").task(TaskSupport::Optional))
        .transform(
            ToolTransform::new("echo")
                .rename("say")
                .rename_arg("message", "text")
                .fix_arg("b", json!(4)),
        );
    let mut client = Client::connect(server, "2025-11-25").await;
    let tools = client.list_tools().await;
    assert_eq!(tools[0]["name"], "say");
    assert_eq!(tools[0]["execution"]["taskSupport"], "optional");
    let created = client
        .request(
            "tools/call",
            json!({"name": "say", "arguments": {"text": "later"}, "task": {}}),
        )
        .await
        .unwrap();
    let id = created["task"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let result = client
        .request("tasks/result", json!({"taskId": id}))
        .await
        .unwrap();
    let received: Value = serde_json::from_str(text(&result)).unwrap();
    assert_eq!(received, json!({"message": "later", "b": 4}));
}
