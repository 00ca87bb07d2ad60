//! A long-running tool: it reports progress to clients that send a progress
//! token, and a client's `notifications/cancelled` stops it mid-way.
//!
//! Run it with `cargo run --example progress`.

use std::time::Duration;

use mcp_runtime::{Context, Server, tool};

/// Count slowly from 1 to `to`, one number every `delay_ms` milliseconds,
/// reporting each number as progress.
#[tool(read_only, idempotent)]
async fn count_slowly(
    /// Where to stop, 1 to 1000.
    #[schemars(range(min = 1, max = 1000))]
    to: u32,
    /// Milliseconds between numbers, at most 10000 (default 100).
    #[schemars(range(max = 10_000))]
    delay_ms: Option<u64>,
    ctx: Context,
) -> String {
    let delay = Duration::from_millis(delay_ms.unwrap_or(100));
    for i in 1..=to {
        // A cancelled call is simply dropped at this await: nothing to clean up.
        tokio::time::sleep(delay).await;
        ctx.progress(f64::from(i), Some(f64::from(to)), None);
    }
    format!("counted to {to}")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new("progress", env!("CARGO_PKG_VERSION"))
        .run()
        .await
}
