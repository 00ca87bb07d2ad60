//! The links between tools and their views: the `_meta` each side is
//! served with (the start-up check that every link leads to a view is
//! `registry::views`).

use serde_json::{Map, Value, json};

use super::{MIME_TYPE, ViewMeta, Visibility};
use crate::content::ResourceContents;

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
/// has either key already is refused (the two would disagree), and so is
/// an empty visibility (no one could call the tool).
pub(crate) fn tool_meta(
    meta: Option<Map<String, Value>>,
    uri: &str,
    visibility: Option<&[Visibility]>,
) -> Result<Map<String, Value>, String> {
    check_link_uri(uri)?;
    if visibility.is_some_and(<[Visibility]>::is_empty) {
        return Err(
            "its visibility is empty; give `Visibility::Model`, `Visibility::App` or \
                    both, or leave `.visibility(..)` out for both"
                .into(),
        );
    }
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
    if let Some(visibility) = visibility {
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

/// A view's whole `_meta`, and its `ui` alone.
pub(crate) type ViewMetas = (Map<String, Value>, Map<String, Value>);

/// A view resource's `_meta` with `ui` added (from `view`), after checking
/// `view`'s origins, that `uri` is a `ui://` URI and not a template, and
/// that `_meta` has no `ui` of its own. The error continues "the resource
/// .. cannot be served: ".
pub(crate) fn view_meta(
    meta: Option<Map<String, Value>>,
    uri: &str,
    view: &ViewMeta,
) -> Result<ViewMetas, String> {
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
