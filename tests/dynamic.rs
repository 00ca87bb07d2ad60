//! Tools defined at run time with `DynamicTool` and added with `Server::tool`,
//! served next to the `#[tool]` functions.
//!
//! This binary defines one static tool, `lookup`, and does not name
//! `second-crate` (see `an_unnamed_crate_is_not_linked`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::{
    CallError, CallToolResult, Content, DynamicTool, Hints, RegistryError, Server, tool,
};
use serde_json::{Value, json};

const LOOKUP_LINE: u32 = line!() + 2;
/// Look a word up.
#[tool(read_only)]
async fn lookup(word: String) -> String {
    format!("{word}: a word")
}

fn echo_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "text": {"type": "string", "minLength": 1, "description": "What to repeat."},
            "times": {"type": "integer", "minimum": 1, "maximum": 3}
        },
        "required": ["text"]
    })
}

/// An echo tool that counts how often its closure ran.
fn echo(runs: Arc<AtomicUsize>) -> DynamicTool {
    DynamicTool::new(
        "echo",
        "Repeats the text it is given.",
        echo_schema(),
        move |arguments: Value, _ctx| {
            let runs = Arc::clone(&runs);
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                let text = arguments["text"].as_str().unwrap_or_default();
                let times = arguments["times"].as_u64().unwrap_or(1) as usize;
                text.repeat(times)
            }
        },
    )
}

fn names(server: &Server) -> Vec<String> {
    server
        .registry()
        .unwrap()
        .tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect()
}

#[test]
fn a_dynamic_tool_is_listed_with_its_schema_sorted_among_static_ones() {
    let runs = Arc::new(AtomicUsize::new(0));
    let server = Server::new("dynamic", "0.0.0")
        .tool(echo(Arc::clone(&runs)))
        .tool(DynamicTool::new(
            "zzz",
            "Sleeps.",
            json!({"type": "object"}),
            |_, _| async {},
        ));
    assert_eq!(names(&server), ["echo", "lookup", "zzz"]);

    let registry = server.registry().unwrap();
    let echo = registry.get("echo").unwrap();
    // The hand-written schema is served as given: not made stricter.
    assert_eq!(
        echo.to_json(),
        json!({
            "name": "echo",
            "description": "Repeats the text it is given.",
            "inputSchema": echo_schema()
        })
    );
    assert_eq!(echo.title(), None);
    assert_eq!(echo.hints(), Hints::default());
    assert_eq!(echo.annotations(), None);
    assert_eq!(echo.timeout(), None);
    assert_eq!(echo.output_schema(), None);
    assert_eq!(echo.location().file, file!());
    assert_eq!(runs.load(Ordering::SeqCst), 0, "listing runs nothing");
}

