//! Output conversion: how each return form of a `#[tool]` fn becomes a
//! `tools/call` result and (for structured output) an `outputSchema`.

use std::fmt;
use std::time::Duration;

use mcp_runtime::{
    Annotations, CallToolResult, Content, EmbeddedResource, Registry, ResourceContents,
    ResourceLink, Role, Server, tool,
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------
// Structured output

/// A point on the plane.
#[derive(Serialize, JsonSchema)]
struct Point {
    /// Horizontal.
    x: i32,
    /// Vertical.
    y: i32,
    label: Option<String>,
}

fn origin() -> Point {
    Point {
        x: 0,
        y: -1,
        label: Some("origin".into()),
    }
}

/// Return a struct.
#[tool]
async fn point() -> Point {
    origin()
}

type PointAlias = Point;

/// Return a type alias of a struct.
#[tool]
async fn point_alias() -> PointAlias {
    origin()
}

/// Return a number.
#[tool]
async fn number() -> i64 {
    42
}

/// Return a list.
#[tool]
async fn list() -> Vec<String> {
    vec!["a".into(), "b".into()]
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Colour {
    Red,
    #[allow(dead_code)]
    Green,
}

/// Return a unit enum.
#[tool]
async fn colour() -> Colour {
    Colour::Red
}

/// A recursive type keeps its `$defs`.
#[derive(Serialize, JsonSchema)]
struct Tree {
    name: String,
    children: Vec<Tree>,
}

/// Return a recursive struct.
#[tool]
async fn tree() -> Tree {
    Tree {
        name: "root".into(),
        children: vec![Tree {
            name: "leaf".into(),
            children: vec![],
        }],
    }
}

/// Return a list of a recursive struct (wrapped, with its `$defs`).
#[tool]
async fn forest() -> Vec<Tree> {
    vec![Tree {
        name: "alone".into(),
        children: vec![],
    }]
}

/// An expression: a recursive type that is not an object, so its values
/// are wrapped and its references to itself must still resolve.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Expr {
    Num(i64),
    Add(Box<Expr>, Box<Expr>),
}

/// Return a recursive enum.
#[tool]
async fn expr() -> Expr {
    Expr::Add(Box::new(Expr::Num(1)), Box::new(Expr::Num(2)))
}

/// Return an optional struct.
#[tool]
async fn maybe_point(some: bool) -> Option<Point> {
    some.then(origin)
}

// ---------------------------------------------------------------------------
// Text and content

/// Return an owned string.
#[tool]
async fn owned_text() -> String {
    "owned".to_owned()
}

/// Return a static string.
#[tool]
async fn static_text() -> &'static str {
    "static"
}

/// Return nothing.
#[tool]
async fn nothing() {}

/// Return unit, spelled out.
#[tool]
async fn unit() -> () {}

/// Return an image.
#[tool]
async fn image() -> Content {
    Content::image([0x89, b'P', b'N', b'G'], "image/png").with_annotations(
        Annotations::new()
            .audience([Role::User])
            .priority(0.5)
            .last_modified("2025-01-12T15:00:58Z"),
    )
}

/// Return audio.
#[tool]
async fn audio() -> Content {
    Content::audio(b"RIFF", "audio/wav")
}

/// Return a resource link.
#[tool]
async fn link() -> Content {
    Content::ResourceLink(ResourceLink {
        uri: "file:///reports/q3.pdf".into(),
        name: "q3.pdf".into(),
        title: Some("Q3 report".into()),
        description: Some("The third-quarter report.".into()),
        mime_type: Some("application/pdf".into()),
        size: Some(1024),
        annotations: Some(Annotations::new().audience([Role::Assistant])),
    })
}

/// Return an embedded resource.
#[tool]
async fn embedded() -> Content {
    Content::Resource(EmbeddedResource {
        resource: ResourceContents::Text {
            uri: "file:///notes.md".into(),
            mime_type: Some("text/markdown".into()),
            text: "# Notes".into(),
            meta: None,
        },
        annotations: Some(Annotations::new().priority(1.0)),
    })
}

