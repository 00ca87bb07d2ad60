//! The benchmark server with 200 tools, written with mcp-runtime: the
//! `tools/list` and "call the last tool" workloads. Beside them it serves
//! 200 resources (100 of them templates) and 200 prompts, which the peers'
//! 200-tool servers do not: its start-up figure includes building them.

use mcp_runtime::{Server, prompt, resource, tool};

include!(concat!(env!("OUT_DIR"), "/many_tools.rs"));
include!(concat!(env!("OUT_DIR"), "/many_resources_and_prompts.rs"));

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new("bench-many", env!("CARGO_PKG_VERSION"))
        .serve_stdio()
        .await
}
