//! A small HTTP/1.1 client for the HTTP transport's tests: raw enough to
//! send what a well-behaved client never would, and to read an SSE stream
//! event by event. Every read has a timeout.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use mcp_runtime::Server;
use serde_json::{Value, json};

/// How long any read waits before the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// What tells a server to stop: it completes when [`HttpServer`] stops.
type Stopped = std::pin::Pin<Box<dyn Future<Output = ()> + Send>>;

/// A server on a free loopback port, in a runtime of its own; stopped (as
/// by SIGTERM) when dropped or by [`HttpServer::stop`].
pub struct HttpServer {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

impl HttpServer {
    pub fn start(server: Server) -> HttpServer {
        Self::start_with(|_| server)
    }

    /// Binds a free loopback port first, then builds the server knowing its
    /// address (an auth audience such as `http://127.0.0.1:PORT/mcp` names
    /// it).
    pub fn start_with(build: impl FnOnce(SocketAddr) -> Server) -> HttpServer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().unwrap();
        Self::serve_on(listener, build(addr))
    }

    /// Serves at `addr`, where an earlier server stopped (to restart it).
    pub fn start_at(addr: SocketAddr, server: Server) -> HttpServer {
        Self::serve_on(std::net::TcpListener::bind(addr).expect("bind"), server)
    }

    /// An axum router (`Server::into_router` with HTTP layers around it)
    /// on a free loopback port.
    pub fn start_router(router: axum::Router) -> HttpServer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        Self::run_on(listener, |listener, stopped| async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(stopped)
                .await
        })
    }

    fn serve_on(listener: std::net::TcpListener, server: Server) -> HttpServer {
        Self::run_on(listener, |listener, stopped| {
            server.serve_http_with(listener, stopped)
        })
    }

    /// Runs `serve` on `listener` in a runtime of its own, until the
    /// future it is given completes.
    fn run_on<F, Fut>(listener: std::net::TcpListener, serve: F) -> HttpServer
    where
        F: FnOnce(tokio::net::TcpListener, Stopped) -> Fut + Send + 'static,
        Fut: Future<Output = std::io::Result<()>>,
    {
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener)?;
                serve(
                    listener,
                    Box::pin(async move {
                        let _ = stopped.await;
                    }),
                )
                .await
            })
        });
        HttpServer {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Stops the server and waits (with a timeout) for `serve_http_with`
    /// to return; returns what it returned.
    pub fn stop(mut self) -> std::io::Result<()> {
        self.stop_now()
    }

    fn stop_now(&mut self) -> std::io::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let Some(thread) = self.thread.take() else {
            return Ok(());
        };
        let deadline = std::time::Instant::now() + TIMEOUT;
        while !thread.is_finished() {
            assert!(
                std::time::Instant::now() < deadline,
                "the server did not stop"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        thread.join().unwrap()
    }

    pub fn client(&self) -> Client {
        Client::new(self.addr)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if self.thread.is_some() && !std::thread::panicking() {
            let _ = self.stop_now();
        }
    }
}

/// One HTTP response, read whole (or, for SSE, as far as asked).
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// The last SSE `retry` field read, in milliseconds.
    pub retry: Option<u64>,
    body: Body,
}

enum Body {
    Done(Vec<u8>),
    Open(Box<dyn BufRead + Send>),
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn content_type(&self) -> &str {
        self.header("content-type").unwrap_or_default()
    }

    /// The whole body (waits for its end).
    pub fn body(&mut self) -> Vec<u8> {
        if let Body::Open(reader) = &mut self.body {
            let mut all = Vec::new();
            reader.read_to_end(&mut all).expect("read the body");
            self.body = Body::Done(all);
        }
        match &self.body {
            Body::Done(bytes) => bytes.clone(),
            Body::Open(_) => unreachable!(),
        }
    }

    pub fn text(&mut self) -> String {
        String::from_utf8(self.body()).expect("a UTF-8 body")
    }

