//! The server builder.

mod catalog;
mod hint;

pub(crate) use hint::{INSPECTOR, shell_word};
use hint::{no_tools_warning, print_terminal_hint};

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

use crate::context::StateMap;
use crate::dispatch::{Limits, ServerCore};
use crate::handle::ServerHandle;
use crate::meta::Icon;
use crate::middleware::{Layers, McpRequest, McpService};
use crate::notify::Notifier;
use crate::protocol::capabilities::Served;
use crate::protocol::info::ServerInfo;
use crate::registry::error::RegistryError;
use crate::registry::{Dynamic, Registry, ToolFilter};

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
    info: ServerInfo,
    instructions: Option<String>,
    state: StateMap,
    filter: ToolFilter,
    dynamic: Dynamic,
    /// Progressive discovery ([`Server::tool_search`]), and where it was
    /// turned on.
    search: Option<(crate::ToolSearch, crate::Location)>,
    /// Taken by [`Server::notifier`].
    notifier: Option<Notifier>,
    /// Taken by [`Server::handle`].
    handle: Option<ServerHandle>,
    /// Read by `run`, whose `MCP_STATE_KEY` keeps the keys' `ttl`.
    pub(crate) limits: Limits,
    /// Given to [`Server::layer`].
    layers: Layers,
    /// Where and how long tasks are kept (`Server::tasks`).
    pub(crate) tasks: crate::tasks::runner::TaskSettings,
    #[cfg(feature = "http")]
    pub(crate) http: crate::transport::http::HttpConfig,
    /// Set by [`Server::auth`]; made ready when the server starts.
    #[cfg(feature = "auth")]
    auth: Option<crate::auth::Auth>,
    /// The log [`Server::log_to_stderr`] set up, kept until `run` ends.
    #[cfg(feature = "stderr-log")]
    pub(crate) log: Option<crate::cli::log::Guard>,
    /// What [`Server::mount`] mounted, and its followers.
    #[cfg(feature = "client")]
    pub(crate) mounts: crate::mount::tasks::Mounts,
}

