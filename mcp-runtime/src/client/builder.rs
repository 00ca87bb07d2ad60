//! [`ClientBuilder`]: a client with a name of its own, or one that answers
//! the server's questions, then connected like [`Client`]'s constructors.

use std::ffi::OsStr;
use std::future::Future;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::process::Command;

use crate::asking::ask::Root;
use crate::asking::sampling::{Sampled, SamplingRequest};
use crate::client::api::Client;
use crate::client::elicitation::{
    self, Elicitation, ElicitationHandler, ElicitationRequest, SamplingHandler,
};
use crate::client::error::ClientError;
use crate::client::handshake::Handshake;
use crate::client::http::HttpTransport;
use crate::client::http_options::HttpOptions;
use crate::client::modern::headers::Marks;
use crate::client::session::Handlers;
use crate::client::stdio::StdioTransport;
use crate::client::transport::INBOUND_CAPACITY;
use crate::protocol::version::ProtocolVersion;

impl Client {
    /// Connects to the Streamable HTTP server at `url` (its MCP endpoint,
    /// such as `http://127.0.0.1:8080/mcp`) and initializes a session.
    pub async fn http(url: impl Into<String>) -> Result<Client, ClientError> {
        ClientBuilder::default().http(url).await
    }

    /// Connects to a Streamable HTTP server as `options` say and
    /// initializes a session.
    ///
    /// Every message is POSTed with `Mcp-Session-Id` and
    /// `MCP-Protocol-Version` once the session began. An answer streamed
    /// as server-sent events that drops before the response is resumed
    /// with `Last-Event-ID`; a GET stream, reopened when it drops, carries
    /// what the server sends on its own. When the server forgot the session
    /// (404), the client initializes a new one and sends the message again.
    /// An HTTP error (401 without a valid token…) fails the call with
    /// [`ClientError::Http`]; [`Client::close`] ends the session (DELETE).
    pub async fn connect_http(options: HttpOptions) -> Result<Client, ClientError> {
        ClientBuilder::default().connect_http(options).await
    }

    /// A client with a name of its own, or that answers the server's
    /// questions: see [`ClientBuilder`].
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }
}

impl Client {
    /// Spawns `program` with `args` as a stdio server and initializes it.
    pub async fn stdio<I, S>(program: impl AsRef<OsStr>, args: I) -> Result<Client, ClientError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        ClientBuilder::default().stdio(program, args).await
    }

    /// Spawns `command` as a stdio server (its stdin, stdout and stderr are
    /// piped: stdout carries the protocol, each stderr line goes to
    /// `tracing` under the target `mcp_runtime::client::stderr`) and
    /// initializes it.
    pub async fn spawn(command: Command) -> Result<Client, ClientError> {
        ClientBuilder::default().spawn(command).await
    }
}

/// How a [`Client`] presents itself and what it answers, before it
/// connects: [`Client::builder`], then one of the connecting methods.
///
/// ```no_run
/// use mcp_runtime::client::{Client, ClientError, Elicitation};
/// use mcp_runtime::serde_json::{Map, json};
///
/// # async fn run() -> Result<(), ClientError> {
/// let client = Client::builder()
///     .client_info("trip-planner", "2.1.0")
///     // Questions the server asks the user (`elicitation/create`).
///     .on_elicitation(|request| async move {
///         tracing::info!(message = %request.message, "the server asks");
///         let mut answer = Map::new();
///         answer.insert("confirm".into(), json!(true));
///         // Properties left out get their schema's `default`.
///         Elicitation::Accept(answer)
///     })
///     .stdio("weather-server", ["--stdio"])
///     .await?;
/// # let _ = client;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Default)]
pub struct ClientBuilder {
    name: Option<(String, String)>,
    elicitation: Option<ElicitationHandler>,
    sampling: Option<SamplingHandler>,
    roots: Option<Vec<Root>>,
    max_message_size: Option<usize>,
    first: Option<ProtocolVersion>,
}