#[tokio::test]
async fn arguments_are_validated_before_the_closure_runs() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = Server::new("dynamic", "0.0.0")
        .tool(echo(Arc::clone(&runs)))
        .registry()
        .unwrap();

    let result = registry
        .call("echo", json!({"text": "", "times": 9}))
        .await
        .unwrap();
    assert_eq!(
        result,
        CallToolResult::error(
            "Invalid arguments for tool `echo`:\n\
             - `/text`: \"\" is shorter than 1 character\n\
             - `/times`: 9 is greater than the maximum of 3\n\
             Correct the arguments and call the tool again."
        )
    );
    let result = registry.call("echo", json!({})).await.unwrap();
    assert_eq!(
        result.text(),
        "Invalid arguments for tool `echo`:\n\
         - `/text`: missing required argument `text`\n\
         Correct the arguments and call the tool again."
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0);

    let result = registry
        .call("echo", json!({"text": "ab", "times": 3}))
        .await
        .unwrap();
    assert_eq!(
        result,
        CallToolResult::success(vec![Content::text("ababab")])
    );
    // The schema does not close the object, so extra arguments pass through.
    let result = registry
        .call("echo", json!({"text": "x", "extra": true}))
        .await
        .unwrap();
    assert_eq!(result.text(), "x");
    assert_eq!(runs.load(Ordering::SeqCst), 2);

    assert_eq!(
        registry.call("echo", json!("x")).await.unwrap_err(),
        CallError::ArgumentsNotAnObject
    );
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn title_hints_and_timeout() {
    let tool = DynamicTool::new(
        "wait",
        "Waits for a long time.",
        json!({"type": "object"}),
        |_, _| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            "done"
        },
    )
    .title("Wait")
    .read_only(true)
    .destructive(false)
    .idempotent(true)
    .open_world(false)
    .timeout(Duration::from_millis(40));
    let registry = Server::new("dynamic", "0.0.0")
        .tool(tool)
        .registry()
        .unwrap();
    let wait = registry.get("wait").unwrap();
    assert_eq!(wait.title(), Some("Wait"));
    assert_eq!(
        wait.hints(),
        Hints {
            read_only: Some(true),
            destructive: Some(false),
            idempotent: Some(true),
            open_world: Some(false),
        }
    );
    assert_eq!(wait.timeout(), Some(Duration::from_millis(40)));
    assert_eq!(
        wait.to_json(),
        json!({
            "name": "wait",
            "title": "Wait",
            "description": "Waits for a long time.",
            "inputSchema": {"type": "object"},
            "annotations": {
                "title": "Wait",
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": false
            }
        })
    );

    let started = std::time::Instant::now();
    let result = registry.call("wait", json!({})).await.unwrap();
    assert_eq!(result, CallToolResult::error("timed out after 40ms"));
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn closures_return_any_result_form_and_get_the_context() {
    let server = Server::new("dynamic", "0.0.0")
        .state(String::from("shared"))
        .tool(DynamicTool::new(
            "divide",
            "Divides a by b.",
            json!({
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"]
            }),
            |arguments: Value, _| async move {
                let (a, b) = (arguments["a"].as_f64(), arguments["b"].as_f64());
                match (a, b) {
                    (Some(_), Some(0.0)) => Err("division by zero"),
                    (Some(a), Some(b)) => Ok((a / b).to_string()),
                    _ => unreachable!("validated"),
                }
            },
        ))
        .tool(DynamicTool::new(
            "whoami",
            "Says which tool runs, with which state.",
            json!({"type": "object"}),
            |_, ctx: mcp_runtime::Context| async move {
                let state = ctx.state::<String>().map(|s| (*s).clone());
                format!("{} {state:?}", ctx.tool_name())
            },
        ))
        .tool(DynamicTool::new(
            "boom",
            "Panics.",
            json!({"type": "object"}),
            |_, _| async {
                if true {
                    panic!("private detail");
                }
                "unreachable"
            },
        ));
    let registry = server.registry().unwrap();
    assert_eq!(
        registry
            .call("divide", json!({"a": 1, "b": 4}))
            .await
            .unwrap()
            .text(),
        "0.25"
    );
    assert_eq!(
        registry
            .call("divide", json!({"a": 1, "b": 0}))
            .await
            .unwrap(),
        CallToolResult::error("division by zero")
    );
    assert_eq!(
        registry.call("whoami", json!(null)).await.unwrap().text(),
        r#"whoami Some("shared")"#
    );
    let boom = registry.call("boom", json!({})).await.unwrap();
    assert_eq!(
        boom,
        CallToolResult::error("the tool `boom` failed with an internal error")
    );
}

