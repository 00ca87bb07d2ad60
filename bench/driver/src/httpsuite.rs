//! The Streamable HTTP benchmark: every peer's HTTP server, stateful and
//! stateless, one fresh process per run, interleaved (A B C A B C ...):
//!
//! - **load runs**: spawn → first successful `initialize` (polling the
//!   port), one checked call, then for each client count (1, 64) a
//!   closed-loop phase: every client has its own keep-alive connection and
//!   session and sends its next `tools/call` when the previous one is
//!   answered; throughput, latency p50/p99, and the server's and the
//!   driver's CPU per call;
//! - **session runs** (stateful only): 10,000 sessions opened, each with
//!   `initialize` and `notifications/initialized`; the connections closed,
//!   then the server's RSS; a sample of the sessions is called afterwards to
//!   check they are still alive.
//!
//! `ours-redis` (ours with its sessions in a Redis of the run's own) is
//! measured the same way, stateful only, with what Redis did beside it
//! (`httpredis`).

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::httpclient::{HttpConn, first_connect, first_initialize};
use crate::httpredis::{self, RedisIdle, RedisPhase};
use crate::load::{Error, PROTOCOL_VERSION, Template, initialize_template, preview};
use crate::process::{Server, Watchdog, self_cpu_ns, self_run_delay_ns};
use crate::workloads::{self, Workload};

/// A framework's Streamable HTTP server.
#[derive(Clone, Debug)]
pub struct HttpPeer {
    pub name: String,
    pub bin: String,
    /// Arguments after `--http ADDR`.
    pub args: Vec<String>,
    /// Serves the 2026-07-28 era; the modern workloads are not run against
    /// the others.
    pub modern: bool,
    /// Keeps its sessions in a Redis the driver starts for each run
    /// (`--sessions-redis URL`): stateful only.
    pub redis: bool,
}

/// The HTTP peers the driver knows, in the report's order. `rmcp` is
/// served as rmcp's examples serve it (`axum::serve` on a plain
/// `TcpListener`); `rmcp-nodelay` is the same binary with TCP_NODELAY set
/// on each connection, which its examples leave out. `gateway` is ours
/// forwarding: an HTTP front (`ours-gateway`) mounting ours' stdio server,
/// run only when asked for. `ours-redis` is ours with its legacy sessions
/// in Redis (`ours-sessions-http`, package `bench-ours-sessions`), run only
/// when asked for.
pub fn known_peers() -> Vec<HttpPeer> {
    let peer = |name: &str, bin: &str, args: &[&str], modern: bool| HttpPeer {
        name: name.into(),
        bin: bin.into(),
        args: args.iter().map(|a| a.to_string()).collect(),
        modern,
        redis: false,
    };
    vec![
        peer("ours", "ours-http", &[], true),
        HttpPeer {
            redis: true,
            ..peer("ours-redis", "ours-sessions-http", &[], false)
        },
        peer("rmcp", "rmcp-http", &[], true),
        peer("rmcp-nodelay", "rmcp-http", &["--nodelay"], true),
        peer("floor", "floor-http", &[], false),
        peer(
            "gateway",
            "ours-gateway",
            &["--upstream", "ours-basic"],
            false,
        ),
    ]
}

/// The peers run when none are named: the frameworks, not the gateway nor
/// ours on Redis.
pub fn default_peers() -> Vec<HttpPeer> {
    known_peers()
        .into_iter()
        .filter(|p| p.name != "gateway" && !p.redis)
        .collect()
}

/// Whether a peer is built with mcp-runtime (its flags are `ours-http`'s).
fn is_ours(peer: &HttpPeer) -> bool {
    peer.name == "ours" || peer.name == "gateway" || peer.redis
}

/// Stateful (sessions) or stateless.
pub const MODES: [&str; 2] = ["stateful", "stateless"];

