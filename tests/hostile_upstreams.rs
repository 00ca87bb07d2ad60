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

/// A server mounting `upstream` under `prefix`, and a client of it in
/// this process, initialized.
async fn front(prefix: &str, upstream: Upstream) -> TestClient {
    let front = within(Server::new("front", "1.0.0").mount(prefix, upstream))
        .await
        .unwrap();
    let mut client = TestClient::start(front).unwrap();
    within(client.initialize("2025-11-25")).await.unwrap();
    client
}

/// The names of the tools `client` is listed.
async fn tool_names(client: &mut TestClient) -> Vec<String> {
    let tools = within(client.list_tools()).await.unwrap();
    tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_60_mb_answer_is_refused_naming_its_size_and_the_gateway_goes_on_serving() {
    let broken = broken_binary();
    let gateway = common::gateway_binary();
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

    // The gateway's own limit for the servers it mounts.
    let args = [
        "--max-message-size".as_ref(),
        "1000".as_ref(),
        "--".as_ref(),
        broken.as_os_str(),
        "plain".as_ref(),
    ];
    let client = within(Client::stdio(&gateway, args)).await.unwrap();
    let at_limit = within(client.call_tool("sized", json!({ "bytes": 1000 })))
        .await
        .unwrap();
    assert!(!at_limit.is_error, "{at_limit:?}");
    let over = within(client.call_tool("sized", json!({ "bytes": 1001 })))
        .await
        .unwrap();
    assert!(
        text(&over).ends_with(
            "the server's answer is 1001 bytes, over the client's max_message_size of 1000 bytes"
        ),
        "{over:?}"
    );
    within(client.close()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_at_the_limit_passes_and_one_byte_more_is_refused() {
    let mut client = front("b", broken("plain").max_message_size(MIB)).await;

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
    let mut client = front("b", broken("deep")).await;
    assert_eq!(tool_names(&mut client).await, ["b_echo", "b_sized"]);
    let echoed = within(client.call_tool("b_echo", json!({ "text": "fine" })))
        .await
        .unwrap();
    assert_eq!(wire_text(&echoed), "fine");
}

#[test]
fn the_gateway_warns_that_the_tool_left_out_is_nested_too_deep() {
    let broken = broken_binary();
    let (status, stdout, stderr) = run(
        &common::gateway_binary(),
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

/// A Streamable HTTP upstream scripted here, on a loopback port: the
/// tools of `examples/broken_upstream.rs deep` (`sized` answers with a body
/// of exactly `bytes`, with a `Content-Length` or, with `"named": false`,
/// ended by closing the connection), and `sized_event`, whose answer is
/// one SSE event with data of exactly `bytes`. It ends when dropped.
struct HttpUpstream {
    url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for HttpUpstream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl HttpUpstream {
    async fn start() -> HttpUpstream {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(exchange(stream));
            }
        });
        HttpUpstream { url, task }
    }
}

/// One request and its answer; the connection is closed after it.
async fn exchange(mut stream: tokio::net::TcpStream) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut request = Vec::new();
    let mut buffer = [0u8; 4096];
    let (head, length) = loop {
        let Ok(n @ 1..) = stream.read(&mut buffer).await else {
            return;
        };
        request.extend_from_slice(&buffer[..n]);
        if let Some(end) = request.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&request[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .map_or(0, |value| value.trim().parse::<usize>().unwrap());
            request.drain(..end + 4);
            break (head, length);
        }
    };
    while request.len() < length {
        let Ok(n @ 1..) = stream.read(&mut buffer).await else {
            return;
        };
        request.extend_from_slice(&buffer[..n]);
    }
    let answer = if head.starts_with("post") {
        let message: Value = serde_json::from_slice(&request).unwrap();
        http_answer(&message)
    } else {
        b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            .to_vec()
    };
    let _ = stream.write_all(&answer).await;
    let _ = stream.shutdown().await;
}

/// The whole HTTP answer to `message`.
fn http_answer(message: &Value) -> Vec<u8> {
    let head = |kind: &str, length: Option<usize>| {
        let length = length
            .map(|n| format!("content-length: {n}\r\n"))
            .unwrap_or_default();
        format!("HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\n{length}connection: close\r\n\r\n")
    };
    let json = |body: String, named: bool| {
        let mut answer = head("application/json", named.then_some(body.len())).into_bytes();
        answer.extend_from_slice(body.as_bytes());
        answer
    };
    let id = &message["id"];
    let result =
        |result: Value| json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string();
    let arguments = &message["params"]["arguments"];
    let bytes = arguments["bytes"].as_u64().unwrap_or(0) as usize;
    let sized = |bytes: usize| {
        let frame = |text: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","result":{{"content":[{{"type":"text","text":"{text}"}}]}},"id":{id}}}"#
            )
        };
        frame(&"a".repeat(bytes.saturating_sub(frame("").len())))
    };
    match (
        message["method"].as_str(),
        message["params"]["name"].as_str(),
    ) {
        (None, _) => {
            b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_vec()
        }
        (Some(method), _) if method.starts_with("notifications/") => {
            b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_vec()
        }
        (Some("initialize"), _) => json(
            result(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "scripted", "version": "1.0.0" },
            })),
            true,
        ),
        (Some("tools/list"), _) => {
            let mut schema = json!({ "type": "string" });
            for _ in 0..100 {
                schema = json!({ "type": "object", "properties": { "inner": schema } });
            }
            let tool = |name: &str, schema: Value| json!({ "name": name, "inputSchema": schema });
            let object = json!({ "type": "object" });
            let tools = [
                tool("echo", object.clone()),
                tool("deep", schema),
                tool("sized", object.clone()),
                tool("sized_event", object),
            ];
            json(result(json!({ "tools": tools })), true)
        }
        (Some("tools/call"), Some("echo")) => json(
            result(json!({ "content": [{ "type": "text", "text": arguments["text"] }] })),
            true,
        ),
        (Some("tools/call"), Some("sized")) => json(sized(bytes), arguments["named"] != false),
        (Some("tools/call"), Some("sized_event")) => {
            let mut answer = head("text/event-stream", None).into_bytes();
            answer.extend_from_slice(format!("id: 1\ndata: {}\n\n", sized(bytes)).as_bytes());
            answer
        }
        _ => json(
            json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32601, "message": "no" } })
                .to_string(),
            true,
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_answers_and_events_over_the_limit_fail_their_call_and_the_session_goes_on() {
    let upstream = HttpUpstream::start().await;
    let mounted = Upstream::http(&upstream.url).max_message_size(MIB);
    let mut client = front("h", mounted).await;

    // The deep tool is left out here too.
    assert_eq!(
        tool_names(&mut client).await,
        ["h_echo", "h_sized", "h_sized_event"]
    );

    let refused = |size: Option<usize>| {
        let size = size.map(|n| format!(" {n} bytes,")).unwrap_or_default();
        format!("the server's answer is{size} over the client's max_message_size of {MIB} bytes")
    };
    let cases = [
        // The body's length named: refused before it is read.
        (json!({ "bytes": MIB + 1 }), "h_sized", Some(MIB + 1)),
        // Not named: read up to the limit, no further.
        (json!({ "bytes": MIB + 1, "named": false }), "h_sized", None),
        (
            json!({ "bytes": 60_000_000, "named": false }),
            "h_sized",
            None,
        ),
        // One event of a stream: skipped to its end, its size counted.
        (json!({ "bytes": MIB + 1 }), "h_sized_event", Some(MIB + 1)),
    ];
    for (arguments, tool, size) in cases {
        let over = within(client.call_tool(tool, arguments.clone()))
            .await
            .unwrap();
        assert_eq!(over["isError"], true, "{tool} {arguments}: {over}");
        let said = wire_text(&over);
        assert!(said.ends_with(&refused(size)), "{tool} {arguments}: {said}");
    }
    for arguments in [
        json!({ "bytes": MIB }),
        json!({ "bytes": MIB, "named": false }),
    ] {
        let passed = within(client.call_tool("h_sized", arguments.clone()))
            .await
            .unwrap();
        assert_ne!(passed["isError"], true, "{arguments}: {passed}");
    }
    let passed = within(client.call_tool("h_sized_event", json!({ "bytes": MIB })))
        .await
        .unwrap();
    assert_ne!(passed["isError"], true, "{passed}");
    let echoed = within(client.call_tool("h_echo", json!({ "text": "on" })))
        .await
        .unwrap();
    assert_eq!(wire_text(&echoed), "on");
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
