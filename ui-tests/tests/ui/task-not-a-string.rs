use mcp_runtime::tool;

/// Gives a number for the task support.
#[tool(task = 1)]
async fn train(epochs: u32) -> String {
    epochs.to_string()
}

fn main() {}
