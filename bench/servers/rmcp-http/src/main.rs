//! The benchmark server written with rmcp, over Streamable HTTP: the same
//! three tools as `rmcp-basic` (servers/rmcp/src/tools.rs), served the way
//! rmcp's Streamable HTTP examples do it: a `StreamableHttpService` with a
//! `LocalSessionManager`, nested at `/mcp` in an axum `Router`, served with
//! `axum::serve` until Ctrl-C.
//!
//! ```text
//! rmcp-http --http 127.0.0.1:PORT [--stateless] [--nodelay]
//! ```
//!
//! `--stateless` turns off `legacy_session_mode` (rmcp's name for stateful
//! mode before 3.x's rename) and turns on `json_response`, as rmcp's
//! stateless tests configure it: no sessions, and `application/json`
//! answers instead of an SSE stream per request.
//!
//! `--nodelay` sets TCP_NODELAY on every accepted connection (axum's
//! `ListenerExt::tap_io`, as axum's docs show), which rmcp's examples do not:
//! without it, an answer written as several SSE chunks waits on Nagle's
//! algorithm and the client's delayed ACK.

#[path = "../../rmcp/src/tools.rs"]
mod tools;

use axum::serve::ListenerExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;
use tools::Basic;

struct Args {
    addr: String,
    stateless: bool,
    nodelay: bool,
}

fn args() -> Result<Args, String> {
    let mut addr = None;
    let mut stateless = false;
    let mut nodelay = false;
    let mut raw = std::env::args().skip(1);
    while let Some(arg) = raw.next() {
        match arg.as_str() {
            "--http" => addr = raw.next(),
            "--stateless" => stateless = true,
            "--nodelay" => nodelay = true,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(Args {
        addr: addr.ok_or("usage: rmcp-http --http ADDR [--stateless] [--nodelay]")?,
        stateless,
        nodelay,
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = args()?;
    let ct = CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(!args.stateless)
        .with_json_response(args.stateless)
        .with_cancellation_token(ct.child_token());
    // The tool router is built once and each session (each request, when
    // stateless) gets a clone, rather than `|| Ok(Basic::new())` building
    // every tool's definition again for each one.
    let basic = Basic::new();
    let service = StreamableHttpService::new(
        move || Ok(basic.clone()),
        LocalSessionManager::default().into(),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(&args.addr).await?;
    let shutdown = async move {
        let _ = tokio::signal::ctrl_c().await;
        ct.cancel();
    };
    if args.nodelay {
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, router)
            .with_graceful_shutdown(shutdown)
            .await?;
    } else {
        axum::serve(listener, router)
            .with_graceful_shutdown(shutdown)
            .await?;
    }
    Ok(())
}
