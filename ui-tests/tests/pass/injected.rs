//! `Context` and `State<T>` parameters are injected and left out of the schema.

use mcp_runtime::{Context, Server, State, serde_json::json, tool};

struct Greeting(String);

/// Greet with the configured greeting.
#[tool]
async fn greet(ctx: Context, name: String, greeting: State<Greeting>) -> String {
    format!("{} {name} from {}", greeting.0, ctx.tool_name())
}

fn main() {
    let registry = Server::new("t", "1")
        .state(Greeting("hi".into()))
        .registry()
        .unwrap();
    let schema = json!(registry.get("greet").unwrap().input_schema());
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
            "additionalProperties": false
        })
    );
}
