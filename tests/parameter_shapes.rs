//! What `#[tool]` makes of every kind of parameter: the `tools/list` entry
//! of tools that take plain values, options, structs, enums, recursive
//! types, documented and undocumented parameters, `#[header]`, injected
//! values and forwarded `#[serde]`/`#[schemars]` attributes, in a legacy
//! and a 2026-07-28 listing, against a golden snapshot
//! (`tests/shapes/tools.json`); and calls showing each value arrives as
//! sent.
//!
//! The snapshot pins the schemas while the expansion changes: after an
//! intended change, refresh it with
//! `UPDATE_SNAPSHOTS=1 cargo test -p mcp-tests --test parameter_shapes`
//! and review the diff.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use mcp_runtime::schemars::JsonSchema;
use mcp_runtime::serde::{Deserialize, Serialize};
use mcp_runtime::serde_json::{self, Value, json};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Context, Server, State, tool};

const LEGACY: &str = "2025-06-18";
const MODERN: &str = "2026-07-28";

/// A place on the map.
#[derive(Serialize, Deserialize, JsonSchema, Debug)]
#[serde(crate = "mcp_runtime::serde")]
#[schemars(crate = "mcp_runtime::schemars")]
pub struct Point {
    /// Degrees east.
    pub x: f64,
    /// Degrees north.
    pub y: f64,
    /// A label, if any.
    pub label: Option<String>,
}

/// How to sort.
#[derive(Serialize, Deserialize, JsonSchema, Debug)]
#[serde(crate = "mcp_runtime::serde", rename_all = "snake_case")]
#[schemars(crate = "mcp_runtime::schemars")]
pub enum Order {
    /// Smallest first.
    Ascending,
    /// Largest first.
    Descending,
}

/// A shape to draw.
#[derive(Serialize, Deserialize, JsonSchema, Debug)]
#[serde(crate = "mcp_runtime::serde", tag = "kind")]
#[schemars(crate = "mcp_runtime::schemars")]
pub enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

/// A tree of labels.
#[derive(Serialize, Deserialize, JsonSchema, Debug)]
#[serde(crate = "mcp_runtime::serde")]
#[schemars(crate = "mcp_runtime::schemars")]
pub struct Tree {
    pub label: String,
    pub children: Vec<Tree>,
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
#[serde(crate = "mcp_runtime::serde")]
#[schemars(crate = "mcp_runtime::schemars")]
pub struct Paging {
    /// Page number.
    pub page: u32,
}

/// What a tool received, as the client sent it.
#[derive(Serialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde")]
#[schemars(crate = "mcp_runtime::schemars")]
pub struct Received {
    /// The arguments, read back.
    pub got: Value,
}

fn received(got: Value) -> Received {
    Received { got }
}

/// Plain values of every JSON type.
#[tool]
#[allow(clippy::too_many_arguments)] // one of each kind
async fn plain(
    /// A word.
    text: String,
    count: u32,
    delta: i64,
    flag: bool,
    ratio: f64,
    words: Vec<String>,
    scores: BTreeMap<String, u8>,
    anything: Value,
) -> Received {
    received(json!({
        "text": text, "count": count, "delta": delta, "flag": flag, "ratio": ratio,
        "words": words, "scores": scores, "anything": anything,
    }))
}

/// Optional values: absent is `None`.
#[tool(read_only)]
async fn optional(
    /// How many, at most.
    limit: Option<u32>,
    name: Option<String>,
    bytes: Option<Vec<u8>>,
) -> Received {
    received(json!({"limit": limit, "name": name, "bytes": bytes}))
}

/// Structured parameters.
#[tool]
async fn structured(
    /// Where to start.
    from: Point,
    /// Where to end, if not where it starts.
    to: Option<Point>,
    order: Order,
    shape: Shape,
    tree: Tree,
) -> Received {
    received(json!({
        "from": from, "to": to, "order": order, "shape": shape, "tree": tree,
    }))
}

/// Doc comments of every form.
///
/// The first paragraph is the description; this one too.
#[tool(title = "Documented")]
async fn documented(
    /// # A title
    ///
    /// And a description under it.
    titled: String,
    /// One line.
    one_line: String,
    /// Two lines
    /// of one paragraph.
    two_lines: String,
    undocumented: String,
    r#type: String,
) -> String {
    format!("{titled} {one_line} {two_lines} {undocumented} {type}", type = r#type)
}

/// Mirrored into headers, beside injected values.
#[tool(idempotent)]
async fn headed(
    ctx: Context,
    /// The region.
    #[header("Region")]
    region: String,
    #[header("Shard")] shard: Option<u32>,
    prefix: State<String>,
    note: Option<String>,
) -> Received {
    let _ = ctx.request_id();
    received(json!({"region": region, "shard": shard, "prefix": *prefix, "note": note}))
}

/// Forwarded serde and schemars attributes.
#[tool]
async fn forwarded(
    #[serde(rename = "q")]
    #[schemars(length(min = 1, max = 100))]
    query: String,
    /// Results per page.
    #[schemars(range(min = 1, max = 50))]
    #[serde(default)]
    limit: u8,
    #[schemars(regex(pattern = r"^[a-z]{2}$"))] lang: String,
    #[serde(flatten)] paging: Paging,
    #[serde(default = "default_sort")] sort: String,
) -> Received {
    received(json!({
        "query": query, "limit": limit, "lang": lang, "page": paging.page, "sort": sort,
    }))
}

/// Attributes that only describe, rename or default a parameter.
#[tool]
async fn described(
    #[serde(rename = "q")]
    #[schemars(length(min = 1, max = 100))]
    query: String,
    /// Results per page.
    #[schemars(range(min = 1, max = 50))]
    #[serde(default)]
    limit: u8,
    #[schemars(regex(pattern = r"^[a-z]{2}$"))] lang: Option<String>,
    /// The zone.
    #[header("Zone")]
    #[schemars(range(max = 9))]
    zone: Option<u32>,
    /// A doc the attribute overrides.
    #[schemars(description = "Said by the attribute.", example = "a note")]
    note: Option<String>,
    #[serde(default)] origin: Option<Point>,
    #[serde(default)] tags: Vec<String>,
) -> Received {
    received(json!({
        "query": query, "limit": limit, "lang": lang, "zone": zone, "note": note,
        "origin": origin, "tags": tags,
    }))
}

fn default_sort() -> String {
    "relevance".into()
}

/// Takes nothing.
#[tool(destructive = false)]
async fn nothing() -> &'static str {
    "nothing"
}

/// A synchronous tool with a list answer.
#[tool]
fn listing(
    /// How many.
    n: u8,
) -> Result<Vec<u8>, String> {
    if n > 5 {
        return Err(format!("{n} is too many"));
    }
    Ok((0..n).collect())
}

fn server() -> Server {
    Server::new("shapes", "1").state(String::from("p-"))
}

async fn within<F: std::future::Future>(future: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(20), future)
        .await
        .expect("the server answered within 20 s")
}

