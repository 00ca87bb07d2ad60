//! Instances of a server serving HTTP (the weather example, or any other
//! example), and a 2026-07-28 client for them: every request stands alone
//! (its headers and `_meta` say the version and the client's
//! capabilities), so any instance, or a load balancer in front of several,
//! can answer it.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use serde_json::{Value, json};

use super::http::{self, ACCEPT_BOTH, JSON_BODY};

/// How long an instance may take to start serving.
const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// The protocol version these requests speak.
pub const MODERN: &str = "2026-07-28";

/// The extension of tasks in that version.
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A server serving HTTP on a free loopback port (`--http 127.0.0.1:0`,
/// the address read from its log), with the environment given. Killed
/// when dropped.
pub struct Instance {
    child: Child,
    pub addr: SocketAddr,
    log: Arc<Mutex<String>>,
}

impl Instance {
    /// The weather example.
    pub fn start(env: &[(&str, &str)]) -> Instance {
        let mut with_refresh = vec![("WEATHER_REFRESH_SECS", "0")];
        with_refresh.extend_from_slice(env);
        Instance::spawn(&super::weather_binary(), &[], &with_refresh)
    }

    /// `binary --http 127.0.0.1:0` and `args`, with the environment given
    /// (`MCP_STATE_KEY` and `MCP_STATE_KEY_PREVIOUS` only if given), logging
    /// at `info`.
    pub fn spawn(binary: &Path, args: &[&str], env: &[(&str, &str)]) -> Instance {
        let mut child = Command::new(binary)
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .env("RUST_LOG", "info")
            .env_remove("MCP_STATE_KEY")
            .env_remove("MCP_STATE_KEY_PREVIOUS")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", binary.display()));
        let log = Arc::new(Mutex::new(String::new()));
        let (found, url) = mpsc::channel();
        let stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in stderr.lines() {
                let Ok(line) = line else { break };
                if line.contains("serving MCP over Streamable HTTP")
                    && let Some(at) = line.find("url=http://")
                {
                    let rest = &line[at + "url=http://".len()..];
                    let addr = rest.split('/').next().unwrap_or_default();
                    let _ = found.send(addr.to_owned());
                }
                let mut log = sink.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        let addr = url.recv_timeout(READY_TIMEOUT).unwrap_or_else(|_| {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{} did not serve HTTP within {READY_TIMEOUT:?}; its log:\n{}",
                binary.display(),
                log.lock().unwrap()
            )
        });
        let addr = addr
            .parse()
            .unwrap_or_else(|_| panic!("not an address in the log: {addr:?}"));
        Instance { child, addr, log }
    }

    /// What the instance logged so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Kills the instance with SIGKILL (nothing it can clean up) and waits
    /// until it is gone.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `_meta` every 2026-07-28 request carries: the version, and a
/// client that can answer elicitations.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    })
}

/// The `_meta` of a 2026-07-28 client that also takes tasks (declares
/// the extension [`TASKS`]).
pub fn task_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {},
            "extensions": {TASKS: {}},
        },
    })
}

/// POSTs a 2026-07-28 request to `/mcp` at `addr` on a fresh connection:
/// the version, method and (for `tools/call`) tool name in headers too,
/// and `extra` headers. `params` get the `_meta` of [`meta`]. Returns the
/// HTTP status and the JSON-RPC response.
pub fn request(
    addr: SocketAddr,
    id: u64,
    method: &str,
    params: Value,
    extra: &[(&str, &str)],
) -> (u16, Value) {
    request_with(addr, id, method, params, meta(), extra)
}

/// [`request`] from a client that takes tasks ([`task_meta`]); `Mcp-Name`
/// is the task's id for `tasks/get`, `tasks/update` and `tasks/cancel`.
pub fn task_request(
    addr: SocketAddr,
    id: u64,
    method: &str,
    params: Value,
    extra: &[(&str, &str)],
) -> (u16, Value) {
    request_with(addr, id, method, params, task_meta(), extra)
}

fn request_with(
    addr: SocketAddr,
    id: u64,
    method: &str,
    mut params: Value,
    meta: Value,
    extra: &[(&str, &str)],
) -> (u16, Value) {
    params["_meta"] = meta;
    let name = match method {
        "tools/call" => params["name"].as_str().map(str::to_owned),
        "tasks/get" | "tasks/update" | "tasks/cancel" => {
            params["taskId"].as_str().map(str::to_owned)
        }
        _ => None,
    };
    let mut headers = vec![
        ACCEPT_BOTH,
        JSON_BODY,
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", method),
    ];
    if let Some(name) = &name {
        headers.push(("Mcp-Name", name.as_str()));
    }
    headers.extend_from_slice(extra);
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut reply = http::send(addr, "POST", &headers, body.to_string().as_bytes());
    let status = reply.status;
    let response = reply
        .replies()
        .into_iter()
        .last()
        .unwrap_or_else(|| panic!("{method}: no JSON-RPC response (HTTP {status})"));
    (status, response)
}

/// `subscribe_alerts` for `city`'s first round: the `input_required`
/// result, whose one question (an elicitation) and `requestState` are
/// returned.
pub fn ask_to_subscribe(addr: SocketAddr, city: &str, extra: &[(&str, &str)]) -> (String, String) {
    let (status, response) = request(
        addr,
        1,
        "tools/call",
        json!({"name": "subscribe_alerts", "arguments": {"city": city}}),
        extra,
    );
    assert_eq!(status, 200, "{response}");
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    let requests = result["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(requests.len(), 1, "{response}");
    let (key, question) = requests.iter().next().unwrap();
    assert_eq!(question["method"], "elicitation/create", "{response}");
    let state = result["requestState"].as_str().expect("a requestState");
    (key.clone(), state.to_owned())
}

/// `subscribe_alerts` for `city` again, with the user's answer to
/// `question` (confirmed, emergencies only) and `state`: the response.
pub fn answer_subscribe(
    addr: SocketAddr,
    city: &str,
    question: &str,
    state: &str,
    extra: &[(&str, &str)],
) -> (u16, Value) {
    request(
        addr,
        2,
        "tools/call",
        json!({
            "name": "subscribe_alerts",
            "arguments": {"city": city},
            "inputResponses": {
                question: {"action": "accept", "content": {"confirm": true, "level": "emergency"}}
            },
            "requestState": state,
        }),
        extra,
    )
}

/// Asserts that `response` is the completed subscription to `city`.
pub fn assert_subscribed(response: &Value, city: &str) {
    let result = &response["result"];
    assert_eq!(result["resultType"], "complete", "{response}");
    assert_eq!(
        result["structuredContent"],
        json!({"city": city, "subscribed": true, "level": "emergency"}),
        "{response}"
    );
}

/// Asserts that `response` refuses the `requestState` it was sent.
pub fn assert_state_refused(response: &Value) {
    assert_eq!(response["error"]["code"], -32602, "{response}");
    let message = response["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("`requestState` was refused"), "{response}");
}
