use mcp_runtime::resource;

/// Forgets the URI.
#[resource(name = "settings")]
async fn settings() -> String {
    String::new()
}

fn main() {}
