//! Upstreams that answer badly, behind `Server::mount` and the gateway:
//! an answer larger than the client's `max_message_size`, a tool schema
//! nested deeper than a message may be, a `tools/list` that is not JSON.
//! The stdio upstream is `examples/broken_upstream.rs`, a hand-written
//! server that answers as scripted; the HTTP one is scripted here. The
//! large answers are made at run time.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::step::{STEP, within};
use mcp_runtime::client::{CallToolResult, Client};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Server, Upstream, serde_json};
use serde_json::{Value, json};

fn broken_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| common::example_binary("broken_upstream"))
        .clone()
}

fn gateway_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| common::example_binary("gateway"))
        .clone()
}

fn broken(mode: &str) -> Upstream {
    Upstream::command(broken_binary(), [mode])
}

/// The first text block of a result.
fn text(result: &CallToolResult) -> &str {
    result.content[0].as_text().expect("a text block")
}

/// The text of a tool result as the wire has it.
fn wire_text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().expect("a text block")
}

const MIB: usize = 1024 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_60_mb_answer_is_refused_naming_its_size_and_the_gateway_goes_on_serving() {
    let broken = broken_binary();
    let gateway = gateway_binary();
    let args = ["--".as_ref(), broken.as_os_str(), "plain".as_ref()];
    let client = within(Client::stdio(&gateway, args)).await.unwrap();

    let size = 60_000_000;
    let refused = within(client.call_tool("sized", json!({ "bytes": size })))
        .await
        .unwrap();
    assert!(refused.is_error, "{refused:?}");
    assert_eq!(
        text(&refused),
        format!(
            "the upstream server `{} plain`: the server's answer is {size} bytes, over the \
             client's max_message_size of {} bytes",
            broken.display(),
            16 * MIB
        )
    );

    // The same upstream process, the same connection: what follows the
    // skipped line is read as usual.
    let echoed = within(client.call_tool("echo", json!({ "text": "still here" })))
        .await
        .unwrap();
    assert_eq!(text(&echoed), "still here");
    assert!(!echoed.is_error);
    let small = within(client.call_tool("sized", json!({ "bytes": 1000 })))
        .await
        .unwrap();
    assert!(!small.is_error, "{small:?}");
    within(client.close()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_at_the_limit_passes_and_one_byte_more_is_refused() {
    let upstream = broken("plain").max_message_size(MIB);
    let front = within(Server::new("front", "1.0.0").mount("b", upstream))
        .await
        .unwrap();
    let mut client = TestClient::start(front).unwrap();
    within(client.initialize("2025-11-25")).await.unwrap();

    let at_limit = within(client.call_tool("b_sized", json!({ "bytes": MIB })))
        .await
        .unwrap();
    assert_ne!(at_limit["isError"], true, "{at_limit}");
    let text = wire_text(&at_limit);
    assert!(text.len() > MIB - 100 && text.bytes().all(|b| b == b'a'));

    let over = within(client.call_tool("b_sized", json!({ "bytes": MIB + 1 })))
        .await
        .unwrap();
    assert_eq!(over["isError"], true, "{over}");
    let said = wire_text(&over);
    assert!(
        said.ends_with(&format!(
            "the server's answer is {} bytes, over the client's max_message_size of {MIB} bytes",
            MIB + 1
        )),
        "{said}"
    );

    let echoed = within(client.call_tool("b_echo", json!({ "text": "on" })))
        .await
        .unwrap();
    assert_eq!(wire_text(&echoed), "on");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_nested_too_deep_is_left_out_and_the_others_are_served() {
    let front = within(Server::new("front", "1.0.0").mount("b", broken("deep")))
        .await
        .unwrap();
    let mut client = TestClient::start(front).unwrap();
    within(client.initialize("2025-11-25")).await.unwrap();
    let tools = within(client.list_tools()).await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["b_echo", "b_sized"]);
    let echoed = within(client.call_tool("b_echo", json!({ "text": "fine" })))
        .await
        .unwrap();
    assert_eq!(wire_text(&echoed), "fine");
}

#[test]
fn the_gateway_warns_that_the_tool_left_out_is_nested_too_deep() {
    let broken = broken_binary();
    let (status, stdout, stderr) = run(
        &gateway_binary(),
        &[
            "--list-tools".as_ref(),
            "--".as_ref(),
            broken.as_os_str(),
            "deep".as_ref(),
        ],
    );
    assert_eq!(status, Some(0), "{stderr}");
    let listed: Value = serde_json::from_str(&stdout).expect("the tools as JSON");
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo", "sized"]);
    assert!(
        stderr.contains(
            "the server's tools/list entry `deep` is left out: it is nested too deep \
             (more than 125 levels of arrays and objects; a message may have 128)"
        ),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tools_list_that_is_not_json_fails_the_mount_at_once_saying_so() {
    // Far past the step's own time limit: the mount must fail without
    // waiting for it.
    let upstream = broken("not-json").timeout(Duration::from_secs(3600));
    let error = within(Server::new("front", "1.0.0").mount("b", upstream))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.ends_with(
            "not-json` connected but could not list what it serves: the server's answer to \
             tools/list is malformed: the answer is not JSON: key must be a string at line 1 \
             column 59"
        ),
        "{error}"
    );
}

/// Runs `binary` with `args` to its end (stdin closed), at most the step's
/// time: exit status, stdout, stderr.
fn run(binary: &Path, args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let mut child = Command::new(binary)
        .args(args)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the binary");
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + STEP;
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status, stdout.join().unwrap(), stderr.join().unwrap())
}
