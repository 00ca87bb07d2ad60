//! A hostile client against the real `hostile_target` example binary over
//! pipes: every malformed input for which JSON-RPC 2.0
//! (<https://www.jsonrpc.org/specification>, "Error object") and the MCP
//! specification (<https://modelcontextprotocol.io/specification/2025-11-25/basic>,
//! "Lifecycle" and "Tools") name an error, invalid
//! UTF-8, a 100 MB line, nesting 100,000 deep, ids of every JSON type,
//! duplicate ids in flight, responses nobody asked for, a flood of 100,000
//! pipelined calls, cancellation before and after the end of a call, stdin
//! closed mid-call and stdout closed by the client. After each, the server
//! answers a ping, or, where the client went away, exits 0 without a panic.
//! The last test checks that panic payloads, serialization errors and file
//! paths never reach the client.

mod common;

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::Process;
use common::results::reply_text;
use serde_json::{Value, json};

fn target() -> Process {
    Process::spawn_with_env(
        &common::hostile_target_binary(),
        &[("RUST_BACKTRACE", "0"), ("RUST_LOG", "warn")],
    )
}

fn initialized(version: &str) -> Process {
    let mut server = target();
    let init = server.initialize(version);
    assert_eq!(init["result"]["protocolVersion"], version);
    server
}

/// Sends a raw line and returns the next message.
fn exchange(server: &mut Process, line: &str) -> Value {
    server.send_line(line);
    server.recv()
}

