use mcp_runtime::{PromptMessage, prompt};

#[derive(Debug)]
struct Unavailable;

/// Returns an error the client cannot be told about.
#[prompt]
async fn review(code: String) -> Result<Vec<PromptMessage>, Unavailable> {
    let _ = code;
    Err(Unavailable)
}

fn main() {}
