//! `///` on parameters and a rustdoc `# Arguments` list become property
//! descriptions; the `# Arguments` section leaves the tool's description.

use mcp_runtime::{Server, serde_json::json, tool};

/// Greet someone.
///
/// Politely.
///
/// # Arguments
///
/// * `name` - Who to greet.
/// * `times` - How many times,
///   at least once.
#[tool]
async fn greet(
    name: String,
    times: u32,
    /// Shout the greeting.
    loud: bool,
) -> String {
    let greeting = format!("hello {name} ").repeat(times as usize);
    if loud { greeting.to_uppercase() } else { greeting }
}

fn main() {
    let registry = Server::new("t", "1").registry().unwrap();
    let tool = registry.get("greet").unwrap();
    assert_eq!(tool.description(), "Greet someone.\n\nPolitely.");
    let properties = &tool.input_schema()["properties"];
    assert_eq!(properties["name"]["description"], json!("Who to greet."));
    assert_eq!(properties["times"]["description"], json!("How many times, at least once."));
    assert_eq!(properties["loud"]["description"], json!("Shout the greeting."));
}
