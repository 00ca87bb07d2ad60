//! Flow under load: the order of the output, and backpressure that still
//! hears `ping` and `notifications/cancelled` while calls wait for a slot.
//! The real example binaries over real pipes, then the in-process
//! TestClient with tools gated by the test.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::Process;
use common::step::within;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Server, State, tool};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

fn initialize_line(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "flow", "version": "0"}
    }})
    .to_string()
}

/// `initialize`, `logging/setLevel` and 200 `get_forecast` calls with
/// progress tokens, in one write: nothing may come out ahead of a message
/// made before it. The initialize response is made before anything else is
/// read; the setLevel response before any call starts; each call's first
/// progress report when the call is first run, in the order the calls were
/// read; a call's result after its progress.
#[test]
fn output_keeps_the_order_in_which_it_was_made() {
    const CALLS: u64 = 200;
    let mut input = vec![
        initialize_line(0),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        json!({"jsonrpc": "2.0", "id": "level", "method": "logging/setLevel", "params": {"level": "debug"}}).to_string(),
    ];
    for i in 1..=CALLS {
        input.push(
            json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
                "name": "get_forecast",
                "arguments": {"city": "Paris"},
                "_meta": {"progressToken": i}
            }})
            .to_string(),
        );
    }
    let mut server = Process::spawn(&common::weather_binary());
    let mut stdin = server.take_stdin();
    let all = input.join("\n") + "\n";
    let writer = std::thread::spawn(move || stdin.write_all(all.as_bytes()));

    let mut output = Vec::new();
    let mut results = 0;
    while results < CALLS {
        let message = server.recv();
        if message.get("result").is_some() && message["id"].as_u64().is_some_and(|id| id > 0) {
            results += 1;
        }
        output.push(message);
    }
    writer.join().unwrap().expect("the whole input was written");

    assert_eq!(
        output[0]["id"], 0,
        "the initialize response comes first, not {}",
        output[0]
    );
    assert_eq!(
        output[1]["id"], "level",
        "the setLevel response comes second, not {}",
        output[1]
    );
    // Where each call's first progress report and its result are.
    let mut first_progress = HashMap::new();
    let mut result_at = HashMap::new();
    for (line, message) in output.iter().enumerate() {
        if message["method"] == "notifications/progress" {
            let token = message["params"]["progressToken"].as_u64().unwrap();
            first_progress.entry(token).or_insert(line);
        } else if let Some(id) = message["id"].as_u64().filter(|&id| id > 0) {
            assert!(
                result_at.insert(id, line).is_none(),
                "call {id} answered twice"
            );
        }
    }
    for i in 1..=CALLS {
        let progress = first_progress[&i];
        assert!(
            progress < result_at[&i],
            "call {i}'s result (line {}) came before its progress (line {progress})",
            result_at[&i] + 1,
        );
        if i > 1 {
            assert!(
                first_progress[&(i - 1)] < progress,
                "call {i} was read after call {}, but its first progress report came out \
                 first (line {} before line {})",
                i - 1,
                progress + 1,
                first_progress[&(i - 1)] + 1,
            );
        }
    }
}

