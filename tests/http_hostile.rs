//! The hostile inputs of the stdio battery, sent over HTTP, and clients
//! that misbehave at the HTTP level: slow headers, many sessions at once,
//! connections dropped mid-stream. The server answers each with a clear
//! error and keeps serving.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::http::{ACCEPT_BOTH, Client, HttpServer, JSON_BODY, send};
use mcp_runtime::{Context, Server, tool};
use serde_json::{Value, json};

/// Echo the text back.
#[tool]
async fn echo(text: String) -> String {
    text
}

/// Count to `n`, reporting progress, `ms` apart.
#[tool]
async fn count(ctx: Context, n: u32, ms: u64) -> u32 {
    for i in 1..=n {
        ctx.progress(f64::from(i), None, None);
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    n
}

/// Report progress `n` times without waiting, then answer `n`.
#[tool]
async fn burst(ctx: Context, n: u32) -> u32 {
    for i in 1..=n {
        ctx.progress(f64::from(i), None, None);
    }
    n
}

fn server() -> Server {
    Server::new("http-hostile", "1.0.0")
}

/// POSTs `body` as given in the client's session.
fn post_raw(client: &Client, body: &[u8]) -> (u16, Value) {
    let session = client.session.clone().unwrap();
    let mut reply = send(
        client.addr,
        "POST",
        &[ACCEPT_BOTH, JSON_BODY, ("Mcp-Session-Id", &session)],
        body,
    );
    let status = reply.status;
    let text = reply.text();
    let value = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    };
    (status, value)
}

fn assert_alive(client: &mut Client) {
    assert_eq!(client.call("ping", json!({}))["result"], json!({}));
}

