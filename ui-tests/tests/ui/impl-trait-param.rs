use mcp_runtime::tool;

/// Takes impl Trait.
#[tool]
async fn echo(value: impl ToString) -> String {
    value.to_string()
}

fn main() {}
