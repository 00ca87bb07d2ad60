//! The client (`mcp_runtime::client`) over Streamable HTTP, against our
//! own server running in this process on a loopback port: the handshake,
//! lists and calls, progress on a POST's SSE stream, notifications on the
//! GET stream, a forgotten session initialized again, bearer tokens, and a
//! server that stops mid-call; and against a server scripted on raw TCP,
//! an answer's stream resumed as the server's `retry` says.

mod common;
#[path = "common/http_tools.rs"]
mod http_tools;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::http::HttpServer;
use common::list_changed::add_tools_until_announced;
use common::step::within;
use mcp_runtime::auth::{Auth, Identity};
use mcp_runtime::client::ResourceContents;
use mcp_runtime::client::{Client, ClientError, HttpOptions, ProtocolVersion};
use mcp_runtime::{Server, prompt, resource, serde_json};
use serde_json::json;

/// A greeting.
#[resource("test://hello", mime_type = "text/plain")]
fn hello() -> String {
    "Hello over HTTP".to_owned()
}

/// Greet someone.
#[prompt]
fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Greet {name}.")
}

fn server() -> Server {
    Server::new("client-http-test", "1.0.0").shutdown_grace(Duration::from_millis(200))
}

fn url(addr: SocketAddr) -> String {
    format!("http://{addr}/mcp")
}

/// Stops `server` from a blocking thread (its `stop` waits).
async fn stop(server: HttpServer) {
    tokio::task::spawn_blocking(move || server.stop())
        .await
        .unwrap()
        .expect("the server stopped cleanly");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initializes_lists_and_calls() {
    lists_and_calls(ProtocolVersion::LATEST).await;
}

/// The same in the 2026-07-28 era (no session: each request stands alone).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_and_calls_in_2026_07_28() {
    lists_and_calls(ProtocolVersion::MODERN).await;
}

/// Connects in the era `version` leads to, then lists and calls.
async fn lists_and_calls(version: ProtocolVersion) {
    let server = HttpServer::start(server());
    let client = Client::builder()
        .protocol_version(version)
        .http(url(server.addr));
    let client = within(client).await.unwrap();
    assert_eq!(client.protocol_version(), version);
    assert_eq!(client.server_info().name(), "client-http-test");
    assert!(client.capabilities().tools());

    within(client.ping()).await.unwrap();
    let tools = within(client.list_tools()).await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    for name in ["echo", "stepped", "sleepy"] {
        assert!(names.contains(&name), "{names:?}");
    }
    let resources = within(client.list_resources()).await.unwrap();
    assert_eq!(resources.len(), 1);
    let contents = within(client.read_resource("test://hello")).await.unwrap();
    match &contents[..] {
        [ResourceContents::Text { text, .. }] => assert_eq!(text, "Hello over HTTP"),
        other => panic!("{other:?}"),
    }
    let prompts = within(client.list_prompts()).await.unwrap();
    assert_eq!(prompts.len(), 1);
    let prompt = within(client.get_prompt("greet", [("name", "Ada")]))
        .await
        .unwrap();
    assert_eq!(prompt.messages.len(), 1);

    let result = within(client.call_tool("echo", json!({ "text": "over http" })))
        .await
        .unwrap();
    assert!(!result.is_error);
    assert_eq!(result.text(), "over http");

    match within(client.call_tool("no_such_tool", json!({}))).await {
        Err(ClientError::Rpc { code, .. }) => assert_eq!(code, -32602),
        Ok(result) => assert!(result.is_error, "{result:?}"),
        Err(other) => panic!("{other:?}"),
    }

    // Calls at once, each on its own POST.
    let calls = (0..8).map(|i| client.call_tool("echo", json!({ "text": format!("n{i}") })));
    let results = within(futures_join_all(calls)).await;
    for (i, result) in results.into_iter().enumerate() {
        assert_eq!(result.unwrap().text(), format!("n{i}"));
    }
    within(client.close()).await;
}

