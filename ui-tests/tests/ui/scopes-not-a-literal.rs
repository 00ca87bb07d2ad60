use mcp_runtime::tool;

const WEATHER_READ: &str = "weather:read";

/// Names a scope through a constant, which the attribute cannot read.
#[tool(scopes = [WEATHER_READ])]
async fn forecast(city: String) -> String {
    city
}

fn main() {
    let _ = WEATHER_READ;
}