pub struct Options {
    pub bin_dir: PathBuf,
    pub out_dir: PathBuf,
    pub peers: Vec<HttpPeer>,
    pub modes: Vec<String>,
    pub workloads: Vec<String>,
    /// Client counts of the load phases, e.g. [1, 64].
    pub clients: Vec<usize>,
    /// Idle sessions opened by the session runs (0: none).
    pub sessions: u64,
    pub rounds: u32,
    pub quick: bool,
    /// The weather example's release binary, for its size.
    pub weather: Option<PathBuf>,
    /// `redis-server`, for the peers that keep their sessions in Redis.
    pub redis_server: PathBuf,
}

/// One closed-loop phase at a client count.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct HttpPhase {
    pub clients: usize,
    pub calls: u64,
    pub wall_s: f64,
    pub calls_per_s: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    /// Server utime + stime (/proc/PID/stat, clock ticks) per call.
    pub cpu_us_per_call: f64,
    /// The same from per-thread schedstat (ns resolution, live threads only).
    pub cpu_sched_us_per_call: f64,
    /// The driver's own CPU per call (getrusage): what the client costs.
    pub driver_cpu_us_per_call: f64,
    /// Time the server's threads waited for a CPU (schedstat run delay),
    /// per call: with the driver on the same 2 cores, where tails come from.
    #[serde(default)]
    pub server_wait_us_per_call: f64,
    /// The same for the driver's threads.
    #[serde(default)]
    pub driver_wait_us_per_call: f64,
    /// Connections the server closed and the client opened again.
    pub reconnects: u64,
    /// A forwarding front's upstream (the process it spawned): its utime +
    /// stime per call (/proc/PID/stat), not included in `cpu_us_per_call`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_cpu_us_per_call: Option<f64>,
    /// The same from per-thread schedstat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_cpu_sched_us_per_call: Option<f64>,
    /// Sessions in Redis: what Redis did, per call (not included in
    /// `cpu_us_per_call`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redis: Option<RedisPhase>,
}

/// One load run: one server process, one mode, one workload.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct HttpRun {
    pub round: u32,
    pub peer: String,
    pub mode: String,
    pub workload: String,
    pub error: Option<String>,
    /// Spawn to the first successful `initialize` answer.
    pub ttfr_ms: Option<f64>,
    pub phases: Vec<HttpPhase>,
    pub peak_rss_kib: Option<u64>,
    pub rss_kib: Option<u64>,
    pub clean_exit: Option<bool>,
    pub killed: Option<bool>,
    pub load1: Option<f64>,
    /// A forwarding front's upstream: its VmHWM after the last phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_peak_rss_kib: Option<u64>,
}

/// One session run: N idle sessions in a fresh stateful server.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct SessionsRun {
    pub round: u32,
    pub peer: String,
    pub error: Option<String>,
    pub sessions: u64,
    pub ttfr_ms: Option<f64>,
    /// Time to open them all.
    pub create_s: Option<f64>,
    pub sessions_per_s: Option<f64>,
    /// VmRSS after the first session, before the others.
    pub rss_before_kib: Option<u64>,
    /// VmRSS with all the sessions open and their connections closed.
    pub rss_kib: Option<u64>,
    pub hwm_kib: Option<u64>,
    /// Sessions called afterwards, all of which answered.
    pub alive_checked: Option<u64>,
    pub clean_exit: Option<bool>,
    pub killed: Option<bool>,
    pub load1: Option<f64>,
    /// Sessions in Redis: its memory and keys with one session and all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redis: Option<RedisIdle>,
}

fn load1() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
}

/// A loopback port nobody listens on now (the server binds it next).
fn free_port() -> std::io::Result<SocketAddr> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    listener.local_addr()
}

fn log_path(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("mcp-bench-{}-{tag}.log", std::process::id()))
}

/// Phase durations: (warm-up, one client, many clients).
fn durations(quick: bool) -> (Duration, Duration, Duration) {
    if quick {
        (
            Duration::from_millis(100),
            Duration::from_millis(300),
            Duration::from_millis(500),
        )
    } else {
        (
            Duration::from_millis(300),
            Duration::from_millis(1500),
            Duration::from_millis(2500),
        )
    }
}

pub(crate) struct Outcome {
    pub(crate) latencies_ns: Vec<u64>,
    wall: Duration,
    reconnects: u64,
}

