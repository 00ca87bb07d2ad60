//! The registry: every `#[tool]` linked into the binary (collected by
//! `inventory`) plus the dynamic tools added to the builder, filtered, sorted
//! by name, checked for duplicates and missing state, with schemas generated
//! and validators compiled once, at start-up.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::arguments::ArgumentValidator;
use crate::context::{Context, StateMap};
use crate::dynamic::DynamicTool;
use crate::output::CallToolResult;
use crate::schema;
use crate::tool::{Handler, Location, Tool, ToolDef};

/// Why the server could not start: a problem with the set of tools.
///
/// Each message says what is wrong, where (the tool's source location) and
/// what to write to fix it. `Debug` prints the same sentence as `Display`,
/// so it reads the same however it reaches the user: `{}`, `{:?}`,
/// `.unwrap()`, or `?` out of a `main` that returns `std::io::Result<()>`
/// ([`Server::serve_stdio`](crate::Server::serve_stdio) wraps it in an
/// [`std::io::Error`], from which `get_ref` and `into_inner` give it back).
#[non_exhaustive]
pub enum RegistryError {
    /// Two tools have the same name.
    DuplicateName {
        /// The shared name.
        name: String,
        /// Where the first is defined.
        first: Location,
        /// Where the second is defined.
        second: Location,
    },
    /// A dynamic tool's name breaks the naming rule.
    InvalidName {
        /// The name.
        name: String,
        /// Where the tool is defined.
        location: Location,
        /// What is wrong with it.
        reason: String,
    },
    /// A tool takes `State<T>` for a `T` that was never registered.
    MissingState {
        /// The tool.
        tool: String,
        /// Where the tool is defined.
        location: Location,
        /// The missing type.
        type_name: &'static str,
    },
    /// A schema could not be used.
    InvalidSchema {
        /// The tool.
        tool: String,
        /// Where the tool is defined.
        location: Location,
        /// `input` or `output`.
        which: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The include or exclude filter names a tool that does not exist.
    UnknownFilterName {
        /// The name in the filter.
        name: String,
        /// The names of all tools, comma-separated (empty if there are none).
        known: String,
    },
}

impl std::fmt::Display for RegistryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("cannot start the MCP server: ")?;
        match self {
            RegistryError::DuplicateName {
                name,
                first,
                second,
            } => {
                write!(
                    f,
                    "two tools are named `{name}`, one defined at {first} and the other at \
                     {second}; rename one of them, "
                )?;
                if is_dynamic(first) && is_dynamic(second) {
                    f.write_str("with another name in its `DynamicTool::new`")?;
                } else {
                    f.write_str("for example with `#[tool(name = \"new_name\")]`")?;
                }
                write!(
                    f,
                    " (`Server::exclude_tools([\"{name}\"])` would leave out both)"
                )
            }
            RegistryError::InvalidName {
                name,
                location,
                reason,
            } => write!(
                f,
                "the tool name {name:?} given to `DynamicTool::new` at {location} is invalid: \
                 {reason}"
            ),
            RegistryError::MissingState {
                tool,
                location,
                type_name,
            } => write!(
                f,
                "the tool `{tool}` (defined at {location}) takes `State<{type_name}>`, but no \
                 `{type_name}` was registered; add one with `Server::new(..).state(value)`, \
                 where `value` is a `{type_name}`"
            ),
            RegistryError::InvalidSchema {
                tool,
                location,
                which,
                reason,
            } => {
                let fix = match (is_dynamic(location), *which) {
                    (true, "output") => "fix the schema given to `DynamicTool::output_schema`",
                    (true, _) => "fix the schema given to `DynamicTool::new`",
                    (false, "output") => {
                        "change its return type, or that type's `#[schemars(..)]` attributes"
                    }
                    (false, _) => {
                        "change the types of its parameters, or their `#[schemars(..)]` \
                         attributes"
                    }
                };
                write!(
                    f,
                    "the tool `{tool}` (defined at {location}) has an unusable {which} schema: \
                     {reason}; {fix}"
                )
            }
            RegistryError::UnknownFilterName { name, known } if known.is_empty() => write!(
                f,
                "`Server::include_tools` or `exclude_tools` names `{name}`, but this binary \
                 has no tools at all; {NOT_LINKED}"
            ),
            RegistryError::UnknownFilterName { name, known } => write!(
                f,
                "`Server::include_tools` or `exclude_tools` names `{name}`, but no tool has \
                 that name; remove it, or use one of the tools' names: {known}"
            ),
        }
    }
}

