//! Shared by the end-to-end tests: the weather example binary, built once.

#![allow(dead_code)]

pub mod asking;
pub mod browser;
pub mod caller;
pub mod fleet;
pub mod http;
pub mod list_changed;
pub mod nginx;
pub mod oauth_server;
pub mod oidc;
pub mod openapi;
pub mod prerequisite;
pub mod python;
pub mod redis;
pub mod results;
pub mod running;
pub mod step;
pub mod tap;
pub mod typescript;
pub mod upstreams;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The path of the `weather` example binary.
pub fn weather_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| example_binary("weather")).clone()
}

/// The weather example's tools, in the order `tools/list` gives them.
pub const WEATHER_TOOLS: [&str; 6] = [
    "current_conditions",
    "get_forecast",
    "search_cities",
    "subscribe_alerts",
    "summarize_forecast",
    "weather_report",
];

/// The path of the `progress` example binary.
pub fn progress_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| example_binary("progress")).clone()
}

/// The path of the `fleet` example binary (examples/fleet.rs: tools that
/// say which instance ran them, for the fleet tests).
pub fn fleet_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| example_binary("fleet")).clone()
}

/// The path of the `gateway` example binary (examples/gateway).
pub fn gateway_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| example_binary("gateway")).clone()
}

/// The path of the `hostile_target` example binary (echo, fail, panic,
/// slow and unserializable-output tools, for the hostile-client battery).
pub fn hostile_target_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| example_binary("hostile_target"))
        .clone()
}

/// The features the tests build the examples with, one set for all of them
/// (`--auth-issuer`, the OTLP export, `--tasks-redis`, `--sessions-redis`,
/// the MCP client
/// that the gateway, the chain and the conformance client need, and the
/// OpenAPI import of the openapi example). Every
/// example is built with both example packages selected and all of these
/// features, so that cargo compiles mcp-runtime once for all of them (with
/// the features the tests package itself enables on it).
const EXAMPLE_FEATURES: &str = "weather-example/auth,weather-example/otel,\
                                weather-example/tasks-redis,weather-example/sessions-redis,\
                                mcp-examples/auth,mcp-examples/otel,mcp-examples/client,\
                                mcp-examples/tasks-redis,mcp-examples/sessions-redis,\
                                mcp-examples/openapi";

