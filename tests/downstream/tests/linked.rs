//! Linking the `extra` crate adds its tools to the library's, without
//! naming any of them: `tools.rs`, which does not link it, sees two tools.

use extra as _;

use downstream::Notebook;
use mcp_runtime::Server;
use mcp_runtime::serde_json::json;

#[tokio::test]
async fn a_linked_crate_adds_its_tools() {
    let registry = Server::new("downstream", env!("CARGO_PKG_VERSION"))
        .state(Notebook::default())
        .registry()
        .expect("valid registry");
    let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    assert_eq!(names, ["add", "count_words", "repeat", "save_note"]);

    let counts = registry
        .call("count_words", json!({"text": "a few words"}))
        .await
        .unwrap();
    assert_eq!(
        counts.structured_content,
        Some(json!({"words": 3, "characters": 11}))
    );
}
