//! What every connection of one server shares, built once at start-up:
//! what it serves (`live`), its state, its capabilities and its limits.

use std::sync::Arc;
use std::time::Duration;

use super::live::Live;
use super::tails::Tails;
use crate::asking::ask::Asks;
use crate::asking::request_state::StateKeys;
use crate::context::{ClientInfo, SessionShared, StateMap};
use crate::jsonrpc::InstanceTag;
use crate::middleware::McpService;
use crate::notify::{Hub, Notifier};
use crate::protocol::cache::CacheHints;
use crate::protocol::capabilities::Served;
use crate::protocol::info::ServerInfo;
use crate::protocol::version::ProtocolVersion;
use crate::registry::Registry;

/// Tunables of a server, set on the builder.
#[derive(Clone, Debug)]
pub(crate) struct Limits {
    pub(crate) max_in_flight: usize,
    /// Bytes of calls waiting for a slot (see `dispatch::calls`) beyond
    /// which reading stops.
    pub(crate) max_backlog_bytes: usize,
    pub(crate) max_message_bytes: usize,
    pub(crate) shutdown_grace: Duration,
    pub(crate) page_size: Option<usize>,
    pub(crate) default_timeout: Option<Duration>,
    /// Lists show an authenticated caller only what its scopes allow.
    pub(crate) list_only_permitted: bool,
    /// How long a request of the server's to its client waits for the
    /// answer.
    pub(crate) client_request_timeout: Duration,
    /// The freshness hints of 2026-07-28 results.
    pub(crate) cache: CacheHints,
    /// What signs and checks 2026-07-28 `requestState`.
    pub(crate) state_keys: Arc<StateKeys>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_in_flight: 1024,
            max_backlog_bytes: 8 * 1024 * 1024,
            max_message_bytes: 16 * 1024 * 1024,
            shutdown_grace: Duration::from_secs(5),
            page_size: None,
            default_timeout: None,
            list_only_permitted: false,
            client_request_timeout: crate::asking::ask::DEFAULT_TIMEOUT,
            cache: CacheHints::default(),
            state_keys: Arc::new(StateKeys::random()),
        }
    }
}

/// Everything shared by the connections of one server, built once.
pub(crate) struct ServerCore {
    /// `serverInfo`.
    pub(crate) info: ServerInfo,
    pub(crate) instructions: Option<String>,
    /// What is served right now.
    pub(crate) live: Arc<Live>,
    /// The values `State<T>` parameters receive.
    pub(crate) state: Arc<StateMap>,
    /// What the capabilities declare.
    pub(crate) served: Served,
    /// The sessions a [`Notifier`](crate::Notifier) tells about changes.
    pub(crate) hub: Arc<Hub>,
    pub(crate) limits: Limits,
    /// The layers of [`Server::layer`](crate::Server::layer), built into
    /// one service shared by every connection; `None` without layers, and
    /// then requests are served as if middleware did not exist.
    pub(crate) service: Option<McpService>,
    /// The followers of mounted upstreams, stopped with the server.
    #[cfg(feature = "client")]
    pub(crate) mounts: crate::mount::tasks::Mounts,
    /// What every 2026-07-28 result adds, made when first needed.
    tails: std::sync::OnceLock<Tails>,
    /// The tasks of this instance, when tools may run as tasks.
    pub(crate) tasks: Option<Arc<crate::tasks::runner::TaskRunner>>,
    /// This process's tag in a fleet that shares legacy sessions, which
    /// the ids of its requests to clients carry; unset without a fleet.
    instance: std::sync::OnceLock<InstanceTag>,
}

impl ServerCore {
    /// `served` says what the capabilities declare; `notifier`, if one was
    /// taken, tells the sessions about changes.
    pub(crate) fn new(
        info: ServerInfo,
        instructions: Option<String>,
        registry: Registry,
        served: Served,
        limits: Limits,
        notifier: Option<Notifier>,
    ) -> ServerCore {
        let hub = notifier.map(|n| n.hub).unwrap_or_default();
        let discovery = registry.discovery.clone();
        let state = Arc::clone(registry.state_map());
        let live = Arc::new(Live::new(registry, limits.page_size));
        if let Some(discovery) = discovery {
            discovery.serve(&live, limits.list_only_permitted, limits.default_timeout);
        }
        ServerCore {
            info,
            instructions,
            state,
            live,
            served,
            hub,
            limits,
            service: None,
            #[cfg(feature = "client")]
            mounts: Default::default(),
            tails: std::sync::OnceLock::new(),
            tasks: None,
            instance: std::sync::OnceLock::new(),
        }
    }

    /// What every 2026-07-28 result adds.
    pub(crate) fn tails(&self) -> &Tails {
        self.tails.get_or_init(|| {
            let instructions = self.instructions.as_deref();
            Tails::new(&self.info, instructions, &self.served, self.limits.cache)
        })
    }

    /// What a result of `method` for `session` adds: `None` in the legacy
    /// era.
    pub(crate) fn tail(&self, session: &SessionShared, method: &str) -> Option<Arc<str>> {
        session
            .version
            .is_modern()
            .then(|| Arc::clone(self.tails().of(method, false)))
    }

    /// Makes this process the fleet's instance `tag`: the legacy
    /// sessions started from now on ask their clients with ids that name
    /// it (set by the HTTP transport of a fleet before it serves).
    /// `false` when a tag was set already (which stays).
    // The HTTP transport of a fleet (`sessions-redis`) sets it.
    #[cfg_attr(
        not(any(test, all(feature = "http", feature = "sessions-redis"))),
        allow(dead_code)
    )]
    pub(crate) fn set_instance(&self, tag: InstanceTag) -> bool {
        self.instance.set(tag).is_ok()
    }

    /// This process's tag in a fleet, once set.
    pub(crate) fn instance(&self) -> Option<InstanceTag> {
        self.instance.get().copied()
    }

    /// A new legacy session of this server, of `version` with `client`:
    /// its requests to the client wait as configured, with ids that name
    /// this instance in a fleet.
    pub(crate) fn new_session(
        &self,
        version: ProtocolVersion,
        client: ClientInfo,
    ) -> SessionShared {
        let mut session = SessionShared::new(Arc::clone(&self.state), version, client)
            .with_ask_timeout(self.limits.client_request_timeout);
        session.asks = Asks::tagged(self.instance());
        session
    }

    /// The same core, running tasks with `runner` (and declaring them).
    pub(crate) fn with_tasks(
        mut self,
        runner: Option<Arc<crate::tasks::runner::TaskRunner>>,
    ) -> ServerCore {
        self.served.tasks = runner.is_some();
        self.tasks = runner;
        self
    }

    /// The same core, serving every request through `service`.
    pub(crate) fn with_service(mut self, service: Option<McpService>) -> ServerCore {
        self.service = service;
        self
    }
}
