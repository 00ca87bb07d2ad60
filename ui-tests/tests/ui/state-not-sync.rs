use mcp_runtime::{State, tool};
use std::cell::RefCell;

/// Takes shared state that cannot be shared between threads.
#[tool]
async fn bump(counter: State<RefCell<u64>>) -> String {
    let mut counter = counter.borrow_mut();
    *counter += 1;
    counter.to_string()
}

fn main() {}
