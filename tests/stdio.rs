//! End-to-end tests: the example binaries driven over real pipes.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::Process;
use serde_json::{Value, json};

const VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

#[test]
fn weather_serves_every_legacy_version() {
    for version in VERSIONS {
        let mut server = Process::spawn(&common::weather_binary());
        let init = server.initialize(version);
        assert_eq!(init["result"]["protocolVersion"], version);
        assert_eq!(init["result"]["serverInfo"]["name"], "weather");

        let list = server.request(1, "tools/list", json!({}));
        let tools = list["result"]["tools"].as_array().expect("tools");
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, common::WEATHER_TOOLS);
        let forecast = &tools[1];
        let modern = version >= "2025-06-18";
        assert_eq!(
            forecast.get("outputSchema").is_some(),
            modern,
            "{version}: {forecast}"
        );
        assert_eq!(
            forecast.get("title").is_some(),
            modern,
            "{version}: {forecast}"
        );
        assert_eq!(
            forecast.get("annotations").is_some(),
            version >= "2025-03-26",
            "{version}: {forecast}"
        );

        let call = server.request(
            2,
            "tools/call",
            json!({"name": "get_forecast", "arguments": {"city": "Paris", "days": 2}}),
        );
        let result = &call["result"];
        assert_eq!(result["isError"], false);
        let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap())
            .expect("the text block holds the JSON");
        assert_eq!(text["days"].as_array().map(Vec::len), Some(2));
        assert_eq!(result.get("structuredContent").is_some(), modern);
        if modern {
            assert_eq!(result["structuredContent"], text);
        }

        let error = server.request(
            3,
            "tools/call",
            json!({"name": "get_forecast", "arguments": {"city": "Pari"}}),
        );
        assert_eq!(error["result"]["isError"], true);
        assert!(
            error["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("Did you mean Paris?")
        );

        let (code, rest, stderr) = server.finish();
        assert_eq!(code, Some(0), "stderr: {stderr}");
        assert!(rest.is_empty(), "{rest:?}");
    }
}

#[test]
fn bad_lines_get_errors_and_the_server_keeps_serving() {
    let mut server = Process::spawn(&common::weather_binary());
    server.initialize("2025-06-18");
    server.send_line("{not json");
    let reply = server.recv();
    assert_eq!(reply["id"], Value::Null);
    assert_eq!(reply["error"]["code"], -32700);
    server.send_line("[]");
    assert_eq!(server.recv()["error"]["code"], -32600);
    let unknown = server.request(5, "tools/call", json!({"name": "nope"}));
    assert_eq!(unknown["error"]["code"], -32602);
    assert_eq!(unknown["error"]["message"], "Unknown tool: nope");
    let invalid = server.request(
        6,
        "tools/call",
        json!({"name": "search_cities", "arguments": {"query": "", "limit": 99, "extra": 1}}),
    );
    assert_eq!(invalid["result"]["isError"], true);
    let text = invalid["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("`/limit`"), "{text}");
    assert!(text.contains("`/query`"), "{text}");
    assert!(text.contains("unknown argument `extra`"), "{text}");
    let pong = server.request(7, "ping", json!({}));
    assert_eq!(pong["result"], json!({}));
    let (code, _, stderr) = server.finish();
    assert_eq!(code, Some(0), "stderr: {stderr}");
}

#[test]
fn ten_thousand_pipelined_calls_each_get_one_response() {
    const CALLS: u64 = 10_000;
    let mut child = Command::new(common::weather_binary())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    // Write everything from another thread while reading here, as a
    // pipelining client does; neither side waits for the other.
    let writer = std::thread::spawn(move || {
        let mut out = std::io::BufWriter::new(&mut stdin);
        writeln!(
            out,
            r#"{{"jsonrpc":"2.0","id":"init","method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"flood","version":"0"}}}}}}"#
        )
        .unwrap();
        for id in 0..CALLS {
            let (tool, arguments) = match id % 3 {
                0 => ("search_cities", r#"{"query":"san"}"#),
                1 => ("current_conditions", r#"{"city":"Tokyo"}"#),
                _ => ("get_forecast", r#"{"city":"Lima","days":1}"#),
            };
            writeln!(
                out,
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
            )
            .unwrap();
        }
        out.flush().unwrap();
        drop(out);
        drop(stdin); // EOF: the server finishes and exits
    });
    let mut seen: HashMap<u64, usize> = HashMap::new();
    for line in BufReader::new(stdout).lines() {
        let message: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if message["id"] == "init" {
            continue;
        }
        assert_eq!(message["result"]["isError"], false, "{message}");
        let id = message["id"].as_u64().expect("integer id");
        *seen.entry(id).or_default() += 1;
    }
    writer.join().unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(seen.len() as u64, CALLS, "every call answered");
    assert!(seen.values().all(|&n| n == 1), "no call answered twice");
}

#[test]
fn cancelled_calls_get_no_response_and_progress_stops() {
    let mut server = Process::spawn(&common::progress_binary());
    server.initialize("2025-06-18");
    server.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "count_slowly", "arguments": {"to": 1000, "delay_ms": 5},
        "_meta": {"progressToken": "count"}}}),
    );
    // Wait for the call to be under way, then cancel it.
    let first = server.recv();
    assert_eq!(first["method"], "notifications/progress");
    assert_eq!(first["params"]["progressToken"], "count");
    server.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1, "reason": "user"}}),
    );
    server.send(json!({"jsonrpc": "2.0", "id": "after", "method": "ping"}));
    // Progress sent before the cancel arrived may come first; nothing else.
    let mut pong = server.recv();
    while pong["method"] == "notifications/progress" {
        pong = server.recv();
    }
    assert_eq!(pong["id"], "after");
    std::thread::sleep(Duration::from_millis(100));
    let (code, rest, stderr) = server.finish();
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert!(
        rest.iter()
            .all(|m| m["id"] != 1 && m["method"] != "notifications/progress"),
        "nothing for the cancelled call after the cancel was handled: {rest:?}"
    );
}

#[test]
fn eof_lets_calls_in_flight_finish() {
    let mut server = Process::spawn(&common::progress_binary());
    server.initialize("2025-06-18");
    server.send(
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "count_slowly", "arguments": {"to": 3, "delay_ms": 50}}}),
    );
    let (code, rest, stderr) = server.finish();
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["id"], 9);
    assert_eq!(rest[0]["result"]["content"][0]["text"], "counted to 3");
}

#[test]
fn a_closed_stdout_ends_the_server_quietly() {
    let mut child = Command::new(common::weather_binary())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take()); // the client stops reading
    let mut stdin = child.stdin.take().unwrap();
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    // Writes fail once the server has gone; that is the point.
    for _ in 0..100 {
        if writeln!(stdin, "{request}").is_err() {
            break;
        }
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "exit {:?}, stderr: {stderr}",
        output.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}
