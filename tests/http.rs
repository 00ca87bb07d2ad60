//! The Streamable HTTP transport as the MCP specification's "Transports ›
//! Streamable HTTP" section
//! (<https://modelcontextprotocol.io/specification/2025-11-25/basic/transports>)
//! describes it: status codes, headers and bodies, sessions, streams and
//! resumption, stateless mode, and shutdown. A real server on a loopback
//! port, driven by a raw HTTP/1.1 client (tests/common/http.rs).

mod common;
#[path = "common/http_tools.rs"]
mod http_tools;

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::http::{ACCEPT_BOTH, Client, HttpServer, JSON_BODY, Reply, send, send_raw};
use common::results::reply_text;
use mcp_runtime::Server;
use serde_json::{Value, json};

fn server() -> Server {
    Server::new("http-test", "1.0.0")
}

#[test]
fn a_session_initializes_lists_and_calls_with_json_replies() {
    let server = HttpServer::start(server());
    let mut client = server.client();
    let result = client.initialize("2025-11-25");
    assert_eq!(result["protocolVersion"], "2025-11-25");
    assert_eq!(result["serverInfo"]["name"], "http-test");
    let session = client.session.clone().expect("a session id");
    assert_eq!(session.len(), 32, "128 random bits as hex: {session}");
    assert!(session.bytes().all(|b| b.is_ascii_hexdigit()));

    let mut reply = client.request("tools/list", json!({}));
    assert_eq!(reply.status, 200);
    assert_eq!(reply.content_type(), "application/json");
    let names: Vec<String> = reply.json()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["echo", "sleepy", "stepped"]);

    let response = client.call(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    assert_eq!(reply_text(&response), "hi");
    // A call that has to wait is still answered with plain JSON when it
    // reports nothing on the way.
    let response = client.call(
        "tools/call",
        json!({"name": "sleepy", "arguments": {"ms": 50}}),
    );
    assert_eq!(reply_text(&response), "slept 50 ms");
}

#[test]
fn progress_travels_on_the_requests_own_stream_before_its_response() {
    let server = HttpServer::start(server());
    let mut client = server.client();
    client.initialize("2025-11-25");
    let mut reply = client.request(
        "tools/call",
        json!({"name": "stepped", "arguments": {"steps": 3, "ms": 20}, "_meta": {"progressToken": "p"}}),
    );
    assert_eq!(reply.status, 200);
    assert_eq!(reply.content_type(), "text/event-stream");
    let mut ids = Vec::new();
    let mut messages = Vec::new();
    while let Some((id, data)) = reply.next_event() {
        ids.push(id.expect("every event has an id"));
        if !data.is_empty() {
            messages.push(serde_json::from_str::<Value>(&data).unwrap());
        }
    }
    // 2025-11-25: a first event with an id and no data, to resume from,
    // which tells the client how long to wait before it does.
    assert_eq!(ids.len(), messages.len() + 1, "{ids:?}");
    assert_eq!(reply.retry, Some(1000));
    let unique: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "event ids are unique: {ids:?}");
    let progress: Vec<f64> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress, [1.0, 2.0, 3.0]);
    let last = messages.last().unwrap();
    assert_eq!(reply_text(last), "done", "the response comes last");

    // A client that takes JSON only gets the response alone.
    let session = client.session.clone().unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
        "params": {"name": "stepped", "arguments": {"steps": 2, "ms": 10}, "_meta": {"progressToken": "j"}}});
    let mut reply = send(
        server.addr,
        "POST",
        &[
            ("Accept", "application/json"),
            JSON_BODY,
            ("Mcp-Session-Id", &session),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        body.to_string().as_bytes(),
    );
    assert_eq!(reply.status, 200);
    assert_eq!(reply.content_type(), "application/json");
    assert_eq!(reply_text(&reply.json()), "done");
}

