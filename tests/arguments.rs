//! Input schemas and argument validation: what the client sees in
//! `inputSchema`, and the messages a model gets for invalid arguments.

use std::sync::atomic::{AtomicU32, Ordering};

use mcp_runtime::{CallError, CallToolResult, Context, Registry, Server, State, tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

// ---------------------------------------------------------------------------
// Tools

/// Book a table.
#[tool]
async fn book(
    /// Number of guests.
    #[schemars(range(min = 1, max = 7))]
    guests: u8,
    /// Name for the booking.
    #[schemars(length(min = 2, max = 10))]
    name: String,
    /// A lowercase code.
    #[schemars(regex(pattern = r"^[a-z]+$"))]
    code: String,
    /// Anything to tell the restaurant.
    note: Option<String>,
) -> String {
    format!(
        "{guests} for {name} ({code}){}",
        note.map(|n| format!(": {n}")).unwrap_or_default()
    )
}

/// A street address.
#[derive(Deserialize, JsonSchema)]
struct Address {
    /// The street.
    street: String,
    /// The house number.
    #[schemars(range(min = 1))]
    number: u32,
    /// Flat or floor.
    unit: Option<String>,
}

/// Ship a parcel.
#[tool]
async fn ship(address: Address, express: bool) -> String {
    format!(
        "{} {}{} ({})",
        address.number,
        address.street,
        address.unit.map(|u| format!(", {u}")).unwrap_or_default(),
        if express { "express" } else { "standard" }
    )
}

/// Find a train.
#[tool]
async fn train(
    /// Departure station.
    #[serde(rename = "from")]
    from_station: String,
    /// How many results (default 0: all).
    #[serde(default)]
    limit: u32,
    /// Direct trains only.
    direct: Option<bool>,
) -> String {
    format!("{from_station} limit={limit} direct={direct:?}")
}

/// Arguments with defaults.
#[tool]
async fn defaults(
    #[serde(default)] size: u32,
    #[serde(default)] label: String,
    #[serde(default)] flags: Vec<bool>,
) -> String {
    format!("{size} {label:?} {flags:?}")
}

/// Paging options shared by list tools.
#[derive(Deserialize, JsonSchema)]
struct Paging {
    /// The page, from 1.
    #[schemars(range(min = 1))]
    page: u32,
    /// Items per page.
    per_page: Option<u32>,
}

/// List the items.
#[tool]
async fn list_items(
    /// Only items containing this text.
    filter: Option<String>,
    #[serde(flatten)] paging: Paging,
) -> String {
    format!(
        "filter={filter:?} page={} per_page={:?}",
        paging.page, paging.per_page
    )
}

/// Get the weather forecast for a city.
///
/// Covers up to seven days from today.
///
/// # Arguments
///
/// * `city` - City name, for example "Paris".
/// * `days` - Number of days,
///   1 to 7.
#[tool]
async fn forecast(
    city: String,
    #[schemars(range(min = 1, max = 7))] days: Option<u8>,
    /// Metric units (this doc wins over the section).
    metric: bool,
) -> String {
    format!("{city} {days:?} {metric}")
}

/// Properties come in declaration order, not sorted.
#[tool]
async fn ordered(zeta: i32, alpha: i32, mu: i32, beta: i32) -> i32 {
    zeta + alpha + mu + beta
}

/// No parameters.
#[tool]
async fn ping() -> &'static str {
    "pong"
}

/// Counts the calls.
#[derive(Default)]
struct Calls(AtomicU32);

/// Takes injected values only, plus one argument.
#[tool]
async fn injected(
    ctx: Context,
    /// What to say.
    word: String,
    calls: State<Calls>,
    other: mcp_runtime::State<String>,
) -> String {
    let n = calls.0.fetch_add(1, Ordering::Relaxed) + 1;
    format!("{} {word} {n} {}", ctx.tool_name(), *other)
}

/// Takes only injected values.
#[tool]
async fn only_injected(_ctx: Context, _calls: State<Calls>) {}

/// Takes a list and a map.
#[tool]
async fn collections(tags: Vec<String>, scores: std::collections::BTreeMap<String, f64>) -> usize {
    tags.len() + scores.len()
}

// ---------------------------------------------------------------------------
// Helpers

fn registry() -> Registry {
    Server::new("arguments", "0.0.0")
        .state(Calls::default())
        .state(String::from("state"))
        .registry()
        .unwrap()
}

fn input_schema(registry: &Registry, name: &str) -> Value {
    Value::Object(registry.get(name).unwrap().input_schema().clone())
}

