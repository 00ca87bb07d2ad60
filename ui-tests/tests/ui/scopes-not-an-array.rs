use mcp_runtime::tool;

/// Gives one scope without the brackets.
#[tool(scopes = "weather:read")]
async fn forecast(city: String) -> String {
    city
}

fn main() {}
