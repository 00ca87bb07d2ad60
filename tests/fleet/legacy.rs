//! Clients of the initialize-based era (2025-11-25) against the fleet
//! example (examples/fleet.rs), driven by the SDKs other people wrote: the
//! Python SDK (tests/interop/python/fleet.py) and the TypeScript SDK
//! (tests/interop/ts/fleet.mjs), each a process that takes one command per
//! line and answers one JSON line per command ([`Driver`]), so that a test
//! can do things to the fleet between two steps of a session.
//!
//! [`drive_legacy_session`] is what a session does, every step checked:
//! here against one instance; through a fleet sharing its sessions and
//! round robin in tests/fleet/shared.rs, where the control without a
//! shared store is too. And a call whose instance is killed under it fails
//! at once for either SDK, rather than hang.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::fleet::Instance;
use crate::common::http::{self, ACCEPT_BOTH, JSON_BODY};
use crate::common::{fleet_binary, python, typescript};

/// The protocol version the drivers speak.
pub const LEGACY: &str = "2025-11-25";

/// The fleet example's tools, in the order `tools/list` gives them.
pub const FLEET_TOOLS: [&str; 6] = [
    "ask_name",
    "count_slowly",
    "log",
    "sleep",
    "touch",
    "whoami",
];

/// The resource the fleet example's `touch` changes.
pub const COUNTER: &str = "fleet://counter";

/// How long a driver may take to start and connect (the driver bounds
/// its connection to 30 s).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(60);

/// What a step may take beyond the bound the driver gives it (30 s, plus
/// the seconds of a `sleep`, `await_update` or `await_log`): the driver
/// answers by then, failed or not.
const MARGIN: Duration = Duration::from_secs(45);

/// The SDK whose client drives a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sdk {
    /// The Python SDK (`mcp`, `Client(mode="legacy")`).
    Python,
    /// The TypeScript SDK (`@modelcontextprotocol/sdk`, `Client` with
    /// `StreamableHTTPClientTransport`).
    TypeScript,
}

impl Sdk {
    /// The driver's command line, the SDK installed first if it is not.
    fn command(self, url: &str) -> Command {
        let mut command = match self {
            Sdk::Python => {
                let mut command = Command::new(python::python());
                command.arg(python::script("fleet.py"));
                command
            }
            Sdk::TypeScript => {
                let mut command = Command::new("node");
                command.arg(typescript::script("fleet.mjs"));
                command
            }
        };
        command.arg(url);
        command
    }
}

/// A driver process: one SDK client, one session, one step per command.
/// Killed when dropped.
pub struct Driver {
    sdk: Sdk,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: Arc<Mutex<String>>,
    /// The line of the connection's own step (`"step": "connect"`).
    pub connected: Value,
    /// Every line so far, the connection's first.
    pub transcript: Vec<Value>,
}

