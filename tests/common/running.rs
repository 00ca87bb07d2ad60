//! A process of a test's (a server, a front) whose stderr the test reads
//! as it comes, to wait for what it logs: its URL, a line it must print.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Instant;

use super::step::STEP;

/// A process of ours whose stderr is read line by line as it comes: kept
/// in `log`, and sent on `lines` for the test to wait on. Killed on drop.
pub struct Running {
    what: &'static str,
    child: Child,
    log: Arc<Mutex<String>>,
    lines: mpsc::Receiver<String>,
}

impl Running {
    pub fn start(what: &'static str, command: &mut Command) -> Running {
        let mut child = command
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("could not start the {what}: {e}"));
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, lines) = mpsc::channel();
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                let mut log = sink.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
                drop(log);
                let _ = tx.send(line);
            }
        });
        Running {
            what,
            child,
            log,
            lines,
        }
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// The first line from now on for which `find` gives something, within
    /// [`STEP`].
    pub fn wait_for<T>(&self, waiting_for: &str, mut find: impl FnMut(&str) -> Option<T>) -> T {
        let deadline = Instant::now() + STEP;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if let Some(found) = find(&line) {
                        return found;
                    }
                }
                Err(_) => panic!(
                    "the {} did not log {waiting_for} within {STEP:?}; its log:\n{}",
                    self.what,
                    self.log()
                ),
            }
        }
    }

    /// Waits for the line saying it serves HTTP; its URL.
    pub fn serving(&self) -> String {
        self.wait_for("that it serves HTTP", |line| {
            let at = line.find("url=")?;
            line.contains("serving MCP over Streamable HTTP").then(|| {
                let url = line[at + 4..].split_whitespace().next().unwrap_or_default();
                url.trim_matches('"').to_owned()
            })
        })
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
