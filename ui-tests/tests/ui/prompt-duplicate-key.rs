use mcp_runtime::prompt;

/// Repeats a key.
#[prompt(title = "Review", title = "Code review")]
async fn review(code: String) -> String {
    code
}

fn main() {}
