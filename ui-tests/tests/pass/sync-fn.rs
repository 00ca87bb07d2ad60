//! A plain `fn` is a tool too (it runs on the blocking pool).

use mcp_runtime::{Server, tool};

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {
    let registry = Server::new("t", "1").registry().unwrap();
    assert!(registry.get("add").unwrap().output_schema().is_some());
}