#[test]
fn notifications_and_responses_alone_are_accepted_without_a_body() {
    let server = HttpServer::start(server());
    let mut client = server.client();
    client.initialize("2025-06-18");
    let mut reply = client.post(&json!({"jsonrpc": "2.0", "method": "notifications/unknown"}));
    assert_eq!(reply.status, 202);
    assert!(reply.body().is_empty());
    let mut reply = client.post(&json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
    assert_eq!(reply.status, 202);
    assert!(reply.body().is_empty());
}

#[test]
fn bad_requests_get_the_status_the_table_gives() {
    let server = HttpServer::start(server().max_message_size(1000));
    let addr = server.addr;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
    .to_string();
    let init = init.as_bytes();

    // Accept allows neither form.
    let reply = send(addr, "POST", &[("Accept", "text/html"), JSON_BODY], init);
    assert_eq!(reply.status, 406);
    // Not JSON by its Content-Type.
    let reply = send(
        addr,
        "POST",
        &[ACCEPT_BOTH, ("Content-Type", "text/plain")],
        init,
    );
    assert_eq!(reply.status, 415);
    // Not JSON by its content.
    let mut reply = send(addr, "POST", &[ACCEPT_BOTH, JSON_BODY], b"{not json");
    assert_eq!(reply.status, 400);
    let body = reply.json();
    assert_eq!(body["error"]["code"], -32700);
    assert_eq!(body["id"], Value::Null);
    // Over the size limit.
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{{\"pad\":\"{}\"}}}}",
        "x".repeat(2000)
    );
    let mut reply = send(addr, "POST", &[ACCEPT_BOTH, JSON_BODY], big.as_bytes());
    assert_eq!(reply.status, 413);
    assert_eq!(reply.json()["error"]["data"]["limitBytes"], 1000);
    // DNS rebinding: a Host or Origin that is not ours.
    let reply = send(
        addr,
        "POST",
        &[("Host", "evil.example"), ACCEPT_BOTH, JSON_BODY],
        init,
    );
    assert_eq!(reply.status, 403);
    let reply = send(
        addr,
        "POST",
        &[("Origin", "http://evil.example"), ACCEPT_BOTH, JSON_BODY],
        init,
    );
    assert_eq!(reply.status, 403);
    let reply = send(
        addr,
        "POST",
        &[("Origin", "http://localhost:6274"), ACCEPT_BOTH, JSON_BODY],
        init,
    );
    assert_eq!(reply.status, 200, "a localhost origin is fine");
    // Other methods, other paths.
    let reply = send(addr, "PUT", &[], b"");
    assert_eq!(reply.status, 405);
    assert!(reply.header("allow").is_some_and(|a| a.contains("POST")));
    let request = format!(
        "POST /other HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    assert_eq!(send_raw(addr, request.as_bytes()).status, 404);
    // Versions: unsupported, or unlike the session's.
    let reply = send(
        addr,
        "POST",
        &[
            ACCEPT_BOTH,
            JSON_BODY,
            ("MCP-Protocol-Version", "1999-01-01"),
        ],
        init,
    );
    assert_eq!(reply.status, 400);
    let mut client = server.client();
    client.initialize("2025-06-18");
    client.version = Some("2025-03-26".into());
    let mut reply = client.request("ping", json!({}));
    let status = reply.status;
    assert_eq!(status, 400, "not the session's version: {}", reply.text());
    // Without the header, the session's version.
    client.version = None;
    assert_eq!(client.call("ping", json!({}))["result"], json!({}));
}

#[test]
fn sessions_are_required_found_and_ended() {
    let server = HttpServer::start(server());
    let addr = server.addr;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    // No session id on a request other than initialize.
    let mut reply = send(addr, "POST", &[ACCEPT_BOTH, JSON_BODY], ping.as_bytes());
    assert_eq!(reply.status, 400);
    assert!(reply.text().contains("Mcp-Session-Id"));
    // An unknown one.
    let headers = [
        ACCEPT_BOTH,
        JSON_BODY,
        ("Mcp-Session-Id", "0123456789abcdef0123456789abcdef"),
    ];
    assert_eq!(send(addr, "POST", &headers, ping.as_bytes()).status, 404);

    let mut one = server.client();
    one.initialize("2025-11-25");
    let mut two = server.client();
    two.initialize("2025-11-25");
    assert_ne!(one.session, two.session);
    assert_eq!(one.call("ping", json!({}))["result"], json!({}));
    // DELETE ends a session, and only that one.
    let session = one.session.clone().unwrap();
    let reply = send(addr, "DELETE", &[("Mcp-Session-Id", &session)], b"");
    assert_eq!(reply.status, 204);
    assert_eq!(one.request("ping", json!({})).status, 404);
    assert_eq!(
        send(addr, "DELETE", &[("Mcp-Session-Id", &session)], b"").status,
        404
    );
    assert_eq!(two.call("ping", json!({}))["result"], json!({}));
}

#[test]
fn an_idle_session_ends_and_the_number_of_sessions_is_bounded() {
    let server = HttpServer::start(
        server()
            .session_idle_timeout(Duration::from_millis(300))
            .max_sessions(2)
            .max_sessions_per_client(2),
    );
    let mut one = server.client();
    one.initialize("2025-11-25");
    let mut two = server.client();
    two.initialize("2025-11-25");
    // Full: a third ends the session idle longest to make room
    // (tests/http_sessions.rs has the rest of this).
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(two.call("ping", json!({}))["result"], json!({}));
    let mut three = server.client();
    three.initialize("2025-11-25");
    assert_eq!(one.request("ping", json!({})).status, 404);
    assert_eq!(two.call("ping", json!({}))["result"], json!({}));
    // Idle past the timeout: gone, and there is room again.
    std::thread::sleep(Duration::from_millis(1000));
    assert_eq!(two.request("ping", json!({})).status, 404);
    assert_eq!(three.request("ping", json!({})).status, 404);
    let mut four = server.client();
    four.initialize("2025-11-25");
    assert_eq!(four.call("ping", json!({}))["result"], json!({}));
}

#[test]
fn stateless_mode_serves_every_post_alone() {
    let server = HttpServer::start(server().stateless());
    let mut client = server.client();
    let result = client.initialize("2025-11-25");
    assert_eq!(result["protocolVersion"], "2025-11-25");
    assert_eq!(client.session, None, "no session id in stateless mode");
    // No initialize needed before a request.
    let mut fresh = server.client();
    let response = fresh.call(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "alone"}}),
    );
    assert_eq!(reply_text(&response), "alone");
    let mut reply = fresh.request(
        "tools/call",
        json!({"name": "stepped", "arguments": {"steps": 2, "ms": 10}, "_meta": {"progressToken": 1}}),
    );
    assert_eq!(reply.content_type(), "text/event-stream");
    let mut messages = Vec::new();
    while let Some((_, data)) = reply.next_event() {
        // No priming event: without a session there is nothing to resume.
        assert!(!data.is_empty());
        messages.push(serde_json::from_str::<Value>(&data).unwrap());
    }
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(reply_text(&messages[2]), "done");
    assert_eq!(
        send(server.addr, "GET", &[("Accept", "text/event-stream")], b"").status,
        405
    );
    assert_eq!(send(server.addr, "DELETE", &[], b"").status, 405);
}

