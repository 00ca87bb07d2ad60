//! Speaking JSON-RPC lines to the server: the handshake, sequential calls
//! (latency) and pipelined calls (throughput), with every response's id
//! checked and every result checked not to be an error.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{ChildStdin, ChildStdout};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::value::RawValue;

/// The protocol version the driver asks for.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

pub type Error = String;

/// The `initialize` request the driver sends, asking for
/// [`PROTOCOL_VERSION`], over stdio and over HTTP.
pub fn initialize_template() -> Template {
    Template::new(
        "initialize",
        &serde_json::json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": { "name": "mcp-bench-driver", "version": env!("CARGO_PKG_VERSION") }
        })
        .to_string(),
    )
}

/// A request with everything but the id written out, so that sending one
/// costs the driver no allocation and no serialization.
pub struct Template {
    suffix: Vec<u8>,
}

impl Template {
    pub fn new(method: &str, params: &str) -> Template {
        let mut suffix = Vec::with_capacity(params.len() + method.len() + 32);
        suffix.extend_from_slice(b",\"method\":");
        suffix.extend_from_slice(serde_json::to_string(method).unwrap_or_default().as_bytes());
        suffix.extend_from_slice(b",\"params\":");
        suffix.extend_from_slice(params.as_bytes());
        suffix.extend_from_slice(b"}\n");
        Template { suffix }
    }

    pub fn write(&self, out: &mut impl Write, id: u64) -> std::io::Result<()> {
        out.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":")?;
        let mut digits = [0u8; 20];
        out.write_all(format_u64(id, &mut digits))?;
        out.write_all(&self.suffix)
    }
}

fn format_u64(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

#[derive(Deserialize)]
struct Head<'a> {
    #[serde(default)]
    id: Option<u64>,
    #[serde(default, borrow)]
    method: Option<&'a RawValue>,
    #[serde(default, borrow)]
    error: Option<&'a RawValue>,
    #[serde(default)]
    result: Option<ResultHead>,
}

#[derive(Deserialize)]
struct ResultHead {
    #[serde(default, rename = "isError")]
    is_error: Option<bool>,
}

/// What one line from the server is.
pub enum Line {
    /// A response to request `id`, successful and not `isError`.
    Ok(u64),
    /// A notification (or anything else without an id): skipped.
    Notification,
}

/// Classifies a line; a JSON-RPC error, an `isError` result, a request from
/// the server or an unreadable line is an error of the run.
pub fn classify(line: &[u8]) -> Result<Line, Error> {
    let head: Head<'_> = serde_json::from_slice(line).map_err(|e| {
        format!(
            "unreadable line from the server ({e}): {}",
            preview(line, 300)
        )
    })?;
    match (head.id, head.method) {
        (None, _) => {
            if let Some(error) = head.error {
                return Err(format!("error response without an id: {}", error.get()));
            }
            Ok(Line::Notification)
        }
        (Some(_), Some(method)) => Err(format!(
            "the server sent a request ({}), which the driver does not answer",
            method.get()
        )),
        (Some(id), None) => {
            if let Some(error) = head.error {
                return Err(format!(
                    "request {id} failed: {}",
                    preview(error.get().as_bytes(), 300)
                ));
            }
            match head.result {
                Some(ResultHead {
                    is_error: Some(true),
                }) => Err(format!(
                    "request {id} returned isError: {}",
                    preview(line, 400)
                )),
                Some(_) => Ok(Line::Ok(id)),
                None => Err(format!("response {id} has neither result nor error")),
            }
        }
    }
}

pub fn preview(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end();
    if text.len() <= max {
        text.to_owned()
    } else {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}… ({} bytes)", &text[..end], text.len())
    }
}

/// One connection to the server.
pub struct Conn {
    writer: BufWriter<ChildStdin>,
    reader: BufReader<ChildStdout>,
    line: Vec<u8>,
    next_id: u64,
    pub notifications: u64,
    /// The size of the last response [`Conn::call_value`] read, in bytes.
    pub last_response_bytes: usize,
}

/// The outcome of a pipelined phase.
pub struct Pipelined {
    pub calls: u64,
    pub wall: Duration,
}

impl Conn {
    pub fn new(stdin: ChildStdin, stdout: ChildStdout) -> Conn {
        Conn {
            writer: BufWriter::with_capacity(256 * 1024, stdin),
            reader: BufReader::with_capacity(1024 * 1024, stdout),
            line: Vec::with_capacity(256 * 1024),
            next_id: 1,
            notifications: 0,
            last_response_bytes: 0,
        }
    }

