use mcp_runtime::tool;

/// Says twice how it runs as a task.
#[tool(task = "optional", read_only, task = "required")]
async fn train(epochs: u32) -> String {
    epochs.to_string()
}

fn main() {}
