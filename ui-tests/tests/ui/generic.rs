use mcp_runtime::tool;

/// Generic.
#[tool]
async fn echo<T: ToString>(value: String) -> String {
    value
}

fn main() {}
