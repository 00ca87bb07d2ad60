//! One request as the layers see it.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use super::McpError;
use crate::auth::Identity;
use crate::jsonrpc::RequestId;
use crate::protocol::version::ProtocolVersion;
use crate::tools::def::Tool;

/// What performs a request once it has passed every layer: the
/// connection's machinery, as it stood when the request arrived.
pub(crate) trait Perform: Send + Sync {
    /// The tool a `tools/call` of `name` with `arguments` runs, as served
    /// when the request arrived (the target of the discovery proxy).
    fn tool(&self, name: &str, arguments: Option<&Value>) -> Option<&Tool>;

    /// Performs `method` with `params` (as the layers left them): the
    /// result, shaped for the negotiated protocol version, or the error.
    fn perform(
        self: Box<Self>,
        method: &'static str,
        params: Value,
    ) -> Pin<Box<dyn Future<Output = Result<Value, McpError>> + Send>>;
}

/// One request on its way through the layers of
/// [`Server::layer`](crate::Server::layer): its method and params (which a
/// layer may rewrite), who sent it, and over what.
///
/// The response is the JSON-RPC `result`, a [`serde_json::Value`] shaped
/// for the protocol version the session negotiated (a layer may rewrite it
/// too); an error is the JSON-RPC error (see [`McpError`]).
pub struct McpRequest {
    pub(crate) method: &'static str,
    pub(crate) params: Value,
    pub(crate) id: RequestId,
    pub(crate) session_id: Option<Arc<str>>,
    pub(crate) identity: Option<Arc<Identity>>,
    pub(crate) version: Option<ProtocolVersion>,
    pub(crate) extensions: http::Extensions,
    pub(crate) perform: Box<dyn Perform>,
}

impl McpRequest {
    /// The method: `tools/call`, `tools/list`, `resources/read`,
    /// `initialize`, `ping`, ...
    pub fn method(&self) -> &str {
        self.method
    }

    /// The params as the client sent them (`{}` when it sent none), or as
    /// an outer layer rewrote them.
    pub fn params(&self) -> &Value {
        &self.params
    }

    /// The params, to rewrite: the request is performed with what they
    /// hold when it leaves the last layer. (The progress token of
    /// `_meta.progressToken` is read when the request arrives, and the
    /// params of `initialize` are read before the layers: rewriting either
    /// changes nothing.)
    pub fn params_mut(&mut self) -> &mut Value {
        &mut self.params
    }

    /// The JSON-RPC id of the request.
    pub fn request_id(&self) -> &RequestId {
        &self.id
    }

    /// The HTTP session (`Mcp-Session-Id`) the request belongs to; `None`
    /// on stdio, in process and for a stateless HTTP server.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// Who sent the request, when the transport authenticated it (HTTP
    /// with `Server::auth` (feature `auth`), or
    /// [`TestClient::connect_as`](crate::testing::TestClient::connect_as)).
    pub fn identity(&self) -> Option<&Identity> {
        self.identity.as_deref()
    }

    /// The protocol version the session negotiated (for `initialize`, the
    /// one it is negotiating); `None` for a `ping` before `initialize`.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.version
    }

    /// For `tools/call`, the tool its params name (as they stand now), with
    /// its annotations for a policy to read: `None` for other methods and
    /// for a name that is no tool (the request then fails with
    /// "Unknown tool" if a layer lets it through). For a call of the
    /// proxy of progressive discovery ([`ToolSearch`](crate::ToolSearch)),
    /// the tool it calls, so that a policy cannot be bypassed through it.
    pub fn tool(&self) -> Option<&Tool> {
        if self.method != "tools/call" {
            return None;
        }
        let name = self.params.get("name")?.as_str()?;
        self.perform.tool(name, self.params.get("arguments"))
    }

    /// Values a layer (or the HTTP stack) attached to the request. Over
    /// HTTP, it starts with the HTTP request's extensions, so what an HTTP
    /// layer of [`Server::into_router`](crate::Server::into_router)'s
    /// router inserted is here; elsewhere it starts empty.
    pub fn extensions(&self) -> &http::Extensions {
        &self.extensions
    }

    /// The extensions, to add to: an outer layer can pass values to inner
    /// ones.
    pub fn extensions_mut(&mut self) -> &mut http::Extensions {
        &mut self.extensions
    }
}

impl fmt::Debug for McpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpRequest")
            .field("method", &self.method)
            .field("id", &self.id)
            .field("params", &self.params)
            .field("session_id", &self.session_id)
            .field("subject", &self.identity.as_ref().map(|i| i.subject()))
            .field("protocol_version", &self.version)
            .finish_non_exhaustive()
    }
}
