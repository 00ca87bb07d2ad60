//! Middleware around every request, on stdio and HTTP alike: an audit log,
//! a rate limit per client, a policy on destructive tools, tower's own
//! concurrency limit and timeout, and a layer that removes secrets from
//! results. One concern per file beside this one.
//!
//! Run it with `cargo run --example middleware` (stdio), or
//! `cargo run --example middleware -- --http 127.0.0.1:8080`; the audit
//! log goes to stderr.

mod audit;
mod policy;
mod rate_limit;
mod redact;

use std::num::NonZeroU32;
use std::time::Duration;

use governor::Quota;
use mcp_runtime::{Server, tool};
use tower::limit::ConcurrencyLimitLayer;
use tower::timeout::TimeoutLayer;

pub use audit::AuditLayer;
pub use policy::RequireScopeForDestructive;
pub use rate_limit::RateLimitLayer;
pub use redact::RedactLayer;

/// A boxed, sendable future: what the layers here return.
type BoxFuture<T> = std::pin::Pin<Box<dyn Future<Output = T> + Send>>;

/// Search the notes for a word.
#[tool(read_only)]
async fn search_notes(
    /// The word to look for.
    query: String,
) -> String {
    // A note someone pasted a key into: the client never sees the key.
    let notes = [
        "Deploy checklist: rotate the Stripe key sk_live_51Hx9QeLkfP2mZr8TbW4",
        "Groceries: eggs, flour",
    ];
    let found: Vec<&str> = notes
        .into_iter()
        .filter(|note| note.to_lowercase().contains(&query.to_lowercase()))
        .collect();
    found.join("\n")
}

/// Delete a note for good.
#[tool(destructive)]
async fn delete_note(
    /// The note's number.
    id: u32,
) -> String {
    format!("note {id} deleted")
}

/// Requests a client may make per minute.
const PER_MINUTE: NonZeroU32 = NonZeroU32::new(120).unwrap();

/// The example's server: its two tools behind every layer. The first
/// layer is the outermost: the audit log sees every request and its final
/// outcome, refusals by the rate limit and the policy included; a refused
/// request never takes one of the 64 slots, and the timeout counts only
/// the time spent in one.
pub fn server() -> Server {
    Server::new("notes", env!("CARGO_PKG_VERSION"))
        .layer(AuditLayer)
        .layer(RateLimitLayer::new(Quota::per_minute(PER_MINUTE)))
        .layer(RequireScopeForDestructive::new("admin"))
        .layer(ConcurrencyLimitLayer::new(64))
        .layer(TimeoutLayer::new(Duration::from_secs(30)))
        .layer(RedactLayer::api_keys())
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    server().run().await
}
