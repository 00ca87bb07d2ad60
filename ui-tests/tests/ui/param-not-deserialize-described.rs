use mcp_runtime::tool;

struct Point {
    x: f64,
    y: f64,
}

/// Takes a type that is neither Deserialize nor JsonSchema, with attributes
/// that only describe the parameters.
#[tool]
async fn distance(
    #[schemars(description = "Where from.")] from: Point,
    #[schemars(range(min = 0))] to: f64,
) -> f64 {
    from.x + from.y + to
}

fn main() {}
