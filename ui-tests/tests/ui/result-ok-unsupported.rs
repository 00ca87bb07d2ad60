use mcp_runtime::tool;

struct Report {
    lines: Vec<String>,
}

/// Returns a `Result` whose `Ok` type cannot be returned.
#[tool]
async fn report(title: String) -> Result<Report, String> {
    Ok(Report { lines: vec![title] })
}

fn main() {}
