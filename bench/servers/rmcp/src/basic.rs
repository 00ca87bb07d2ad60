//! The benchmark server written with rmcp: an echo tool, a tool with
//! structured output, and a tool taking and returning 64 KiB. `--pipes`
//! serves over `transport::stdio_pipes()` instead of the default
//! `transport::stdio()`.

mod tools;

use rmcp::ServiceExt;
use rmcp::transport::{stdio, stdio_pipes};
use tools::Basic;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = if std::env::args().any(|arg| arg == "--pipes") {
        Basic::new().serve(stdio_pipes()).await?
    } else {
        Basic::new().serve(stdio()).await?
    };
    service.waiting().await?;
    Ok(())
}
