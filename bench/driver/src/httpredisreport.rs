//! The rows and targets of `ours-redis` in the Streamable HTTP section: a
//! legacy call in a session kept in Redis beside one kept in memory (`ours`),
//! what Redis did for it, and what an idle session costs Redis.

use std::fmt::Write;

use crate::httpreport::{collect, plural};
use crate::httpsuite::{HttpPhase, HttpRun, SessionsRun};
use crate::report::{Better, Row, median_of, num};

/// The peer with its sessions in Redis, and the one it is compared with.
pub const REDIS: &str = "ours-redis";
const LOCAL: &str = "ours";

/// The bound on the CPU of a call in a Redis-backed session.
const CPU_BOUND: f64 = 1.5;
/// And on the Redis round trips it adds to a request.
const TRIPS_BOUND: f64 = 1.0;
/// What the commands an instance sends on its own, not for a request (the
/// lease of its busy sessions every 2 s, the reaper every 30 s), may add
/// to the commands per call of a monitored window: one per 100 calls.
const TRIPS_SLACK: f64 = 0.01;

type RedisMetric = (&'static str, &'static str, fn(&HttpPhase) -> Option<f64>);

const PHASE_METRICS: [RedisMetric; 5] = [
    ("Redis CPU per call (not in the server's)", "µs", |p| {
        p.redis.as_ref().map(|r| r.cpu_us_per_call)
    }),
    // For a peer without Redis, its server's CPU: the ratio column then
    // compares the whole cost.
    ("server + Redis CPU per call", "µs", |p| {
        Some(p.cpu_us_per_call + p.redis.as_ref().map_or(0.0, |r| r.cpu_us_per_call))
    }),
    (
        "commands sent to Redis per call (MONITOR; ≥ its round trips)",
        "commands",
        |p| p.redis.as_ref().and_then(|r| r.sent_per_call),
    ),
    ("EVALSHA per call (INFO commandstats)", "calls", |p| {
        p.redis.as_ref().map(|r| r.evalsha_per_call)
    }),
    (
        "commands Redis ran per call (INFO commandstats, scripts' own included)",
        "commands",
        |p| p.redis.as_ref().map(|r| r.commands_per_call),
    ),
];

/// The Redis rows of one workload, mode and client count (`prefix`: the
/// workload's label and mode), when `ours-redis` ran them (and failed,
/// perhaps: the rows then say why).
pub fn phase_rows(of: &[&HttpRun], peers: &[String], prefix: &str, n: usize) -> Vec<Row> {
    if !of.iter().any(|r| r.peer == REDIS) {
        return Vec::new();
    }
    PHASE_METRICS
        .iter()
        .map(|&(what, unit, pick)| Row {
            label: format!("{prefix}: {what}, {n} {}", plural(n)),
            unit,
            better: Better::Lower,
            samples: collect(
                of,
                peers,
                |r| &r.peer,
                |r| r.error.as_ref(),
                |r| r.phases.iter().find(|p| p.clients == n).and_then(pick),
            ),
            derived: false,
        })
        .collect()
}

type IdleMetric = (&'static str, &'static str, fn(&SessionsRun) -> Option<f64>);

const IDLE_METRICS: [IdleMetric; 3] = [
    (
        "Redis used_memory per session above the first",
        "bytes",
        |r| r.redis.as_ref()?.bytes_per_session(r.sessions),
    ),
    ("MEMORY USAGE of one session's record", "bytes", |r| {
        r.redis.as_ref()?.session_key_bytes.map(|b| b as f64)
    }),
    ("Redis keys per session above the first", "keys", |r| {
        let redis = r.redis.as_ref()?;
        let after = redis.keys_after? as f64;
        (r.sessions > 1).then(|| (after - redis.keys_before as f64) / (r.sessions - 1) as f64)
    }),
];

/// The idle-sessions rows of Redis (`n`: the sessions, as shown).
pub fn session_rows(of: &[&SessionsRun], peers: &[String], n: &str) -> Vec<Row> {
    if !of.iter().any(|r| r.peer == REDIS) {
        return Vec::new();
    }
    IDLE_METRICS
        .iter()
        .map(|&(what, unit, pick)| Row {
            label: format!("{n} idle sessions: {what}"),
            unit,
            better: Better::Lower,
            samples: collect(of, peers, |r| &r.peer, |r| r.error.as_ref(), pick),
            derived: false,
        })
        .collect()
}