    pub fn json(&mut self) -> Value {
        let text = self.text();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:?}"))
    }

    /// The next SSE event (`id`, `data`), or `None` at the end of the
    /// stream. Comments and `retry` are skipped, but a stream that sends
    /// only keep-alive comments for [`TIMEOUT`] fails the test rather than
    /// hang it.
    pub fn next_event(&mut self) -> Option<(Option<String>, String)> {
        let Body::Open(reader) = &mut self.body else {
            panic!("not a streamed body");
        };
        let deadline = std::time::Instant::now() + TIMEOUT;
        let mut retry = self.retry;
        let mut id = None;
        let mut data: Option<String> = None;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).expect("read an event") == 0 {
                return None;
            }
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if id.is_some() || data.is_some() {
                    self.retry = retry;
                    return Some((id, data.unwrap_or_default()));
                }
                continue;
            }
            if line.starts_with(':') {
                assert!(
                    std::time::Instant::now() < deadline,
                    "no SSE event within {TIMEOUT:?}, only comments"
                );
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "id" => id = Some(value.to_owned()),
                "retry" => retry = value.parse().ok(),
                "data" => {
                    let data = data.get_or_insert_with(String::new);
                    if !data.is_empty() {
                        data.push('\n');
                    }
                    data.push_str(value);
                }
                _ => {}
            }
        }
    }

    /// Every message of an SSE body, parsed, up to its end (events without
    /// data, such as the priming event, are skipped).
    pub fn messages(&mut self) -> Vec<Value> {
        let mut messages = Vec::new();
        while let Some((_, data)) = self.next_event() {
            if !data.is_empty() {
                messages.push(serde_json::from_str(&data).expect("an event's data is JSON"));
            }
        }
        messages
    }

    /// The JSON-RPC messages of the reply, whether it is JSON or SSE.
    pub fn replies(&mut self) -> Vec<Value> {
        if self.content_type().starts_with("text/event-stream") {
            self.messages()
        } else if self.content_type().starts_with("application/json") {
            vec![self.json()]
        } else {
            Vec::new()
        }
    }
}

/// Sends one request to `/mcp` on a fresh connection (`Connection: close`).
pub fn send(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    send_to(addr, method, "/mcp", headers, body)
}

/// Sends one request to `path` (with its query, if any) on a fresh
/// connection (`Connection: close`).
pub fn send_to(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut raw = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        raw.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        raw.push_str(&format!("{name}: {value}\r\n"));
    }
    raw.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let mut request = raw.into_bytes();
    request.extend_from_slice(body);
    send_raw(addr, &request)
}

/// Writes `request` as given and reads the response's head.
pub fn send_raw(addr: SocketAddr, request: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    stream.write_all(request).expect("send the request");
    read_reply(stream)
}

pub fn read_reply(stream: TcpStream) -> Reply {
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader
        .read_line(&mut status_line)
        .expect("read the status line");
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {status_line:?}"));
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("read a header");
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').expect("a header line");
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let find = |name: &str| {
        headers
            .iter()
            .find(|(n, _): &&(String, String)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let body: Box<dyn BufRead + Send> =
        if find("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
            Box::new(BufReader::new(Chunked {
                inner: reader,
                left: 0,
                done: false,
            }))
        } else if let Some(length) = find("content-length") {
            Box::new(reader.take(length.parse().unwrap()))
        } else {
            Box::new(reader)
        };
    Reply {
        status,
        headers,
        retry: None,
        body: Body::Open(body),
    }
}

/// A chunked transfer-encoded body, read as the bytes it carries.
struct Chunked<R> {
    inner: R,
    left: usize,
    done: bool,
}

impl<R: BufRead> Read for Chunked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.done {
            return Ok(0);
        }
        if self.left == 0 {
            let mut size = String::new();
            self.inner.read_line(&mut size)?;
            let size = size.trim().split(';').next().unwrap_or_default();
            self.left = usize::from_str_radix(size, 16)
                .map_err(|_| std::io::Error::other(format!("bad chunk size {size:?}")))?;
            if self.left == 0 {
                self.done = true;
                return Ok(0);
            }
        }
        let want = self.left.min(buf.len());
        let n = self.inner.read(&mut buf[..want])?;
        self.left -= n;
        if self.left == 0 {
            let mut crlf = String::new();
            self.inner.read_line(&mut crlf)?;
        }
        Ok(n)
    }
}

