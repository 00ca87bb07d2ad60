//! The registry: every `#[tool]` linked into the binary (collected by
//! `inventory`) plus the dynamic tools added to the builder, filtered, sorted
//! by name, checked for duplicates and missing state, with schemas generated
//! and validators compiled once, at start-up. The mechanism the primitives
//! share is in `catalog`; why a registry cannot be built, in `error`.

pub(crate) mod catalog;
pub(crate) mod change;
pub(crate) mod error;
mod parallel;
pub(crate) mod views;

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::context::{Context, StateMap};
use crate::prompts::build::Prompt;
use crate::prompts::dynamic::DynamicPrompt;
use crate::registry::catalog::{Keyed, position, sort_unique};
use crate::registry::error::{Primitive, RegistryError};
use crate::resources::build::Resource;
use crate::resources::dynamic::DynamicResource;
use crate::tools::build::ToolSource;
use crate::tools::def::{Tool, ToolDef};
use crate::tools::derived::Transforms;
use crate::tools::dynamic::DynamicTool;
use crate::tools::output::CallToolResult;
use crate::tools::transform::ToolTransform;

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
    pub(crate) fn allows(&self, name: &str) -> bool {
        self.include
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
            && !self.exclude.iter().any(|n| n == name)
    }

    fn names(&self) -> impl Iterator<Item = &String> {
        self.include.iter().flatten().chain(&self.exclude)
    }
}

/// The tools, resources, resource templates and prompts a server serves,
/// built at start-up; a [`ServerHandle`](crate::ServerHandle) replaces it
/// with a changed copy (the entries themselves are shared, not rebuilt).
#[derive(Clone)]
pub struct Registry {
    /// Sorted by name.
    tools: Vec<Arc<Tool>>,
    /// Sorted by URI.
    resources: Vec<Arc<Resource>>,
    /// Sorted by URI template.
    templates: Vec<Arc<Resource>>,
    /// Sorted by name.
    prompts: Vec<Arc<Prompt>>,
    pub(crate) state: Arc<StateMap>,
    /// The tool transforms, applied to the tools added later too.
    pub(crate) transforms: Arc<Transforms>,
    /// The skills (`Server::skill`), whose files are among `resources`.
    #[cfg(feature = "skills")]
    pub(crate) skills: Arc<crate::skills::Catalog>,
    /// Progressive discovery (`Server::tool_search`): what `tools/list`
    /// shows of `tools`.
    pub(crate) discovery: Option<Arc<crate::tools::search::Discovery>>,
}

