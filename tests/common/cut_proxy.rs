//! A proxy on a loopback port in front of an HTTP MCP server, which cuts
//! the SSE answer of the first `tools/call` a client POSTs through it: it
//! forwards the first events, reads the rest from the server to the end (so
//! the server has written everything, the response too), may then make the
//! server forget that stream ([`Cut::Forgotten`]), and ends the client's
//! response. A client that resumes with `Last-Event-ID` does so through the
//! proxy too, and every request is noted ([`Seen`]).
//!
//! Not a module of `common/mod.rs` (it needs reqwest): a test that wants
//! it includes the file: `#[path = "common/cut_proxy.rs"] mod cut_proxy;`.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::{CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, HOST, TRANSFER_ENCODING};
use axum::http::{HeaderMap, Method, Response, StatusCode};
use serde_json::{Value, json};

/// How long the proxy waits for the server to answer a request's head.
const UPSTREAM_TIMEOUT: Duration = Duration::from_secs(20);

/// What happens to the cut stream on the server before the client's
/// connection ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cut {
    /// Nothing more: the server keeps it (its response).
    Kept,
    /// The proxy makes [`FILLERS`] more calls with SSE answers on the same
    /// session, read to their ends, which push the cut stream out of the
    /// 32 ended streams a session keeps.
    Forgotten,
}

/// The calls that make the server forget the cut stream.
pub const FILLERS: usize = 33;

/// One request the proxy forwarded, and the status the server gave it.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: Method,
    /// The JSON-RPC method of a POST's body, if it has one.
    pub rpc: Option<String>,
    pub last_event_id: Option<String>,
    pub status: u16,
}

pub struct CutProxy {
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    shared: Arc<Shared>,
    runtime: Option<tokio::runtime::Runtime>,
}

struct Shared {
    upstream: String,
    client: reqwest::Client,
    cut: Cut,
    /// Data-carrying events forwarded before the cut.
    keep: usize,
    cut_done: AtomicBool,
    /// Filler calls the server answered with SSE.
    fillers: AtomicUsize,
    seen: Mutex<Vec<Seen>>,
}

impl CutProxy {
    /// A proxy to `upstream` (the server's MCP URL) that forwards `keep`
    /// events with data of the first `tools/call`'s SSE answer, then cuts.
    pub fn start(upstream: &str, keep: usize, cut: Cut) -> CutProxy {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        // reqwest refuses to build a client before one is installed, even
        // one that speaks plain HTTP (see Cargo.toml).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .no_proxy()
            .connect_timeout(UPSTREAM_TIMEOUT)
            .build()
            .unwrap();
        let shared = Arc::new(Shared {
            upstream: upstream.to_owned(),
            client,
            cut,
            keep,
            cut_done: AtomicBool::new(false),
            fillers: AtomicUsize::new(0),
            seen: Mutex::default(),
        });
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind a loopback port");
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let app = axum::Router::new()
            .route("/mcp", axum::routing::any(forward))
            .with_state(Arc::clone(&shared));
        runtime.spawn(async move { axum::serve(listener, app).await });
        CutProxy {
            url,
            shared,
            runtime: Some(runtime),
        }
    }

    /// Every request forwarded so far, in the order the server answered.
    pub fn seen(&self) -> Vec<Seen> {
        self.shared.seen.lock().unwrap().clone()
    }

    /// Whether the proxy cut a stream.
    pub fn did_cut(&self) -> bool {
        self.shared.cut_done.load(Ordering::Acquire)
    }

    /// The filler calls the server answered with SSE, read to their ends.
    pub fn fillers(&self) -> usize {
        self.shared.fillers.load(Ordering::Acquire)
    }
}

impl Drop for CutProxy {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(Duration::from_secs(1));
        }
    }
}

/// Headers that belong to one connection, not to the message.
fn hop_by_hop(headers: &HeaderMap) -> HeaderMap {
    let mut headers = headers.clone();
    for name in [HOST, CONTENT_LENGTH, TRANSFER_ENCODING, CONNECTION] {
        headers.remove(name);
    }
    headers
}

