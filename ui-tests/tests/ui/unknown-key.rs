use mcp_runtime::tool;

/// Misspells a key.
#[tool(readonly)]
async fn echo(value: String) -> String {
    value
}

fn main() {}
