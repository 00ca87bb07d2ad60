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

/// Wraps the panic hook in place (the default one in tests, libFuzzer's
/// aborting one in the fuzz target) so that it sees every panic but the
/// deliberate ones of `explode`, which the runtime must turn into tool
/// errors. Idempotent.
pub fn pass_on_all_but_deliberate_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
            if !message.is_some_and(|m| m.starts_with("deliberate panic")) {
                previous(info);
            }
        }));
    });
}