impl Server {
    /// A server that reports `name` and `version` as its `serverInfo`;
    /// pass your crate's, for example `env!("CARGO_PKG_VERSION")`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Server {
            info: ServerInfo {
                name: name.into(),
                version: version.into(),
                ..ServerInfo::default()
            },
            instructions: None,
            state: StateMap::default(),
            filter: ToolFilter::default(),
            dynamic: Dynamic::default(),
            search: None,
            notifier: None,
            handle: None,
            limits: Limits::default(),
            layers: Layers::default(),
            tasks: Default::default(),
            #[cfg(feature = "http")]
            http: Default::default(),
            #[cfg(feature = "auth")]
            auth: None,
            #[cfg(feature = "stderr-log")]
            log: None,
            #[cfg(feature = "client")]
            mounts: Default::default(),
        }
    }

    /// The server's name, as given to [`Server::new`].
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// The server's version, as given to [`Server::new`].
    pub fn version(&self) -> &str {
        &self.info.version
    }

    /// A human-readable name for the server, for clients to show
    /// (`serverInfo.title`, 2025-06-18 and later).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// What the server does, for people choosing servers
    /// (`serverInfo.description`, 2025-11-25).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.info.description = Some(description.into());
        self
    }

    /// The server's home page (`serverInfo.websiteUrl`, 2025-11-25).
    pub fn website_url(mut self, url: impl Into<String>) -> Self {
        self.info.website_url = Some(url.into());
        self
    }

    /// Adds an icon for clients to show beside the server's name
    /// (`serverInfo.icons`, 2025-11-25).
    pub fn icon(mut self, icon: Icon) -> Self {
        self.info.icons.push(icon);
        self
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

    /// At most this many calls run at once (default 1024). Calls that
    /// arrive while all are busy wait their turn in a backlog, in arrival
    /// order (see [`Server::max_backlog_size`]).
    pub fn max_in_flight(mut self, calls: usize) -> Self {
        self.limits.max_in_flight = calls.max(1);
        self
    }

    /// How much may wait for a free call slot, in bytes (default 8 MiB):
    /// each waiting call counts as the size of its message plus 1 KiB.
    ///
    /// While calls wait, the server keeps reading: `ping` is answered and
    /// `notifications/cancelled` drops a waiting call without running it.
    /// Only when the backlog is full does the server stop reading, until a
    /// waiting call starts or is cancelled, so memory stays bounded however
    /// fast a client sends. A call larger than the whole backlog still
    /// waits, alone.
    pub fn max_backlog_size(mut self, bytes: usize) -> Self {
        self.limits.max_backlog_bytes = bytes;
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

    /// The number of entries per page of `tools/list`, `resources/list`,
    /// `resources/templates/list` and `prompts/list` (default: all in one
    /// page).
    pub fn page_size(mut self, entries: usize) -> Self {
        self.limits.page_size = Some(entries.max(1));
        self
    }

    /// How long 2026-07-28 clients may keep `server/discover`, the lists
    /// and resource contents (`ttlMs`, `cacheScope`); see [`CacheHints`](crate::CacheHints)
    /// for the defaults.
    pub fn cache_hints(mut self, hints: crate::CacheHints) -> Self {
        self.limits.cache = hints;
        self
    }

    /// The keys that sign the `requestState` of 2026-07-28 `input_required`
    /// answers (default: a random key made at start-up, which only this
    /// process accepts). Instances behind one load balancer need the same
    /// keys; see [`StateKeys`](crate::StateKeys). [`Server::run`] replaces
    /// them with `MCP_STATE_KEY` when the environment sets it.
    pub fn request_state_keys(mut self, keys: crate::StateKeys) -> Self {
        self.limits.state_keys = std::sync::Arc::new(keys);
        self
    }

    /// How long a request to the client ([`Context::send_request`](crate::Context::send_request):
    /// a question to the user, a completion from its model, its roots)
    /// waits for the answer before the call gets
    /// [`ClientRequestError::Timeout`](crate::ClientRequestError::Timeout)
    /// (default 5 minutes: a person may be answering).
    pub fn client_request_timeout(mut self, limit: Duration) -> Self {
        self.limits.client_request_timeout = limit;
        self
    }

    /// The timeout of tools that set none with `#[tool(timeout = "...")]`.
    pub fn default_timeout(mut self, limit: Duration) -> Self {
        self.limits.default_timeout = Some(limit);
        self
    }

    /// Wraps every request in `layer`, a [`tower::Layer`] over
    /// [`McpService`], on every transport (see
    /// [`middleware`](crate::middleware) for what a request carries and
    /// which requests go through).
    ///
    /// Several calls compose: the layer added first is the outermost (it
    /// sees the request first and the answer last), as with
    /// [`tower::ServiceBuilder`]. The layers are applied once, when the
    /// server starts, and every connection shares the result, so a limit
    /// such as `ConcurrencyLimitLayer`'s holds across all of them.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_runtime::Server;
    ///
    /// let server = Server::new("weather", "1.0.0")
    ///     .layer(tower::limit::ConcurrencyLimitLayer::new(100))
    ///     .layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(30)));
    /// # let _ = server;
    /// ```
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: tower::Layer<McpService> + Send + Sync + 'static,
        L::Service: tower::Service<McpRequest, Response = serde_json::Value>
            + Clone
            + Send
            + Sync
            + 'static,
        <L::Service as tower::Service<McpRequest>>::Error: Into<tower::BoxError>,
        <L::Service as tower::Service<McpRequest>>::Future: Send + 'static,
    {
        self.layers.push(layer);
        self
    }

    /// HTTP: makes this server an OAuth 2.1 resource server. Every request
    /// must carry a bearer access token that `auth` accepts; tools,
    /// resources and prompts declared with `scopes = [..]` need those
    /// scopes; handlers see the caller with [`Context::auth`](crate::Context::auth).
    /// See [`Auth`](crate::auth::Auth) for the kinds of token and the
    /// answers clients get. Needs the `auth` feature.
    #[cfg(feature = "auth")]
    pub fn auth(mut self, auth: crate::auth::Auth) -> Self {
        self.auth = Some(auth);
        self
    }

    /// With `Server::auth` (feature `auth`): `tools/list`, `resources/list`,
    /// `resources/templates/list` and `prompts/list` show a caller only the
    /// entries whose scopes its token grants. By default every entry is
    /// listed, and one the caller may not use is refused when used (403
    /// `insufficient_scope`, which lets a client ask for more scopes).
    pub fn list_only_permitted(mut self) -> Self {
        self.limits.list_only_permitted = true;
        self
    }

    /// Serves Streamable HTTP at `http://ADDR/mcp` until SIGTERM or Ctrl-C:
    /// then it stops accepting, lets calls in flight finish within the
    /// shutdown grace period, closes the streams and returns `Ok`.
    ///
    /// Name a loopback address (`127.0.0.1:8080`) unless the server is meant
    /// to be reached from other machines. Fails at once if the tools cannot
    /// be served or the address cannot be bound, saying why on stderr first
    /// (as [`Server::serve_stdio`] does).
    #[cfg(feature = "http")]
    pub async fn serve_http(self, addr: impl tokio::net::ToSocketAddrs) -> std::io::Result<()> {
        let (core, config) = self.http_parts()?;
        crate::transport::http::ready(&config).await?;
        let listener = crate::startup::bind(addr).await?;
        crate::transport::http::serve(
            core,
            config,
            listener,
            crate::transport::http::stop_signal(),
        )
        .await
    }

    /// [`Server::serve_http`] on a listener you bound (port 0 for any free
    /// port, a socket handed over by systemd), until `shutdown` completes
    /// rather than on a signal; then as on a signal.
    #[cfg(feature = "http")]
    pub async fn serve_http_with(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send,
    ) -> std::io::Result<()> {
        let (core, config) = self.http_parts()?;
        crate::transport::http::ready(&config).await?;
        crate::transport::http::serve(core, config, listener, shutdown).await
    }

    /// The Streamable HTTP endpoint as an axum [`Router`](axum::Router)
    /// serving `/mcp`, to mount beside your own routes:
    ///
    /// ```no_run
    /// # async fn run() -> std::io::Result<()> {
    /// use mcp_runtime::Server;
    ///
    /// let app = axum::Router::new()
    ///     .route("/health", axum::routing::get(|| async { "ok" }))
    ///     .merge(Server::new("weather", "1.0.0").into_router().map_err(std::io::Error::other)?);
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    /// axum::serve(listener, app).await
    /// # }
    /// ```
    ///
    /// The router cannot tell which address it is served on, so it answers
    /// only to localhost names unless [`Server::allowed_hosts`] says
    /// otherwise. Sessions live as long as the router; the idle timeout
    /// ends forgotten ones. Fails if the tools cannot be served (as
    /// [`Server::serve_stdio`]).
    #[cfg(feature = "http")]
    pub fn into_router(self) -> Result<axum::Router, RegistryError> {
        let (core, config) = self.into_http_parts()?;
        Ok(crate::transport::http::router(core, config))
    }

    /// Serves over stdin and stdout until the client closes stdin; calls in
    /// flight then get the shutdown grace period to answer. stdout carries
    /// protocol messages only; logs go through `tracing`.
    ///
    /// Fails at once, before reading anything, if the tools cannot be
    /// served: it writes `error: ` and a sentence naming the problem, where
    /// it is and how to fix it on stderr, and returns a [`std::io::Error`]
    /// that wraps the [`RegistryError`], whose `Display` and `Debug` are
    /// both that sentence. (A `main` returning it adds the line `Error:
    /// Custom { kind: Other, error: <the sentence> }`: the `Debug` of an
    /// `io::Error` is that struct, whatever it wraps.) A server with no
    /// tools starts, and says why on stderr.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        // A server with a handle may well start empty: its tools come later.
        let may_grow = self.handle.is_some();
        let core = self.into_core().map_err(failed)?;
        let warning = no_tools_warning(&core).filter(|_| !may_grow);
        if std::io::stdin().is_terminal() {
            print_terminal_hint(&core, warning.as_deref());
        } else if let Some(warning) = &warning {
            // On stderr itself, not only through `tracing`: a `main` as
            // short as the README's installs no subscriber. Here rather
            // than in `into_core`, which the in-process `TestClient` uses.
            eprintln!("{warning}");
        }
        crate::transport::stdio::serve(Arc::new(core)).await
    }

    /// The core and the HTTP settings, or the start-up error (said on
    /// stderr) as an `io::Error`; says on stderr when there are no tools.
    #[cfg(feature = "http")]
    fn http_parts(self) -> std::io::Result<(ServerCore, crate::transport::http::HttpConfig)> {
        let may_grow = self.handle.is_some();
        let (core, config) = self.into_http_parts().map_err(failed)?;
        if let Some(warning) = no_tools_warning(&core).filter(|_| !may_grow) {
            eprintln!("{warning}");
        }
        Ok((core, config))
    }

    /// The HTTP settings and the core, for the HTTP transport.
    #[cfg(feature = "http")]
    fn into_http_parts(
        mut self,
    ) -> Result<(ServerCore, crate::transport::http::HttpConfig), RegistryError> {
        #[allow(unused_mut)]
        let mut http = std::mem::take(&mut self.http);
        if http.stateless && http.sessions.is_some() {
            return Err(RegistryError::InvalidSessions {
                reason: "`Server::stateless` has no sessions to share, and `Server::sessions` \
                         gives a store for them: drop one of the two (a fleet of stateless \
                         instances needs no session store)"
                    .into(),
            });
        }
        #[cfg(feature = "auth")]
        if let Some(auth) = self.auth.take() {
            let authenticator = crate::auth::Authenticator::new(auth)
                .map_err(|reason| RegistryError::InvalidAuth { reason })?;
            http.auth = Some(Arc::new(authenticator));
        }
        Ok((self.into_core()?, http))
    }

    pub(crate) fn into_core(self) -> Result<ServerCore, RegistryError> {
        let registry = self.registry()?;
        tracing::info!(
            server = %self.info.name,
            version = %self.info.version,
            tools = registry.len(),
            "MCP server ready"
        );
        if registry.is_empty() {
            // The transports say it on stderr with the whole fix.
            tracing::debug!(
                "no tools are registered; a crate of tools that the binary never names is not \
                 linked: add `use your_tools_crate as _;` to the file with `fn main`"
            );
        }
        let limits = self.limits;
        let dynamic = self.handle.is_some();
        let tasks = crate::tasks::runner::TaskRunner::for_server(self.tasks, &registry, dynamic);
        let service = self.layers.build();
        #[cfg(feature = "client")]
        let mounts = self.mounts;
        let (info, notifier) = (self.info, self.notifier);
        let instructions = with_search_sentence(self.instructions, self.search.as_ref());
        let Some(handle) = self.handle else {
            let served = Served {
                list_changes: notifier.is_some(),
                ..Served::of(&registry)
            };
            return Ok(
                ServerCore::new(info, instructions, registry, served, limits, notifier)
                    .with_service(service)
                    .with_tasks(tasks),
            );
        };
        // Skills are fixed at start-up: a handle adds none.
        let skills = registry.serves_skills();
        handle.start(|pending| {
            let mut registry = registry;
            for change in &pending {
                if let Some(changed) = registry.changed_with(change, false)? {
                    registry = changed;
                }
            }
            // Together: a tool added before its view is fine.
            registry.check_views()?;
            #[allow(unused_mut)]
            let mut core = ServerCore::new(
                info,
                instructions,
                registry,
                Served {
                    skills,
                    ..Served::everything()
                },
                limits,
                notifier,
            )
            .with_service(service)
            .with_tasks(tasks);
            #[cfg(feature = "client")]
            {
                core.mounts = mounts;
            }
            Ok(core)
        })
    }

    /// Builds the registry of tools this server serves: collects every
    /// `#[tool]`, applies the filters, generates schemas and checks that
    /// names are unique and every `State<T>` a tool needs is registered.
    /// The server does this once when it starts; tests and tools such as
    /// a `--list-tools` export can call it directly.
    ///
    /// With [`Server::tool_search`], it has the synthetic tools too, and
    /// [`Registry::listed`] is what `tools/list` shows.
    pub fn registry(&self) -> Result<Registry, RegistryError> {
        let registry = Registry::build(&self.dynamic, &self.filter, Arc::new(self.state.clone()))?;
        match &self.search {
            Some((search, location)) => search.install(registry, *location),
            None => Ok(registry),
        }
    }

    /// What the builder adds beside the attributes' functions.
    #[cfg(feature = "client")]
    pub(crate) fn dynamic(&self) -> &Dynamic {
        &self.dynamic
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.info.name)
            .field("version", &self.info.version)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

/// The instructions, with progressive discovery's sentence after them
/// when it has one.
fn with_search_sentence(
    instructions: Option<String>,
    search: Option<&(crate::ToolSearch, crate::Location)>,
) -> Option<String> {
    let Some(sentence) = search.and_then(|(search, _)| search.instructions_sentence()) else {
        return instructions;
    };
    Some(match instructions {
        Some(text) if !text.trim().is_empty() => format!("{}\n\n{sentence}", text.trim_end()),
        _ => sentence,
    })
}

/// A tool set that cannot be served, said on stderr, as an `io::Error`.
fn failed(error: RegistryError) -> std::io::Error {
    crate::startup::failed(std::io::ErrorKind::Other, error)
}
