//! A soak run: a long, mixed, pipelined load through a real server binary
//! over pipes, checking that every request is answered exactly once with
//! the right answer and that the server's memory stays flat.
//!
//! ```sh
//! cargo run --release --example soak -- --seconds 120
//! ```
//!
//! By default it builds and drives `examples/hostile_target.rs` (with the
//! same profile as itself); `--server PATH` drives another binary that has
//! the same tools. The load, chosen by a seeded generator (`--seed N`):
//! valid calls, invalid arguments, panicking tools, tool errors, short slow
//! calls, long slow calls cancelled at once, cancels of calls already
//! answered, unknown methods, invalid requests, garbage lines, pings,
//! `tools/list` and unknown notifications, with at most `--window N`
//! (default 256) requests awaiting an answer.
//!
//! It samples the server's VmRSS from /proc every second, prints a summary
//! and exits non-zero on any lost, duplicated or wrong response, on a
//! non-zero server exit, or when RSS grows by more than `--max-growth-kb`
//! (default 8192) between the first and last fifths of the run after the
//! first tenth (warm-up).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

struct Options {
    seconds: u64,
    server: Option<PathBuf>,
    seed: u64,
    window: usize,
    max_growth_kb: u64,
}

fn options() -> Options {
    let mut options = Options {
        seconds: 60,
        server: None,
        seed: 1,
        window: 256,
        max_growth_kb: 8192,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| fail(&format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--seconds" => options.seconds = number(&value()),
            "--server" => options.server = Some(PathBuf::from(value())),
            "--seed" => options.seed = number(&value()),
            "--window" => options.window = number::<usize>(&value()).max(1),
            "--max-growth-kb" => options.max_growth_kb = number(&value()),
            "-h" | "--help" => {
                println!(
                    "usage: soak [--seconds N] [--server PATH] [--seed N] [--window N] [--max-growth-kb N]"
                );
                std::process::exit(0);
            }
            other => fail(&format!("unknown argument {other:?} (see --help)")),
        }
    }
    options
}

fn number<T: std::str::FromStr>(text: &str) -> T {
    text.parse()
        .unwrap_or_else(|_| fail(&format!("not a number: {text:?}")))
}

fn fail(message: &str) -> ! {
    eprintln!("soak: {message}");
    std::process::exit(2)
}

