//! The Streamable HTTP transport: one endpoint, `/mcp`, on axum and
//! hyper, for every protocol version the server speaks (2025-03-26 to
//! 2025-11-25 with sessions, and 2026-07-28, where each POST stands
//! alone).
//!
//! Each session is one [`Connection`](crate::dispatch::Connection), the
//! same core that serves stdio; what changes is where its messages go.
//! Every POST gets a stream of its own ([`stream`]): its request's
//! notifications and response are written there, and the POST is answered
//! with plain JSON when the response is all there is, or with SSE
//! ([`sse`]) when notifications come first.
//!
//! The two eras are sibling rooms that never import each other; what both
//! use lies below them:
//!
//! - `endpoint`: the checks of every request, then the era's endpoint;
//!   shutdown;
//! - `legacy`: the session eras: POST, GET (a session's stream, or
//!   resuming one) and DELETE, and stateless mode;
//! - `modern`: the 2026-07-28 era: headers checked against the body, then
//!   each POST served by a connection of its own;
//! - `era`: which era a request is of;
//! - `request`: what a POST brings (sender, body), its reply stream, and
//!   the answer made of it;
//! - `headers`: MCP's header names, `Accept`, `MCP-Protocol-Version`;
//! - `reply`: errors, plain JSON, 202, and the 2026-07-28 statuses;
//! - `session`: one session: its id, connection, streams, and whether it
//!   is in use;
//! - `sessions`: the store: the idle timeout, and room made at the bounds
//!   on all sessions and on one client's by ending the idlest;
//! - `client`: who a client is (token subject, or address, forwarded
//!   only by trusted proxies);
//! - `stream`: one response stream's events, kept for `Last-Event-ID`;
//! - `event_id`: the ids of those events, which name the stream and the
//!   request it answers;
//! - `sse`: events as an HTTP body;
//! - `guard`: `Host` and `Origin` allow-lists;
//! - `access`: bearer tokens, scopes and the Protected Resource Metadata;
//! - `listener`: accepting connections, timeouts, graceful shutdown;
//! - `fleet`: sessions shared by the instances of a fleet through a
//!   store (`Server::sessions`);
//! - `config`: the settings, and the [`Server`](crate::Server) builder's
//!   methods that set them.

mod access;
mod client;
mod config;
mod endpoint;
mod era;
mod event_id;
mod fleet;
mod guard;
mod headers;
mod legacy;
mod listener;
mod modern;
mod reply;
mod request;
mod session;
mod sessions;
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

/// What must hold before a server of `config` binds its address: the
/// store of shared sessions answers. Said on stderr and returned as the
/// start-up error otherwise.
pub(crate) async fn ready(config: &HttpConfig) -> std::io::Result<()> {
    if let Some(store) = &config.sessions
        && let Err(sentence) = store.check().await
    {
        return Err(crate::startup::failed(
            std::io::ErrorKind::ConnectionRefused,
            crate::startup::HttpStartError::Sessions(sentence),
        ));
    }
    Ok(())
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