/// Return several blocks.
#[tool]
async fn blocks() -> Vec<Content> {
    vec![
        Content::text("Here is the chart:"),
        Content::image([1, 2, 3], "image/png"),
        Content::embedded_blob("file:///c.bin", None, [255]),
        Content::resource_link("file:///a.txt", "a.txt"),
    ]
}

/// Return a hand-built result.
#[tool]
async fn full_result() -> CallToolResult {
    CallToolResult {
        content: vec![Content::text("one"), Content::text("two")],
        structured_content: Some(json!({"anything": [1, 2]})),
        is_error: true,
    }
}

// ---------------------------------------------------------------------------
// Results

#[derive(Debug)]
struct NotFound(String);

impl fmt::Display for NotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no point named {:?}", self.0)
    }
}

/// Find a point by name.
#[tool]
async fn find_point(name: String) -> Result<Point, NotFound> {
    if name == "origin" {
        Ok(origin())
    } else {
        Err(NotFound(name))
    }
}

/// Parse a number.
#[tool]
async fn parse_number(text: String) -> Result<i64, std::num::ParseIntError> {
    text.parse()
}

/// Greet someone.
#[tool]
async fn greet(name: String) -> Result<String, String> {
    if name.is_empty() {
        Err("a name is required".into())
    } else {
        Ok(format!("Hello, {name}!"))
    }
}

/// Do something or fail.
#[tool]
async fn attempt(fail: bool) -> Result<(), String> {
    if fail {
        Err("it failed".into())
    } else {
        Ok(())
    }
}

/// Return a static string or fail.
#[tool]
async fn static_or_error(fail: bool) -> Result<&'static str, std::fmt::Error> {
    if fail {
        Err(std::fmt::Error)
    } else {
        Ok("fine")
    }
}

/// Return content or an error.
#[tool]
async fn picture(ok: bool) -> Result<Vec<Content>, &'static str> {
    if ok {
        Ok(vec![Content::image([7], "image/gif")])
    } else {
        Err("no picture today")
    }
}

// ---------------------------------------------------------------------------
// Panics, sync fns and timeouts

/// Always panics.
#[tool]
async fn explode(secret: String) -> String {
    panic!("the secret is {secret}");
}

/// Panics with a structured output type.
#[tool]
async fn explode_structured() -> Point {
    let v: Vec<i32> = Vec::new();
    let x = v[3];
    Point {
        x,
        y: 0,
        label: None,
    }
}

/// A synchronous tool.
#[tool]
fn sync_add(a: i64, b: i64) -> i64 {
    a + b
}

/// A synchronous tool that panics.
#[tool]
fn sync_explode() -> String {
    panic!("sync secret");
}

/// Sleeps far longer than its timeout.
#[tool(timeout = "50ms")]
async fn slow() -> String {
    tokio::time::sleep(Duration::from_secs(30)).await;
    "too late".into()
}

/// Finishes within its timeout.
#[tool(timeout = "10s")]
async fn quick() -> String {
    tokio::time::sleep(Duration::from_millis(5)).await;
    "in time".into()
}

/// Timeout written in seconds and minutes.
#[tool(timeout = "1m30s")]
async fn patient() {}

// ---------------------------------------------------------------------------
// Helpers

fn registry() -> Registry {
    Server::new("outputs", "0.0.0").registry().unwrap()
}

async fn call(registry: &Registry, name: &str, arguments: Value) -> Value {
    let result = registry.call(name, arguments).await.unwrap();
    let value = serde_json::to_value(&result).unwrap();
    // The wire form round-trips.
    let back: CallToolResult = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(back, result);
    value
}

fn output_schema(registry: &Registry, name: &str) -> Option<Value> {
    registry
        .get(name)
        .unwrap()
        .output_schema()
        .map(|s| Value::Object(s.clone()))
}