impl Registry {
    pub(crate) fn build(
        dynamic: &Dynamic,
        filter: &ToolFilter,
        state: Arc<StateMap>,
    ) -> Result<Registry, RegistryError> {
        let statics = inventory::iter::<ToolDef>
            .into_iter()
            .map(ToolSource::Static);
        let all: Vec<ToolSource<'_>> = statics
            .chain(dynamic.tools.iter().map(ToolSource::Dynamic))
            .collect();

        let transforms = Arc::new(Transforms::new(&dynamic.transforms)?);
        // An operation `Server::openapi` refused stops the start unless the
        // tool filter leaves it out or a transform hides it.
        #[cfg(feature = "openapi")]
        if let Some(refusal) = dynamic.openapi_refusals.iter().find(|r| {
            r.tool
                .as_deref()
                .is_none_or(|tool| filter.allows(tool) && !transforms.hides(tool))
        }) {
            return Err(RegistryError::InvalidOpenApi {
                document: refusal.document.clone(),
                location: refusal.location,
                reason: refusal.reason.clone(),
            });
        }
        // Such a tool may be named, to leave it out.
        #[cfg(feature = "openapi")]
        let refused: Vec<&str> = dynamic
            .openapi_refusals
            .iter()
            .filter_map(|r| r.tool.as_deref())
            .collect();
        #[cfg(not(feature = "openapi"))]
        let refused: Vec<&str> = Vec::new();
        let known = |name: &str| all.iter().any(|s| s.key() == name) || refused.contains(&name);
        for (name, location) in transforms.required() {
            if !known(name) {
                return Err(RegistryError::UnknownTransformName {
                    name: name.to_owned(),
                    location,
                    known: known_names(&all),
                });
            }
        }
        for name in filter.names() {
            if !known(name) {
                return Err(RegistryError::UnknownFilterName {
                    name: name.clone(),
                    known: known_names(&all),
                });
            }
        }

        // Filtered, then transformed, by the tools' own names; a hidden
        // tool is never built.
        let mut sources: Vec<ToolSource<'_>> = all
            .into_iter()
            .filter(|s| filter.allows(s.key()) && !transforms.hides(s.key()))
            .collect();
        sort_unique(&mut sources).map_err(|d| RegistryError::duplicate(Primitive::Tool, d))?;
        let mut tools = parallel::build_all(&sources, |source| source.build(&state).map(Arc::new))?;
        if !transforms.is_empty() {
            let mut served = Vec::with_capacity(tools.len());
            for tool in tools {
                served.extend(transforms.apply(tool)?);
            }
            // A new name may be another tool's.
            sort_unique(&mut served).map_err(|d| RegistryError::duplicate(Primitive::Tool, d))?;
            tools = served;
        }
        #[cfg(feature = "skills")]
        let (skills, skill_files) = crate::skills::Catalog::build(&dynamic.skills)?;
        #[cfg(not(feature = "skills"))]
        let skill_files: [DynamicResource; 0] = [];
        let (resources, templates): (Vec<_>, Vec<_>) = build_all_of(
            Primitive::Resource,
            |def| crate::resources::build::build_static(def, &state),
            dynamic
                .resources
                .iter()
                .chain(&skill_files)
                .map(DynamicResource::build),
        )?
        .into_iter()
        .partition(|r| !r.is_template());
        let prompts = build_all_of(
            Primitive::Prompt,
            |def| crate::prompts::build::build_static(def, &state),
            dynamic.prompts.iter().map(DynamicPrompt::build),
        )?;
        // After the tool filter: a view whose tools are all left out is
        // served, unlinked, and harms nothing.
        views::check_links(&tools, &resources)?;
        tracing::debug!(
            tools = tools.len(),
            resources = resources.len(),
            templates = templates.len(),
            prompts = prompts.len(),
            "registry built"
        );
        Ok(Registry {
            tools,
            resources,
            templates,
            prompts,
            state,
            transforms,
            #[cfg(feature = "skills")]
            skills: Arc::new(skills),
            discovery: None,
        })
    }

    /// The resources with a fixed URI, sorted by URI.
    pub fn resources(&self) -> &[Arc<Resource>] {
        &self.resources
    }

    /// The resource templates, sorted by URI template.
    pub fn resource_templates(&self) -> &[Arc<Resource>] {
        &self.templates
    }

    /// The prompts, sorted by name.
    pub fn prompts(&self) -> &[Arc<Prompt>] {
        &self.prompts
    }

    /// The prompt with this name.
    pub fn prompt(&self, name: &str) -> Option<&Arc<Prompt>> {
        position(&self.prompts, name).map(|i| &self.prompts[i])
    }

    /// The resource with this URI, or else the most specific template that
    /// matches it, with its variables bound.
    pub(crate) fn find_resource(&self, uri: &str) -> Option<(&Arc<Resource>, Bindings)> {
        if let Some(i) = position(&self.resources, uri) {
            return Some((&self.resources[i], Vec::new()));
        }
        self.templates
            .iter()
            .filter_map(|resource| {
                let template = resource.template.as_ref()?;
                Some((resource, template, template.matches(uri)?))
            })
            .max_by(|a, b| a.1.specificity().cmp(&b.1.specificity()))
            .map(|(resource, _, vars)| {
                let vars = vars
                    .into_iter()
                    .map(|(name, value)| (name.to_owned(), value))
                    .collect();
                (resource, vars)
            })
    }

    /// The template whose URI template is exactly `uri_template`.
    pub(crate) fn template(&self, uri_template: &str) -> Option<&Arc<Resource>> {
        position(&self.templates, uri_template).map(|i| &self.templates[i])
    }

    /// Whether any skill is served (`Server::skill`, feature `skills`).
    pub(crate) fn serves_skills(&self) -> bool {
        #[cfg(feature = "skills")]
        return !self.skills.is_empty();
        #[cfg(not(feature = "skills"))]
        false
    }

