//! The tools the Streamable HTTP tests serve (tests/http.rs,
//! tests/client_http.rs): an echo, a call that reports progress and one
//! that waits.
//!
//! Not a module of `common/mod.rs`: a `#[tool]` is served by every binary
//! that compiles it, and most tests list their tools exactly. A test that
//! wants these includes the file:
//! `#[path = "common/http_tools.rs"] mod http_tools;`.

use std::time::Duration;

use mcp_runtime::{Context, tool};

/// Echo the text back.
#[tool]
async fn echo(text: String) -> String {
    text
}

/// Report progress `steps` times, `ms` apart, then answer "done".
#[tool]
async fn stepped(ctx: Context, steps: u32, ms: u64) -> String {
    for step in 1..=steps {
        ctx.progress(f64::from(step), Some(f64::from(steps)), None);
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    "done".into()
}

/// Wait `ms` milliseconds, then answer.
#[tool]
async fn sleepy(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}
