//! The server builder.

use std::sync::Arc;

use crate::context::StateMap;
use crate::dynamic::DynamicTool;
use crate::registry::{Registry, RegistryError, ToolFilter};

/// An MCP server: every `#[tool]` linked into the binary, plus what the
/// builder adds.
///
/// ```
/// use mcp_runtime::Server;
///
/// struct Db;
///
/// let server = Server::new("weather", "1.0.0")
///     .instructions("Forecasts for European cities.")
///     .state(Db)
///     .exclude_tools(["debug_dump"]);
/// # let _ = server;
/// ```
pub struct Server {
    name: String,
    version: String,
    instructions: Option<String>,
    state: StateMap,
    filter: ToolFilter,
    dynamic: Vec<DynamicTool>,
}

impl Server {
    /// A server that reports `name` and `version` as its `serverInfo`;
    /// pass your crate's, for example `env!("CARGO_PKG_VERSION")`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Server {
            name: name.into(),
            version: version.into(),
            instructions: None,
            state: StateMap::default(),
            filter: ToolFilter::default(),
            dynamic: Vec::new(),
        }
    }

    /// The server's name, as given to [`Server::new`].
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The server's version, as given to [`Server::new`].
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Instructions for the model on how to use this server's tools.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The instructions, if set.
    pub fn instructions_text(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// Registers shared state, injected into tools that take `State<T>`.
    /// Registering a second value of the same type replaces the first.
    pub fn state<T: Send + Sync + 'static>(self, value: T) -> Self {
        self.shared_state(Arc::new(value))
    }

    /// Registers shared state that is already in an `Arc`.
    pub fn shared_state<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.state.insert(value);
        self
    }

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

    /// Adds a tool defined at run time.
    pub fn tool(mut self, tool: DynamicTool) -> Self {
        self.dynamic.push(tool);
        self
    }

    /// Builds the registry of tools this server serves: collects every
    /// `#[tool]`, applies the filters, generates schemas and checks that
    /// names are unique and every `State<T>` a tool needs is registered.
    /// The server does this once when it starts; tests and tools such as
    /// a `--list-tools` export can call it directly.
    pub fn registry(&self) -> Result<Registry, RegistryError> {
        Registry::build(&self.dynamic, &self.filter, Arc::new(self.state.clone()))
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}