#[tokio::test]
async fn a_declared_output_schema_is_listed_and_the_result_passed_through() {
    let schema = json!({
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"]
    });
    let registry = Server::new("dynamic", "0.0.0")
        .tool(
            DynamicTool::new(
                "count",
                "Counts.",
                json!({"type": "object"}),
                |_, _| async { CallToolResult::structured(json!({"n": 3})) },
            )
            .output_schema(schema.clone()),
        )
        .registry()
        .unwrap();
    let count = registry.get("count").unwrap();
    assert_eq!(count.output_schema(), schema.as_object());
    assert_eq!(count.to_json()["outputSchema"], schema);
    let result = registry.call("count", json!({})).await.unwrap();
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({
            "content": [{"type": "text", "text": r#"{"n":3}"#}],
            "structuredContent": {"n": 3},
            "isError": false
        })
    );
}

#[test]
fn an_invalid_name_is_refused_with_where_it_was_defined() {
    let line = line!() + 1;
    let tool = DynamicTool::new(
        "has space",
        "Bad.",
        json!({"type": "object"}),
        |_, _| async {},
    );
    let error = Server::new("dynamic", "0.0.0")
        .tool(tool)
        .registry()
        .unwrap_err();
    let RegistryError::InvalidName {
        name,
        location,
        reason,
    } = &error
    else {
        panic!("expected InvalidName, got {error:?}");
    };
    assert_eq!(name, "has space");
    assert_eq!(location.file, file!());
    assert_eq!(location.line, line);
    assert_eq!(
        reason,
        "' ' is not allowed; use only ASCII letters, digits, `_`, `.` and `-`"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "cannot start the MCP server: the tool name \"has space\" given to \
             `DynamicTool::new` at tests/dynamic.rs:{line} is invalid: ' ' is not allowed; \
             use only ASCII letters, digits, `_`, `.` and `-`"
        )
    );

    for (bad, reason) in [
        ("", "it is empty; use 1 to 64 characters"),
        (&*"x".repeat(65), "it has 65 characters; use at most 64"),
        (
            &*"é".repeat(40),
            "'é' is not allowed; use only ASCII letters, digits, `_`, `.` and `-`",
        ),
        (&*"é".repeat(65), "it has 65 characters; use at most 64"),
        (
            "é",
            "'é' is not allowed; use only ASCII letters, digits, `_`, `.` and `-`",
        ),
        (
            "a/b",
            "'/' is not allowed; use only ASCII letters, digits, `_`, `.` and `-`",
        ),
    ] {
        let error = Server::new("dynamic", "0.0.0")
            .tool(DynamicTool::new(
                bad,
                "Bad.",
                json!({"type": "object"}),
                |_, _| async {},
            ))
            .registry()
            .unwrap_err();
        assert!(
            matches!(&error, RegistryError::InvalidName { name, reason: r, .. }
                if name == bad && r == reason),
            "{bad:?}: {error:?}"
        );
    }
    // The longest valid name and every allowed character.
    let registry = Server::new("dynamic", "0.0.0")
        .tool(DynamicTool::new(
            "x".repeat(64),
            "Ok.",
            json!({"type": "object"}),
            |_, _| async {},
        ))
        .tool(DynamicTool::new(
            "A-z_0.9",
            "Ok.",
            json!({"type": "object"}),
            |_, _| async {},
        ))
        .registry()
        .unwrap();
    assert_eq!(registry.len(), 3);
}

#[test]
fn a_dynamic_tool_cannot_take_a_static_tools_name() {
    let line = line!() + 1;
    let tool = DynamicTool::new(
        "lookup",
        "Again.",
        json!({"type": "object"}),
        |_, _| async {},
    );
    let error = Server::new("dynamic", "0.0.0")
        .tool(tool)
        .registry()
        .unwrap_err();
    let RegistryError::DuplicateName {
        name,
        first,
        second,
    } = &error
    else {
        panic!("expected DuplicateName, got {error:?}");
    };
    assert_eq!(name, "lookup");
    assert_eq!((first.file, first.line), (file!(), LOOKUP_LINE));
    assert_eq!(first.module, "dynamic");
    assert_eq!((second.file, second.line), (file!(), line));
    assert_eq!(
        error.to_string(),
        format!(
            "cannot start the MCP server: two tools are named `lookup`, one defined at \
             tests/dynamic.rs:{LOOKUP_LINE} and the other at tests/dynamic.rs:{line}; rename \
             one of them, for example with `#[tool(name = \"new_name\")]` \
             (`Server::exclude_tools([\"lookup\"])` would leave out both)"
        )
    );
}

#[test]
fn two_dynamic_tools_cannot_share_a_name() {
    let error = Server::new("dynamic", "0.0.0")
        .tool(echo(Arc::default()))
        .tool(echo(Arc::default()))
        .registry()
        .unwrap_err();
    assert!(
        matches!(&error, RegistryError::DuplicateName { name, .. } if name == "echo"),
        "{error:?}"
    );
    // Neither is a `#[tool]`: the fix is in `DynamicTool::new`.
    assert!(
        error.to_string().contains(
            "; rename one of them, with another name in its `DynamicTool::new` \
             (`Server::exclude_tools([\"echo\"])` would leave out both)"
        ),
        "{error}"
    );
}

#[test]
fn filters_apply_to_dynamic_tools() {
    let server = || Server::new("dynamic", "0.0.0").tool(echo(Arc::default()));
    assert_eq!(names(&server().exclude_tools(["echo"])), ["lookup"]);
    assert_eq!(names(&server().include_tools(["echo"])), ["echo"]);
    // Leaving out the static tool makes room for a dynamic one of that name.
    let registry = server().exclude_tools(["lookup"]).registry().unwrap();
    assert_eq!(registry.len(), 1);
    let error = server().include_tools(["ech"]).registry().unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot start the MCP server: `Server::include_tools` or `exclude_tools` names `ech`, \
         but no tool has that name; remove it, or use one of the tools' names: echo, lookup"
    );
}

