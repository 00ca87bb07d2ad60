//! What the macros submit for tools and views (`ToolDef.ui`,
//! `ResourceDef.view`), built as the registry builds them: the `_meta` they
//! are listed and read with, and the start-up errors of bad metadata.

use std::sync::Arc;

use serde_json::{Value, json};

use super::{MIME_TYPE, Permission, ToolUi, ViewDef, Visibility};
use crate::context::{Context, StateMap};
use crate::location::Location;
use crate::protocol::shape::tool_json;
use crate::protocol::version::ProtocolVersion;
use crate::resources::{ReadRequest, ReadResult, ResourceDef};
use crate::tools::def::{BoxFuture, Hints, TaskSupport, ToolDef};
use crate::tools::output::RawOutput;

const HERE: Location = Location {
    file: "mcp-runtime/src/apps/tests.rs",
    line: 1,
    module: "mcp_runtime::apps::tests",
};

fn call(_: Value, _: Context) -> BoxFuture<RawOutput> {
    Box::pin(async { RawOutput::Done(crate::CallToolResult::success(Vec::new())) })
}

fn read(request: ReadRequest, _: Context) -> BoxFuture<ReadResult> {
    Box::pin(async move {
        Ok(vec![crate::ResourceContents::text(
            request.uri,
            "<p>chart</p>",
        )])
    })
}

fn no_schema(_: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
    None
}

fn object_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "object"})
}

const fn tool_def(meta: Option<&'static str>, ui: Option<ToolUi>) -> ToolDef {
    ToolDef {
        name: "forecast",
        title: None,
        description: "The forecast.",
        hints: Hints {
            read_only: None,
            destructive: None,
            idempotent: None,
            open_world: None,
        },
        timeout: None,
        task: TaskSupport::Forbidden,
        icons: &[],
        meta,
        scopes: &[],
        tags: &[],
        ui,
        input_schema: object_schema,
        output_schema: no_schema,
        requirements: &[],
        call,
        location: HERE,
    }
}

