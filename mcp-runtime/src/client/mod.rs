//! An MCP client (the `client` feature): connect to a server, then call its
//! tools, read its resources, get its prompts.
//!
//! [`Client::stdio`] spawns a server and talks to it over its stdin and
//! stdout; each line the server writes to stderr goes to `tracing` under
//! the target `mcp_runtime::client::stderr`. Connecting performs the
//! handshake: the client offers the newest protocol version it knows and
//! accepts any version it knows that the server answers
//! ([`ClientError::UnsupportedVersion`] otherwise).
//!
//! ```no_run
//! use mcp_runtime::client::{Client, ClientError, CompletionRef, Notification};
//! use mcp_runtime::serde_json::json;
//!
//! # async fn run() -> Result<(), ClientError> {
//! let client = Client::stdio("cargo", ["run", "--example", "weather"]).await?;
//! tracing::info!(server = client.server_info().name(), version = %client.protocol_version(), "connected");
//!
//! // Lists follow `nextCursor`: every tool, however many pages.
//! for tool in client.list_tools().await? {
//!     tracing::info!(tool = tool.name(), description = tool.description().unwrap_or_default());
//! }
//! let forecast = client
//!     .call_tool("get_forecast", json!({ "city": "Paris", "days": 2 }))
//!     .await?;
//! assert!(!forecast.is_error);
//!
//! // Progress notifications for a call reach its callback.
//! let result = client
//!     .call_tool_with_progress("get_forecast", json!({ "city": "Oslo" }), |done, total, _| {
//!         tracing::info!(done, ?total, "progress");
//!     })
//!     .await?;
//! tracing::info!(content = ?result.content);
//!
//! let cities = client.read_resource("weather://cities").await?;
//! let plan = client.get_prompt("plan_trip", [("city", "Lisbon")]).await?;
//! let names = client
//!     .complete(&CompletionRef::Prompt("plan_trip".into()), "city", "Ber")
//!     .await?;
//! tracing::info!(contents = cities.len(), messages = plan.messages.len(), completions = ?names.values);
//!
//! // List changes, resource updates and log messages.
//! let mut notifications = client.notifications();
//! tokio::spawn(async move {
//!     while let Some(notification) = notifications.recv().await {
//!         if let Notification::ToolListChanged = notification {
//!             tracing::info!("the tools changed");
//!         }
//!     }
//! });
//!
//! // A JSON-RPC error from the server is `ClientError::Rpc`.
//! match client.call_tool("no_such_tool", json!({})).await {
//!     Err(ClientError::Rpc { code, message, .. }) => tracing::warn!(code, message),
//!     other => tracing::warn!(?other),
//! }
//! client.close().await;
//! # Ok(())
//! # }
//! ```
//!
//! Every request waits at most the timeout ([`Client::set_timeout`], 60 s
//! unless set), then fails with [`ClientError::Timeout`]. A call whose
//! future is dropped before its answer (a `select!` that took another
//! branch, a task aborted) is cancelled: the server is sent
//! `notifications/cancelled`. When the server exits, every call still
//! waiting fails with [`ClientError::Closed`]: nothing waits forever. The
//! server's own `ping` requests are answered; its questions to the user
//! (`elicitation/create`) are answered by the handler given to
//! [`ClientBuilder::on_elicitation`], which also names the client
//! ([`ClientBuilder::client_info`]); other requests get -32601.

mod api;
mod builder;
mod elicitation;
mod error;
mod http;
mod http_options;
mod notification;
pub mod oauth;
mod session;
mod sse;
mod stdio;
mod transport;
mod types;

pub use self::api::Client;
pub use self::builder::ClientBuilder;
pub use self::elicitation::{Elicitation, ElicitationRequest};
pub use self::error::ClientError;
pub use self::http_options::HttpOptions;
pub use self::notification::{Notification, Notifications};
pub use self::types::{
    Completion, PromptInfo, ResourceInfo, ResourceTemplateInfo, ServerCapabilities, ServerInfo,
    ToolInfo,
};
pub use crate::asking::ask::Root;
pub use crate::asking::sampling::{
    Sampled, SamplingContent, SamplingMessage, SamplingRequest, SamplingTool, StopReason,
    ToolChoice, ToolResult, ToolUse,
};
pub use crate::completion::CompletionRef;
pub use crate::content::ResourceContents;
pub use crate::context::LogLevel;
pub use crate::prompts::GetPromptResult;
pub use crate::protocol::version::ProtocolVersion;
pub use crate::tools::output::CallToolResult;
