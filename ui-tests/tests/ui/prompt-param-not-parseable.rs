use mcp_runtime::prompt;

struct Point {
    x: f64,
    y: f64,
}

/// Takes an argument that cannot be read from text.
#[prompt]
async fn describe(origin: Point, label: String) -> String {
    format!("{label} at {}, {}", origin.x, origin.y)
}

fn main() {}
