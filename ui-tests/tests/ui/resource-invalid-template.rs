use mcp_runtime::resource;

/// Uses a query expansion, which the runtime does not match.
#[resource("search://results{?query}")]
async fn search(query: String) -> String {
    query
}

fn main() {}
