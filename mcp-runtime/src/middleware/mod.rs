//! Middleware around every request, on every transport: any
//! [`tower::Layer`] over [`McpService`], given to
//! [`Server::layer`](crate::Server::layer).
//!
//! A layer sees each request as an [`McpRequest`] (method, params, id,
//! HTTP session, caller, protocol version, the tool a `tools/call` names,
//! extensions) and the answer as the JSON-RPC `result`, a
//! [`serde_json::Value`], or an error ([`McpError`]). So it can observe
//! requests, refuse them, rewrite their params or their results, or time
//! them out; tower's own layers (`ConcurrencyLimitLayer`, `TimeoutLayer`,
//! `LoadShedLayer`, ...) work unchanged.
//!
//! ```
//! use std::time::Duration;
//!
//! use mcp_runtime::Server;
//! use mcp_runtime::middleware::{McpError, McpRequest, McpService};
//! use tower::ServiceExt;
//!
//! /// Refuses every tool annotated `destructive`.
//! fn read_only(inner: McpService) -> McpService {
//!     McpService::new(tower::service_fn(move |request: McpRequest| {
//!         let destructive = request.tool().is_some_and(|tool| tool.hints().destructive == Some(true));
//!         let inner = inner.clone();
//!         async move {
//!             if destructive {
//!                 return Err(McpError::invalid_request("this server is read-only").into());
//!             }
//!             inner.oneshot(request).await
//!         }
//!     }))
//! }
//!
//! let server = Server::new("notes", "1.0.0")
//!     .layer(tower::limit::ConcurrencyLimitLayer::new(64)) // outermost
//!     .layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(30)))
//!     .layer(tower::layer::layer_fn(read_only)); // innermost
//! # let _ = server;
//! ```
//!
//! **Order.** The layer added first is the outermost: it sees the request
//! first and the answer last, as with [`tower::ServiceBuilder`].
//!
//! **What goes through.** Every request that passes the lifecycle gate:
//! `tools/call`, the four lists, `resources/read`, `resources/subscribe`,
//! `resources/unsubscribe`, `prompts/get`, `completion/complete`,
//! `logging/setLevel`, `ping` and `initialize`. What never reaches a
//! handler does not: a request before `initialize` (but `ping`), a method
//! the server does not serve, a batch containing `initialize`, an id
//! already in use, and a `tools/call` whose params are malformed (no
//! `name`, `arguments` not an object) are answered before the layers.
//! Notifications do not go through either.
//!
//! **`initialize`** is negotiated before the layers (a second one, or one
//! without `protocolVersion`, is refused there); the layers then see it
//! with its result, and the session starts only if they answer `Ok`: a
//! layer can refuse a client, or rewrite the result.
//!
//! **Calls.** Every other request runs as one of the connection's calls:
//! `notifications/cancelled` drops it wherever it is in the layers,
//! progress reaches the client, and `Server::max_in_flight` still bounds
//! the calls running at once.
//!
//! **Built once.** The layers are applied once, when the server starts,
//! and every connection shares the resulting service (each request is
//! served by a clone of it): a limit kept behind an `Arc` (as
//! `ConcurrencyLimitLayer`'s semaphore is) holds across all connections.
//! (tower's own `RateLimitLayer` keeps its count in each clone, so it
//! limits nothing here; use a shared limiter such as the `governor`
//! crate's, as `examples/middleware` does.)
//!
//! **No layer, no cost.** A server without layers serves every request as
//! before; the only trace of this module on its path is one test of an
//! `Option`.

mod error;
mod request;
mod service;

pub use error::McpError;
pub use request::McpRequest;
pub use service::McpService;
pub use tower::BoxError;

pub(crate) use error::error_object;
pub(crate) use request::Perform;
pub(crate) use service::Layers;
