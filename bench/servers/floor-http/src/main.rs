//! The HTTP floor: what serving the benchmark over HTTP costs with nothing
//! but hyper and serde_json. A hyper 1.x HTTP/1.1 server on tokio's
//! multi-thread runtime answers `POST /mcp` with the stdio floor's
//! dispatcher (servers/floor) and `application/json`; `initialize` issues a
//! session id, kept in a `HashSet` behind a `Mutex`, and any other request
//! must carry a known one. No header checks, no protocol-version checks, no
//! SSE, no schema validation, no cancellation: the bound.
//!
//! ```text
//! floor-http --http 127.0.0.1:PORT [--stateless]
//! ```
//!
//! `--stateless` issues and checks no session ids.

use std::collections::HashSet;
use std::convert::Infallible;
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bench_floor::{Catalog, Floor, Kind};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

const SESSION_HEADER: &str = "mcp-session-id";

struct State {
    floor: Floor,
    stateless: bool,
    sessions: Mutex<HashSet<String>>,
    seed: u64,
    next: AtomicU64,
}

impl State {
    fn new_session(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = format!("{:016x}{n:016x}", self.seed);
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone());
        id
    }

    fn has_session(&self, id: &[u8]) -> bool {
        let Ok(id) = std::str::from_utf8(id) else {
            return false;
        };
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(id)
    }
}

fn empty(status: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    response
}

async fn handle(
    state: Arc<State>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    if request.uri().path() != "/mcp" {
        return Ok(empty(StatusCode::NOT_FOUND));
    }
    if request.method() != Method::POST {
        return Ok(empty(StatusCode::METHOD_NOT_ALLOWED));
    }
    let session = request.headers().get(SESSION_HEADER).cloned();
    if !state.stateless
        && let Some(id) = &session
        && !state.has_session(id.as_bytes())
    {
        return Ok(empty(StatusCode::NOT_FOUND));
    }
    let Ok(body) = request.into_body().collect().await else {
        return Ok(empty(StatusCode::BAD_REQUEST));
    };
    let body = body.to_bytes();
    let mut out = Vec::with_capacity(256);
    let kind = state.floor.handle(&body, &mut out);
    let mut new_session = None;
    if !state.stateless {
        match kind {
            Kind::Initialize => new_session = Some(state.new_session()),
            Kind::Request | Kind::Notification if session.is_none() => {
                return Ok(empty(StatusCode::BAD_REQUEST));
            }
            _ => {}
        }
    }
    if kind == Kind::Notification {
        return Ok(empty(StatusCode::ACCEPTED));
    }
    let mut response = Response::new(Full::new(Bytes::from(out)));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if let Some(id) = new_session.and_then(|id| HeaderValue::try_from(id).ok()) {
        headers.insert(SESSION_HEADER, id);
    }
    Ok(response)
}

fn args() -> Result<(String, bool), String> {
    let mut addr = None;
    let mut stateless = false;
    let mut raw = std::env::args().skip(1);
    while let Some(arg) = raw.next() {
        match arg.as_str() {
            "--http" => addr = raw.next(),
            "--stateless" => stateless = true,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok((
        addr.ok_or("usage: floor-http --http ADDR [--stateless]")?,
        stateless,
    ))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (addr, stateless) = args()?;
    let state = Arc::new(State {
        floor: Floor::new(Catalog::Basic),
        stateless,
        sessions: Mutex::new(HashSet::new()),
        seed: RandomState::new().hash_one(std::process::id()),
        next: AtomicU64::new(1),
    });
    let listener = TcpListener::bind(&addr).await?;
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                // Out of file descriptors or the like: try again shortly.
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let state = state.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| handle(state.clone(), request));
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
