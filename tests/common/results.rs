//! The text of a `tools/call` result, read from the JSON a raw client
//! receives (a typed client's `CallToolResult` has `text()`).

use serde_json::Value;

/// The text of every text block of `result`, joined by newlines (as
/// `CallToolResult::text` joins them).
pub fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("no content array in {result}"))
        .iter()
        .filter(|block| block["type"] == "text")
        .map(|block| block["text"].as_str().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// [`text_of`] the result of the JSON-RPC response `response`, which must
/// be one.
pub fn reply_text(response: &Value) -> String {
    assert!(response.get("result").is_some(), "no result in {response}");
    text_of(&response["result"])
}