#[test]
fn batches_are_served_to_2025_03_26_sessions_only() {
    let server = HttpServer::start(server());
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/x"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "b"}}}
    ]);
    let mut old = server.client();
    old.initialize("2025-03-26");
    let mut reply = old.post(&batch);
    assert_eq!(reply.status, 200);
    let replies = reply.json();
    assert_eq!(replies.as_array().map(Vec::len), Some(2), "{replies}");
    assert_eq!(replies[1]["result"]["content"][0]["text"], "b");

    let mut new = server.client();
    new.initialize("2025-11-25");
    let mut reply = new.post(&batch);
    assert_eq!(reply.status, 400);
    assert_eq!(reply.json()["error"]["code"], -32600);
}

#[test]
fn the_get_stream_opens_once_per_session() {
    let server = HttpServer::start(server());
    let mut client = server.client();
    client.initialize("2025-11-25");
    let session = client.session.clone().unwrap();
    let get = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", session.as_str()),
    ];
    let mut first = send(server.addr, "GET", &get, b"");
    assert_eq!(first.status, 200);
    assert_eq!(first.content_type(), "text/event-stream");
    let (id, data) = first.next_event().expect("the priming event");
    assert!(id.is_some() && data.is_empty());
    assert_eq!(send(server.addr, "GET", &get, b"").status, 409);
    assert_eq!(
        send(
            server.addr,
            "GET",
            &[("Accept", "application/json"), ("Mcp-Session-Id", &session)],
            b""
        )
        .status,
        406
    );
    // Ending the session ends the stream.
    assert_eq!(
        send(server.addr, "DELETE", &[("Mcp-Session-Id", &session)], b"").status,
        204
    );
    assert!(first.next_event().is_none());
}

