use mcp_runtime::tool;
use std::rc::Rc;

async fn pause() {}

/// Holds an Rc across an await.
#[tool]
async fn count(text: String) -> usize {
    let shared = Rc::new(text);
    pause().await;
    shared.len()
}

fn main() {}
