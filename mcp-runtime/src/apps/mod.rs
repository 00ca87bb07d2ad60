//! MCP Apps (the `io.modelcontextprotocol/ui` extension): tools that show an
//! HTML view.
//!
//! A *view* is a resource whose URI starts with `ui://` and whose MIME type
//! is [`MIME_TYPE`] (`text/html;profile=mcp-app`): one HTML5 document, with
//! its scripts and styles inline or loaded from the origins its metadata
//! allows. A tool *links* to a view by its URI. A host that supports the
//! extension (a chat client, an IDE) reads the view with `resources/read`
//! when the tool is called, renders it in a sandboxed iframe, and hands it
//! the call's arguments and result over `postMessage`; the view may then call
//! the server's tools back through the host (to switch a city or a day, say)
//! and asks the host for its size. A host that does not support it shows
//! the tool's ordinary result, so a tool with a view still returns content
//! a model can read.
//!
//! Built at run time, a tool and its view look like this (the attributes
//! `#[tool(ui = "..")]` and `#[resource("ui://..", view)]` do the same):
//!
//! ```
//! use mcp_runtime::apps::{Html, ViewMeta, Visibility};
//! use mcp_runtime::{DynamicResource, DynamicTool, ResourceContents, Server, serde_json::json};
//!
//! const PAGE: &str = "<!doctype html><p id=t></p><script>/* postMessage JSON-RPC */</script>";
//!
//! let view = DynamicResource::new("ui://weather/chart", "chart", |uri, _, _| async move {
//!     Ok(vec![ResourceContents::text(uri, Html::from(PAGE).into_string())])
//! })
//! .view(ViewMeta::new().prefers_border(false));
//! let forecast = DynamicTool::new(
//!     "forecast",
//!     "The forecast for a city, drawn as a chart where the host can.",
//!     json!({"type": "object", "properties": {"city": {"type": "string"}}}),
//!     |arguments, _ctx| async move { format!("{}: 21 °C", arguments["city"]) },
//! )
//! .ui("ui://weather/chart");
//! // Called by the view only (to switch days), never offered to the model.
//! let switch_day = DynamicTool::new(
//!     "switch_day",
//!     "The forecast of another day.",
//!     json!({"type": "object", "properties": {"day": {"type": "integer"}}}),
//!     |arguments, _ctx| async move { format!("day {}: 19 °C", arguments["day"]) },
//! )
//! .ui("ui://weather/chart")
//! .visibility([Visibility::App]);
//! let server = Server::new("weather", "1.0.0").resource(view).tool(forecast).tool(switch_day);
//! # let _ = server;
//! ```
//!
//! # What the server sends, and what the host does with it
//!
//! - On the tool in `tools/list`, `_meta.ui.resourceUri` names the view; the
//!   host fetches it before or while the tool runs. The same URI is also
//!   sent under the older flat key `_meta["ui/resourceUri"]`, which hosts
//!   built before the extension settled still read.
//! - `_meta.ui.visibility` (only when given) says who may call the tool:
//!   [`Visibility::Model`] (the model, in the chat) and
//!   [`Visibility::App`] (the view, through the host). A host lists a tool
//!   whose visibility lacks `"model"` to no model, and refuses a view's call
//!   to a tool whose visibility lacks `"app"`. Leaving it out means both.
//!   The host enforces it; the server cannot tell who called.
//! - On the view resource, in `resources/list` and on the content item of
//!   `resources/read`, `mimeType` is [`MIME_TYPE`] and `_meta.ui` carries
//!   its [`ViewMeta`]: the content security policy the host builds around
//!   the iframe (`csp.connectDomains` for `fetch` and WebSockets,
//!   `csp.resourceDomains` for scripts, styles, images, fonts and media,
//!   `csp.frameDomains` for nested frames, `csp.baseUriDomains` for
//!   `<base>`), the browser `permissions` the iframe is granted (camera,
//!   microphone, geolocation, writing to the clipboard), `prefersBorder`
//!   (whether the host should draw a border around it) and `domain` (a
//!   dedicated sandbox origin, in a format the host defines). With no `csp`
//!   the host allows inline scripts and styles and nothing from elsewhere,
//!   so a self-contained HTML file needs no metadata at all.
//!   Each item a read gives with the view's URI gets both (an item that
//!   sets its own `_meta.ui` keeps it: the host prefers the item's).
//! - In the capabilities, `extensions["io.modelcontextprotocol/ui"]` is
//!   `{}` whenever a tool links a view or a resource is one (and always on
//!   a server with a [`ServerHandle`](crate::ServerHandle), since one may
//!   come), for every protocol version from 2025-06-18 on, in both eras,
//!   beside the other extensions. The metadata above is sent to every
//!   client of 2025-06-18 or later, whatever it declares: clients that do
//!   not know the extension ignore it. Earlier versions have no `_meta` on
//!   tools and resources, so they get the MIME type and nothing else.
//!
//! There is no key for a preferred size: a view measures itself and tells
//! the host (`ui/notifications/size-changed`), and the host tells the view
//! how much room it has.
//!
//! # Checked at start-up
//!
//! Each origin in a [`ViewMeta`] is `scheme://host` or `scheme://host:port`
//! (a `*.` wildcard only as the first label of the host; no path, query or
//! fragment). Each tool's view must be served by the same server as a
//! resource (not a template) with the view MIME type, or the server refuses
//! to start ([`RegistryError::MissingView`](crate::RegistryError::MissingView),
//! [`RegistryError::NotAView`](crate::RegistryError::NotAView)).
//! A tool's `_meta` that sets `ui` or `ui/resourceUri` itself while the tool
//! links a view is refused too, as is a view's `_meta` with its own `ui`.
//! A [`ServerHandle`](crate::ServerHandle) checks a tool it adds the same
//! way (changes made before the server starts are checked together, so a
//! tool may come before its view).
//!
//! The check sees what the server serves after
//! [`Server::include_tools`](crate::Server::include_tools) and
//! [`exclude_tools`](crate::Server::exclude_tools) (a view whose tools are
//! all left out is still served, linked by nothing), not what
//! [middleware](crate::middleware) or authorization do to each request. A
//! layer that drops the view from `resources/list` is harmless (hosts read
//! a view by its URI), but one that refuses its `resources/read` or strips
//! `_meta` from `tools/list`, and `scopes` on the view that the caller's
//! token lacks, break the link for that caller where no start-up check can
//! see it: let the view through, with no scopes its tool does not have.