async fn forward(State(shared): State<Arc<Shared>>, request: Request) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    let rpc = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|message| message["method"].as_str().map(str::to_owned));
    let last_event_id = parts
        .headers
        .get("last-event-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let headers = hop_by_hop(&parts.headers);
    let sent = shared
        .client
        .request(parts.method.clone(), &shared.upstream)
        .headers(headers.clone())
        .body(body)
        .send();
    let upstream = match tokio::time::timeout(UPSTREAM_TIMEOUT, sent).await {
        Ok(Ok(upstream)) => upstream,
        _ => {
            return Response::builder()
                .status(StatusCode::BAD_GATEWAY)
                .body(Body::empty())
                .unwrap();
        }
    };
    let status = upstream.status();
    shared.seen.lock().unwrap().push(Seen {
        method: parts.method.clone(),
        rpc: rpc.clone(),
        last_event_id,
        status: status.as_u16(),
    });
    let sse = upstream
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
    let cut = parts.method == Method::POST
        && rpc.as_deref() == Some("tools/call")
        && sse
        && !shared.cut_done.swap(true, Ordering::AcqRel);
    let mut response = Response::builder().status(status);
    *response.headers_mut().unwrap() = hop_by_hop(upstream.headers());
    let body = if cut {
        let state = Cutting {
            shared,
            upstream,
            headers,
            buffer: Vec::new(),
            forwarded: 0,
            done: false,
        };
        Body::from_stream(futures_util::stream::unfold(state, Cutting::next))
    } else {
        Body::from_stream(futures_util::stream::unfold(
            upstream,
            |mut upstream| async {
                let chunk = upstream.chunk().await.ok().flatten()?;
                Some((Ok::<Bytes, std::io::Error>(chunk), upstream))
            },
        ))
    };
    response.body(body).unwrap()
}

/// The cut answer: events forwarded whole until `keep` with data went,
/// then the rest read and dropped, then (maybe) the fillers, then the end.
struct Cutting {
    shared: Arc<Shared>,
    upstream: reqwest::Response,
    /// The headers of the cut POST: its session and version.
    headers: HeaderMap,
    buffer: Vec<u8>,
    forwarded: usize,
    done: bool,
}

impl Cutting {
    async fn next(mut self) -> Option<(Result<Bytes, std::io::Error>, Cutting)> {
        if self.done {
            return None;
        }
        let read = tokio::time::timeout(UPSTREAM_TIMEOUT, self.upstream.chunk()).await;
        let Some(chunk) = read.ok().and_then(Result::ok).flatten() else {
            // The server ended it before the cut: pass on what is left.
            self.done = true;
            let rest = std::mem::take(&mut self.buffer);
            return Some((Ok(Bytes::from(rest)), self));
        };
        self.buffer.extend_from_slice(&chunk);
        let mut out = Vec::new();
        while let Some(end) = find(&self.buffer, b"\n\n") {
            let event: Vec<u8> = self.buffer.drain(..end + 2).collect();
            out.extend_from_slice(&event);
            let text = String::from_utf8_lossy(&event);
            if text.lines().any(|line| line.starts_with("data: {")) {
                self.forwarded += 1;
            }
            if self.forwarded >= self.shared.keep {
                self.finish().await;
                break;
            }
        }
        Some((Ok(Bytes::from(out)), self))
    }

    /// Reads the server's answer to its end, then forgets it if asked.
    async fn finish(&mut self) {
        self.done = true;
        let drained = async { while let Ok(Some(_)) = self.upstream.chunk().await {} };
        let _ = tokio::time::timeout(UPSTREAM_TIMEOUT, drained).await;
        if self.shared.cut == Cut::Forgotten {
            for n in 0..FILLERS {
                if self.filler(n).await {
                    self.shared.fillers.fetch_add(1, Ordering::AcqRel);
                }
            }
        }
    }

    /// One call with progress on the cut POST's session, read to its end;
    /// whether it was answered with SSE.
    async fn filler(&self, n: usize) -> bool {
        let body = json!({"jsonrpc": "2.0", "id": format!("filler-{n}"), "method": "tools/call",
            "params": {"name": "count_slowly", "arguments": {"to": 1, "delay_ms": 0},
                       "_meta": {"progressToken": format!("filler-{n}")}}});
        let mut headers = HeaderMap::new();
        for name in ["mcp-session-id", "mcp-protocol-version"] {
            if let Some(value) = self.headers.get(name) {
                headers.insert(name, value.clone());
            }
        }
        let sent = self
            .shared
            .client
            .post(&self.shared.upstream)
            .headers(headers)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string())
            .send();
        let Ok(Ok(response)) = tokio::time::timeout(UPSTREAM_TIMEOUT, sent).await else {
            return false;
        };
        let sse = response
            .headers()
            .get(CONTENT_TYPE)
            .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
        let read = tokio::time::timeout(UPSTREAM_TIMEOUT, response.bytes()).await;
        sse && matches!(read, Ok(Ok(_)))
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}
