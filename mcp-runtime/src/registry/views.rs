//! The start-up check of MCP Apps: every tool's view is served, as a
//! view, by the same server.

use std::sync::Arc;

use crate::apps::link::is_view_type;
use crate::registry::error::RegistryError;
use crate::resources::build::Resource;
use crate::tools::def::Tool;

/// Whether anything served belongs to the extension: a tool that links a
/// view, or a resource served as one.
pub(crate) fn any_app(tools: &[Arc<Tool>], resources: &[Arc<Resource>]) -> bool {
    tools.iter().any(|tool| tool.ui.is_some())
        || resources
            .iter()
            .any(|resource| resource.mime_type().is_some_and(is_view_type))
}

/// Refuses a tool whose view is not served: no resource (templates do not
/// count) has its URI ([`RegistryError::MissingView`]), or the one that
/// does is not served with the view MIME type ([`RegistryError::NotAView`]).
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
    let tool_name = || tool.name().to_owned();
    match resources.iter().find(|resource| resource.uri() == uri) {
        Some(resource) if resource.mime_type().is_some_and(is_view_type) => Ok(()),
        Some(resource) => Err(RegistryError::NotAView {
            tool: tool_name(),
            location: tool.location(),
            uri: uri.to_owned(),
            mime_type: resource.mime_type().map(str::to_owned),
        }),
        None => Err(RegistryError::MissingView {
            tool: tool_name(),
            location: tool.location(),
            uri: uri.to_owned(),
            views: resources
                .iter()
                .map(|resource| resource.uri())
                .filter(|served| served.starts_with("ui://"))
                .map(str::to_owned)
                .collect(),
        }),
    }
}
