//! The 2026-07-28 era over Streamable HTTP: each POST stands alone, its
//! headers must mirror its body, statuses follow the error, an
//! `input_required` round trip needs no session, `subscriptions/listen` is
//! an SSE stream that stays open, and the legacy era is served beside it
//! on the same endpoint.

mod common;

use std::net::SocketAddr;

use common::http::{ACCEPT_BOTH, Client, HttpServer, JSON_BODY, Reply, send};
use mcp_runtime::{Context, Elicit, Elicited, Notifier, Server, tool};
use serde_json::{Value, json};

/// Echoes `text`.
#[tool]
async fn echo(text: String) -> String {
    text
}

#[derive(Elicit)]
struct Confirm {
    confirm: bool,
}

/// Asks for a confirmation, then answers.
#[tool]
async fn confirmed(ctx: Context) -> Result<String, String> {
    match ctx
        .elicit::<Confirm>("Sure?")
        .await
        .map_err(|e| e.to_string())?
    {
        Elicited::Accepted(Confirm { confirm: true }) => Ok("yes".into()),
        _ => Ok("no".into()),
    }
}

/// Set when a `lingering` call is dropped before it ends.
static DROPPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Reports progress, then waits a long time (unless dropped).
#[tool]
async fn lingering(ctx: Context) -> &'static str {
    struct Guard;
    impl Drop for Guard {
        fn drop(&mut self) {
            DROPPED.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
    let guard = Guard;
    ctx.progress(1.0, None, None);
    tokio::time::sleep(std::time::Duration::from_secs(60)).await;
    std::mem::forget(guard);
    "done"
}

const MODERN: &str = "2026-07-28";

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    })
}

/// The body of request `id`: `method` with `params` and the modern
/// `_meta`.
fn body(id: i64, method: &str, mut params: Value) -> Vec<u8> {
    params["_meta"] = meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        .to_string()
        .into_bytes()
}

/// POSTs `body` with the standard headers of `method` (and `name`, for
/// the methods that name something), then `extra`.
fn post(
    addr: SocketAddr,
    method: &str,
    name: Option<&str>,
    extra: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut headers = vec![
        ACCEPT_BOTH,
        JSON_BODY,
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", method),
    ];
    if let Some(name) = name {
        headers.push(("Mcp-Name", name));
    }
    for (key, value) in extra {
        headers.retain(|(k, _)| !k.eq_ignore_ascii_case(key));
        headers.push((key, value));
    }
    send(addr, "POST", &headers, body)
}

fn error_of(reply: &mut Reply) -> (u16, Value) {
    let status = reply.status;
    let message = reply.replies().pop().expect("a reply");
    (status, message)
}

#[test]
fn a_request_stands_alone_and_its_results_say_their_type() {
    let server = HttpServer::start(Server::new("modern-http", "1.0.0"));
    let mut reply = post(
        server.addr,
        "server/discover",
        None,
        &[],
        &body(1, "server/discover", json!({})),
    );
    assert_eq!(reply.status, 200);
    assert!(reply.header("mcp-session-id").is_none());
    let discovered = reply.replies().pop().unwrap();
    assert_eq!(discovered["result"]["supportedVersions"][0], MODERN);
    let call = body(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hé"}}),
    );
    let mut reply = post(server.addr, "tools/call", Some("echo"), &[], &call);
    assert_eq!(reply.status, 200);
    let result = &reply.replies()[0]["result"];
    assert_eq!(result["content"][0]["text"], "hé");
    assert_eq!(result["resultType"], "complete");
}

#[test]
fn headers_must_mirror_the_body() {
    let server = HttpServer::start(Server::new("modern-http", "1.0.0"));
    let call = body(
        7,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
    );
    for (label, name, extra) in [
        ("wrong name", Some("other"), vec![]),
        ("no name", None, vec![]),
        (
            "wrong method",
            Some("echo"),
            vec![("Mcp-Method", "tools/list")],
        ),
        (
            "wrong version",
            Some("echo"),
            vec![("MCP-Protocol-Version", "2099-01-01")],
        ),
        ("bad base64", Some("=?base64?ZWNobw?="), vec![]),
    ] {
        let mut reply = post(server.addr, "tools/call", name, &extra, &call);
        let (status, message) = error_of(&mut reply);
        assert_eq!(status, 400, "{label}: {message}");
        assert_eq!(message["error"]["code"], -32020, "{label}: {message}");
        assert_eq!(
            message["id"], 7,
            "{label}: the error keeps the request's id"
        );
    }
    // The name in Base64, as a client sends one that is not plain ASCII.
    let mut reply = post(
        server.addr,
        "tools/call",
        Some("=?base64?ZWNobw==?="),
        &[],
        &call,
    );
    let status = reply.status;
    assert_eq!(status, 200, "{}", reply.text());
}

