//! The runtime benchmark: every workload against every peer, interleaved
//! (A B C D A B C D ...), one fresh server process per run.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::load::{Conn, PROTOCOL_VERSION, Template, initialize_template};
use crate::process::{Server, Watchdog};
use crate::workloads::{self, Workload};

/// A framework under test and how to start its two servers.
#[derive(Clone, Debug)]
pub struct Peer {
    pub name: String,
    basic: (String, Vec<String>),
    many: (String, Vec<String>),
    /// Serves the 2026-07-28 era (requests without `initialize`); the
    /// modern workloads are not run against the others.
    pub modern: bool,
}

/// The peers the driver knows. `rmcp-pipes` is rmcp served over
/// `transport::stdio_pipes()`, which its docs recommend when both streams
/// are pipes; `rmcp` uses the default `transport::stdio()`. `chain` is not
/// a framework but ours forwarding: a stdio front (`ours-chain`) mounting
/// ours' server, run only when asked for (see [`FRONTS`]).
pub fn known_peers() -> Vec<Peer> {
    let plain = |name: &str, modern: bool| Peer {
        name: name.into(),
        basic: (format!("{name}-basic"), vec![]),
        many: (format!("{name}-many"), vec![]),
        modern,
    };
    vec![
        plain("ours", true),
        plain("rmcp", true),
        Peer {
            name: "rmcp-pipes".into(),
            basic: ("rmcp-basic".into(), vec!["--pipes".into()]),
            many: ("rmcp-many".into(), vec!["--pipes".into()]),
            modern: true,
        },
        plain("flymcp", false),
        plain("floor", false),
        Peer {
            name: "chain".into(),
            basic: (
                "ours-chain".into(),
                vec!["--upstream".into(), "ours-basic".into()],
            ),
            many: (
                "ours-chain".into(),
                vec!["--upstream".into(), "ours-many".into()],
            ),
            modern: false,
        },
    ]
}

/// The peers that forward to `ours` rather than serve: not run unless named.
pub const FRONTS: [&str; 1] = ["chain"];

/// The peers run when none are named: the frameworks.
pub fn default_peers() -> Vec<Peer> {
    known_peers()
        .into_iter()
        .filter(|p| !FRONTS.contains(&p.name.as_str()))
        .collect()
}

pub struct Options {
    pub bin_dir: PathBuf,
    pub out_dir: PathBuf,
    pub peers: Vec<Peer>,
    pub workloads: Vec<String>,
    pub rounds: u32,
    pub quick: bool,
    pub in_flight: u64,
}

/// One phase's figures.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct Phase {
    pub calls: u64,
    pub wall_s: f64,
    pub calls_per_s: f64,
    pub p50_us: Option<f64>,
    pub p99_us: Option<f64>,
    /// Server CPU per call from per-thread schedstat (ns resolution).
    pub cpu_us_per_call: f64,
    /// The same from /proc/PID/stat (tick resolution, includes exited threads).
    pub cpu_ticks_us_per_call: f64,
    /// A forwarding front's upstream (the process it spawned): its CPU per
    /// call (schedstat), not included in `cpu_us_per_call`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_cpu_us_per_call: Option<f64>,
}

/// One run: one server process, one workload.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct Run {
    pub round: u32,
    pub peer: String,
    pub workload: String,
    pub error: Option<String>,
    /// Spawn to the initialize response.
    pub init_ms: Option<f64>,
    pub sequential: Option<Phase>,
    pub pipelined: Option<Phase>,
    /// VmHWM after the last phase.
    pub peak_rss_kib: Option<u64>,
    /// From wait4.
    pub maxrss_kib: Option<u64>,
    pub total_cpu_ms: Option<f64>,
    pub clean_exit: Option<bool>,
    /// It did not exit within 10 s of stdin closing and was killed.
    pub killed: Option<bool>,
    /// A forwarding front's upstream: its VmHWM after the last phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_peak_rss_kib: Option<u64>,
    /// Its CPU time over its whole life (wait4), when the driver reaped it
    /// (the front exited first, leaving it to the driver, a subreaper);
    /// when the front reaped it, `total_cpu_ms` includes it instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_total_cpu_ms: Option<f64>,
    pub notifications: u64,
    pub in_flight: u64,
    /// The 1-minute load average when the run started (the machine's other
    /// work competes with the server and the driver).
    pub load1: Option<f64>,
    /// The size of the first checked response, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_bytes: Option<u64>,
    /// The `ttlMs` of the first checked result, when it had one (a modern
    /// list or `server/discover`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
}

fn scale(count: u64, quick: bool) -> u64 {
    if quick { (count / 5).max(5) } else { count }
}

