//! The tools served by the property tests and the dispatch fuzz target:
//! all fast, so an exchange takes well under a millisecond.

use mcp_runtime::tool;

/// Echo the text back.
#[tool]
async fn echo(
    /// The text.
    text: String,
) -> String {
    text
}

/// Fail with the message.
#[tool]
async fn fail(
    /// The error text.
    message: String,
) -> Result<String, String> {
    Err(message)
}

/// Panic.
#[tool]
async fn explode() -> String {
    panic!("deliberate panic from a property test or fuzz target")
}

/// Yield to the scheduler `n` times, so calls overlap and can be cancelled.
#[tool]
async fn yielding(
    /// How many times, at most 50.
    #[schemars(range(max = 50))]
    n: u8,
) -> String {
    for _ in 0..n {
        tokio::task::yield_now().await;
    }
    format!("yielded {n} times")
}

/// Add two numbers (structured output).
#[tool]
async fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}
