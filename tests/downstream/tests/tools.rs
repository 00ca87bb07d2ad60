//! The tools of this crate, seen through the public API only.

use downstream::Notebook;
use mcp_runtime::Server;
use mcp_runtime::serde_json::{Value, json};

fn server() -> Server {
    Server::new("downstream", env!("CARGO_PKG_VERSION")).state(Notebook::default())
}

#[test]
fn both_modules_tools_are_listed_with_their_schemas() {
    let registry = server().registry().expect("valid registry");
    let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    assert_eq!(names, ["add", "save_note"]);

    let add = registry.get("add").unwrap();
    assert_eq!(
        add.to_json(),
        json!({
            "name": "add",
            "description": "Add two integers.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer", "description": "The first term."},
                    "b": {"type": "integer", "description": "The second term, 0 if left out."}
                },
                "required": ["a"],
                "additionalProperties": false
            },
            "outputSchema": {
                "type": "object",
                "properties": {"result": {"type": "integer"}},
                "required": ["result"]
            },
            "annotations": {"readOnlyHint": true}
        })
    );

    let save = registry.get("save_note").unwrap();
    assert_eq!(save.title(), Some("Save note"));
    assert_eq!(
        Value::Object(save.input_schema().clone()),
        json!({
            "type": "object",
            "properties": {
                "note": {
                    "type": "object",
                    "description": "The note to save.",
                    "properties": {
                        "title": {"type": "string", "description": "What the note is about."},
                        "tags": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "Labels to find it by.",
                            "default": []
                        }
                    },
                    "required": ["title"]
                }
            },
            "required": ["note"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        Value::Object(save.output_schema().unwrap().clone()),
        json!({
            "type": "object",
            "description": "How many notes the notebook holds.",
            "properties": {
                "count": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "The number of notes after saving."
                }
            },
            "required": ["count"]
        })
    );
}

#[tokio::test]
async fn tools_can_be_called() {
    let registry = server().registry().unwrap();

    let sum = registry
        .call("add", json!({"a": 2, "b": 40}))
        .await
        .unwrap();
    assert_eq!(sum.structured_content, Some(json!({"result": 42})));

    let args = json!({"note": {"title": "Buy milk", "tags": ["errands"]}});
    let saved = registry.call("save_note", args).await.unwrap();
    assert_eq!(saved.structured_content, Some(json!({"count": 1})));

    let refused = registry
        .call("save_note", json!({"note": {"title": " "}}))
        .await
        .unwrap();
    assert!(refused.is_error);
    assert_eq!(refused.text(), "a note needs a title");
}

#[test]
fn missing_state_is_reported_at_start_up() {
    let error = Server::new("downstream", "0")
        .registry()
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("State<downstream::notes::Notebook>"),
        "{error}"
    );
}