/// Every client calls `template` in a closed loop until `duration` has
/// passed; returns the clients and every call's round trip.
pub(crate) async fn closed_loop(
    clients: Vec<HttpConn>,
    template: &Arc<Template>,
    duration: Duration,
) -> Result<(Vec<HttpConn>, Outcome), Error> {
    let start = Instant::now();
    let deadline = start + duration;
    let handles: Vec<_> = clients
        .into_iter()
        .map(|mut conn| {
            let template = template.clone();
            tokio::spawn(async move {
                let mut latencies = Vec::with_capacity(16 * 1024);
                let mut result = Ok(());
                let before = conn.reconnects;
                loop {
                    let sent = Instant::now();
                    if sent >= deadline {
                        break;
                    }
                    if let Err(e) = conn.call(&template).await {
                        result = Err(e);
                        break;
                    }
                    latencies.push(sent.elapsed().as_nanos() as u64);
                }
                let reconnects = conn.reconnects - before;
                (conn, latencies, result, reconnects, Instant::now())
            })
        })
        .collect();
    let mut conns = Vec::with_capacity(handles.len());
    let mut outcome = Outcome {
        latencies_ns: Vec::new(),
        wall: Duration::ZERO,
        reconnects: 0,
    };
    let mut first_error = None;
    for handle in handles {
        let (conn, latencies, result, reconnects, finished) = handle
            .await
            .map_err(|e| format!("a client task failed: {e}"))?;
        if let Err(e) = result {
            first_error.get_or_insert(e);
        }
        conns.push(conn);
        outcome.latencies_ns.extend_from_slice(&latencies);
        outcome.reconnects += reconnects;
        outcome.wall = outcome.wall.max(finished - start);
    }
    match first_error {
        Some(e) => Err(e),
        None if outcome.latencies_ns.is_empty() => Err("no call answered".into()),
        None => Ok((conns, outcome)),
    }
}

fn quantile_us(sorted: &[u64], q: f64) -> f64 {
    let i = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i] as f64 / 1e3
}

fn spawn(options: &Options, peer: &HttpPeer, args: &[String], log: &Path) -> Result<Server, Error> {
    let program = options.bin_dir.join(&peer.bin);
    Server::spawn_listening(&program, args, log)
        .map_err(|e| format!("cannot start {}: {e}", program.display()))
}

/// Asks the server to stop (SIGINT: Ctrl-C), killing it after 5 s; reaps it.
fn stop(server: Server) -> crate::process::Exit {
    server.signal(libc::SIGINT);
    server.finish(Duration::from_secs(5))
}

