// A view is a fixed `ui://` resource served as the MCP Apps MIME type.
use mcp_runtime::resource;

/// Not a `ui://` URI.
#[resource("config://forecast", view)]
fn config() -> &'static str {
    "<p>hi</p>"
}

/// A template.
#[resource("ui://weather/{city}", view)]
fn template(city: String) -> String {
    city
}

/// Another MIME type.
#[resource("ui://weather/forecast", view, mime_type = "text/html")]
fn html() -> &'static str {
    "<p>hi</p>"
}

/// `_meta.ui` set by hand next to `view`.
#[resource("ui://weather/chart", view, meta = r#"{"ui": {"prefersBorder": true}}"#)]
fn meta() -> &'static str {
    "<p>hi</p>"
}

fn main() {}
