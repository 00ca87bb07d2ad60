//! GitHub's published OpenAPI document (npm `@octokit/openapi` 23.0.2,
//! `generated/api.github.com.json`: OpenAPI 3.0.3, 13 MB, 1,223 operations),
//! installed by tests/openapi/install on first use, imported whole: every
//! operation is either served, with input and output schemas that our
//! validator compiles (the registry builds) and that the Python SDK client
//! and jsonschema accept, or refused with a sentence naming it. Nothing
//! here calls GitHub: the calls go to a Prism mock server serving the same
//! document, on loopback.

mod common;

use std::time::Duration;

use mcp_runtime::Server;
use mcp_runtime::openapi::OpenApi;

use common::openapi;

/// The operations in the document.
const OPERATIONS: usize = 1_223;

/// The operations the import cannot serve, and why: the only two request
/// bodies with no JSON form (GitHub's other 342 bodies are JSON).
const REFUSED: [(&str, &[&str]); 2] = [
    // text/plain or text/x-markdown only.
    ("markdown/render-raw", &["POST /markdown/raw", "text/plain"]),
    // application/octet-stream only, and on another host (uploads.github.com).
    (
        "repos/upload-release-asset",
        &["/releases/{release_id}/assets", "application/octet-stream"],
    ),
];

/// How long the Python client may take: the example reads and converts the
/// document (a debug build), then lists and checks every schema.
const SCRIPT: Duration = Duration::from_secs(300);

fn served(api: OpenApi) -> Result<Vec<String>, String> {
    let registry = Server::new("github", "1.0.0")
        .openapi(api)
        .registry()
        .map_err(|error| error.to_string())?;
    Ok(registry
        .tools()
        .iter()
        .map(|tool| tool.name().to_owned())
        .collect())
}

/// The whole document with `.skip_unsupported()`: all but the two refused
/// operations are served. Without it, start-up fails on each refusal in
/// turn with its sentence; with both left out, the same tools are served.
#[test]
fn githubs_document_is_served_whole_but_for_two_refused_operations() {
    let document = openapi::github_document();

    let mut tools = served(OpenApi::from_file(&document).skip_unsupported())
        .expect("GitHub's document, with .skip_unsupported()");
    assert_eq!(
        tools.len(),
        OPERATIONS - REFUSED.len(),
        "tools served from GitHub's document"
    );
    tools.sort();
    for (name, _) in REFUSED {
        let tool = name.replace('/', "_");
        assert!(tools.binary_search(&tool).is_err(), "{tool} is served");
    }
    for name in ["repos_get", "issues_create", "meta_root", "pulls_list"] {
        assert!(
            tools.binary_search(&name.to_owned()).is_ok(),
            "{name} is not served"
        );
    }

    // Without .skip_unsupported(): each refusal in turn, as a sentence.
    let mut excluded: Vec<&str> = Vec::new();
    for (operation, reasons) in REFUSED {
        let error = served(OpenApi::from_file(&document).exclude_operations(excluded.clone()))
            .expect_err("a refused operation stops start-up");
        assert!(
            error.contains("api.github.com.json") && error.contains(operation),
            "the refusal names neither the document nor {operation}: {error}"
        );
        for reason in reasons {
            assert!(error.contains(reason), "no {reason:?} in: {error}");
        }
        excluded.push(operation);
    }
    let mut without = served(OpenApi::from_file(&document).exclude_operations(excluded))
        .expect("GitHub's document without its two refused operations");
    without.sort();
    assert_eq!(without, tools);
}

