//! Text tools in a crate of their own. Nothing here is public: a binary
//! serves these tools once it links the crate, without naming any of them.

use mcp_runtime::tool;
use schemars::JsonSchema;
use serde::Serialize;

/// Counts of a text.
#[derive(Debug, Serialize, JsonSchema)]
struct Counts {
    /// Words, separated by whitespace.
    words: usize,
    /// Unicode scalar values, spaces included.
    characters: usize,
}

/// Count the words and characters of a text.
#[tool(read_only, idempotent)]
async fn count_words(
    /// The text to count.
    text: String,
) -> Counts {
    Counts {
        words: text.split_whitespace().count(),
        characters: text.chars().count(),
    }
}

/// Repeat a text a number of times, separated by spaces.
#[tool(read_only, idempotent)]
fn repeat(
    /// The text to repeat.
    #[schemars(length(min = 1))]
    text: String,
    /// How many times, 1 to 10.
    #[schemars(range(min = 1, max = 10))]
    times: u8,
) -> Result<String, String> {
    if text.trim().is_empty() {
        return Err("nothing to repeat: the text is blank".to_owned());
    }
    Ok(vec![text; usize::from(times)].join(" "))
}