/// Checks what the spec asks of structured output: an object schema, a valid
/// JSON Schema, `structuredContent` conforming to it, and the same JSON as
/// the one text block.
fn assert_structured(registry: &Registry, name: &str, result: &Value) {
    let schema = output_schema(registry, name).expect("an outputSchema");
    assert_eq!(schema["type"], "object", "{name}: {schema}");
    assert!(schema.get("$schema").is_none(), "{name}: {schema}");
    assert!(schema.get("title").is_none(), "{name}: {schema}");
    assert!(
        jsonschema::draft202012::meta::is_valid(&schema),
        "{name}: {schema}"
    );
    let structured = &result["structuredContent"];
    assert!(structured.is_object(), "{name}: {result}");
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(structured)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{name}: {structured} vs {schema}: {errors:?}"
    );
    let content = result["content"].as_array().unwrap();
    assert_eq!(content.len(), 1, "{name}: {result}");
    assert_eq!(content[0]["type"], "text");
    let text: Value = serde_json::from_str(content[0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&text, structured);
    assert_eq!(result["isError"], false);
}

fn assert_error(result: &Value, text: &str) {
    assert_eq!(
        result,
        &json!({"content": [{"type": "text", "text": text}], "isError": true})
    );
}

// ---------------------------------------------------------------------------
// Tests: structured output

const POINT_SCHEMA: fn() -> Value = || {
    json!({
        "description": "A point on the plane.",
        "type": "object",
        "properties": {
            "x": {"description": "Horizontal.", "type": "integer"},
            "y": {"description": "Vertical.", "type": "integer"},
            "label": {"type": ["string", "null"]}
        },
        "required": ["x", "y", "label"]
    })
};

