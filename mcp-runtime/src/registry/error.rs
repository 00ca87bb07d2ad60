//! Why a server could not start: a problem with the set of tools,
//! resources or prompts, said as a sentence with its fix.

use crate::context::{Requirement, StateMap};
use crate::location::Location;
use crate::registry::catalog::Duplicate;

/// Refuses a tool, resource or prompt that takes `State<T>` for a `T`
/// never registered.
pub(crate) fn check_state(
    requirements: &[fn() -> Option<Requirement>],
    state: &StateMap,
    kind: Primitive,
    name: &str,
    location: Location,
) -> Result<(), RegistryError> {
    match requirements
        .iter()
        .filter_map(|r| r())
        .find(|r| !state.contains(r.type_id))
    {
        Some(missing) => Err(RegistryError::MissingState {
            kind,
            name: name.to_owned(),
            location,
            type_name: missing.type_name,
        }),
        None => Ok(()),
    }
}

/// Why the server could not start: a problem with the set of tools,
/// resources or prompts.
///
/// Each message says what is wrong, where (the source location) and
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
    /// A [`ServerHandle`](crate::ServerHandle) was asked to add something
    /// after its server stopped.
    Stopped,
    /// A tool's metadata cannot be used (its `meta` is not a JSON object, or
    /// one of its scopes is not a scope token or is listed twice).
    InvalidTool {
        /// The name.
        name: String,
        /// Where it is defined.
        location: Location,
        /// What is wrong.
        reason: String,
    },
    /// A tool, resource or prompt takes `State<T>` for a `T` that was
    /// never registered.
    MissingState {
        /// What takes it.
        kind: Primitive,
        /// Its name (a resource's URI).
        name: String,
        /// Where it is defined.
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
    /// Two resources (or two resource templates) have the same URI.
    DuplicateResource {
        /// The shared URI or URI template.
        uri: String,
        /// Where the first is defined.
        first: Location,
        /// Where the second is defined.
        second: Location,
    },
    /// Two prompts have the same name.
    DuplicatePrompt {
        /// The shared name.
        name: String,
        /// Where the first is defined.
        first: Location,
        /// Where the second is defined.
        second: Location,
    },
    /// A resource's URI, template or metadata (`meta`, scopes) cannot be used.
    InvalidResource {
        /// The URI or URI template.
        uri: String,
        /// Where it is defined.
        location: Location,
        /// What is wrong.
        reason: String,
    },
    /// A prompt's name or metadata (`meta`, scopes) cannot be used.
    InvalidPrompt {
        /// The name.
        name: String,
        /// Where it is defined.
        location: Location,
        /// What is wrong.
        reason: String,
    },
    /// A tool links a view (`ui = ".."`, `DynamicTool::ui`) that no
    /// resource serves: none has that URI (templates do not count).
    /// Checked after the tool filter, on what is served, not on what
    /// middleware lets through (see [`apps`](crate::apps#checked-at-start-up)).
    MissingView {
        /// The tool.
        tool: String,
        /// Where the tool is defined.
        location: Location,
        /// The view's URI.
        uri: String,
        /// The `ui://` URIs of the resources that are served.
        views: Vec<String>,
    },
    /// A tool links a view whose resource is served, but not with the view
    /// MIME type ([`apps::MIME_TYPE`](crate::apps::MIME_TYPE)), so no host
    /// renders it.
    NotAView {
        /// The tool.
        tool: String,
        /// Where the tool is defined.
        location: Location,
        /// The view's URI.
        uri: String,
        /// The MIME type the resource is served with, if any.
        mime_type: Option<String>,
    },
    /// The include or exclude filter names a tool that does not exist.
    UnknownFilterName {
        /// The name in the filter.
        name: String,
        /// The names of all tools, comma-separated (empty if there are none).
        known: String,
    },
    /// A [`ToolTransform`](crate::ToolTransform) cannot apply to its tool:
    /// it names an argument the tool does not have, fixes a value the
    /// argument's schema refuses, hides a required argument without a
    /// value, renames the tool twice or to an invalid name.
    InvalidTransform {
        /// The tool it transforms, by the name it would be served under.
        tool: String,
        /// Where the transform was given.
        location: Location,
        /// What is wrong, and the fix.
        reason: String,
    },
    /// A [`ToolTransform`](crate::ToolTransform) that is not
    /// [`optional`](crate::ToolTransform::optional) names a tool that does
    /// not exist.
    UnknownTransformName {
        /// The name in the transform.
        name: String,
        /// Where the transform was given.
        location: Location,
        /// The names of all tools, comma-separated (empty if there are none).
        known: String,
    },
    /// The `Auth` given to `Server::auth` (feature `auth`) cannot work
    /// (no audience, an unknown algorithm, a key that does not parse).
    InvalidAuth {
        /// What is wrong, and the fix.
        reason: String,
    },
    /// The HTTP settings around `Server::sessions` cannot work together
    /// (a store of sessions for a stateless server).
    InvalidSessions {
        /// What is wrong, and the fix.
        reason: String,
    },
    /// A skill given to `Server::skill` (feature `skills`) cannot be served
    /// (no `SKILL.md`, a bad frontmatter, a name that is not its path's
    /// last segment, two skills at one path).
    #[cfg(feature = "skills")]
    InvalidSkill {
        /// The skill's path under `skill://`.
        path: String,
        /// Where it was added.
        location: Location,
        /// What is wrong, and the fix.
        reason: String,
    },
    /// An OpenAPI document given to `Server::openapi` (feature `openapi`)
    /// cannot be read or used, or one of its chosen operations cannot be
    /// served.
    #[cfg(feature = "openapi")]
    InvalidOpenApi {
        /// The document's path, URL or given name.
        document: String,
        /// Where it was given to `Server::openapi`.
        location: Location,
        /// What is wrong, where in the document, and the fix.
        reason: String,
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
                if first.is_dynamic() && second.is_dynamic() {
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
                kind,
                name,
                location,
                type_name,
            } => write!(
                f,
                "the {kind} `{name}` (defined at {location}) takes `State<{type_name}>`, but no \
                 `{type_name}` was registered; add one with `Server::new(..).state(value)`, \
                 where `value` is a `{type_name}`"
            ),
            RegistryError::InvalidSchema {
                tool,
                location,
                which,
                reason,
            } => {
                let fix = match (location.is_dynamic(), *which) {
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
            RegistryError::DuplicateResource { uri, first, second } => write!(
                f,
                "two resources have the URI `{uri}`, one defined at {first} and the other at \
                 {second}; change one of the URIs, or remove one of them"
            ),
            RegistryError::DuplicatePrompt {
                name,
                first,
                second,
            } => write!(
                f,
                "two prompts are named `{name}`, one defined at {first} and the other at \
                 {second}; rename one of them, for example with `#[prompt(name = \"new_name\")]`"
            ),
            RegistryError::InvalidResource {
                uri,
                location,
                reason,
            } => write!(
                f,
                "the resource `{uri}` (defined at {location}) cannot be served: {reason}"
            ),
            RegistryError::Stopped => f.write_str(
                "the server has stopped, so nothing can be added to it; a `ServerHandle` \
                 changes the server it was taken from only while that server runs",
            ),
            RegistryError::InvalidTool {
                name,
                location,
                reason,
            } => write!(
                f,
                "the tool `{name}` (defined at {location}) cannot be served: {reason}"
            ),
            RegistryError::InvalidPrompt {
                name,
                location,
                reason,
            } => write!(
                f,
                "the prompt `{name}` (defined at {location}) cannot be served: {reason}"
            ),
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
            RegistryError::InvalidTransform {
                tool,
                location,
                reason,
            } => write!(
                f,
                "the transform of the tool `{tool}` given at {location} cannot apply: {reason}"
            ),
            RegistryError::UnknownTransformName {
                name,
                location,
                known,
            } => {
                write!(
                    f,
                    "the transform given at {location} names the tool `{name}`, but no tool has \
                     that name; correct the name, or mark the transform `.optional()` if the \
                     tool is added later"
                )?;
                if known.is_empty() {
                    f.write_str(" (this server has no tools yet)")
                } else {
                    write!(f, " (the tools: {known})")
                }
            }
            RegistryError::MissingView {
                tool,
                location,
                uri,
                views,
            } => {
                let served = if views.is_empty() {
                    "no resource with a ui:// URI is served".to_owned()
                } else {
                    let quoted: Vec<String> = views.iter().map(|v| format!("{v:?}")).collect();
                    format!("resources with ui:// URIs: {}", quoted.join(", "))
                };
                write!(
                    f,
                    "the tool `{tool}` (defined at {location}) shows the view {uri:?}, but no \
                     resource serves that URI: add #[resource({uri:?}, view)] (or a \
                     DynamicResource with `.view(..)`), or correct the URI ({served})"
                )
            }
            RegistryError::NotAView {
                tool,
                location,
                uri,
                mime_type,
            } => {
                let kind = match mime_type {
                    Some(mime_type) => format!("as {mime_type:?}"),
                    None => "with no MIME type".to_owned(),
                };
                write!(
                    f,
                    "the tool `{tool}` (defined at {location}) shows the view {uri:?}, but the \
                     resource {uri:?} is served {kind}, not as a view ({:?}); add `view` to its \
                     #[resource] attribute (or call `.view(..)` on its DynamicResource)",
                    crate::apps::MIME_TYPE
                )
            }
            RegistryError::InvalidAuth { reason } => {
                write!(f, "the authentication settings cannot work: {reason}")
            }
            RegistryError::InvalidSessions { reason } => {
                write!(f, "the session settings cannot work: {reason}")
            }
            #[cfg(feature = "skills")]
            RegistryError::InvalidSkill {
                path,
                location,
                reason,
            } => write!(
                f,
                "the skill `skill://{path}` given to `Server::skill` at {location} cannot be \
                 served: {reason}"
            ),
            #[cfg(feature = "openapi")]
            RegistryError::InvalidOpenApi {
                document,
                location,
                reason,
            } => write!(
                f,
                "the OpenAPI document {document} (given to Server::openapi at {location}) cannot \
                 be served: {reason}"
            ),
        }
    }
}

/// What kind of thing a [`RegistryError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Primitive {
    /// A tool.
    Tool,
    /// A resource or resource template.
    Resource,
    /// A prompt.
    Prompt,
}

impl RegistryError {
    /// Two `kind`s under one key (a name, or a resource's URI), with both
    /// locations.
    pub(crate) fn duplicate(kind: Primitive, duplicate: Duplicate) -> RegistryError {
        let Duplicate { key, first, second } = duplicate;
        match kind {
            Primitive::Tool => RegistryError::DuplicateName {
                name: key,
                first,
                second,
            },
            Primitive::Resource => RegistryError::DuplicateResource {
                uri: key,
                first,
                second,
            },
            Primitive::Prompt => RegistryError::DuplicatePrompt {
                name: key,
                first,
                second,
            },
        }
    }
}

impl std::fmt::Display for Primitive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Primitive::Tool => "tool",
            Primitive::Resource => "resource",
            Primitive::Prompt => "prompt",
        })
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
