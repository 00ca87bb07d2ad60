//! Start-up checks of the set of tools: duplicate names, the include and
//! exclude filters, and `State<T>` that was never registered.
//!
//! This binary links two tools both named `same`, so a server that serves
//! every tool cannot start; the other tests filter one or both out.

use std::sync::atomic::{AtomicU32, Ordering};

use mcp_runtime::{Primitive, RegistryError, Server, tool};
use serde_json::json;

mod first {
    use mcp_runtime::tool;

    pub const LINE: u32 = line!() + 1;
    #[tool(name = "same", description = "The first tool named `same`.")]
    pub async fn same_one() -> &'static str {
        "one"
    }
}

mod second {
    use mcp_runtime::tool;

    pub const LINE: u32 = line!() + 3;
    /// The second tool named `same`. Its `#[tool]` attribute is below the
    /// doc comment, and that attribute's line is the one reported.
    #[tool(name = "same")]
    pub async fn same_two() -> &'static str {
        "two"
    }
}

/// Say hello.
#[tool]
async fn hello() -> &'static str {
    "hello"
}

/// Say goodbye.
#[tool]
async fn goodbye() -> &'static str {
    "goodbye"
}

/// Shared state for `count`.
#[derive(Default)]
struct Counter(AtomicU32);

const COUNT_LINE: u32 = line!() + 2;
/// Count the calls.
#[tool]
async fn count(counter: mcp_runtime::State<Counter>) -> String {
    (counter.0.fetch_add(1, Ordering::Relaxed) + 1).to_string()
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
fn two_tools_with_one_name_are_refused_with_both_locations() {
    let server = Server::new("dups", "0.0.0").state(Counter::default());
    let error = server.registry().unwrap_err();
    let RegistryError::DuplicateName {
        name,
        first,
        second,
    } = &error
    else {
        panic!("expected DuplicateName, got {error:?}");
    };
    assert_eq!(name, "same");
    // Both in this file; the first is the one defined first.
    assert_eq!(first.file, file!());
    assert_eq!(first.line, first::LINE);
    assert_eq!(first.module, "duplicates::first");
    assert_eq!(second.file, file!());
    assert_eq!(second.line, second::LINE);
    assert_eq!(second.module, "duplicates::second");
    assert_eq!(
        error.to_string(),
        format!(
            "cannot start the MCP server: two tools are named `same`, one defined at {file}:{a} \
             and the other at {file}:{b}; rename one of them, for example with \
             `#[tool(name = \"new_name\")]` (`Server::exclude_tools([\"same\"])` would leave \
             out both)",
            file = file!(),
            a = first::LINE,
            b = second::LINE,
        )
    );
    assert_eq!(
        first.to_string(),
        format!("tests/duplicates.rs:{}", first::LINE)
    );
}

#[test]
fn duplicates_are_reported_even_when_state_is_also_missing() {
    // Names are checked first: both problems exist here, and the one whose
    // fix changes the set of tools is reported.
    let error = Server::new("dups", "0.0.0").registry().unwrap_err();
    assert!(
        matches!(error, RegistryError::DuplicateName { .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn excluding_a_duplicated_name_leaves_out_every_tool_with_it() {
    let registry = Server::new("dups", "0.0.0")
        .state(Counter::default())
        .exclude_tools(["same"])
        .registry()
        .unwrap();
    let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    assert_eq!(names, ["count", "goodbye", "hello"]);
    assert!(registry.get("same").is_none());
    assert_eq!(
        registry.call("same", json!({})).await.unwrap_err(),
        mcp_runtime::CallError::UnknownTool("same".into())
    );
}

#[tokio::test]
async fn include_serves_only_the_named_tools() {
    let server = Server::new("dups", "0.0.0").include_tools(["hello", "goodbye"]);
    // `count` is not served, so its missing state is not an error either.
    assert_eq!(names(&server), ["goodbye", "hello"]);
    let registry = server.registry().unwrap();
    assert_eq!(
        registry.call("hello", json!({})).await.unwrap().text(),
        "hello"
    );
    assert!(registry.call("count", json!({})).await.is_err());
}

#[test]
fn include_and_exclude_combine_and_accumulate() {
    let server = Server::new("dups", "0.0.0")
        .include_tools(["hello"])
        .include_tools(vec![String::from("goodbye"), String::from("count")])
        .exclude_tools(["count"]);
    assert_eq!(names(&server), ["goodbye", "hello"]);

    let server = Server::new("dups", "0.0.0")
        .exclude_tools(["same"])
        .exclude_tools(["count", "hello"]);
    assert_eq!(names(&server), ["goodbye"]);
}

#[test]
fn including_a_duplicated_name_still_reports_the_duplicate() {
    let error = Server::new("dups", "0.0.0")
        .include_tools(["same"])
        .registry()
        .unwrap_err();
    assert!(
        matches!(&error, RegistryError::DuplicateName { name, .. } if name == "same"),
        "{error:?}"
    );
}

#[test]
fn a_filter_naming_an_unknown_tool_is_an_error() {
    for server in [
        Server::new("dups", "0.0.0").exclude_tools(["same", "helo"]),
        Server::new("dups", "0.0.0").include_tools(["hello", "helo"]),
    ] {
        let error = server.registry().unwrap_err();
        let RegistryError::UnknownFilterName { name, known } = &error else {
            panic!("expected UnknownFilterName, got {error:?}");
        };
        assert_eq!(name, "helo");
        // Each name once, sorted, even though two tools are named `same`.
        assert_eq!(known, "count, goodbye, hello, same");
        assert_eq!(
            error.to_string(),
            "cannot start the MCP server: `Server::include_tools` or `exclude_tools` names \
             `helo`, but no tool has that name; remove it, or use one of the tools' names: \
             count, goodbye, hello, same"
        );
    }
}

#[test]
fn state_that_was_never_registered_is_an_error_naming_tool_and_type() {
    let error = Server::new("dups", "0.0.0")
        .exclude_tools(["same"])
        .registry()
        .unwrap_err();
    let RegistryError::MissingState {
        kind,
        name: tool,
        location,
        type_name,
    } = &error
    else {
        panic!("expected MissingState, got {error:?}");
    };
    assert_eq!(tool, "count");
    assert_eq!(*kind, Primitive::Tool);
    assert_eq!(*type_name, "duplicates::Counter");
    assert_eq!(location.file, file!());
    assert_eq!(location.line, COUNT_LINE);
    assert_eq!(
        error.to_string(),
        format!(
            "cannot start the MCP server: the tool `count` (defined at \
             tests/duplicates.rs:{COUNT_LINE}) takes `State<duplicates::Counter>`, but no \
             `duplicates::Counter` was registered; add one with \
             `Server::new(..).state(value)`, where `value` is a `duplicates::Counter`"
        )
    );
}

#[test]
fn state_of_another_type_does_not_count() {
    let error = Server::new("dups", "0.0.0")
        .exclude_tools(["same"])
        .state(AtomicU32::new(0))
        .state(String::from("not a counter"))
        .registry()
        .unwrap_err();
    assert!(
        matches!(&error, RegistryError::MissingState { name, .. } if name == "count"),
        "{error:?}"
    );
}

#[tokio::test]
async fn registered_state_is_injected_and_shared_between_calls() {
    let registry = Server::new("dups", "0.0.0")
        .exclude_tools(["same"])
        .state(Counter::default())
        .registry()
        .unwrap();
    for expected in ["1", "2", "3"] {
        let result = registry.call("count", json!({})).await.unwrap();
        assert!(!result.is_error);
        assert_eq!(result.text(), expected);
    }
    // The state is not part of the tool's input.
    assert_eq!(
        json!(registry.get("count").unwrap().input_schema()),
        json!({"type": "object", "additionalProperties": false})
    );
}

#[tokio::test]
async fn shared_state_is_the_same_arc() {
    let counter = std::sync::Arc::new(Counter::default());
    counter.0.store(41, Ordering::Relaxed);
    let registry = Server::new("dups", "0.0.0")
        .exclude_tools(["same"])
        .shared_state(std::sync::Arc::clone(&counter))
        .registry()
        .unwrap();
    assert_eq!(
        registry.call("count", json!(null)).await.unwrap().text(),
        "42"
    );
    assert_eq!(counter.0.load(Ordering::Relaxed), 42);
}

#[tokio::test]
async fn the_last_registered_value_of_a_type_wins() {
    let replaced = Counter::default();
    replaced.0.store(100, Ordering::Relaxed);
    let registry = Server::new("dups", "0.0.0")
        .exclude_tools(["same"])
        .state(Counter::default())
        .state(replaced)
        .registry()
        .unwrap();
    assert_eq!(
        registry.call("count", json!({})).await.unwrap().text(),
        "101"
    );
}