/// A client that keeps a session.
#[derive(Clone)]
pub struct Client {
    pub addr: SocketAddr,
    pub session: Option<String>,
    pub version: Option<String>,
    pub next_id: i64,
    /// Sent as `Authorization: Bearer <token>` with every request.
    pub bearer: Option<String>,
}

pub const ACCEPT_BOTH: (&str, &str) = ("Accept", "application/json, text/event-stream");
pub const JSON_BODY: (&str, &str) = ("Content-Type", "application/json");

impl Client {
    /// The same session, its requests sent to `server` (as a balancer
    /// without stickiness would).
    pub fn at(&self, server: &HttpServer) -> Client {
        let mut moved = self.clone();
        moved.addr = server.addr;
        moved
    }

    pub fn new(addr: SocketAddr) -> Client {
        Client {
            addr,
            session: None,
            version: None,
            next_id: 1,
            bearer: None,
        }
    }

    /// POSTs `message` with the session's headers.
    pub fn post(&mut self, message: &Value) -> Reply {
        self.post_with(message, &[])
    }

    pub fn post_with(&mut self, message: &Value, extra: &[(&str, &str)]) -> Reply {
        let mut headers = vec![ACCEPT_BOTH, JSON_BODY];
        if let Some(session) = &self.session {
            headers.push(("Mcp-Session-Id", session));
        }
        if let Some(version) = &self.version {
            headers.push(("MCP-Protocol-Version", version));
        }
        let authorization = self.bearer.as_ref().map(|token| format!("Bearer {token}"));
        if let Some(authorization) = &authorization {
            headers.push(("Authorization", authorization));
        }
        headers.extend_from_slice(extra);
        send(self.addr, "POST", &headers, message.to_string().as_bytes())
    }

    /// `initialize` offering `version`, then `notifications/initialized`;
    /// keeps the session id. Returns the initialize result.
    pub fn initialize(&mut self, version: &str) -> Value {
        let mut reply = self.post(&json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {},
                       "clientInfo": {"name": "http-test", "version": "0"}}
        }));
        assert_eq!(reply.status, 200, "initialize");
        self.session = reply.header("mcp-session-id").map(str::to_owned);
        let result = reply.replies().remove(0)["result"].clone();
        self.version = result["protocolVersion"].as_str().map(str::to_owned);
        let mut ack = self.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let status = ack.status;
        assert_eq!(status, 202, "{}", ack.text());
        result
    }

    /// A request with a fresh id; returns the HTTP reply.
    pub fn request(&mut self, method: &str, params: Value) -> Reply {
        let id = self.next_id;
        self.next_id += 1;
        self.post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
    }

    /// A request whose only reply is its response; returns the response.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let mut reply = self.request(method, params);
        assert_eq!(reply.status, 200, "{method}");
        let replies = reply.replies();
        replies.into_iter().last().expect("a response")
    }
}

/// `count` `initialize` POSTs, one after another on one kept-alive
/// connection (as a flooding client would send them), each with `headers`
/// besides the usual ones; returns each answer's status and session id.
pub fn flood_initialize(
    addr: SocketAddr,
    count: usize,
    headers: &[(&str, &str)],
) -> Vec<(u16, Option<String>)> {
    let body = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "flood", "version": "0"}}
    })
    .to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    let _ = stream.set_nodelay(true);
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    let mut answers = Vec::with_capacity(count);
    for _ in 0..count {
        writer
            .write_all(request.as_bytes())
            .expect("send initialize");
        let mut line = String::new();
        reader.read_line(&mut line).expect("read the status line");
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {line:?}"));
        let (mut session, mut length) = (None, 0);
        loop {
            line.clear();
            reader.read_line(&mut line).expect("read a header");
            let Some((name, value)) = line.trim_end().split_once(':') else {
                break;
            };
            if name.eq_ignore_ascii_case("mcp-session-id") {
                session = Some(value.trim().to_owned());
            } else if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().expect("a length");
            }
        }
        let mut skipped = vec![0; length];
        reader.read_exact(&mut skipped).expect("read the body");
        answers.push((status, session));
    }
    answers
}

/// Waits (up to [`TIMEOUT`]) until `done`, failing the test with `what`.
pub fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + TIMEOUT;
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting until {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}
