//! `ours-http` (`servers/ours/src/http.rs`) with its legacy sessions kept in
//! Redis: the same three tools (the same file), served at `/mcp`, with
//! `Server::sessions(RedisSessions::new(url)?)`.
//!
//! ```text
//! ours-sessions-http --http 127.0.0.1:PORT --sessions-redis URL [--max-sessions N]
//! ```

#[path = "../../ours/src/tools.rs"]
mod tools;

use mcp_runtime::Server;
use mcp_runtime::sessions::RedisSessions;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let usage = "usage: ours-sessions-http --http ADDR --sessions-redis URL [--max-sessions N]";
    let mut server = Server::new("bench-basic", env!("CARGO_PKG_VERSION"));
    let mut addr = None;
    let mut redis = false;
    let mut raw = std::env::args().skip(1);
    while let Some(arg) = raw.next() {
        match arg.as_str() {
            "--http" => addr = raw.next(),
            "--sessions-redis" => {
                let url = raw.next().ok_or(usage)?;
                server = server.sessions(RedisSessions::new(&url)?);
                redis = true;
            }
            "--max-sessions" => {
                let n = raw.next().and_then(|n| n.parse().ok()).ok_or(usage)?;
                // One load generator, one address: its sessions are all one client's.
                server = server.max_sessions(n).max_sessions_per_client(n);
            }
            _ => return Err(usage.into()),
        }
    }
    if !redis {
        return Err(usage.into());
    }
    server.serve_http(addr.ok_or(usage)?).await?;
    Ok(())
}
