use mcp_runtime::tool;

/// A header needs a name.
#[tool]
async fn execute_sql(#[header("")] region: String, query: String) -> String {
    format!("{query} in {region}")
}

fn main() {}
