use mcp_runtime::{Context, prompt};

async fn contexts(prefix: String) -> Vec<String> {
    vec![prefix]
}

/// Completes a parameter the client does not give.
#[prompt]
async fn review(#[complete(contexts)] ctx: Context, code: String) -> String {
    let _ = ctx;
    code
}

fn main() {}
