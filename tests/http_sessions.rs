//! No lockout by a flood of sessions: one client that opens session after
//! session and never ends them ends its own idlest ones (or, at the
//! server's bound, the idlest of all), never a session in use, and every
//! other client still initializes and calls tools. Real servers on
//! loopback ports, driven by the raw client of tests/common/http.rs; a
//! second client is told apart by the address a trusted proxy forwarded
//! for it, or by its token's subject.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::http::{
    ACCEPT_BOTH, Client, HttpServer, JSON_BODY, Reply, TIMEOUT, flood_initialize, send,
};
use mcp_runtime::auth::{Auth, Identity};
use mcp_runtime::{Server, tool};
use serde_json::{Value, json};

/// Echo the text back.
#[tool]
async fn echo(text: String) -> String {
    text
}

static STARTED: AtomicBool = AtomicBool::new(false);
static RELEASED: AtomicBool = AtomicBool::new(false);

/// Answer once the test releases it (or after the tests' timeout).
#[tool]
async fn held() -> String {
    STARTED.store(true, Ordering::Release);
    let deadline = Instant::now() + TIMEOUT;
    while !RELEASED.load(Ordering::Acquire) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    "released".into()
}

/// The server under test: loopback peers count as one client unless the
/// loopback proxy forwarded another address.
fn server() -> Server {
    Server::new("sessions-test", "1.0.0").trusted_proxies(["127.0.0.1"])
}

/// A client whose requests the trusted proxy forwarded for `address`.
fn forwarded(server: &HttpServer, address: &str) -> Forwarded {
    Forwarded {
        client: server.client(),
        header: address.to_owned(),
    }
}

struct Forwarded {
    client: Client,
    header: String,
}

impl Forwarded {
    fn initialize(&mut self) -> Reply {
        let header = self.header.clone();
        let mut reply = self.client.post_with(
            &json!({
                "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "other", "version": "0"}}
            }),
            &[("X-Forwarded-For", &header)],
        );
        if reply.status == 200 {
            self.client.session = reply.header("mcp-session-id").map(str::to_owned);
            self.client.version = Some("2025-11-25".into());
            let _ = reply.replies();
        }
        reply
    }

    /// Initializes, then calls `echo`; panics unless both succeed.
    fn initialize_and_call(&mut self) {
        let mut reply = self.initialize();
        let status = reply.status;
        assert_eq!(status, 200, "initialize: {}", reply.text());
        let header = self.header.clone();
        let mut ack = self.client.post_with(
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            &[("X-Forwarded-For", &header)],
        );
        let status = ack.status;
        assert_eq!(status, 202, "{}", ack.text());
        let mut reply = self.client.post_with(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"text": "still here"}}}),
            &[("X-Forwarded-For", &header)],
        );
        assert_eq!(reply.status, 200);
        let response = reply.replies().pop().expect("a response");
        assert_eq!(
            response["result"]["content"][0]["text"], "still here",
            "{response}"
        );
    }
}

/// The status a request on `session` gets (`ping`).
fn status_of(server: &HttpServer, session: &str) -> u16 {
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}).to_string();
    let headers = [
        ACCEPT_BOTH,
        JSON_BODY,
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    send(server.addr, "POST", &headers, body.as_bytes()).status
}

/// Every answer of a flood, checked to be a session.
fn sessions_of(answers: Vec<(u16, Option<String>)>) -> Vec<String> {
    answers
        .into_iter()
        .map(|(status, session)| {
            assert_eq!(status, 200, "a flooded initialize was refused");
            session.expect("a session id")
        })
        .collect()
}

/// Opens the session's GET stream and returns it, kept open.
fn open_stream(server: &HttpServer, session: &str) -> Reply {
    let headers = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let reply = send(server.addr, "GET", &headers, b"");
    assert_eq!(reply.status, 200);
    reply
}

#[test]
fn a_flood_at_the_default_bounds_leaves_room_for_another_client() {
    let server = HttpServer::start(server());
    let started = Instant::now();
    let flood = sessions_of(flood_initialize(server.addr, 12_000, &[]));
    eprintln!("12,000 initializes in {:?}", started.elapsed());
    // The flooder holds its bound (a tenth of 10,000): its newest sessions.
    assert_eq!(status_of(&server, &flood[11_999]), 200);
    assert_eq!(status_of(&server, &flood[11_000]), 200);
    assert_eq!(status_of(&server, &flood[10_999]), 404);
    assert_eq!(status_of(&server, &flood[0]), 404);
    forwarded(&server, "203.0.113.7").initialize_and_call();
}

#[test]
fn a_flooding_client_ends_its_own_idlest_sessions_only() {
    let server = HttpServer::start(server().max_sessions(100).max_sessions_per_client(10));
    let mut earlier = forwarded(&server, "198.51.100.1");
    earlier.initialize_and_call();
    let flood = sessions_of(flood_initialize(server.addr, 1_200, &[]));
    for session in &flood[..1_190] {
        // Sampled: every tenth, and the last ones before the kept.
        if session == &flood[1_189] || flood.iter().position(|s| s == session).unwrap() % 10 == 0 {
            assert_eq!(status_of(&server, session), 404, "an evicted session");
        }
    }
    for session in &flood[1_190..] {
        assert_eq!(status_of(&server, session), 200);
    }
    // The other client's session was not touched, and newcomers get in.
    let earlier_session = earlier.client.session.clone().unwrap();
    assert_eq!(status_of(&server, &earlier_session), 200);
    forwarded(&server, "198.51.100.2").initialize_and_call();
}