async fn call(registry: &Registry, name: &str, arguments: Value) -> CallToolResult {
    registry.call(name, arguments).await.unwrap()
}

/// Calls with invalid arguments and returns the error text.
async fn invalid(registry: &Registry, name: &str, arguments: Value) -> String {
    let result = call(registry, name, arguments).await;
    assert!(result.is_error, "{result:?}");
    assert_eq!(result.structured_content, None);
    assert_eq!(result.content.len(), 1);
    result.text()
}

fn message(tool: &str, problems: &[&str]) -> String {
    let mut text = format!("Invalid arguments for tool `{tool}`:\n");
    for problem in problems {
        text.push_str("- ");
        text.push_str(problem);
        text.push('\n');
    }
    text.push_str("Correct the arguments and call the tool again.");
    text
}

fn keys(schema: &Value) -> Vec<&str> {
    schema["properties"]
        .as_object()
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------
// Schemas

#[test]
fn schemas_are_closed_objects_without_schema_or_title() {
    let registry = registry();
    for tool in registry.tools() {
        let schema = Value::Object(tool.input_schema().clone());
        assert_eq!(schema["type"], "object", "{}: {schema}", tool.name());
        assert_eq!(
            schema["additionalProperties"],
            false,
            "{}: {schema}",
            tool.name()
        );
        assert!(schema.get("$schema").is_none(), "{}", tool.name());
        assert!(schema.get("title").is_none(), "{}", tool.name());
        assert!(
            jsonschema::draft202012::meta::is_valid(&schema),
            "{}: {schema}",
            tool.name()
        );
    }
}

#[test]
fn validation_keywords_are_forwarded() {
    assert_eq!(
        input_schema(&registry(), "book"),
        json!({
            "type": "object",
            "properties": {
                "guests": {
                    "description": "Number of guests.",
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 7
                },
                "name": {
                    "description": "Name for the booking.",
                    "type": "string",
                    "minLength": 2,
                    "maxLength": 10
                },
                "code": {
                    "description": "A lowercase code.",
                    "type": "string",
                    "pattern": "^[a-z]+$"
                },
                "note": {
                    "description": "Anything to tell the restaurant.",
                    "type": "string"
                }
            },
            "required": ["guests", "name", "code"],
            "additionalProperties": false
        })
    );
}

#[test]
fn a_tool_without_parameters_has_the_smallest_schema() {
    assert_eq!(
        input_schema(&registry(), "ping"),
        json!({"type": "object", "additionalProperties": false})
    );
}

#[test]
fn injected_parameters_are_not_in_the_schema() {
    let registry = registry();
    assert_eq!(
        input_schema(&registry, "injected"),
        json!({
            "type": "object",
            "properties": {"word": {"description": "What to say.", "type": "string"}},
            "required": ["word"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        input_schema(&registry, "only_injected"),
        json!({"type": "object", "additionalProperties": false})
    );
}

#[tokio::test]
async fn injected_parameters_are_provided_by_the_runtime() {
    let registry = registry();
    assert_eq!(
        call(&registry, "injected", json!({"word": "hi"}))
            .await
            .text(),
        "injected hi 1 state"
    );
    assert_eq!(
        call(&registry, "injected", json!({"word": "again"}))
            .await
            .text(),
        "injected again 2 state"
    );
    // A client cannot supply them.
    assert_eq!(
        invalid(&registry, "injected", json!({"word": "hi", "ctx": {}})).await,
        message(
            "injected",
            &["unknown argument `ctx` (valid arguments: `word`)"]
        )
    );
    assert_eq!(
        invalid(&registry, "only_injected", json!({"calls": 5})).await,
        message(
            "only_injected",
            &["unknown argument `calls` (this tool takes no arguments)"]
        )
    );
}

#[test]
fn properties_keep_the_declaration_order() {
    let registry = registry();
    assert_eq!(
        keys(&input_schema(&registry, "ordered")),
        ["zeta", "alpha", "mu", "beta"]
    );
    assert_eq!(
        input_schema(&registry, "ordered")["required"],
        json!(["zeta", "alpha", "mu", "beta"])
    );
    assert_eq!(
        keys(&input_schema(&registry, "book")),
        ["guests", "name", "code", "note"]
    );
}

#[test]
fn optional_parameters_are_not_required_and_not_nullable() {
    let registry = registry();
    let mut schema = input_schema(&registry, "train");
    // Checked in `a_serde_default_is_shown_as_the_default`.
    schema["properties"]["limit"]
        .as_object_mut()
        .unwrap()
        .remove("default");
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "from": {"description": "Departure station.", "type": "string"},
                "limit": {
                    "description": "How many results (default 0: all).",
                    "type": "integer",
                    "minimum": 0
                },
                "direct": {"description": "Direct trains only.", "type": "boolean"}
            },
            "required": ["from"],
            "additionalProperties": false
        })
    );
    // Nowhere in any schema is an optional property nullable.
    for tool in registry.tools() {
        let text = Value::Object(tool.input_schema().clone()).to_string();
        assert!(!text.contains("null"), "{}: {text}", tool.name());
    }
}

