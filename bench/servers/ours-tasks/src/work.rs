//! The task tool of the tasks suite: trivial work that still does not end
//! when first run, so that every call made as a task really is one.

use mcp_runtime::tool;

/// Returns the text it is given, after yielding once to the runtime (a
/// call that ends when first run is answered plainly in the 2026-07-28
/// era; this one becomes a task whenever the client takes tasks).
#[tool(task = "optional")]
async fn work(
    /// The text to return.
    text: String,
) -> String {
    tokio::task::yield_now().await;
    text
}
