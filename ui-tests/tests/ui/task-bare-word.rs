use mcp_runtime::tool;

/// Writes the value without quotes.
#[tool(task = optional)]
async fn train(epochs: u32) -> String {
    epochs.to_string()
}

fn main() {}
