use mcp_runtime::resource;
use std::rc::Rc;

/// Holds an `Rc` across an `.await`.
#[resource("config://app")]
async fn settings() -> String {
    let shared = Rc::new(String::from("dark"));
    tokio_yield().await;
    shared.to_string()
}

async fn tokio_yield() {}

fn main() {}