    fn read_line(&mut self) -> Result<&[u8], Error> {
        self.line.clear();
        match self.reader.read_until(b'\n', &mut self.line) {
            Ok(0) => Err("the server closed its stdout (exited or crashed)".into()),
            Ok(_) => Ok(&self.line),
            Err(e) => Err(format!("reading the server's stdout: {e}")),
        }
    }

    /// Sends one request and returns its full response (for the handshake
    /// and for checking what a workload returns), skipping notifications.
    pub fn call_value(&mut self, template: &Template) -> Result<serde_json::Value, Error> {
        let id = self.next_id;
        self.next_id += 1;
        template
            .write(&mut self.writer, id)
            .and_then(|()| self.writer.flush())
            .map_err(|e| format!("writing to the server: {e}"))?;
        loop {
            let line = self.read_line()?;
            let value: serde_json::Value = serde_json::from_slice(line)
                .map_err(|e| format!("unreadable line ({e}): {}", preview(line, 300)))?;
            if value.get("id").is_none() {
                self.notifications += 1;
                continue;
            }
            if value.get("id").and_then(serde_json::Value::as_u64) != Some(id) {
                return Err(format!(
                    "expected the response to {id}, got {}",
                    preview(line, 300)
                ));
            }
            self.last_response_bytes = line.len();
            if let Some(error) = value.get("error") {
                return Err(format!("request {id} failed: {error}"));
            }
            return value
                .get("result")
                .cloned()
                .ok_or_else(|| format!("response {id} has no result"));
        }
    }