/// `initialize` (protocol [`PROTOCOL_VERSION`]) and
/// `notifications/initialized`: the legacy era's start.
fn handshake(conn: &mut Conn) -> Result<(), String> {
    let init = conn.call_value(&initialize_template())?;
    if init.get("protocolVersion").and_then(|v| v.as_str()) != Some(PROTOCOL_VERSION) {
        return Err(format!("initialize negotiated something else: {init}"));
    }
    conn.notify("notifications/initialized")
}

fn run_one(
    options: &Options,
    peer: &Peer,
    workload: &Workload,
    template: &Template,
    round: u32,
) -> Run {
    let mut run = Run {
        round,
        peer: peer.name.clone(),
        workload: workload.name.into(),
        in_flight: options.in_flight,
        load1: std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok()),
        ..Run::default()
    };
    let (bin, args) = match workload.server {
        workloads::Server::Basic => &peer.basic,
        workloads::Server::Many => &peer.many,
    };
    let program = options.bin_dir.join(bin);
    let log = std::env::temp_dir().join(format!(
        "mcp-bench-{}-{}-{}.stderr",
        std::process::id(),
        peer.name,
        workload.name
    ));
    let mut server = match Server::spawn(&program, args, &log) {
        Ok(server) => server,
        Err(e) => {
            run.error = Some(format!("cannot start {}: {e}", program.display()));
            return run;
        }
    };
    let (seq_time, pipe_time) = if options.quick {
        (Duration::from_millis(300), Duration::from_millis(500))
    } else {
        (Duration::from_millis(1500), Duration::from_millis(2500))
    };
    let watchdog = Watchdog::arm(server.pid, seq_time + pipe_time + Duration::from_secs(60));
    let (Some(stdin), Some(stdout)) = (server.stdin.take(), server.stdout.take()) else {
        run.error = Some("no pipes".into());
        return run;
    };
    let mut conn = Conn::new(stdin, stdout);
    // A front's upstream, spawned before the front answers `initialize`.
    let mut upstream: Option<i32> = None;
    let measured = (|| -> Result<(), String> {
        if !workload.modern() {
            handshake(&mut conn)?;
            run.init_ms = Some(server.spawned_at.elapsed().as_secs_f64() * 1e3);
        }
        upstream = server.children().first().copied();
        let upstream_cpu = || upstream.map(crate::process::cpu_ns_of);

        let [warm, seq, pipe] = workload.counts.map(|c| scale(c, options.quick));
        let first = conn.call_value(template)?;
        run.response_bytes = Some(conn.last_response_bytes as u64);
        run.ttl_ms = first.get("ttlMs").and_then(serde_json::Value::as_u64);
        if workload.modern() {
            // No handshake: the first answer is the start-up figure.
            run.init_ms = Some(server.spawned_at.elapsed().as_secs_f64() * 1e3);
        }
        if first.get("isError") == Some(&serde_json::Value::Bool(true)) {
            return Err(format!(
                "isError: {}",
                crate::load::preview(first.to_string().as_bytes(), 400)
            ));
        }
        (workload.check)(&first)?;
        conn.pipelined(template, warm, options.in_flight, Duration::from_secs(10))?;

        let cpu0 = (server.cpu_ns(), server.cpu_ticks_ns(), upstream_cpu());
        let times = conn.sequential(template, seq, seq_time)?;
        let cpu1 = (server.cpu_ns(), server.cpu_ticks_ns(), upstream_cpu());
        let pipelined = conn.pipelined(template, pipe, options.in_flight, pipe_time)?;
        let cpu2 = (server.cpu_ns(), server.cpu_ticks_ns(), upstream_cpu());
        run.peak_rss_kib = server.vm_hwm_kib();
        run.upstream_peak_rss_kib = upstream.and_then(crate::process::vm_hwm_kib_of);
        let upstream_per_call = |a: Option<u64>, b: Option<u64>, calls: u64| {
            Some(b?.saturating_sub(a?) as f64 / 1e3 / calls as f64)
        };

        let mut sorted = times.clone();
        sorted.sort_unstable();
        let quantile = |q: f64| {
            let i = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
            sorted[i].as_secs_f64() * 1e6
        };
        let seq_calls = times.len() as u64;
        let seq_wall: f64 = times.iter().map(Duration::as_secs_f64).sum();
        run.sequential = Some(Phase {
            calls: seq_calls,
            wall_s: seq_wall,
            calls_per_s: seq_calls as f64 / seq_wall,
            p50_us: Some(quantile(0.50)),
            p99_us: Some(quantile(0.99)),
            cpu_us_per_call: cpu1.0.saturating_sub(cpu0.0) as f64 / 1e3 / seq_calls as f64,
            cpu_ticks_us_per_call: cpu1.1.saturating_sub(cpu0.1) as f64 / 1e3 / seq_calls as f64,
            upstream_cpu_us_per_call: upstream_per_call(cpu0.2, cpu1.2, seq_calls),
        });
        let wall = pipelined.wall.as_secs_f64();
        run.pipelined = Some(Phase {
            calls: pipelined.calls,
            wall_s: wall,
            calls_per_s: pipelined.calls as f64 / wall,
            p50_us: None,
            p99_us: None,
            cpu_us_per_call: cpu2.0.saturating_sub(cpu1.0) as f64 / 1e3 / pipelined.calls as f64,
            cpu_ticks_us_per_call: cpu2.1.saturating_sub(cpu1.1) as f64
                / 1e3
                / pipelined.calls as f64,
            upstream_cpu_us_per_call: upstream_per_call(cpu1.2, cpu2.2, pipelined.calls),
        });
        Ok(())
    })();
    run.notifications = conn.notifications;
    drop(conn);
    let fired = watchdog.disarm();
    let exit = server.finish(Duration::from_secs(10));
    run.maxrss_kib = Some(exit.maxrss_kib);
    run.total_cpu_ms = Some(exit.cpu_us as f64 / 1e3);
    run.clean_exit = Some(exit.clean);
    run.killed = Some(exit.killed);
    if let Some(pid) = upstream {
        // Left to us (a subreaper) when the front exited before reaping it.
        run.upstream_total_cpu_ms =
            crate::process::reap(pid, Duration::from_secs(5)).map(|e| e.cpu_us as f64 / 1e3);
    }
    if let Err(error) = measured {
        run.error = Some(crate::load::run_failure(error, fired, &log));
    }
    let _ = std::fs::remove_file(&log);
    run
}

