use mcp_runtime::tool;

/// Repeats a key.
#[tool(title = "Echo", title = "Echo again")]
async fn echo(value: String) -> String {
    value
}

fn main() {}