    /// The id the next request should carry (and takes it).
    pub fn take_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Writes one request line as it is, without flushing (the tasks suite
    /// writes requests that depend on earlier answers).
    pub fn send_line(&mut self, line: &[u8]) -> Result<(), Error> {
        self.writer
            .write_all(line)
            .and_then(|()| self.writer.write_all(b"\n"))
            .map_err(|e| format!("writing to the server: {e}"))
    }

    pub fn flush(&mut self) -> Result<(), Error> {
        self.writer
            .flush()
            .map_err(|e| format!("writing to the server: {e}"))
    }

    /// Whether an answer is already read from the pipe but not yet taken.
    pub fn input_buffered(&self) -> bool {
        !self.reader.buffer().is_empty()
    }

    /// Reads the next line from the server, parsed.
    pub fn read_value(&mut self) -> Result<serde_json::Value, Error> {
        let line = self.read_line()?;
        serde_json::from_slice(line)
            .map_err(|e| format!("unreadable line ({e}): {}", preview(line, 300)))
    }

    pub fn notify(&mut self, method: &str) -> Result<(), Error> {
        writeln!(
            self.writer,
            "{{\"jsonrpc\":\"2.0\",\"method\":\"{method}\"}}"
        )
        .and_then(|()| self.writer.flush())
        .map_err(|e| format!("writing to the server: {e}"))
    }

    /// `count` calls one at a time (stopping early at `max_time`); returns
    /// each round trip.
    pub fn sequential(
        &mut self,
        template: &Template,
        count: u64,
        max_time: Duration,
    ) -> Result<Vec<Duration>, Error> {
        let mut times = Vec::with_capacity(count as usize);
        let start = Instant::now();
        for _ in 0..count {
            if start.elapsed() > max_time && !times.is_empty() {
                break;
            }
            let id = self.next_id;
            self.next_id += 1;
            let sent = Instant::now();
            template
                .write(&mut self.writer, id)
                .and_then(|()| self.writer.flush())
                .map_err(|e| format!("writing to the server: {e}"))?;
            loop {
                let line = self.read_line()?;
                match classify(line)? {
                    Line::Ok(got) if got == id => break,
                    Line::Ok(got) => {
                        return Err(format!("expected the response to {id}, got one to {got}"));
                    }
                    Line::Notification => self.notifications += 1,
                }
            }
            times.push(sent.elapsed());
        }
        Ok(times)
    }

    /// Up to `count` calls with at most `in_flight` unanswered at any time
    /// (no new ones after `max_time`). Every id sent must be answered
    /// exactly once.
    pub fn pipelined(
        &mut self,
        template: &Template,
        count: u64,
        in_flight: u64,
        max_time: Duration,
    ) -> Result<Pipelined, Error> {
        let base = self.next_id;
        let answered = AtomicU64::new(0);
        let sent_total = AtomicU64::new(u64::MAX); // known once the writer is done
        let writer_waiting = AtomicBool::new(false);
        let failed = AtomicBool::new(false);
        let mut seen = vec![false; count as usize];
        let start = Instant::now();
        let writer = &mut self.writer;
        let reader = &mut self.reader;
        let line = &mut self.line;
        let mut notifications = 0u64;
        let outcome: Result<(u64, Instant), Error> = std::thread::scope(|scope| {
            let writer_thread = scope.spawn(|| -> Result<u64, Error> {
                let mut sent = 0u64;
                if count == 0 {
                    sent_total.store(0, Ordering::SeqCst);
                }
                while sent < count {
                    if sent - answered.load(Ordering::SeqCst) >= in_flight {
                        writer
                            .flush()
                            .map_err(|e| format!("writing to the server: {e}"))?;
                        writer_waiting.store(true, Ordering::SeqCst);
                        while sent - answered.load(Ordering::SeqCst) >= in_flight {
                            if failed.load(Ordering::SeqCst) {
                                writer_waiting.store(false, Ordering::SeqCst);
                                return Ok(sent);
                            }
                            std::thread::park_timeout(Duration::from_millis(20));
                        }
                        writer_waiting.store(false, Ordering::SeqCst);
                    }
                    // The reader learns the total before the last request can
                    // reach the server (BufWriter may flush inside `write`),
                    // so it never waits for an answer that will not come.
                    let last = sent + 1 == count || start.elapsed() > max_time;
                    if last {
                        sent_total.store(sent + 1, Ordering::SeqCst);
                    }
                    template
                        .write(writer, base + sent)
                        .map_err(|e| format!("writing to the server: {e}"))?;
                    sent += 1;
                    if last {
                        break;
                    }
                }
                writer
                    .flush()
                    .map_err(|e| format!("writing to the server: {e}"))?;
                Ok(sent)
            });
            let writer_handle = writer_thread.thread().clone();
            let mut done = 0u64;
            let read = (|| -> Result<(), Error> {
                while done < sent_total.load(Ordering::SeqCst) {
                    line.clear();
                    match reader.read_until(b'\n', line) {
                        Ok(0) => {
                            return Err("the server closed its stdout (exited or crashed)".into());
                        }
                        Ok(_) => {}
                        Err(e) => return Err(format!("reading the server's stdout: {e}")),
                    }
                    match classify(line)? {
                        Line::Notification => notifications += 1,
                        Line::Ok(id) => {
                            let index = id
                                .checked_sub(base)
                                .filter(|&i| i < count)
                                .ok_or_else(|| format!("response to an id never sent: {id}"))?
                                as usize;
                            if std::mem::replace(&mut seen[index], true) {
                                return Err(format!("two responses to id {id}"));
                            }
                            done += 1;
                            answered.store(done, Ordering::SeqCst);
                            if writer_waiting.load(Ordering::SeqCst) {
                                writer_handle.unpark();
                            }
                        }
                    }
                }
                Ok(())
            })();
            let finished = Instant::now();
            if read.is_err() {
                failed.store(true, Ordering::SeqCst);
                writer_handle.unpark();
            }
            let sent = writer_thread
                .join()
                .map_err(|_| "the writer thread panicked".to_string())??;
            read?;
            if done != sent {
                return Err(format!("{sent} requests sent, {done} answered"));
            }
            Ok((sent, finished))
        });
        self.notifications += notifications;
        let (sent, finished) = outcome?;
        self.next_id = base + sent;
        Ok(Pipelined {
            calls: sent,
            wall: finished - start,
        })
    }
}

/// The error of a server run that failed: `error`, said to be a timeout
/// when the watchdog `fired`, with the end of the server's stderr (`log`).
pub fn run_failure(error: String, fired: bool, log: &std::path::Path) -> String {
    let error = if fired {
        format!("timed out (killed by the watchdog): {error}")
    } else {
        error
    };
    let stderr = std::fs::read(log).unwrap_or_default();
    if stderr.is_empty() {
        return error;
    }
    let tail = &stderr[stderr.len().saturating_sub(600)..];
    format!("{error}; server stderr: {}", preview(tail, 600))
}