#[test]
fn at_the_server_bound_the_idlest_session_of_all_ends() {
    let server = HttpServer::start(server().max_sessions(30).max_sessions_per_client(10));
    let mut sessions = Vec::new();
    for address in ["192.0.2.1", "192.0.2.2", "192.0.2.3"] {
        let answers = flood_initialize(server.addr, 10, &[("X-Forwarded-For", address)]);
        sessions.extend(sessions_of(answers));
        std::thread::sleep(Duration::from_millis(5));
    }
    // The oldest but one is used again: the oldest is the idlest now.
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(status_of(&server, &sessions[1]), 200);
    forwarded(&server, "192.0.2.4").initialize_and_call();
    assert_eq!(status_of(&server, &sessions[0]), 404, "the idlest ended");
    assert_eq!(status_of(&server, &sessions[1]), 200);
    assert_eq!(status_of(&server, &sessions[2]), 200);
}

#[test]
fn sessions_in_use_are_never_evicted() {
    let server = HttpServer::start(server().max_sessions(100).max_sessions_per_client(5));
    let first = sessions_of(flood_initialize(server.addr, 2, &[]));
    // One with its GET stream open, one with a call in flight.
    let mut stream = open_stream(&server, &first[0]);
    let mut caller = server.client();
    caller.session = Some(first[1].clone());
    caller.version = Some("2025-11-25".into());
    let call = std::thread::spawn(move || {
        caller.call("tools/call", json!({"name": "held", "arguments": {}}))
    });
    let deadline = Instant::now() + TIMEOUT;
    while !STARTED.load(Ordering::Acquire) {
        assert!(Instant::now() < deadline, "the call did not start");
        std::thread::sleep(Duration::from_millis(5));
    }
    let flood = sessions_of(flood_initialize(server.addr, 300, &[]));
    assert_eq!(status_of(&server, &flood[0]), 404);
    assert_eq!(status_of(&server, &first[0]), 200, "its GET stream is open");
    RELEASED.store(true, Ordering::Release);
    let response = call.join().expect("the call");
    assert_eq!(
        response["result"]["content"][0]["text"], "released",
        "the call in flight was answered: {response}"
    );
    assert_eq!(status_of(&server, &first[1]), 200);
    // The stream was still open: it ends when its session does.
    let (id, data) = stream.next_event().expect("the priming event");
    assert!(id.is_some() && data.is_empty());
    assert_eq!(
        send(server.addr, "DELETE", &[("Mcp-Session-Id", &first[0])], b"").status,
        204
    );
    assert_eq!(
        stream.next_event(),
        None,
        "the stream ends with its session"
    );
}

#[test]
fn when_every_session_that_could_make_room_is_in_use_503_says_when_to_retry() {
    let server = HttpServer::start(server().max_sessions(3).max_sessions_per_client(2));
    let mine = sessions_of(flood_initialize(server.addr, 2, &[]));
    let _streams: Vec<Reply> = mine.iter().map(|s| open_stream(&server, s)).collect();
    let refused = flood_initialize(server.addr, 1, &[]);
    assert_eq!(
        refused[0].0, 503,
        "the client's own sessions are all in use"
    );
    let mut reply = Client::new(server.addr).post(&json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "x", "version": "0"}}
    }));
    assert_eq!(reply.status, 503);
    assert_eq!(reply.header("retry-after"), Some("5"));
    let body: Value = reply.json();
    assert_eq!(body["error"]["code"], -32603, "{body}");
    // Another client still gets the server's last place, then the server
    // is full of sessions in use: 503 for the next, with Retry-After.
    let mut other = forwarded(&server, "192.0.2.9");
    other.initialize_and_call();
    let _third = open_stream(&server, other.client.session.as_deref().unwrap());
    let mut reply = forwarded(&server, "192.0.2.10").initialize();
    let status = reply.status;
    assert_eq!(status, 503, "{}", reply.text());
    assert_eq!(reply.header("retry-after"), Some("5"));
    for session in &mine {
        assert_eq!(status_of(&server, session), 200, "nothing was evicted");
    }
}

#[test]
fn with_auth_a_client_is_its_token_subject() {
    let server = HttpServer::start(
        Server::new("sessions-test", "1.0.0")
            .max_sessions(20)
            .max_sessions_per_client(5)
            .auth(Auth::static_tokens([
                ("flood-token", Identity::new("flooder")),
                ("other-token", Identity::new("other")),
            ])),
    );
    let mut other = server.client();
    other.bearer = Some("other-token".into());
    other.initialize("2025-11-25");
    let flood = sessions_of(flood_initialize(
        server.addr,
        500,
        &[("Authorization", "Bearer flood-token")],
    ));
    let flooded = |session: &str| {
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}).to_string();
        let headers = [
            ACCEPT_BOTH,
            JSON_BODY,
            ("Mcp-Session-Id", session),
            ("Authorization", "Bearer flood-token"),
        ];
        send(server.addr, "POST", &headers, body.as_bytes()).status
    };
    assert_eq!(flooded(&flood[0]), 404);
    assert_eq!(flooded(&flood[499]), 200);
    // The other subject's session is still there, and it calls a tool.
    let response = other.call(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "mine"}}),
    );
    assert_eq!(response["result"]["content"][0]["text"], "mine");
    let mut newcomer = server.client();
    newcomer.bearer = Some("other-token".into());
    newcomer.initialize("2025-11-25");
}
