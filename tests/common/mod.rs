//! Shared by the end-to-end tests: the weather example binary, built once.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The path of the `weather` example binary.
pub fn weather_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| example_binary("weather")).clone()
}

/// The path of the `progress` example binary.
pub fn progress_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| example_binary("progress")).clone()
}

/// Builds an example (test targets cannot depend on examples, so the test
/// asks cargo) and returns its executable.
fn example_binary(name: &str) -> PathBuf {
    {
        let output = Command::new(env!("CARGO"))
            .args([
                "build",
                "--quiet",
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

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// A server process driven over real pipes.
pub struct Process {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Process {
    pub fn spawn(binary: &std::path::Path) -> Process {
        let mut child = Command::new(binary)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the server");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Process {
            child,
            stdin,
            lines,
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
        let mut stderr = String::new();
        if let Some(mut err) = self.child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut err, &mut stderr);
        }
        (status.code(), rest, stderr)
    }
}