#[tokio::test]
async fn a_struct_gives_output_schema_structured_content_and_text() {
    let registry = registry();
    assert_eq!(output_schema(&registry, "point"), Some(POINT_SCHEMA()));
    let result = call(&registry, "point", json!({})).await;
    assert_eq!(
        result,
        json!({
            "content": [{"type": "text", "text": r#"{"x":0,"y":-1,"label":"origin"}"#}],
            "structuredContent": {"x": 0, "y": -1, "label": "origin"},
            "isError": false
        })
    );
    assert_structured(&registry, "point", &result);
}

#[tokio::test]
async fn a_type_alias_of_a_struct_is_still_structured() {
    let registry = registry();
    assert_eq!(
        output_schema(&registry, "point_alias"),
        Some(POINT_SCHEMA())
    );
    let result = call(&registry, "point_alias", json!({})).await;
    assert_eq!(
        result["structuredContent"],
        json!({"x": 0, "y": -1, "label": "origin"})
    );
    assert_structured(&registry, "point_alias", &result);
}

#[tokio::test]
async fn a_number_is_wrapped_as_result() {
    let registry = registry();
    assert_eq!(
        output_schema(&registry, "number"),
        Some(json!({
            "type": "object",
            "properties": {"result": {"type": "integer"}},
            "required": ["result"]
        }))
    );
    let result = call(&registry, "number", json!({})).await;
    assert_eq!(
        result,
        json!({
            "content": [{"type": "text", "text": r#"{"result":42}"#}],
            "structuredContent": {"result": 42},
            "isError": false
        })
    );
    assert_structured(&registry, "number", &result);
}

#[tokio::test]
async fn a_list_is_wrapped_as_result() {
    let registry = registry();
    assert_eq!(
        output_schema(&registry, "list"),
        Some(json!({
            "type": "object",
            "properties": {"result": {"type": "array", "items": {"type": "string"}}},
            "required": ["result"]
        }))
    );
    let result = call(&registry, "list", json!({})).await;
    assert_eq!(result["structuredContent"], json!({"result": ["a", "b"]}));
    assert_structured(&registry, "list", &result);
}

#[tokio::test]
async fn an_enum_is_wrapped_as_result() {
    let registry = registry();
    assert_eq!(
        output_schema(&registry, "colour"),
        Some(json!({
            "type": "object",
            "properties": {"result": {"type": "string", "enum": ["red", "green"]}},
            "required": ["result"]
        }))
    );
    let result = call(&registry, "colour", json!({})).await;
    assert_eq!(result["structuredContent"], json!({"result": "red"}));
    assert_structured(&registry, "colour", &result);
}

#[tokio::test]
async fn an_option_is_wrapped_and_none_is_null() {
    let registry = registry();
    let some = call(&registry, "maybe_point", json!({"some": true})).await;
    assert_eq!(
        some["structuredContent"],
        json!({"result": {"x": 0, "y": -1, "label": "origin"}})
    );
    assert_structured(&registry, "maybe_point", &some);
    let none = call(&registry, "maybe_point", json!({"some": false})).await;
    assert_eq!(none["structuredContent"], json!({"result": null}));
    assert_structured(&registry, "maybe_point", &none);
}

#[tokio::test]
async fn recursive_types_keep_their_defs_and_validate() {
    let registry = registry();
    let tree_schema = output_schema(&registry, "tree").unwrap();
    assert_eq!(
        tree_schema["properties"]["children"]["items"],
        json!({"$ref": "#"}),
        "{tree_schema}"
    );
    let result = call(&registry, "tree", json!({})).await;
    assert_eq!(
        result["structuredContent"],
        json!({"name": "root", "children": [{"name": "leaf", "children": []}]})
    );
    assert_structured(&registry, "tree", &result);

    let forest_schema = output_schema(&registry, "forest").unwrap();
    assert_eq!(forest_schema["required"], json!(["result"]));
    assert!(forest_schema.get("$defs").is_some(), "{forest_schema}");
    let result = call(&registry, "forest", json!({})).await;
    assert_eq!(
        result["structuredContent"],
        json!({"result": [{"name": "alone", "children": []}]})
    );
    assert_structured(&registry, "forest", &result);

    let result = call(&registry, "expr", json!({})).await;
    assert_eq!(
        result["structuredContent"],
        json!({"result": {"add": [{"num": 1}, {"num": 2}]}})
    );
    assert_structured(&registry, "expr", &result);
    // A value the schema must reject: the recursion really is checked.
    let schema = output_schema(&registry, "expr").unwrap();
    let bad = json!({"result": {"add": [{"num": 1}, {"num": "two"}]}});
    assert!(
        !jsonschema::draft202012::is_valid(&schema, &bad),
        "{schema}"
    );
}

#[test]
fn structured_output_is_listed_with_its_schema() {
    let registry = registry();
    assert_eq!(
        registry.get("number").unwrap().to_json(),
        json!({
            "name": "number",
            "description": "Return a number.",
            "inputSchema": {"type": "object", "additionalProperties": false},
            "outputSchema": {
                "type": "object",
                "properties": {"result": {"type": "integer"}},
                "required": ["result"]
            }
        })
    );
}

// ---------------------------------------------------------------------------
// Tests: text and content

#[tokio::test]
async fn strings_are_one_text_block_without_output_schema() {
    let registry = registry();
    for (name, text) in [("owned_text", "owned"), ("static_text", "static")] {
        assert_eq!(output_schema(&registry, name), None);
        assert_eq!(
            call(&registry, name, json!({})).await,
            json!({"content": [{"type": "text", "text": text}], "isError": false})
        );
        assert!(
            registry
                .get(name)
                .unwrap()
                .to_json()
                .get("outputSchema")
                .is_none()
        );
    }
}

#[tokio::test]
async fn unit_is_empty_content_without_output_schema() {
    let registry = registry();
    for name in ["nothing", "unit"] {
        assert_eq!(output_schema(&registry, name), None);
        assert_eq!(
            call(&registry, name, json!({})).await,
            json!({"content": [], "isError": false})
        );
    }
}

#[tokio::test]
async fn an_image_with_annotations_passes_through() {
    let registry = registry();
    assert_eq!(output_schema(&registry, "image"), None);
    assert_eq!(
        call(&registry, "image", json!({})).await,
        json!({
            "content": [{
                "type": "image",
                "data": "iVBORw==",
                "mimeType": "image/png",
                "annotations": {
                    "audience": ["user"],
                    "priority": 0.5,
                    "lastModified": "2025-01-12T15:00:58Z"
                }
            }],
            "isError": false
        })
    );
}

#[tokio::test]
async fn audio_passes_through() {
    assert_eq!(
        call(&registry(), "audio", json!({})).await,
        json!({
            "content": [{"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}],
            "isError": false
        })
    );
}

#[tokio::test]
async fn a_resource_link_passes_through() {
    assert_eq!(
        call(&registry(), "link", json!({})).await,
        json!({
            "content": [{
                "type": "resource_link",
                "uri": "file:///reports/q3.pdf",
                "name": "q3.pdf",
                "title": "Q3 report",
                "description": "The third-quarter report.",
                "mimeType": "application/pdf",
                "size": 1024,
                "annotations": {"audience": ["assistant"]}
            }],
            "isError": false
        })
    );
}

#[tokio::test]
async fn an_embedded_resource_passes_through() {
    assert_eq!(
        call(&registry(), "embedded", json!({})).await,
        json!({
            "content": [{
                "type": "resource",
                "resource": {"uri": "file:///notes.md", "mimeType": "text/markdown", "text": "# Notes"},
                "annotations": {"priority": 1.0}
            }],
            "isError": false
        })
    );
}

#[tokio::test]
async fn a_vec_of_content_passes_through_in_order() {
    let registry = registry();
    assert_eq!(output_schema(&registry, "blocks"), None);
    assert_eq!(
        call(&registry, "blocks", json!({})).await,
        json!({
            "content": [
                {"type": "text", "text": "Here is the chart:"},
                {"type": "image", "data": "AQID", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///c.bin", "blob": "/w=="}},
                {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"}
            ],
            "isError": false
        })
    );
}

#[tokio::test]
async fn a_call_tool_result_passes_through_untouched() {
    let registry = registry();
    assert_eq!(output_schema(&registry, "full_result"), None);
    assert_eq!(
        call(&registry, "full_result", json!({})).await,
        json!({
            "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}],
            "structuredContent": {"anything": [1, 2]},
            "isError": true
        })
    );
}

// ---------------------------------------------------------------------------
// Tests: results

#[tokio::test]
async fn result_of_a_struct_ok_is_structured() {
    let registry = registry();
    assert_eq!(output_schema(&registry, "find_point"), Some(POINT_SCHEMA()));
    let result = call(&registry, "find_point", json!({"name": "origin"})).await;
    assert_eq!(
        result["structuredContent"],
        json!({"x": 0, "y": -1, "label": "origin"})
    );
    assert_structured(&registry, "find_point", &result);
}

#[tokio::test]
async fn result_of_a_struct_err_is_an_error_without_structured_content() {
    let result = call(&registry(), "find_point", json!({"name": "nowhere"})).await;
    assert_error(&result, r#"no point named "nowhere""#);
}

#[tokio::test]
async fn result_of_a_number_is_wrapped_or_an_error() {
    let registry = registry();
    assert_eq!(
        output_schema(&registry, "parse_number"),
        output_schema(&registry, "number")
    );
    let ok = call(&registry, "parse_number", json!({"text": "-7"})).await;
    assert_eq!(ok["structuredContent"], json!({"result": -7}));
    assert_structured(&registry, "parse_number", &ok);
    let err = call(&registry, "parse_number", json!({"text": "seven"})).await;
    assert_error(&err, "invalid digit found in string");
}

#[tokio::test]
async fn result_of_a_string() {
    let registry = registry();
    assert_eq!(output_schema(&registry, "greet"), None);
    assert_eq!(
        call(&registry, "greet", json!({"name": "Ada"})).await,
        json!({"content": [{"type": "text", "text": "Hello, Ada!"}], "isError": false})
    );
    assert_error(
        &call(&registry, "greet", json!({"name": ""})).await,
        "a name is required",
    );
}

#[tokio::test]
async fn result_of_unit_and_of_a_static_str() {
    let registry = registry();
    assert_eq!(output_schema(&registry, "attempt"), None);
    assert_eq!(
        call(&registry, "attempt", json!({"fail": false})).await,
        json!({"content": [], "isError": false})
    );
    assert_error(
        &call(&registry, "attempt", json!({"fail": true})).await,
        "it failed",
    );
    assert_eq!(output_schema(&registry, "static_or_error"), None);
    assert_eq!(
        call(&registry, "static_or_error", json!({"fail": false})).await,
        json!({"content": [{"type": "text", "text": "fine"}], "isError": false})
    );
    assert_error(
        &call(&registry, "static_or_error", json!({"fail": true})).await,
        "an error occurred when formatting an argument",
    );
}

#[tokio::test]
async fn result_of_content() {
    let registry = registry();
    assert_eq!(output_schema(&registry, "picture"), None);
    assert_eq!(
        call(&registry, "picture", json!({"ok": true})).await,
        json!({
            "content": [{"type": "image", "data": "Bw==", "mimeType": "image/gif"}],
            "isError": false
        })
    );
    assert_error(
        &call(&registry, "picture", json!({"ok": false})).await,
        "no picture today",
    );
}

// ---------------------------------------------------------------------------
// Tests: panics, sync fns, timeouts

#[tokio::test]
async fn a_panic_is_a_generic_error_that_hides_the_details() {
    let registry = registry();
    let result = call(&registry, "explode", json!({"secret": "hunter2"})).await;
    assert_error(&result, "the tool `explode` failed with an internal error");
    assert!(!result.to_string().contains("hunter2"));

    let result = call(&registry, "explode_structured", json!({})).await;
    assert_error(
        &result,
        "the tool `explode_structured` failed with an internal error",
    );
    assert!(!result.to_string().contains("index out of bounds"));

    // The registry is still usable after a panic.
    assert_eq!(
        call(&registry, "static_text", json!({})).await["content"][0]["text"],
        "static"
    );
}

#[tokio::test]
async fn a_sync_fn_runs_and_converts_like_an_async_one() {
    let registry = registry();
    assert_eq!(
        output_schema(&registry, "sync_add"),
        output_schema(&registry, "number")
    );
    let result = call(&registry, "sync_add", json!({"a": 40, "b": 2})).await;
    assert_eq!(result["structuredContent"], json!({"result": 42}));
    assert_structured(&registry, "sync_add", &result);
}

#[tokio::test]
async fn a_panic_in_a_sync_fn_is_a_generic_error() {
    let result = call(&registry(), "sync_explode", json!({})).await;
    assert_error(
        &result,
        "the tool `sync_explode` failed with an internal error",
    );
    assert!(!result.to_string().contains("sync secret"));
}

#[test]
fn a_multi_threaded_runtime_works_too() {
    // `#[tokio::test]` is single-threaded; servers usually are not.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let registry = registry();
    let (sum, slow, panicked) = runtime.block_on(async {
        tokio::join!(
            registry.call("sync_add", json!({"a": 1, "b": 2})),
            registry.call("slow", json!({})),
            registry.call("sync_explode", json!({})),
        )
    });
    assert_eq!(sum.unwrap().structured_content, Some(json!({"result": 3})));
    assert_eq!(slow.unwrap(), CallToolResult::error("timed out after 50ms"));
    assert!(panicked.unwrap().is_error);
}

#[tokio::test]
async fn a_timeout_ends_the_call_with_an_error() {
    let registry = registry();
    assert_eq!(
        registry.get("slow").unwrap().timeout(),
        Some(Duration::from_millis(50))
    );
    let started = std::time::Instant::now();
    let result = call(&registry, "slow", json!({})).await;
    let elapsed = started.elapsed();
    assert_error(&result, "timed out after 50ms");
    assert!(elapsed >= Duration::from_millis(50), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

#[tokio::test]
async fn a_call_within_its_timeout_is_not_affected() {
    let registry = registry();
    assert_eq!(
        call(&registry, "quick", json!({})).await,
        json!({"content": [{"type": "text", "text": "in time"}], "isError": false})
    );
    assert_eq!(
        registry.get("patient").unwrap().timeout(),
        Some(Duration::from_secs(90))
    );
    assert_eq!(registry.get("point").unwrap().timeout(), None);
}
