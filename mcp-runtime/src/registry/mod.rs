//! The registry: every `#[tool]` linked into the binary (collected by
//! `inventory`) plus the dynamic tools added to the builder, filtered, sorted
//! by name, checked for duplicates and missing state, with schemas generated
//! and validators compiled once, at start-up. The mechanism the primitives
//! share is in `catalog`; why a registry cannot be built, in `error`.

pub(crate) mod catalog;
pub(crate) mod error;

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::context::{Context, StateMap};
use crate::registry::catalog::{Keyed, position, sort_unique};
use crate::registry::error::RegistryError;
use crate::tools::build::ToolSource;
use crate::tools::def::{Tool, ToolDef};
use crate::tools::dynamic::DynamicTool;
use crate::tools::output::CallToolResult;

/// The number of `#[tool]` functions linked into this binary, before any
/// filter.
pub(crate) fn linked_tools() -> usize {
    inventory::iter::<ToolDef>.into_iter().count()
}

/// Why a call could not be made at all (as opposed to a tool error, which is
/// a [`CallToolResult`] with `is_error`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// No tool has this name.
    #[error("Unknown tool: {0}")]
    UnknownTool(String),
    /// The arguments are not a JSON object.
    #[error("Invalid params: `arguments` must be an object")]
    ArgumentsNotAnObject,
}

/// Which tools to serve.
#[derive(Clone, Debug, Default)]
pub(crate) struct ToolFilter {
    pub(crate) include: Option<Vec<String>>,
    pub(crate) exclude: Vec<String>,
}

impl ToolFilter {
    fn allows(&self, name: &str) -> bool {
        self.include
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
            && !self.exclude.iter().any(|n| n == name)
    }

    fn names(&self) -> impl Iterator<Item = &String> {
        self.include.iter().flatten().chain(&self.exclude)
    }
}

/// The set of tools a server serves, built once at start-up.
pub struct Registry {
    tools: Vec<Tool>,
    state: Arc<StateMap>,
}

impl Registry {
    pub(crate) fn build(
        dynamic: &[DynamicTool],
        filter: &ToolFilter,
        state: Arc<StateMap>,
    ) -> Result<Registry, RegistryError> {
        let statics = inventory::iter::<ToolDef>
            .into_iter()
            .map(ToolSource::Static);
        let all: Vec<ToolSource<'_>> = statics
            .chain(dynamic.iter().map(ToolSource::Dynamic))
            .collect();

        for name in filter.names() {
            if !all.iter().any(|s| s.key() == name) {
                let mut known: Vec<&str> = all.iter().map(Keyed::key).collect();
                known.sort_unstable();
                // Two tools may share a name (reported later); list it once.
                known.dedup();
                return Err(RegistryError::UnknownFilterName {
                    name: name.clone(),
                    known: known.join(", "),
                });
            }
        }

        let mut sources: Vec<ToolSource<'_>> =
            all.into_iter().filter(|s| filter.allows(s.key())).collect();
        sort_unique(&mut sources).map_err(|d| RegistryError::DuplicateName {
            name: d.key,
            first: d.first,
            second: d.second,
        })?;
        let tools = sources
            .iter()
            .map(|source| source.build(&state))
            .collect::<Result<Vec<Tool>, _>>()?;
        tracing::debug!(tools = tools.len(), "tool registry built");
        Ok(Registry { tools, state })
    }

    /// The tools, sorted by name.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool with this name.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.index_of(name).map(|i| &self.tools[i])
    }

    /// The position of the tool with this name in [`Registry::tools`].
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        position(&self.tools, name)
    }

    pub(crate) fn state_map(&self) -> &Arc<StateMap> {
        &self.state
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Calls a tool by name with a JSON arguments object (`null` counts as
    /// no arguments), exactly as `tools/call` does: arguments are validated
    /// against the input schema, and tool errors, panics and timeouts become
    /// `isError: true` results.
    ///
    /// Must run inside a Tokio runtime.
    pub async fn call(&self, name: &str, arguments: Value) -> Result<CallToolResult, CallError> {
        let tool = self
            .get(name)
            .ok_or_else(|| CallError::UnknownTool(name.to_owned()))?;
        let arguments = match arguments {
            Value::Null => Value::Object(Map::new()),
            Value::Object(map) => Value::Object(map),
            _ => return Err(CallError::ArgumentsNotAnObject),
        };
        let ctx = Context::new(Arc::clone(&tool.name), Arc::clone(&self.state));
        Ok(tool.call(arguments, ctx, None).await.into_result())
    }
}

impl Keyed for Tool {
    fn key(&self) -> &str {
        &self.name
    }

    fn location(&self) -> crate::location::Location {
        self.location
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.tools)
            .field("state", &self.state)
            .finish()
    }
}