impl std::fmt::Debug for RegistryError {
    /// The sentence of `Display`, so that `main` returning the error (which
    /// prints `Debug`) shows the problem and its fix rather than a struct.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for RegistryError {}

/// The fix when no `#[tool]` is linked: the library crate of tools was
/// never named by the binary, so the linker left it out.
const NOT_LINKED: &str = "a crate of tools is linked only if the binary names it: \
     add `use your_tools_crate as _;` (with your crate's name, `-` written `_`) to the file \
     with `fn main`";

/// A dynamic tool's location names its file as its module.
fn is_dynamic(location: &Location) -> bool {
    location.module == location.file
}

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

enum Source<'a> {
    Static(&'static ToolDef),
    Dynamic(&'a DynamicTool),
}

impl Source<'_> {
    fn name(&self) -> &str {
        match self {
            Source::Static(def) => def.name,
            Source::Dynamic(tool) => &tool.name,
        }
    }

    fn location(&self) -> Location {
        match self {
            Source::Static(def) => def.location,
            Source::Dynamic(tool) => tool.location,
        }
    }
}

impl Registry {
    pub(crate) fn build(
        dynamic: &[DynamicTool],
        filter: &ToolFilter,
        state: Arc<StateMap>,
    ) -> Result<Registry, RegistryError> {
        let statics = inventory::iter::<ToolDef>.into_iter().map(Source::Static);
        let all: Vec<Source<'_>> = statics.chain(dynamic.iter().map(Source::Dynamic)).collect();

        for name in filter.names() {
            if !all.iter().any(|s| s.name() == name) {
                let mut known: Vec<&str> = all.iter().map(Source::name).collect();
                known.sort_unstable();
                // Two tools may share a name (reported later); list it once.
                known.dedup();
                return Err(RegistryError::UnknownFilterName {
                    name: name.clone(),
                    known: known.join(", "),
                });
            }
        }

        let mut sources: Vec<Source<'_>> = all
            .into_iter()
            .filter(|s| filter.allows(s.name()))
            .collect();
        // Sort by name, then by location so the duplicate report is stable.
        sources.sort_by(|a, b| {
            (a.name(), a.location().file, a.location().line).cmp(&(
                b.name(),
                b.location().file,
                b.location().line,
            ))
        });
        for pair in sources.windows(2) {
            if pair[0].name() == pair[1].name() {
                return Err(RegistryError::DuplicateName {
                    name: pair[0].name().to_owned(),
                    first: pair[0].location(),
                    second: pair[1].location(),
                });
            }
        }

        let mut tools = Vec::with_capacity(sources.len());
        for source in &sources {
            let tool = match source {
                Source::Static(def) => build_static(def, &state)?,
                Source::Dynamic(tool) => build_dynamic(tool)?,
            };
            tools.push(tool);
        }
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
        // Sorted by name and unique: a binary search beats hashing the name.
        self.tools
            .binary_search_by(|tool| (*tool.name).cmp(name))
            .ok()
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

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.tools)
            .field("state", &self.state)
            .finish()
    }
}