async fn list_legacy() -> Vec<Value> {
    let mut client = within(TestClient::connect_with_version(server(), LEGACY))
        .await
        .expect("it starts");
    within(client.list_tools()).await.expect("tools/list")
}

async fn list_modern() -> Vec<Value> {
    let mut client = TestClient::start(server()).expect("it starts");
    let params = json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "shapes-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }});
    let result = within(client.request("tools/list", params))
        .await
        .expect("tools/list");
    result["tools"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn listings_match_the_snapshot() {
    let actual = json!({ LEGACY: list_legacy().await, MODERN: list_modern().await });
    let actual = serde_json::to_string_pretty(&actual).unwrap() + "\n";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shapes/tools.json");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .expect("the snapshot exists")
        .replace("\r\n", "\n");
    if actual != expected {
        let first = actual
            .lines()
            .zip(expected.lines())
            .position(|(a, e)| a != e)
            .unwrap_or(actual.lines().count().min(expected.lines().count()));
        panic!(
            "the listing differs from {} from line {}; if the change is intended, rerun with \
             UPDATE_SNAPSHOTS=1 and review the diff:\n{actual}",
            path.display(),
            first + 1
        );
    }
}

async fn call(tool: &str, arguments: Value) -> Value {
    let mut client = within(TestClient::connect_with_version(server(), LEGACY))
        .await
        .expect("it starts");
    within(client.request("tools/call", json!({"name": tool, "arguments": arguments})))
        .await
        .expect("tools/call answers a result")
}

fn got(result: &Value) -> &Value {
    assert_ne!(result["isError"], json!(true), "{result:#}");
    &result["structuredContent"]["got"]
}

#[tokio::test]
async fn every_plain_value_arrives_as_sent() {
    let arguments = json!({
        "text": "hé", "count": 7, "delta": -3, "flag": true, "ratio": 0.5,
        "words": ["a", "b"], "scores": {"x": 1}, "anything": {"deep": [null]},
    });
    assert_eq!(got(&call("plain", arguments.clone()).await), &arguments);
    // An integral float is read as the integer it is.
    let result = call(
        "plain",
        json!({
            "text": "", "count": 7.0, "delta": -3.0, "flag": false, "ratio": 2.0,
            "words": [], "scores": {"y": 2.0}, "anything": 1.0,
        }),
    )
    .await;
    assert_eq!(got(&result)["count"], json!(7));
    assert_eq!(got(&result)["delta"], json!(-3));
    assert_eq!(got(&result)["scores"], json!({"y": 2}));
    assert_eq!(got(&result)["ratio"], json!(2.0));
}

#[tokio::test]
async fn absent_options_are_none_and_present_ones_arrive() {
    let result = call("optional", json!({})).await;
    assert_eq!(
        got(&result),
        &json!({"limit": null, "name": null, "bytes": null})
    );
    let result = call(
        "optional",
        json!({"limit": 3, "name": "n", "bytes": [1, 2]}),
    )
    .await;
    assert_eq!(
        got(&result),
        &json!({"limit": 3, "name": "n", "bytes": [1, 2]})
    );
}

#[tokio::test]
async fn structured_parameters_arrive_whole() {
    let arguments = json!({
        "from": {"x": 1.5, "y": -2.0, "label": "a"},
        "order": "descending",
        "shape": {"kind": "Circle", "radius": 2.0},
        "tree": {"label": "root", "children": [{"label": "leaf", "children": []}]},
    });
    let result = call("structured", arguments).await;
    assert_eq!(got(&result)["to"], json!(null));
    assert_eq!(got(&result)["order"], json!("descending"));
    assert_eq!(
        got(&result)["shape"],
        json!({"kind": "Circle", "radius": 2.0})
    );
    assert_eq!(got(&result)["tree"]["children"][0]["label"], json!("leaf"));
}

#[tokio::test]
async fn headers_and_injected_values_sit_beside_arguments() {
    let result = call("headed", json!({"region": "eu", "shard": 4})).await;
    assert_eq!(
        got(&result),
        &json!({"region": "eu", "shard": 4, "prefix": "p-", "note": null})
    );
}

#[tokio::test]
async fn forwarded_attributes_rename_default_and_flatten() {
    let result = call("forwarded", json!({"q": "rust", "lang": "en", "page": 2})).await;
    assert_eq!(
        got(&result),
        &json!({"query": "rust", "limit": 0, "lang": "en", "page": 2, "sort": "relevance"})
    );
}

#[tokio::test]
async fn described_parameters_are_read_by_their_names_with_their_defaults() {
    let result = call("described", json!({"q": "rust"})).await;
    assert_eq!(
        got(&result),
        &json!({
            "query": "rust", "limit": 0, "lang": null, "zone": null, "note": null,
            "origin": null, "tags": [],
        })
    );
    let arguments = json!({
        "q": "r", "limit": 5.0, "lang": "en", "zone": 3, "note": "n",
        "origin": {"x": 1.0, "y": 2.0}, "tags": ["t"],
    });
    let result = call("described", arguments).await;
    assert_eq!(
        got(&result),
        &json!({
            "query": "r", "limit": 5, "lang": "en", "zone": 3, "note": "n",
            "origin": {"x": 1.0, "y": 2.0, "label": null}, "tags": ["t"],
        })
    );
    // The attributes' bounds are checked before the tool runs.
    let result = call("described", json!({"q": "", "limit": 51})).await;
    assert_eq!(result["isError"], json!(true), "{result:#}");
}

#[tokio::test]
async fn documented_raw_and_argumentless_tools_are_called() {
    let result = call(
        "documented",
        json!({"titled": "a", "one_line": "b", "two_lines": "c", "undocumented": "d", "type": "e"}),
    )
    .await;
    assert_eq!(result["content"][0]["text"], json!("a b c d e"));
    let result = call("nothing", json!({})).await;
    assert_eq!(result["content"][0]["text"], json!("nothing"));
    let result = call("listing", json!({"n": 3})).await;
    assert_eq!(result["structuredContent"], json!({"result": [0, 1, 2]}));
    let result = call("listing", json!({"n": 9})).await;
    assert_eq!(result["isError"], json!(true));
    assert_eq!(result["content"][0]["text"], json!("9 is too many"));
}

#[tokio::test]
async fn a_value_of_the_wrong_type_is_an_error_result_naming_it() {
    let result = call(
        "structured",
        json!({
            "from": {"x": "east", "y": 0.0},
            "order": "sideways",
            "shape": {"kind": "Circle", "radius": 1.0},
            "tree": {"label": "r", "children": []},
        }),
    )
    .await;
    assert_eq!(result["isError"], json!(true), "{result:#}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("from") && text.contains("order"), "{text}");
}
