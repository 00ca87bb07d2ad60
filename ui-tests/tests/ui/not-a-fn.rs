use mcp_runtime::tool;

/// Not a function.
#[tool]
struct Weather;

fn main() {}
