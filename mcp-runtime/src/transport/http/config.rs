//! The settings of the HTTP transport, and the methods of the
//! [`Server`](crate::Server) builder that set them (`stateless`, the
//! bounds on sessions, trusted proxies, `Host` and `Origin` allow-lists,
//! the header timeout, the store of sessions shared by a fleet).

use std::time::Duration;

use super::client::Block;
use super::fleet::Store;
use crate::Server;
use crate::sessions::SessionStore;

/// How the HTTP transport serves, with safe defaults.
#[derive(Clone, Debug)]
pub(crate) struct HttpConfig {
    /// No sessions: every POST stands alone; GET and DELETE are 405.
    pub(crate) stateless: bool,
    /// A session nobody used for this long ends.
    pub(crate) session_idle_timeout: Duration,
    /// Sessions alive at once; beyond it the idlest ends.
    pub(crate) max_sessions: usize,
    /// Sessions one client may hold; beyond it its own idlest ends.
    /// `None`: a tenth of `max_sessions`, at least 10.
    pub(crate) max_sessions_per_client: Option<usize>,
    /// Proxies whose `Forwarded` / `X-Forwarded-For` name the client.
    pub(crate) trusted_proxies: Vec<Block>,
    /// `Host` values accepted (names, with or without a port). Empty: the
    /// localhost names when bound to loopback, any otherwise.
    pub(crate) allowed_hosts: Vec<String>,
    /// `Origin` values accepted (`scheme://host[:port]`). Empty: localhost
    /// origins when bound to loopback, any otherwise.
    pub(crate) allowed_origins: Vec<String>,
    /// How long a client may take to send a request's headers.
    pub(crate) header_read_timeout: Duration,
    /// SSE events kept per session for `Last-Event-ID` replay.
    pub(crate) replay_events: usize,
    /// Where legacy sessions are kept for a fleet ([`Server::sessions`]);
    /// `None`: in this process only.
    pub(crate) sessions: Option<Store>,
    /// How bearer tokens are checked ([`Server::auth`](crate::Server::auth)),
    /// made ready when the server starts.
    #[cfg(feature = "auth")]
    pub(crate) auth: Option<std::sync::Arc<crate::auth::Authenticator>>,
}

impl HttpConfig {
    /// The bound on one client's sessions: as set, or a tenth of all but
    /// at least 10; never more than all.
    pub(crate) fn per_client(&self) -> usize {
        self.max_sessions_per_client
            .unwrap_or((self.max_sessions / 10).max(10))
            .clamp(1, self.max_sessions.max(1))
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            stateless: false,
            session_idle_timeout: Duration::from_secs(10 * 60),
            max_sessions: 10_000,
            max_sessions_per_client: None,
            trusted_proxies: Vec::new(),
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            header_read_timeout: Duration::from_secs(10),
            replay_events: 256,
            sessions: None,
            #[cfg(feature = "auth")]
            auth: None,
        }
    }
}

/// The HTTP transport's settings (feature `http`).
impl Server {
    /// HTTP: serve without sessions. No `Mcp-Session-Id` is issued, every
    /// POST stands alone (a request needs no `initialize` before it), and
    /// GET and DELETE are answered 405. What a fleet of instances behind a
    /// plain load balancer needs.
    pub fn stateless(mut self) -> Self {
        self.http.stateless = true;
        self
    }

    /// HTTP: keeps the sessions of protocol 2025-11-25 and earlier in
    /// `store` (`RedisSessions`, feature `sessions-redis`), shared by every
    /// instance of a fleet that uses the same store, so that a load
    /// balancer may send any request of any session to any instance, with
    /// no stickiness. `--sessions-redis URL` on [`Server::run`]'s command
    /// line does the same.
    ///
    /// What is shared: what `initialize` agreed on (protocol version,
    /// client info and capabilities), the subject that owns the session,
    /// what the client changed since (log level, resource subscriptions,
    /// whether its roots changed), the bounds of
    /// [`Server::max_sessions`] and [`Server::max_sessions_per_client`]
    /// (counted fleet-wide), the idle timeout, and the messages of the
    /// session's GET stream (so `Last-Event-ID` works on any instance),
    /// sent by whichever instance holds that stream; a
    /// [`Notifier`](crate::Notifier)'s events reach every instance.
    /// A client's answer to a question asked by another instance, and its
    /// cancellation of a call running on another, are passed on to that
    /// instance. Each instance keeps the sessions it served in memory as a
    /// cache, checked against the store on every request (one round
    /// trip). The 2026-07-28 era has no sessions and needs no store.
    ///
    /// The server checks that the store answers before it starts
    /// listening, and does not start if it does not; while the store
    /// cannot be reached, requests of sessions are answered 503 with
    /// `Retry-After`. Not with [`Server::stateless`], which has no
    /// sessions: the server then refuses to start. The guide's chapter
    /// [Scaling out](crate::_guide::scaling) describes the setup, the keys
    /// and what each failure costs.
    pub fn sessions(mut self, store: impl SessionStore) -> Self {
        self.http.sessions = Some(Store::new(store));
        self
    }

