use mcp_runtime::resource;

/// A relative path is not a URI.
#[resource("settings/app.json")]
async fn settings() -> String {
    String::new()
}

fn main() {}
