//! Test your tools, resources and prompts in process, through the real wire
//! format.
//!
//! [`TestClient`] drives a [`Server`](crate::Server) exactly as a client on
//! stdio would: every message is serialized to a line, parsed by the server,
//! answered, and the answer parsed back, with no subprocess and no pipes.
//!
//! ```standalone_crate
//! use mcp_runtime::{Server, testing::TestClient, tool, serde_json::json};
//!
//! /// Add two numbers.
//! #[tool]
//! async fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let mut client = TestClient::connect(Server::new("calc", "1.0.0")).await.unwrap();
//! let result = client.call_tool("add", json!({"a": 2, "b": 3})).await.unwrap();
//! assert_eq!(result["structuredContent"], json!({"result": 5}));
//! # }
//! ```
//!
//! Beside [`TestClient::request`], which sends any method, there is a
//! helper for each method of the protocol a server answers:
//!
//! | method | helper |
//! | --- | --- |
//! | `tools/list`, `tools/call` | [`list_tools`](TestClient::list_tools), [`call_tool`](TestClient::call_tool) |
//! | `resources/list`, `resources/templates/list` | [`list_resources`](TestClient::list_resources), [`list_resource_templates`](TestClient::list_resource_templates) |
//! | `resources/read` | [`read_resource`](TestClient::read_resource) |
//! | `resources/subscribe`, `resources/unsubscribe` | [`subscribe`](TestClient::subscribe), [`unsubscribe`](TestClient::unsubscribe) |
//! | `prompts/list`, `prompts/get` | [`list_prompts`](TestClient::list_prompts), [`get_prompt`](TestClient::get_prompt) |
//! | `completion/complete` | [`complete`](TestClient::complete), [`complete_with_context`](TestClient::complete_with_context) |
//!
//! The list helpers follow `nextCursor` to the last page. What the server
//! sends on its own (notifications) is kept in order for
//! [`recv`](TestClient::recv), [`next_notification`](TestClient::next_notification)
//! and [`drain_notifications`](TestClient::drain_notifications), and
//! [`connect_another`](TestClient::connect_another) opens a second session
//! of the same server, to see what reaches one session and not another.
//! [`connect_as`](TestClient::connect_as) (and `start_as`,
//! `connect_another_as`) acts as an authenticated caller, whose
//! [`Identity`](crate::auth::Identity) handlers read with
//! [`Context::auth`](crate::Context::auth) and middleware with
//! [`McpRequest::identity`](crate::middleware::McpRequest::identity).

pub(crate) mod client;
mod error;
mod notifications;
mod prompts;
mod replay;
mod resources;
mod tools;

pub use crate::completion::CompletionRef;
pub use client::TestClient;
pub use error::RpcError;
pub use replay::{MAX_ROUNDS, Replayed, call_replaying};