/// Why a row has no figure for `peer`: its runs failed, or it did not run.
fn why_not(rows: &[Row], label: &str, peer: &str) -> String {
    let failed = rows
        .iter()
        .find(|r| r.label.starts_with(label))
        .and_then(|r| r.samples.get(peer))
        .is_some_and(|s| s.as_ref().is_err_and(|e| e != "—"));
    if failed {
        format!("n/a: {peer}'s runs failed (see below)")
    } else {
        format!("n/a: {peer} not run")
    }
}

fn met(ok: bool) -> &'static str {
    if ok { "yes" } else { "**no**" }
}

/// The targets for a legacy call in a Redis-backed session, and
/// the figure of an idle session in Redis, as lines of the Targets table.
pub fn targets(
    out: &mut String,
    rows: &[Row],
    prefix: &str,
    counts: &[usize],
    sessions: Option<&str>,
) {
    let many = *counts.last().unwrap_or(&64);
    let at = |what: &str, n: usize| format!("{prefix}: {what}, {n} {}", plural(n));
    let both = |label: &str| median_of(rows, label, REDIS).zip(median_of(rows, label, LOCAL));
    for (what, metric) in [
        ("server CPU per call", "server CPU per call"),
        ("server + Redis CPU per call", "server + Redis CPU per call"),
    ] {
        let figure = match both(&at(metric, many)) {
            Some((redis, local)) if local > 0.0 => {
                let r = redis / local;
                format!(
                    "| legacy call in a Redis-backed session, {many} clients: {what} ≤ {CPU_BOUND}× a local session's | {REDIS} {} µs ÷ {LOCAL} {} µs = {r:.2}× | {} |",
                    num(redis),
                    num(local),
                    met(r <= CPU_BOUND)
                )
            }
            _ => {
                let label = at(metric, many);
                let why = match median_of(rows, &label, LOCAL) {
                    None => why_not(rows, &label, LOCAL),
                    Some(_) => why_not(rows, &label, REDIS),
                };
                format!(
                    "| legacy call in a Redis-backed session, {many} clients: {what} ≤ {CPU_BOUND}× a local session's | {why} | n/a |"
                )
            }
        };
        let _ = writeln!(out, "{figure}");
    }
    for &n in counts {
        let sent = median_of(rows, &at(PHASE_METRICS[2].0, n), REDIS);
        let evalsha = median_of(rows, &at(PHASE_METRICS[3].0, n), REDIS);
        let ran = median_of(rows, &at(PHASE_METRICS[4].0, n), REDIS);
        let line = match sent {
            Some(sent) => format!(
                "| at most {TRIPS_BOUND:.0} Redis round trip added per request, {n} {}: commands sent to Redis per call ≤ {TRIPS_BOUND:.0} (+ {TRIPS_SLACK} for the instance's own: leases, reaper) | {sent:.4} sent (EVALSHA {}; Redis ran {} with the scripts' own) | {} |",
                plural(n),
                evalsha.map_or("n/a".into(), |e| format!("{e:.4}")),
                ran.map_or("n/a".into(), num),
                met(sent <= TRIPS_BOUND + TRIPS_SLACK)
            ),
            None => format!(
                "| at most {TRIPS_BOUND:.0} Redis round trip added per request, {n} {} | {} | n/a |",
                plural(n),
                why_not(rows, &at(PHASE_METRICS[2].0, n), REDIS)
            ),
        };
        let _ = writeln!(out, "{line}");
    }
    for q in ["p50", "p99"] {
        if let Some((redis, local)) = both(&at(&format!("latency {q}"), many)) {
            let _ = writeln!(
                out,
                "| (latency {q} at {many} clients, Redis-backed ÷ local: no target) | {REDIS} {} µs ÷ {LOCAL} {} µs = {:.2}× | — |",
                num(redis),
                num(local),
                redis / local.max(f64::MIN_POSITIVE)
            );
        }
    }
    if let Some(n) = sessions {
        let label = format!("{n} idle sessions: {}", IDLE_METRICS[0].0);
        if let Some(bytes) = median_of(rows, &label, REDIS) {
            let _ = writeln!(
                out,
                "| (Redis memory per idle session, {n} sessions: no target) | {} bytes | — |",
                num(bytes)
            );
        }
    }
}
