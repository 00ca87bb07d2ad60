use mcp_runtime::tool;

struct Point {
    x: f64,
    y: f64,
}

/// Takes a type that is neither Deserialize nor JsonSchema, with an
/// attribute that changes how it is read.
#[tool]
async fn distance(#[serde(alias = "start")] from: Point, to: f64) -> f64 {
    from.x + from.y + to
}

fn main() {}