/// Builds `hostile_target` with the profile this example was built with.
fn build_target() -> PathBuf {
    let mut command = Command::new(env!("CARGO"));
    command
        .args([
            "build",
            "--quiet",
            "--example",
            "hostile_target",
            "--message-format=json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    let output = command
        .output()
        .unwrap_or_else(|e| fail(&format!("cargo: {e}")));
    if !output.status.success() {
        fail(&format!(
            "building hostile_target failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find_map(|m| {
            let wanted =
                m["target"]["name"] == "hostile_target" && m["target"]["kind"][0] == "example";
            wanted.then(|| m["executable"].as_str().map(PathBuf::from))?
        })
        .unwrap_or_else(|| fail("cargo reported no hostile_target executable"))
}

/// What a request must be answered with.
#[derive(Clone, Debug, PartialEq)]
enum Expect {
    AnyResult,
    Text(String),
    ToolError(Option<String>),
    InvalidArguments,
    Pong,
    ToolList,
    Error(i64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Initialize,
    Echo,
    InvalidArguments,
    Panic,
    Fail,
    SlowShort,
    SlowCancelled,
    CancelAfterFinish,
    UnknownMethod,
    InvalidRequest,
    Garbage,
    Ping,
    ToolsList,
    Notification,
}

/// (kind, weight out of 100).
const MIX: [(Kind, u32); 13] = [
    (Kind::Echo, 34),
    (Kind::InvalidArguments, 8),
    (Kind::Panic, 5),
    (Kind::Fail, 5),
    (Kind::SlowShort, 10),
    (Kind::SlowCancelled, 5),
    (Kind::CancelAfterFinish, 4),
    (Kind::UnknownMethod, 5),
    (Kind::InvalidRequest, 4),
    (Kind::Garbage, 5),
    (Kind::Ping, 8),
    (Kind::ToolsList, 2),
    (Kind::Notification, 5),
];

/// xorshift64*: small, seeded, good enough to pick a mix.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn kind(&mut self) -> Kind {
        let mut roll = self.below(100) as u32;
        for (kind, weight) in MIX {
            if roll < weight {
                return kind;
            }
            roll -= weight;
        }
        Kind::Echo
    }
}

#[derive(Default)]
struct Shared {
    /// id -> what it must be answered with.
    pending: HashMap<u64, Expect>,
    /// Ids cancelled while running: any answer is a mismatch.
    cancelled: HashMap<u64, ()>,
    /// Answers with a null id still expected (garbage lines).
    null_expected: u64,
    /// Ids already answered, for cancel-after-finish.
    answered: VecDeque<u64>,
    mismatches: Vec<String>,
    mismatch_count: u64,
}

struct State {
    shared: Mutex<Shared>,
    changed: Condvar,
    received: AtomicU64,
    notifications: AtomicU64,
    done_reading: AtomicBool,
}

impl State {
    fn mismatch(shared: &mut Shared, what: String) {
        shared.mismatch_count += 1;
        if shared.mismatches.len() < 20 {
            shared.mismatches.push(what);
        }
    }

    fn outstanding(shared: &Shared) -> usize {
        shared.pending.len() + shared.null_expected as usize
    }
}

fn main() {
    let options = options();
    let server = options.server.clone().unwrap_or_else(build_target);
    eprintln!(
        "soak: {} for {} s, seed {}, window {}",
        server.display(),
        options.seconds,
        options.seed,
        options.window
    );
    let mut child = Command::new(&server)
        .env("RUST_BACKTRACE", "0")
        .env("RUST_LOG", "error")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| fail(&format!("spawn {}: {e}", server.display())));
    let pid = child.id();
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let stderr_bytes = Arc::new(AtomicU64::new(0));
    let stderr_panics = Arc::new(AtomicU64::new(0));
    let stderr_reader = {
        let bytes = Arc::clone(&stderr_bytes);
        let panics = Arc::clone(&stderr_panics);
        std::thread::spawn(move || {
            // Keep only a count: deliberate panics are logged on every call.
            let mut buf = vec![0u8; 1 << 16];
            let mut tail = String::new();
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                bytes.fetch_add(n as u64, Ordering::Relaxed);
                tail.push_str(&String::from_utf8_lossy(&buf[..n]));
                let runtime_panics = tail
                    .lines()
                    .filter(|l| l.contains("panicked at") && !l.contains("hostile_target.rs"))
                    .count();
                panics.fetch_add(runtime_panics as u64, Ordering::Relaxed);
                // Keep the last partial line only.
                let keep = tail.rfind('\n').map_or(0, |i| i + 1);
                tail.drain(..keep);
            }
        })
    };

    let state = Arc::new(State {
        shared: Mutex::new(Shared::default()),
        changed: Condvar::new(),
        received: AtomicU64::new(0),
        notifications: AtomicU64::new(0),
        done_reading: AtomicBool::new(false),
    });

    let reader = {
        let state = Arc::clone(&state);
        std::thread::spawn(move || read_answers(stdout, &state))
    };

    let started = Instant::now();
    let samples: Arc<Mutex<Vec<(f64, u64)>>> = Arc::default();
    let sampling = Arc::new(AtomicBool::new(true));
    let sampler = {
        let samples = Arc::clone(&samples);
        let sampling = Arc::clone(&sampling);
        let state = Arc::clone(&state);
        std::thread::spawn(move || {
            let mut next = Instant::now();
            let mut count: u64 = 0;
            while sampling.load(Ordering::Relaxed) {
                if let Some(rss) = status_kb(pid, "VmRSS") {
                    let t = started.elapsed().as_secs_f64();
                    samples.lock().unwrap().push((t, rss));
                    count += 1;
                    if count % 10 == 1 {
                        eprintln!(
                            "soak: t={t:>5.1}s received={} rss={rss} kB threads={}",
                            state.received.load(Ordering::Relaxed),
                            status_kb(pid, "Threads").unwrap_or_default()
                        );
                    }
                }
                next += Duration::from_secs(1);
                std::thread::sleep(next.saturating_duration_since(Instant::now()));
            }
        })
    };

    // Writes the load, waits for the answers still due, then closes stdin.
    let sent = write_load(stdin, &state, &options, started);
    let status = wait_exit(&mut child, Duration::from_secs(30));
    reader.join().expect("reader");
    sampling.store(false, Ordering::Relaxed);
    sampler.join().expect("sampler");
    stderr_reader.join().expect("stderr reader");
    let elapsed = started.elapsed();

    let shared = state.shared.lock().unwrap();
    let lost = shared.pending.len() as u64 + shared.null_expected;
    let samples = samples.lock().unwrap().clone();
    let received = state.received.load(Ordering::Relaxed);
    let total_sent: u64 = sent.values().sum();
    println!("soak summary ({elapsed:.1?}, server {})", server.display());
    for (kind, n) in &sent {
        println!("  sent {kind:?}: {n}");
    }
    let answers_due = total_sent
        - sent.get(&Kind::SlowCancelled).copied().unwrap_or(0)
        - sent.get(&Kind::CancelAfterFinish).copied().unwrap_or(0)
        - sent.get(&Kind::Notification).copied().unwrap_or(0);
    println!("  lines sent: {total_sent} ({answers_due} expecting an answer)");
    println!("  responses received: {received}");
    println!(
        "  notifications received: {}",
        state.notifications.load(Ordering::Relaxed)
    );
    println!(
        "  throughput: {:.0} lines/s",
        total_sent as f64 / elapsed.as_secs_f64()
    );
    println!("  lost (never answered): {lost}");
    println!(
        "  mismatches (duplicate, unexpected or wrong answers): {}",
        shared.mismatch_count
    );
    for m in &shared.mismatches {
        println!("    {m}");
    }
    println!(
        "  server exit: {status:?}; stderr {} bytes, runtime panics in stderr: {}",
        stderr_bytes.load(Ordering::Relaxed),
        stderr_panics.load(Ordering::Relaxed)
    );
    let verdict_rss = rss_report(&samples, options.max_growth_kb);
    let ok = lost == 0
        && shared.mismatch_count == 0
        && received == answers_due
        && status == Some(0)
        && stderr_panics.load(Ordering::Relaxed) == 0
        && verdict_rss;
    println!("  verdict: {}", if ok { "PASS" } else { "FAIL" });
    std::process::exit(if ok { 0 } else { 1 });
}