#[test]
fn a_serde_default_is_shown_as_the_default() {
    let registry = registry();
    assert_eq!(
        input_schema(&registry, "train")["properties"]["limit"]["default"],
        json!(0)
    );
    assert_eq!(
        input_schema(&registry, "defaults"),
        json!({
            "type": "object",
            "properties": {
                "size": {"type": "integer", "minimum": 0, "default": 0},
                "label": {"type": "string", "default": ""},
                "flags": {"type": "array", "items": {"type": "boolean"}, "default": []}
            },
            "additionalProperties": false
        })
    );
}

#[tokio::test]
async fn absent_defaulted_arguments_get_their_default() {
    let registry = registry();
    assert_eq!(
        call(&registry, "defaults", json!({})).await.text(),
        "0 \"\" []"
    );
    assert_eq!(
        call(
            &registry,
            "defaults",
            json!({"size": 1, "label": "x", "flags": [true]})
        )
        .await
        .text(),
        "1 \"x\" [true]"
    );
}

#[test]
fn doc_comments_and_an_arguments_section_become_descriptions() {
    let registry = registry();
    let tool = registry.get("forecast").unwrap();
    // The `# Arguments` section is taken out of the tool's description.
    assert_eq!(
        tool.description(),
        "Get the weather forecast for a city.\n\nCovers up to seven days from today."
    );
    assert_eq!(
        input_schema(&registry, "forecast"),
        json!({
            "type": "object",
            "properties": {
                "city": {"description": "City name, for example \"Paris\".", "type": "string"},
                "days": {
                    "description": "Number of days, 1 to 7.",
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 7
                },
                "metric": {
                    "description": "Metric units (this doc wins over the section).",
                    "type": "boolean"
                }
            },
            "required": ["city", "metric"],
            "additionalProperties": false
        })
    );
}

#[test]
fn nested_structs_are_inlined() {
    assert_eq!(
        input_schema(&registry(), "ship"),
        json!({
            "type": "object",
            "properties": {
                "address": {
                    "description": "A street address.",
                    "type": "object",
                    "properties": {
                        "street": {"description": "The street.", "type": "string"},
                        "number": {
                            "description": "The house number.",
                            "type": "integer",
                            "minimum": 1
                        },
                        "unit": {"description": "Flat or floor.", "type": "string"}
                    },
                    "required": ["street", "number"]
                },
                "express": {"type": "boolean"}
            },
            "required": ["address", "express"],
            "additionalProperties": false
        })
    );
}

#[test]
fn a_flattened_struct_becomes_top_level_properties() {
    assert_eq!(
        input_schema(&registry(), "list_items"),
        json!({
            "type": "object",
            "properties": {
                "filter": {"description": "Only items containing this text.", "type": "string"},
                "page": {
                    "description": "The page, from 1.",
                    "type": "integer",
                    "minimum": 1
                },
                "per_page": {"description": "Items per page.", "type": "integer", "minimum": 0}
            },
            "required": ["page"],
            "additionalProperties": false
        })
    );
}

// ---------------------------------------------------------------------------
// Valid calls

#[tokio::test]
async fn valid_arguments_reach_the_function() {
    let registry = registry();
    assert_eq!(
        call(
            &registry,
            "book",
            json!({"guests": 2, "name": "Ada", "code": "abc"})
        )
        .await,
        CallToolResult::success(vec![mcp_runtime::Content::text("2 for Ada (abc)")])
    );
    assert_eq!(
        call(
            &registry,
            "book",
            json!({"guests": 7, "name": "Grace", "code": "z", "note": "window"})
        )
        .await
        .text(),
        "7 for Grace (z): window"
    );
    assert_eq!(
        call(
            &registry,
            "ship",
            json!({"address": {"street": "Main St", "number": 5, "unit": "2B"}, "express": true})
        )
        .await
        .text(),
        "5 Main St, 2B (express)"
    );
    assert_eq!(
        call(
            &registry,
            "collections",
            json!({"tags": ["a", "b"], "scores": {"x": 1.5}})
        )
        .await
        .structured_content,
        Some(json!({"result": 3}))
    );
}

