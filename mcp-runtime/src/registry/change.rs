//! A registry changed while the server runs: a copy with one entry added
//! or removed, for a [`ServerHandle`](crate::ServerHandle) to swap in. The
//! copy shares every other entry with the original.

use std::sync::Arc;

use crate::prompts::build::Prompt;
use crate::registry::Registry;
use crate::registry::catalog::{insert_unique, remove};
use crate::registry::error::{Primitive, RegistryError};
use crate::registry::views;
use crate::resources::build::Resource;
use crate::tools::def::Tool;

/// One change to what a server serves; an addition is built already.
pub(crate) enum Change {
    AddTool(Arc<Tool>),
    RemoveTool(String),
    AddResource(Arc<Resource>),
    RemoveResource(String),
    AddPrompt(Arc<Prompt>),
    RemovePrompt(String),
}

/// Which list a change touched, for the `list_changed` notification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum List {
    Tools,
    Resources,
    Prompts,
}

impl Change {
    /// For an addition, its list and key (name, URI or URI template).
    #[cfg(feature = "client")]
    pub(crate) fn added(&self) -> Option<(List, String)> {
        match self {
            Change::AddTool(tool) => Some((List::Tools, tool.name.to_string())),
            Change::AddResource(resource) => Some((List::Resources, resource.uri.to_string())),
            Change::AddPrompt(prompt) => Some((List::Prompts, prompt.name.to_string())),
            _ => None,
        }
    }

    /// The list it changes.
    pub(crate) fn list(&self) -> List {
        match self {
            Change::AddTool(_) | Change::RemoveTool(_) => List::Tools,
            Change::AddResource(_) | Change::RemoveResource(_) => List::Resources,
            Change::AddPrompt(_) | Change::RemovePrompt(_) => List::Prompts,
        }
    }
}

impl Registry {
    /// A copy with `change` made, or `None` when it changes nothing (a
    /// removal of something not served); an addition whose key is taken is
    /// refused, naming both definitions.
    ///
    /// An added tool's view must be served already
    /// ([`RegistryError::MissingView`]); removing a view that a served tool
    /// links to is allowed, with a warning (remove the tool first).
    pub(crate) fn changed(&self, change: &Change) -> Result<Option<Registry>, RegistryError> {
        self.changed_with(change, true)
    }

    /// [`changed`](Self::changed), checking an added tool's view only when
    /// `check_view` (the changes made before the server started are
    /// checked together, afterwards, with [`check_views`](Self::check_views)).
    pub(crate) fn changed_with(
        &self,
        change: &Change,
        check_view: bool,
    ) -> Result<Option<Registry>, RegistryError> {
        let mut next = self.clone();
        let taken = |kind| move |d| RegistryError::duplicate(kind, d);
        let changed = match change {
            Change::AddTool(tool) => {
                // Transformed like the tools served at start-up; a hidden
                // one changes nothing.
                let Some(tool) = next.transforms.apply(Arc::clone(tool))? else {
                    return Ok(None);
                };
                if check_view {
                    views::check_link(&tool, &next.resources)?;
                }
                insert_unique(&mut next.tools, tool).map_err(taken(Primitive::Tool))?;
                true
            }
            // By the name it was added under: the tool it became goes.
            Change::RemoveTool(name) => match next.transforms.served_name(name) {
                Some(served) => remove(&mut next.tools, served).is_some(),
                None => false,
            },
            Change::AddResource(resource) => {
                let list = if resource.is_template() {
                    &mut next.templates
                } else {
                    &mut next.resources
                };
                insert_unique(list, Arc::clone(resource)).map_err(taken(Primitive::Resource))?;
                true
            }
            Change::RemoveResource(uri) => {
                let removed = remove(&mut next.resources, uri).is_some()
                    || remove(&mut next.templates, uri).is_some();
                if removed && let Some(tool) = next.tools.iter().find(|t| t.ui() == Some(uri)) {
                    tracing::warn!(
                        tool = %tool.name(),
                        view = %uri,
                        "a view was removed while a tool still links to it; a host cannot show \
                         that tool's view: remove the tool first, or add the view back"
                    );
                }
                removed
            }
            Change::AddPrompt(prompt) => {
                insert_unique(&mut next.prompts, Arc::clone(prompt))
                    .map_err(taken(Primitive::Prompt))?;
                true
            }
            Change::RemovePrompt(name) => remove(&mut next.prompts, name).is_some(),
        };
        Ok(changed.then_some(next))
    }
}

impl Registry {
    /// Refuses a tool whose view is not served ([`RegistryError::MissingView`]).
    pub(crate) fn check_views(&self) -> Result<(), RegistryError> {
        views::check_links(&self.tools, &self.resources)
    }
}
