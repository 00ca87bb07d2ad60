//! Micro-benchmarks of the runtime's hot paths, so a regression shows up
//! where it happens: `cargo bench -p mcp-runtime`.
//!
//! The end-to-end comparison with other SDKs lives in `bench/`.

use divan::{Bencher, black_box};
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{DynamicTool, Registry, Server, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

fn main() {
    divan::main();
}

/// Echo the text back.
#[tool]
async fn echo(text: String) -> String {
    text
}

#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Small,
    Large,
}

#[derive(Serialize, JsonSchema)]
struct Item {
    id: u32,
    kind: Kind,
    tags: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
struct Report {
    title: String,
    items: Vec<Item>,
}

/// Build a small structured report.
#[tool]
async fn report(
    #[schemars(length(min = 1, max = 100))] title: String,
    #[schemars(range(min = 1, max = 50))] count: u32,
    kind: Option<Kind>,
) -> Report {
    let kind_of = |i: u32| match (&kind, i % 2) {
        (Some(Kind::Large), _) | (None, 1) => Kind::Large,
        _ => Kind::Small,
    };
    Report {
        title,
        items: (0..count)
            .map(|id| Item {
                id,
                kind: kind_of(id),
                tags: vec!["a".into(), "b".into()],
            })
            .collect(),
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn registry() -> Registry {
    Server::new("bench", "0").registry().expect("registry")
}

/// Validation, deserialization, the call and output conversion, no protocol.
#[divan::bench]
fn registry_call_echo(bencher: Bencher) {
    let rt = runtime();
    let registry = registry();
    bencher.bench_local(|| {
        rt.block_on(registry.call("echo", json!({"text": "hello"})))
            .expect("call")
    });
}

#[divan::bench]
fn registry_call_structured(bencher: Bencher) {
    let rt = runtime();
    let registry = registry();
    bencher.bench_local(|| {
        rt.block_on(registry.call("report", json!({"title": "t", "count": 5, "kind": "small"})))
            .expect("call")
    });
}

/// Invalid arguments: every violation collected and described.
#[divan::bench]
fn registry_call_invalid_arguments(bencher: Bencher) {
    let rt = runtime();
    let registry = registry();
    bencher.bench_local(|| {
        rt.block_on(registry.call("report", json!({"title": "", "count": 99, "x": 1})))
            .expect("call")
    });
}

/// One request through the whole dispatcher: parse, route, answer, write.
#[divan::bench]
fn dispatch_ping(bencher: Bencher) {
    let rt = runtime();
    let mut client = rt
        .block_on(TestClient::connect(Server::new("bench", "0")))
        .expect("client");
    bencher.bench_local(|| {
        rt.block_on(client.request("ping", json!({})))
            .expect("ping")
    });
}

#[divan::bench]
fn dispatch_call_echo(bencher: Bencher) {
    let rt = runtime();
    let mut client = rt
        .block_on(TestClient::connect(Server::new("bench", "0")))
        .expect("client");
    bencher.bench_local(|| {
        rt.block_on(client.call_tool("echo", json!({"text": "hello"})))
            .expect("call")
    });
}

fn server_with_200_tools() -> Server {
    (0..200).fold(Server::new("bench", "0"), |server, i| {
        server.tool(DynamicTool::new(
            format!("tool_{i:03}"),
            "A generated tool.",
            json!({"type": "object", "properties": {"x": {"type": "integer"}}}),
            |_: Value, _| async { "ok" },
        ))
    })
}

/// `tools/list` of 200 tools (pre-serialized at start-up).
#[divan::bench]
fn dispatch_tools_list_200(bencher: Bencher) {
    let rt = runtime();
    let mut client = rt
        .block_on(TestClient::connect(server_with_200_tools()))
        .expect("client");
    bencher.bench_local(|| {
        rt.block_on(client.request("tools/list", json!({})))
            .expect("list")
    });
}

/// Start-up: collecting tools, generating schemas, compiling validators.
#[divan::bench]
fn build_registry_200(bencher: Bencher) {
    bencher.bench_local(|| black_box(server_with_200_tools().registry().expect("registry")));
}

/// Framing alone: one `tools/call` line classified, its params read.
#[divan::bench]
fn parse_call_line(bencher: Bencher) {
    let line = br#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"report","arguments":{"title":"weekly","count":5,"kind":"small"}}}"#;
    bencher.bench_local(|| black_box(mcp_runtime::__fuzz::classify_line(black_box(line))));
}

/// Argument validation alone, against `report`'s published input schema.
#[divan::bench(args = [true, false])]
fn validate_arguments(bencher: Bencher, valid: bool) {
    let registry = registry();
    let schema = registry
        .get("report")
        .expect("report")
        .input_schema()
        .clone();
    let validator = mcp_runtime::__fuzz::InputSchema::compile(&schema).expect("schema");
    let arguments = if valid {
        json!({"title": "weekly", "count": 5, "kind": "small"})
    } else {
        json!({"title": "", "count": 99, "x": 1})
    };
    bencher.bench_local(|| black_box(validator.validate("report", black_box(&arguments))));
}
