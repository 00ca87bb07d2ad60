use mcp_runtime::tool;

struct Report {
    lines: Vec<String>,
}

/// Returns a type that is not serializable.
#[tool]
async fn report(title: String) -> Report {
    Report { lines: vec![title] }
}

fn main() {}
