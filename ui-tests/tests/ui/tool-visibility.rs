// `visibility` needs `ui`, and takes "model", "app" or both, once each.
use mcp_runtime::tool;

/// A visibility without a view.
#[tool(visibility = "app")]
async fn no_view() -> String {
    String::new()
}

/// No one.
#[tool(ui = "ui://weather/forecast", visibility = [])]
async fn no_one() -> String {
    String::new()
}

/// An unknown value.
#[tool(ui = "ui://weather/forecast", visibility = "user")]
async fn user() -> String {
    String::new()
}

/// An unknown value in a list.
#[tool(ui = "ui://weather/forecast", visibility = ["model", "view"])]
async fn view() -> String {
    String::new()
}

/// A value twice.
#[tool(ui = "ui://weather/forecast", visibility = ["app", "app"])]
async fn twice() -> String {
    String::new()
}

/// No quotes.
#[tool(ui = "ui://weather/forecast", visibility = app)]
async fn unquoted() -> String {
    String::new()
}

/// No value.
#[tool(ui = "ui://weather/forecast", visibility)]
async fn bare() -> String {
    String::new()
}

fn main() {}