fn call(id: Value, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

fn assert_error(reply: &Value, id: &Value, code: i64) {
    assert_eq!(&reply["id"], id, "{reply}");
    assert_eq!(reply["error"]["code"], code, "{reply}");
    assert!(reply["error"]["message"].is_string(), "{reply}");
    assert!(reply.get("result").is_none(), "{reply}");
}

/// Every panic in stderr is one of the deliberate ones of the `panic`
/// tools: the runtime itself never panicked.
fn assert_no_runtime_panic(stderr: &str) {
    for line in stderr.lines().filter(|l| l.contains("panicked at")) {
        assert!(
            line.contains("examples/hostile_target.rs"),
            "a panic outside the deliberate ones: {line}\n{stderr}"
        );
    }
}

/// Closes stdin and checks a clean exit: code 0, no runtime panic.
fn assert_clean_exit(server: Process) -> Vec<Value> {
    let (code, rest, stderr) = server.finish();
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert_no_runtime_panic(&stderr);
    rest
}

// ---------------------------------------------------------------------------
// The errors JSON-RPC 2.0 and the MCP specification name, input by input

#[test]
fn every_row_of_the_error_table() {
    let mut server = target();

    // Lifecycle: a request before initialize; ping at any time.
    let reply = exchange(
        &mut server,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    );
    assert_error(&reply, &json!(1), -32600);
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not initialized")
    );
    let reply = exchange(
        &mut server,
        r#"{"jsonrpc":"2.0","id":2,"method":"server/discover"}"#,
    );
    // Before `initialize`, discover is a 2026-07-28 request, without the
    // `_meta` that era requires.
    assert_error(&reply, &json!(2), -32602);
    server.assert_alive("p0");
    server.initialize("2025-06-18");
    let reply = server.request(
        3,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}}),
    );
    assert_error(&reply, &json!(3), -32600);
    server.assert_alive("p1");

    // Not valid JSON, invalid UTF-8, nesting deeper than the limit: -32700.
    for line in [
        "{not json",
        "{\"jsonrpc\":\"2.0\",",
        "nul",
        "\u{feff}{}",
        "\x0c",
    ] {
        let reply = exchange(&mut server, line);
        assert_error(&reply, &Value::Null, -32700);
        server.assert_alive("p2");
    }
    server.send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"ping\"}\n");
    assert_error(&server.recv(), &Value::Null, -32700);
    server.send_bytes(b"\xc3\x28\n");
    assert_error(&server.recv(), &Value::Null, -32700);
    server.assert_alive("p3");
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"ping","params":{{"a":{}1{}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    assert_error(&exchange(&mut server, &deep), &Value::Null, -32700);
    server.assert_alive("p4");

    // JSON that is not a message: -32600, with the id when it can be read.
    for (line, id) in [
        ("42", Value::Null),
        (r#""ping""#, Value::Null),
        ("null", Value::Null),
        ("{}", Value::Null),
        (r#"{"jsonrpc":"2.0","id":5}"#, json!(5)),
        (r#"{"jsonrpc":"2.0","id":"m","method":7}"#, json!("m")),
        (r#"{"jsonrpc":"1.0","id":6,"method":"ping"}"#, json!(6)),
        (r#"{"id":7,"method":"ping"}"#, json!(7)),
        (
            r#"{"jsonrpc":"2.0","id":8,"id":9,"method":"ping"}"#,
            Value::Null,
        ),
    ] {
        assert_error(&exchange(&mut server, line), &id, -32600);
        server.assert_alive("p5");
    }

    // An array outside 2025-03-26: -32600.
    assert_error(&exchange(&mut server, "[]"), &Value::Null, -32600);
    assert_error(
        &exchange(
            &mut server,
            r#"[{"jsonrpc":"2.0","id":10,"method":"ping"}]"#,
        ),
        &Value::Null,
        -32600,
    );
    server.assert_alive("p6");

    // `id` null, or neither a string nor an integer: -32600 with a null id.
    for id in ["null", "1.5", "1e2", "true", "{}", "[1]"] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        assert_error(&exchange(&mut server, &line), &Value::Null, -32600);
        server.assert_alive("p7");
    }

    // Unknown method with an id: -32601 naming it.
    let reply = exchange(
        &mut server,
        r#"{"jsonrpc":"2.0","id":11,"method":"no/such"}"#,
    );
    assert_error(&reply, &json!(11), -32601);
    assert_eq!(reply["error"]["data"]["method"], "no/such");

    // Unknown notifications and malformed notification bodies: ignored.
    for line in [
        r#"{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}"#,
        r#"{"jsonrpc":"2.0","method":"no/such"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[]}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":"x"}"#,
    ] {
        server.send_line(line);
        assert!(server.assert_alive("p8").is_empty(), "{line}");
    }

    // tools/call naming no known tool, or with malformed params: -32602.
    let reply = server.request(12, "tools/call", json!({"name": "nope"}));
    assert_error(&reply, &json!(12), -32602);
    assert_eq!(reply["error"]["message"], "Unknown tool: nope");
    for params in [
        json!([]),
        json!("echo"),
        json!({}),
        json!({"name": 5}),
        json!({"name": "echo", "arguments": [1]}),
        json!({"name": "echo", "arguments": "text"}),
    ] {
        let reply = server.request(13, "tools/call", params.clone());
        assert_error(&reply, &json!(13), -32602);
        server.assert_alive("p9");
    }

    // Arguments failing the schema: a tool error listing every violation.
    let reply = server.request(
        14,
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 99999999, "speed": 1}}),
    );
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    let text = reply_text(&reply);
    assert!(text.contains("`/ms`"), "{text}");
    assert!(text.contains("unknown argument `speed`"), "{text}");

    // Err from the tool: its text.
    let reply = server.request(
        15,
        "tools/call",
        json!({"name": "fail", "arguments": {"message": "no luck"}}),
    );
    assert_eq!(reply["result"]["isError"], true);
    assert_eq!(reply_text(&reply), "no luck");

    // A panic: a generic tool error (the payload is checked in the
    // confidentiality test below).
    for tool in ["panic", "panic_blocking"] {
        let reply = server.request(
            16,
            "tools/call",
            json!({"name": tool, "arguments": {"message": "boom"}}),
        );
        assert_eq!(reply["result"]["isError"], true, "{reply}");
        assert!(reply_text(&reply).contains("internal error"), "{reply}");
        server.assert_alive("p10");
    }

    // Past its timeout: a tool error.
    let reply = server.request(
        17,
        "tools/call",
        json!({"name": "deadline", "arguments": {"ms": 5000}}),
    );
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert_eq!(reply_text(&reply), "timed out after 200ms");

    // An internal failure of the tool's output (serialization): a tool
    // error without internals.
    let reply = server.request(18, "tools/call", json!({"name": "bad_keys"}));
    assert_eq!(reply["result"]["isError"], true, "{reply}");

    server.assert_alive("p11");
    assert_clean_exit(server);
}

#[test]
fn batches_in_2025_03_26() {
    let mut server = initialized("2025-03-26");
    let reply = exchange(
        &mut server,
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}},{"jsonrpc":"2.0","id":3,"method":"no/such"},7]"#,
    );
    let items = reply.as_array().expect("an array");
    assert_eq!(items.len(), 4, "{reply}");
    assert_eq!(items[0]["id"], 1);
    assert_eq!(items[1]["result"]["content"][0]["text"], "b");
    assert_eq!(items[2]["error"]["code"], -32601);
    assert_error(&items[3], &Value::Null, -32600);
    assert_error(&exchange(&mut server, "[]"), &Value::Null, -32600);
    server.send_line(r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#);
    assert!(server.assert_alive("p").is_empty());
    assert_clean_exit(server);
}

