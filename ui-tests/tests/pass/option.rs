//! `Option<T>` parameters are optional and carry no `null` in their type.

use mcp_runtime::{Server, serde_json::json, tool};

/// Count down.
#[tool]
async fn countdown(from: Option<u32>, label: Option<String>) -> String {
    format!("{} {}", from.unwrap_or(10), label.unwrap_or_default())
}

fn main() {
    let registry = Server::new("t", "1").registry().unwrap();
    let schema = json!(registry.get("countdown").unwrap().input_schema());
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "from": {"type": "integer", "minimum": 0},
                "label": {"type": "string"}
            },
            "additionalProperties": false
        }),
        "{schema:#}"
    );
}
