//! The benchmark server written with mcp-runtime: an echo tool, a tool with
//! structured output, and a tool taking and returning 64 KiB (`tools.rs`).

mod tools;

use mcp_runtime::Server;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new("bench-basic", env!("CARGO_PKG_VERSION"))
        .serve_stdio()
        .await
}