mod html;
pub(crate) mod link;
mod view;

#[cfg(test)]
mod tests;

#[doc(hidden)]
pub use html::__view_file;
pub use html::Html;
pub use view::ViewMeta;

use serde::Serialize;

/// The extension's identifier, the key under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of a view: HTML for an MCP Apps host.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// Who may call a tool that has a view (`_meta.ui.visibility`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// The model, as any tool (`"model"`).
    Model,
    /// The view, through the host (`"app"`).
    App,
}

impl Visibility {
    /// The wire value: `"model"` or `"app"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Model => "model",
            Visibility::App => "app",
        }
    }
}

/// A browser permission a view's iframe asks for
/// (`_meta.ui.permissions`); the host decides whether to grant it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Permission {
    /// The camera (`camera`).
    Camera,
    /// The microphone (`microphone`).
    Microphone,
    /// The position (`geolocation`).
    Geolocation,
    /// Writing to the clipboard (`clipboardWrite`).
    ClipboardWrite,
}

impl Permission {
    /// The key under `permissions`: `"camera"`, `"microphone"`,
    /// `"geolocation"` or `"clipboardWrite"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Camera => "camera",
            Permission::Microphone => "microphone",
            Permission::Geolocation => "geolocation",
            Permission::ClipboardWrite => "clipboardWrite",
        }
    }
}

/// What `#[tool(ui = "..", visibility = "..")]` submits. Not public API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolUi {
    /// The view's `ui://` URI.
    pub resource_uri: &'static str,
    /// Who may call it; empty when not given.
    pub visibility: &'static [Visibility],
}

/// What `#[resource("ui://..", view(..))]` submits. Not public API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewDef {
    /// `csp(connect = [..])`.
    pub connect_domains: &'static [&'static str],
    /// `csp(resources = [..])`.
    pub resource_domains: &'static [&'static str],
    /// `csp(frames = [..])`.
    pub frame_domains: &'static [&'static str],
    /// `csp(base_uri = [..])`.
    pub base_uri_domains: &'static [&'static str],
    /// `permissions = [..]`.
    pub permissions: &'static [Permission],
    /// `prefers_border = ..`.
    pub prefers_border: Option<bool>,
    /// `domain = ".."`.
    pub domain: Option<&'static str>,
}
