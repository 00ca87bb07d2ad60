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
//! - `access`: bearer tokens, scopes and the Protected Resource Metadata;
//! - `listener`: accepting connections, timeouts, graceful shutdown.

mod access;
mod config;
mod endpoint;
mod guard;
mod listener;
mod modern;
mod session;
mod sse;
mod stream;

use std::sync::Arc;

pub(crate) use config::HttpConfig;
use endpoint::Endpoint;
pub(crate) use listener::stop_signal;

use crate::dispatch::ServerCore;

/// Serves at `/mcp` on `listener` until `shutdown` completes.
pub(crate) async fn serve(
    core: ServerCore,
    config: HttpConfig,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    listener::serve(core, config, listener, shutdown).await
}

/// The endpoint as an axum `Router` serving `/mcp`.
pub(crate) fn router(core: ServerCore, config: HttpConfig) -> axum::Router {
    // Mounted, the server cannot tell where it is bound: it answers to
    // localhost names unless told otherwise.
    routes(Arc::new(Endpoint::new(Arc::new(core), &config, true)))
}

fn routes(endpoint: Arc<Endpoint>) -> axum::Router {
    let mut router = axum::Router::new();
    for path in endpoint.access.metadata_paths() {
        let endpoint = Arc::clone(&endpoint);
        router = router.route(
            &path,
            axum::routing::get(move |request: axum::extract::Request| {
                let endpoint = Arc::clone(&endpoint);
                async move { endpoint.other(request.uri().path()) }
            }),
        );
    }
    router.route(
        "/mcp",
        axum::routing::any(move |request| {
            let endpoint = Arc::clone(&endpoint);
            async move { endpoint.handle(request).await }
        }),
    )
}
