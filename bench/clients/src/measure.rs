//! The runs: one fresh server per client, workload and round, clients
//! interleaved (ours rmcp ours rmcp ...).

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::Options;
use crate::clients::Caller;

pub struct Workload {
    pub name: &'static str,
    tool: &'static str,
    /// Warm-up, sequential and pipelined calls of a full run (the driver's).
    counts: [u64; 3],
}

/// The basic server's tools, with the stdio suite's arguments.
pub const WORKLOADS: [Workload; 3] = [
    Workload {
        name: "echo",
        tool: "echo",
        counts: [500, 5_000, 60_000],
    },
    Workload {
        name: "order",
        tool: "order",
        counts: [500, 5_000, 40_000],
    },
    Workload {
        name: "payload",
        tool: "payload",
        counts: [50, 1_000, 5_000],
    },
];

const PAYLOAD_BYTES: usize = 64 * 1024;

fn payload() -> String {
    (0..PAYLOAD_BYTES)
        .map(|i| (b'A' + (i * 7 % 26) as u8) as char)
        .collect()
}

fn arguments(workload: &Workload) -> Map<String, Value> {
    let value = match workload.name {
        "echo" => json!({ "text": "hello, world" }),
        "order" => json!({ "id": 42, "lines": 8 }),
        _ => json!({ "data": payload() }),
    };
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// What the first answer of a run must hold.
fn check(workload: &Workload, result: &Value) -> Result<(), String> {
    let text = result.pointer("/content/0/text").and_then(Value::as_str);
    let ok = match workload.name {
        "echo" => text == Some("hello, world"),
        "order" => {
            result.pointer("/structuredContent/id") == Some(&json!(42))
                && result
                    .pointer("/structuredContent/lines")
                    .and_then(Value::as_array)
                    .map(Vec::len)
                    == Some(8)
        }
        _ => text.is_some_and(|t| t == payload()),
    };
    if ok {
        Ok(())
    } else {
        let shown: String = result.to_string().chars().take(300).collect();
        Err(format!("{}: unexpected answer {shown}", workload.name))
    }
}

#[derive(Serialize, Default)]
struct Phase {
    calls: u64,
    wall_s: f64,
    calls_per_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    p50_us: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    p99_us: Option<f64>,
    /// This process (the client, all its threads): getrusage.
    client_cpu_us_per_call: f64,
    /// The server's threads: schedstat.
    server_cpu_us_per_call: f64,
}

#[derive(Serialize, Default)]
struct Run {
    round: u32,
    client: String,
    workload: String,
    error: Option<String>,
    /// Spawn to a connected client (the handshake done).
    connect_ms: Option<f64>,
    sequential: Option<Phase>,
    pipelined: Option<Phase>,
    in_flight: u64,
    load1: Option<f64>,
}

pub async fn run_all(options: &Options) -> Result<(), String> {
    std::fs::create_dir_all(&options.out).map_err(|e| e.to_string())?;
    let path = options.out.join("clients.jsonl");
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let started = Instant::now();
    for round in 1..=options.rounds {
        for workload in WORKLOADS
            .iter()
            .filter(|w| options.workloads.iter().any(|n| n == w.name))
        {
            for client in &options.clients {
                let run = one(options, client, workload, round).await;
                eprintln!(
                    "[{:>4.0}s] round {round}/{}  client {:<5} {:<8} {}",
                    started.elapsed().as_secs_f64(),
                    options.rounds,
                    client,
                    workload.name,
                    brief(&run)
                );
                serde_json::to_writer(&mut out, &run).map_err(|e| e.to_string())?;
                out.write_all(b"\n").map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}

fn brief(run: &Run) -> String {
    if let Some(e) = &run.error {
        return format!("FAILED: {e}");
    }
    let (Some(seq), Some(pipe)) = (&run.sequential, &run.pipelined) else {
        return String::new();
    };
    format!(
        "{:>8.0} calls/s  p50 {:>6.1} µs  p99 {:>6.1} µs  client cpu {:>5.1} µs/call  server cpu {:>5.1} µs/call",
        pipe.calls_per_s,
        seq.p50_us.unwrap_or(0.0),
        seq.p99_us.unwrap_or(0.0),
        pipe.client_cpu_us_per_call,
        pipe.server_cpu_us_per_call,
    )
}

async fn one(options: &Options, client: &str, workload: &Workload, round: u32) -> Run {
    let mut run = Run {
        round,
        client: client.into(),
        workload: workload.name.into(),
        in_flight: options.in_flight,
        load1: std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok()),
        ..Run::default()
    };
    let spawned = Instant::now();
    let caller = match tokio::time::timeout(
        Duration::from_secs(20),
        Caller::connect(client, &options.server),
    )
    .await
    {
        Ok(Ok(caller)) => caller,
        Ok(Err(e)) => {
            run.error = Some(e);
            return run;
        }
        Err(_) => {
            run.error = Some("the handshake took more than 20 s".into());
            return run;
        }
    };
    run.connect_ms = Some(spawned.elapsed().as_secs_f64() * 1e3);
    let limit = if options.quick {
        Duration::from_secs(30)
    } else {
        Duration::from_secs(60)
    };
    let measured = tokio::time::timeout(limit, phases(options, &caller, workload, &mut run)).await;
    match measured {
        Ok(Ok(())) => {}
        Ok(Err(e)) => run.error = Some(e),
        Err(_) => run.error = Some(format!("timed out after {} s", limit.as_secs())),
    }
    let _ = tokio::time::timeout(Duration::from_secs(10), caller.close()).await;
    wait_for_no_children(Duration::from_secs(5)).await;
    run
}

async fn phases(
    options: &Options,
    caller: &Caller,
    workload: &Workload,
    run: &mut Run,
) -> Result<(), String> {
    let server = match children()[..] {
        [pid] => pid,
        ref pids => return Err(format!("expected one server process, found {}", pids.len())),
    };
    let arguments = Arc::new(arguments(workload));
    check(
        workload,
        &caller.call(workload.tool, &arguments, true).await?,
    )?;
    let scale = |n: u64| if options.quick { (n / 5).max(5) } else { n };
    let [warm, seq, pipe] = workload.counts.map(scale);
    let (seq_time, pipe_time) = if options.quick {
        (Duration::from_millis(300), Duration::from_millis(500))
    } else {
        (Duration::from_millis(1500), Duration::from_millis(2500))
    };
    pipelined(
        caller,
        workload,
        &arguments,
        warm,
        options.in_flight,
        Duration::from_secs(10),
    )
    .await?;

    let before = (self_cpu_ns(), cpu_ns_of(server));
    let mut times = Vec::with_capacity(seq as usize);
    let start = Instant::now();
    for _ in 0..seq {
        if start.elapsed() > seq_time && !times.is_empty() {
            break;
        }
        let sent = Instant::now();
        caller.call(workload.tool, &arguments, false).await?;
        times.push(sent.elapsed());
    }
    let after = (self_cpu_ns(), cpu_ns_of(server));
    times.sort_unstable();
    let calls = times.len() as u64;
    let quantile = |q: f64| {
        let i = ((times.len() as f64 * q).ceil() as usize).clamp(1, times.len()) - 1;
        times[i].as_secs_f64() * 1e6
    };
    let wall: f64 = times.iter().map(Duration::as_secs_f64).sum();
    let per_call = |a: u64, b: u64, calls: u64| b.saturating_sub(a) as f64 / 1e3 / calls as f64;
    run.sequential = Some(Phase {
        calls,
        wall_s: wall,
        calls_per_s: calls as f64 / wall,
        p50_us: Some(quantile(0.5)),
        p99_us: Some(quantile(0.99)),
        client_cpu_us_per_call: per_call(before.0, after.0, calls),
        server_cpu_us_per_call: per_call(before.1, after.1, calls),
    });

    let before = (self_cpu_ns(), cpu_ns_of(server));
    let (calls, wall) = pipelined(
        caller,
        workload,
        &arguments,
        pipe,
        options.in_flight,
        pipe_time,
    )
    .await?;
    let after = (self_cpu_ns(), cpu_ns_of(server));
    run.pipelined = Some(Phase {
        calls,
        wall_s: wall.as_secs_f64(),
        calls_per_s: calls as f64 / wall.as_secs_f64(),
        p50_us: None,
        p99_us: None,
        client_cpu_us_per_call: per_call(before.0, after.0, calls),
        server_cpu_us_per_call: per_call(before.1, after.1, calls),
    });
    Ok(())
}

/// Up to `count` calls from `in_flight` tasks sharing the client, each
/// calling again when answered (no new calls after `max_time`). Returns
/// the calls answered and the wall time.
async fn pipelined(
    caller: &Caller,
    workload: &Workload,
    arguments: &Arc<Map<String, Value>>,
    count: u64,
    in_flight: u64,
    max_time: Duration,
) -> Result<(u64, Duration), String> {
    let issued = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let tasks: Vec<_> = (0..in_flight.min(count).max(1))
        .map(|_| {
            let (caller, arguments, issued) = (caller.clone(), arguments.clone(), issued.clone());
            let tool = workload.tool;
            tokio::spawn(async move {
                let mut done = 0u64;
                while issued.fetch_add(1, Ordering::Relaxed) < count && start.elapsed() <= max_time
                {
                    caller.call(tool, &arguments, false).await?;
                    done += 1;
                }
                Ok::<u64, String>(done)
            })
        })
        .collect();
    let mut calls = 0;
    let mut first_error = None;
    for task in tasks {
        match task.await {
            Ok(Ok(done)) => calls += done,
            Ok(Err(e)) => {
                first_error.get_or_insert(e);
            }
            Err(e) => {
                first_error.get_or_insert(format!("a caller task failed: {e}"));
            }
        }
    }
    let wall = start.elapsed();
    match first_error {
        Some(e) => Err(e),
        None => Ok((calls, wall)),
    }
}

/// This process's children (the server it spawned).
fn children() -> Vec<i32> {
    let me = std::process::id() as i32;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    let rest = &stat[stat.rfind(')')? + 1..];
                    let mut fields = rest.split_whitespace();
                    let state = fields.next()?;
                    let ppid = fields.next()?.parse::<i32>().ok()?;
                    Some(ppid == me && state != "Z")
                })
                .unwrap_or(false)
        })
        .collect()
}

async fn wait_for_no_children(limit: Duration) {
    let start = Instant::now();
    while !children().is_empty() && start.elapsed() < limit {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// CPU time of process `pid`'s threads so far, nanoseconds (schedstat).
fn cpu_ns_of(pid: i32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// CPU time of this process so far, all threads, nanoseconds.
fn self_cpu_ns() -> u64 {
    // SAFETY: all-zero is a valid rusage; getrusage only writes to it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a local rusage.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0;
    }
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
    tv(usage.ru_utime) + tv(usage.ru_stime)
}
