//! The chain front of the forwarding benchmark: a stdio server that mounts
//! one stdio upstream (a bench server, spawned once) with the prefix `""`,
//! so its tools keep their names and the driver's workloads run through it
//! unchanged. No tools of its own, no middleware: what it costs is what
//! forwarding costs.
//!
//! ```text
//! ours-chain --upstream ours-basic
//! ```

mod upstream;

use mcp_runtime::Server;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let usage = || std::io::Error::other("usage: ours-chain --upstream NAME [ARG..]");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [flag, name, rest @ ..] = args.as_slice() else {
        return Err(usage());
    };
    if flag != "--upstream" {
        return Err(usage());
    }
    Server::new("bench-chain", env!("CARGO_PKG_VERSION"))
        .mount("", upstream::upstream(name, rest)?)
        .await?
        .serve_stdio()
        .await
}
