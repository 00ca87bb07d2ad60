//! The tasks suite: a tool call run as a task, from its creation to its
//! result, in both eras that define tasks; what one `tasks/get` poll costs;
//! the memory a server keeps for 10,000 finished tasks; and what a plain
//! call costs on a server with a task tool beside one without. Ours with
//! its tasks in memory and on Redis (a `redis-server` of the run's own on
//! a loopback port), rmcp with its in-memory `TaskManager`; one fresh
//! server process per run, peers interleaved. See bench/README.md, "Tasks".

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::load::{Conn, Template};
use crate::process::{Server, Watchdog};
use crate::redis::Redis;
use crate::suite::Phase;
use crate::tasktrips::{
    TEXT, check_text, echo_params, finished_task, modern_meta, polled, task_params, trips,
};

/// The finished tasks the memory run keeps (ours' memory store keeps up to
/// 10,000 by default: all of them).
pub const KEPT_TASKS: u64 = 10_000;

/// A server of the suite and how to start it.
#[derive(Clone, Debug)]
pub struct Peer {
    pub name: &'static str,
    bin: &'static str,
    /// Started with `--redis URL` of a Redis of the run's own.
    redis: bool,
}

/// Every peer, in the report's order.
pub fn known_peers() -> Vec<Peer> {
    let peer = |name, bin, redis| Peer { name, bin, redis };
    vec![
        peer("ours", "ours-tasks", false),
        peer("ours-redis", "ours-tasks", true),
        peer("rmcp", "rmcp-tasks", false),
        peer("ours-notask", "ours-notask", false),
    ]
}

/// The two eras that define tasks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Era {
    /// 2025-11-25 (SEP-1686): `initialize`, then `tools/call` with
    /// `params.task`, answered `{"task": …}`; `tasks/result` waits for it.
    Legacy,
    /// 2026-07-28 (SEP-2663): no `initialize`; the request's `_meta`
    /// declares the extension, a call that has to wait is answered
    /// `resultType: "task"`, and `tasks/get` inlines the result once done.
    Modern,
}

/// What a run measures.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// Create → result, one at a time and many in flight.
    Trip(Era),
    /// `tasks/get` on a finished task.
    Get(Era),
    /// A plain `tools/call echo`, never a task.
    Plain(Era),
    /// RSS idle, after 10,000 plain calls, with 10,000 finished tasks.
    Rss,
    /// RSS after 10,000, 50,000 and 100,000 finished tasks: a store that
    /// keeps 10,000 must stay bounded.
    Churn,
}

pub struct Workload {
    pub name: &'static str,
    pub kind: Kind,
    pub peers: &'static [&'static str],
}

const TASK_PEERS: &[&str] = &["ours", "ours-redis", "rmcp"];
const PLAIN_PEERS: &[&str] = &["ours-notask", "ours"];

pub fn workloads() -> Vec<Workload> {
    let w = |name, kind, peers| Workload { name, kind, peers };
    vec![
        w("trip-2025", Kind::Trip(Era::Legacy), TASK_PEERS),
        w("trip-2026", Kind::Trip(Era::Modern), TASK_PEERS),
        w("get-2025", Kind::Get(Era::Legacy), TASK_PEERS),
        w("get-2026", Kind::Get(Era::Modern), TASK_PEERS),
        w("echo", Kind::Plain(Era::Legacy), PLAIN_PEERS),
        w("echo-2026", Kind::Plain(Era::Modern), PLAIN_PEERS),
        w("rss", Kind::Rss, TASK_PEERS),
        // Ours in memory only: on Redis the server keeps nothing per task
        // (the rss run shows it) and 100,000 round trips take half a
        // minute; rmcp keeps every task for 5 minutes, and sweeps them all
        // on every call.
        w("churn", Kind::Churn, &["ours"]),
    ]
}

pub struct Options {
    pub bin_dir: PathBuf,
    pub out_dir: PathBuf,
    pub redis_server: PathBuf,
    pub peers: Vec<String>,
    pub workloads: Vec<String>,
    pub rounds: u32,
    pub quick: bool,
    pub in_flight: u64,
}

