//! The connection of a [`TestClient`] to its server: sending lines,
//! matching responses to requests, and keeping everything else in order.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::error::{RpcError, into_result};
use crate::auth::Identity;
use crate::dispatch::{self, Connection, Incoming, ServerCore};
use crate::outbox::{DirectWrite, Outbox};
use crate::protocol::version::ProtocolVersion;
use crate::registry::error::RegistryError;
use crate::server::Server;

/// An in-process client of a [`Server`].
///
/// Requests made through [`TestClient::request`] get fresh integer ids;
/// anything else the server sends meanwhile (notifications, replies to raw
/// lines) is kept, in order, for [`TestClient::recv`].
pub struct TestClient {
    input: Option<mpsc::Sender<Incoming<'static>>>,
    output: mpsc::UnboundedReceiver<Vec<u8>>,
    /// Messages read from `output` and not yet returned by `read_message`:
    /// newer than all of `buffered`.
    unread: VecDeque<Value>,
    /// Messages read and put aside (they answered no request waited for),
    /// in the order they came, for `recv` and the notification helpers.
    pub(super) buffered: VecDeque<Value>,
    next_id: i64,
    server: JoinHandle<()>,
    /// The server this connection belongs to, for [`TestClient::connect_another`].
    core: Arc<ServerCore>,
}

impl TestClient {
    /// Starts the server and initializes it with the newest protocol version.
    pub async fn connect(server: Server) -> Result<TestClient, RegistryError> {
        Self::connect_with_version(server, ProtocolVersion::LATEST.as_str()).await
    }

    /// Starts the server and initializes it, offering `version`.
    pub async fn connect_with_version(
        server: Server,
        version: &str,
    ) -> Result<TestClient, RegistryError> {
        let mut client = Self::start(server)?;
        client
            .initialize(version)
            .await
            .expect("the server refused initialize");
        Ok(client)
    }

    /// Starts the server without initializing it, for lifecycle tests.
    pub fn start(server: Server) -> Result<TestClient, RegistryError> {
        Ok(Self::start_core(Arc::new(server.into_core()?)))
    }

    /// Starts the server and initializes it with the newest protocol
    /// version, acting as `identity`: every request carries it, as one
    /// authenticated by the HTTP transport would, so handlers see it with
    /// [`Context::auth`](crate::Context::auth) and middleware with
    /// [`McpRequest::identity`](crate::middleware::McpRequest::identity).
    /// (Nothing checks scopes in process: that is the HTTP transport's
    /// authentication.)
    ///
    /// ```standalone_crate
    /// use mcp_runtime::{Context, Server, auth::Identity, testing::TestClient, tool};
    /// use mcp_runtime::serde_json::json;
    ///
    /// /// Who is calling.
    /// #[tool]
    /// async fn whoami(ctx: Context) -> String {
    ///     ctx.auth().map_or("anonymous".into(), |caller| caller.subject().to_owned())
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let alice = Identity::new("alice").with_scopes(["notes:read"]);
    /// let mut client = TestClient::connect_as(Server::new("notes", "1.0.0"), alice).await.unwrap();
    /// let result = client.call_tool("whoami", json!({})).await.unwrap();
    /// assert_eq!(result["content"][0]["text"], "alice");
    /// # }
    /// ```
    pub async fn connect_as(
        server: Server,
        identity: Identity,
    ) -> Result<TestClient, RegistryError> {
        let mut client = Self::start_as(server, identity)?;
        client
            .initialize(ProtocolVersion::LATEST.as_str())
            .await
            .expect("the server refused initialize");
        Ok(client)
    }

    /// [`TestClient::start`], acting as `identity` (see
    /// [`TestClient::connect_as`]).
    pub fn start_as(server: Server, identity: Identity) -> Result<TestClient, RegistryError> {
        let core = Arc::new(server.into_core()?);
        Ok(Self::start_core_as(core, Some(Arc::new(identity))))
    }

    /// Starts a connection to a server already built (the fuzz targets
    /// build one and connect to it many times).
    pub(crate) fn start_core(core: Arc<ServerCore>) -> TestClient {
        Self::start_core_as(core, None)
    }

