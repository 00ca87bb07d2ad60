//! A tool call whose SSE answer is cut after the server wrote all of it,
//! resumed with `Last-Event-ID` by the SDK clients other people wrote (the
//! Python SDK, `mcp` 2.3.0, and the TypeScript SDK 1.32.2) in the
//! 2025-11-25 era: the call resolves at once, with its result while the
//! server keeps the stream, with an error once it no longer does, and the
//! client resumes once (an empty resumed stream made the Python SDK
//! resume every second for minutes, and the TypeScript SDK wait for its
//! request timeout).
//!
//! The progress example serves on a loopback port; a proxy in front of it
//! (tests/common/cut_proxy.rs) forwards the priming event and two progress
//! events of `count_slowly`, reads the rest from the server, then ends the
//! client's response. For the forgotten case it first makes 33 more calls
//! on the session, which push the stream out of the 32 a session keeps.

mod common;
#[path = "common/cut_proxy.rs"]
mod cut_proxy;

use std::process::Command;
use std::time::Duration;

use common::fleet::Instance;
use cut_proxy::{Cut, CutProxy, FILLERS, Seen};
use serde_json::Value;

/// How long a client script may run: its call gives up after 20 s, then
/// it waits 2.5 s.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Clone, Copy, Debug)]
enum Sdk {
    Python,
    TypeScript,
}

/// What a client script printed, and the requests the proxy saw.
struct Run {
    outcome: Value,
    seen: Vec<Seen>,
}

impl Run {
    /// The GETs that resumed a stream (with `Last-Event-ID`).
    fn resumed(&self) -> Vec<&Seen> {
        self.seen
            .iter()
            .filter(|seen| seen.method == "GET" && seen.last_event_id.is_some())
            .collect()
    }

    fn statuses(&self, status: u16) -> usize {
        self.seen
            .iter()
            .filter(|seen| seen.status == status)
            .count()
    }
}

fn run(sdk: Sdk, cut: Cut) -> Run {
    let server = Instance::spawn(&common::progress_binary(), &[], &[]);
    let proxy = CutProxy::start(&format!("http://{}/mcp", server.addr), 2, cut);
    let mut command = match sdk {
        Sdk::Python => {
            let mut command = Command::new(common::python::python());
            command.arg(common::python::script("resume.py"));
            command
        }
        Sdk::TypeScript => {
            let script = common::typescript::script("resume.mjs");
            let mut command = Command::new("node");
            command.current_dir(script.parent().unwrap()).arg(script);
            command
        }
    };
    let common::Finished {
        status,
        stdout,
        stderr,
    } = common::run_within(command.arg(&proxy.url), CLIENT_TIMEOUT).unwrap_or_else(|output| {
        panic!(
            "the {sdk:?} client did not finish within {CLIENT_TIMEOUT:?}: {output}\nthe proxy saw {:#?}\nthe server's log:\n{}",
            proxy.seen(),
            server.log()
        )
    });
    let seen = proxy.seen();
    assert!(
        status.success(),
        "the {sdk:?} client failed ({status}): {stdout}\n{stderr}\nthe proxy saw {seen:#?}"
    );
    assert!(proxy.did_cut(), "no tools/call answer was cut: {seen:#?}");
    let calls = seen
        .iter()
        .filter(|seen| seen.rpc.as_deref() == Some("tools/call"));
    assert_eq!(calls.count(), 1, "{sdk:?} sent the call once: {seen:#?}");
    if cut == Cut::Forgotten {
        assert_eq!(
            proxy.fillers(),
            FILLERS,
            "the calls that push the stream out"
        );
    }
    let line = stdout.lines().last().unwrap_or_default();
    let outcome =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\n{stderr}"));
    Run { outcome, seen }
}

/// The call got its result after two progress notifications, by resuming
/// once; no GET was refused.
fn assert_resumed_with_the_result(sdk: Sdk) {
    let run = run(sdk, Cut::Kept);
    assert_eq!(
        run.outcome["outcome"], "result",
        "{sdk:?}: {}\n{:#?}",
        run.outcome, run.seen
    );
    assert_eq!(run.outcome["text"], "counted to 5", "{sdk:?}");
    assert_eq!(
        run.outcome["progress"], 2,
        "{sdk:?}: what came before the cut"
    );
    let resumed = run.resumed();
    assert_eq!(resumed.len(), 1, "{sdk:?} resumed once: {:#?}", run.seen);
    assert_eq!(resumed[0].status, 200);
    assert_eq!(run.statuses(409), 0, "{sdk:?}: {:#?}", run.seen);
}

/// The call got the server's error for it by resuming once.
fn assert_resumed_with_the_error(sdk: Sdk) -> Run {
    let run = run(sdk, Cut::Forgotten);
    assert_eq!(
        run.outcome["outcome"], "error",
        "{sdk:?}: {}\n{:#?}",
        run.outcome, run.seen
    );
    assert_eq!(run.outcome["code"], -32603, "{sdk:?}: {}", run.outcome);
    let message = run.outcome["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("no longer keeps this request's stream"),
        "{sdk:?}: {message}"
    );
    let resumed = run.resumed();
    assert_eq!(resumed.len(), 1, "{sdk:?} resumed once: {:#?}", run.seen);
    assert_eq!(resumed[0].status, 200);
    run
}

#[test]
fn the_python_sdk_resumes_a_stream_read_to_its_end_and_gets_the_result() {
    assert_resumed_with_the_result(Sdk::Python);
}

#[test]
fn the_python_sdk_resumes_a_forgotten_stream_and_gets_an_error() {
    let run = assert_resumed_with_the_error(Sdk::Python);
    assert_eq!(run.statuses(409), 0, "{:#?}", run.seen);
}

#[test]
fn the_typescript_sdk_resumes_a_stream_read_to_its_end_and_gets_the_result() {
    assert_resumed_with_the_result(Sdk::TypeScript);
}

#[test]
fn the_typescript_sdk_resumes_a_forgotten_stream_and_gets_an_error() {
    let run = assert_resumed_with_the_error(Sdk::TypeScript);
    // The SDK stops reconnecting a stream only once a *result* came on it
    // (`isJSONRPCResultResponse` in `_handleSseStream`): after an error it
    // reconnects without `Last-Event-ID`, which its open GET stream answers
    // 409, and gives up after its `maxRetries` (2). Bounded, and after the
    // call resolved; the same follows any JSON-RPC error sent over SSE.
    let refused: Vec<&Seen> = run.seen.iter().filter(|seen| seen.status == 409).collect();
    assert!(refused.len() <= 2, "{:#?}", run.seen);
    assert!(
        refused
            .iter()
            .all(|seen| seen.method == "GET" && seen.last_event_id.is_none()),
        "{:#?}",
        run.seen
    );
}
