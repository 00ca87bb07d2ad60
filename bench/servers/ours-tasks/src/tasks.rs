//! The tasks suite's server written with mcp-runtime: the three basic tools
//! (`echo`, `order`, `payload`, the same file as `ours-basic`) and `work`,
//! declared `task = "optional"`. Tasks are kept in memory (the default
//! store), or in Redis with `--redis URL`.

#[path = "../../ours/src/tools.rs"]
mod tools;
mod work;

use mcp_runtime::Server;
use mcp_runtime::tasks::RedisTasks;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut server = Server::new("bench-tasks", env!("CARGO_PKG_VERSION"));
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--redis" => {
                let url = args.next().ok_or("--redis needs a URL")?;
                server = server.tasks(RedisTasks::new(&url)?);
            }
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    server.serve_stdio().await?;
    Ok(())
}