/// Found by the `arguments` fuzz target: JSON Schema counts `3.0` and `1e1`
/// as integers, so they passed validation, and then serde refused them for
/// an integer parameter ("invalid type: floating point `3.0`, expected
/// u64"): a client that followed the schema was turned away.
#[test]
fn integral_floats_are_accepted_for_integer_parameters() {
    let mut server = initialized("2025-06-18");
    for (ms, want) in [
        (json!(3.0), "slept 3ms"),
        (json!(1e1), "slept 10ms"),
        (json!(-0.0), "slept 0ms"),
    ] {
        let reply = server.request(
            1,
            "tools/call",
            json!({"name": "slow", "arguments": {"ms": ms}}),
        );
        assert_eq!(reply["result"]["isError"], false, "{reply}");
        assert_eq!(reply_text(&reply), want);
    }
    // A fraction is still refused, by the validator, with the path.
    let reply = server.request(
        2,
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 2.5}}),
    );
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert!(reply_text(&reply).contains("`/ms`"), "{reply}");
    server.assert_alive("p");
    assert_clean_exit(server);
}

// ---------------------------------------------------------------------------
// Size and depth

#[test]
fn a_100_mb_line_is_skipped_without_buffering_it() {
    const SIZE: usize = 100 * 1024 * 1024;
    let mut server = initialized("2025-06-18");
    let baseline = server.status_kb("VmHWM").expect("VmHWM");
    let head = br#"{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"echo","arguments":{"text":""#;
    let chunk = vec![b'x'; 1024 * 1024];
    server.send_bytes(head);
    let mut written = head.len();
    while written < SIZE {
        server.stdin().write_all(&chunk).expect("write");
        written += chunk.len();
    }
    server.send_bytes(b"\"}}}\n");
    let reply = server.recv();
    assert_error(&reply, &Value::Null, -32600);
    assert_eq!(reply["error"]["message"], "message too large");
    assert_eq!(reply["error"]["data"]["limitBytes"], 16 * 1024 * 1024);
    server.assert_alive("after-big");
    let peak = server.status_kb("VmHWM").expect("VmHWM");
    assert!(
        peak < 60 * 1024,
        "the server's peak RSS reached {peak} kB (from {baseline} kB) for a {SIZE}-byte line"
    );
    eprintln!("peak RSS after a {SIZE}-byte line: {peak} kB (before: {baseline} kB)");
    // A normal call still works afterwards.
    server.send(call(json!(1), "echo", json!({"text": "small"})));
    assert_eq!(reply_text(&server.recv()), "small");

    // The same line, unterminated, at EOF: still answered.
    server.send_bytes(head);
    for _ in 0..20 {
        server.stdin().write_all(&chunk).expect("write");
    }
    let rest = assert_clean_exit(server);
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["error"]["message"], "message too large");
}

#[test]
fn nesting_100000_levels_deep() {
    let mut server = initialized("2025-06-18");
    const DEPTH: usize = 100_000;
    let arrays = "[".repeat(DEPTH) + &"]".repeat(DEPTH);
    assert_error(&exchange(&mut server, &arrays), &Value::Null, -32700);
    server.assert_alive("p1");
    let objects = r#"{"a":"#.repeat(DEPTH) + "1" + &"}".repeat(DEPTH);
    assert_error(&exchange(&mut server, &objects), &Value::Null, -32700);
    server.assert_alive("p2");
    let in_params = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{}"x"{}}}}}}}"#,
        "[".repeat(DEPTH),
        "]".repeat(DEPTH)
    );
    assert_error(&exchange(&mut server, &in_params), &Value::Null, -32700);
    // Unbalanced: opened and never closed.
    assert_error(
        &exchange(&mut server, &"[".repeat(DEPTH)),
        &Value::Null,
        -32700,
    );
    // Deep but inside a string: fine.
    let in_string = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}}}}}}"#,
        "[".repeat(5000)
    );
    assert_eq!(reply_text(&exchange(&mut server, &in_string)).len(), 5000);
    server.assert_alive("p3");
    assert_clean_exit(server);
}

