//! What a fleet sharing its legacy sessions through Redis does when a part
//! fails, seen by the SDKs' clients (tests/fleet/shared.rs's fleet, each
//! test with its own): an instance killed (SIGKILL) under a call, before
//! its answer began or in the middle of its progress stream, fails that
//! call within seconds and the session lives on through the others;
//! Redis stopped, every request of a session is answered 503 with a
//! JSON-RPC error that says the session store cannot be reached, at once,
//! and once Redis is back the same session goes on, its GET stream
//! included; Redis unreachable at start-up, an instance stops with a
//! sentence naming the address it tried, never the URL's password.

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::fleet_binary;
use crate::common::http::{self, ACCEPT_BOTH, JSON_BODY};
use crate::common::nginx::STEP;
use crate::common::redis::Redis;
use crate::legacy::{COUNTER, Driver, LEGACY, Sdk};
use crate::shared::{LegacyFleet, WAIT};

/// How soon a call whose instance was killed must fail: well under the
/// 35 s a driver's step waits for an answer that never comes.
const FAILS_WITHIN: Duration = Duration::from_secs(10);

/// How soon a request must be answered while Redis is down.
const ANSWERED_WITHIN: Duration = Duration::from_secs(3);

/// A `sleep 5` whose instance is killed (SIGKILL) while it runs: the call
/// fails within seconds, and the same session lists, calls and hears a
/// change through the two instances left.
fn a_call_on_a_killed_instance_fails_and_its_session_lives_on(sdk: Sdk) {
    let redis = Redis::start();
    let mut fleet = LegacyFleet::start(Some(&redis));
    let mut driver = Driver::start(sdk, &fleet.url());
    driver.session();
    driver.ok(&format!("subscribe {COUNTER}"));

    let sent = Instant::now();
    driver.send("sleep 5");
    let sleeper = fleet.wait_logging("sleep started");
    fleet.kill(sleeper);
    let line = driver.answer("sleep 5");
    let elapsed = sent.elapsed();
    let error = line["error"].as_str().unwrap_or_default();
    assert!(
        line["ok"] == false && !error.is_empty() && !error.contains("timed out"),
        "{sdk:?}: the call on {sleeper}, killed: {line}"
    );
    assert!(
        elapsed < FAILS_WITHIN,
        "{sdk:?}: the call failed after {elapsed:?}: {line}"
    );

    let listed = driver.ok("list");
    assert!(listed["tools"].is_array(), "{sdk:?}: {listed}");
    for _ in 0..2 {
        let whoami = driver.ok("whoami");
        assert_ne!(whoami["instance"], sleeper, "{sdk:?}: {whoami}");
    }
    let touched = driver.ok("touch");
    assert_ne!(touched["instance"], sleeper, "{sdk:?}: {touched}");
    driver.ok("await_update 10");
    let quit = driver.ok("quit");
    assert_eq!(quit["deleted"], 204, "{sdk:?}: {quit}");
}

#[test]
fn a_python_sdk_call_on_a_killed_instance_fails_and_its_session_lives_on() {
    a_call_on_a_killed_instance_fails_and_its_session_lives_on(Sdk::Python);
}

#[test]
fn a_typescript_sdk_call_on_a_killed_instance_fails_and_its_session_lives_on() {
    a_call_on_a_killed_instance_fails_and_its_session_lives_on(Sdk::TypeScript);
}

/// A call streaming its progress (`count 100`, about 5 s) whose instance
/// is killed once it has sent some: the stream is cut mid-way, the SDK
/// resumes it (`Last-Event-ID`) on another instance, which answers with
/// the call's error (its instance is gone), so the call fails within
/// seconds; the session goes on.
fn a_streamed_call_cut_by_a_kill_fails_and_its_session_lives_on(sdk: Sdk) {
    let redis = Redis::start();
    let mut fleet = LegacyFleet::start(Some(&redis));
    let mut driver = Driver::start(sdk, &fleet.url());
    driver.session();
    driver.ok(&format!("subscribe {COUNTER}"));

    driver.send("count 100");
    let counter = fleet.wait_logging("count started");
    // Some progress on its way.
    std::thread::sleep(Duration::from_millis(500));
    let killed = Instant::now();
    fleet.kill(counter);
    let line = driver.answer("count 100");
    let elapsed = killed.elapsed();
    let error = line["error"].as_str().unwrap_or_default();
    assert!(
        line["ok"] == false && !error.is_empty() && !error.contains("timed out"),
        "{sdk:?}: the call on {counter}, killed: {line}"
    );
    assert!(
        elapsed < FAILS_WITHIN,
        "{sdk:?}: the call failed {elapsed:?} after the kill: {line}"
    );
    // Its stream resumed on another instance (a POST stream's event id,
    // not the GET stream's `0_...`), which answered with the error.
    let resumed = line["http"].as_array().is_some_and(|requests| {
        requests.iter().filter_map(Value::as_str).any(|request| {
            request
                .strip_prefix("GET 200 last-event-id=")
                .is_some_and(|id| !id.starts_with("0_"))
        })
    });
    assert!(resumed, "{sdk:?}: the call's stream not resumed: {line}");
    let whoami = driver.ok("whoami");
    assert_ne!(whoami["instance"], counter, "{sdk:?}: {whoami}");
    driver.ok("touch");
    driver.ok("await_update 10");
    let quit = driver.ok("quit");
    assert_eq!(quit["deleted"], 204, "{sdk:?}: {quit}");
}