/// 1,100 calls that would run for hours, more than the 1,024 slots, then a
/// `ping` and a cancellation of each: the ping is answered while calls wait
/// for a slot, every call is cancelled (the waiting ones never run), and a
/// call made afterwards gets a slot at once.
#[test]
fn cancellations_and_pings_get_through_while_calls_wait_for_a_slot() {
    const CALLS: u64 = 1_100;
    let mut input = vec![initialize_line(0)];
    for i in 1..=CALLS {
        input.push(
            json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
                "name": "count_slowly",
                "arguments": {"to": 1000, "delay_ms": 10_000},
                "_meta": {"progressToken": i}
            }})
            .to_string(),
        );
    }
    input.push(json!({"jsonrpc": "2.0", "id": "ping", "method": "ping"}).to_string());
    for i in 1..=CALLS {
        input.push(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": i, "reason": "changed my mind"}})
            .to_string(),
        );
    }
    input.push(
        json!({"jsonrpc": "2.0", "id": "quick", "method": "tools/call", "params": {
            "name": "count_slowly", "arguments": {"to": 1, "delay_ms": 1}
        }})
        .to_string(),
    );
    let mut server = Process::spawn_with_env(&common::progress_binary(), &[("RUST_LOG", "warn")]);
    let mut stdin = server.take_stdin();
    let all = input.join("\n") + "\n";
    // A thread of its own: a server that stops reading must fail the test
    // by its timeouts, not hang it in a write.
    let writer = std::thread::spawn(move || {
        let written = stdin.write_all(all.as_bytes());
        (written, stdin)
    });

    let init = server.recv();
    assert_eq!(init["id"], 0, "{init}");
    // One deadline for the lot: the calls' own progress reports (every
    // 10 s, were they left running) must not keep the test waiting.
    let deadline = Instant::now() + Duration::from_secs(30);
    let before_ping = recv_until_deadline(&mut server, "ping", deadline);
    let after_ping = recv_until_deadline(&mut server, "quick", deadline);
    let quick = after_ping.last().unwrap();
    assert_eq!(
        quick["result"]["content"][0]["text"], "counted to 1",
        "{quick}"
    );
    for message in before_ping.iter().chain(&after_ping) {
        let about_a_cancelled_call =
            message["id"].is_u64() || message["params"]["progressToken"].is_u64();
        assert!(
            !about_a_cancelled_call,
            "nothing comes of a cancelled call: {message}"
        );
    }
    let (written, stdin) = writer.join().unwrap();
    written.expect("the whole input was written");
    drop(stdin);
    // Nothing is left running: the server exits at EOF without using up
    // its shutdown grace period on the cancelled calls, and says nothing
    // more about them.
    let (code, rest, stderr) = server.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(rest.is_empty(), "after EOF: {rest:?}");
    assert!(!stderr.contains("abandoned"), "{stderr}");
}

/// Small requests with large replies, from a client that does not read
/// its replies for a while: reading pauses while the output is full,
/// instead of the replies to a whole block of input piling up in memory
/// (600 replies of 64 KiB fit in one 64 KiB block of these requests).
#[test]
fn replies_the_client_has_not_read_yet_do_not_pile_up() {
    const CALLS: usize = 2_000;
    let mut child = Command::new(common::hostile_target_binary())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the server");
    let mut input = initialize_line(0) + "\n";
    for i in 1..=CALLS {
        input += &json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                         "params": {"name": "big", "arguments": {"bytes": 65_536}}})
        .to_string();
        input.push('\n');
    }
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    // Not reading: the server's output fills up, and it must stop reading
    // rather than queue what it cannot write.
    std::thread::sleep(Duration::from_secs(1));
    let peak = common::status_kb(child.id(), "VmHWM").expect("VmHWM");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut answered = 0;
    for line in stdout.lines() {
        let reply: Value = serde_json::from_str(&line.expect("a line")).expect("JSON");
        if reply["id"] != 0 {
            let text = reply["result"]["content"][0]["text"].as_str();
            assert_eq!(text.map(str::len), Some(65_536), "call {}", reply["id"]);
        }
        answered += 1;
        if answered == CALLS + 1 {
            break;
        }
    }
    assert_eq!(answered, CALLS + 1);
    writer.join().unwrap().expect("the whole input was written");
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        peak < 24 * 1024,
        "the server's peak RSS reached {peak} kB while its replies were not read"
    );
}

/// Every message up to the response with this id, which must come before
/// `deadline`.
fn recv_until_deadline(server: &mut Process, id: &str, deadline: Instant) -> Vec<Value> {
    let mut messages = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Some(message) = server.try_recv(left) else {
            panic!(
                "no response to {id:?} in time; {} other messages came",
                messages.len()
            );
        };
        let done = message["id"] == id;
        messages.push(message);
        if done {
            return messages;
        }
    }
}

// ---------------------------------------------------------------------------
// In process: tools that wait for the test to let them finish.

/// Lets `gated` calls finish, one permit each.
struct Gate {
    open: Semaphore,
    started: Mutex<Vec<u64>>,
}

impl Gate {
    fn closed() -> std::sync::Arc<Gate> {
        std::sync::Arc::new(Gate {
            open: Semaphore::new(0),
            started: Mutex::default(),
        })
    }
}

