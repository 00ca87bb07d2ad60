use mcp_runtime::tool;

/// MCP does not mirror numbers that are not integers.
#[tool]
async fn scale(#[header("Factor")] factor: Option<f64>, value: f64) -> String {
    format!("{}", value * factor.unwrap_or(1.0))
}

fn main() {}