/// One run: one server process, one workload.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct TaskRun {
    pub round: u32,
    pub peer: String,
    pub workload: String,
    pub error: Option<String>,
    pub load1: Option<f64>,
    pub in_flight: u64,
    /// Spawn → the first answer (after `initialize` in the legacy era).
    pub first_ms: Option<f64>,
    /// Round trips (or calls) one at a time: latency, server CPU.
    pub sequential: Option<Phase>,
    /// `in_flight` round trips (or calls) at once: throughput, server CPU.
    pub pipelined: Option<Phase>,
    /// `tasks/get` sent per 2026-07-28 round trip, one at a time and
    /// pipelined (1: done at the first poll).
    pub polls_sequential: Option<f64>,
    pub polls_pipelined: Option<f64>,
    /// The run's Redis: its CPU per round trip or call (schedstat), one at
    /// a time and pipelined; not in the server's figure.
    pub redis_cpu_us_sequential: Option<f64>,
    pub redis_cpu_us_pipelined: Option<f64>,
    /// The rss run: VmRSS after the first answer, after 10,000 plain
    /// calls, and with 10,000 finished tasks kept, KiB.
    pub rss_idle_kib: Option<u64>,
    pub rss_plain_kib: Option<u64>,
    pub rss_tasks_kib: Option<u64>,
    pub tasks_created: Option<u64>,
    /// The churn run: VmRSS (KiB) after each count of finished tasks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rss_after_tasks: Vec<(u64, u64)>,
    /// The run's Redis: VmRSS before and after the tasks, KiB.
    pub redis_rss_before_kib: Option<u64>,
    pub redis_rss_after_kib: Option<u64>,
    /// The first checked answer of a `get` or `echo` run, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_bytes: Option<u64>,
    pub peak_rss_kib: Option<u64>,
    pub total_cpu_ms: Option<f64>,
}

// ---- the runs -------------------------------------------------------------

fn scale(count: u64, quick: bool) -> u64 {
    if quick { (count / 5).max(5) } else { count }
}

fn quantile(sorted: &[Duration], q: f64) -> f64 {
    let i = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1e6
}

/// A phase's figures from its round trips (or calls) and the server's CPU.
fn phase(times: &[Duration], wall: Duration, cpu_ns: u64, ticks_ns: u64) -> Phase {
    let mut sorted = times.to_vec();
    sorted.sort_unstable();
    let n = times.len().max(1) as f64;
    Phase {
        calls: times.len() as u64,
        wall_s: wall.as_secs_f64(),
        calls_per_s: times.len() as f64 / wall.as_secs_f64(),
        p50_us: (!sorted.is_empty()).then(|| quantile(&sorted, 0.50)),
        p99_us: (!sorted.is_empty()).then(|| quantile(&sorted, 0.99)),
        cpu_us_per_call: cpu_ns as f64 / 1e3 / n,
        cpu_ticks_us_per_call: ticks_ns as f64 / 1e3 / n,
        upstream_cpu_us_per_call: None,
    }
}

/// `initialize` for 2025-11-25 (the era of the legacy tasks) and
/// `notifications/initialized`.
fn handshake(conn: &mut Conn) -> Result<(), String> {
    let template = Template::new(
        "initialize",
        &json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": { "name": "mcp-bench-driver", "version": env!("CARGO_PKG_VERSION") }
        })
        .to_string(),
    );
    let init = conn.call_value(&template)?;
    if init.get("protocolVersion").and_then(Value::as_str) != Some("2025-11-25") {
        return Err(format!("initialize negotiated something else: {init}"));
    }
    conn.notify("notifications/initialized")
}

struct Ctx<'a> {
    options: &'a Options,
    server: &'a Server,
    redis: Option<&'a Redis>,
}

impl Ctx<'_> {
    /// Server CPU (schedstat, ticks) and the Redis's CPU now, ns.
    fn cpu(&self) -> (u64, u64, u64) {
        (
            self.server.cpu_ns(),
            self.server.cpu_ticks_ns(),
            self.redis.map_or(0, |r| crate::process::cpu_ns_of(r.pid())),
        )
    }

    fn times(&self) -> (Duration, Duration) {
        if self.options.quick {
            (Duration::from_millis(300), Duration::from_millis(500))
        } else {
            (Duration::from_millis(1500), Duration::from_millis(2500))
        }
    }
}

fn redis_per(run_redis: bool, a: u64, b: u64, calls: u64) -> Option<f64> {
    run_redis.then(|| b.saturating_sub(a) as f64 / 1e3 / calls.max(1) as f64)
}

