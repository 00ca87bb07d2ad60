//! A registry changed while the server runs: a copy with one entry added
//! or removed, for a [`ServerHandle`](crate::ServerHandle) to swap in. The
//! copy shares every other entry with the original.

use std::sync::Arc;

use crate::prompts::dynamic::DynamicPrompt;
use crate::registry::Registry;
use crate::registry::catalog::{insert_unique, remove};
use crate::registry::error::RegistryError;
use crate::resources::dynamic::DynamicResource;
use crate::tools::build::build_dynamic;
use crate::tools::dynamic::DynamicTool;

/// One change to what a server serves.
pub(crate) enum Change {
    AddTool(DynamicTool),
    RemoveTool(String),
    AddResource(DynamicResource),
    RemoveResource(String),
    AddPrompt(DynamicPrompt),
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
    /// removal of something not served); an addition whose key is taken,
    /// or that cannot be built, is refused.
    pub(crate) fn changed(&self, change: &Change) -> Result<Option<Registry>, RegistryError> {
        let mut next = self.clone();
        let changed = match change {
            Change::AddTool(tool) => {
                let tool = Arc::new(build_dynamic(tool)?);
                insert_unique(&mut next.tools, tool).map_err(|d| RegistryError::DuplicateName {
                    name: d.key,
                    first: d.first,
                    second: d.second,
                })?;
                true
            }
            Change::RemoveTool(name) => remove(&mut next.tools, name).is_some(),
            Change::AddResource(resource) => {
                let resource = Arc::new(resource.build()?);
                let list = if resource.is_template() {
                    &mut next.templates
                } else {
                    &mut next.resources
                };
                insert_unique(list, resource).map_err(|d| RegistryError::DuplicateResource {
                    uri: d.key,
                    first: d.first,
                    second: d.second,
                })?;
                true
            }
            Change::RemoveResource(uri) => {
                remove(&mut next.resources, uri).is_some()
                    || remove(&mut next.templates, uri).is_some()
            }
            Change::AddPrompt(prompt) => {
                let prompt = Arc::new(prompt.build()?);
                insert_unique(&mut next.prompts, prompt).map_err(|d| {
                    RegistryError::DuplicatePrompt {
                        name: d.key,
                        first: d.first,
                        second: d.second,
                    }
                })?;
                true
            }
            Change::RemovePrompt(name) => remove(&mut next.prompts, name).is_some(),
        };
        Ok(changed.then_some(next))
    }
}
