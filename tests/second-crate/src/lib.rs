//! Tools defined in a library crate: collected by any binary that links it.

use mcp_runtime::tool;

/// Reverse a string.
#[tool(read_only, idempotent)]
pub async fn reverse(text: String) -> String {
    text.chars().rev().collect()
}
