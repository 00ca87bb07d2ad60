use mcp_runtime::tool;

struct Point {
    x: f64,
    y: f64,
}

/// Takes a type that is neither Deserialize nor JsonSchema.
#[tool]
async fn distance(from: Point, to: f64) -> f64 {
    from.x + from.y + to
}

fn main() {}
