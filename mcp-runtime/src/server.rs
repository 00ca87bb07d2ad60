//! The server builder.

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

use crate::connection::{Limits, ServerCore};
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
    limits: Limits,
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
            limits: Limits::default(),
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

    /// At most this many calls run at once (default 1024). When all are
    /// busy the server stops reading until one finishes, so memory stays
    /// flat however fast a client sends.
    pub fn max_in_flight(mut self, calls: usize) -> Self {
        self.limits.max_in_flight = calls.max(1);
        self
    }

    /// The longest message accepted, in bytes (default 16 MiB). A longer
    /// line is answered -32600 "message too large" and skipped without
    /// being held in memory.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.limits.max_message_bytes = bytes;
        self
    }

    /// How long calls in flight may take to finish once the client closes
    /// stdin (default 5 s). Async calls still running then are dropped.
    /// Synchronous tools (plain `fn`s) cannot be stopped: if one is still
    /// running, the process exits (code 0) one more grace period after
    /// [`Server::serve_stdio`] returns, instead of waiting for it.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.limits.shutdown_grace = grace;
        self
    }

    /// The number of tools per `tools/list` page (default: all in one page).
    pub fn page_size(mut self, tools: usize) -> Self {
        self.limits.page_size = Some(tools.max(1));
        self
    }

    /// The timeout of tools that set none with `#[tool(timeout = "...")]`.
    pub fn default_timeout(mut self, limit: Duration) -> Self {
        self.limits.default_timeout = Some(limit);
        self
    }

    /// Serves over stdin and stdout until the client closes stdin; calls in
    /// flight then get the shutdown grace period to answer. stdout carries
    /// protocol messages only; logs go through `tracing`.
    ///
    /// Fails at once, before reading anything, if the tools cannot be served:
    /// the [`std::io::Error`] wraps the [`RegistryError`], whose `Display`
    /// and `Debug` are both a sentence naming the problem, where it is and
    /// how to fix it.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        let core = self.into_core().map_err(|error| {
            tracing::error!("{error}");
            // `main` returning this prints `Error: Custom { kind: Other,
            // error: <the sentence> }`: `Debug` of an `io::Error` wrapping
            // an error is that struct, whatever the inner type.
            std::io::Error::other(error)
        })?;
        if std::io::stdin().is_terminal() {
            print_terminal_hint(&core);
        }
        crate::transport::stdio::serve(Arc::new(core)).await
    }

    pub(crate) fn into_core(self) -> Result<ServerCore, RegistryError> {
        let registry = self.registry()?;
        tracing::info!(
            server = %self.name,
            version = %self.version,
            tools = registry.len(),
            "MCP server ready"
        );
        if registry.is_empty() {
            tracing::warn!(
                "no tools are registered; a crate of tools that the binary never names is not \
                 linked: add `use that_crate as _;`"
            );
        }
        Ok(ServerCore::new(
            self.name,
            self.version,
            self.instructions,
            registry,
            self.limits,
        ))
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

/// Someone ran the server by hand: say what it is and how to connect a
/// client, instead of sitting silent.
fn print_terminal_hint(core: &ServerCore) {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "<path to this binary>".into());
    let args: Vec<String> = std::env::args().skip(1).collect();
    let names: Vec<&str> = core.registry.tools().iter().map(|t| t.name()).collect();
    let config = serde_json::json!({
        "mcpServers": { core.name.clone(): { "command": exe, "args": args } }
    });
    let config = serde_json::to_string_pretty(&config).unwrap_or_default();
    let command = std::iter::once(exe.clone())
        .chain(args)
        .collect::<Vec<_>>()
        .join(" ");
    // stderr, never stdout: stdout is the protocol channel.
    eprintln!(
        "{name} {version} is an MCP server: it speaks JSON-RPC on stdin and stdout and is \
         waiting for a client.\n\
         Tools: {tools}\n\n\
         Try it with the MCP Inspector:\n    npx @modelcontextprotocol/inspector {command}\n\n\
         Or add it to Claude Desktop (claude_desktop_config.json):\n{config}\n\n\
         Press Ctrl-D to stop.",
        name = core.name,
        version = core.version,
        tools = if names.is_empty() {
            "(none)".to_owned()
        } else {
            names.join(", ")
        },
    );
}
