//! Collection at link time: every `#[tool]` in every linked crate ends up in
//! the registry, wherever it is defined, sorted by name.
//!
//! This test binary links the tools defined below (in two modules) and the
//! `reverse` tool of `tests/second-crate`, and nothing else.

use mcp_runtime::Server;
use serde_json::{Value, json};

// The linking caveat: `inventory` only sees crates that are linked, and a
// crate the binary never names is not linked, even when it is a dependency.
// `second-crate` is a dev-dependency of every test binary of this package,
// yet only the binaries that name it serve its `reverse` tool (see
// `an_unnamed_crate_is_not_linked` in tests/dynamic.rs, whose binary does not
// name it). This line is the fix: it names the crate without importing anything.
use second_crate as _;

mod maths {
    use mcp_runtime::tool;

    /// Add two numbers.
    #[tool(read_only)]
    pub async fn add(a: i64, b: i64) -> i64 {
        a + b
    }

    /// Multiply two numbers.
    #[tool]
    pub async fn multiply(a: i64, b: i64) -> i64 {
        a * b
    }
}

mod text {
    use mcp_runtime::tool;

    /// Shout the text back.
    #[tool]
    pub async fn upper(text: String) -> String {
        text.to_uppercase()
    }

    pub mod nested {
        use mcp_runtime::tool;

        /// Count the characters of a text.
        #[tool]
        pub async fn char_count(text: String) -> usize {
            text.chars().count()
        }
    }
}

fn names(server: &Server) -> Vec<String> {
    let registry = server.registry().expect("the registry builds");
    registry
        .tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect()
}

#[test]
fn every_linked_tool_is_collected_sorted_by_name() {
    let server = Server::new("collect", "0.0.0");
    assert_eq!(
        names(&server),
        ["add", "char_count", "multiply", "reverse", "upper"]
    );
    let registry = server.registry().unwrap();
    assert_eq!(registry.len(), 5);
    assert!(!registry.is_empty());
}

#[test]
fn each_tool_knows_where_it_was_defined() {
    let registry = Server::new("collect", "0.0.0").registry().unwrap();
    let module = |name: &str| registry.get(name).unwrap().location().module;
    assert_eq!(module("add"), "collect::maths");
    assert_eq!(module("multiply"), "collect::maths");
    assert_eq!(module("upper"), "collect::text");
    assert_eq!(module("char_count"), "collect::text::nested");
    assert_eq!(module("reverse"), "second_crate");

    for name in ["add", "multiply", "upper", "char_count"] {
        assert_eq!(registry.get(name).unwrap().location().file, file!());
    }
    let reverse = registry.get("reverse").unwrap().location();
    assert!(
        reverse.file.ends_with("second-crate/src/lib.rs"),
        "{reverse:?}"
    );
    assert_eq!(reverse.line, 6, "the line of its #[tool] attribute");
}

#[tokio::test]
async fn tools_from_every_module_and_crate_are_callable() {
    let registry = Server::new("collect", "0.0.0").registry().unwrap();

    let sum = registry
        .call("add", json!({"a": 2, "b": 40}))
        .await
        .unwrap();
    assert_eq!(sum.structured_content, Some(json!({"result": 42})));

    let product = registry
        .call("multiply", json!({"a": 6, "b": 7}))
        .await
        .unwrap();
    assert_eq!(product.structured_content, Some(json!({"result": 42})));

    let upper = registry
        .call("upper", json!({"text": "abc"}))
        .await
        .unwrap();
    assert_eq!(upper.text(), "ABC");
    assert!(!upper.is_error);

    let count = registry
        .call("char_count", json!({"text": "héllo"}))
        .await
        .unwrap();
    assert_eq!(count.structured_content, Some(json!({"result": 5})));

    let reversed = registry
        .call("reverse", json!({"text": "stressed"}))
        .await
        .unwrap();
    assert_eq!(reversed.text(), "desserts");
    assert_eq!(reversed.structured_content, None);
}

#[test]
fn a_tool_from_another_crate_is_listed_in_full() {
    let registry = Server::new("collect", "0.0.0").registry().unwrap();
    assert_eq!(
        registry.get("reverse").unwrap().to_json(),
        json!({
            "name": "reverse",
            "description": "Reverse a string.",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "idempotentHint": true}
        })
    );
}

#[test]
fn the_list_is_the_same_for_every_registry_built() {
    let list = |server: &Server| -> Vec<Value> {
        server
            .registry()
            .unwrap()
            .tools()
            .iter()
            .map(|t| t.to_json())
            .collect()
    };
    let server = Server::new("collect", "0.0.0");
    let first = list(&server);
    assert_eq!(first.len(), 5);
    assert_eq!(first, list(&server));
    assert_eq!(first, list(&Server::new("other", "1.0.0")));
}