fn load_run(
    runtime: &tokio::runtime::Runtime,
    options: &Options,
    peer: &HttpPeer,
    mode: &str,
    workload: &Workload,
    round: u32,
) -> HttpRun {
    let mut run = HttpRun {
        round,
        peer: peer.name.clone(),
        mode: mode.into(),
        workload: workload.name.into(),
        load1: load1(),
        ..HttpRun::default()
    };
    let stateful = mode == "stateful";
    let addr = match free_port() {
        Ok(addr) => addr,
        Err(e) => {
            run.error = Some(format!("no free port: {e}"));
            return run;
        }
    };
    let mut args = vec!["--http".to_string(), addr.to_string()];
    args.extend(peer.args.iter().cloned());
    if !stateful {
        args.push("--stateless".into());
    }
    let redis = match httpredis::start(&options.redis_server, peer.redis, &mut args) {
        Ok(redis) => redis,
        Err(e) => {
            run.error = Some(e);
            return run;
        }
    };
    let log = log_path(&format!("{}-{mode}-{}", peer.name, workload.name));
    let server = match spawn(options, peer, &args, &log) {
        Ok(server) => server,
        Err(e) => {
            run.error = Some(e);
            return run;
        }
    };
    let (warm, one, many) = durations(options.quick);
    let watchdog = Watchdog::arm(
        server.pid,
        (warm + many) * options.clients.len() as u32 + Duration::from_secs(90),
    );
    let template = Arc::new(Template::new(workload.method, &workload.params));
    let initialize = initialize_template();
    // A front's upstream, spawned before the front listens.
    let mut upstream: Option<i32> = None;
    // A client of the 2026-07-28 era has no handshake: it sends its calls
    // with the era's headers from the start.
    let modern = |conn: &mut HttpConn| {
        conn.modern(
            workloads::MODERN_VERSION,
            workload.method,
            workload.mcp_name.as_deref(),
        )
    };
    let measured = runtime.block_on(async {
        let mut first = if workload.modern() {
            let mut conn = first_connect(addr, Duration::from_secs(20), || server.alive()).await?;
            modern(&mut conn);
            conn
        } else {
            first_initialize(addr, &initialize, stateful, Duration::from_secs(20), || {
                server.alive()
            })
            .await?
        };
        if !workload.modern() {
            run.ttfr_ms = Some(server.spawned_at.elapsed().as_secs_f64() * 1e3);
        }
        upstream = server.children().first().copied();
        let upstream_cpu = || {
            upstream.map(|pid| {
                (
                    crate::process::cpu_ticks_ns_of(pid),
                    crate::process::cpu_ns_of(pid),
                )
            })
        };
        let (_, result) = first.call_value(&template).await?;
        if workload.modern() {
            run.ttfr_ms = Some(server.spawned_at.elapsed().as_secs_f64() * 1e3);
        }
        if result.get("isError") == Some(&serde_json::Value::Bool(true)) {
            return Err(format!(
                "isError: {}",
                preview(result.to_string().as_bytes(), 400)
            ));
        }
        (workload.check)(&result)?;
        let mut idle = vec![first];
        let mut counts = options.clients.clone();
        counts.sort_unstable();
        for n in counts {
            while idle.len() < n {
                let mut conn = HttpConn::connect(addr).await?;
                if workload.modern() {
                    modern(&mut conn);
                } else {
                    conn.initialize(&initialize, stateful).await?;
                }
                idle.push(conn);
            }
            let clients: Vec<HttpConn> = idle.drain(..n).collect();
            let (clients, _) = closed_loop(clients, &template, warm).await?;
            let cpu0 = (server.cpu_ticks_ns(), server.cpu_ns(), self_cpu_ns());
            let wait0 = (server.run_delay_ns(), self_run_delay_ns());
            let up0 = upstream_cpu();
            let redis0 = redis.as_ref().map(httpredis::before).transpose()?;
            let (clients, outcome) =
                closed_loop(clients, &template, if n == 1 { one } else { many }).await?;
            let up1 = upstream_cpu();
            let cpu1 = (server.cpu_ticks_ns(), server.cpu_ns(), self_cpu_ns());
            let wait1 = (server.run_delay_ns(), self_run_delay_ns());
            let calls = outcome.latencies_ns.len() as u64;
            let mut redis_phase = redis0.map(|r| httpredis::after(r, calls)).transpose()?;
            let clients = match (&redis, &mut redis_phase) {
                (Some(redis), Some(phase)) => {
                    httpredis::monitored(redis, clients, &template, warm, phase).await?
                }
                _ => clients,
            };
            idle.splice(0..0, clients);
            let mut sorted = outcome.latencies_ns;
            sorted.sort_unstable();
            let per_call = |a: u64, b: u64| b.saturating_sub(a) as f64 / 1e3 / calls as f64;
            let wall = outcome.wall.as_secs_f64();
            run.phases.push(HttpPhase {
                clients: n,
                calls,
                wall_s: wall,
                calls_per_s: calls as f64 / wall,
                p50_us: quantile_us(&sorted, 0.50),
                p99_us: quantile_us(&sorted, 0.99),
                cpu_us_per_call: per_call(cpu0.0, cpu1.0),
                cpu_sched_us_per_call: per_call(cpu0.1, cpu1.1),
                driver_cpu_us_per_call: per_call(cpu0.2, cpu1.2),
                server_wait_us_per_call: per_call(wait0.0, wait1.0),
                driver_wait_us_per_call: per_call(wait0.1, wait1.1),
                reconnects: outcome.reconnects,
                upstream_cpu_us_per_call: up0.zip(up1).map(|(a, b)| per_call(a.0, b.0)),
                upstream_cpu_sched_us_per_call: up0.zip(up1).map(|(a, b)| per_call(a.1, b.1)),
                redis: redis_phase,
            });
        }
        run.peak_rss_kib = server.vm_hwm_kib();
        run.rss_kib = server.vm_rss_kib();
        run.upstream_peak_rss_kib = upstream.and_then(crate::process::vm_hwm_kib_of);
        Ok::<(), Error>(())
    });
    let fired = watchdog.disarm();
    let exit = stop(server);
    run.clean_exit = Some(exit.clean);
    run.killed = Some(exit.killed);
    if let Some(pid) = upstream {
        // Left to us (a subreaper) when the front exited before reaping it.
        crate::process::reap(pid, Duration::from_secs(5));
    }
    drop(redis);
    if let Err(error) = measured {
        run.error = Some(crate::load::run_failure(error, fired, &log));
    }
    let _ = std::fs::remove_file(&log);
    run
}