// ---------------------------------------------------------------------------
// Ids

#[test]
fn ids_of_every_json_type() {
    let mut server = initialized("2025-06-18");
    // Valid ids, echoed exactly (compared as text).
    for id in [
        "0",
        "-1",
        "9007199254740993",
        "18446744073709551615",
        "18446744073709551616",
        "-123456789012345678901234567890",
        r#""""#,
        r#""abc""#,
        r#""\u0000\ud83d\ude00\n""#,
        r#""42""#,
    ] {
        for method in ["ping", "no/such"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#);
            server.send_line(&line);
            let raw = server_raw_id(&mut server);
            assert_eq!(raw, id, "{line}");
        }
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"t"}}}}}}"#
        );
        server.send_line(&line);
        assert_eq!(server_raw_id(&mut server), id);
    }
    // Invalid ids: -32600 with a null id.
    for id in [
        "null",
        "true",
        "false",
        "1.0",
        "-0.5",
        "1E3",
        "{}",
        r#"{"id":1}"#,
        "[]",
        "[1]",
    ] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        assert_error(&exchange(&mut server, &line), &Value::Null, -32600);
    }
    server.assert_alive("p");
    assert_clean_exit(server);
}

/// The next line's `id` member as raw JSON text (a `Value` would lose
/// integers beyond 64 bits and the spelling of escapes).
fn server_raw_id(server: &mut Process) -> String {
    #[derive(serde::Deserialize)]
    struct Id<'a> {
        #[serde(borrow)]
        id: &'a serde_json::value::RawValue,
    }
    let line = server.recv_raw();
    let id: Id<'_> = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
    id.id.get().to_owned()
}

#[test]
fn duplicate_ids_in_flight() {
    let mut server = initialized("2025-06-18");
    server.send(call(json!(7), "slow", json!({"ms": 400})));
    server.send(call(json!(7), "echo", json!({"text": "again"})));
    let refused = server.recv();
    assert_error(&refused, &json!(7), -32600);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already in use")
    );
    // The same id as a string is another id.
    server.send(call(json!("7"), "echo", json!({"text": "string"})));
    assert_eq!(reply_text(&server.recv()), "string");
    let first = server.recv();
    assert_eq!(first["id"], 7);
    assert_eq!(reply_text(&first), "slept 400ms");
    // Free again once answered.
    server.send(call(json!(7), "echo", json!({"text": "reused"})));
    assert_eq!(reply_text(&server.recv()), "reused");
    server.assert_alive("p");
    assert_clean_exit(server);
}

#[test]
fn responses_to_requests_the_server_never_sent_are_ignored() {
    let mut server = initialized("2025-06-18");
    for line in [
        r#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"no"}}"#,
        r#"{"jsonrpc":"2.0","id":null,"result":null}"#,
        r#"{"jsonrpc":"2.0","id":5,"result":{"content":[]},"error":{"code":1,"message":"both"}}"#,
    ] {
        server.send_line(line);
        assert!(server.assert_alive("p").is_empty(), "{line}");
    }
    assert_clean_exit(server);
}

// ---------------------------------------------------------------------------
// Load

#[test]
fn a_flood_of_100000_pipelined_calls_each_answered_once() {
    const CALLS: u64 = 100_000;
    let mut server = initialized("2025-06-18");
    let mut stdin = server.take_stdin();
    let writer = std::thread::spawn(move || {
        let mut out = BufWriter::with_capacity(1 << 16, &mut stdin);
        for id in 0..CALLS {
            match id % 10 {
                0 => writeln!(out, r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#),
                1 => writeln!(out, r#"{{"jsonrpc":"2.0","id":{id},"method":"no/such"}}"#),
                2 => writeln!(
                    out,
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"fail","arguments":{{"message":"m{id}"}}}}}}"#
                ),
                _ => writeln!(
                    out,
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"t{id}"}}}}}}"#
                ),
            }
            .expect("write");
        }
        out.flush().expect("flush");
        drop(out);
        drop(stdin); // EOF: the server answers the rest and exits
    });
    let started = Instant::now();
    let mut seen: HashMap<u64, u32> = HashMap::new();
    while let Some(message) = server.try_recv(Duration::from_secs(30)) {
        let id = message["id"].as_u64().expect("an integer id");
        match id % 10 {
            0 => assert_eq!(message["result"], json!({}), "{message}"),
            1 => assert_eq!(message["error"]["code"], -32601, "{message}"),
            2 => assert_eq!(reply_text(&message), format!("m{id}"), "{message}"),
            _ => assert_eq!(reply_text(&message), format!("t{id}"), "{message}"),
        }
        *seen.entry(id).or_default() += 1;
        if seen.len() as u64 == CALLS {
            break;
        }
    }
    writer.join().expect("the writer");
    let elapsed = started.elapsed();
    assert_eq!(seen.len() as u64, CALLS, "every call answered");
    assert!(seen.values().all(|&n| n == 1), "no call answered twice");
    let rest = assert_clean_exit(server);
    assert!(rest.is_empty(), "{} more lines after the flood", rest.len());
    eprintln!("100000 pipelined calls answered in {elapsed:?}");
}