/// Builds an example (test targets cannot depend on examples, so the test
/// asks cargo) and returns its executable, at a path of this checkout's own:
/// cargo compiles in the build directory of this test (shared with every
/// checkout that uses the same `CARGO_TARGET_DIR`, so what is built once is
/// reused), and puts the final executable in a directory named after this
/// checkout, where no other checkout's build, and no build of the example
/// with other features (such as a plain `cargo run --example weather`),
/// replaces it while the test runs it.
pub fn example_binary(name: &str) -> PathBuf {
    {
        let mut cargo = Command::new(env!("CARGO"));
        // Without the variables cargo sets for this test, as in the shell
        // that ran `cargo test`: a build script that watches them (ring's
        // watches CARGO_MANIFEST_DIR and CARGO_PKG_*) would otherwise run
        // again, rebuilding what depends on it, and again at the next build
        // from the shell.
        for (variable, _) in std::env::vars_os() {
            let variable = variable.to_string_lossy();
            let set_for_tests = variable.starts_with("CARGO_PKG_")
                || variable.starts_with("CARGO_MANIFEST_")
                || matches!(
                    &*variable,
                    "CARGO_CRATE_NAME"
                        | "CARGO_PRIMARY_PACKAGE"
                        | "CARGO_TARGET_TMPDIR"
                        | "OUT_DIR"
                );
            if set_for_tests {
                cargo.env_remove(&*variable);
            }
        }
        let (build_dir, artifact_dir) = example_dirs();
        let output = cargo
            .env("CARGO_BUILD_BUILD_DIR", build_dir)
            .env("CARGO_TARGET_DIR", artifact_dir)
            .args([
                "build",
                "--quiet",
                "--package",
                "weather-example",
                "--package",
                "mcp-examples",
                "--features",
                EXAMPLE_FEATURES,
                "--example",
                name,
                "--message-format=json",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("run cargo build");
        assert!(
            output.status.success(),
            "cargo build --example {name} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .find_map(|message| {
                let wanted =
                    message["target"]["name"] == name && message["target"]["kind"][0] == "example";
                let exe = message["executable"].as_str()?;
                wanted.then(|| PathBuf::from(exe))
            })
            .unwrap_or_else(|| panic!("cargo reported no executable for the {name} example"))
    }
}

/// Where [`example_binary`] has cargo compile (this test's own build
/// directory, the parent of `debug/deps/` where the test runs from) and
/// where it has cargo put the examples' executables (a directory in it named
/// after this checkout's path).
fn example_dirs() -> (PathBuf, PathBuf) {
    use std::hash::{Hash, Hasher};
    let test = std::env::current_exe().expect("the test's executable");
    let build_dir = test
        .ancestors()
        .nth(3)
        .expect("the test runs from BUILD_DIR/PROFILE/deps/")
        .to_path_buf();
    let mut checkout = std::hash::DefaultHasher::new();
    env!("CARGO_MANIFEST_DIR").hash(&mut checkout);
    let artifact_dir = build_dir
        .join("examples-of-checkouts")
        .join(format!("{:016x}", checkout.finish()));
    (build_dir, artifact_dir)
}

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// What a program run to its end by [`run_within`] gave.
pub struct Finished {
    pub status: std::process::ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `command` with stdin closed and its output read as it comes (so a
/// chatty program never blocks on a full pipe), until it exits; `Err` with
/// what it printed when it runs longer than `timeout`, after killing it.
pub fn run_within(command: &mut Command, timeout: Duration) -> Result<Finished, String> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("could not start {:?}: {e}", command.get_program()));
    let read = |mut output: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = output.read_to_string(&mut text);
            text
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    match status {
        Some(status) => Ok(Finished {
            status,
            stdout,
            stderr,
        }),
        None => Err(format!("{stdout}\n{stderr}")),
    }
}

/// The lines `output` (a child's stdout) writes, read by a thread of
/// their own as they come.
pub fn lines_of(output: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// A server process driven over real pipes. stderr is read as it comes (so
/// a chatty server never blocks on a full pipe) and returned by `finish`.
pub struct Process {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_reader: Option<std::thread::JoinHandle<()>>,
}

impl Process {
    pub fn spawn(binary: &std::path::Path) -> Process {
        Self::spawn_with_env(binary, &[])
    }

    /// Spawns with extra environment variables.
    pub fn spawn_with_env(binary: &std::path::Path, env: &[(&str, &str)]) -> Process {
        let mut child = Command::new(binary)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the server");
        let stdout = child.stdout.take().expect("stdout");
        let lines = lines_of(stdout);
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut pipe = child.stderr.take().expect("stderr");
        let sink = Arc::clone(&stderr);
        let stderr_reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        let stdin = child.stdin.take();
        Process {
            child,
            stdin,
            lines,
            stderr,
            stderr_reader: Some(stderr_reader),
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's stdin, for writing raw bytes.
    pub fn stdin(&mut self) -> &mut ChildStdin {
        self.stdin.as_mut().expect("stdin is open")
    }

    /// Takes the server's stdin (for a writer thread); dropping it is EOF.
    pub fn take_stdin(&mut self) -> ChildStdin {
        self.stdin.take().expect("stdin is open")
    }

    /// Closes stdin (EOF) without waiting for anything.
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Writes raw bytes, as they are (no newline added).
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin();
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    /// The next line from stdout as it was written; panics after 20 s.
    pub fn recv_raw(&mut self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(20))
            .expect("the server answered within 20 s")
    }

    /// The next line from stdout, parsed, if one comes within `timeout`.
    pub fn try_recv(&mut self, timeout: Duration) -> Option<Value> {
        let line = self.lines.recv_timeout(timeout).ok()?;
        Some(
            serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {line}")),
        )
    }

    /// Every message up to and including the response with this id.
    pub fn recv_until(&mut self, id: &Value) -> Vec<Value> {
        let mut messages = Vec::new();
        loop {
            let message = self.recv();
            let done = message.get("id") == Some(id)
                && (message.get("result").is_some() || message.get("error").is_some());
            messages.push(message);
            if done {
                return messages;
            }
        }
    }

    /// Sends a ping and checks that the next response is its answer, with
    /// nothing but notifications before it; returns what came before.
    pub fn assert_alive(&mut self, id: &str) -> Vec<Value> {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
        let mut before = self.recv_until(&json!(id));
        let pong = before.pop().expect("the pong");
        assert_eq!(pong["result"], json!({}), "{pong}");
        before
    }

    /// The stderr written so far.
    pub fn stderr_so_far(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// A `kB` field of /proc/PID/status, such as `VmRSS` or `VmHWM`.
    pub fn status_kb(&self, field: &str) -> Option<u64> {
        status_kb(self.pid(), field)
    }

    /// Waits up to `timeout` for the process to exit on its own (after the
    /// client went away); returns its exit code and stderr, or kills it and
    /// panics.
    pub fn wait_exit(mut self, timeout: Duration) -> (Option<i32>, String) {
        drop(self.stdin.take());
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                if let Some(reader) = self.stderr_reader.take() {
                    let _ = reader.join();
                }
                return (status.code(), self.stderr_so_far());
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "the server did not exit within {timeout:?}; stderr:\n{}",
                    self.stderr_so_far()
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    pub fn send(&mut self, message: Value) {
        self.send_line(&message.to_string());
    }

    /// The next line from stdout, parsed; panics after 20 s.
    pub fn recv(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(20))
            .expect("the server answered within 20 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {line}"))
    }

    /// Sends a request and returns the next message (which must answer it).
    pub fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let reply = self.recv();
        assert_eq!(reply["id"], json!(id), "unexpected reply: {reply}");
        reply
    }

    pub fn initialize(&mut self, version: &str) -> Value {
        let reply = self.request(
            0,
            "initialize",
            json!({
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "e2e", "version": "0"}
            }),
        );
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        reply
    }

    /// Closes stdin (EOF) and waits for the exit; returns the exit code and
    /// every line the server still wrote.
    pub fn finish(mut self) -> (Option<i32>, Vec<Value>, String) {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(20)) {
            rest.push(serde_json::from_str(&line).expect("stdout is JSON"));
        }
        let status = self.child.wait().expect("wait");
        if let Some(reader) = self.stderr_reader.take() {
            let _ = reader.join();
        }
        (status.code(), rest, self.stderr_so_far())
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // A test that failed half-way leaves no server behind.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A `kB` field of /proc/PID/status, such as `VmRSS` or `VmHWM`.
pub fn status_kb(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|line| {
        let rest = line.strip_prefix(field)?.strip_prefix(':')?;
        rest.trim().strip_suffix("kB")?.trim().parse().ok()
    })
}

/// Sets its flag when dropped: put in a tool's future, it tells a test
/// that the call stopped running (answered, cancelled or dropped).
pub struct Stopped(pub std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Drop for Stopped {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}