/// Writes the load until the time is up; returns lines sent per kind.
fn write_load(
    stdin: std::process::ChildStdin,
    state: &State,
    options: &Options,
    started: Instant,
) -> BTreeMap<Kind, u64> {
    let mut out = BufWriter::with_capacity(1 << 16, stdin);
    let mut rng = Rng(options.seed.max(1));
    let mut sent: BTreeMap<Kind, u64> = BTreeMap::new();
    let deadline = started + Duration::from_secs(options.seconds);
    let mut id: u64 = 0;
    let init = json!({"jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "soak", "version": "0"}}});
    expect(state, id, Expect::AnyResult);
    *sent.entry(Kind::Initialize).or_default() += 1;
    writeln!(out, "{init}").expect("write");
    writeln!(
        out,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .expect("write");
    let mut unflushed = 0;
    while Instant::now() < deadline {
        // Flow control: at most `window` answers outstanding.
        {
            let mut shared = state.shared.lock().unwrap();
            if State::outstanding(&shared) >= options.window {
                out.flush().expect("flush");
                unflushed = 0;
                while State::outstanding(&shared) >= options.window
                    && !state.done_reading.load(Ordering::Relaxed)
                {
                    shared = state
                        .changed
                        .wait_timeout(shared, Duration::from_millis(100))
                        .unwrap()
                        .0;
                }
            }
        }
        id += 1;
        let kind = rng.kind();
        let n = rng.below(1_000_000);
        let line = match kind {
            Kind::Echo => {
                let text = format!("echo {n} ✓");
                expect(state, id, Expect::Text(text.clone()));
                call(id, "echo", json!({ "text": text }))
            }
            Kind::InvalidArguments => {
                expect(state, id, Expect::InvalidArguments);
                let arguments = match n % 3 {
                    0 => json!({ "text": n }),
                    1 => json!({ "text": "x", "extra": true }),
                    _ => json!({}),
                };
                call(id, "echo", arguments)
            }
            Kind::Panic => {
                expect(state, id, Expect::ToolError(None));
                let tool = if n.is_multiple_of(2) {
                    "panic"
                } else {
                    "panic_blocking"
                };
                call(id, tool, json!({ "message": format!("soak panic {n}") }))
            }
            Kind::Fail => {
                let message = format!("soak failure {n}");
                expect(state, id, Expect::ToolError(Some(message.clone())));
                call(id, "fail", json!({ "message": message }))
            }
            Kind::SlowShort => {
                let ms = n % 20;
                expect(state, id, Expect::Text(format!("slept {ms}ms")));
                with_progress(call(id, "slow", json!({ "ms": ms })), id)
            }
            Kind::SlowCancelled => {
                state.shared.lock().unwrap().cancelled.insert(id, ());
                let line = with_progress(call(id, "slow", json!({ "ms": 60_000 })), id);
                format!(
                    "{line}\n{}",
                    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": id, "reason": "soak"}})
                )
            }
            Kind::CancelAfterFinish => {
                let done = state.shared.lock().unwrap().answered.pop_front();
                let target = done.unwrap_or(u64::MAX);
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": target}})
                .to_string()
            }
            Kind::UnknownMethod => {
                expect(state, id, Expect::Error(-32601));
                json!({"jsonrpc": "2.0", "id": id, "method": format!("soak/unknown{}", n % 7)})
                    .to_string()
            }
            Kind::InvalidRequest => {
                expect(state, id, Expect::Error(-32600));
                json!({"jsonrpc": "2.0", "id": id, "params": {}}).to_string()
            }
            Kind::Garbage => {
                state.shared.lock().unwrap().null_expected += 1;
                match n % 4 {
                    0 => "{\"jsonrpc\":\"2.0\",\"id\":".to_owned(),
                    1 => "garbage \u{1F4A5}".to_owned(),
                    2 => format!("{}1{}", "[".repeat(300), "]".repeat(300)),
                    _ => "{\"a\":tru}".to_owned(),
                }
            }
            Kind::Ping => {
                expect(state, id, Expect::Pong);
                json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string()
            }
            Kind::ToolsList => {
                expect(state, id, Expect::ToolList);
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}).to_string()
            }
            Kind::Initialize => unreachable!("sent once, before the load"),
            Kind::Notification => {
                json!({"jsonrpc": "2.0", "method": "notifications/soak", "params": {"n": n}})
                    .to_string()
            }
        };
        *sent.entry(kind).or_default() += 1;
        if writeln!(out, "{line}").is_err() {
            eprintln!("soak: the server stopped reading");
            break;
        }
        unflushed += 1;
        if unflushed >= 64 {
            out.flush().expect("flush");
            unflushed = 0;
        }
    }
    let _ = out.flush();
    // Stdin stays open until the answers are in; then EOF.
    drain(state);
    drop(out);
    sent
}

/// Waits (up to 60 s) for every answer still due.
fn drain(state: &State) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut shared = state.shared.lock().unwrap();
    while State::outstanding(&shared) > 0 && Instant::now() < deadline {
        shared = state
            .changed
            .wait_timeout(shared, Duration::from_millis(100))
            .unwrap()
            .0;
    }
}