#[test]
fn a_dropped_stream_is_resumed_with_last_event_id() {
    let server = HttpServer::start(server());
    let mut client = server.client();
    client.initialize("2025-11-25");
    let mut reply = client.request(
        "tools/call",
        json!({"name": "stepped", "arguments": {"steps": 4, "ms": 100}, "_meta": {"progressToken": "r"}}),
    );
    assert_eq!(reply.content_type(), "text/event-stream");
    let _prime = reply.next_event().unwrap();
    let (id, data) = reply.next_event().unwrap();
    let first: Value = serde_json::from_str(&data).unwrap();
    assert_eq!(first["params"]["progress"], 1.0);
    // The connection drops: not a cancellation. The client resumes.
    drop(reply);
    let session = client.session.clone().unwrap();
    let id = id.unwrap();
    let mut resumed = send(
        server.addr,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", &session),
            ("Last-Event-ID", &id),
        ],
        b"",
    );
    assert_eq!(resumed.status, 200);
    let rest = resumed.messages();
    let progress: Vec<f64> = rest
        .iter()
        .filter_map(|m| m["params"]["progress"].as_f64())
        .collect();
    assert_eq!(progress, [2.0, 3.0, 4.0], "{rest:?}");
    assert_eq!(reply_text(rest.last().unwrap()), "done");
}

/// POSTs a `stepped` call with request id `id` and a progress token, and
/// reads its SSE answer to the end: every event's id, and the messages.
fn stepped_to_the_end(client: &mut Client, id: &Value, steps: u32) -> (Vec<String>, Vec<Value>) {
    let mut reply = client.post(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "stepped", "arguments": {"steps": steps, "ms": 0}, "_meta": {"progressToken": "t"}}}));
    assert_eq!(reply.content_type(), "text/event-stream");
    let (mut ids, mut messages) = (Vec::new(), Vec::new());
    while let Some((event_id, data)) = reply.next_event() {
        ids.push(event_id.expect("every event has an id"));
        if !data.is_empty() {
            messages.push(serde_json::from_str(&data).unwrap());
        }
    }
    (ids, messages)
}

/// GET with `Last-Event-ID: last`.
fn resume_from(client: &Client, last: &str) -> Reply {
    send(
        client.addr,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", client.session.as_deref().unwrap()),
            ("Last-Event-ID", last),
        ],
        b"",
    )
}

/// The session still calls tools and opens its GET stream.
fn assert_still_serves(client: &mut Client) {
    let response = client.call(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "still here"}}),
    );
    assert_eq!(reply_text(&response), "still here");
    let mut stream = send(
        client.addr,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", client.session.as_deref().unwrap()),
        ],
        b"",
    );
    assert_eq!(stream.status, 200);
    let (id, _) = stream.next_event().expect("the priming event");
    assert!(id.unwrap().starts_with("0_"), "the GET stream is stream 0");
}