const fn view_def(uri: &'static str, view: ViewDef) -> ResourceDef {
    ResourceDef {
        uri,
        name: "chart",
        title: None,
        description: None,
        mime_type: None,
        default_mime_type: || Some("text/html"),
        icons: &[],
        meta: Some(r#"{"example.com/v": 2}"#),
        scopes: &[],
        view: Some(view),
        params: &[],
        requirements: &[],
        read,
        location: HERE,
    }
}

const VIEW: ViewDef = ViewDef {
    connect_domains: &["https://api.example.com"],
    resource_domains: &[],
    frame_domains: &[],
    base_uri_domains: &["https://*.example.com"],
    permissions: &[Permission::Geolocation],
    prefers_border: Some(true),
    domain: None,
};

static LINKED: ToolDef = tool_def(
    Some(r#"{"example.com/tier": "free"}"#),
    Some(ToolUi {
        resource_uri: "ui://weather/chart",
        visibility: &[Visibility::Model, Visibility::App, Visibility::App],
    }),
);
static CLASHING: ToolDef = tool_def(
    Some(r#"{"ui/resourceUri": "ui://other"}"#),
    Some(ToolUi {
        resource_uri: "ui://weather/chart",
        visibility: &[],
    }),
);
static CHART: ResourceDef = view_def("ui://weather/chart", VIEW);
static BAD_ORIGIN: ResourceDef = view_def(
    "ui://weather/chart",
    ViewDef {
        frame_domains: &["maps.example.com"],
        ..VIEW
    },
);
static NOT_UI: ResourceDef = view_def("https://example.com/chart", VIEW);

fn state() -> StateMap {
    StateMap::default()
}

#[test]
fn a_linked_tool_lists_both_keys_beside_its_meta() {
    let tool = crate::tools::build::build_static(&LINKED, &state()).unwrap();
    assert_eq!(tool.ui(), Some("ui://weather/chart"));
    let listed = tool_json(&tool, ProtocolVersion::V2025_06_18);
    assert_eq!(
        listed["_meta"],
        json!({
            "example.com/tier": "free",
            "ui": {"resourceUri": "ui://weather/chart", "visibility": ["model", "app"]},
            "ui/resourceUri": "ui://weather/chart"
        })
    );
    assert!(
        tool_json(&tool, ProtocolVersion::V2025_03_26)
            .get("_meta")
            .is_none()
    );

    let error = crate::tools::build::build_static(&CLASHING, &state()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot start the MCP server: the tool `forecast` (defined at \
         mcp-runtime/src/apps/tests.rs:1) cannot be served: its `_meta` has a \"ui/resourceUri\" \
         key of its own, but the tool links the view \"ui://weather/chart\", from which \
         `_meta.ui` and `_meta[\"ui/resourceUri\"]` are written; remove \"ui/resourceUri\" from \
         its `_meta`"
    );
}

#[tokio::test]
async fn a_view_is_listed_and_read_with_its_mime_type_and_ui_meta() {
    let view = crate::resources::build::build_static(&CHART, &state()).unwrap();
    assert!(view.is_view());
    assert_eq!(view.mime_type(), Some(MIME_TYPE));
    let ui = json!({
        "csp": {
            "connectDomains": ["https://api.example.com"],
            "baseUriDomains": ["https://*.example.com"]
        },
        "permissions": {"geolocation": {}},
        "prefersBorder": true
    });
    let listed = serde_json::to_value(crate::protocol::listing::ResourceEntry {
        resource: &view,
        version: ProtocolVersion::V2025_06_18,
    })
    .unwrap();
    assert_eq!(
        listed,
        json!({
            "uri": "ui://weather/chart",
            "name": "chart",
            "mimeType": MIME_TYPE,
            "_meta": {"example.com/v": 2, "ui": ui}
        })
    );
    let ctx = Context::new("chart".into(), Arc::new(state()));
    let request = ReadRequest {
        uri: "ui://weather/chart".into(),
        vars: Vec::new(),
    };
    let contents = view.read(request, ctx).await.unwrap();
    assert_eq!(
        serde_json::to_value(&contents).unwrap(),
        json!([{
            "uri": "ui://weather/chart",
            "mimeType": MIME_TYPE,
            "text": "<p>chart</p>",
            "_meta": {"ui": ui}
        }])
    );
}

#[test]
fn bad_view_metadata_stops_the_server_with_a_sentence() {
    let error = crate::resources::build::build_static(&BAD_ORIGIN, &state()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot start the MCP server: the resource `ui://weather/chart` (defined at \
         mcp-runtime/src/apps/tests.rs:1) cannot be served: its view's csp.frameDomains has \
         \"maps.example.com\", which is not an origin: it has no scheme:// before the host; \
         write scheme://host or scheme://host:port, with `*.` only as the first label of the \
         host"
    );
    let error = crate::resources::build::build_static(&NOT_UI, &state()).unwrap_err();
    assert!(
        error.to_string().ends_with(
            "cannot be served: it is a view, and a view's URI starts with ui://, such as \
             \"ui://weather/forecast\", not \"https://example.com/chart\""
        ),
        "{error}"
    );
}

/// A page, returned as a resource returns text.
#[crate::resource("test-res://html")]
fn html_page() -> crate::apps::Html {
    crate::apps::Html::from("<p>page</p>")
}

/// A page that may fail, from a `String`.
#[crate::resource("test-res://html-result")]
async fn html_result() -> Result<crate::apps::Html, String> {
    Ok(crate::apps::Html::from(format!("<p>{}</p>", 2)))
}

#[tokio::test]
async fn html_is_what_a_resource_returns_as_text() {
    for (uri, text) in [
        ("test-res://html", "<p>page</p>"),
        ("test-res://html-result", "<p>2</p>"),
    ] {
        let def = inventory::iter::<ResourceDef>
            .into_iter()
            .find(|def| def.uri == uri)
            .unwrap();
        assert_eq!((def.default_mime_type)(), Some("text/html"));
        let ctx = Context::new(def.name.into(), Arc::new(state()));
        let request = ReadRequest {
            uri: uri.into(),
            vars: Vec::new(),
        };
        let contents = (def.read)(request, ctx).await.unwrap();
        assert_eq!(
            contents,
            [crate::ResourceContents::text(uri, text).with_mime_type("text/html")]
        );
    }
}
