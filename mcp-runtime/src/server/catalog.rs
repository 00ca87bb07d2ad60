//! The builder methods that choose what is served: tools, resources,
//! prompts and skills added at run time, and the filters on tools.

use crate::ToolSearch;
use crate::handle::ServerHandle;
use crate::location::Location;
use crate::notify::Notifier;
use crate::prompts::dynamic::DynamicPrompt;
use crate::resources::dynamic::DynamicResource;
#[cfg(feature = "client")]
use crate::tools::derived::Transforms;
use crate::tools::dynamic::DynamicTool;
use crate::tools::transform::ToolTransform;

use super::Server;

impl Server {
    /// Serves only the tools with these names. A name that matches no tool
    /// is an error at start-up.
    pub fn include_tools<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.filter
            .include
            .get_or_insert_with(Vec::new)
            .extend(names.into_iter().map(Into::into));
        self
    }

    /// Leaves out the tools with these names. A name that matches no tool is
    /// an error at start-up.
    pub fn exclude_tools<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.filter
            .exclude
            .extend(names.into_iter().map(Into::into));
        self
    }

    /// Serves a tool transformed: renamed, re-described, with arguments
    /// renamed or hidden, or not at all; see [`ToolTransform`]. The tool
    /// is named as it would be served without transforms, after
    /// [`include_tools`](Self::include_tools) and
    /// [`exclude_tools`](Self::exclude_tools) chose it; a transform given
    /// here applies to tools added later too. A transform that cannot apply,
    /// or that names no tool (unless [`optional`](ToolTransform::optional)),
    /// is an error at start-up naming this call's place.
    #[track_caller]
    pub fn transform(mut self, transform: ToolTransform) -> Self {
        let location = crate::location::Location::caller();
        self.dynamic.transforms.push(ToolTransform {
            location,
            ..transform
        });
        self
    }

    /// How a tool's own name becomes the name it is served under: `None`
    /// if the filter or a transform leaves it out. For the checks made
    /// before the registry exists (a mount's collisions); transforms that
    /// cannot apply are the registry's to refuse, and count as absent here.
    #[cfg(feature = "client")]
    pub(crate) fn served_tool_names(&self) -> impl Fn(&str) -> Option<String> + '_ {
        let transforms = Transforms::new(&self.dynamic.transforms).unwrap_or_default();
        move |name| {
            if !self.filter.allows(name) {
                return None;
            }
            transforms.served_name(name).map(str::to_owned)
        }
    }

    /// Turns on progressive discovery: `tools/list` shows the pinned tools
    /// and a search tool (and a proxy that calls any tool) instead of
    /// every tool; every tool stays callable. See [`ToolSearch`] for what
    /// clients see. Refused at
    /// start-up if a served tool has a synthetic tool's name; a second
    /// call replaces the first.
    ///
    /// Pins name tools as they are served: after `include_tools` and
    /// `exclude_tools` chose them and transforms renamed them.
    #[track_caller]
    pub fn tool_search(mut self, search: ToolSearch) -> Self {
        self.search = Some((search, Location::caller()));
        self
    }

    /// Adds a tool defined at run time.
    pub fn tool(mut self, tool: DynamicTool) -> Self {
        self.dynamic.tools.push(tool);
        self
    }

    /// A handle that tells this server's clients about changes from any
    /// task: a resource they subscribed to was updated, or a list changed.
    /// Taking one makes the capabilities say `listChanged: true`.
    pub fn notifier(&mut self) -> Notifier {
        self.notifier.get_or_insert_with(Notifier::default).clone()
    }

    /// A handle that adds and removes tools, resources and prompts while
    /// the server runs, from any task, announcing each change. Taking one
    /// makes the capabilities declare every primitive, with
    /// `listChanged: true`.
    pub fn handle(&mut self) -> ServerHandle {
        let notifier = self.notifier();
        self.handle
            .get_or_insert_with(|| ServerHandle::new(notifier))
            .clone()
    }

    /// Adds a resource (or resource template) defined at run time.
    pub fn resource(mut self, resource: DynamicResource) -> Self {
        self.dynamic.resources.push(resource);
        self
    }

    /// Serves a skill (feature `skills`): its files as `skill://`
    /// resources, and its entry in `skills/list` and `skills/get`. Checked
    /// when the server starts; see [`skills`](crate::skills).
    #[cfg(feature = "skills")]
    pub fn skill(mut self, skill: crate::skills::Skill) -> Self {
        self.dynamic.skills.push(skill);
        self
    }

    /// Serves an OpenAPI document's operations as tools (feature
    /// `openapi`): reads and converts it now, once; what cannot be served
    /// stops the start unless filtered out. See [`openapi`](crate::openapi).
    #[cfg(feature = "openapi")]
    #[track_caller]
    pub fn openapi(mut self, api: crate::openapi::OpenApi) -> Self {
        let location = crate::location::Location::caller();
        let (tools, refusals) = api.convert(location);
        self.dynamic.tools.extend(tools);
        self.dynamic.openapi_refusals.extend(refusals);
        self
    }

    /// Adds a prompt defined at run time.
    pub fn prompt(mut self, prompt: DynamicPrompt) -> Self {
        self.dynamic.prompts.push(prompt);
        self
    }
}