fn build_static(def: &'static ToolDef, state: &StateMap) -> Result<Tool, RegistryError> {
    let invalid = |which: &'static str, reason: String| RegistryError::InvalidSchema {
        tool: def.name.to_owned(),
        location: def.location,
        which,
        reason,
    };
    for requirement in def.requirements.iter().filter_map(|r| r()) {
        if !state.contains(requirement.type_id) {
            return Err(RegistryError::MissingState {
                tool: def.name.to_owned(),
                location: def.location,
                type_name: requirement.type_name,
            });
        }
    }
    // A fresh generator per tool: `root_schema_for` puts every definition
    // the generator has seen so far into `$defs`, so a shared one would leak
    // one tool's recursive types into the schemas of the tools after it.
    let raw_input = (def.input_schema)(&mut schema::input_generator());
    let checked_input =
        schema::finish_input_for_validation(raw_input.clone()).map_err(|r| invalid("input", r))?;
    let input_schema = schema::finish_input(raw_input).map_err(|r| invalid("input", r))?;
    let (output_schema, wrap_output) = match (def.output_schema)(&mut schema::output_generator()) {
        Some(schema) => {
            let (schema, wrap) = schema::finish_output(schema).map_err(|r| invalid("output", r))?;
            (Some(schema), wrap)
        }
        None => (None, false),
    };
    let validator = ArgumentValidator::new(&checked_input).map_err(|r| invalid("input", r))?;
    Ok(Tool {
        name: Arc::from(def.name),
        title: def.title.map(str::to_owned),
        description: def.description.to_owned(),
        hints: def.hints,
        timeout: def.timeout,
        input_schema,
        output_schema,
        wrap_output,
        validator,
        handler: Handler::Static(def.call),
        location: def.location,
    })
}

fn build_dynamic(tool: &DynamicTool) -> Result<Tool, RegistryError> {
    let invalid = |which: &'static str, reason: String| RegistryError::InvalidSchema {
        tool: tool.name.clone(),
        location: tool.location,
        which,
        reason,
    };
    if let Err(reason) = check_name(&tool.name) {
        return Err(RegistryError::InvalidName {
            name: tool.name.clone(),
            location: tool.location,
            reason,
        });
    }
    let input_schema =
        schema::check_dynamic_input(&tool.input_schema).map_err(|r| invalid("input", r))?;
    let output_schema = match &tool.output_schema {
        Some(Value::Object(map)) if map.get("type") == Some(&Value::from("object")) => {
            Some(map.clone())
        }
        Some(_) => {
            return Err(invalid(
                "output",
                "an output schema must be an object with `\"type\": \"object\"`".into(),
            ));
        }
        None => None,
    };
    let validator = ArgumentValidator::new(&input_schema).map_err(|r| invalid("input", r))?;
    Ok(Tool {
        name: Arc::from(tool.name.as_str()),
        title: tool.title.clone(),
        description: tool.description.clone(),
        hints: tool.hints,
        timeout: tool.timeout,
        input_schema,
        output_schema,
        wrap_output: false,
        validator,
        handler: Handler::Dynamic(Arc::clone(&tool.handler)),
        location: tool.location,
    })
}

/// The tool-name rule: `^[A-Za-z0-9_.-]{1,64}$`.
fn check_name(name: &str) -> Result<(), String> {
    match name.chars().count() {
        0 => return Err("it is empty; use 1 to 64 characters".into()),
        count @ 65.. => return Err(format!("it has {count} characters; use at most 64")),
        _ => {}
    }
    match name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        Some(bad) => Err(format!(
            "{bad:?} is not allowed; use only ASCII letters, digits, `_`, `.` and `-`"
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_in_a_binary_without_tools_points_at_the_linking_fix() {
        let error = RegistryError::UnknownFilterName {
            name: "get_forecast".into(),
            known: String::new(),
        };
        assert_eq!(
            error.to_string(),
            "cannot start the MCP server: `Server::include_tools` or `exclude_tools` names \
             `get_forecast`, but this binary has no tools at all; a crate of tools is linked \
             only if the binary names it: add `use your_tools_crate as _;` (with your crate's \
             name, `-` written `_`) to the file with `fn main`"
        );
        assert_eq!(format!("{error:?}"), error.to_string());
    }
}
