use mcp_runtime::prompt;

/// Only tool arguments are mirrored.
#[prompt]
async fn review(#[header("Language")] language: String) -> String {
    format!("Review this {language} code.")
}

fn main() {}
