use mcp_runtime::tool;

/// Has a space in its name.
#[tool(name = "get forecast")]
async fn echo(value: String) -> String {
    value
}

fn main() {}
