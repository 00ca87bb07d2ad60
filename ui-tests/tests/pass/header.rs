//! `#[header("Name")]` adds `x-mcp-header` to the parameter's property, under
//! its serde name, for strings, integers, bools, aliases of them and
//! `Option`s of them, alongside the other forwarded attributes; an integer
//! gets bounds within ±(2^53 − 1), the range a header may carry.

use mcp_runtime::{Server, serde_json::json, tool};

type Tenant = String;

/// Run a query.
#[tool]
async fn execute_sql(
    /// Where to run it.
    #[header("Region")]
    #[serde(rename = "cloudRegion")]
    region: String,
    #[header("Tenant-ID")] tenant: Option<Tenant>,
    #[header("Dry_Run")] dry_run: bool,
    #[header("x.limit")]
    #[serde(default)]
    limit: i64,
    query: String,
) -> String {
    format!("{query} {region} {tenant:?} {dry_run} {limit}")
}

fn main() {
    let registry = Server::new("t", "1").registry().unwrap();
    let schema = json!(registry.get("execute_sql").unwrap().input_schema());
    assert_eq!(
        schema["properties"],
        json!({
            "cloudRegion": {
                "type": "string",
                "description": "Where to run it.",
                "x-mcp-header": "Region"
            },
            "tenant": {"type": "string", "x-mcp-header": "Tenant-ID"},
            "dry_run": {"type": "boolean", "x-mcp-header": "Dry_Run"},
            "limit": {
                "type": "integer",
                "default": 0,
                "x-mcp-header": "x.limit",
                "minimum": -9_007_199_254_740_991_i64,
                "maximum": 9_007_199_254_740_991_i64
            },
            "query": {"type": "string"}
        }),
        "{schema:#}"
    );
}
