//! The output form comes from the type, not its spelling: an alias of a
//! struct gets an `outputSchema`, an alias of `String` does not.

use mcp_runtime::schemars::JsonSchema;
use mcp_runtime::serde::Serialize;
use mcp_runtime::{Server, serde_json::json, tool};

#[derive(Serialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde")]
#[schemars(crate = "mcp_runtime::schemars")]
struct Point {
    x: i32,
    y: i32,
}

type Answer = Point;
type Text = String;
type Outcome = Result<Answer, std::io::Error>;

/// Origin.
#[tool]
async fn origin() -> Answer {
    Point { x: 0, y: 0 }
}

/// Hello.
#[tool]
async fn hello() -> Text {
    "hello".into()
}

/// Maybe origin.
#[tool]
async fn maybe_origin() -> Outcome {
    Ok(Point { x: 0, y: 0 })
}

fn main() {
    let registry = Server::new("t", "1").registry().unwrap();
    let expected = json!({
        "type": "object",
        "properties": {
            "x": {"type": "integer"},
            "y": {"type": "integer"}
        },
        "required": ["x", "y"]
    });
    assert_eq!(json!(registry.get("origin").unwrap().output_schema()), expected);
    assert_eq!(json!(registry.get("maybe_origin").unwrap().output_schema()), expected);
    assert!(registry.get("hello").unwrap().output_schema().is_none());
}
