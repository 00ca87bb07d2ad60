//! A server built the way a user's binary is: tools, resources and prompts
//! from this package's library (two private modules), tools from the
//! `extra` crate (linked by the `use` below and nothing else) and from this
//! file, served on stdio or, with `--http ADDR`, over HTTP.
//! `tests/interop/run` drives it with a real client.

use downstream::Notebook;
use extra as _;
use mcp_runtime::{Server, tool};

/// Say which crates this server's tools come from.
#[tool(read_only, idempotent)]
async fn about() -> &'static str {
    "downstream: tools from the downstream library, the extra crate and the binary"
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new("downstream", env!("CARGO_PKG_VERSION"))
        .state(Notebook::default())
        .run()
        .await
}
