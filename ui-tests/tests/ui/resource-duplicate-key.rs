use mcp_runtime::resource;

/// Repeats a key.
#[resource("config://app", mime_type = "text/plain", mime_type = "text/markdown")]
async fn settings() -> String {
    String::new()
}

fn main() {}