#[test]
fn unusable_schemas_are_refused() {
    let error = Server::new("dynamic", "0.0.0")
        .tool(DynamicTool::new(
            "s",
            "S.",
            json!({"type": "string"}),
            |_, _| async {},
        ))
        .registry()
        .unwrap_err();
    assert!(
        matches!(&error, RegistryError::InvalidSchema { tool, which: "input", .. } if tool == "s"),
        "{error:?}"
    );
    assert!(
        error.to_string().ends_with(
            "has an unusable input schema: an input schema must have \
                        `\"type\": \"object\"` at its root; fix the schema given to \
                        `DynamicTool::new`"
        ),
        "{error}"
    );

    let error = Server::new("dynamic", "0.0.0")
        .tool(DynamicTool::new("s", "S.", json!([]), |_, _| async {}))
        .registry()
        .unwrap_err();
    assert!(
        matches!(&error, RegistryError::InvalidSchema { which: "input", .. }),
        "{error:?}"
    );

    // Not valid JSON Schema: `minimum` must be a number.
    let error = Server::new("dynamic", "0.0.0")
        .tool(DynamicTool::new(
            "s",
            "S.",
            json!({"type": "object", "properties": {"n": {"minimum": "one"}}}),
            |_, _| async {},
        ))
        .registry()
        .unwrap_err();
    assert!(
        matches!(&error, RegistryError::InvalidSchema { which: "input", .. }),
        "{error:?}"
    );

    // A keyword the validator does not implement is refused, with where
    // it is, rather than left unchecked.
    let error = Server::new("dynamic", "0.0.0")
        .tool(DynamicTool::new(
            "s",
            "S.",
            json!({"type": "object", "properties": {"n": {"contains": {"type": "integer"}}}}),
            |_, _| async {},
        ))
        .registry()
        .unwrap_err();
    assert!(
        matches!(&error, RegistryError::InvalidSchema { which: "input", .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains(
            "has an unusable input schema: the keyword `contains` (at `/properties/n/contains`) \
             is not supported"
        ),
        "{error}"
    );

    // So is an invalid `pattern`.
    let error = Server::new("dynamic", "0.0.0")
        .tool(DynamicTool::new(
            "s",
            "S.",
            json!({"type": "object", "properties": {"n": {"pattern": "(["}}}),
            |_, _| async {},
        ))
        .registry()
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("`/properties/n/pattern`: \"([\" is not a valid regular expression"),
        "{error}"
    );

    let error = Server::new("dynamic", "0.0.0")
        .tool(
            DynamicTool::new("s", "S.", json!({"type": "object"}), |_, _| async {})
                .output_schema(json!({"type": "array"})),
        )
        .registry()
        .unwrap_err();
    assert!(
        matches!(
            &error,
            RegistryError::InvalidSchema {
                which: "output",
                ..
            }
        ),
        "{error:?}"
    );
}

#[test]
fn an_unnamed_crate_is_not_linked() {
    // `second-crate` is a dev-dependency of this package, so it is on this
    // binary's command line, but nothing here names it: it is not linked
    // and its `reverse` tool is not served. tests/collect.rs names it with
    // `use second_crate as _;` and does serve it.
    let registry = Server::new("dynamic", "0.0.0").registry().unwrap();
    assert!(registry.get("reverse").is_none());
    let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    assert_eq!(names, ["lookup"]);
}

#[tokio::test]
async fn a_structured_value_that_is_not_an_object_is_wrapped_for_older_clients() {
    // No output schema says it is an array (a mounted server's or an
    // API's answer): clients before 2026-07-28 need an object, and get
    // it under `result`; 2026-07-28 clients get the value itself.
    let server = || {
        Server::new("dynamic", "0.0.0").tool(DynamicTool::new(
            "primes",
            "Lists primes.",
            json!({"type": "object"}),
            |_, _| async { CallToolResult::structured(json!([2, 3, 5])) },
        ))
    };
    let mut legacy = mcp_runtime::testing::TestClient::connect_with_version(server(), "2025-11-25")
        .await
        .unwrap();
    let answer = legacy.call_tool("primes", json!({})).await.unwrap();
    assert_eq!(answer["structuredContent"], json!({"result": [2, 3, 5]}));
    assert_eq!(answer["content"][0]["text"], "[2,3,5]");

    let mut modern = mcp_runtime::testing::TestClient::start(server()).unwrap();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "dynamic-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let params = json!({"name": "primes", "arguments": {}, "_meta": meta});
    let answer = modern.request("tools/call", params).await.unwrap();
    assert_eq!(answer["structuredContent"], json!([2, 3, 5]), "{answer}");
}
