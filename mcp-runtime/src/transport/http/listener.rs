//! Accepting connections for [`Server::serve_http`](crate::Server::serve_http):
//! HTTP/1.1 with keep-alive, a deadline for each request's headers, and a
//! graceful stop on SIGTERM or Ctrl-C.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use hyper::body::Incoming;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;

use super::HttpConfig;
use super::endpoint::Endpoint;
use crate::dispatch::ServerCore;

/// How long a stopped server waits for responses still being written
/// once the calls are done.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

pub(crate) async fn serve(
    core: ServerCore,
    config: HttpConfig,
    listener: TcpListener,
    stop: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let local = listener.local_addr()?;
    let grace = core.limits.shutdown_grace;
    tracing::info!(
        server = %core.info.name,
        url = %format!("http://{local}/mcp"),
        stateless = config.stateless,
        "serving MCP over Streamable HTTP"
    );
    #[cfg(feature = "auth")]
    if let Some(auth) = &config.auth {
        tracing::info!(accepts = %auth.summary, "every request needs an OAuth access token");
    }
    let endpoint = Arc::new(Endpoint::new(
        Arc::new(core),
        &config,
        local.ip().is_loopback(),
    ));
    // Straight to the endpoint, without a router: one path to match. The
    // peer's address goes with each request, as axum's `ConnectInfo`
    // would put it (for the bound on one client's sessions).
    let service = |peer: SocketAddr| {
        let endpoint = Arc::clone(&endpoint);
        hyper::service::service_fn(move |mut request: Request<Incoming>| {
            let endpoint = Arc::clone(&endpoint);
            request.extensions_mut().insert(ConnectInfo(peer));
            async move {
                let response = if request.uri().path() == "/mcp" {
                    endpoint.handle(request.map(Body::new)).await
                } else {
                    endpoint.other(request.uri().path())
                };
                Ok::<_, Infallible>(response)
            }
        })
    };
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(config.header_read_timeout)
        .keep_alive(true);
    let graceful = GracefulShutdown::new();
    let mut stop = std::pin::pin!(stop);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stop => break,
        };
        let (socket, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of descriptors, usually: wait rather than spin.
                tracing::warn!(%error, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = socket.set_nodelay(true);
        let connection = http.serve_connection(TokioIo::new(socket), service(peer));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "HTTP connection ended with an error");
            }
        });
    }
    drop(listener);
    tracing::info!("stopping: no new connections; calls in flight get the grace period");
    endpoint.shutdown(grace).await;
    let _ = tokio::time::timeout(CLOSE_WAIT, graceful.shutdown()).await;
    tracing::info!("stopped");
    Ok(())
}

/// Completes on Ctrl-C, or SIGTERM on Unix.
pub(crate) async fn stop_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
