//! The benchmark server with 200 tools, written with mcp-runtime: the
//! `tools/list` and "call the last tool" workloads.

use mcp_runtime::{Server, tool};

include!(concat!(env!("OUT_DIR"), "/many_tools.rs"));

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new("bench-many", env!("CARGO_PKG_VERSION"))
        .serve_stdio()
        .await
}
