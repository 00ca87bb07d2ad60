//! MCP Apps through the attributes, as a client sees them: a tool's
//! `ui = ..` and `visibility = ..` on `tools/list`, a `#[resource(..,
//! view(..))]` on `resources/list` and `resources/read` (with its content
//! security policy and permissions), whatever string type its fn returns,
//! and `view_file!` reading the file from disk in debug builds.

use std::future::Future;
use std::time::Duration;

use mcp_runtime::apps::Html;
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Server, resource, tool, view_file};

const VIEW_TYPE: &str = "text/html;profile=mcp-app";

/// Today's forecast for a city.
#[tool(
    ui = "ui://apps-test/forecast",
    meta = r#"{"example.com/tier": "free"}"#
)]
async fn forecast(city: String) -> String {
    format!("Sunny in {city}")
}

/// Switches the view to another city; only the view calls it.
#[tool(ui = "ui://apps-test/forecast", visibility = "app")]
async fn switch_city(city: String) -> String {
    format!("Now showing {city}")
}

/// A chart, for the model and the view alike.
#[tool(ui = "ui://apps-test/chart", visibility = ["model", "app"])]
async fn chart() -> String {
    "a chart".into()
}

/// No view.
#[tool]
async fn plain() -> String {
    "plain".into()
}

/// The forecast view, from a file.
#[resource("ui://apps-test/forecast", view)]
fn forecast_view() -> Html {
    view_file!("apps/forecast.html")
}

/// A chart that loads data, a map and a player.
#[resource(
    "ui://apps-test/chart",
    title = "Chart",
    view(
        csp(
            connect = ["https://api.example.com", "wss://live.example.com:8443"],
            resources = ["https://*.cdn.example.com"],
            frames = ["https://player.example.com"],
            base_uri = ["https://example.com"],
        ),
        permissions = [camera, clipboard_write],
        prefers_border = true,
        domain = "chart.example.com",
    )
)]
fn chart_view() -> &'static str {
    "<!doctype html><p>chart</p>"
}

/// A view built at run time.
#[resource("ui://apps-test/built", view(prefers_border = false))]
async fn built_view() -> String {
    format!("<!doctype html><p>{}</p>", 6 * 7)
}

/// A view whose file a test rewrites.
#[resource("ui://apps-test/live", view)]
fn live_view() -> Html {
    view_file!("apps/live.html")
}

/// Waits at most ten seconds for an in-process answer.
async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), future)
        .await
        .unwrap_or_else(|_| panic!("{what} did not answer within 10 s"))
}

async fn client(version: &str) -> (TestClient, Value) {
    let mut client = TestClient::start(Server::new("apps-test", "1.0.0")).expect("it starts");
    let init = within("initialize", client.initialize(version))
        .await
        .expect("initialize answers");
    (client, init)
}

fn find<'a>(items: &'a [Value], key: &str, value: &str) -> &'a Value {
    items
        .iter()
        .find(|item| item[key] == value)
        .unwrap_or_else(|| panic!("no {key} {value:?} in {items:?}"))
}

#[tokio::test]
async fn tools_list_the_view_they_show_and_who_may_call_them() {
    let (mut client, init) = client("2025-11-25").await;
    assert_eq!(
        init["capabilities"]["extensions"]["io.modelcontextprotocol/ui"],
        json!({})
    );
    let tools = within("tools/list", client.list_tools()).await.unwrap();
    assert_eq!(
        find(&tools, "name", "forecast")["_meta"],
        json!({
            "example.com/tier": "free",
            "ui": {"resourceUri": "ui://apps-test/forecast"},
            "ui/resourceUri": "ui://apps-test/forecast",
        })
    );
    assert_eq!(
        find(&tools, "name", "switch_city")["_meta"],
        json!({
            "ui": {"resourceUri": "ui://apps-test/forecast", "visibility": ["app"]},
            "ui/resourceUri": "ui://apps-test/forecast",
        })
    );
    assert_eq!(
        find(&tools, "name", "chart")["_meta"],
        json!({
            "ui": {"resourceUri": "ui://apps-test/chart", "visibility": ["model", "app"]},
            "ui/resourceUri": "ui://apps-test/chart",
        })
    );
    assert!(find(&tools, "name", "plain").get("_meta").is_none());

    // A tool with a view is still called as any tool, with content a model
    // can read.
    let called = within(
        "tools/call",
        client.request(
            "tools/call",
            json!({"name": "switch_city", "arguments": {"city": "Oslo"}}),
        ),
    )
    .await
    .unwrap();
    assert_eq!(called["content"][0]["text"], "Now showing Oslo");
}

