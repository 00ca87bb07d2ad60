//! The benchmark server with 200 tools, written with rmcp: the `tools/list`
//! and "call the last tool" workloads. `--pipes` serves over
//! `transport::stdio_pipes()` instead of the default `transport::stdio()`.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::{stdio, stdio_pipes};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

/// The router is built once and kept, as rmcp's examples do, rather than
/// rebuilt for every request by `#[tool_handler]`'s default `Self::tool_router()`.
#[derive(Clone)]
struct Many {
    tool_router: ToolRouter<Self>,
}

include!(concat!(env!("OUT_DIR"), "/many_tools.rs"));

#[tool_handler(router = self.tool_router, name = "bench-many")]
impl ServerHandler for Many {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Many {
        tool_router: Many::tool_router(),
    };
    let service = if std::env::args().any(|arg| arg == "--pipes") {
        server.serve(stdio_pipes()).await?
    } else {
        server.serve(stdio()).await?
    };
    service.waiting().await?;
    Ok(())
}