// ---------------------------------------------------------------------------
// Cancellation

#[test]
fn calls_cancelled_before_and_after_they_finish() {
    let mut server = initialized("2025-06-18");
    let cancel = |id: Value| {
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": id, "reason": "test"}})
    };

    // Cancelled while running: no response, and progress stops.
    server.send(json!({"jsonrpc": "2.0", "id": "c1", "method": "tools/call",
        "params": {"name": "slow", "arguments": {"ms": 10000}, "_meta": {"progressToken": 1}}}));
    let progress = server.recv();
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    server.send(cancel(json!("c1")));
    let before = server.assert_alive("p1");
    assert!(
        before
            .iter()
            .all(|m| m["method"] == "notifications/progress"),
        "{before:?}"
    );
    // A blocking call cancelled: its answer is dropped.
    server.send(call(json!("c2"), "slow_blocking", json!({"ms": 300})));
    server.send(cancel(json!("c2")));
    assert!(server.assert_alive("p2").is_empty());

    // Cancelled after it finished: nothing happens.
    server.send(call(json!("c3"), "echo", json!({"text": "done"})));
    assert_eq!(reply_text(&server.recv()), "done");
    server.send(cancel(json!("c3")));
    assert!(server.assert_alive("p3").is_empty());

    // Cancelled before it was sent: the cancel is ignored, the call answered.
    server.send(cancel(json!("c4")));
    server.send(call(json!("c4"), "echo", json!({"text": "later"})));
    assert_eq!(reply_text(&server.recv()), "later");

    // An unknown id, a non-call request id: ignored.
    server.send(cancel(json!(12345)));
    server.send(cancel(json!("p4")));
    server.assert_alive("p4");

    // Nothing more from the cancelled calls, even after they would have ended.
    std::thread::sleep(Duration::from_millis(400));
    let rest = assert_clean_exit(server);
    assert!(rest.is_empty(), "{rest:?}");
}

// ---------------------------------------------------------------------------
// The client going away

#[test]
fn stdin_closed_mid_call_lets_the_call_finish() {
    let mut server = initialized("2025-06-18");
    server.send(call(json!(1), "slow", json!({"ms": 300})));
    server.send(call(json!(2), "slow_blocking", json!({"ms": 300})));
    let rest = assert_clean_exit(server);
    let mut ids: Vec<i64> = rest.iter().filter_map(|m| m["id"].as_i64()).collect();
    ids.sort();
    assert_eq!(ids, [1, 2], "{rest:?}");
}

#[test]
fn stdin_closed_with_a_call_past_the_grace_period_exits_promptly() {
    let mut server = Process::spawn_with_env(
        &common::hostile_target_binary(),
        &[
            ("RUST_BACKTRACE", "0"),
            ("RUST_LOG", "warn"),
            ("HOSTILE_GRACE_MS", "300"),
        ],
    );
    server.initialize("2025-06-18");
    server.send(call(json!(1), "slow", json!({"ms": 60000})));
    server.send(call(json!(2), "echo", json!({"text": "quick"})));
    assert_eq!(reply_text(&server.recv()), "quick");
    let started = Instant::now();
    server.close_stdin();
    let (code, stderr) = server.wait_exit(Duration::from_secs(10));
    assert_eq!(code, Some(0), "{stderr}");
    assert_no_runtime_panic(&stderr);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(stderr.contains("abandoned"), "{stderr}");
}

