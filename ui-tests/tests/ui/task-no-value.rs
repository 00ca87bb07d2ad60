use mcp_runtime::tool;

/// Names the key without a value.
#[tool(task)]
async fn train(epochs: u32) -> String {
    epochs.to_string()
}

fn main() {}
