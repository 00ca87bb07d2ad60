//! The benchmark server with 200 tools, written with flymcprust: the
//! `tools/list` and "call the last tool" workloads. The generated file
//! registers its tools with `.tool::<name>()`, as flymcprust's README does.

use flymcprust::ServerBuilder;
use flymcprust::prelude::*;

include!(concat!(env!("OUT_DIR"), "/many_tools.rs"));

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    with_tools(Server::builder("bench-many", env!("CARGO_PKG_VERSION")))
        .build()?
        .serve_stdio()
        .await?;
    Ok(())
}
