//! The gateway front of the forwarding benchmark: a Streamable HTTP server
//! that mounts one stdio upstream (a bench server, spawned once and shared
//! by every session) with the prefix `""`, so the HTTP driver's workloads
//! run through it unchanged. No authentication, no middleware: what it
//! costs is what forwarding costs. The flags are `ours-http`'s.
//!
//! ```text
//! ours-gateway --http 127.0.0.1:PORT --upstream ours-basic [--stateless] [--max-sessions N]
//! ```

mod upstream;

use mcp_runtime::Server;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let usage = || {
        std::io::Error::other(
            "usage: ours-gateway --http ADDR --upstream NAME [--stateless] [--max-sessions N]",
        )
    };
    let mut server = Server::new("bench-gateway", env!("CARGO_PKG_VERSION"));
    let (mut addr, mut name, mut stateless, mut max_sessions) = (None, None, false, None);
    let mut raw = std::env::args().skip(1);
    while let Some(arg) = raw.next() {
        match arg.as_str() {
            "--http" => addr = raw.next(),
            "--upstream" => name = raw.next(),
            "--stateless" => stateless = true,
            "--max-sessions" => {
                max_sessions = Some(raw.next().and_then(|n| n.parse().ok()).ok_or_else(usage)?);
            }
            _ => return Err(usage()),
        }
    }
    let name = name.ok_or_else(usage)?;
    server = server.mount("", upstream::upstream(&name, &[])?).await?;
    if stateless {
        server = server.stateless();
    }
    if let Some(n) = max_sessions {
        // One load generator, one address: its sessions are all one client's.
        server = server.max_sessions(n).max_sessions_per_client(n);
    }
    server.serve_http(addr.ok_or_else(usage)?).await
}
