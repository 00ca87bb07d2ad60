//! The same over HTTP: what the layers see of a session, and the README's
//! HTTP layers (tower-http on `Server::into_router`) around them.

use std::sync::Arc;

use axum::http::{HeaderName, HeaderValue, Method, header};
use governor::Quota;
use mcp_runtime::{RegistryError, Server};
use serde_json::json;
use tower::ServiceBuilder;
use tower_http::compression::CompressionLayer;
use tower_http::cors::CorsLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};

use super::common::http::{Client, HttpServer, send};
use super::example::RateLimitLayer;
use super::{probed, recording};

/// `server`'s HTTP endpoint behind HTTP layers: request ids, CORS for one
/// web app, compression.
fn with_http_layers(server: Server) -> Result<axum::Router, RegistryError> {
    let cors = CorsLayer::new()
        .allow_origin(HeaderValue::from_static("https://app.example.com"))
        .allow_methods([Method::GET, Method::POST, Method::DELETE])
        .allow_headers([
            header::CONTENT_TYPE,
            header::AUTHORIZATION,
            HeaderName::from_static("mcp-session-id"),
            HeaderName::from_static("mcp-protocol-version"),
            HeaderName::from_static("last-event-id"),
        ])
        .expose_headers([HeaderName::from_static("mcp-session-id")]);
    let router = server
        .allowed_origins(["https://app.example.com"])
        .into_router()?
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
                .layer(PropagateRequestIdLayer::x_request_id())
                .layer(cors)
                .layer(CompressionLayer::new()),
        );
    Ok(router)
}

#[test]
fn over_http_layers_see_the_session_and_limit_it() {
    let log = Arc::default();
    let (server, _) = probed();
    let quota = Quota::per_hour(std::num::NonZeroU32::new(3).unwrap());
    let server = server
        .layer(recording(Arc::clone(&log)))
        .layer(RateLimitLayer::new(quota));
    let http = HttpServer::start(server);
    let mut client = http.client();
    client.initialize("2025-06-18");
    let session = client.session.clone().expect("a session id");
    for _ in 0..2 {
        let echoed = client.call(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        );
        assert_eq!(echoed["result"]["content"][0]["text"], "hi", "{echoed}");
    }
    // Anonymous over HTTP: the session is the caller.
    let refused = client.call(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "rate limit exceeded for session {session}: retry in "
        )),
        "{refused}"
    );
    // Another session has a quota of its own.
    let mut other = http.client();
    other.initialize("2025-06-18");
    let echoed = other.call(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    assert_eq!(echoed["result"]["content"][0]["text"], "hi", "{echoed}");

    let seen = log.lock().unwrap().clone();
    let sessions: Vec<Option<&str>> = seen.iter().map(|s| s.session.as_deref()).collect();
    let other_session = other.session.as_deref();
    let ours = Some(session.as_str());
    assert_eq!(
        sessions,
        [ours, ours, ours, ours, other_session, other_session]
    );
    assert_eq!(seen[0].method, "initialize");
    assert_eq!(seen[1].version.as_deref(), Some("2025-06-18"));
}

#[test]
fn the_readme_http_layers_work_around_the_mcp_ones() {
    let log = Arc::default();
    let (server, _) = probed();
    let router = with_http_layers(server.layer(recording(Arc::clone(&log)))).unwrap();
    let serving = HttpServer::start_router(router);
    let origin = ("Origin", "https://app.example.com");

    // A browser's preflight, answered by the CORS layer.
    let preflight = send(
        serving.addr,
        "OPTIONS",
        &[
            origin,
            ("Access-Control-Request-Method", "POST"),
            (
                "Access-Control-Request-Headers",
                "content-type,mcp-session-id",
            ),
        ],
        b"",
    );
    assert_eq!(preflight.status, 200);
    assert_eq!(
        preflight.header("access-control-allow-origin"),
        Some("https://app.example.com")
    );

    let mut client = Client::new(serving.addr);
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "web", "version": "0"}}});
    let reply = client.post_with(&initialize, &[origin]);
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("access-control-expose-headers"),
        Some("mcp-session-id")
    );
    let request_id = reply
        .header("x-request-id")
        .expect("a request id")
        .to_owned();
    client.session = reply.header("mcp-session-id").map(str::to_owned);
    client.version = Some("2025-06-18".into());

    // The MCP layers see the HTTP layer's request id.
    let seen = log.lock().unwrap().clone();
    assert_eq!(
        seen[0].http_request_id.as_deref(),
        Some(request_id.as_str())
    );
    assert_eq!(seen[0].session, client.session);

    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let compressed = client.post_with(&list, &[origin, ("Accept-Encoding", "gzip")]);
    assert_eq!(compressed.status, 200);
    assert_eq!(compressed.header("content-encoding"), Some("gzip"));
}

#[test]
fn every_rust_block_of_the_guide_middleware_chapter_is_compiled() {
    /// The block without the lines rustdoc hides (`# ` and `#`), squeezed.
    fn squeeze(text: &str) -> String {
        let shown = text.lines().filter(|line| {
            let line = line.trim_start();
            line != "#" && !line.starts_with("# ")
        });
        shown.flat_map(str::split_whitespace).collect()
    }
    const CHAPTER: &str = include_str!("../../mcp-runtime/guide/11-middleware.md");
    let sources = squeeze(
        &[
            include_str!("../middleware.rs"),
            include_str!("over_http.rs"),
            include_str!("../../examples/middleware/main.rs"),
        ]
        .concat(),
    );
    // `rust` or `rust,ignore`: each is compiled here, as part of the
    // sources above (the `rust` one is a doctest too).
    let blocks: Vec<&str> = CHAPTER
        .split("```rust")
        .skip(1)
        .map(|rest| &rest[rest.find('\n').expect("a block")..])
        .map(|rest| &rest[..rest.find("```").expect("a closed block")])
        .collect();
    assert!(blocks.len() >= 3, "{blocks:?}");
    for block in blocks {
        assert!(
            sources.contains(&squeeze(block)),
            "this block of the guide is in neither tests/middleware.rs nor examples/middleware/main.rs:\n{block}"
        );
    }
}
