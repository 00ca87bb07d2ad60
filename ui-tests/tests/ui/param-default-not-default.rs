use mcp_runtime::schemars::JsonSchema;
use mcp_runtime::serde::Deserialize;
use mcp_runtime::tool;

#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde")]
#[schemars(crate = "mcp_runtime::schemars")]
struct Point {
    x: f64,
    y: f64,
}

/// A bare `#[serde(default)]` on a type without `Default`.
#[tool]
async fn distance(#[serde(default)] from: Point, to: f64) -> f64 {
    from.x + from.y + to
}

fn main() {}
