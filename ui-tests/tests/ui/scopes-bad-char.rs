use mcp_runtime::tool;

/// Writes two scopes as one, as a token's `scope` claim would.
#[tool(scopes = ["weather:read weather:write"])]
async fn forecast(city: String) -> String {
    city
}

fn main() {}