/// How many connections open the sessions at once.
pub const SESSION_OPENERS: u64 = 32;
/// How many of the sessions are called afterwards.
const SESSIONS_CHECKED: usize = 16;

fn sessions_run(
    runtime: &tokio::runtime::Runtime,
    options: &Options,
    peer: &HttpPeer,
    round: u32,
) -> SessionsRun {
    let sessions = options.sessions;
    let mut run = SessionsRun {
        round,
        peer: peer.name.clone(),
        sessions,
        load1: load1(),
        ..SessionsRun::default()
    };
    let addr = match free_port() {
        Ok(addr) => addr,
        Err(e) => {
            run.error = Some(format!("no free port: {e}"));
            return run;
        }
    };
    let mut args = vec!["--http".to_string(), addr.to_string()];
    args.extend(peer.args.iter().cloned());
    if is_ours(peer) {
        // Room above the sessions opened (its default cap is 10,000).
        args.extend(["--max-sessions".to_string(), (sessions + 64).to_string()]);
    }
    let redis = match httpredis::start(&options.redis_server, peer.redis, &mut args) {
        Ok(redis) => redis,
        Err(e) => {
            run.error = Some(e);
            return run;
        }
    };
    let log = log_path(&format!("{}-sessions", peer.name));
    let server = match spawn(options, peer, &args, &log) {
        Ok(server) => server,
        Err(e) => {
            run.error = Some(e);
            return run;
        }
    };
    let watchdog = Watchdog::arm(server.pid, Duration::from_secs(300));
    let initialize = Arc::new(initialize_template());
    let mut upstream: Option<i32> = None;
    let echo = workloads::all()
        .into_iter()
        .find(|w| w.name == "echo")
        .map(|w| Template::new(w.method, &w.params));
    let measured = runtime.block_on(async {
        let mut first = first_initialize(addr, &initialize, true, Duration::from_secs(20), || {
            server.alive()
        })
        .await?;
        run.ttfr_ms = Some(server.spawned_at.elapsed().as_secs_f64() * 1e3);
        upstream = server.children().first().copied();
        let mut ids: Vec<String> = first.session.clone().into_iter().collect();
        first.close();
        tokio::time::sleep(Duration::from_millis(200)).await;
        run.rss_before_kib = server.vm_rss_kib();
        run.redis = redis.as_ref().map(httpredis::idle_before).transpose()?;

        // The first session counts as one of them.
        let opened = Arc::new(AtomicU64::new(1));
        let start = Instant::now();
        let handles: Vec<_> = (0..SESSION_OPENERS)
            .map(|_| {
                let opened = opened.clone();
                let initialize = initialize.clone();
                tokio::spawn(async move {
                    let mut ids = Vec::new();
                    let mut conn = HttpConn::connect(addr).await?;
                    while opened.fetch_add(1, Ordering::Relaxed) < sessions {
                        conn.initialize(&initialize, true)
                            .await
                            .map_err(|e| format!("session {}: {e}", ids.len() + 1))?;
                        ids.extend(conn.session.take());
                    }
                    conn.close();
                    Ok::<Vec<String>, Error>(ids)
                })
            })
            .collect();
        let mut first_error = None;
        for handle in handles {
            match handle.await {
                Ok(Ok(more)) => ids.extend(more),
                Ok(Err(e)) => {
                    first_error.get_or_insert(e);
                }
                Err(e) => {
                    first_error.get_or_insert(format!("an opener task failed: {e}"));
                }
            }
        }
        if let Some(e) = first_error {
            return Err(format!("after {} sessions: {e}", ids.len()));
        }
        let created = start.elapsed().as_secs_f64();
        run.create_s = Some(created);
        run.sessions_per_s = Some((ids.len() as f64 - 1.0) / created);
        if ids.len() as u64 != sessions {
            return Err(format!("{} sessions opened, not {sessions}", ids.len()));
        }
        // Connections closed, sessions kept: let the server settle.
        tokio::time::sleep(Duration::from_secs(1)).await;
        run.rss_kib = server.vm_rss_kib();
        run.hwm_kib = server.vm_hwm_kib();
        if let (Some(redis), Some(idle)) = (&redis, &mut run.redis) {
            httpredis::idle_after(redis, idle, ids.last().map(String::as_str))?;
        }

        if let Some(echo) = &echo {
            let mut probe = HttpConn::connect(addr).await?;
            probe.protocol = Some(PROTOCOL_VERSION.to_string());
            let step = (ids.len() / SESSIONS_CHECKED).max(1);
            let mut checked = 0;
            for (k, id) in ids.iter().enumerate().step_by(step) {
                probe
                    .call_as(echo, Some(id))
                    .await
                    .map_err(|e| format!("session {k} of {} no longer answers: {e}", ids.len()))?;
                checked += 1;
            }
            run.alive_checked = Some(checked);
        }
        Ok::<(), Error>(())
    });
    let fired = watchdog.disarm();
    let exit = stop(server);
    run.clean_exit = Some(exit.clean);
    run.killed = Some(exit.killed);
    if let Some(pid) = upstream {
        crate::process::reap(pid, Duration::from_secs(5));
    }
    drop(redis);
    if let Err(error) = measured {
        run.error = Some(crate::load::run_failure(error, fired, &log));
    }
    let _ = std::fs::remove_file(&log);
    run
}

