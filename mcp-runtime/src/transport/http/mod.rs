//! The Streamable HTTP transport (protocol versions 2025-03-26 to
//! 2025-11-25): one endpoint, `/mcp`, on axum and hyper.
//!
//! Each session is one [`Connection`](crate::dispatch::Connection), the
//! same core that serves stdio; what changes is where its messages go.
//! Every POST gets a stream of its own ([`stream`]): its request's
//! notifications and response are written there, and the POST is answered
//! with plain JSON when the response is all there is, or with SSE
//! ([`sse`]) when notifications come first.
//!
//! - `endpoint`: the checks of every request, and POST, GET, DELETE;
//! - `session`: ids, the idle timeout and the limit on sessions;
//! - `stream`: one response stream's events, kept for `Last-Event-ID`;
//! - `sse`: events as an HTTP body;
//! - `guard`: `Host` and `Origin` allow-lists;
//! - `listener`: accepting connections, timeouts, graceful shutdown.

mod config;
mod endpoint;
mod guard;
mod listener;
mod session;
mod sse;
mod stream;

use std::sync::Arc;

pub(crate) use config::HttpConfig;
use endpoint::Endpoint;

use crate::registry::RegistryError;
use crate::server::Server;

/// Serves `server` at `http://addr/mcp` until SIGTERM or Ctrl-C.
pub(crate) async fn serve(
    server: Server,
    addr: impl tokio::net::ToSocketAddrs,
) -> std::io::Result<()> {
    let (core, config) = server.into_http_parts().map_err(|error| {
        tracing::error!("{error}");
        std::io::Error::other(error)
    })?;
    let listener = tokio::net::TcpListener::bind(addr).await?;
    listener::serve(core, config, listener, listener::stop_signal()).await
}

/// Serves `server` on `listener` until `shutdown` completes.
pub(crate) async fn serve_with(
    server: Server,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let (core, config) = server.into_http_parts().map_err(|error| {
        tracing::error!("{error}");
        std::io::Error::other(error)
    })?;
    listener::serve(core, config, listener, shutdown).await
}

/// The endpoint as an axum `Router` serving `/mcp`.
pub(crate) fn router(server: Server) -> Result<axum::Router, RegistryError> {
    let (core, config) = server.into_http_parts()?;
    // Mounted, the server cannot tell where it is bound: it answers to
    // localhost names unless told otherwise.
    let endpoint = Arc::new(Endpoint::new(Arc::new(core), &config, true));
    Ok(routes(endpoint))
}

fn routes(endpoint: Arc<Endpoint>) -> axum::Router {
    axum::Router::new().route(
        "/mcp",
        axum::routing::any(move |request| Arc::clone(&endpoint).handle(request)),
    )
}