impl Driver {
    /// Starts `sdk`'s driver on `url` (`http://ADDR/mcp`) and reads the
    /// line of its connection, which may have failed (see `connected`).
    pub fn start(sdk: Sdk, url: &str) -> Driver {
        let mut child = sdk
            .command(url)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("start the {sdk:?} driver: {e}"));
        let stdout = child.stdout.take().expect("stdout");
        let lines = crate::common::lines_of(stdout);
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().expect("stderr");
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buffer = [0; 4096];
            while let Ok(read @ 1..) = pipe.read(&mut buffer) {
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buffer[..read]));
            }
        });
        let stdin = child.stdin.take();
        let mut driver = Driver {
            sdk,
            child,
            stdin,
            lines,
            stderr,
            connected: Value::Null,
            transcript: Vec::new(),
        };
        driver.connected = driver.read("connect", CONNECT_TIMEOUT);
        driver
    }

    /// Sends `command` and returns its line, succeeded or failed.
    pub fn step(&mut self, command: &str) -> Value {
        self.send(command);
        self.answer(command)
    }

    /// Sends `command` without waiting for its line: to do something to
    /// the fleet while it runs (kill the instance under a `sleep`), then
    /// read its line with [`Driver::answer`].
    pub fn send(&mut self, command: &str) {
        let stdin = self.stdin.as_mut().expect("the driver's stdin");
        if let Err(e) = writeln!(stdin, "{command}").and_then(|()| stdin.flush()) {
            self.fail(&format!("{command}: could not send it: {e}"));
        }
    }

    /// The line of `command`, sent with [`Driver::send`], succeeded or
    /// failed.
    pub fn answer(&mut self, command: &str) -> Value {
        self.read(command, bound(command))
    }

    /// Sends `command`, which must succeed: its line.
    pub fn ok(&mut self, command: &str) -> Value {
        let line = self.step(command);
        if line["ok"] != true {
            self.fail(&format!("{command} failed: {line}"));
        }
        line
    }

    /// How many requests the SDK made that nginx has logged by now
    /// ([`finished`] of its transcript).
    pub fn finished_requests(&self) -> usize {
        finished(&self.transcript)
    }

    /// The session the connection got (its `Mcp-Session-Id`); fails the
    /// test if the connection failed.
    pub fn session(&self) -> String {
        if self.connected["ok"] != true {
            self.fail(&format!("connect failed: {}", self.connected));
        }
        self.connected["session"]
            .as_str()
            .unwrap_or_else(|| self.fail(&format!("no session: {}", self.connected)))
            .to_owned()
    }

    /// The requests the SDK made from the `from`-th line of the
    /// transcript on (`"GET 200 last-event-id=ID"`, ...).
    pub fn http_since(&self, from: usize) -> Vec<String> {
        self.transcript[from.min(self.transcript.len())..]
            .iter()
            .filter_map(|line| line["http"].as_array())
            .flatten()
            .filter_map(|request| request.as_str().map(str::to_owned))
            .collect()
    }

    /// Fails the test, with what the driver wrote to stderr.
    pub fn fail(&self, message: &str) -> ! {
        panic!(
            "{:?} driver: {message}\nits stderr:\n{}",
            self.sdk,
            self.stderr.lock().unwrap()
        )
    }

    fn read(&mut self, command: &str, timeout: Duration) -> Value {
        let line = match self.lines.recv_timeout(timeout) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                self.fail(&format!("{command}: no answer within {timeout:?}"))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                std::thread::sleep(Duration::from_millis(100));
                let status = self.child.try_wait().ok().flatten();
                self.fail(&format!(
                    "{command}: the driver closed its stdout (exit status: {status:?})"
                ))
            }
        };
        let value: Value = serde_json::from_str(&line)
            .unwrap_or_else(|_| self.fail(&format!("{command}: not a JSON line: {line:?}")));
        let name = command.split(' ').next().unwrap_or_default();
        if value["step"] != name {
            self.fail(&format!("{command}: the answer of another step: {line}"));
        }
        self.transcript.push(value.clone());
        value
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How long the driver may take to answer `command`: its own bound, and
/// [`MARGIN`].
fn bound(command: &str) -> Duration {
    let (name, argument) = command.split_once(' ').unwrap_or((command, ""));
    let number: f64 = argument.trim().parse().unwrap_or(0.0);
    let secs = match name {
        "sleep" | "await_update" | "await_log" => number,
        "count" => number * 0.05,
        _ => 0.0,
    };
    Duration::from_secs(30) + MARGIN + Duration::from_secs_f64(secs.clamp(0.0, 3600.0))
}

/// How many requests of the lines of a session nginx has logged by now:
/// all the SDK got an answer to, but a GET stream still open (nginx logs
/// a request once its response is over).
pub fn finished(lines: &[Value]) -> usize {
    lines
        .iter()
        .filter_map(|line| line["http"].as_array())
        .flatten()
        .filter(|request| {
            !request
                .as_str()
                .is_some_and(|request| request.starts_with("GET 200"))
        })
        .count()
}

/// The URL of the MCP endpoint at `addr`.
pub fn url(addr: SocketAddr) -> String {
    format!("http://{addr}/mcp")
}

