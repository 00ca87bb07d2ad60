use mcp_runtime::tool;

/// Cannot be both.
#[tool(read_only, destructive)]
async fn wipe(path: String) -> String {
    path
}

fn main() {}
