//! [`Upstream`]: where a mounted server is, and how to connect to it again.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::process::Command;

use crate::client::{Client, ClientError, HttpOptions, ProtocolVersion};

type Connecting = Pin<Box<dyn Future<Output = Result<Client, ClientError>> + Send>>;

/// Makes a new connection to the upstream.
pub(crate) type Connect = Arc<dyn Fn() -> Connecting + Send + Sync>;

/// Makes the command of a stdio upstream.
type MakeCommand = Arc<dyn Fn() -> Command + Send + Sync>;

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
    /// For a stdio upstream, how to make its command (the message size and
    /// the protocol version apply to it).
    command: Option<MakeCommand>,
    max_message_size: Option<usize>,
    /// The protocol version offered first (see [`Upstream::protocol_version`]).
    first: ProtocolVersion,
    pub(crate) per_session: bool,
    pub(crate) label: String,
    pub(crate) timeout: Option<Duration>,
    /// Given to every tool of the upstream ([`Upstream::tags`]).
    pub(crate) tags: Vec<String>,
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
        Upstream {
            command: Some(Arc::new(make)),
            ..Upstream::unconnected(label)
        }
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
        Upstream {
            http: Some(options),
            ..Upstream::unconnected(label)
        }
    }

    /// A server `connect` connects to, each time a connection is needed.
    pub fn connect<F, Fut>(connect: F) -> Upstream
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Client, ClientError>> + Send + 'static,
    {
        Upstream {
            connect: Some(Arc::new(move || Box::pin(connect()))),
            ..Upstream::unconnected("upstream".to_owned())
        }
    }

    /// An upstream with no way to connect yet: each constructor adds its own.
    fn unconnected(label: String) -> Upstream {
        Upstream {
            connect: None,
            connected: None,
            http: None,
            command: None,
            max_message_size: None,
            first: ProtocolVersion::LATEST,
            per_session: false,
            label,
            timeout: None,
            tags: Vec::new(),
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

    /// The protocol version offered first to an upstream spawned or reached
    /// over HTTP (see [`ClientBuilder::protocol_version`](crate::client::ClientBuilder::protocol_version)).
    /// By default the newest legacy one: an upstream that speaks both eras
    /// opens a session, whose log messages outside calls and output
    /// schemas of any type reach the clients of either era, and an upstream
    /// of the 2026-07-28 era only refuses `initialize` and is spoken to in
    /// that era. [`ProtocolVersion::MODERN`] probes with `server/discover`
    /// first, and speaks 2026-07-28 to every upstream that does.
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Upstream {
        self.first = version;
        self
    }

    /// How the upstream is named in logs and errors (default: the command
    /// line, or the URL).
    pub fn label(mut self, label: impl Into<String>) -> Upstream {
        self.label = label.into();
        self
    }

    /// Tags every tool of the upstream, those it serves later too, with
    /// `tags` ([`Tool::tags`](crate::Tool::tags)), which searches and
    /// [`ToolSearch::pin_tags`](crate::ToolSearch::pin_tags) read; a
    /// [`ToolTransform::tags`](crate::ToolTransform::tags) replaces them.
    pub fn tags<I, S>(mut self, tags: I) -> Upstream
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags.extend(tags.into_iter().map(Into::into));
        self
    }

    /// How long a forwarded request may wait for the upstream's answer
    /// (default: the client's, 60 seconds). A call that runs out answers
    /// `isError: true`; progress does not extend it.
    pub fn timeout(mut self, limit: Duration) -> Upstream {
        self.timeout = Some(limit);
        self
    }

    /// The longest message accepted from the upstream, in bytes (default
    /// 16 MiB, as [`ClientBuilder::max_message_size`]), for an upstream
    /// spawned ([`Upstream::command`], [`Upstream::spawn`]) or reached over
    /// HTTP (where it overrides [`HttpOptions::max_message_size`]); a
    /// client made by [`Upstream::connect`] has its own.
    ///
    /// A longer answer is skipped as it comes, never held whole: the
    /// forwarded call fails (`isError: true` naming the size and the
    /// limit) and the mount goes on serving.
    ///
    /// [`ClientBuilder::max_message_size`]: crate::client::ClientBuilder::max_message_size
    pub fn max_message_size(mut self, bytes: usize) -> Upstream {
        self.max_message_size = Some(bytes);
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
        self.connect.is_some() || self.http.is_some() || self.command.is_some()
    }

    /// A new connection, with the timeout set.
    pub(crate) async fn open(&self) -> Result<Client, ClientError> {
        if let Some(options) = &self.http {
            let mut options = options.clone();
            if let Some(limit) = self.timeout {
                options = options.timeout(limit);
            }
            if let Some(bytes) = self.max_message_size {
                options = options.max_message_size(bytes);
            }
            let builder = Client::builder().protocol_version(self.first);
            return builder.connect_http(options).await;
        }
        let client = match (&self.command, &self.connect) {
            (Some(make), _) => {
                let mut builder = Client::builder().protocol_version(self.first);
                if let Some(bytes) = self.max_message_size {
                    builder = builder.max_message_size(bytes);
                }
                builder.spawn(make()).await?
            }
            (None, Some(connect)) => connect().await?,
            (None, None) => return Err(ClientError::Closed),
        };
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
            connected: Some(client),
            ..Upstream::unconnected(label)
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
            .field("max_message_size", &self.max_message_size)
            .field("tags", &self.tags)
            .finish_non_exhaustive()
    }
}
