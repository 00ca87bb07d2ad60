// `ui = ..` writes `_meta.ui` and `_meta["ui/resourceUri"]`; `meta` must
// not set them too.
use mcp_runtime::tool;

/// Sets `ui` in `meta`.
#[tool(ui = "ui://weather/forecast", meta = r#"{"ui": {"resourceUri": "ui://weather/other"}}"#)]
async fn nested() -> String {
    String::new()
}

/// Sets the older flat key in `meta`.
#[tool(ui = "ui://weather/forecast", meta = r#"{"ui/resourceUri": "ui://weather/other"}"#)]
async fn flat() -> String {
    String::new()
}

fn main() {}
