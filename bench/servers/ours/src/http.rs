//! The benchmark server written with mcp-runtime, over Streamable HTTP: the
//! same three tools as `ours-basic` (`tools.rs`), served at `/mcp`.
//!
//! ```text
//! ours-http --http 127.0.0.1:PORT [--stateless] [--max-sessions N]
//! ```

mod tools;

use mcp_runtime::Server;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let usage =
        || std::io::Error::other("usage: ours-http --http ADDR [--stateless] [--max-sessions N]");
    let mut server = Server::new("bench-basic", env!("CARGO_PKG_VERSION"));
    let mut addr = None;
    let mut raw = std::env::args().skip(1);
    while let Some(arg) = raw.next() {
        match arg.as_str() {
            "--http" => addr = raw.next(),
            "--stateless" => server = server.stateless(),
            "--max-sessions" => {
                let n = raw.next().and_then(|n| n.parse().ok()).ok_or_else(usage)?;
                // One load generator, one address: its sessions are all one client's.
                server = server.max_sessions(n).max_sessions_per_client(n);
            }
            _ => return Err(usage()),
        }
    }
    server.serve_http(addr.ok_or_else(usage)?).await
}
