//! `#[tool(ui, visibility)]` and `#[resource(.., view(..))]` fill the
//! definitions' `ui` and `view`; a view's body may be any string type, and
//! `view_file!` gives the file beside this one.

use mcp_runtime::__private::{
    Permission, ResourceDef, ToolDef, ToolUi, ViewDef, Visibility, inventory,
};
use mcp_runtime::apps::Html;
use mcp_runtime::{resource, tool, view_file};

/// Shows the forecast.
#[tool(ui = "ui://weather/forecast")]
async fn forecast() -> String {
    String::new()
}

/// Called by the view only.
#[tool(ui = "ui://weather/forecast", visibility = "app")]
async fn switch_city(city: String) -> String {
    city
}

/// Called by both, said outright.
#[tool(ui = "ui://weather/forecast", visibility = ["model", "app"], meta = r#"{"ui.example/x": 1}"#)]
async fn both() -> String {
    String::new()
}

/// No view.
#[tool]
async fn plain() -> String {
    String::new()
}

/// The chart, from a file.
#[resource("ui://weather/forecast", view)]
fn forecast_view() -> Html {
    view_file!("apps-view.html")
}

/// Static text.
#[resource(
    "ui://weather/str",
    view(
        csp(
            connect = ["https://api.example.com", "wss://live.example.com:8443"],
            resources = ["https://*.cdn.example.com"],
            frames = ["https://player.example.com"],
            base_uri = ["https://example.com"],
        ),
        permissions = [camera, microphone, geolocation, clipboard_write],
        prefers_border = false,
        domain = "views.example.com",
    )
)]
fn text() -> &'static str {
    "<p>static</p>"
}

/// Built at run time, with the view's MIME type said again (in another
/// spelling of the same type).
#[resource("ui://weather/string", view(prefers_border), mime_type = "text/html; profile=mcp-app")]
async fn built() -> String {
    format!("<p>{}</p>", 1)
}

fn main() {
    let tools: Vec<&ToolDef> = inventory::iter::<ToolDef>.into_iter().collect();
    let tool = |name: &str| tools.iter().find(|t| t.name == name).unwrap();
    let view = |visibility: &'static [Visibility]| {
        Some(ToolUi {
            resource_uri: "ui://weather/forecast",
            visibility,
        })
    };
    assert_eq!(tool("forecast").ui, view(&[]));
    assert_eq!(tool("switch_city").ui, view(&[Visibility::App]));
    assert_eq!(tool("both").ui, view(&[Visibility::Model, Visibility::App]));
    assert_eq!(tool("both").meta, Some(r#"{"ui.example/x": 1}"#));
    assert_eq!(tool("plain").ui, None);

    let resources: Vec<&ResourceDef> = inventory::iter::<ResourceDef>.into_iter().collect();
    let resource = |uri: &str| resources.iter().find(|r| r.uri == uri).unwrap();
    let bare = ViewDef {
        connect_domains: &[],
        resource_domains: &[],
        frame_domains: &[],
        base_uri_domains: &[],
        permissions: &[],
        prefers_border: None,
        domain: None,
    };
    for uri in ["ui://weather/forecast", "ui://weather/str", "ui://weather/string"] {
        assert_eq!(resource(uri).mime_type, Some("text/html;profile=mcp-app"));
    }
    assert_eq!(resource("ui://weather/forecast").view, Some(bare));
    assert_eq!(
        resource("ui://weather/str").view,
        Some(ViewDef {
            connect_domains: &["https://api.example.com", "wss://live.example.com:8443"],
            resource_domains: &["https://*.cdn.example.com"],
            frame_domains: &["https://player.example.com"],
            base_uri_domains: &["https://example.com"],
            permissions: &[
                Permission::Camera,
                Permission::Microphone,
                Permission::Geolocation,
                Permission::ClipboardWrite,
            ],
            prefers_border: Some(false),
            domain: Some("views.example.com"),
        })
    );
    assert_eq!(
        resource("ui://weather/string").view,
        Some(ViewDef {
            prefers_border: Some(true),
            ..bare
        })
    );
    assert_eq!(forecast_view().as_str(), include_str!("apps-view.html"));
}