/// A session of `sdk`'s client at `url` (an instance, or a balancer in
/// front of several) doing everything a legacy session does, each step
/// checked: it connects in 2025-11-25 with a session, lists the tools,
/// asks which instance answers, gets every progress notification of a
/// call, subscribes to `fleet://counter` and hears of its change after
/// `touch`, answers an elicitation asked during a call, hears a log
/// message sent outside any call, waits out a short `sleep`, and ends the
/// session (DELETE: 204, and a request in it is then answered 404).
/// Returns the lines of the steps, the connection's first: each tool's
/// says which instance ran it (`"instance"`).
pub fn drive_legacy_session(url: &str, sdk: Sdk) -> Vec<Value> {
    let mut driver = Driver::start(sdk, url);
    let connected = driver.connected.clone();
    if connected["ok"] != true {
        driver.fail(&format!("connect failed: {connected}"));
    }
    assert_eq!(connected["protocol"], LEGACY, "{sdk:?}: {connected}");
    let session = connected["session"]
        .as_str()
        .unwrap_or_else(|| driver.fail(&format!("no session: {connected}")))
        .to_owned();
    assert_eq!(driver.ok("session")["session"], session.as_str(), "{sdk:?}");

    let listed = driver.ok("list");
    assert_eq!(listed["tools"], json!(FLEET_TOOLS), "{sdk:?}: {listed}");
    let whoami = driver.ok("whoami");
    assert!(whoami["instance"].is_string(), "{sdk:?}: {whoami}");

    let counted = driver.ok("count 5");
    assert_eq!(counted["n"], 5, "{sdk:?}: {counted}");
    let progress = counted["progress"].as_u64().unwrap_or_default();
    assert!(
        progress >= 5,
        "{sdk:?}: {progress} of 5 progress notifications: {counted}"
    );

    driver.ok(&format!("subscribe {COUNTER}"));
    let touched = driver.ok("touch");
    assert!(touched["instance"].is_string(), "{sdk:?}: {touched}");
    let updated = driver.ok("await_update 10");
    assert_eq!(updated["uri"], COUNTER, "{sdk:?}: {updated}");

    let answered = driver.ok("ask Ada Lovelace");
    assert_eq!(answered["name"], "Ada Lovelace", "{sdk:?}: {answered}");
    assert_eq!(answered["asked"], 1, "{sdk:?}: {answered}");

    let message = format!("hello from {sdk:?}");
    driver.ok(&format!("log {message}"));
    let logged = driver.ok("await_log 10");
    assert_eq!(
        (&logged["data"], &logged["level"], &logged["logger"]),
        (&json!(message), &json!("info"), &json!("fleet")),
        "{sdk:?}: {logged}"
    );

    let slept = driver.ok("sleep 0.2");
    assert_eq!(slept["secs"], 0.2, "{sdk:?}: {slept}");

    let quit = driver.ok("quit");
    assert_eq!(quit["deleted"], 204, "{sdk:?}: {quit}");
    assert_eq!(
        status_in_session(url, &session),
        404,
        "{sdk:?}: the session outlived its DELETE"
    );
    driver.transcript.clone()
}

/// The HTTP status of a `ping` in `session` at `url`.
fn status_in_session(url: &str, session: &str) -> u16 {
    let addr: SocketAddr = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .and_then(|addr| addr.parse().ok())
        .unwrap_or_else(|| panic!("not an http://ADDR/... URL: {url}"));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let headers = [
        ACCEPT_BOTH,
        JSON_BODY,
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", LEGACY),
    ];
    http::send(addr, "POST", &headers, body.as_bytes()).status
}

/// The instances named in the lines of a session, in order.
pub fn instances(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|line| line["instance"].as_str().map(str::to_owned))
        .collect()
}

/// One instance of the fleet example, named `name` (`FLEET_INSTANCE`).
fn instance(name: &str) -> Instance {
    Instance::spawn(&fleet_binary(), &[], &[("FLEET_INSTANCE", name)])
}

fn one_instance_serves_a_legacy_session(sdk: Sdk) {
    let solo = instance("solo");
    let lines = drive_legacy_session(&url(solo.addr), sdk);
    let names = instances(&lines);
    assert_eq!(names.len(), 6, "{lines:?}");
    assert!(names.iter().all(|name| name == "solo"), "{names:?}");
}

#[test]
fn the_python_sdk_drives_a_legacy_session_of_one_fleet_instance() {
    one_instance_serves_a_legacy_session(Sdk::Python);
}

#[test]
fn the_typescript_sdk_drives_a_legacy_session_of_one_fleet_instance() {
    one_instance_serves_a_legacy_session(Sdk::TypeScript);
}

/// An instance killed (SIGKILL) under a call: the SDK's client gets an
/// error for the call at once, not a hang that only the step's bound ends
/// (which would say "timed out").
fn a_call_whose_instance_dies_fails(sdk: Sdk) {
    let mut doomed = instance("doomed");
    let mut driver = Driver::start(sdk, &url(doomed.addr));
    if driver.connected["ok"] != true {
        driver.fail(&format!("connect failed: {}", driver.connected));
    }
    driver.ok("whoami");
    driver.send("sleep 20");
    // The call is on its way or running; either way its instance dies
    // under it.
    std::thread::sleep(Duration::from_millis(300));
    doomed.kill();
    let line = driver.answer("sleep 20");
    let error = line["error"].as_str().unwrap_or_default();
    assert!(
        line["ok"] == false && !error.is_empty() && !error.contains("timed out"),
        "{sdk:?}: {line}"
    );
}

#[test]
fn a_python_sdk_call_whose_instance_dies_fails() {
    a_call_whose_instance_dies_fails(Sdk::Python);
}

#[test]
fn a_typescript_sdk_call_whose_instance_dies_fails() {
    a_call_whose_instance_dies_fails(Sdk::TypeScript);
}