#[test]
fn every_hostile_body_gets_a_clear_error_and_the_session_keeps_serving() {
    let server = HttpServer::start(server());
    let mut client = server.client();
    client.initialize("2025-11-25");

    // Not JSON, invalid UTF-8, too deep: 400 with -32700 and a null id.
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"ping","params":{{"a":{}1{}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let bodies: Vec<Vec<u8>> = vec![
        b"{not json".to_vec(),
        b"{\"jsonrpc\":\"2.0\",".to_vec(),
        b"nul".to_vec(),
        "\u{feff}{}".as_bytes().to_vec(),
        b"\x0c".to_vec(),
        b"".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"ping\"}".to_vec(),
        b"\xc3\x28".to_vec(),
        deep.into_bytes(),
    ];
    for body in bodies {
        let (status, reply) = post_raw(&client, &body);
        assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));
        assert_eq!(reply["error"]["code"], -32700, "{reply}");
        assert_eq!(reply["id"], Value::Null);
        assert_alive(&mut client);
    }

    // JSON that is not a message: -32600; 400 when no id can be read.
    for (body, id) in [
        ("42", Value::Null),
        (r#""ping""#, Value::Null),
        ("null", Value::Null),
        ("{}", Value::Null),
        (r#"{"jsonrpc":"2.0","id":5}"#, json!(5)),
        (r#"{"jsonrpc":"2.0","id":"m","method":7}"#, json!("m")),
        (r#"{"jsonrpc":"1.0","id":6,"method":"ping"}"#, json!(6)),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            Value::Null,
        ),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, Value::Null),
        (r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#, Value::Null),
        ("[]", Value::Null),
    ] {
        let (status, reply) = post_raw(&client, body.as_bytes());
        assert_eq!(reply["error"]["code"], -32600, "{body}: {reply}");
        assert_eq!(reply["id"], id, "{body}");
        let expected = if id.is_null() { 400 } else { 200 };
        assert_eq!(status, expected, "{body}");
        assert_alive(&mut client);
    }

    // Ids of every allowed kind come back exactly as sent.
    for id in [
        "0",
        "-1",
        "9007199254740993",
        "18446744073709551615",
        r#""""#,
        r#""é \" x""#,
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        let session = client.session.clone().unwrap();
        let mut reply = send(
            client.addr,
            "POST",
            &[ACCEPT_BOTH, JSON_BODY, ("Mcp-Session-Id", &session)],
            body.as_bytes(),
        );
        assert_eq!(reply.status, 200);
        let text = reply.text();
        assert!(text.contains(&format!(r#""id":{id}"#)), "{id}: {text}");
    }

    // Unknown methods, unknown tools, malformed params: JSON-RPC errors.
    let reply = client.call("no/such", json!({}));
    assert_eq!(reply["error"]["code"], -32601);
    let reply = client.call("tools/call", json!({"name": "nope"}));
    assert_eq!(reply["error"]["code"], -32602);
    let reply = client.call("tools/call", json!({"name": "echo", "arguments": [1]}));
    assert_eq!(reply["error"]["code"], -32602);
    // A second initialize in a session: -32600.
    let reply = client.call(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}}),
    );
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert_alive(&mut client);
}

#[test]
fn a_client_that_sends_its_headers_slowly_is_cut_off() {
    let server = HttpServer::start(server().header_read_timeout(Duration::from_millis(300)));
    // Half a request, then nothing.
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n")
        .unwrap();
    let started = Instant::now();
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the connection was held for {:?}",
        started.elapsed()
    );
    // A connection that never sends a byte.
    let mut idle = TcpStream::connect(server.addr).unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let started = Instant::now();
    let _ = idle.read_to_end(&mut rest);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "an idle connection was held for {:?}",
        started.elapsed()
    );
    // Other clients are served meanwhile and after.
    let mut client = server.client();
    client.initialize("2025-11-25");
    assert_alive(&mut client);
}

#[test]
fn many_sessions_with_many_calls_each_get_every_answer_once() {
    const SESSIONS: usize = 16;
    const CALLS: usize = 40;
    let server = HttpServer::start(server());
    let addr = server.addr;
    let threads: Vec<_> = (0..SESSIONS)
        .map(|s| {
            let mut client = Client::new(addr);
            std::thread::spawn(move || {
                client.initialize("2025-11-25");
                for c in 0..CALLS {
                    let text = format!("{s}-{c}");
                    let params = if c % 5 == 0 {
                        json!({"name": "count", "arguments": {"n": 2, "ms": 1}, "_meta": {"progressToken": c}})
                    } else {
                        json!({"name": "echo", "arguments": {"text": text}})
                    };
                    let mut reply = client.request("tools/call", params);
                    assert_eq!(reply.status, 200);
                    let replies = reply.replies();
                    let responses: Vec<&Value> = replies.iter().filter(|m| m.get("id").is_some()).collect();
                    assert_eq!(responses.len(), 1, "{replies:?}");
                    let result = &responses[0]["result"];
                    if c % 5 == 0 {
                        assert_eq!(result["structuredContent"]["result"], 2, "{result}");
                        assert_eq!(replies.len(), 3, "two progress reports first: {replies:?}");
                    } else {
                        assert_eq!(result["content"][0]["text"], text);
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
}

#[test]
fn concurrent_posts_in_one_session_are_each_answered_on_their_own_stream() {
    let server = HttpServer::start(server());
    let mut client = server.client();
    client.initialize("2025-11-25");
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let mut client = client.clone();
            // Ids unique within the session, as the protocol requires.
            client.next_id = 1000 * (i + 1);
            std::thread::spawn(move || {
                let mut reply = client.request(
                    "tools/call",
                    json!({"name": "count", "arguments": {"n": 3, "ms": 20}, "_meta": {"progressToken": i}}),
                );
                let messages = reply.replies();
                // Only this request's progress, then its response.
                assert_eq!(messages.len(), 4, "{messages:?}");
                for m in &messages[..3] {
                    assert_eq!(m["params"]["progressToken"], i);
                }
                assert_eq!(messages[3]["result"]["structuredContent"]["result"], 3);
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
}

#[test]
fn a_client_that_drops_its_stream_does_not_stop_the_server() {
    let server = HttpServer::start(server());
    let mut client = server.client();
    client.initialize("2025-11-25");
    for _ in 0..20 {
        let mut reply = client.request(
            "tools/call",
            json!({"name": "count", "arguments": {"n": 50, "ms": 5}, "_meta": {"progressToken": "d"}}),
        );
        let _ = reply.next_event();
        drop(reply);
    }
    assert_alive(&mut client);
    let reply = client.call(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "still here"}}),
    );
    assert_eq!(reply["result"]["content"][0]["text"], "still here");
}

#[test]
fn a_body_sent_in_chunks_is_read_whole_and_the_limit_holds_across_chunks() {
    let server = HttpServer::start(server().max_message_size(300));
    let mut client = server.client();
    client.initialize("2025-11-25");
    let session = client.session.clone().unwrap();
    let chunked = |pieces: &[&str]| {
        let mut request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\nMcp-Session-Id: {session}\r\n\
             Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
            server.addr
        );
        for piece in pieces {
            request.push_str(&format!("{:x}\r\n{piece}\r\n", piece.len()));
        }
        request.push_str("0\r\n\r\n");
        common::http::send_raw(server.addr, request.as_bytes())
    };
    let mut reply = chunked(&[
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","#,
        r#""params":{"name":"echo","#,
        r#""arguments":{"text":"in pieces"}}}"#,
    ]);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["result"]["content"][0]["text"], "in pieces");
    let pad = "x".repeat(200);
    let mut reply = chunked(&[
        r#"{"jsonrpc":"2.0","id":2,"method":"ping","params":{"a":""#,
        &pad,
        &pad,
        r#""}}"#,
    ]);
    let status = reply.status;
    assert_eq!(status, 413, "{}", reply.text());
    assert_alive(&mut client);
}

#[test]
fn a_call_that_reports_more_than_a_stream_keeps_loses_nothing() {
    // 1,000 progress reports, past the 256 events a stream keeps: the
    // reader is attached from the start, so the call is held back, not cut.
    let server = HttpServer::start(server());
    let mut client = server.client();
    client.initialize("2025-11-25");
    // Answered where it is dispatched, or from a task of its own.
    for (tool, arguments, n) in [
        ("burst", json!({"n": 1000}), 1000),
        ("count", json!({"n": 300, "ms": 1}), 300),
    ] {
        let mut reply = client.request(
            "tools/call",
            json!({"name": tool, "arguments": arguments, "_meta": {"progressToken": "many"}}),
        );
        let messages = reply.replies();
        let progress: Vec<u64> = messages
            .iter()
            .filter_map(|m| m["params"]["progress"].as_f64())
            .map(|p| p as u64)
            .collect();
        assert_eq!(progress, (1..=n as u64).collect::<Vec<_>>(), "{tool}");
        assert_eq!(
            messages.last().unwrap()["result"]["structuredContent"]["result"],
            n
        );
    }
}
