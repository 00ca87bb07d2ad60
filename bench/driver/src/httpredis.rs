//! `ours-redis` in the HTTP suite: ours with its legacy sessions kept in a
//! `redis-server` of the run's own. What Redis does for the calls, beside
//! what the server does:
//!
//! - around each measured load phase, Redis's CPU (its process, all its
//!   threads) and `INFO commandstats` (every command it ran: those the
//!   server sent, and those its scripts ran, each under its own name), per
//!   call;
//! - after each measured phase, a short **monitored** phase with the same
//!   clients under `MONITOR`, which tells the commands a client sent from
//!   those a script ran: the commands sent per call bound the round trips
//!   per call from above (a pipeline sends several in one);
//! - in the idle-sessions run, Redis's `used_memory`, its keys, and
//!   `MEMORY USAGE` of one session's record, with one session and with all.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::httpclient::HttpConn;
use crate::load::{Error, Template};
use crate::process::{cpu_ns_of, cpu_ticks_ns_of};
use crate::redis::{Monitor, Redis, RedisConn};

/// The commands the driver sends itself, left out of the counts.
const OURS: [&str; 1] = ["info"];

/// What Redis did during one measured load phase of `ours-redis`, per call.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct RedisPhase {
    /// Redis's utime + stime (/proc/PID/stat, clock ticks) per call.
    pub cpu_us_per_call: f64,
    /// The same from per-thread schedstat.
    pub cpu_sched_us_per_call: f64,
    /// `INFO commandstats`: every command Redis ran during the phase per
    /// call (the driver's own `INFO` left out), scripts' commands included.
    pub commands_per_call: f64,
    /// `EVALSHA` (and `EVAL`) per call.
    pub evalsha_per_call: f64,
    /// The phase's calls of each command (`INFO commandstats` deltas).
    pub commands: BTreeMap<String, u64>,
    /// Calls made in the monitored phase.
    pub monitored_calls: u64,
    /// Commands the server sent to Redis per call in the monitored phase
    /// (what the scripts ran not counted): at least its round trips.
    pub sent_per_call: Option<f64>,
    /// The monitored phase's commands sent, by name.
    pub sent: BTreeMap<String, u64>,
    /// The monitored phase's commands run by scripts, by name.
    pub by_scripts: BTreeMap<String, u64>,
}

impl RedisPhase {
    /// The progress line's part.
    pub fn brief(&self) -> String {
        format!(
            " (+ redis {:.1} µs/call, {:.2} commands/call, {:.2} evalsha/call, {} sent/call)",
            self.cpu_us_per_call,
            self.commands_per_call,
            self.evalsha_per_call,
            self.sent_per_call.map_or("?".into(), |s| format!("{s:.2}"))
        )
    }
}

/// Starts a Redis of the run's own when `wanted` (a peer keeping its
/// sessions there) and points the server at it (`args`).
pub fn start(program: &Path, wanted: bool, args: &mut Vec<String>) -> Result<Option<Redis>, Error> {
    if !wanted {
        return Ok(None);
    }
    let redis = Redis::start(program)?;
    args.extend(["--sessions-redis".to_string(), redis.url()]);
    Ok(Some(redis))
}

/// Redis's counters at the start of a measured phase.
pub struct Before {
    conn: RedisConn,
    pid: i32,
    cpu: (u64, u64),
    stats: BTreeMap<String, u64>,
}

/// Reads Redis's CPU and commandstats before a measured phase.
pub fn before(redis: &Redis) -> Result<Before, Error> {
    let mut conn = redis.connect()?;
    let stats = conn.command_stats()?;
    let pid = redis.pid();
    Ok(Before {
        conn,
        pid,
        cpu: (cpu_ticks_ns_of(pid), cpu_ns_of(pid)),
        stats,
    })
}