#[test]
fn statuses_follow_the_error() {
    let server = HttpServer::start(Server::new("modern-http", "1.0.0"));
    let mut reply = post(
        server.addr,
        "initialize",
        None,
        &[],
        &body(3, "initialize", json!({})),
    );
    let (status, message) = error_of(&mut reply);
    assert_eq!(
        (status, message["error"]["code"].clone()),
        (404, json!(-32601))
    );
    let mut reply = post(
        server.addr,
        "no/such",
        None,
        &[],
        &body(4, "no/such", json!({})),
    );
    assert_eq!(error_of(&mut reply).0, 404);
    let bare = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {}}).to_string();
    let mut reply = post(server.addr, "tools/list", None, &[], bare.as_bytes());
    let (status, message) = error_of(&mut reply);
    assert_eq!(
        (status, message["error"]["code"].clone()),
        (400, json!(-32602))
    );
    let mut unknown = body(6, "tools/list", json!({}));
    let text = String::from_utf8(unknown)
        .unwrap()
        .replace(MODERN, "2099-01-01");
    unknown = text.into_bytes();
    let mut reply = post(
        server.addr,
        "tools/list",
        None,
        &[("MCP-Protocol-Version", "2099-01-01")],
        &unknown,
    );
    let (status, message) = error_of(&mut reply);
    assert_eq!(
        (status, message["error"]["code"].clone()),
        (400, json!(-32022))
    );
    // No GET stream in this era.
    let reply = send(
        server.addr,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("MCP-Protocol-Version", MODERN),
        ],
        b"",
    );
    assert_eq!(reply.status, 405);
}

#[test]
fn an_input_required_round_trip_needs_no_session() {
    let server = HttpServer::start(Server::new("modern-http", "1.0.0"));
    let first = body(
        1,
        "tools/call",
        json!({"name": "confirmed", "arguments": {}}),
    );
    let mut reply = post(server.addr, "tools/call", Some("confirmed"), &[], &first);
    let result = reply.replies().pop().unwrap()["result"].clone();
    assert_eq!(result["resultType"], "input_required", "{result}");
    let (key, _) = result["inputRequests"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .unwrap();
    let retry = body(
        2,
        "tools/call",
        json!({
            "name": "confirmed",
            "arguments": {},
            "inputResponses": {key.clone(): {"action": "accept", "content": {"confirm": true}}},
            "requestState": result["requestState"],
        }),
    );
    let mut reply = post(server.addr, "tools/call", Some("confirmed"), &[], &retry);
    let done = reply.replies().pop().unwrap();
    assert_eq!(done["result"]["content"][0]["text"], "yes", "{done}");
}

/// A server whose lists may change, and a subscription to its tool list
/// opened by the listen request `id`.
fn subscribed(id: i64) -> (HttpServer, Notifier, Reply) {
    let mut server = Server::new("modern-http", "1.0.0");
    let notifier = server.notifier();
    let server = HttpServer::start(server);
    let listen = body(
        id,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    let stream = post(server.addr, "subscriptions/listen", None, &[], &listen);
    (server, notifier, stream)
}

#[test]
fn a_subscription_is_a_stream_that_stays_open_until_the_server_ends_it() {
    let (server, notifier, mut stream) = subscribed(9);
    assert_eq!(stream.status, 200);
    assert!(stream.content_type().starts_with("text/event-stream"));
    assert_eq!(stream.header("x-accel-buffering"), Some("no"));
    let (id, ack) = stream.next_event().unwrap();
    assert_eq!(id, None, "no event ids: nothing resumes in this era");
    let ack: Value = serde_json::from_str(&ack).unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        9
    );
    assert_eq!(notifier.tools_changed(), 1);
    let (_, changed) = stream.next_event().unwrap();
    let changed: Value = serde_json::from_str(&changed).unwrap();
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        9
    );
    // Shutdown answers the listen request, which ends the stream.
    let stopping = std::thread::spawn(move || server.stop());
    let rest = stream.messages();
    let answer = rest.last().expect("the listen request is answered");
    assert_eq!(answer["id"], 9);
    assert_eq!(
        answer["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        9
    );
    stopping.join().unwrap().unwrap();
}

#[test]
fn a_closed_subscription_stream_hears_nothing_more() {
    let (_server, notifier, mut stream) = subscribed(1);
    stream.next_event().unwrap();
    drop(stream);
    // The server notices the closed connection when it next writes, or
    // when its stream is dropped: within a few tries.
    let deadline = std::time::Instant::now() + common::http::TIMEOUT;
    while notifier.tools_changed() != 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the subscription outlived its stream"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn closing_the_response_stream_cancels_the_request() {
    let server = HttpServer::start(Server::new("modern-http", "1.0.0"));
    let mut call = json!({"name": "lingering", "arguments": {}});
    call["_meta"] = meta();
    call["_meta"]["progressToken"] = json!("p");
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}).to_string();
    let mut stream = post(
        server.addr,
        "tools/call",
        Some("lingering"),
        &[],
        body.as_bytes(),
    );
    let (id, progress) = stream.next_event().expect("the progress report");
    assert_eq!(id, None);
    assert!(progress.contains("notifications/progress"), "{progress}");
    drop(stream);
    let deadline = std::time::Instant::now() + common::http::TIMEOUT;
    while !DROPPED.load(std::sync::atomic::Ordering::SeqCst) {
        assert!(
            std::time::Instant::now() < deadline,
            "the call outlived its stream"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn the_legacy_era_is_served_beside_it() {
    let server = HttpServer::start(Server::new("modern-http", "1.0.0"));
    let mut legacy = Client::new(server.addr);
    legacy.initialize("2025-11-25");
    let listed = legacy
        .request("tools/list", json!({}))
        .replies()
        .pop()
        .unwrap();
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    assert!(listed["result"].get("resultType").is_none());
    let mut reply = post(
        server.addr,
        "tools/list",
        None,
        &[],
        &body(1, "tools/list", json!({})),
    );
    assert_eq!(reply.replies()[0]["result"]["resultType"], "complete");
}
