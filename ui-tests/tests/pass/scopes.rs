//! `scopes = [..]` on each attribute reaches the served entry's `scopes()`,
//! and shows nowhere in what clients are sent.

use mcp_runtime::{Server, prompt, resource, tool};

/// Reads the forecast.
#[tool(read_only, scopes = ["weather:read", "https://example.com/scopes/weather!#$%&'()*+,-./:;<=>?@[]^_`{|}~"])]
async fn forecast(city: String) -> String {
    city
}

/// No scopes at all.
#[tool]
async fn open() -> String {
    String::new()
}

/// The settings.
#[resource("config://app", scopes = ["config:read"])]
async fn settings() -> String {
    String::new()
}

/// A user's profile.
#[resource("users://{id}/profile", scopes = ["users:read", "profile"], mime_type = "text/plain")]
async fn profile(id: u64) -> String {
    id.to_string()
}

/// Reviews code.
#[prompt(scopes = ["review"])]
async fn review(code: String) -> String {
    code
}

fn main() {
    let registry = Server::new("t", "1").registry().unwrap();
    assert_eq!(
        registry.get("forecast").unwrap().scopes(),
        [
            "weather:read",
            "https://example.com/scopes/weather!#$%&'()*+,-./:;<=>?@[]^_`{|}~"
        ]
    );
    assert!(registry.get("open").unwrap().scopes().is_empty());
    assert_eq!(registry.resources()[0].scopes(), ["config:read"]);
    assert_eq!(
        registry.resource_templates()[0].scopes(),
        ["users:read", "profile"]
    );
    assert_eq!(registry.prompt("review").unwrap().scopes(), ["review"]);
}
