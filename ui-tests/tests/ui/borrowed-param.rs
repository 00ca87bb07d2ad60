use mcp_runtime::tool;

/// Takes a borrowed string.
#[tool]
async fn echo(value: &str) -> String {
    value.to_owned()
}

fn main() {}
