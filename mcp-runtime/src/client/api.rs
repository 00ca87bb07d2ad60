//! [`Client`]: connecting (the handshake) and the typed calls.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio::task::JoinHandle;

use crate::client::error::ClientError;
use crate::client::handshake::Handshake;
use crate::client::modern::headers::Marks;
use crate::client::modern::listen::Listening;
use crate::client::modern::{self, negotiate, rounds};
use crate::client::notification::Notifications;
use crate::client::page;
use crate::client::session::{ProgressFn, Session};
use crate::client::transport::{Received, Transport};
use crate::client::types::{
    Completion, PromptInfo, ResourceInfo, ResourceTemplateInfo, ServerCapabilities, ServerInfo,
    ToolInfo,
};
use crate::completion::CompletionRef;
use crate::content::ResourceContents;
use crate::context::LogLevel;
use crate::jsonrpc::HEADER_MISMATCH;
use crate::prompts::GetPromptResult;
use crate::protocol::version::ProtocolVersion;
use crate::tools::output::CallToolResult;

/// A connection to one MCP server, initialized. Dropping it ends the
/// connection (a spawned server is killed); [`Client::close`] ends it
/// gracefully.
pub struct Client {
    session: Arc<Session>,
    reader: JoinHandle<()>,
    version: ProtocolVersion,
    server_info: ServerInfo,
    capabilities: ServerCapabilities,
    instructions: Option<String>,
    /// Over HTTP: the `x-mcp-header` marks of the tools listed (2026-07-28).
    marks: Option<Arc<Marks>>,
    /// The `subscriptions/listen` request of the 2026-07-28 era, if open.
    listening: Listening,
}

impl Drop for Client {
    fn drop(&mut self) {
        // The reader holds the session, which holds the transport: ending
        // it lets the transport go (a child process is killed).
        self.reader.abort();
    }
}

impl Client {
    /// Opens a connection over `transport`, whose messages arrive on
    /// `inbound`, in the era the server speaks ([`negotiate`]); `marks`:
    /// the HTTP transport's tool marks (none over stdio, which mirrors no
    /// argument into headers).
    pub(crate) async fn connect(
        transport: Box<dyn Transport>,
        inbound: tokio::sync::mpsc::Receiver<Received>,
        setup: &Handshake,
        marks: Option<Arc<Marks>>,
    ) -> Result<Client, ClientError> {
        let (session, reader) = Session::start(transport, inbound, setup.handlers.clone());
        let mut client = Client {
            session,
            reader,
            version: ProtocolVersion::LATEST,
            server_info: ServerInfo(Value::Null),
            capabilities: ServerCapabilities(Value::Null),
            instructions: None,
            marks,
            listening: Listening::default(),
        };
        match negotiate::open(&client.session, setup).await {
            Ok(opened) => {
                client.version = opened.version;
                client.server_info = ServerInfo(opened.server_info);
                client.capabilities = ServerCapabilities(opened.capabilities);
                client.instructions = opened.instructions;
                Ok(client)
            }
            Err(error) => {
                client.close().await;
                Err(error)
            }
        }
    }

    /// The protocol version the connection speaks: the one the server
    /// answered `initialize` with, or 2026-07-28 (no `initialize`).
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// The server's `serverInfo`.
    pub fn server_info(&self) -> &ServerInfo {
        &self.server_info
    }