fn brief(run: &HttpRun) -> String {
    if let Some(error) = &run.error {
        return format!("FAILED: {}", preview(error.as_bytes(), 200));
    }
    let mut out = format!("first answer {:>5.1} ms", run.ttfr_ms.unwrap_or(0.0));
    for p in &run.phases {
        out.push_str(&format!(
            " | {:>2} clients {:>7.0} calls/s p50 {:>6.0} µs p99 {:>6.0} µs cpu {:>5.1} µs/call (driver {:>4.1})",
            p.clients, p.calls_per_s, p.p50_us, p.p99_us, p.cpu_us_per_call, p.driver_cpu_us_per_call
        ));
        if let Some(cpu) = p.upstream_cpu_us_per_call {
            out.push_str(&format!(" (+ upstream {cpu:.1} µs/call)"));
        }
        if let Some(r) = &p.redis {
            out.push_str(&r.brief());
        }
    }
    out
}

fn brief_sessions(run: &SessionsRun) -> String {
    if let Some(error) = &run.error {
        return format!("FAILED: {}", preview(error.as_bytes(), 200));
    }
    format!(
        "{} sessions in {:.2} s: RSS {:.1} MiB (before {:.1} MiB, peak {:.1} MiB), {} checked alive",
        run.sessions,
        run.create_s.unwrap_or(0.0),
        run.rss_kib.unwrap_or(0) as f64 / 1024.0,
        run.rss_before_kib.unwrap_or(0) as f64 / 1024.0,
        run.hwm_kib.unwrap_or(0) as f64 / 1024.0,
        run.alive_checked.unwrap_or(0),
    ) + &run
        .redis
        .as_ref()
        .map_or(String::new(), |r| r.brief(run.sessions))
}