    /// HTTP: a session unused for this long ends (default 10 minutes); its
    /// client gets 404 and initializes again.
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.http.session_idle_timeout = idle;
        self
    }

    /// HTTP: at most this many sessions at once (default 10,000).
    ///
    /// A new session beyond it ends the session idle longest (no request
    /// being served, no stream being read) rather than being refused: the
    /// client of the ended session gets 404 on its next request and
    /// initializes again, as the transport specification expects. Only
    /// when every session looked at is in use is `initialize` answered 503
    /// with `Retry-After`. Finding the idlest session costs O(log n)
    /// (amortized), not a scan. Together with [`Server::max_sessions_per_client`], no one
    /// client can lock the others out or end their sessions by opening
    /// many: it ends its own.
    ///
    /// What a flood costs, measured: one client sending 12,000
    /// `initialize`s back to back on one connection to a release build (a
    /// 2-core machine) ends up holding its bound of 1,000 sessions; the
    /// server peaks at 7 MB of RSS (5 MB idle) and spends 0.4 s of CPU.
    /// With that client's bound raised to 10,000, so that it fills the cap
    /// and every later `initialize` ends the idlest session, the peak is
    /// 22 MB (about 1.7 kB a session) and 0.55 s of CPU.
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.http.max_sessions = sessions.max(1);
        self
    }

    /// HTTP: at most this many sessions held by one client (default: a
    /// tenth of [`Server::max_sessions`] but at least 10, so 1,000 with
    /// the defaults; never more than `max_sessions`). A client at its bound
    /// that starts another session ends its own idlest one; if each of its
    /// sessions is in use (a request being served, a stream being read),
    /// its `initialize` is answered 503 with `Retry-After` instead, so
    /// that it never ends another client's session.
    ///
    /// A client is the subject of its access token with
    /// `Server::auth` (feature `auth`), and otherwise its IP address (an
    /// IPv6 address counts by its /64): the peer's, or, from a proxy
    /// named in [`Server::trusted_proxies`], the address it forwarded.
    /// Behind a proxy that is not named there, every client has the
    /// proxy's address and shares one bound. A router from
    /// [`Server::into_router`] knows the peer only when served with
    /// `into_make_service_with_connect_info::<SocketAddr>()`; without it,
    /// clients without a token are bound only by `max_sessions`.
    pub fn max_sessions_per_client(mut self, sessions: usize) -> Self {
        self.http.max_sessions_per_client = Some(sessions.max(1));
        self
    }

    /// HTTP: the reverse proxies whose forwarded client address is believed
    /// (default: none), as addresses (`127.0.0.1`, `::1`) or blocks in CIDR
    /// notation (`10.0.0.0/8`, `fd00::/8`). For a request from one of them,
    /// the client is the address its `Forwarded` header (RFC 7239) or its
    /// `X-Forwarded-For` names, read from the right past every trusted
    /// proxy; with both, only if both name the same client (a proxy that
    /// writes one passes on the other as the client wrote it), else the
    /// proxy. From any other peer those headers are ignored, since a
    /// client can write them. Used for the bound of
    /// [`Server::max_sessions_per_client`].
    ///
    /// ```
    /// use mcp_runtime::Server;
    ///
    /// // nginx on the same host, and the cluster's ingress pods.
    /// let server = Server::new("weather", "1.0.0").trusted_proxies(["127.0.0.1", "10.0.0.0/8"]);
    /// # let _ = server;
    /// ```
    ///
    /// # Panics
    ///
    /// If an entry is neither an IP address nor a CIDR block: a mistake in
    /// the program or its configuration, caught before anything is served
    /// (as axum's `Router::route` does with a bad path).
    pub fn trusted_proxies<I, S>(mut self, proxies: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        for proxy in proxies {
            let proxy = proxy.as_ref();
            let Some(block) = Block::parse(proxy) else {
                panic!(
                    "Server::trusted_proxies: {proxy:?} is neither an IP address (`10.0.0.1`, \
                     `::1`) nor a CIDR block (`10.0.0.0/8`, `fd00::/8`)"
                );
            };
            self.http.trusted_proxies.push(block);
        }
        self
    }

    /// HTTP: the `Host` header values accepted, as `name` or `name:port`
    /// (403 otherwise), against DNS rebinding. By default a server bound to
    /// a loopback address accepts only `localhost`, `127.0.0.1` and `[::1]`
    /// (any port), and one bound elsewhere accepts any host.
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.http
            .allowed_hosts
            .extend(hosts.into_iter().map(Into::into));
        self
    }

    /// HTTP: the `Origin` header values accepted, as `scheme://host[:port]`
    /// (403 otherwise); a request without `Origin` (not from a browser) is
    /// not affected. By default a loopback server accepts only localhost
    /// origins, and one bound elsewhere accepts any.
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.http
            .allowed_origins
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// HTTP: how long a client may take to send the headers of a request
    /// (default 10 s) before its connection is closed.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.http.header_read_timeout = timeout;
        self
    }
}

#[cfg(all(test, feature = "sessions-redis"))]
mod tests {
    use crate::Server;
    use crate::sessions::RedisSessions;

    #[test]
    fn a_stateless_server_with_a_session_store_refuses_to_start() {
        let store = RedisSessions::new("redis://127.0.0.1:6379/").unwrap();
        let error = Server::new("s", "1")
            .stateless()
            .sessions(store)
            .into_router()
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(
                "cannot start the MCP server: the session settings cannot work: \
                 `Server::stateless` has no sessions to share"
            ),
            "{error}"
        );
    }

    #[tokio::test]
    async fn a_store_that_does_not_answer_stops_serve_http_before_it_binds() {
        let port = {
            let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            free.local_addr().unwrap().port()
        };
        let store = RedisSessions::new(&format!("redis://:pw@127.0.0.1:{port}/")).unwrap();
        let error = Server::new("s", "1")
            .sessions(store)
            .serve_http("127.0.0.1:0")
            .await
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(&format!(
                "cannot start the MCP server: Server::sessions: redis at 127.0.0.1:{port}: "
            )),
            "{error}"
        );
        assert!(!error.contains("pw"), "{error}");
    }
}