    /// Whether any prompt argument or template variable completes.
    pub(crate) fn completes(&self) -> bool {
        let params = self.prompts.iter().flat_map(|p| &p.arguments);
        params
            .chain(self.templates.iter().flat_map(|t| &t.params))
            .any(|param| param.completes())
    }

    /// The tools, sorted by name.
    pub fn tools(&self) -> &[Arc<Tool>] {
        &self.tools
    }

    /// The tools, to add to (kept sorted by name).
    pub(crate) fn tools_mut(&mut self) -> &mut Vec<Arc<Tool>> {
        &mut self.tools
    }

    /// The tool with this name.
    pub fn get(&self, name: &str) -> Option<&Arc<Tool>> {
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
        let (tool, arguments) = self.callable(name, arguments)?;
        let ctx = Context::new(Arc::clone(&tool.name), Arc::clone(&self.state));
        // Progressive discovery's tools answer from this registry.
        if let Some(answer) = self.call_synthetic(tool, &arguments, &ctx).await {
            return answer;
        }
        Ok(tool.call(arguments, ctx, None).await.into_result())
    }
}

impl Registry {
    /// The tool `name` and its `arguments` as an object (`null` is none),
    /// for an in-process call.
    pub(crate) fn callable(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<(&Arc<Tool>, Value), CallError> {
        let tool = self
            .get(name)
            .ok_or_else(|| CallError::UnknownTool(name.to_owned()))?;
        let arguments = match arguments {
            Value::Null => Value::Object(Map::new()),
            Value::Object(map) => Value::Object(map),
            _ => return Err(CallError::ArgumentsNotAnObject),
        };
        Ok((tool, arguments))
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
            .field("resources", &self.resources)
            .field("templates", &self.templates)
            .field("prompts", &self.prompts)
            .field("state", &self.state)
            .finish()
    }
}

/// What the builder adds beside the attributes' functions.
#[derive(Default)]
pub(crate) struct Dynamic {
    pub(crate) tools: Vec<DynamicTool>,
    pub(crate) resources: Vec<DynamicResource>,
    pub(crate) prompts: Vec<DynamicPrompt>,
    /// Added by `Server::transform`, in order.
    pub(crate) transforms: Vec<ToolTransform>,
    /// Added by `Server::skill`.
    #[cfg(feature = "skills")]
    pub(crate) skills: Vec<crate::skills::Skill>,
    /// What `Server::openapi` could not serve, reported by `build` when the
    /// tool filter lets it through (or when it is about a whole document).
    #[cfg(feature = "openapi")]
    pub(crate) openapi_refusals: Vec<crate::openapi::KeptRefusal>,
}

/// The names of `tools`, sorted, each once, comma-separated: what a
/// filter or transform could have named.
fn known_names(tools: &[ToolSource<'_>]) -> String {
    let mut known: Vec<&str> = tools.iter().map(Keyed::key).collect();
    known.sort_unstable();
    // Two tools may share a name (reported later); list it once.
    known.dedup();
    known.join(", ")
}

/// A template's variables bound to what a URI gives them, by name.
pub(crate) type Bindings = Vec<(String, String)>;

/// Every `kind` an attribute submitted (`D`, collected by `inventory`), built
/// on every core, and the builder's own ones, sorted by key and unique.
fn build_all_of<D, T>(
    kind: Primitive,
    build_static: impl Fn(&'static D) -> Result<T, RegistryError> + Sync,
    dynamic: impl Iterator<Item = Result<T, RegistryError>>,
) -> Result<Vec<Arc<T>>, RegistryError>
where
    D: inventory::Collect + Sync,
    T: Keyed + Send,
{
    let statics: Vec<&'static D> = inventory::iter::<D>.into_iter().collect();
    let mut built = parallel::build_all(&statics, |def| build_static(def))?;
    for entry in dynamic {
        built.push(entry?);
    }
    sort_unique(&mut built).map_err(|d| RegistryError::duplicate(kind, d))?;
    Ok(built.into_iter().map(Arc::new).collect())
}
