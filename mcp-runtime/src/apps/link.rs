//! The links between tools and their views: the `_meta` each side is
//! served with, and the start-up check that every link leads to a view.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{MIME_TYPE, ViewMeta, Visibility};
use crate::content::ResourceContents;
use crate::location::Location;
use crate::registry::error::RegistryError;
use crate::resources::build::Resource;
use crate::tools::def::Tool;

/// The deprecated flat key hosts built before the extension settled read.
const FLAT_KEY: &str = "ui/resourceUri";

/// Whether `mime_type` is the view MIME type (ignoring case and the spaces
/// around its parameter).
pub(crate) fn is_view_type(mime_type: &str) -> bool {
    let normalized: String = mime_type
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    normalized == MIME_TYPE
}

/// Checks the URI a tool links to: `ui://` and something after it, no
/// template. The error continues "the tool .. cannot be served: ".
pub(crate) fn check_link_uri(uri: &str) -> Result<(), String> {
    let Some(rest) = uri.strip_prefix("ui://") else {
        return Err(format!(
            "its view {uri:?} is not a ui:// URI; a view's URI starts with ui://, such as \
             \"ui://weather/forecast\""
        ));
    };
    if rest.is_empty() || rest.contains(char::is_whitespace) {
        return Err(format!(
            "its view {uri:?} is not a URI; write one such as \"ui://weather/forecast\""
        ));
    }
    if uri.contains(['{', '}']) {
        return Err(format!(
            "its view {uri:?} is a template; a view is one resource with a fixed URI"
        ));
    }
    Ok(())
}

/// A tool's `_meta` with its link added: `ui` (`resourceUri`, and
/// `visibility` when given) and the flat `ui/resourceUri`. A `_meta` that
/// has either key already is refused: the two would disagree.
pub(crate) fn tool_meta(
    meta: Option<Map<String, Value>>,
    uri: &str,
    visibility: &[Visibility],
) -> Result<Map<String, Value>, String> {
    check_link_uri(uri)?;
    let mut meta = meta.unwrap_or_default();
    for key in ["ui", FLAT_KEY] {
        if meta.contains_key(key) {
            return Err(format!(
                "its `_meta` has a {key:?} key of its own, but the tool links the view {uri:?}, \
                 from which `_meta.ui` and `_meta[\"ui/resourceUri\"]` are written; remove \
                 {key:?} from its `_meta`"
            ));
        }
    }
    let mut ui = Map::new();
    ui.insert("resourceUri".into(), Value::String(uri.to_owned()));
    if !visibility.is_empty() {
        let mut seen: Vec<Visibility> = Vec::new();
        for &who in visibility {
            if !seen.contains(&who) {
                seen.push(who);
            }
        }
        ui.insert("visibility".into(), json!(seen));
    }
    meta.insert("ui".into(), Value::Object(ui));
    meta.insert(FLAT_KEY.into(), Value::String(uri.to_owned()));
    Ok(meta)
}

/// A view resource's `_meta` with `ui` added (from `view`), after checking
/// `view`'s origins, that `uri` is a `ui://` URI and not a template, and
/// that `_meta` has no `ui` of its own. The error continues "the resource
/// .. cannot be served: ".
pub(crate) fn view_meta(
    meta: Option<Map<String, Value>>,
    uri: &str,
    view: &ViewMeta,
) -> Result<(Map<String, Value>, Map<String, Value>), String> {
    if !uri.starts_with("ui://") {
        return Err(format!(
            "it is a view, and a view's URI starts with ui://, such as \
             \"ui://weather/forecast\", not {uri:?}"
        ));
    }
    if uri.contains(['{', '}']) {
        return Err("it is a view, and a view is not a template: give it a fixed URI".into());
    }
    view.check()?;
    let mut meta = meta.unwrap_or_default();
    if meta.contains_key("ui") {
        return Err(
            "its `_meta` has a \"ui\" key of its own, but `_meta.ui` of a view is written from \
             its view metadata; remove \"ui\" from its `_meta`"
                .into(),
        );
    }
    let ui = view.to_json();
    meta.insert("ui".into(), Value::Object(ui.clone()));
    Ok((meta, ui))
}

