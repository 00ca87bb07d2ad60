use mcp_runtime::prompt;

/// Returns a number, which is no message.
#[prompt]
async fn count(text: String) -> usize {
    text.len()
}

fn main() {}