    /// [`TestClient::start_core`], acting as `identity`.
    fn start_core_as(core: Arc<ServerCore>, identity: Option<Arc<Identity>>) -> TestClient {
        let (input, incoming) = mpsc::channel(256);
        let (out, output) = mpsc::unbounded_channel();
        let mut connection =
            Connection::new(Arc::clone(&core), Outbox::new(Box::new(ChannelSink(out))));
        connection.set_identity(identity);
        let server = tokio::spawn(dispatch::serve(connection, incoming));
        TestClient {
            input: Some(input),
            output,
            unread: VecDeque::new(),
            buffered: VecDeque::new(),
            next_id: 1,
            server,
            core,
        }
    }

    /// Another client of the same server, initialized offering `version`:
    /// a session of its own (its subscriptions, its log level, its protocol
    /// version), sharing the server's state and [`Notifier`](crate::Notifier)
    /// as the sessions of one HTTP server do.
    ///
    /// ```standalone_crate
    /// use mcp_runtime::{Server, resource, testing::TestClient};
    ///
    /// /// The current temperature.
    /// #[resource("sensors://temperature")]
    /// fn temperature() -> String {
    ///     "21.5".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let mut server = Server::new("sensors", "1.0.0");
    /// let notifier = server.notifier();
    /// let mut watching = TestClient::connect(server).await.unwrap();
    /// let mut other = watching.connect_another("2025-06-18").await.unwrap();
    /// watching.subscribe("sensors://temperature").await.unwrap();
    ///
    /// // Only the session that subscribed is told.
    /// assert_eq!(notifier.resource_updated("sensors://temperature"), 1);
    /// assert_eq!(watching.drain_notifications().await.unwrap().len(), 1);
    /// assert!(other.drain_notifications().await.unwrap().is_empty());
    /// # }
    /// ```
    pub async fn connect_another(&self, version: &str) -> Result<TestClient, RpcError> {
        self.connect_another_as(version, None).await
    }

    /// Another connection to the same server, not initialized: for the
    /// 2026-07-28 era, which has no `initialize` (each request says its
    /// version in `_meta`), or to send `initialize` yourself. Acts as
    /// `identity` (`None`: anonymous).
    pub fn start_another(&self, identity: Option<Identity>) -> TestClient {
        Self::start_core_as(Arc::clone(&self.core), identity.map(Arc::new))
    }

    /// [`TestClient::connect_another`], acting as `identity` (`None`:
    /// anonymous), whoever this client acts as.
    pub async fn connect_another_as(
        &self,
        version: &str,
        identity: Option<Identity>,
    ) -> Result<TestClient, RpcError> {
        let mut client = Self::start_core_as(Arc::clone(&self.core), identity.map(Arc::new));
        client.initialize(version).await?;
        Ok(client)
    }

    /// Sends `initialize` offering `version`, then `notifications/initialized`;
    /// returns the result.
    pub async fn initialize(&mut self, version: &str) -> Result<Value, RpcError> {
        let result = self
            .request(
                "initialize",
                json!({
                    "protocolVersion": version,
                    "capabilities": {},
                    "clientInfo": {"name": "mcp-runtime-test-client", "version": "0"}
                }),
            )
            .await?;
        self.notify("notifications/initialized", json!({})).await;
        Ok(result)
    }