#[test]
fn a_post_streams_event_ids_name_its_request() {
    let server = HttpServer::start(server());
    let mut client = server.client();
    client.initialize("2025-11-25");
    for id in [json!(7), json!("call_ü/7?")] {
        let (ids, messages) = stepped_to_the_end(&mut client, &id, 2);
        assert_eq!(messages.len(), 3, "{messages:?}");
        let tag = URL_SAFE_NO_PAD.encode(id.to_string());
        let number = ids[0].split('.').next().unwrap().to_owned();
        let expected: Vec<String> = (0..4).map(|n| format!("{number}.{tag}_{n}")).collect();
        assert_eq!(ids, expected, "id {id}");
    }
    // An id too long to name: the plain `STREAM_EVENT` form.
    let long = json!("x".repeat(300));
    let (ids, _) = stepped_to_the_end(&mut client, &long, 1);
    assert!(
        ids.iter()
            .all(|id| !id.contains('.') && id.split('_').count() == 2),
        "{ids:?}"
    );
}

#[test]
fn a_stream_read_to_its_end_resumes_with_its_response() {
    let server = HttpServer::start(server());
    let mut client = server.client();
    client.initialize("2025-11-25");
    let (ids, messages) = stepped_to_the_end(&mut client, &json!("r"), 3);
    // As if the connection had dropped after the second progress event,
    // or after the priming event, with everything already written.
    for last in [&ids[2], &ids[0]] {
        let mut resumed = resume_from(&client, last);
        assert_eq!(resumed.status, 200);
        let (id, data) = resumed.next_event().expect("the response");
        assert_eq!(id.as_ref(), ids.last(), "the response keeps its id");
        let response: Value = serde_json::from_str(&data).unwrap();
        assert_eq!(&response, messages.last().unwrap());
        assert_eq!(reply_text(&response), "done");
        assert_eq!(resumed.next_event(), None, "only the response is kept");
    }
}

#[test]
fn a_stream_no_longer_kept_answers_its_request_with_an_error() {
    let server = HttpServer::start(server());
    let mut client = server.client();
    client.initialize("2025-11-25");
    let (first, _) = stepped_to_the_end(&mut client, &json!(41), 2);
    let (named, _) = stepped_to_the_end(&mut client, &json!("the_call"), 2);
    let (unnamed, _) = stepped_to_the_end(&mut client, &json!("y".repeat(300)), 2);
    // 32 streams that ended are kept per session: these push the first out.
    for n in 0..32 {
        stepped_to_the_end(&mut client, &json!(1000 + n), 1);
    }
    for (last, id) in [(&first[1], json!(41)), (&named[2], json!("the_call"))] {
        let mut resumed = resume_from(&client, last);
        assert_eq!(resumed.status, 200, "{last}");
        assert_eq!(resumed.content_type(), "text/event-stream");
        let (event_id, data) = resumed.next_event().expect("one event");
        assert_eq!(event_id, None, "nothing to resume after it");
        let error: Value = serde_json::from_str(&data).unwrap();
        assert_eq!(error["id"], id, "{error}");
        assert_eq!(error["error"]["code"], -32603, "{error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.contains("no longer keeps"), "{message}");
        assert_eq!(resumed.next_event(), None, "then the stream ends");
    }
    // No request to answer: 410, not 404 (which would end the session).
    let mut gone = resume_from(&client, &unnamed[1]);
    assert_eq!(gone.status, 410);
    assert_eq!(gone.json()["error"]["code"], -32600);
    assert_still_serves(&mut client);
}

#[test]
fn a_last_event_id_of_no_stream_of_the_session_is_a_bad_request() {
    let server = HttpServer::start(server());
    let mut client = server.client();
    client.initialize("2025-11-25");
    let (ids, _) = stepped_to_the_end(&mut client, &json!(1), 1);
    let tag = URL_SAFE_NO_PAD.encode("1");
    for last in [
        "garbage".to_owned(),
        "1_x".to_owned(),
        format!("1.{tag}=_1"),
        format!("1.{}_1", URL_SAFE_NO_PAD.encode("null")),
        // Well-formed, but this session never had a stream 99.
        format!("99.{tag}_1"),
        "99_1".to_owned(),
    ] {
        let mut reply = resume_from(&client, &last);
        assert_eq!(reply.status, 400, "{last}");
        assert_eq!(reply.json()["error"]["code"], -32600, "{last}");
    }
    // Stream 0, the GET stream, resumes as before; a kept stream too.
    let resumed = resume_from(&client, "0_0");
    assert_eq!(resumed.status, 200);
    drop(resumed);
    let mut resumed = resume_from(&client, &ids[0]);
    assert_eq!(resumed.messages().len(), 1, "the response");
    assert_still_serves(&mut client);
}

#[test]
fn a_cancelled_call_is_never_answered_and_its_stream_ends() {
    let server = HttpServer::start(server());
    let mut client = server.client();
    client.initialize("2025-11-25");
    let addr = server.addr;
    let session = client.session.clone().unwrap();
    let call = std::thread::spawn(move || {
        let body = json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call",
                          "params": {"name": "sleepy", "arguments": {"ms": 60_000}}});
        let mut reply = send(
            addr,
            "POST",
            &[ACCEPT_BOTH, JSON_BODY, ("Mcp-Session-Id", &session)],
            body.to_string().as_bytes(),
        );
        (reply.status, reply.body())
    });
    std::thread::sleep(Duration::from_millis(200));
    let reply = client.post(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "slow"}}));
    assert_eq!(reply.status, 202);
    let (status, body) = call.join().unwrap();
    assert_eq!(
        status,
        202,
        "no response: {}",
        String::from_utf8_lossy(&body)
    );
    assert!(body.is_empty());
}