#[test]
fn a_python_sdk_streamed_call_cut_by_a_kill_fails_and_its_session_lives_on() {
    a_streamed_call_cut_by_a_kill_fails_and_its_session_lives_on(Sdk::Python);
}

#[test]
fn a_typescript_sdk_streamed_call_cut_by_a_kill_fails_and_its_session_lives_on() {
    a_streamed_call_cut_by_a_kill_fails_and_its_session_lives_on(Sdk::TypeScript);
}

/// `tools/list` in `session`, through nginx (named `step` in its log),
/// raw: the HTTP status, the JSON body, and how long the answer took.
fn list_in_session(fleet: &LegacyFleet, session: &str, step: &str) -> (u16, Value, Duration) {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}).to_string();
    let headers = [
        ACCEPT_BOTH,
        JSON_BODY,
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", LEGACY),
        (STEP, step),
    ];
    let started = Instant::now();
    let mut reply = http::send(fleet.nginx.addr, "POST", &headers, body.as_bytes());
    let elapsed = started.elapsed();
    let status = reply.status;
    let text = reply.text();
    let json = serde_json::from_str(&text)
        .unwrap_or_else(|_| panic!("{step}: HTTP {status}, not a JSON body: {text:?}"));
    (status, json, elapsed)
}

/// Redis stopped mid-session (a persistent Redis, as a restarted service
/// keeps its data): each request of the session, on whichever instance,
/// is answered 503 with a JSON-RPC error naming the session store, at
/// once. Redis back, the same SDK session lists, calls, and hears a
/// change on its GET stream.
fn while_redis_is_down_requests_fail_clearly_and_the_session_resumes(sdk: Sdk) {
    let mut redis = Redis::persistent();
    let fleet = LegacyFleet::start(Some(&redis));
    let mut driver = Driver::start(sdk, &fleet.url());
    let session = driver.session();
    driver.ok(&format!("subscribe {COUNTER}"));
    driver.ok("touch");
    driver.ok("await_update 10");

    redis.stop();
    let store = format!("redis at {}", redis.addr);
    for n in 0..3 {
        let step = format!("down-{n}");
        let (status, response, elapsed) = list_in_session(&fleet, &session, &step);
        assert_eq!(status, 503, "{sdk:?} {step}: {response}");
        assert_eq!(
            response["error"]["code"], -32603,
            "{sdk:?} {step}: {response}"
        );
        let message = response["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("session store") && message.contains(&store),
            "{sdk:?} {step}: {response}"
        );
        assert!(
            elapsed < ANSWERED_WITHIN,
            "{sdk:?} {step}: answered after {elapsed:?}"
        );
    }
    let logged = fleet.logged_when(|logged| {
        logged
            .iter()
            .filter(|request| request.step.starts_with("down-"))
            .count()
            == 3
    });
    let answered: BTreeSet<&str> = logged
        .iter()
        .filter(|request| request.step.starts_with("down-"))
        .map(|request| fleet.name_of(request.upstream))
        .collect();
    assert!(answered.len() >= 2, "{sdk:?}: {logged:?}");

    redis.restart();
    let listed = driver.ok("list");
    assert!(listed["tools"].is_array(), "{sdk:?}: {listed}");
    driver.ok("whoami");
    driver.ok("touch");
    driver.ok("await_update 10");
    let quit = driver.ok("quit");
    assert_eq!(quit["deleted"], 204, "{sdk:?}: {quit}");
}

#[test]
fn while_redis_is_down_python_sdk_requests_fail_clearly_and_the_session_resumes() {
    while_redis_is_down_requests_fail_clearly_and_the_session_resumes(Sdk::Python);
}

#[test]
fn while_redis_is_down_typescript_sdk_requests_fail_clearly_and_the_session_resumes() {
    while_redis_is_down_requests_fail_clearly_and_the_session_resumes(Sdk::TypeScript);
}

/// Redis unreachable when an instance starts: it exits with status 1 and
/// a sentence naming the address it tried, never the URL's password, and
/// never serves.
#[test]
fn an_instance_whose_redis_is_unreachable_at_start_up_stops_and_says_where() {
    // A port nothing listens on: connections are refused at once.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|free| free.local_addr())
        .expect("a free port")
        .port();
    let url = format!("redis://:hunter2@127.0.0.1:{port}/");
    let mut child = Command::new(fleet_binary())
        .args(["--http", "127.0.0.1:0", "--sessions-redis", &url])
        .env("RUST_LOG", "info")
        .env("FLEET_INSTANCE", "a")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the fleet example");
    let deadline = Instant::now() + WAIT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let output = child.wait_with_output().expect("its output");
            panic!(
                "the instance did not stop within {WAIT:?}:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = child.wait_with_output().expect("its output");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(output.stdout.is_empty(), "{stderr}");
    let said = stderr.lines().last().unwrap_or_default();
    assert!(
        said.contains("--sessions-redis") && said.contains(&format!("redis at 127.0.0.1:{port}")),
        "{stderr}"
    );
    assert!(!stderr.contains("hunter2"), "{stderr}");
    assert!(!stderr.contains("serving MCP"), "{stderr}");
}