/// Records that it started, then waits for the test to open the gate.
#[tool]
async fn gated(
    /// Which call this is.
    n: u64,
    gate: State<Gate>,
) -> String {
    gate.started.lock().unwrap().push(n);
    gate.open.acquire().await.expect("the gate stays").forget();
    format!("done {n}")
}

fn gated_call(n: u64) -> Value {
    json!({"name": "gated", "arguments": {"n": n}})
}

async fn wait_for_started(gate: &Gate, count: usize) {
    for _ in 0..1000 {
        if gate.started.lock().unwrap().len() >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!(
        "{count} calls never started: {:?}",
        gate.started.lock().unwrap()
    );
}

#[tokio::test]
async fn calls_beyond_the_slots_wait_and_start_in_arrival_order() {
    let gate = Gate::closed();
    let server = Server::new("flow", "0")
        .shared_state(std::sync::Arc::clone(&gate))
        .max_in_flight(2);
    let mut client = TestClient::connect(server).await.unwrap();
    let mut ids = Vec::new();
    for n in 1..=5 {
        ids.push(client.send_request("tools/call", gated_call(n)).await);
    }
    wait_for_started(&gate, 2).await;
    // Three calls wait for a slot, and the connection still answers.
    within(client.request("ping", json!({}))).await.unwrap();
    assert_eq!(*gate.started.lock().unwrap(), [1, 2]);
    gate.open.add_permits(5);
    for (n, id) in (1..=5).zip(ids) {
        let result = within(client.response(id)).await.unwrap();
        assert_eq!(result["content"][0]["text"], format!("done {n}"));
    }
    assert_eq!(*gate.started.lock().unwrap(), [1, 2, 3, 4, 5]);
}

#[tokio::test]
async fn a_waiting_call_that_is_cancelled_never_runs() {
    let gate = Gate::closed();
    let server = Server::new("flow", "0")
        .shared_state(std::sync::Arc::clone(&gate))
        .max_in_flight(1);
    let mut client = TestClient::connect(server).await.unwrap();
    let running = client.send_request("tools/call", gated_call(1)).await;
    let waiting = client.send_request("tools/call", gated_call(2)).await;
    client
        .notify("notifications/cancelled", json!({"requestId": waiting}))
        .await;
    let after = client.send_request("tools/call", gated_call(3)).await;
    wait_for_started(&gate, 1).await;
    gate.open.add_permits(2);
    let result = within(client.response(running)).await.unwrap();
    assert_eq!(result["content"][0]["text"], "done 1");
    let result = within(client.response(after)).await.unwrap();
    assert_eq!(result["content"][0]["text"], "done 3");
    assert_eq!(*gate.started.lock().unwrap(), [1, 3], "call 2 never ran");
    let rest = client.close().await;
    assert!(rest.is_empty(), "no reply to the cancelled call: {rest:?}");
}

#[tokio::test]
async fn a_full_backlog_stops_reading_until_a_waiting_call_starts() {
    let gate = Gate::closed();
    // One call runs, one waits (an empty backlog takes any call), and the
    // third finds the backlog full: reading stops.
    let server = Server::new("flow", "0")
        .shared_state(std::sync::Arc::clone(&gate))
        .max_in_flight(1)
        .max_backlog_size(1);
    let mut client = TestClient::connect(server).await.unwrap();
    let first = client.send_request("tools/call", gated_call(1)).await;
    let _second = client.send_request("tools/call", gated_call(2)).await;
    let _third = client.send_request("tools/call", gated_call(3)).await;
    let ping = client.send_request("ping", json!({})).await;
    wait_for_started(&gate, 1).await;
    let early = tokio::time::timeout(Duration::from_millis(300), client.response(ping)).await;
    assert!(
        early.is_err(),
        "the ping is not read while the backlog is full"
    );
    // The first call ends, the second starts, the third joins the backlog,
    // and the ping is read.
    gate.open.add_permits(1);
    within(client.response(first)).await.unwrap();
    within(client.response(ping)).await.unwrap();
    assert_eq!(*gate.started.lock().unwrap(), [1, 2]);
    gate.open.add_permits(2);
    let rest = within(client.close()).await;
    assert_eq!(rest.len(), 2, "{rest:?}");
}
