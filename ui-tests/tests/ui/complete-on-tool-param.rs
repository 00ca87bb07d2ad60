use mcp_runtime::tool;

async fn languages(prefix: String) -> Vec<String> {
    vec![prefix]
}

/// Tool arguments are not completed.
#[tool]
async fn format_code(#[complete(languages)] language: String, code: String) -> String {
    format!("{language}: {code}")
}

fn main() {}