fn brief(run: &Run) -> String {
    if let Some(error) = &run.error {
        return format!("FAILED: {}", crate::load::preview(error.as_bytes(), 200));
    }
    let (Some(seq), Some(pipe)) = (&run.sequential, &run.pipelined) else {
        return String::new();
    };
    let upstream = pipe
        .upstream_cpu_us_per_call
        .map(|cpu| format!("  (+ upstream {cpu:.1} µs/call)"))
        .unwrap_or_default();
    format!(
        "{:>9.0} calls/s  p50 {:>7.1} µs  p99 {:>7.1} µs  cpu {:>6.1} µs/call  rss {:>6.1} MiB  init {:>5.1} ms{upstream}",
        pipe.calls_per_s,
        seq.p50_us.unwrap_or(0.0),
        seq.p99_us.unwrap_or(0.0),
        pipe.cpu_us_per_call,
        run.peak_rss_kib.unwrap_or(0) as f64 / 1024.0,
        run.init_ms.unwrap_or(0.0),
    )
}

/// Runs every round, appending one JSON line per run to `runs.jsonl`.
pub fn run(options: &Options) -> std::io::Result<()> {
    // By default the legacy workloads; the modern ones when named.
    let workloads: Vec<Workload> = if options.workloads.is_empty() {
        workloads::legacy()
    } else {
        workloads::all()
            .into_iter()
            .filter(|w| options.workloads.iter().any(|n| n == w.name))
            .collect()
    };
    std::fs::create_dir_all(&options.out_dir)?;
    let path = options.out_dir.join("runs.jsonl");
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)?;
    let started = Instant::now();
    for round in 1..=options.rounds {
        for workload in &workloads {
            let template = Template::new(workload.method, &workload.params);
            for peer in options
                .peers
                .iter()
                .filter(|p| p.modern || !workload.modern())
            {
                let run = run_one(options, peer, workload, &template, round);
                eprintln!(
                    "[{:>4.0}s] round {round}/{}  {:<8} {:<10} {}",
                    started.elapsed().as_secs_f64(),
                    options.rounds,
                    workload.name,
                    peer.name,
                    brief(&run)
                );
                serde_json::to_writer(&mut out, &run)?;
                out.write_all(b"\n")?;
                out.flush()?;
            }
        }
    }
    record_sizes(options)
}

/// Sizes of the benchmark servers' release binaries.
fn record_sizes(options: &Options) -> std::io::Result<()> {
    let mut sizes = serde_json::Map::new();
    for peer in &options.peers {
        for (kind, (bin, _)) in [("basic", &peer.basic), ("many", &peer.many)] {
            if let Ok(meta) = std::fs::metadata(options.bin_dir.join(bin)) {
                sizes.insert(format!("{}/{kind}", peer.name), json!(meta.len()));
            }
        }
    }
    std::fs::write(
        options.out_dir.join("sizes.json"),
        serde_json::to_string_pretty(&sizes)?,
    )
}

/// Reads runs.jsonl.
pub fn load_runs(dir: &Path) -> Vec<Run> {
    std::fs::read_to_string(dir.join("runs.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}
