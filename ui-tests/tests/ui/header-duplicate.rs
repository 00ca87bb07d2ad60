use mcp_runtime::tool;

/// Header names are case-insensitive, so these two are one header.
#[tool]
async fn execute_sql(
    #[header("Region")] region: String,
    #[header("REGION")] fallback_region: Option<String>,
    query: String,
) -> String {
    format!("{query} in {region} or {fallback_region:?}")
}

fn main() {}