#[tokio::test]
async fn views_are_listed_and_read_with_their_metadata() {
    let (mut client, _) = client("2025-06-18").await;
    let chart_ui = json!({
        "csp": {
            "connectDomains": ["https://api.example.com", "wss://live.example.com:8443"],
            "resourceDomains": ["https://*.cdn.example.com"],
            "frameDomains": ["https://player.example.com"],
            "baseUriDomains": ["https://example.com"],
        },
        "permissions": {"camera": {}, "clipboardWrite": {}},
        "prefersBorder": true,
        "domain": "chart.example.com",
    });
    let resources = within("resources/list", client.list_resources())
        .await
        .unwrap();
    assert_eq!(
        *find(&resources, "uri", "ui://apps-test/chart"),
        json!({
            "uri": "ui://apps-test/chart",
            "name": "chart_view",
            "title": "Chart",
            "description": "A chart that loads data, a map and a player.",
            "mimeType": VIEW_TYPE,
            "_meta": {"ui": chart_ui},
        })
    );
    assert_eq!(
        *find(&resources, "uri", "ui://apps-test/forecast"),
        json!({
            "uri": "ui://apps-test/forecast",
            "name": "forecast_view",
            "description": "The forecast view, from a file.",
            "mimeType": VIEW_TYPE,
            "_meta": {"ui": {}},
        })
    );
    assert_eq!(
        find(&resources, "uri", "ui://apps-test/built")["_meta"],
        json!({"ui": {"prefersBorder": false}})
    );

    // The body as `&'static str`, `String` and `Html` (from view_file!):
    // each read item carries the view's MIME type and `_meta.ui` as well.
    for (uri, text, ui) in [
        (
            "ui://apps-test/chart",
            "<!doctype html><p>chart</p>".to_owned(),
            chart_ui.clone(),
        ),
        (
            "ui://apps-test/built",
            "<!doctype html><p>42</p>".to_owned(),
            json!({"prefersBorder": false}),
        ),
        (
            "ui://apps-test/forecast",
            include_str!("apps/forecast.html").to_owned(),
            json!({}),
        ),
    ] {
        let read = within("resources/read", client.read_resource(uri))
            .await
            .unwrap();
        assert_eq!(
            read["contents"],
            json!([{"uri": uri, "mimeType": VIEW_TYPE, "text": text, "_meta": {"ui": ui}}]),
            "{uri}"
        );
    }
}

/// Puts a file's text and modification time back when dropped, so that a
/// failed assertion leaves the tree as it was and cargo sees no change.
struct Restore {
    path: &'static str,
    text: String,
    modified: std::time::SystemTime,
}

impl Drop for Restore {
    fn drop(&mut self) {
        std::fs::write(self.path, &self.text).expect("the file is written back");
        let file = std::fs::File::options()
            .write(true)
            .open(self.path)
            .expect("the file opens");
        file.set_modified(self.modified)
            .expect("its modification time is put back");
    }
}

#[tokio::test]
async fn a_debug_build_serves_a_view_file_as_it_is_on_disk_now() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/apps/live.html");
    let embedded = include_str!("apps/live.html");
    let restore = Restore {
        path,
        text: std::fs::read_to_string(path).unwrap(),
        modified: std::fs::metadata(path).unwrap().modified().unwrap(),
    };
    let edited = "<!doctype html><p>Edited after the build.</p>";
    std::fs::write(path, edited).unwrap();

    let (mut client, _) = client("2025-11-25").await;
    let read = within(
        "resources/read",
        client.read_resource("ui://apps-test/live"),
    )
    .await
    .unwrap();
    let served = read["contents"][0]["text"].as_str().unwrap().to_owned();
    drop(restore);
    if cfg!(debug_assertions) {
        assert_eq!(served, edited);
    } else {
        assert_eq!(served, embedded);
    }
}
