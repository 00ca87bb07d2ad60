//! `ours-tasks` without its task tool: the three basic tools only, built
//! with the same features. What a plain call costs on a server without
//! tasks, beside `ours-tasks`, whose `work` tool enables them.

#[path = "../../ours/src/tools.rs"]
mod tools;

use mcp_runtime::Server;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new("bench-tasks", env!("CARGO_PKG_VERSION"))
        .serve_stdio()
        .await
}
