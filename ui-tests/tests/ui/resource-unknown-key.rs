use mcp_runtime::resource;

/// Misspells a key.
#[resource("config://app", mimetype = "application/json")]
async fn settings() -> String {
    String::new()
}

fn main() {}
