use mcp_runtime::resource;

/// Requires an empty scope.
#[resource("config://app", scopes = ["config:read", ""])]
async fn settings() -> String {
    String::new()
}

fn main() {}
