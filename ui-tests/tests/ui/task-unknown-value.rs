use mcp_runtime::tool;

/// Asks for a task support that does not exist.
#[tool(task = "always")]
async fn train(epochs: u32) -> String {
    epochs.to_string()
}

fn main() {}