#[test]
fn shutdown_lets_calls_in_flight_answer() {
    let server = HttpServer::start(server());
    let mut client = server.client();
    client.initialize("2025-11-25");
    let addr = server.addr;
    let session = client.session.clone().unwrap();
    let call = std::thread::spawn(move || {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "sleepy", "arguments": {"ms": 500}}});
        let mut reply = send(
            addr,
            "POST",
            &[ACCEPT_BOTH, JSON_BODY, ("Mcp-Session-Id", &session)],
            body.to_string().as_bytes(),
        );
        (reply.status, reply.replies())
    });
    std::thread::sleep(Duration::from_millis(150));
    server.stop().expect("serve_http_with returns Ok");
    let (status, replies) = call.join().unwrap();
    assert_eq!(status, 200);
    assert_eq!(reply_text(&replies[0]), "slept 500 ms");
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "no longer accepting"
    );
}

#[test]
fn the_endpoint_mounts_into_an_axum_router_beside_other_routes() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .merge(server().into_router().expect("the tools can be served"));
    runtime.spawn(async move { axum::serve(listener, app).await });

    let request = format!("GET /health HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    let mut health = send_raw(addr, request.as_bytes());
    assert_eq!(health.status, 200);
    assert_eq!(health.text(), "ok");
    let mut client = common::http::Client::new(addr);
    client.initialize("2025-11-25");
    let response = client.call(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "mounted"}}),
    );
    assert_eq!(reply_text(&response), "mounted");
    // Mounted, it answers to localhost names only unless told otherwise.
    let reply = send(
        addr,
        "POST",
        &[("Host", "mcp.example.com"), ACCEPT_BOTH, JSON_BODY],
        b"{}",
    );
    assert_eq!(reply.status, 403);
    runtime.shutdown_timeout(Duration::from_secs(1));
}

#[test]
fn a_notifier_speaks_on_each_sessions_get_stream() {
    let mut server = server();
    let notifier = server.notifier();
    let server = HttpServer::start(server);
    let mut client = server.client();
    let initialized = client.initialize("2025-11-25");
    assert_eq!(
        initialized["capabilities"]["tools"]["listChanged"], true,
        "{initialized}"
    );
    let session = client.session.clone().unwrap();
    let get = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", session.as_str()),
    ];
    let mut stream = send(server.addr, "GET", &get, b"");
    assert_eq!(stream.status, 200);
    stream.next_event().expect("the priming event");
    assert_eq!(notifier.tools_changed(), 1);
    let (_, data) = stream.next_event().expect("the list change");
    let message: Value = serde_json::from_str(&data).unwrap();
    assert_eq!(message["method"], "notifications/tools/list_changed");
}
