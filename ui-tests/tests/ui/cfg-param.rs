use mcp_runtime::tool;

/// Has a conditional parameter.
#[tool]
async fn echo(value: String, #[cfg(feature = "loud")] _loud: bool) -> String {
    value
}

fn main() {}
