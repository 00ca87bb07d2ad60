// `ui` names one view: a `ui://` URI, valid, and not a template.
use mcp_runtime::tool;

/// Not a `ui://` URI.
#[tool(ui = "https://example.com/forecast.html")]
async fn web() -> String {
    String::new()
}

/// Nothing after the scheme.
#[tool(ui = "ui://")]
async fn empty() -> String {
    String::new()
}

/// A template.
#[tool(ui = "ui://weather/{city}")]
async fn template(city: String) -> String {
    city
}

/// A space.
#[tool(ui = "ui://weather/my forecast")]
async fn spaced() -> String {
    String::new()
}

/// A character no URI holds.
#[tool(ui = "ui://weather/<forecast>")]
async fn angled() -> String {
    String::new()
}

/// No value.
#[tool(ui)]
async fn bare() -> String {
    String::new()
}

fn main() {}
