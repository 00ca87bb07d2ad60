//! The settings of the HTTP transport, set on the [`Server`](crate::Server)
//! builder.

use std::time::Duration;

/// How the HTTP transport serves, with safe defaults.
#[derive(Clone, Debug)]
pub(crate) struct HttpConfig {
    /// No sessions: every POST stands alone; GET and DELETE are 405.
    pub(crate) stateless: bool,
    /// A session nobody used for this long ends.
    pub(crate) session_idle_timeout: Duration,
    /// Sessions alive at once; `initialize` beyond it is refused (503).
    pub(crate) max_sessions: usize,
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
    /// How bearer tokens are checked ([`Server::auth`](crate::Server::auth)),
    /// made ready when the server starts.
    #[cfg(feature = "auth")]
    pub(crate) auth: Option<std::sync::Arc<crate::auth::Authenticator>>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            stateless: false,
            session_idle_timeout: Duration::from_secs(10 * 60),
            max_sessions: 10_000,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            header_read_timeout: Duration::from_secs(10),
            replay_events: 256,
            #[cfg(feature = "auth")]
            auth: None,
        }
    }
}
