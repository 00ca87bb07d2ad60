use mcp_runtime::serde::Deserialize;
use mcp_runtime::tool;

#[derive(Deserialize)]
#[serde(crate = "mcp_runtime::serde")]
struct Point {
    x: f64,
    y: f64,
}

/// Takes a type that is `Deserialize` but not `JsonSchema`.
#[tool]
async fn norm(point: Point) -> f64 {
    point.x.hypot(point.y)
}

fn main() {}
