use mcp_runtime::prompt;

/// Lists a scope twice.
#[prompt(scopes = ["review", "code:read", "review"])]
async fn review(code: String) -> String {
    code
}

fn main() {}