#[tokio::test]
async fn renamed_and_defaulted_parameters() {
    let registry = registry();
    assert_eq!(
        call(&registry, "train", json!({"from": "Lyon"}))
            .await
            .text(),
        "Lyon limit=0 direct=None"
    );
    assert_eq!(
        call(
            &registry,
            "train",
            json!({"from": "Lyon", "limit": 3, "direct": true})
        )
        .await
        .text(),
        "Lyon limit=3 direct=Some(true)"
    );
    // The Rust name is not an argument name.
    assert_eq!(
        invalid(&registry, "train", json!({"from_station": "Lyon"})).await,
        message(
            "train",
            &[
                "`/from`: missing required argument `from`",
                "unknown argument `from_station` (valid arguments: `from`, `limit`, `direct`)",
            ]
        )
    );
}

#[tokio::test]
async fn a_flattened_struct_is_filled_and_still_rejects_unknowns() {
    let registry = registry();
    assert_eq!(
        call(&registry, "list_items", json!({"page": 2}))
            .await
            .text(),
        "filter=None page=2 per_page=None"
    );
    assert_eq!(
        call(
            &registry,
            "list_items",
            json!({"page": 1, "per_page": 20, "filter": "x"})
        )
        .await
        .text(),
        "filter=Some(\"x\") page=1 per_page=Some(20)"
    );
    assert_eq!(
        invalid(&registry, "list_items", json!({"page": 1, "paging": {}})).await,
        message(
            "list_items",
            &["unknown argument `paging` (valid arguments: `filter`, `page`, `per_page`)"]
        )
    );
    assert_eq!(
        invalid(&registry, "list_items", json!({"page": 0})).await,
        message("list_items", &["`/page`: 0 is less than the minimum of 1"])
    );
}

#[tokio::test]
async fn null_arguments_mean_no_arguments() {
    let registry = registry();
    assert_eq!(call(&registry, "ping", Value::Null).await.text(), "pong");
    assert_eq!(
        call(&registry, "ping", Value::Object(Map::new()))
            .await
            .text(),
        "pong"
    );
    assert_eq!(
        invalid(&registry, "book", Value::Null).await,
        message(
            "book",
            &[
                "`/guests`: missing required argument `guests`",
                "`/name`: missing required argument `name`",
                "`/code`: missing required argument `code`",
            ]
        )
    );
}

// ---------------------------------------------------------------------------
// Invalid calls

#[tokio::test]
async fn out_of_range() {
    let registry = registry();
    let base = json!({"name": "Ada", "code": "abc"});
    let with = |guests: Value| {
        let mut arguments = base.clone();
        arguments["guests"] = guests;
        arguments
    };
    assert_eq!(
        invalid(&registry, "book", with(json!(8))).await,
        message("book", &["`/guests`: 8 is greater than the maximum of 7"])
    );
    assert_eq!(
        invalid(&registry, "book", with(json!(0))).await,
        message("book", &["`/guests`: 0 is less than the minimum of 1"])
    );
    // Beyond the Rust type's range: still a schema message, not a serde one.
    assert_eq!(
        invalid(&registry, "book", with(json!(300))).await,
        message("book", &["`/guests`: 300 is greater than the maximum of 7"])
    );
}