fn call(id: u64, name: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
    .to_string()
}

/// Asks for progress notifications on a call line.
fn with_progress(line: String, id: u64) -> String {
    let mut message: Value = serde_json::from_str(&line).expect("a call is JSON");
    message["params"]["_meta"] = json!({ "progressToken": format!("p{id}") });
    message.to_string()
}

fn expect(state: &State, id: u64, what: Expect) {
    state.shared.lock().unwrap().pending.insert(id, what);
}

fn read_answers(stdout: std::process::ChildStdout, state: &State) {
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        let message: Value = match serde_json::from_str(&line) {
            Ok(message) => message,
            Err(e) => {
                let mut shared = state.shared.lock().unwrap();
                State::mismatch(&mut shared, format!("not JSON ({e}): {line:.200}"));
                continue;
            }
        };
        if message.get("method").is_some() {
            state.notifications.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        state.received.fetch_add(1, Ordering::Relaxed);
        let mut shared = state.shared.lock().unwrap();
        match message["id"].as_u64() {
            None if message["id"].is_null() => {
                let code = message["error"]["code"].as_i64();
                if shared.null_expected == 0 {
                    State::mismatch(&mut shared, format!("unexpected: {line:.200}"));
                } else if !matches!(code, Some(-32700 | -32600)) {
                    State::mismatch(&mut shared, format!("wrong null-id answer: {line:.200}"));
                } else {
                    shared.null_expected -= 1;
                }
            }
            None => State::mismatch(&mut shared, format!("bad id: {line:.200}")),
            Some(id) => {
                if shared.cancelled.contains_key(&id) {
                    State::mismatch(
                        &mut shared,
                        format!("answer to a cancelled call: {line:.200}"),
                    );
                } else if let Some(expected) = shared.pending.remove(&id) {
                    if let Err(problem) = check(&expected, &message) {
                        State::mismatch(&mut shared, format!("{problem}: {line:.200}"));
                    }
                    if shared.answered.len() < 1024 {
                        shared.answered.push_back(id);
                    }
                } else {
                    State::mismatch(&mut shared, format!("duplicate or unknown id: {line:.200}"));
                }
            }
        }
        drop(shared);
        state.changed.notify_all();
    }
    state.done_reading.store(true, Ordering::Relaxed);
    state.changed.notify_all();
}

