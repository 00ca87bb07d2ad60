use mcp_runtime::prompt;

fn by_number(n: u32) -> Vec<String> {
    vec![n.to_string()]
}

/// Names a completion function that does not take the prefix.
#[prompt]
async fn review(#[complete(by_number)] language: String) -> String {
    language
}

fn main() {}
