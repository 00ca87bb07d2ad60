use mcp_runtime::tool;

/// Add two integers.
#[tool(read_only)]
async fn add(
    /// The first term.
    a: i64,
    /// The second term, 0 if left out.
    b: Option<i64>,
) -> i64 {
    a + b.unwrap_or(0)
}