#[tokio::test]
async fn too_short_and_too_long() {
    let registry = registry();
    assert_eq!(
        invalid(
            &registry,
            "book",
            json!({"guests": 2, "name": "A", "code": "abc"})
        )
        .await,
        message("book", &[r#"`/name`: "A" is shorter than 2 characters"#])
    );
    assert_eq!(
        invalid(
            &registry,
            "book",
            json!({"guests": 2, "name": "Bartholomew", "code": "abc"})
        )
        .await,
        message(
            "book",
            &[r#"`/name`: "Bartholomew" is longer than 10 characters"#]
        )
    );
}

#[tokio::test]
async fn pattern_mismatch() {
    assert_eq!(
        invalid(
            &registry(),
            "book",
            json!({"guests": 2, "name": "Ada", "code": "ABC"})
        )
        .await,
        message("book", &[r#"`/code`: "ABC" does not match "^[a-z]+$""#])
    );
}

#[tokio::test]
async fn missing_required() {
    assert_eq!(
        invalid(&registry(), "book", json!({"guests": 2, "code": "abc"})).await,
        message("book", &["`/name`: missing required argument `name`"])
    );
}

#[tokio::test]
async fn wrong_type() {
    let registry = registry();
    assert_eq!(
        invalid(
            &registry,
            "book",
            json!({"guests": "two", "name": "Ada", "code": "abc"})
        )
        .await,
        message("book", &[r#"`/guests`: "two" is not of type "integer""#])
    );
    assert_eq!(
        invalid(
            &registry,
            "book",
            json!({"guests": 2.5, "name": "Ada", "code": "abc"})
        )
        .await,
        message("book", &[r#"`/guests`: 2.5 is not of type "integer""#])
    );
    // An explicit null for an optional argument is refused by the schema
    // (absent is how to say "none").
    assert_eq!(
        invalid(
            &registry,
            "book",
            json!({"guests": 2, "name": "Ada", "code": "abc", "note": null})
        )
        .await,
        message("book", &[r#"`/note`: null is not of type "string""#])
    );
    assert_eq!(
        invalid(
            &registry,
            "collections",
            json!({"tags": ["a", 1], "scores": {"x": "high"}})
        )
        .await,
        message(
            "collections",
            &[
                r#"`/tags/1`: 1 is not of type "string""#,
                r#"`/scores/x`: "high" is not of type "number""#,
            ]
        )
    );
}

#[tokio::test]
async fn unknown_arguments_list_the_valid_ones() {
    let registry = registry();
    assert_eq!(
        invalid(
            &registry,
            "book",
            json!({"guests": 2, "name": "Ada", "code": "abc", "guest": 3})
        )
        .await,
        message(
            "book",
            &["unknown argument `guest` (valid arguments: `guests`, `name`, `code`, `note`)"]
        )
    );
    assert_eq!(
        invalid(&registry, "ping", json!({"x": 1, "y": 2})).await,
        message(
            "ping",
            &["unknown arguments `x`, `y` (this tool takes no arguments)"]
        )
    );
}

#[tokio::test]
async fn every_violation_is_reported_at_once_with_its_path() {
    let text = invalid(
        &registry(),
        "book",
        json!({"guests": 9, "name": "A", "code": "A1", "colour": "red"}),
    )
    .await;
    assert_eq!(
        text,
        message(
            "book",
            &[
                "`/guests`: 9 is greater than the maximum of 7",
                r#"`/name`: "A" is shorter than 2 characters"#,
                r#"`/code`: "A1" does not match "^[a-z]+$""#,
                "unknown argument `colour` (valid arguments: `guests`, `name`, `code`, `note`)",
            ]
        )
    );
}

#[tokio::test]
async fn nested_violations_have_nested_paths() {
    let text = invalid(
        &registry(),
        "ship",
        json!({"address": {"number": 0, "unit": 3}}),
    )
    .await;
    assert_eq!(
        text,
        message(
            "ship",
            &[
                "`/address/street`: missing required property `street`",
                "`/address/number`: 0 is less than the minimum of 1",
                r#"`/address/unit`: 3 is not of type "string""#,
                "`/express`: missing required argument `express`",
            ]
        )
    );
}

#[tokio::test]
async fn the_function_does_not_run_with_invalid_arguments() {
    let registry = registry();
    invalid(&registry, "injected", json!({"word": 5})).await;
    invalid(&registry, "injected", json!({})).await;
    // The tool counts its runs in its state: the invalid calls did not run it.
    assert_eq!(
        call(&registry, "injected", json!({"word": "w"}))
            .await
            .text(),
        "injected w 1 state"
    );
}

#[tokio::test]
async fn arguments_that_are_not_an_object_are_a_call_error() {
    let registry = registry();
    for arguments in [json!([1, 2]), json!("text"), json!(3), json!(true)] {
        assert_eq!(
            registry.call("ping", arguments).await.unwrap_err(),
            CallError::ArgumentsNotAnObject
        );
    }
    assert_eq!(
        CallError::ArgumentsNotAnObject.to_string(),
        "Invalid params: `arguments` must be an object"
    );
}

#[tokio::test]
async fn an_unknown_tool_is_a_call_error() {
    let registry = registry();
    let error = registry.call("pong", json!({})).await.unwrap_err();
    assert_eq!(error, CallError::UnknownTool("pong".into()));
    assert_eq!(error.to_string(), "Unknown tool: pong");
    // The name is checked before the arguments.
    assert_eq!(
        registry.call("pong", json!([])).await.unwrap_err(),
        CallError::UnknownTool("pong".into())
    );
}
