use mcp_runtime::tool;

/// Destructures its argument.
#[tool]
async fn add((a, b): (i32, i32)) -> i32 {
    a + b
}

fn main() {}