/// The contents of a read of a view at `uri`: each item of that URI gets
/// the view MIME type and `_meta.ui` (an item's own `ui` wins).
pub(crate) fn dress(
    mut contents: Vec<ResourceContents>,
    uri: &str,
    ui: &Map<String, Value>,
) -> Vec<ResourceContents> {
    for item in contents.iter_mut().filter(|item| item.uri() == uri) {
        if !item.mime_type().is_some_and(is_view_type) {
            item.set_mime_type(MIME_TYPE);
        }
        let meta = item.meta_mut().get_or_insert_with(Map::new);
        meta.entry("ui")
            .or_insert_with(|| Value::Object(ui.clone()));
    }
    contents
}

/// Whether anything served belongs to the extension: a tool that links a
/// view, or a resource served as one.
pub(crate) fn any_app(tools: &[Arc<Tool>], resources: &[Arc<Resource>]) -> bool {
    tools.iter().any(|tool| tool.ui.is_some())
        || resources
            .iter()
            .any(|resource| resource.mime_type().is_some_and(is_view_type))
}

/// Refuses a tool whose view is not served: no resource (templates do not
/// count) has its URI, or the one that does is not served with the view
/// MIME type.
pub(crate) fn check_links(
    tools: &[Arc<Tool>],
    resources: &[Arc<Resource>],
) -> Result<(), RegistryError> {
    tools
        .iter()
        .try_for_each(|tool| check_link(tool, resources))
}

/// [`check_links`] for one tool.
pub(crate) fn check_link(tool: &Tool, resources: &[Arc<Resource>]) -> Result<(), RegistryError> {
    let Some(uri) = tool.ui.as_deref() else {
        return Ok(());
    };
    let found = resources.iter().find(|resource| resource.uri() == uri);
    if found.is_some_and(|resource| resource.mime_type().is_some_and(is_view_type)) {
        return Ok(());
    }
    Err(RegistryError::MissingView {
        tool: tool.name().to_owned(),
        location: tool.location(),
        uri: uri.to_owned(),
        resource: found.map(|resource| resource.location()),
        mime_type: found.and_then(|resource| resource.mime_type().map(str::to_owned)),
        views: resources
            .iter()
            .map(|resource| resource.uri())
            .filter(|served| served.starts_with("ui://"))
            .map(str::to_owned)
            .collect(),
    })
}

/// The sentence of [`RegistryError::MissingView`], after "cannot start the
/// MCP server: ".
pub(crate) fn missing_view_sentence(
    tool: &str,
    location: Location,
    uri: &str,
    resource: Option<Location>,
    mime_type: Option<&str>,
    views: &[String],
) -> String {
    let head = format!("the tool `{tool}` (defined at {location}) shows the view {uri:?}, but ");
    if let Some(resource) = resource {
        let kind = match mime_type {
            Some(mime_type) => format!("as {mime_type:?}"),
            None => "with no MIME type".to_owned(),
        };
        return format!(
            "{head}the resource with that URI (defined at {resource}) is served {kind}, not as a view \
             ({MIME_TYPE:?}); add `view` to its #[resource] attribute (or call `.view(..)` on \
             its DynamicResource)"
        );
    }
    let served = if views.is_empty() {
        "no resource with a ui:// URI is served".to_owned()
    } else {
        let quoted: Vec<String> = views.iter().map(|v| format!("{v:?}")).collect();
        format!("resources with ui:// URIs: {}", quoted.join(", "))
    };
    format!(
        "{head}no resource serves that URI: add #[resource({uri:?}, view)] (or a \
         DynamicResource with `.view(..)`), or correct the URI ({served})"
    )
}
