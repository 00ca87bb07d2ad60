//! Tool transforms: serving a tool under another name, description or
//! argument shape, or not at all, without touching its definition. The
//! builder is here; the registry applies it (`tools::derived`).

use serde_json::Value;

use crate::location::Location;

/// What to change about one tool: its name, description or argument
/// shape, or whether it is served at all, without touching its
/// definition.
///
/// A transform names a tool by the name it would be served under
/// (a mounted tool's name includes the mount's prefix) and says what to
/// change. [`Server::transform`](crate::Server::transform) adds it; the
/// registry applies it wherever a tool enters, at start-up and when a
/// [`ServerHandle`](crate::ServerHandle) or a mount's follower adds one
/// later, so every tool is covered alike: `#[tool]` functions,
/// [`DynamicTool`](crate::DynamicTool)s, mounted and generated tools.
///
/// ```standalone_crate
/// use mcp_runtime::{DynamicTool, Server, ToolTransform, serde_json::json};
///
/// let sum = DynamicTool::new(
///     "get_sum",
///     "Adds two numbers.",
///     json!({
///         "type": "object",
///         "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
///         "required": ["a", "b"]
///     }),
///     |arguments, _ctx| async move {
///         let sum = arguments["a"].as_f64().unwrap_or(0.0) + arguments["b"].as_f64().unwrap_or(0.0);
///         sum.to_string()
///     },
/// );
/// let server = Server::new("numbers", "1.0.0").tool(sum).transform(
///     ToolTransform::new("get_sum")
///         .rename("increment")
///         .description("Adds one to a number.")
///         .rename_arg("a", "number")
///         .describe_arg("number", "The number to increment.")
///         .fix_arg("b", json!(1)),
/// );
/// let registry = server.registry().unwrap();
/// assert!(registry.get("get_sum").is_none());
/// let increment = registry.get("increment").unwrap();
/// assert_eq!(increment.input_schema()["required"], json!(["number"]));
/// ```
///
/// What a transform changes:
/// - the tool: its name ([`rename`](ToolTransform::rename)), title,
///   description and tags; or whether it is served at all
///   ([`hide`](ToolTransform::hide));
/// - its arguments, those of the input schema's root object:
///   [`rename_arg`](ToolTransform::rename_arg),
///   [`describe_arg`](ToolTransform::describe_arg),
///   [`fix_arg`](ToolTransform::fix_arg) (hidden, with a value the client
///   cannot change) and [`hide_arg`](ToolTransform::hide_arg) (hidden,
///   optional, never sent). They apply in the order written, each to the
///   names the one before it left: `.rename_arg("a", "x").describe_arg("x", ..)`.
///
/// A call with the names the client sees reaches the tool with its own:
/// renamed arguments are renamed back, a fixed value is inserted (a value
/// the client sent under that name is dropped, or refused as an unknown
/// argument when the schema says `additionalProperties: false`), and the
/// arguments are checked against the transformed schema first, so
/// validation messages use the client's names. Output, output schema,
/// hints, scopes, view, timeout and task support stay the tool's own.
///
/// Order of operations: `include_tools`/`exclude_tools` choose tools by
/// their own names; transforms then name tools by the same names; what is
/// served afterwards goes by the new names. Several transforms of one tool
/// merge in the order they were added (a later title, description or tags
/// wins); renaming one tool twice is refused. A transform that names no
/// tool stops the server from starting
/// ([`RegistryError::UnknownTransformName`](crate::RegistryError::UnknownTransformName)),
/// unless it is [`optional`](ToolTransform::optional): a tool a mount may
/// add later, for instance. A transform that cannot apply (an argument the
/// tool does not have, a fixed value its schema refuses, a required
/// argument hidden without a value) is
/// [`RegistryError::InvalidTransform`](crate::RegistryError::InvalidTransform),
/// and a new name that another tool is served under is a duplicate name,
/// like two tools with one name.
#[derive(Clone, Debug)]
pub struct ToolTransform {
    pub(crate) name: String,
    pub(crate) rename: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) tags: Option<Vec<String>>,
    pub(crate) args: Vec<ArgChange>,
    pub(crate) hide: bool,
    pub(crate) optional: bool,
    pub(crate) location: Location,
}

/// One change to an argument, by the name it has at that point.
#[derive(Clone, Debug)]
pub(crate) enum ArgChange {
    Rename { from: String, to: String },
    Describe { name: String, text: String },
    Fix { name: String, value: Value },
    Hide { name: String },
}

impl ToolTransform {
    /// A transform of the tool served as `name` (for a mounted tool, with
    /// the mount's prefix), changing nothing yet.
    #[track_caller]
    pub fn new(name: impl Into<String>) -> Self {
        ToolTransform {
            name: name.into(),
            rename: None,
            title: None,
            description: None,
            tags: None,
            args: Vec::new(),
            hide: false,
            optional: false,
            location: Location::caller(),
        }
    }

    /// Serves the tool as `name` instead (the tool-name rule applies:
    /// 1 to 64 of `A-Z a-z 0-9 _ . -`).
    pub fn rename(mut self, name: impl Into<String>) -> Self {
        self.rename = Some(name.into());
        self
    }

    /// Sets the human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Replaces the description the model reads.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Replaces the tool's tags ([`Tool::tags`](crate::Tool::tags)).
    pub fn tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags = Some(tags.into_iter().map(Into::into).collect());
        self
    }

    /// Renames the argument `from` to `to`; `required`, a default and an
    /// `x-mcp-header` mark go with it.
    pub fn rename_arg(mut self, from: impl Into<String>, to: impl Into<String>) -> Self {
        self.args.push(ArgChange::Rename {
            from: from.into(),
            to: to.into(),
        });
        self
    }

    /// Sets the description of the argument `name`.
    pub fn describe_arg(mut self, name: impl Into<String>, text: impl Into<String>) -> Self {
        self.args.push(ArgChange::Describe {
            name: name.into(),
            text: text.into(),
        });
        self
    }

    /// Hides the argument `name` and always calls the tool with `value`
    /// for it, which the argument's schema must accept (checked at
    /// start-up). A client cannot send another value.
    pub fn fix_arg(mut self, name: impl Into<String>, value: Value) -> Self {
        self.args.push(ArgChange::Fix {
            name: name.into(),
            value,
        });
        self
    }

    /// Hides the optional argument `name`: the tool is called without it,
    /// so its own default applies. A required one needs
    /// [`fix_arg`](Self::fix_arg).
    pub fn hide_arg(mut self, name: impl Into<String>) -> Self {
        self.args.push(ArgChange::Hide { name: name.into() });
        self
    }

    /// Does not serve the tool at all: not listed, and "Unknown tool" when
    /// called, also if it is added later.
    pub fn hide(mut self) -> Self {
        self.hide = true;
        self
    }

    /// No error at start-up if no tool has this name: the transform
    /// applies when one is added later (by a mount, or a
    /// [`ServerHandle`](crate::ServerHandle)).
    pub fn optional(mut self) -> Self {
        self.optional = true;
        self
    }

    /// The name of the tool it transforms.
    pub fn name(&self) -> &str {
        &self.name
    }
}
