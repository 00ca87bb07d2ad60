//! A server for abusing: the target of the hostile-client battery
//! (`tests/hostile.rs`) and of the soak run (`examples/soak.rs`). Its tools
//! echo, fail, panic, sleep and produce output that cannot be serialized, so
//! that every path a call can take is reachable from a client.
//!
//! Run it with `cargo run --example hostile_target`; `RUST_LOG=debug` logs
//! every request on stderr. `HOSTILE_GRACE_MS` sets the shutdown grace
//! period (default 2000).

use std::collections::BTreeMap;
use std::time::Duration;

use mcp_runtime::{Context, Server, tool};
use schemars::JsonSchema;
use serde::{Serialize, Serializer};

/// Echo the text back.
#[tool(read_only, idempotent)]
async fn echo(
    /// The text to echo, at most 10000 characters.
    #[schemars(length(max = 10_000))]
    text: String,
) -> String {
    text
}

/// Fail with the given message, as the tool's own error.
#[tool]
async fn fail(
    /// The error text the client receives.
    message: String,
) -> Result<String, String> {
    Err(message)
}

/// Panic with the given message. The client must see only a generic error.
#[tool(name = "panic")]
async fn panic_tool(
    /// The panic message; never shown to the client.
    message: String,
) -> String {
    panic!("{message}")
}

/// Panic on the blocking pool (a synchronous tool).
#[tool]
fn panic_blocking(
    /// The panic message; never shown to the client.
    message: String,
) -> String {
    std::panic::panic_any(message)
}

/// Sleep, reporting progress every 10 ms when asked to, then answer.
#[tool]
async fn slow(
    /// How long to sleep, in milliseconds (at most 60000).
    #[schemars(range(max = 60_000))]
    ms: u64,
    ctx: Context,
) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_millis(ms);
    let mut step = 0.0;
    while tokio::time::Instant::now() < deadline {
        let left = deadline - tokio::time::Instant::now();
        tokio::time::sleep(left.min(Duration::from_millis(10))).await;
        step += 1.0;
        ctx.progress(step, None, None);
    }
    format!("slept {ms}ms")
}

/// Sleep, but give up after 200 ms.
#[tool(timeout = "200ms")]
async fn deadline(
    /// How long to sleep, in milliseconds.
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms}ms")
}

/// Sleep on the blocking pool (a synchronous tool), then answer.
#[tool]
fn slow_blocking(
    /// How long to sleep, in milliseconds (at most 10000).
    #[schemars(range(max = 10_000))]
    ms: u64,
) -> String {
    std::thread::sleep(Duration::from_millis(ms));
    format!("slept {ms}ms")
}

/// A value whose serialization fails with a message that must stay private.
#[derive(JsonSchema)]
pub struct Unserializable {
    /// Never produced.
    pub secret: String,
}

impl Serialize for Unserializable {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom(format!(
            "cannot serialize {} (read from /etc/hostile/secrets.toml)",
            self.secret
        )))
    }
}

/// Return structured output that cannot be serialized.
#[tool]
async fn bad_output(
    /// Goes into the serialization error, which must stay private.
    secret: String,
) -> Unserializable {
    Unserializable { secret }
}

/// Keys that JSON cannot represent as object keys.
#[derive(Serialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
pub struct Point {
    /// x.
    pub x: i32,
    /// y.
    pub y: i32,
}

/// A map keyed by something JSON cannot use as a key.
#[derive(Serialize, JsonSchema)]
pub struct Grid {
    /// The cells, keyed by point.
    pub cells: BTreeMap<Point, String>,
}

/// Return structured output whose map keys are not strings (serialization fails).
#[tool]
async fn bad_keys() -> Grid {
    let mut cells = BTreeMap::new();
    cells.insert(Point { x: 1, y: 2 }, "a".to_owned());
    Grid { cells }
}

/// Return `bytes` bytes of text.
#[tool(read_only)]
async fn big(
    /// How many bytes, at most 8 MiB.
    #[schemars(range(max = 8_388_608))]
    bytes: usize,
) -> String {
    "x".repeat(bytes)
}

/// Print to stdout, as a careless tool might: the protocol must not see it.
#[tool]
async fn chatty(
    /// Printed with `println!`.
    text: String,
) -> String {
    println!("{text}");
    print!("and no newline ");
    format!("printed {text}")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let grace = std::env::var("HOSTILE_GRACE_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .unwrap_or(2000);
    Server::new("hostile-target", env!("CARGO_PKG_VERSION"))
        .shutdown_grace(Duration::from_millis(grace))
        .run()
        .await
}