/// The openapi example serving the document (`--skip-unsupported`) over
/// stdio, listed by the Python SDK client, which accepts every tool; and
/// jsonschema's `check_schema` accepts every input and output schema.
#[test]
fn the_python_sdk_lists_githubs_tools_and_jsonschema_accepts_every_schema() {
    let document = openapi::github_document();
    let server = common::example_binary("openapi");
    let run = openapi::python_script(
        &[
            "github".into(),
            server.display().to_string(),
            document.display().to_string(),
        ],
        &[],
        SCRIPT,
    );
    assert!(
        run.success,
        "the Python client's checks failed:\n{}\n--- its stderr (and the server's):\n{}",
        run.stdout, run.stderr
    );
    let summary: serde_json::Value = run
        .stdout
        .lines()
        .last()
        .and_then(|line| serde_json::from_str(line).ok())
        .unwrap_or_else(|| panic!("no summary from the script:\n{}", run.stdout));
    assert_eq!(
        summary["tools"],
        OPERATIONS - REFUSED.len(),
        "tools listed: {}",
        run.stdout
    );
    // Most operations answer JSON (the others 204, a redirect, or text).
    let output_schemas = summary["output_schemas"].as_u64().expect("a count");
    assert!(
        output_schemas > 900,
        "only {output_schemas} tools have an output schema"
    );
    // The server logged each refusal (--skip-unsupported).
    for (operation, _) in REFUSED {
        assert!(
            run.stderr.contains(operation),
            "{operation} was not logged:\n{}",
            run.stderr
        );
    }
}

/// A few calls through Prism serving GitHub's document (the example with
/// `--no-output-schemas`, as for an API whose answers may drift from its
/// document): Prism validates each request against the document.
#[test]
fn calls_to_githubs_operations_pass_prisms_validation() {
    let document = openapi::github_document();
    let server = common::example_binary("openapi");
    let prism = openapi::prism(&document);
    let run = openapi::python_script(
        &[
            "github".into(),
            server.display().to_string(),
            document.display().to_string(),
            prism.url(),
        ],
        &[],
        SCRIPT,
    );
    assert!(
        run.success,
        "the Python client's checks failed:\n{}\n--- its stderr (and the server's):\n{}\n--- Prism's log:\n{}",
        run.stdout,
        run.stderr,
        prism.output()
    );
    let summary: serde_json::Value = run
        .stdout
        .lines()
        .last()
        .and_then(|line| serde_json::from_str(line).ok())
        .unwrap_or_else(|| panic!("no summary from the script:\n{}", run.stdout));
    assert_eq!(summary["output_schemas"], 0, "--no-output-schemas");
    assert!(
        prism.output().contains("/repos/octocat/hello-world/issues"),
        "Prism saw no issue calls:\n{}",
        prism.output()
    );
}

/// Progressive discovery over the whole import: tools/list shows the search
/// tool and the call proxy only; a search finds an operation by what it
/// does, with its definition; the proxy calls it (here against a port
/// where nothing listens, so nothing leaves the machine).
#[tokio::test]
async fn progressive_discovery_over_githubs_document() {
    use mcp_runtime::ToolSearch;
    use mcp_runtime::testing::TestClient;
    use serde_json::json;

    let document = openapi::github_document();
    // Port 9 (discard) on loopback: refused, nothing calls GitHub.
    let api = OpenApi::from_file(&document)
        .base_url("http://127.0.0.1:9")
        .skip_unsupported();
    let server = Server::new("github", "1.0.0")
        .openapi(api)
        .tool_search(ToolSearch::new());
    let mut client = TestClient::connect(server)
        .await
        .expect("the server starts");

    let listed = client.list_tools().await.expect("tools/list");
    let names: Vec<&str> = listed.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["call_tool", "search_tools"]);

    let found = client
        .call_tool("search_tools", json!({"query": "create an issue comment"}))
        .await
        .expect("search_tools");
    let first = &found["structuredContent"]["tools"][0];
    assert_eq!(first["name"], "issues_create-comment", "{found:#}");
    assert_eq!(first["tags"], json!(["issues"]));
    let required = &first["inputSchema"]["required"];
    for argument in ["owner", "repo", "issue_number", "body"] {
        assert!(
            required
                .as_array()
                .is_some_and(|r| r.contains(&json!(argument))),
            "{argument} is not required: {required}"
        );
    }
    assert!(
        found["structuredContent"]["total"].as_u64() > Some(1),
        "{found:#}"
    );

    let called = client
        .call_tool(
            "call_tool",
            json!({"name": "repos_get", "arguments": {"owner": "octocat", "repo": "hello-world"}}),
        )
        .await
        .expect("call_tool answers with a result");
    assert_eq!(called["isError"], true, "{called:#}");
    let text = called["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("127.0.0.1:9") && text.contains("/repos/octocat/hello-world"),
        "{text}"
    );
}