impl ClientBuilder {
    /// The `clientInfo` sent in `initialize` (default: `mcp-runtime` and
    /// this crate's version).
    pub fn client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.name = Some((name.into(), version.into()));
        self
    }

    /// Answers the server's `elicitation/create` requests with `handler`,
    /// and declares the `elicitation` capability. An accepted answer that
    /// leaves out a property whose schema has a `default` is sent with
    /// the default (SEP-1034). Without a handler, such a request is
    /// answered -32601 and the capability is not declared.
    pub fn on_elicitation<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitationRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Elicitation> + Send + 'static,
    {
        self.elicitation = Some(elicitation::handler(handler));
        self
    }

    /// Answers the server's `sampling/createMessage` requests with
    /// `handler` (the client's model completes the conversation), and
    /// declares the `sampling` capability with `tools`: the handler sees
    /// the request's [`tools`](SamplingRequest::tools) and
    /// [`tool_choice`](SamplingRequest::tool_choice) and may answer with
    /// [`Sampled::using_tools`]. `Err(reason)` refuses (the user said no):
    /// the server gets error -1 with the reason. A request whose tool uses
    /// and results break the protocol's rules is answered -32602 without
    /// calling the handler.
    ///
    /// ```no_run
    /// use mcp_runtime::client::{Client, ClientError, Sampled, ToolUse};
    /// use mcp_runtime::serde_json::json;
    ///
    /// # async fn run() -> Result<(), ClientError> {
    /// let client = Client::builder()
    ///     .on_sampling(|request| async move {
    ///         // A stand-in for a real model: look the weather up once,
    ///         // then answer with what the tool said.
    ///         let last = request.messages.last().and_then(|m| m.content.first());
    ///         match last.and_then(|block| block.as_tool_result()) {
    ///             Some(result) => Ok(Sampled::new("stub", format!("{:?}", result.content))),
    ///             None if !request.tools.is_empty() => Ok(Sampled::using_tools(
    ///                 "stub",
    ///                 [ToolUse::new("call-1", &request.tools[0].name, json!({"city": "Paris"}))],
    ///             )),
    ///             None => Ok(Sampled::new("stub", "I cannot tell.")),
    ///         }
    ///     })
    ///     .stdio("weather-server", ["--stdio"])
    ///     .await?;
    /// # let _ = client;
    /// # Ok(())
    /// # }
    /// ```
    pub fn on_sampling<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(SamplingRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Sampled, String>> + Send + 'static,
    {
        self.sampling = Some(Arc::new(move |request| Box::pin(handler(request))));
        self
    }

    /// The client's roots (the directories or other places the user
    /// opened): declares the `roots` capability (with `listChanged`) and
    /// answers the server's `roots/list` with them. [`Client::set_roots`]
    /// changes them later and tells the server.
    pub fn roots(mut self, roots: impl IntoIterator<Item = Root>) -> Self {
        self.roots = Some(roots.into_iter().collect());
        self
    }

    /// The longest message accepted from the server, in bytes (default
    /// 16 MiB, as the server's own [`Server::max_message_size`]): a line
    /// of a stdio server, a JSON answer or the data of one SSE event over
    /// HTTP (where [`HttpOptions::max_message_size`], when set, wins).
    ///
    /// A longer message is skipped as it comes, never held whole: the
    /// request it answers fails with [`ClientError::TooLarge`], naming its
    /// size when known, and the connection goes on (a stdio server's next
    /// line is read as usual). A longer message that answers no request
    /// of ours is dropped with a warning.
    ///
    /// [`Server::max_message_size`]: crate::Server::max_message_size
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = Some(bytes);
        self
    }

    /// The protocol version offered first. By default 2026-07-28: the
    /// client probes with `server/discover` and falls back to `initialize`
    /// (with the newest legacy version) when the server is of the legacy
    /// era. A legacy version sends `initialize` with it first, and probes
    /// with `server/discover` only when `initialize` is refused (a server
    /// of the 2026-07-28 era only). Either way the connection speaks what
    /// the server speaks: see [`Client::protocol_version`].
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.first = Some(version);
        self
    }

    /// Spawns `program` with `args` as a stdio server and initializes it
    /// (see [`Client::stdio`]).
    pub async fn stdio<I, S>(
        self,
        program: impl AsRef<OsStr>,
        args: I,
    ) -> Result<Client, ClientError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = Command::new(program);
        command.args(args);
        self.spawn(command).await
    }

    /// Spawns `command` as a stdio server and initializes it (see
    /// [`Client::spawn`]).
    pub async fn spawn(self, command: Command) -> Result<Client, ClientError> {
        let program = command.as_std().get_program();
        let name = std::path::Path::new(program)
            .file_name()
            .unwrap_or(program)
            .to_string_lossy()
            .into_owned();
        let (inbound, receiver) = tokio::sync::mpsc::channel(INBOUND_CAPACITY);
        let max = self
            .max_message_size
            .unwrap_or(crate::client::limit::DEFAULT_MAX_MESSAGE_SIZE);
        let transport = StdioTransport::spawn(command, name, inbound, max)?;
        Client::connect(Box::new(transport), receiver, &self.handshake(), None).await
    }

    /// Connects to the Streamable HTTP server at `url` (see
    /// [`Client::http`]).
    pub async fn http(self, url: impl Into<String>) -> Result<Client, ClientError> {
        self.connect_http(HttpOptions::new(url)).await
    }

    /// Connects to a Streamable HTTP server as `options` say (see
    /// [`Client::connect_http`]).
    pub async fn connect_http(self, mut options: HttpOptions) -> Result<Client, ClientError> {
        if options.max_message_size.is_none() {
            options.max_message_size = self.max_message_size;
        }
        let (inbound, receiver) = tokio::sync::mpsc::channel(INBOUND_CAPACITY);
        let timeout = options.timeout;
        let marks = Arc::new(Marks::default());
        let transport = HttpTransport::new(options, inbound, Arc::clone(&marks))?;
        let setup = self.handshake();
        let client = Client::connect(Box::new(transport), receiver, &setup, Some(marks)).await?;
        if let Some(timeout) = timeout {
            client.set_timeout(timeout);
        }
        Ok(client)
    }

    /// What `initialize` will say, and the handlers the session uses.
    fn handshake(&self) -> Handshake {
        let mut capabilities = serde_json::Map::new();
        if self.elicitation.is_some() {
            capabilities.insert("elicitation".into(), json!({}));
        }
        if self.sampling.is_some() {
            // Our handlers see the tools and tool choice of the request and
            // may answer with tool uses (2025-11-25).
            capabilities.insert("sampling".into(), json!({ "tools": {} }));
        }
        if self.roots.is_some() {
            capabilities.insert("roots".into(), json!({ "listChanged": true }));
        }
        let client_info = match &self.name {
            Some((name, version)) => json!({ "name": name, "version": version }),
            None => json!({ "name": "mcp-runtime", "version": env!("CARGO_PKG_VERSION") }),
        };
        Handshake {
            client_info,
            capabilities: Value::Object(capabilities),
            handlers: Handlers {
                elicitation: self.elicitation.clone(),
                sampling: self.sampling.clone(),
                roots: self.roots.clone().map(|roots| Arc::new(Mutex::new(roots))),
            },
            first: self.first.unwrap_or(ProtocolVersion::MODERN),
        }
    }
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("client_info", &self.name)
            .field("elicitation", &self.elicitation.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("roots", &self.roots)
            .field("max_message_size", &self.max_message_size)
            .field("protocol_version", &self.first)
            .finish()
    }
}