fn check(expected: &Expect, message: &Value) -> Result<(), String> {
    let result = &message["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    let ok = match expected {
        Expect::AnyResult => result.is_object(),
        Expect::Pong => *result == json!({}),
        Expect::ToolList => result["tools"].as_array().is_some_and(|t| !t.is_empty()),
        Expect::Text(want) => result["isError"] == false && text == want,
        Expect::ToolError(Some(want)) => result["isError"] == true && text == want,
        Expect::ToolError(None) => {
            result["isError"] == true && text.ends_with("failed with an internal error")
        }
        Expect::InvalidArguments => {
            result["isError"] == true && text.starts_with("Invalid arguments for tool `echo`")
        }
        Expect::Error(code) => message["error"]["code"] == *code,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("expected {expected:?}"))
    }
}

/// Waits for the server to exit after EOF; kills it after `timeout`.
fn wait_exit(child: &mut std::process::Child, timeout: Duration) -> Option<i32> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn status_kb(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|line| {
        let rest = line.strip_prefix(field)?.strip_prefix(':')?;
        rest.trim().trim_end_matches("kB").trim().parse().ok()
    })
}

/// Prints the RSS over time; returns whether it stayed flat after warm-up.
fn rss_report(samples: &[(f64, u64)], max_growth_kb: u64) -> bool {
    if samples.len() < 10 {
        println!("  rss: too few samples ({}) to judge", samples.len());
        return true;
    }
    println!("  rss over time (VmRSS, kB):");
    let step = (samples.len() / 12).max(1);
    for (t, rss) in samples.iter().step_by(step) {
        println!("    t={t:>6.1}s {rss:>8}");
    }
    let warm = samples.len() / 10;
    let rest = &samples[warm..];
    let fifth = (rest.len() / 5).max(1);
    let median = |part: &[(f64, u64)]| {
        let mut values: Vec<u64> = part.iter().map(|(_, r)| *r).collect();
        values.sort_unstable();
        values[values.len() / 2]
    };
    let early = median(&rest[..fifth]);
    let late = median(&rest[rest.len() - fifth..]);
    let peak = samples.iter().map(|(_, r)| *r).max().unwrap_or(0);
    let growth = late.saturating_sub(early);
    println!(
        "  rss after warm-up: first fifth median {early} kB, last fifth median {late} kB, \
         growth {growth} kB (limit {max_growth_kb}), peak {peak} kB"
    );
    growth <= max_growth_kb
}
