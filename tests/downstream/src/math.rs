//! Arithmetic: a tool, two resources (one a template whose variable
//! completes) and a prompt whose arguments complete, one from a function and
//! one from an enum's values.

use mcp_runtime::{prompt, resource, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Add two integers.
#[tool(read_only)]
async fn add(
    /// The first term.
    a: i64,
    /// The second term, 0 if left out.
    b: Option<i64>,
) -> i64 {
    a + b.unwrap_or(0)
}

/// A few mathematical constants.
#[derive(Debug, Serialize)]
struct Constants {
    pi: f64,
    e: f64,
    sqrt_2: f64,
}

/// Mathematical constants, as JSON.
#[resource("math://constants", title = "Constants")]
fn constants() -> Constants {
    Constants {
        pi: std::f64::consts::PI,
        e: std::f64::consts::E,
        sqrt_2: std::f64::consts::SQRT_2,
    }
}

/// The square of a whole number, as text.
#[resource("math://squares/{n}", mime_type = "text/plain")]
async fn square(#[complete(small_numbers)] n: u32) -> String {
    (u64::from(n) * u64::from(n)).to_string()
}

/// The numbers 1 to 20 that start with the digits typed so far.
fn small_numbers(prefix: String) -> Vec<String> {
    (1..=20)
        .map(|n: u32| n.to_string())
        .filter(|n| n.starts_with(&prefix))
        .collect()
}

/// The operations `practice` knows.
const OPERATIONS: [&str; 4] = ["addition", "division", "multiplication", "subtraction"];

/// The operations that start with the prefix.
async fn operations(prefix: String) -> Vec<&'static str> {
    OPERATIONS
        .into_iter()
        .filter(|operation| operation.starts_with(&prefix))
        .collect()
}

/// How hard the exercises are.
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Level {
    #[default]
    Easy,
    Hard,
}

/// Ask for arithmetic exercises.
#[prompt(title = "Practice arithmetic")]
fn practice(
    /// The operation: addition, subtraction, multiplication or division.
    #[complete(operations)]
    operation: String,
    /// How hard: easy (the default) or hard.
    level: Option<Level>,
) -> Result<String, String> {
    if !OPERATIONS.contains(&operation.as_str()) {
        return Err(format!(
            "unknown operation {operation:?}: use one of {}",
            OPERATIONS.join(", ")
        ));
    }
    let level = match level.unwrap_or_default() {
        Level::Easy => "easy",
        Level::Hard => "hard",
    };
    Ok(format!(
        "Give me five {level} {operation} exercises, one at a time, and check my answers."
    ))
}
