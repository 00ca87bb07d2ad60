//! A parameter may have its function's name: the generated call is not
//! confused by the parameter's value.

use mcp_runtime::{Context, prompt, resource, tool};

/// A user.
#[resource("users://{user}")]
async fn user(user: String) -> String {
    user
}

/// A city.
#[tool]
async fn city(city: String) -> String {
    city
}

/// A topic.
#[prompt]
fn topic(topic: String, ctx: Context) -> String {
    let _ = ctx;
    topic
}

fn main() {}