    /// Sends a request and waits for its response.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self.send_request(method, params).await;
        self.response(id).await
    }

    /// Sends a request without waiting; returns its id for [`TestClient::response`].
    pub async fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// Waits for the response to request `id`, keeping anything else for
    /// [`TestClient::recv`].
    pub async fn response(&mut self, id: i64) -> Result<Value, RpcError> {
        if let Some(pos) = self.buffered.iter().position(|m| is_response_to(m, id)) {
            let message = self.buffered.remove(pos).unwrap_or_default();
            return into_result(message);
        }
        loop {
            let Some(message) = self.read_message().await else {
                return Err(RpcError {
                    code: 0,
                    message: "the server stopped before answering".into(),
                    data: None,
                });
            };
            if is_response_to(&message, id) {
                return into_result(message);
            }
            self.buffered.push_back(message);
        }
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Sends one message as a line.
    pub async fn send(&mut self, message: Value) {
        self.send_line(message.to_string()).await;
    }

    /// Sends one raw line (without its newline), valid JSON or not.
    ///
    /// What the server sends meanwhile is kept for [`TestClient::recv`] and
    /// [`TestClient::response`], so a test can send any number of requests
    /// before reading a single reply, even while the server is not reading
    /// (every call slot busy and the backlog full).
    pub async fn send_line(&mut self, line: impl Into<Vec<u8>>) {
        let Some(input) = &self.input else {
            return;
        };
        let send = input.send(Incoming::Line(std::borrow::Cow::Owned(line.into())));
        tokio::pin!(send);
        loop {
            tokio::select! {
                biased;
                _ = &mut send => return,
                bytes = self.output.recv() => match bytes {
                    // Behind what was read before, so that `recv` keeps
                    // the server's order.
                    Some(bytes) => self.unread.extend(parse_messages(&bytes)),
                    None => {
                        let _ = send.await;
                        return;
                    }
                },
            }
        }
    }

    /// The next message from the server that no [`TestClient::response`]
    /// call consumed; `None` once the server has stopped.
    pub async fn recv(&mut self) -> Option<Value> {
        if let Some(message) = self.buffered.pop_front() {
            return Some(message);
        }
        self.read_message().await
    }

    /// `method` (a list), following `nextCursor` to the end: the entries
    /// under `key` of every page, in order.
    pub(super) async fn list_all(
        &mut self,
        method: &str,
        key: &str,
    ) -> Result<Vec<Value>, RpcError> {
        let mut entries = Vec::new();
        let mut cursors = Vec::new();
        let mut params = json!({});
        loop {
            let mut page = self.request(method, params).await?;
            match page.get_mut(key).map(Value::take) {
                Some(Value::Array(items)) => entries.extend(items),
                _ => panic!("a {method} page without a `{key}` array: {page}"),
            }
            match page.get("nextCursor") {
                None | Some(Value::Null) => return Ok(entries),
                Some(Value::String(cursor)) => {
                    assert!(
                        !cursors.contains(cursor),
                        "{method} sent the cursor {cursor:?} twice"
                    );
                    cursors.push(cursor.clone());
                    params = json!({ "cursor": cursor });
                }
                Some(other) => panic!("{method} sent a cursor that is not a string: {other}"),
            }
        }
    }

    /// Closes the input (EOF) and waits for the server to finish its calls
    /// in flight; returns every message it sent meanwhile.
    pub async fn close(mut self) -> Vec<Value> {
        self.input = None;
        let mut rest: Vec<Value> = self.buffered.drain(..).collect();
        while let Some(message) = self.read_message().await {
            rest.push(message);
        }
        let _ = (&mut self.server).await;
        rest
    }

    /// The next message the server wrote that was neither returned nor put
    /// in `buffered` (so newer than all of those). Cancel-safe.
    pub(super) async fn read_message(&mut self) -> Option<Value> {
        loop {
            if let Some(message) = self.unread.pop_front() {
                return Some(message);
            }
            let bytes = self.output.recv().await?;
            self.unread.extend(parse_messages(&bytes));
        }
    }
}

/// The server's output as the test client receives it: whatever the
/// connection writes in one go, sent as one chunk of whole lines. The
/// crate's own tests use it too.
pub(crate) struct ChannelSink(pub(crate) mpsc::UnboundedSender<Vec<u8>>);

impl DirectWrite for ChannelSink {
    fn try_write(&self, bytes: &[u8]) -> std::io::Result<usize> {
        self.write_all(bytes).map(|()| bytes.len())
    }

    fn write_all(&self, bytes: &[u8]) -> std::io::Result<()> {
        self.0
            .send(bytes.to_vec())
            .map_err(|_| std::io::ErrorKind::BrokenPipe.into())
    }
}

/// The messages of a chunk of output, one per line.
fn parse_messages(bytes: &[u8]) -> Vec<Value> {
    crate::dispatch::lines_of(bytes)
        .map(|line| {
            serde_json::from_slice(line).unwrap_or_else(|e| {
                panic!(
                    "the server wrote invalid JSON ({e}): {}",
                    String::from_utf8_lossy(line)
                )
            })
        })
        .collect()
}

fn is_response_to(message: &Value, id: i64) -> bool {
    message.get("id").and_then(Value::as_i64) == Some(id)
        && (message.get("result").is_some() || message.get("error").is_some())
}

impl Drop for TestClient {
    fn drop(&mut self) {
        self.server.abort();
    }
}