fn measure_trips(ctx: &Ctx, conn: &mut Conn, era: Era, run: &mut TaskRun) -> Result<(), String> {
    let quick = ctx.options.quick;
    let in_flight = ctx.options.in_flight;
    let (seq_time, pipe_time) = ctx.times();
    let warm = trips(
        conn,
        era,
        scale(500, quick),
        in_flight,
        Duration::from_secs(10),
    )?;
    if warm.times.is_empty() {
        return Err("no round trip in the warm-up".into());
    }
    let c0 = ctx.cpu();
    let seq = trips(conn, era, scale(3_000, quick), 1, seq_time)?;
    let c1 = ctx.cpu();
    let pipe = trips(conn, era, scale(20_000, quick), in_flight, pipe_time)?;
    let c2 = ctx.cpu();
    run.sequential = Some(phase(
        &seq.times,
        seq.times.iter().sum(),
        c1.0 - c0.0,
        c1.1 - c0.1,
    ));
    run.pipelined = Some(phase(&pipe.times, pipe.wall, c2.0 - c1.0, c2.1 - c1.1));
    if era == Era::Modern {
        run.polls_sequential = Some(seq.polls as f64 / seq.times.len().max(1) as f64);
        run.polls_pipelined = Some(pipe.polls as f64 / pipe.times.len().max(1) as f64);
    }
    let redis = ctx.redis.is_some();
    run.redis_cpu_us_sequential = redis_per(redis, c0.2, c1.2, seq.times.len() as u64);
    run.redis_cpu_us_pipelined = redis_per(redis, c1.2, c2.2, pipe.times.len() as u64);
    Ok(())
}

/// One request over and over: sequential (latency) then pipelined.
fn measure_calls(
    ctx: &Ctx,
    conn: &mut Conn,
    template: &Template,
    run: &mut TaskRun,
) -> Result<(), String> {
    let quick = ctx.options.quick;
    let in_flight = ctx.options.in_flight;
    let (seq_time, pipe_time) = ctx.times();
    conn.pipelined(
        template,
        scale(2_000, quick),
        in_flight,
        Duration::from_secs(10),
    )?;
    let c0 = ctx.cpu();
    let times = conn.sequential(template, scale(5_000, quick), seq_time)?;
    let c1 = ctx.cpu();
    let piped = conn.pipelined(template, scale(60_000, quick), in_flight, pipe_time)?;
    let c2 = ctx.cpu();
    run.sequential = Some(phase(&times, times.iter().sum(), c1.0 - c0.0, c1.1 - c0.1));
    let mut pipelined = phase(&[], piped.wall, c2.0 - c1.0, c2.1 - c1.1);
    pipelined.calls = piped.calls;
    pipelined.calls_per_s = piped.calls as f64 / piped.wall.as_secs_f64();
    pipelined.cpu_us_per_call = (c2.0 - c1.0) as f64 / 1e3 / piped.calls.max(1) as f64;
    pipelined.cpu_ticks_us_per_call = (c2.1 - c1.1) as f64 / 1e3 / piped.calls.max(1) as f64;
    run.pipelined = Some(pipelined);
    let redis = ctx.redis.is_some();
    run.redis_cpu_us_sequential = redis_per(redis, c0.2, c1.2, times.len() as u64);
    run.redis_cpu_us_pipelined = redis_per(redis, c1.2, c2.2, piped.calls);
    Ok(())
}

/// RSS: after the first (plain) answer, after 10,000 plain calls, and
/// with 10,000 finished tasks kept (made in the 2026-07-28 era, which both
/// frameworks serve); the first task must still be there at the end.
fn measure_rss(ctx: &Ctx, conn: &mut Conn, run: &mut TaskRun) -> Result<(), String> {
    let settle = || std::thread::sleep(Duration::from_millis(300));
    // `work` from a client that does not take tasks: a plain call.
    let plain = Template::new(
        "tools/call",
        &json!({ "name": "work", "arguments": { "text": TEXT }, "_meta": modern_meta(false) })
            .to_string(),
    );
    let first = conn.call_value(&plain)?;
    check_text(&first)?;
    run.first_ms = Some(ctx.server.spawned_at.elapsed().as_secs_f64() * 1e3);
    settle();
    run.rss_idle_kib = ctx.server.vm_rss_kib();
    conn.pipelined(
        &plain,
        KEPT_TASKS,
        ctx.options.in_flight,
        Duration::from_secs(60),
    )?;
    settle();
    run.rss_plain_kib = ctx.server.vm_rss_kib();
    run.redis_rss_before_kib = ctx.redis.and_then(|r| status_kib(r.pid()));
    let first_task = finished_task(conn, Era::Modern)?;
    let made = trips(
        conn,
        Era::Modern,
        KEPT_TASKS - 1,
        ctx.options.in_flight,
        Duration::from_secs(120),
    )?;
    run.tasks_created = Some(made.times.len() as u64 + 1);
    if made.times.len() as u64 != KEPT_TASKS - 1 {
        return Err(format!("only {} tasks made", made.times.len() + 1));
    }
    settle();
    run.rss_tasks_kib = ctx.server.vm_rss_kib();
    run.redis_rss_after_kib = ctx.redis.and_then(|r| status_kib(r.pid()));
    // Kept: the first of them is still there.
    let get = Template::new(
        "tasks/get",
        &task_params(Era::Modern, &first_task).to_string(),
    );
    polled(&conn.call_value(&get)?)?.ok_or("the first task is not completed")?;
    Ok(())
}