/// Found by this battery: a synchronous tool still running after the grace
/// period kept the process alive until it returned (the Tokio runtime waits
/// for its blocking pool when dropped), however long that took.
#[test]
fn stdin_closed_with_a_blocking_call_past_the_grace_period_exits_promptly() {
    let mut server = Process::spawn_with_env(
        &common::hostile_target_binary(),
        &[
            ("RUST_BACKTRACE", "0"),
            ("RUST_LOG", "warn"),
            ("HOSTILE_GRACE_MS", "300"),
        ],
    );
    server.initialize("2025-06-18");
    server.send(call(json!(1), "slow_blocking", json!({"ms": 8000})));
    std::thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    server.close_stdin();
    let (code, stderr) = server.wait_exit(Duration::from_secs(20));
    assert_eq!(code, Some(0), "{stderr}");
    assert_no_runtime_panic(&stderr);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "exit took {:?}",
        started.elapsed()
    );
    assert!(
        stderr.contains("synchronous tool calls are still running"),
        "{stderr}"
    );
}

#[test]
fn println_in_a_tool_goes_to_stderr_not_into_the_protocol() {
    let mut server = initialized("2025-06-18");
    server.send(call(
        json!(1),
        "chatty",
        json!({"text": "hello from println"}),
    ));
    // Every line of stdout is parsed as a message: a stray line would fail here.
    assert_eq!(reply_text(&server.recv()), "printed hello from println");
    let pong = exchange(&mut server, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    assert_eq!(pong["result"], json!({}), "{pong}");
    let (code, rest, stderr) = server.finish();
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert!(rest.is_empty(), "{rest:?}");
    assert!(stderr.contains("hello from println"), "{stderr}");
}

#[test]
fn stdout_closed_by_the_client_ends_the_server_quietly() {
    let mut child = Command::new(common::hostile_target_binary())
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-06-18"}}}}"#
    )
    .unwrap();
    // A call under way, and a large answer in the pipe, when stdout goes.
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"slow","arguments":{{"ms":200}}}}}}"#
    )
    .unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"big","arguments":{{"bytes":4000000}}}}}}"#
    )
    .unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_millis(50));
    drop(child.stdout.take());
    let started = Instant::now();
    for id in 3..1000 {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        if writeln!(stdin, "{line}").is_err() {
            break; // the server has gone: that is the point
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

// ---------------------------------------------------------------------------
// Confidentiality

#[test]
fn panics_and_internal_errors_never_reach_the_client() {
    const SECRET: &str = "hunter2-TOPSECRET";
    const PATH: &str = "/home/alice/.ssh/id_ed25519";
    let mut server = initialized("2025-06-18");
    let mut replies = Vec::new();
    for (id, tool, arguments) in [
        (
            1,
            "panic",
            json!({"message": format!("db password {SECRET} in {PATH}")}),
        ),
        (
            2,
            "panic_blocking",
            json!({"message": format!("{SECRET} at {PATH}")}),
        ),
        (3, "bad_output", json!({"secret": SECRET})),
        (4, "bad_keys", json!({})),
    ] {
        let reply = server.request(
            id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        );
        assert_eq!(reply["result"]["isError"], true, "{reply}");
        assert_eq!(
            reply_text(&reply),
            format!("the tool `{tool}` failed with an internal error"),
            "{reply}"
        );
        replies.push(reply);
    }
    // The tool's own Err text is the one thing that does reach the client.
    let own = server.request(
        5,
        "tools/call",
        json!({"name": "fail", "arguments": {"message": format!("{SECRET} is mine to tell")}}),
    );
    assert_eq!(reply_text(&own), format!("{SECRET} is mine to tell"));
    replies.extend(server.assert_alive("p"));
    let (code, rest, stderr) = server.finish();
    assert_eq!(code, Some(0), "{stderr}");
    replies.extend(rest);
    for reply in &replies {
        let text = reply.to_string();
        for leak in [
            SECRET,
            PATH,
            "/etc/hostile",
            "secrets.toml",
            "hostile_target.rs",
            ".rs:",
            "panicked",
            "key must be a string",
            "cannot serialize",
        ] {
            assert!(!text.contains(leak), "{leak:?} reached the client: {text}");
        }
    }
    // They went to the log instead.
    assert!(stderr.contains(SECRET), "{stderr}");
    assert!(
        stderr.contains("tool output could not be serialized"),
        "{stderr}"
    );
    assert!(stderr.contains("key must be a string"), "{stderr}");
}
