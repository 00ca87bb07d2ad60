use mcp_runtime::tool;

/// A header name is an HTTP token: no spaces or colons.
#[tool]
async fn execute_sql(#[header("Cloud Region")] region: String, query: String) -> String {
    format!("{query} in {region}")
}

fn main() {}