/// The counts of finished tasks after which the churn run reads VmRSS.
pub const CHURN: [u64; 3] = [10_000, 50_000, 100_000];

/// RSS after [`CHURN`] finished tasks (2025-11-25, 64 in flight), each
/// count reached by round trips of tasks made and read back.
fn measure_churn(ctx: &Ctx, conn: &mut Conn, run: &mut TaskRun) -> Result<(), String> {
    let mut made = 0;
    for target in CHURN {
        let done = trips(
            conn,
            Era::Legacy,
            target - made,
            ctx.options.in_flight,
            Duration::from_secs(120),
        )?;
        made += done.times.len() as u64;
        if made != target {
            return Err(format!("only {made} of {target} tasks made in 120 s"));
        }
        std::thread::sleep(Duration::from_millis(300));
        let kib = ctx.server.vm_rss_kib().ok_or("no VmRSS")?;
        run.rss_after_tasks.push((made, kib));
    }
    Ok(())
}

fn status_kib(pid: i32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn run_one(options: &Options, peer: &Peer, workload: &Workload, round: u32) -> TaskRun {
    let mut run = TaskRun {
        round,
        peer: peer.name.into(),
        workload: workload.name.into(),
        in_flight: options.in_flight,
        load1: std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok()),
        ..TaskRun::default()
    };
    let redis = if peer.redis {
        match Redis::start(&options.redis_server) {
            Ok(redis) => Some(redis),
            Err(e) => {
                run.error = Some(e);
                return run;
            }
        }
    } else {
        None
    };
    let args: Vec<String> = redis
        .as_ref()
        .map(|r| vec!["--redis".into(), r.url()])
        .unwrap_or_default();
    let program = options.bin_dir.join(peer.bin);
    let log = std::env::temp_dir().join(format!(
        "mcp-bench-tasks-{}-{}-{}.stderr",
        std::process::id(),
        peer.name,
        workload.name
    ));
    let mut server = match Server::spawn(&program, &args, &log) {
        Ok(server) => server,
        Err(e) => {
            run.error = Some(format!("cannot start {}: {e}", program.display()));
            return run;
        }
    };
    let watchdog = Watchdog::arm(server.pid, Duration::from_secs(180));
    let (Some(stdin), Some(stdout)) = (server.stdin.take(), server.stdout.take()) else {
        run.error = Some("no pipes".into());
        return run;
    };
    let mut conn = Conn::new(stdin, stdout);
    let measured = (|| -> Result<(), String> {
        let ctx = Ctx {
            options,
            server: &server,
            redis: redis.as_ref(),
        };
        let era = match workload.kind {
            Kind::Trip(era) | Kind::Get(era) | Kind::Plain(era) => era,
            Kind::Rss => return measure_rss(&ctx, &mut conn, &mut run),
            Kind::Churn => Era::Legacy,
        };
        if era == Era::Legacy {
            handshake(&mut conn)?;
            run.first_ms = Some(server.spawned_at.elapsed().as_secs_f64() * 1e3);
        }
        match workload.kind {
            Kind::Trip(era) => {
                // The first round trip, checked, is the start-up figure
                // of a 2026-07-28 run.
                finished_task(&mut conn, era)?;
                run.first_ms
                    .get_or_insert(server.spawned_at.elapsed().as_secs_f64() * 1e3);
                measure_trips(&ctx, &mut conn, era, &mut run)
            }
            Kind::Get(era) => {
                let task = finished_task(&mut conn, era)?;
                run.first_ms
                    .get_or_insert(server.spawned_at.elapsed().as_secs_f64() * 1e3);
                let template = Template::new("tasks/get", &task_params(era, &task).to_string());
                let first = conn.call_value(&template)?;
                run.response_bytes = Some(conn.last_response_bytes as u64);
                if first.get("status").and_then(Value::as_str) != Some("completed") {
                    return Err(format!("tasks/get on a finished task: {first}"));
                }
                measure_calls(&ctx, &mut conn, &template, &mut run)
            }
            Kind::Plain(era) => {
                let template = Template::new("tools/call", &echo_params(era).to_string());
                let first = conn.call_value(&template)?;
                run.response_bytes = Some(conn.last_response_bytes as u64);
                check_text(&first)?;
                if era == Era::Modern && first["resultType"] != "complete" {
                    return Err(format!("echo answered as {first}"));
                }
                run.first_ms
                    .get_or_insert(server.spawned_at.elapsed().as_secs_f64() * 1e3);
                measure_calls(&ctx, &mut conn, &template, &mut run)
            }
            Kind::Churn => measure_churn(&ctx, &mut conn, &mut run),
            Kind::Rss => unreachable!("measured above"),
        }
    })();
    run.peak_rss_kib = server.vm_hwm_kib();
    drop(conn);
    let fired = watchdog.disarm();
    let exit = server.finish(Duration::from_secs(10));
    run.total_cpu_ms = Some(exit.cpu_us as f64 / 1e3);
    drop(redis);
    if let Err(error) = measured {
        run.error = Some(crate::load::run_failure(error, fired, &log));
    }
    let _ = std::fs::remove_file(&log);
    run
}

