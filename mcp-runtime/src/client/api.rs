//! [`Client`]: connecting (the handshake) and the typed calls.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio::task::JoinHandle;

use crate::client::error::ClientError;
use crate::client::notification::Notifications;
use crate::client::page;
use crate::client::session::{Handlers, ProgressFn, Session};
use crate::client::transport::{Received, Transport};
use crate::client::types::{
    Completion, PromptInfo, ResourceInfo, ResourceTemplateInfo, ServerCapabilities, ServerInfo,
    ToolInfo,
};
use crate::completion::CompletionRef;
use crate::content::ResourceContents;
use crate::context::LogLevel;
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
}

/// What `initialize` says about the client, and what it answers the
/// server's requests with.
pub(crate) struct Handshake {
    pub(crate) client_info: Value,
    pub(crate) capabilities: Value,
    pub(crate) handlers: Handlers,
}

impl Drop for Client {
    fn drop(&mut self) {
        // The reader holds the session, which holds the transport: ending
        // it lets the transport go (a child process is killed).
        self.reader.abort();
    }
}

impl Client {
    /// Initializes a session over `transport`, whose messages arrive on
    /// `inbound`.
    pub(crate) async fn connect(
        transport: Box<dyn Transport>,
        inbound: tokio::sync::mpsc::Receiver<Received>,
        setup: &Handshake,
    ) -> Result<Client, ClientError> {
        let (session, reader) = Session::start(transport, inbound, setup.handlers.clone());
        let params = json!({
            "protocolVersion": ProtocolVersion::LATEST.as_str(),
            "capabilities": setup.capabilities,
            "clientInfo": setup.client_info,
        });
        let answer = session.request("initialize", params, None, false).await;
        let mut client = Client {
            session,
            reader,
            version: ProtocolVersion::LATEST,
            server_info: ServerInfo(Value::Null),
            capabilities: ServerCapabilities(Value::Null),
            instructions: None,
        };
        let mut result = match answer {
            Ok(result) => result,
            Err(error) => {
                client.close().await;
                return Err(error);
            }
        };
        let offered = result.get("protocolVersion").and_then(Value::as_str);
        let Some(version) = offered.and_then(ProtocolVersion::parse_legacy) else {
            let offered = offered.map_or_else(|| "(none)".to_owned(), str::to_owned);
            client.close().await;
            return Err(ClientError::UnsupportedVersion(offered));
        };
        client.version = version;
        let mut take = |key: &str| result.get_mut(key).map(Value::take);
        client.server_info = ServerInfo(take("serverInfo").unwrap_or(Value::Null));
        client.capabilities = ServerCapabilities(take("capabilities").unwrap_or(json!({})));
        client.instructions = take("instructions").and_then(|i| i.as_str().map(str::to_owned));
        client
            .session
            .notify("notifications/initialized", &json!({}))
            .await?;
        Ok(client)
    }

    /// The protocol version the server answered.
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
    /// updates, log messages.
    pub fn notifications(&self) -> Notifications {
        Notifications::new(self.session.subscribe())
    }

    /// Ends the connection: a spawned server has its stdin closed, a grace
    /// period to exit, then is killed. Requests still waiting get
    /// [`ClientError::Closed`].
    pub async fn close(&self) {
        self.session.close().await;
    }

    /// Sends a request and returns its raw result: for methods this client
    /// has no typed call for.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.session.request(method, params, None, true).await
    }

    async fn typed<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
        progress: Option<ProgressFn>,
    ) -> Result<T, ClientError> {
        let result = self.session.request(method, params, progress, true).await?;
        serde_json::from_value(result).map_err(|e| ClientError::InvalidResponse {
            method: method.to_owned(),
            reason: e.to_string(),
        })
    }

    /// Every item of a paginated list, following `nextCursor`.
    async fn list_all(&self, method: &str, key: &str) -> Result<Vec<Value>, ClientError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(cursor) => json!({ "cursor": cursor }),
                None => json!({}),
            };
            // Read entry by entry: one that cannot be read is left out.
            let raw = self.session.request_raw(method, params, None, true).await?;
            let page = page::read(method, key, &raw)?;
            items.extend(page.items);
            match page.next_cursor.as_deref() {
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
    /// when the resource changes.
    ///
    /// [`Notification::ResourceUpdated`]: crate::client::Notification::ResourceUpdated
    pub async fn subscribe(&self, uri: &str) -> Result<(), ClientError> {
        self.request("resources/subscribe", json!({ "uri": uri }))
            .await
            .map(drop)
    }

    /// `resources/unsubscribe`.
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), ClientError> {
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
    pub async fn set_log_level(&self, level: LogLevel) -> Result<(), ClientError> {
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

    /// `ping`.
    pub async fn ping(&self) -> Result<(), ClientError> {
        self.request("ping", json!({})).await.map(drop)
    }
}

fn call_params(name: &str, arguments: impl Serialize) -> Result<Value, ClientError> {
    let arguments = serde_json::to_value(arguments).map_err(ClientError::InvalidArguments)?;
    Ok(match arguments {
        Value::Null => json!({ "name": name }),
        arguments => json!({ "name": name, "arguments": arguments }),
    })
}