/// Reads them again after the phase's `calls`: the phase's figures. A
/// phase in which Redis ran nothing fails: the server did not keep its
/// sessions there, and the figures would say nothing about Redis.
pub fn after(mut before: Before, calls: u64) -> Result<RedisPhase, Error> {
    let cpu = (cpu_ticks_ns_of(before.pid), cpu_ns_of(before.pid));
    let stats = before.conn.command_stats()?;
    let calls_f = calls.max(1) as f64;
    let commands: BTreeMap<String, u64> = stats
        .into_iter()
        .filter(|(name, _)| !OURS.contains(&name.as_str()))
        .map(|(name, n)| {
            let was = before.stats.get(&name).copied().unwrap_or(0);
            (name, n.saturating_sub(was))
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    let total: u64 = commands.values().sum();
    if total == 0 {
        return Err(format!(
            "Redis ran no command during {calls} calls in sessions: the server does not keep \
             its sessions in Redis"
        ));
    }
    let evalsha: u64 = ["evalsha", "eval", "evalsha_ro", "eval_ro"]
        .iter()
        .filter_map(|c| commands.get(*c))
        .sum();
    Ok(RedisPhase {
        cpu_us_per_call: cpu.0.saturating_sub(before.cpu.0) as f64 / 1e3 / calls_f,
        cpu_sched_us_per_call: cpu.1.saturating_sub(before.cpu.1) as f64 / 1e3 / calls_f,
        commands_per_call: total as f64 / calls_f,
        evalsha_per_call: evalsha as f64 / calls_f,
        commands,
        ..RedisPhase::default()
    })
}

/// The monitored phase: the clients call in a closed loop for `duration`
/// under `MONITOR`; what the server sent is added to `phase`.
pub async fn monitored(
    redis: &Redis,
    clients: Vec<HttpConn>,
    template: &Arc<Template>,
    duration: Duration,
    phase: &mut RedisPhase,
) -> Result<Vec<HttpConn>, Error> {
    let monitor = Monitor::start(redis)?;
    let (clients, outcome) = crate::httpsuite::closed_loop(clients, template, duration).await?;
    let seen = monitor.finish()?;
    let calls = outcome.latencies_ns.len() as u64;
    phase.monitored_calls = calls;
    phase.sent_per_call = Some(seen.sent.values().sum::<u64>() as f64 / calls.max(1) as f64);
    phase.sent = seen.sent;
    phase.by_scripts = seen.by_scripts;
    Ok(clients)
}

/// Redis in an idle-sessions run of `ours-redis`.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct RedisIdle {
    /// `used_memory` with one session, and with all of them.
    pub used_before: u64,
    pub used_after: Option<u64>,
    /// `DBSIZE`, the same two times.
    pub keys_before: u64,
    pub keys_after: Option<u64>,
    /// `MEMORY USAGE` of one session's record (`mcp:session:ID`).
    pub session_key_bytes: Option<u64>,
    /// Redis's VmRSS with all of them.
    pub rss_kib: Option<u64>,
}

impl RedisIdle {
    /// The progress line's part.
    pub fn brief(&self, sessions: u64) -> String {
        format!(
            "; redis {:.0} bytes/session (keys {} → {}, one record {} bytes)",
            self.bytes_per_session(sessions).unwrap_or(f64::NAN),
            self.keys_before,
            self.keys_after.unwrap_or(0),
            self.session_key_bytes.unwrap_or(0)
        )
    }

    /// Bytes of `used_memory` per session above the first.
    pub fn bytes_per_session(&self, sessions: u64) -> Option<f64> {
        let after = self.used_after?;
        (sessions > 1).then(|| (after as f64 - self.used_before as f64) / (sessions - 1) as f64)
    }
}

fn sample(conn: &mut RedisConn) -> Result<(u64, u64), Error> {
    let used = conn.used_memory()?;
    let keys = conn.integer(&["DBSIZE"])?.unwrap_or(0).max(0) as u64;
    Ok((used, keys))
}

/// Redis with the first session only.
pub fn idle_before(redis: &Redis) -> Result<RedisIdle, Error> {
    let (used_before, keys_before) = sample(&mut redis.connect()?)?;
    Ok(RedisIdle {
        used_before,
        keys_before,
        ..RedisIdle::default()
    })
}

/// Redis with every session open (`one`: a session's id). Fails when
/// Redis holds no more keys than with the first session.
pub fn idle_after(redis: &Redis, idle: &mut RedisIdle, one: Option<&str>) -> Result<(), Error> {
    let mut conn = redis.connect()?;
    let (used, keys) = sample(&mut conn)?;
    idle.used_after = Some(used);
    idle.keys_after = Some(keys);
    if keys <= idle.keys_before {
        return Err(format!(
            "Redis holds {keys} keys with every session open, {} with the first: the server \
             does not keep its sessions in Redis",
            idle.keys_before
        ));
    }
    if let Some(id) = one {
        let key = format!("mcp:session:{id}");
        idle.session_key_bytes = conn
            .integer(&["MEMORY", "USAGE", &key, "SAMPLES", "0"])?
            .map(|n| n.max(0) as u64);
    }
    idle.rss_kib = crate::process::vm_rss_kib_of(redis.pid());
    Ok(())
}
