//! [`Upstream`]: where a mounted server is, and how to connect to it again.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::process::Command;

use crate::client::{Client, ClientError, HttpOptions};

type Connecting = Pin<Box<dyn Future<Output = Result<Client, ClientError>> + Send>>;

/// Makes a new connection to the upstream.
pub(crate) type Connect = Arc<dyn Fn() -> Connecting + Send + Sync>;

/// A server to mount with [`Server::mount`](crate::Server::mount): a
/// command to spawn, a URL, any way of making a [`Client`], or a client
/// already connected.
///
/// ```no_run
/// use mcp_runtime::Upstream;
/// use std::time::Duration;
///
/// // Spawned now, and again if it exits.
/// let files = Upstream::command("npx", ["-y", "@modelcontextprotocol/server-filesystem", "/srv/docs"]);
/// // One process per client session, for a server that keeps state per client.
/// let shell = Upstream::command("my-shell-server", ["--sandbox"]).per_session();
/// // Over Streamable HTTP, calls cut off after two minutes.
/// let search = Upstream::http("http://127.0.0.1:9000/mcp").timeout(Duration::from_secs(120));
/// # let _ = (files, shell, search);
/// ```
pub struct Upstream {
    /// `None` for a client given already connected: it cannot reconnect.
    pub(crate) connect: Option<Connect>,
    /// A connection made before mounting.
    pub(crate) connected: Option<Client>,
    /// For an HTTP upstream, its options: the timeout applies to them.
    http: Option<HttpOptions>,
    pub(crate) per_session: bool,
    pub(crate) label: String,
    pub(crate) timeout: Option<Duration>,
}

impl Upstream {
    /// Spawns `program` with `args` as a stdio server (again after it
    /// exits); each line it writes to stderr goes to `tracing` under the
    /// target `mcp_runtime::client::stderr`.
    pub fn command<I, S>(program: impl AsRef<OsStr>, args: I) -> Upstream
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let program = program.as_ref().to_owned();
        let args: Vec<OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let label = std::iter::once(&program)
            .chain(&args)
            .map(|word| word.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ");
        Upstream::spawn(move || {
            let mut command = Command::new(&program);
            command.args(&args);
            command
        })
        .label(label)
    }

    /// Spawns the command `make` gives each time it connects: for an
    /// environment, a working directory or anything else
    /// [`Command`](tokio::process::Command) sets.
    pub fn spawn(make: impl Fn() -> Command + Send + Sync + 'static) -> Upstream {
        let label = make().as_std().get_program().to_string_lossy().into_owned();
        Upstream::connect(move || Client::spawn(make())).label(label)
    }

    /// The Streamable HTTP server at `url` (its MCP endpoint).
    ///
    /// A protected one takes [`oauth`](Upstream::oauth).
    pub fn http(url: impl Into<String>) -> Upstream {
        Upstream::http_with(HttpOptions::new(url))
    }

    /// A Streamable HTTP server, connected to as `options` say (a bearer
    /// token or a token provider, timeouts).
    pub fn http_with(options: HttpOptions) -> Upstream {
        let label = options.url.clone();
        let mut upstream = Upstream::connect(|| async { Err(ClientError::Closed) }).label(label);
        upstream.http = Some(options);
        upstream
    }

    /// A server `connect` connects to, each time a connection is needed.
    pub fn connect<F, Fut>(connect: F) -> Upstream
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Client, ClientError>> + Send + 'static,
    {
        Upstream {
            connect: Some(Arc::new(move || Box::pin(connect()))),
            connected: None,
            http: None,
            per_session: false,
            label: "upstream".to_owned(),
            timeout: None,
        }
    }

    /// One connection per client session instead of one shared by all:
    /// made at the session's first call, read or get, closed when the
    /// session ends. For servers that keep state per client (a shell, a
    /// browser). What is served is listed once, from a first connection
    /// that also serves completions. Needs a way to connect again, so not
    /// for a [`Client`] given already connected.
    pub fn per_session(mut self) -> Upstream {
        self.per_session = true;
        self
    }

    /// How the upstream is named in logs and errors (default: the command
    /// line, or the URL).
    pub fn label(mut self, label: impl Into<String>) -> Upstream {
        self.label = label.into();
        self
    }

    /// How long a forwarded request may wait for the upstream's answer
    /// (default: the client's, 60 seconds). A call that runs out answers
    /// `isError: true`; progress does not extend it.
    pub fn timeout(mut self, limit: Duration) -> Upstream {
        self.timeout = Some(limit);
        self
    }

    /// Obtains tokens for this HTTP upstream with OAuth 2.1 (see
    /// [`OAuth`](crate::client::oauth::OAuth); it sets
    /// [`HttpOptions::oauth`]). The gateway authorizes with its own
    /// identity: the tokens of its own clients are never forwarded. A
    /// `per_session` upstream's connections share the tokens, so they
    /// authorize once. Does nothing for an upstream that is not HTTP.
    ///
    /// ```no_run
    /// use mcp_runtime::Upstream;
    /// use mcp_runtime::client::oauth::OAuth;
    ///
    /// let weather = Upstream::http("https://weather.example.com/mcp")
    ///     .oauth(OAuth::client_credentials("gateway", "secret").scopes(["weather:read"]));
    /// # let _ = weather;
    /// ```
    pub fn oauth(mut self, oauth: crate::client::oauth::OAuth) -> Upstream {
        if let Some(options) = self.http.take() {
            self.http = Some(options.oauth(oauth));
        }
        self
    }

    /// Whether a lost connection can be made again.
    pub(crate) fn reconnects(&self) -> bool {
        self.connect.is_some()
    }

    /// A new connection, with the timeout set.
    pub(crate) async fn open(&self) -> Result<Client, ClientError> {
        if let Some(options) = &self.http {
            let mut options = options.clone();
            if let Some(limit) = self.timeout {
                options = options.timeout(limit);
            }
            return Client::connect_http(options).await;
        }
        let Some(connect) = &self.connect else {
            return Err(ClientError::Closed);
        };
        let client = connect().await?;
        if let Some(limit) = self.timeout {
            client.set_timeout(limit);
        }
        Ok(client)
    }
}

impl From<Client> for Upstream {
    /// A client already connected. When its connection is lost, what it
    /// served is removed and stays removed: it cannot connect again.
    fn from(client: Client) -> Upstream {
        let label = client.server_info().name().to_owned();
        Upstream {
            connect: None,
            connected: Some(client),
            http: None,
            per_session: false,
            label,
            timeout: None,
        }
    }
}

impl fmt::Debug for Upstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Upstream")
            .field("label", &self.label)
            .field("per_session", &self.per_session)
            .field("reconnects", &self.reconnects())
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}
