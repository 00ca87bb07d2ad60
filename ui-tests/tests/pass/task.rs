//! `task = ".."` reaches the served tool's `task_support()`; a tool
//! without it forbids tasks.

use mcp_runtime::{Server, TaskSupport, tool};

/// May run as a task.
#[tool(task = "optional")]
async fn report(days: u32) -> String {
    days.to_string()
}

/// Must run as a task.
#[tool(task = "required", timeout = "10m", read_only)]
async fn train(epochs: u32) -> String {
    epochs.to_string()
}

/// Says so explicitly.
#[tool(task = "forbidden")]
async fn ping() -> &'static str {
    "pong"
}

/// Says nothing.
#[tool]
async fn plain() -> &'static str {
    ""
}

fn main() {
    let registry = Server::new("t", "1").registry().unwrap();
    let support = |name: &str| registry.get(name).unwrap().task_support();
    assert_eq!(support("report"), TaskSupport::Optional);
    assert_eq!(support("train"), TaskSupport::Required);
    assert_eq!(support("ping"), TaskSupport::Forbidden);
    assert_eq!(support("plain"), TaskSupport::Forbidden);
    assert_eq!(TaskSupport::Optional.as_str(), "optional");
}