fn append(path: &Path, value: &impl Serialize) -> std::io::Result<()> {
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    serde_json::to_writer(&mut out, value)?;
    out.write_all(b"\n")
}

/// Runs every round: load runs to `http_runs.jsonl`, session runs to
/// `http_sessions.jsonl`; then the binaries' sizes to `http_sizes.json`.
pub fn run(options: &Options) -> std::io::Result<()> {
    let workloads: Vec<Workload> = workloads::all()
        .into_iter()
        .filter(|w| w.server == workloads::Server::Basic)
        .filter(|w| options.workloads.iter().any(|n| n == w.name))
        .collect();
    std::fs::create_dir_all(&options.out_dir)?;
    let runs_path = options.out_dir.join("http_runs.jsonl");
    let sessions_path = options.out_dir.join("http_sessions.jsonl");
    // One thread: the clients' work stays on one core as far as it can.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let started = Instant::now();
    let elapsed = || started.elapsed().as_secs_f64();
    for round in 1..=options.rounds {
        for workload in &workloads {
            for mode in &options.modes {
                for peer in options
                    .peers
                    .iter()
                    .filter(|p| p.modern || !workload.modern())
                    .filter(|p| !p.redis || mode == "stateful")
                {
                    let run = load_run(&runtime, options, peer, mode, workload, round);
                    eprintln!(
                        "[{:>4.0}s] round {round}/{}  {:<7} {:<9} {:<5}  {}",
                        elapsed(),
                        options.rounds,
                        workload.name,
                        mode,
                        peer.name,
                        brief(&run)
                    );
                    append(&runs_path, &run)?;
                }
            }
        }
        if options.sessions > 0 && options.modes.iter().any(|m| m == "stateful") {
            for peer in &options.peers {
                let run = sessions_run(&runtime, options, peer, round);
                eprintln!(
                    "[{:>4.0}s] round {round}/{}  sessions  stateful  {:<5}  {}",
                    elapsed(),
                    options.rounds,
                    peer.name,
                    brief_sessions(&run)
                );
                append(&sessions_path, &run)?;
            }
        }
    }
    record_sizes(options)
}

/// The size of a binary as built, and once stripped of its symbols.
fn sizes_of(path: &Path) -> Option<serde_json::Value> {
    let bytes = std::fs::metadata(path).ok()?.len();
    let stripped_path = std::env::temp_dir().join(format!(
        "mcp-bench-{}-stripped-{}",
        std::process::id(),
        path.file_name()?.to_string_lossy()
    ));
    let stripped = std::process::Command::new("strip")
        .arg("--strip-all")
        .arg("-o")
        .arg(&stripped_path)
        .arg(path)
        .status()
        .ok()
        .filter(|s| s.success())
        .and_then(|_| std::fs::metadata(&stripped_path).ok())
        .map(|m| m.len());
    let _ = std::fs::remove_file(&stripped_path);
    Some(json!({ "path": path.display().to_string(), "bytes": bytes, "stripped": stripped }))
}

fn record_sizes(options: &Options) -> std::io::Result<()> {
    let mut sizes = serde_json::Map::new();
    for peer in options.peers.iter().filter(|p| p.args.is_empty()) {
        if let Some(size) = sizes_of(&options.bin_dir.join(&peer.bin)) {
            sizes.insert(peer.name.clone(), size);
        }
    }
    if let Some(size) = options.weather.as_deref().and_then(sizes_of) {
        sizes.insert("weather".into(), size);
    }
    std::fs::write(
        options.out_dir.join("http_sizes.json"),
        serde_json::to_string_pretty(&sizes)?,
    )
}

/// Reads http_runs.jsonl.
pub fn load_runs(dir: &Path) -> Vec<HttpRun> {
    read_lines(&dir.join("http_runs.jsonl"))
}

/// Reads http_sessions.jsonl.
pub fn load_sessions(dir: &Path) -> Vec<SessionsRun> {
    read_lines(&dir.join("http_sessions.jsonl"))
}

fn read_lines<T: for<'de> Deserialize<'de>>(path: &Path) -> Vec<T> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}