    /// The server's `capabilities`.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.capabilities
    }

    /// The server's `instructions`, if it gave any.
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// How long each request waits for its answer (60 s unless set); a
    /// request not answered in time fails with [`ClientError::Timeout`] and
    /// is cancelled.
    pub fn set_timeout(&self, timeout: Duration) {
        self.session.set_timeout(timeout);
    }

    /// The server's notifications from now on: list changes, resource
    /// updates, log messages. In the 2026-07-28 era, list changes and
    /// resource updates come on a `subscriptions/listen` request, opened
    /// by the first call.
    pub fn notifications(&self) -> Notifications {
        let notifications = Notifications::new(self.session.subscribe());
        if self.session.is_modern() {
            self.listening.ensure(&self.session);
        }
        notifications
    }

    /// Ends the connection: a spawned server has its stdin closed, a grace
    /// period to exit, then is killed. Requests still waiting get
    /// [`ClientError::Closed`].
    pub async fn close(&self) {
        self.listening.stop();
        self.session.close().await;
    }

    /// Sends a request and returns its raw result: for methods this client
    /// has no typed call for. In the 2026-07-28 era the request carries
    /// the era's `_meta`, and an `input_required` answer to `tools/call`,
    /// `prompts/get` or `resources/read` is answered and the request sent
    /// again until it completes.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.send(method, params, None).await
    }

    async fn send(
        &self,
        method: &str,
        params: Value,
        progress: Option<ProgressFn>,
    ) -> Result<Value, ClientError> {
        if !(self.session.is_modern() && rounds::may_ask(method)) {
            return self.session.request(method, params, progress, true).await;
        }
        let answer = rounds::request(&self.session, method, &params, progress.clone()).await;
        // A header mismatch on a call: the tool's marks may have changed.
        // As the specification advises, list the tools again (which learns
        // their marks) and send the call once more.
        if let (
            Err(ClientError::Rpc {
                code: HEADER_MISMATCH,
                ..
            }),
            "tools/call",
            Some(_),
        ) = (&answer, method, &self.marks)
        {
            self.session.cache.forget("tools/list");
            // Boxed: listing sends requests through here too.
            Box::pin(self.list_tools()).await?;
            return rounds::request(&self.session, method, &params, progress).await;
        }
        answer
    }

    /// `server/discover` (2026-07-28): what the server says of itself,
    /// kept for as long as its `ttlMs` says (the answer given when the
    /// connection opened, while fresh). A legacy server answers with an
    /// error.
    pub async fn discover(&self) -> Result<Value, ClientError> {
        if let Some(kept) = self.session.cache.get("server/discover", None) {
            return Ok(kept);
        }
        let result = self.request("server/discover", json!({})).await?;
        self.session.cache.keep("server/discover", None, &result);
        Ok(result)
    }

    async fn typed<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
        progress: Option<ProgressFn>,
    ) -> Result<T, ClientError> {
        let result = self.send(method, params, progress).await?;
        serde_json::from_value(result).map_err(|e| ClientError::InvalidResponse {
            method: method.to_owned(),
            reason: e.to_string(),
        })
    }

    /// Every item of a paginated list, following `nextCursor`; in the
    /// 2026-07-28 era each page is kept as long as its `ttlMs` says.
    async fn list_all(&self, method: &str, key: &str) -> Result<Vec<Value>, ClientError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(cursor) => json!({ "cursor": cursor }),
                None => json!({}),
            };
            let cache = &self.session.cache;
            let (mut page_items, next) = match cache.get(method, cursor.as_deref()) {
                Some(kept) => page::kept(method, key, kept)?,
                None => {
                    // Read entry by entry: one that cannot be read is left out.
                    let raw = self.session.request_raw(method, params, None, true).await?;
                    let page = page::read(method, key, &raw)?;
                    // Copied for the cache only when it says how long to keep it.
                    if page.ttl_ms.is_some() && self.session.is_modern() {
                        cache.keep(method, cursor.as_deref(), &page.to_result(key));
                    }
                    (page.items, page.next_cursor)
                }
            };
            if let (Some(marks), "tools/list") = (&self.marks, method)
                && self.session.is_modern()
            {
                marks.learn(&mut page_items);
            }
            items.extend(page_items);
            match next.as_deref() {
                // A server repeating a cursor would page forever.
                Some(next) if cursor.as_deref() != Some(next) => cursor = Some(next.to_owned()),
                _ => return Ok(items),
            }
        }
    }

    /// `tools/list`, all pages.
    pub async fn list_tools(&self) -> Result<Vec<ToolInfo>, ClientError> {
        let tools = self.list_all("tools/list", "tools").await?;
        Ok(tools.into_iter().map(ToolInfo).collect())
    }

    /// `tools/call`. A tool that fails answers `is_error: true`; an unknown
    /// tool or invalid arguments may be a [`ClientError::Rpc`] instead.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<CallToolResult, ClientError> {
        let params = call_params(name, arguments)?;
        self.typed("tools/call", params, None).await
    }

    /// `tools/call` with a progress token: `progress(progress, total,
    /// message)` is called for each progress notification the server sends
    /// for this call.
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        arguments: impl Serialize,
        progress: impl Fn(f64, Option<f64>, Option<&str>) + Send + Sync + 'static,
    ) -> Result<CallToolResult, ClientError> {
        let params = call_params(name, arguments)?;
        self.typed("tools/call", params, Some(Arc::new(progress)))
            .await
    }

    /// `resources/list`, all pages.
    pub async fn list_resources(&self) -> Result<Vec<ResourceInfo>, ClientError> {
        let resources = self.list_all("resources/list", "resources").await?;
        Ok(resources.into_iter().map(ResourceInfo).collect())
    }

    /// `resources/templates/list`, all pages.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplateInfo>, ClientError> {
        let templates = self
            .list_all("resources/templates/list", "resourceTemplates")
            .await?;
        Ok(templates.into_iter().map(ResourceTemplateInfo).collect())
    }

    /// `resources/read`: the resource's contents.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContents>, ClientError> {
        #[derive(serde::Deserialize)]
        struct Read {
            contents: Vec<ResourceContents>,
        }
        let read: Read = self
            .typed("resources/read", json!({ "uri": uri }), None)
            .await?;
        Ok(read.contents)
    }

    /// `resources/subscribe`: [`Notification::ResourceUpdated`] is sent
    /// when the resource changes. In the 2026-07-28 era, the resource is
    /// added to the `subscriptions/listen` request (opened again naming
    /// it).
    ///
    /// [`Notification::ResourceUpdated`]: crate::client::Notification::ResourceUpdated
    pub async fn subscribe(&self, uri: &str) -> Result<(), ClientError> {
        if self.session.is_modern() {
            self.listening.resource(&self.session, uri, true);
            return Ok(());
        }
        self.request("resources/subscribe", json!({ "uri": uri }))
            .await
            .map(drop)
    }

    /// `resources/unsubscribe` (2026-07-28: the resource is left out of
    /// the `subscriptions/listen` request).
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), ClientError> {
        if self.session.is_modern() {
            self.listening.resource(&self.session, uri, false);
            return Ok(());
        }
        self.request("resources/unsubscribe", json!({ "uri": uri }))
            .await
            .map(drop)
    }

    /// `prompts/list`, all pages.
    pub async fn list_prompts(&self) -> Result<Vec<PromptInfo>, ClientError> {
        let prompts = self.list_all("prompts/list", "prompts").await?;
        Ok(prompts.into_iter().map(PromptInfo).collect())
    }

    /// `prompts/get` with these arguments.
    pub async fn get_prompt<K, V>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (K, V)>,
    ) -> Result<GetPromptResult, ClientError>
    where
        K: Into<String>,
        V: Into<String>,
    {
        let arguments: Map<String, Value> = arguments
            .into_iter()
            .map(|(k, v)| (k.into(), Value::String(v.into())))
            .collect();
        let params = json!({ "name": name, "arguments": arguments });
        self.typed("prompts/get", params, None).await
    }

    /// `completion/complete`: values for `argument` of `reference`, given
    /// what was typed so far (`value`).
    pub async fn complete(
        &self,
        reference: &CompletionRef,
        argument: &str,
        value: &str,
    ) -> Result<Completion, ClientError> {
        self.complete_with(reference, argument, value, Vec::<(String, String)>::new())
            .await
    }

    /// [`Client::complete`] with the other arguments already given
    /// (`context.arguments`, protocol 2025-06-18 and later), for values
    /// that depend on them.
    pub async fn complete_with<K, V>(
        &self,
        reference: &CompletionRef,
        argument: &str,
        value: &str,
        context: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Completion, ClientError>
    where
        K: Into<String>,
        V: Into<String>,
    {
        let context: Map<String, Value> = context
            .into_iter()
            .map(|(k, v)| (k.into(), Value::String(v.into())))
            .collect();
        let mut params = json!({
            "ref": reference.to_json(),
            "argument": { "name": argument, "value": value },
        });
        if !context.is_empty() {
            params["context"] = json!({ "arguments": context });
        }
        let result = self.request("completion/complete", params).await?;
        let completion = result.get("completion");
        let values = completion
            .and_then(|c| c.get("values"))
            .and_then(Value::as_array)
            .ok_or_else(|| ClientError::InvalidResponse {
                method: "completion/complete".into(),
                reason: "no `completion.values` array".into(),
            })?;
        Ok(Completion {
            values: values
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            total: completion
                .and_then(|c| c.get("total"))
                .and_then(Value::as_u64),
            has_more: completion
                .and_then(|c| c.get("hasMore"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }

    /// `logging/setLevel`: the server sends log messages at `level` and
    /// above, as [`Notification::Log`](crate::client::Notification::Log).
    /// In the 2026-07-28 era every request from now on asks for them in
    /// its `_meta` (`io.modelcontextprotocol/logLevel`), and they come
    /// with its answer.
    pub async fn set_log_level(&self, level: LogLevel) -> Result<(), ClientError> {
        let level_name = json!(level.as_str());
        if self
            .session
            .set_meta_field(modern::LOG_LEVEL, Some(level_name))
        {
            return Ok(());
        }
        self.request("logging/setLevel", json!({ "level": level.as_str() }))
            .await
            .map(drop)
    }

    /// Replaces the roots given to [`ClientBuilder::roots`](crate::client::ClientBuilder::roots)
    /// and tells the server (`notifications/roots/list_changed`); `false`,
    /// with nothing sent, for a client built without roots.
    pub async fn set_roots(
        &self,
        roots: impl IntoIterator<Item = crate::asking::ask::Root>,
    ) -> Result<bool, ClientError> {
        self.session.set_roots(roots.into_iter().collect()).await
    }

    /// `ping`; in the 2026-07-28 era, which has no `ping`, a
    /// `server/discover` sent to the server (never answered from the
    /// cache).
    pub async fn ping(&self) -> Result<(), ClientError> {
        let method = if self.session.is_modern() {
            "server/discover"
        } else {
            "ping"
        };
        self.request(method, json!({})).await.map(drop)
    }
}

fn call_params(name: &str, arguments: impl Serialize) -> Result<Value, ClientError> {
    let arguments = serde_json::to_value(arguments).map_err(ClientError::InvalidArguments)?;
    Ok(match arguments {
        Value::Null => json!({ "name": name }),
        arguments => json!({ "name": name, "arguments": arguments }),
    })
}