/// Waits for every future, in order (no extra dependency for `join_all`).
async fn futures_join_all<F: Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let handles: Vec<_> = futures.into_iter().map(Box::pin).collect();
    let mut outputs = Vec::new();
    for handle in handles {
        outputs.push(handle.await);
    }
    outputs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_arrives_on_the_calls_stream_before_its_answer() {
    let server = HttpServer::start(server());
    let client = within(Client::http(url(server.addr))).await.unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let result = within(client.call_tool_with_progress(
        "stepped",
        json!({ "steps": 4, "ms": 20 }),
        move |progress, total, _| record.lock().unwrap().push((progress, total)),
    ))
    .await
    .unwrap();
    assert_eq!(result.text(), "done");
    let seen = seen.lock().unwrap().clone();
    let expected: Vec<(f64, Option<f64>)> = (1..=4).map(|i| (f64::from(i), Some(4.0))).collect();
    assert_eq!(seen, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_notifications_arrive_on_the_get_stream() {
    let mut server = server();
    let handle = server.handle();
    let server = HttpServer::start(server);
    let client = within(Client::http(url(server.addr))).await.unwrap();
    let mut notifications = client.notifications();
    // The GET stream opens in the background: add tools until one change
    // is announced.
    add_tools_until_announced(&handle, &mut notifications, "added").await;
    let tools = within(client.list_tools()).await.unwrap();
    assert!(tools.iter().any(|t| t.name() == "added_1"));
}

/// Serves `server` on `listener` in a runtime of its own, as
/// `HttpServer::start` does, but on a port chosen by the test (to restart
/// a server where it was).
struct Served {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Served {
    fn start(addr: SocketAddr, server: Server) -> Served {
        let listener = std::net::TcpListener::bind(addr).expect("bind");
        listener.set_nonblocking(true).unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                let until = async move {
                    let _ = stopped.await;
                };
                server.serve_http_with(listener, until).await.unwrap();
            });
        });
        Served {
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        let thread = self.thread.take().unwrap();
        within(tokio::task::spawn_blocking(move || thread.join().unwrap()))
            .await
            .unwrap();
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forgotten_session_is_initialized_again_transparently() {
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let first = Served::start(addr, server());
    let client = within(Client::http(url(addr))).await.unwrap();
    let result = within(client.call_tool("echo", json!({ "text": "before" })))
        .await
        .unwrap();
    assert_eq!(result.text(), "before");

    // A restarted server knows no session: 404, then a new session.
    first.stop().await;
    let mut restarted = server();
    let handle = restarted.handle();
    let _second = Served::start(addr, restarted);
    let result = within(client.call_tool("echo", json!({ "text": "after" })))
        .await
        .unwrap();
    assert_eq!(result.text(), "after");
    within(client.ping()).await.unwrap();

    // The new session has its GET stream too.
    let mut notifications = client.notifications();
    add_tools_until_announced(&handle, &mut notifications, "later").await;
}

fn with_token(_addr: SocketAddr) -> Server {
    server().auth(Auth::static_tokens([(
        "client-secret",
        Identity::new("client"),
    )]))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bearer_token_is_sent_and_its_absence_reported() {
    let server = HttpServer::start_with(with_token);
    let refused = within(Client::http(url(server.addr))).await;
    match refused {
        Err(ClientError::Http {
            status,
            www_authenticate,
            ..
        }) => {
            assert_eq!(status, 401);
            let challenge = www_authenticate.expect("a WWW-Authenticate challenge");
            assert!(challenge.starts_with("Bearer"), "{challenge}");
        }
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("connected without a token"),
    }

    let wrong = HttpOptions::new(url(server.addr)).bearer_token("not-the-secret");
    match within(Client::connect_http(wrong)).await {
        Err(ClientError::Http { status: 401, .. }) => {}
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("connected with a wrong token"),
    }

    let options = HttpOptions::new(url(server.addr)).bearer_token("client-secret");
    let client = within(Client::connect_http(options)).await.unwrap();
    let result = within(client.call_tool("echo", json!({ "text": "authorized" })))
        .await
        .unwrap();
    assert_eq!(result.text(), "authorized");

    // A provider is asked before each HTTP request.
    let asked = Arc::new(Mutex::new(0));
    let count = Arc::clone(&asked);
    let options = HttpOptions::new(url(server.addr)).token_provider(move || {
        *count.lock().unwrap() += 1;
        async { Some("client-secret".to_owned()) }
    });
    let client = within(Client::connect_http(options)).await.unwrap();
    within(client.ping()).await.unwrap();
    // 2026-07-28: `server/discover`, then the ping (a discover too).
    assert!(*asked.lock().unwrap() >= 2, "server/discover, ping");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_stopped_mid_call_fails_the_call() {
    // A call streaming progress (its answer is an SSE stream), and one
    // whose answer has not begun.
    let server = HttpServer::start(server());
    let client = Arc::new(within(Client::http(url(server.addr))).await.unwrap());
    let started = Arc::new(tokio::sync::Notify::new());
    let streaming = {
        let client = Arc::clone(&client);
        let started = Arc::clone(&started);
        tokio::spawn(async move {
            client
                .call_tool_with_progress(
                    "stepped",
                    json!({ "steps": 1000, "ms": 50 }),
                    move |_, _, _| started.notify_one(),
                )
                .await
        })
    };
    let silent = {
        let client = Arc::clone(&client);
        tokio::spawn(async move { client.call_tool("sleepy", json!({ "ms": 60_000 })).await })
    };
    within(started.notified()).await;
    stop(server).await;
    let began = Instant::now();
    // The stream ended, resuming it failed: the answer is lost.
    match within(streaming).await.unwrap() {
        Err(ClientError::ConnectionLost(reason)) => {
            assert!(!reason.is_empty(), "a reason is given");
        }
        other => panic!("{other:?}"),
    }
    // Refused (503 while shutting down), or its connection dropped.
    let silent = within(silent).await.unwrap();
    assert!(silent.is_err(), "{silent:?}");
    assert!(began.elapsed() < Duration::from_secs(20));

    // Later calls fail at once: nothing listens.
    match within(client.ping()).await {
        Err(ClientError::Io(_) | ClientError::Closed) => {}
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_ends_the_session() {
    let server = HttpServer::start(server());
    let client = within(Client::http(url(server.addr))).await.unwrap();
    within(client.ping()).await.unwrap();
    within(client.close()).await;
    match within(client.ping()).await {
        Err(ClientError::Closed) => {}
        other => panic!("{other:?}"),
    }
}

/// What the scripted server below saw: a request (`"POST initialize"`,
/// `"GET"`…) with its `Last-Event-ID`, or `"closed"` when it ended the
/// call's stream; and when.
#[derive(Clone, Debug)]
struct Seen {
    what: String,
    last_event_id: Option<String>,
    at: Instant,
}

/// The `retry` the scripted server sends: longer than the client's own
/// default wait (1 s), so that a client ignoring it reconnects too early.
const RETRY: Duration = Duration::from_millis(1500);

/// A Streamable HTTP server scripted on raw TCP, as the conformance suite's
/// sse-retry scenario is: `initialize` is answered in JSON; `tools/call`
/// with an SSE stream that sends an event id (`call-0`) and `retry`, then
/// ends before the answer; a GET resuming from `call-0` carries the answer.
/// Every GET stream is kept open until the client drops it.
struct Scripted {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Scripted {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Scripted {
    async fn start() -> Scripted {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let task = tokio::spawn(async move {
            let call = Arc::new(Mutex::new(None));
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(scripted_exchange(
                    stream,
                    Arc::clone(&log),
                    Arc::clone(&call),
                ));
            }
        });
        Scripted { addr, seen, task }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn note(seen: &Mutex<Vec<Seen>>, what: &str, last_event_id: Option<String>) {
    seen.lock().unwrap().push(Seen {
        what: what.to_owned(),
        last_event_id,
        at: Instant::now(),
    });
}

/// One request and its answer (the server closes every connection).
async fn scripted_exchange(
    mut stream: tokio::net::TcpStream,
    seen: Arc<Mutex<Vec<Seen>>>,
    call: Arc<Mutex<Option<serde_json::Value>>>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    const SSE: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                       cache-control: no-cache\r\nconnection: close\r\n\r\n";
    // The head, then as much body as it announces.
    let mut request = Vec::new();
    let mut buffer = [0u8; 4096];
    let head_end = loop {
        if let Some(end) = request.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buffer[..n]),
        }
    };
    let head = String::from_utf8_lossy(&request[..head_end]).to_lowercase();
    let header = |name: &str| {
        head.lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
            .map(|value| value.trim().to_owned())
    };
    let length: usize = header("content-length").map_or(0, |l| l.parse().unwrap());
    while request.len() < head_end + length {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buffer[..n]),
        }
    }
    let method = head.split(' ').next().unwrap_or_default().to_uppercase();
    let message: serde_json::Value =
        serde_json::from_slice(&request[head_end..]).unwrap_or_default();
    let rpc = message["method"].as_str().unwrap_or_default();
    let last_event_id = header("last-event-id");
    note(
        &seen,
        format!("{method} {rpc}").trim(),
        last_event_id.clone(),
    );

    let json_answer = |result: serde_json::Value| {
        let body = json!({ "jsonrpc": "2.0", "id": message["id"], "result": result }).to_string();
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nmcp-session-id: s1\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    match (method.as_str(), rpc) {
        ("POST", "initialize") => {
            let result = json!({
                "protocolVersion": "2025-11-25",
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "scripted", "version": "0" },
            });
            let _ = stream.write_all(json_answer(result).as_bytes()).await;
        }
        ("POST", "tools/call") => {
            *call.lock().unwrap() = Some(message["id"].clone());
            let events = format!("{SSE}id: call-0\nretry: {}\ndata: \n\n", RETRY.as_millis());
            let _ = stream.write_all(events.as_bytes()).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            note(&seen, "closed", None);
        }
        ("POST", _) if message.get("id").is_none() => {
            let accepted =
                "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
            let _ = stream.write_all(accepted.as_bytes()).await;
        }
        ("POST", _) => {
            let _ = stream.write_all(json_answer(json!({})).as_bytes()).await;
        }
        ("GET", _) => {
            let mut events = format!("{SSE}id: get-0\ndata: \n\n");
            let id = call.lock().unwrap().take();
            if let (Some("call-0"), Some(id)) = (last_event_id.as_deref(), id) {
                let answer = json!({
                    "jsonrpc": "2.0", "id": id,
                    "result": { "content": [{ "type": "text", "text": "reconnected" }] },
                });
                events.push_str(&format!("id: get-1\ndata: {answer}\n\n"));
            }
            let _ = stream.write_all(events.as_bytes()).await;
            // Open until the client lets go.
            while let Ok(1..) = stream.read(&mut buffer).await {}
        }
        _ => {
            let done = "HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
            let _ = stream.write_all(done.as_bytes()).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connecting_ends_once_the_get_stream_is_open() {
    let server = Scripted::start().await;
    let client = within(Client::http(url(server.addr))).await.unwrap();
    // Before any call, the server has the GET stream: whatever it sends
    // there from now on reaches the client.
    let seen = server.seen();
    assert!(seen.iter().any(|s| s.what == "GET"), "{seen:?}");
    within(client.close()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_answer_stream_is_resumed_after_the_servers_retry() {
    let server = Scripted::start().await;
    let client = within(Client::http(url(server.addr))).await.unwrap();
    let result = within(client.call_tool("test_reconnection", json!({})))
        .await
        .unwrap();
    assert_eq!(result.text(), "reconnected");
    let seen = server.seen();
    let closed = seen.iter().find(|s| s.what == "closed").expect("closed");
    let resumed = seen
        .iter()
        .find(|s| s.what == "GET" && s.last_event_id.as_deref() == Some("call-0"))
        .unwrap_or_else(|| panic!("no GET with Last-Event-ID: call-0 in {seen:?}"));
    // It waited as long as `retry` said, no less (and not much more).
    let waited = resumed.at.duration_since(closed.at);
    assert!(
        waited >= RETRY - Duration::from_millis(50) && waited < RETRY * 4,
        "reconnected after {waited:?}, retry was {RETRY:?}"
    );
    within(client.close()).await;
}