fn brief(run: &TaskRun) -> String {
    if let Some(error) = &run.error {
        return format!("FAILED: {}", crate::load::preview(error.as_bytes(), 200));
    }
    let mib = |kib: Option<u64>| kib.unwrap_or(0) as f64 / 1024.0;
    if !run.rss_after_tasks.is_empty() {
        let steps: Vec<String> = run
            .rss_after_tasks
            .iter()
            .map(|(tasks, kib)| format!("{tasks} tasks {:.1} MiB", *kib as f64 / 1024.0))
            .collect();
        return format!("rss after {}", steps.join(", "));
    }
    if run.workload == "rss" {
        return format!(
            "rss idle {:.1} MiB, after {KEPT_TASKS} plain calls {:.1} MiB, with {KEPT_TASKS} tasks {:.1} MiB",
            mib(run.rss_idle_kib),
            mib(run.rss_plain_kib),
            mib(run.rss_tasks_kib)
        );
    }
    let (Some(seq), Some(pipe)) = (&run.sequential, &run.pipelined) else {
        return String::new();
    };
    let redis = run
        .redis_cpu_us_pipelined
        .map(|cpu| format!("  (+ redis {cpu:.1} µs)"))
        .unwrap_or_default();
    format!(
        "{:>8.0} /s  p50 {:>7.1} µs  p99 {:>7.1} µs  cpu {:>6.1} µs{redis}",
        pipe.calls_per_s,
        seq.p50_us.unwrap_or(0.0),
        seq.p99_us.unwrap_or(0.0),
        pipe.cpu_us_per_call,
    )
}

/// Runs every round, one JSON line per run in `tasks_runs.jsonl`.
pub fn run(options: &Options) -> std::io::Result<()> {
    let peers = known_peers();
    let workloads: Vec<Workload> = workloads()
        .into_iter()
        .filter(|w| options.workloads.is_empty() || options.workloads.iter().any(|n| n == w.name))
        .collect();
    std::fs::create_dir_all(&options.out_dir)?;
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(options.out_dir.join("tasks_runs.jsonl"))?;
    let started = Instant::now();
    for round in 1..=options.rounds {
        for workload in &workloads {
            for peer in peers.iter().filter(|p| {
                workload.peers.contains(&p.name)
                    && (options.peers.is_empty() || options.peers.iter().any(|n| n == p.name))
            }) {
                let run = run_one(options, peer, workload, round);
                eprintln!(
                    "[{:>4.0}s] round {round}/{}  {:<9} {:<11} {}",
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
    Ok(())
}

/// Reads tasks_runs.jsonl.
pub fn load_runs(dir: &Path) -> Vec<TaskRun> {
    std::fs::read_to_string(dir.join("tasks_runs.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}
