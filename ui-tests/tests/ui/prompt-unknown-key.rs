use mcp_runtime::prompt;

/// Uses a key only tools have.
#[prompt(read_only)]
async fn review(code: String) -> String {
    code
}

fn main() {}
