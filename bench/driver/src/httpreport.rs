//! The Streamable HTTP table: each peer's median (min–max) over the rounds
//! for every workload, mode and client count; idle sessions; first answer;
//! binary sizes; and the HTTP targets checked against the medians.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use serde_json::Value;

use crate::httpredisreport::{self, REDIS};
use crate::httpsuite::{self, HttpPhase, HttpRun, SessionsRun};
use crate::report::{Better, Row, median_of, render};
use crate::workloads;

/// What the HTTP suite left in a results directory.
pub struct Section {
    runs: Vec<HttpRun>,
    sessions: Vec<SessionsRun>,
    sizes: serde_json::Map<String, Value>,
}

/// The sessions target: RSS under this many bytes (60 MB).
const SESSIONS_RSS_TARGET_BYTES: f64 = 60e6;

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// Per peer: one sample per ok item from `pick`, or the first error.
pub(crate) fn collect<T>(
    items: &[&T],
    peers: &[String],
    peer_of: impl Fn(&T) -> &str,
    error_of: impl Fn(&T) -> Option<&String>,
    pick: impl Fn(&T) -> Option<f64>,
) -> BTreeMap<String, Result<Vec<f64>, String>> {
    peers
        .iter()
        .map(|peer| {
            let mine: Vec<&&T> = items.iter().filter(|i| peer_of(i) == peer).collect();
            let values: Vec<f64> = mine
                .iter()
                .filter(|i| error_of(i).is_none())
                .filter_map(|i| pick(i))
                .collect();
            let entry = if values.is_empty() {
                Err(mine
                    .iter()
                    .find_map(|i| error_of(i).cloned())
                    .unwrap_or_else(|| "—".into()))
            } else {
                Ok(values)
            };
            (peer.clone(), entry)
        })
        .collect()
}

/// 10000 as "10,000".
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "client" } else { "clients" }
}

/// A session-run metric: label, unit, direction and how to read it.
type SessionMetric = (
    String,
    &'static str,
    Better,
    fn(&SessionsRun) -> Option<f64>,
);

/// A load-phase metric: label, unit, direction and how to read it.
type PhaseMetric = (&'static str, &'static str, Better, fn(&HttpPhase) -> f64);

const PHASE_METRICS: [PhaseMetric; 6] = [
    ("calls/s", "calls/s", Better::Higher, |p| p.calls_per_s),
    ("latency p50", "µs", Better::Lower, |p| p.p50_us),
    ("latency p99", "µs", Better::Lower, |p| p.p99_us),
    ("server CPU per call", "µs", Better::Lower, |p| {
        p.cpu_us_per_call
    }),
    ("driver (client) CPU per call", "µs", Better::Lower, |p| {
        p.driver_cpu_us_per_call
    }),
    (
        "time the server's threads waited for a CPU, per call",
        "µs",
        Better::Lower,
        |p| p.server_wait_us_per_call,
    ),
];

/// Whose binary a peer runs: `rmcp-nodelay` runs `rmcp`'s with a flag.
fn size_key(peer: &str) -> &str {
    match peer {
        "rmcp-nodelay" => "rmcp",
        other => other,
    }
}

impl Section {
    /// The HTTP suite's results in `dir`, if it ran there.
    pub fn load(dir: &Path) -> Option<Section> {
        let runs = httpsuite::load_runs(dir);
        let sessions = httpsuite::load_sessions(dir);
        let sizes: serde_json::Map<String, Value> =
            std::fs::read_to_string(dir.join("http_sizes.json"))
                .ok()
                .and_then(|s| serde_json::from_str(&s).ok())
                .unwrap_or_default();
        if runs.is_empty() && sessions.is_empty() && sizes.is_empty() {
            return None;
        }
        Some(Section {
            runs,
            sessions,
            sizes,
        })
    }

    /// The load averages seen at the start of each run.
    pub fn loads(&self) -> Vec<f64> {
        self.runs
            .iter()
            .filter_map(|r| r.load1)
            .chain(self.sessions.iter().filter_map(|r| r.load1))
            .collect()
    }

    fn rounds(&self) -> u32 {
        self.runs
            .iter()
            .map(|r| r.round)
            .chain(self.sessions.iter().map(|r| r.round))
            .max()
            .unwrap_or(0)
    }

    fn session_label(&self) -> Option<String> {
        self.session_count().map(thousands)
    }

    fn session_count(&self) -> Option<u64> {
        self.sessions.first().map(|s| s.sessions)
    }

    /// The client counts of the load phases, ascending (1 and 64 when
    /// there are none).
    fn client_counts(&self) -> Vec<usize> {
        let mut counts = client_counts(&self.runs);
        if counts.is_empty() {
            counts = vec![1, 64];
        }
        counts
    }

    /// The header's line about this suite.
    pub fn suite_line(&self) -> String {
        let counts: Vec<String> = self
            .client_counts()
            .iter()
            .map(ToString::to_string)
            .collect();
        let mut line = format!(
            "- Streamable HTTP: {} rounds, peers interleaved; one fresh server process per run; \
             closed-loop clients ({}), each with its own keep-alive HTTP/1.1 connection and session",
            self.rounds(),
            counts.join(" and ")
        );
        if let Some(n) = self.session_label() {
            let _ = write!(line, "; {n} idle sessions per session run");
        }
        line.push('\n');
        line
    }

    fn peers(&self) -> Vec<String> {
        let present = |name: &str| {
            self.runs.iter().any(|r| r.peer == name)
                || self.sessions.iter().any(|r| r.peer == name)
                || self.sizes.contains_key(name)
        };
        httpsuite::known_peers()
            .into_iter()
            .map(|p| p.name)
            .filter(|p| present(p))
            .collect()
    }

    fn rows(&self, peers: &[String]) -> Vec<Row> {
        let mut rows = Vec::new();
        let counts = self.client_counts();
        for workload in workloads::all() {
            for mode in httpsuite::MODES {
                let of: Vec<&HttpRun> = self
                    .runs
                    .iter()
                    .filter(|r| r.workload == workload.name && r.mode == mode)
                    .collect();
                if of.is_empty() {
                    continue;
                }
                for &n in &counts {
                    for (what, unit, better, pick) in PHASE_METRICS {
                        rows.push(Row {
                            label: format!("{}, {mode}: {what}, {n} {}", workload.label, plural(n)),
                            unit,
                            better,
                            samples: collect(
                                &of,
                                peers,
                                |r| &r.peer,
                                |r| r.error.as_ref(),
                                |r| r.phases.iter().find(|p| p.clients == n).map(pick),
                            ),
                            derived: false,
                        });
                    }
                    let prefix = format!("{}, {mode}", workload.label);
                    rows.extend(httpredisreport::phase_rows(&of, peers, &prefix, n));
                }
                rows.push(Row {
                    label: format!("{}, {mode}: server peak RSS", workload.label),
                    unit: "MiB",
                    better: Better::Lower,
                    samples: collect(
                        &of,
                        peers,
                        |r| &r.peer,
                        |r| r.error.as_ref(),
                        |r| r.peak_rss_kib.map(mib),
                    ),
                    derived: false,
                });
            }
        }
        if let Some(n) = self.session_label() {
            let of: Vec<&SessionsRun> = self.sessions.iter().collect();
            let session_rows: [SessionMetric; 3] = [
                (
                    format!("{n} idle sessions, connections closed: server RSS"),
                    "MiB",
                    Better::Lower,
                    |r| r.rss_kib.map(mib),
                ),
                (
                    format!("{n} idle sessions: RSS per session above the first"),
                    "KiB",
                    Better::Lower,
                    |r| match (r.rss_kib, r.rss_before_kib) {
                        (Some(after), Some(before)) if r.sessions > 1 => {
                            Some((after as f64 - before as f64) / (r.sessions - 1) as f64)
                        }
                        _ => None,
                    },
                ),
                (
                    format!(
                        "{n} idle sessions: opened per second ({} connections)",
                        httpsuite::SESSION_OPENERS
                    ),
                    "sessions/s",
                    Better::Higher,
                    |r| r.sessions_per_s,
                ),
            ];
            for (label, unit, better, pick) in session_rows {
                rows.push(Row {
                    label,
                    unit,
                    better,
                    samples: collect(&of, peers, |r| &r.peer, |r| r.error.as_ref(), pick),
                    derived: false,
                });
            }
            rows.extend(httpredisreport::session_rows(&of, peers, &n));
        }
        // Every run starts a server: its first answer counts, whatever came next.
        let mut first_answers: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        let mut first_errors: BTreeMap<String, String> = BTreeMap::new();
        let runs = self.runs.iter().map(|r| (&r.peer, r.ttfr_ms, &r.error));
        let sessions = self.sessions.iter().map(|r| (&r.peer, r.ttfr_ms, &r.error));
        for (peer, ttfr, error) in runs.chain(sessions) {
            match (ttfr, error) {
                (Some(ms), _) => first_answers.entry(peer.clone()).or_default().push(ms),
                (None, Some(e)) => {
                    first_errors
                        .entry(peer.clone())
                        .or_insert_with(|| e.clone());
                }
                (None, None) => {}
            }
        }
        if !first_answers.is_empty() || !first_errors.is_empty() {
            rows.push(Row {
                label: "spawn → first initialize answered over HTTP".into(),
                unit: "ms",
                better: Better::Lower,
                samples: peers
                    .iter()
                    .map(|p| {
                        let entry = match first_answers.get(p) {
                            Some(v) => Ok(v.clone()),
                            None => Err(first_errors
                                .get(p)
                                .cloned()
                                .unwrap_or_else(|| "not run".into())),
                        };
                        (p.clone(), entry)
                    })
                    .collect(),
                derived: false,
            });
        }
        for (key, what) in [("bytes", "as built"), ("stripped", "stripped")] {
            let size = |name: &str| {
                self.sizes
                    .get(size_key(name))
                    .and_then(|s| s.get(key))
                    .and_then(Value::as_u64)
                    .map(|b| vec![b as f64 / 1048576.0])
            };
            rows.push(Row {
                label: format!("release binary, HTTP benchmark server, {what}"),
                unit: "MiB",
                better: Better::Lower,
                samples: peers
                    .iter()
                    .map(|p| (p.clone(), size(p).ok_or_else(|| "not built".to_string())))
                    .collect(),
                derived: false,
            });
            if let Some(weather) = size("weather") {
                rows.push(Row {
                    label: format!(
                        "release binary: ours = the weather example with `http`, {what}"
                    ),
                    unit: "MiB",
                    better: Better::Lower,
                    samples: peers
                        .iter()
                        .map(|p| {
                            let entry = if p == "ours" {
                                Ok(weather.clone())
                            } else {
                                size(p).ok_or_else(|| "not built".to_string())
                            };
                            (p.clone(), entry)
                        })
                        .collect(),
                    derived: false,
                });
            }
        }
        rows
    }

    /// The section: table, targets, failed runs.
    pub fn render(&self) -> String {
        let peers = self.peers();
        let rows = self.rows(&peers);
        let mut out = String::from("\n## Streamable HTTP\n\n");
        out.push_str(&render(&rows, &peers));
        // The targets compare ours with other frameworks: not for a run of
        // ours and its gateway alone (`bench/run --suite forward`), nor of
        // ours in memory and on Redis alone (those have targets of their own).
        let frameworks = peers
            .iter()
            .any(|p| !["ours", "gateway", REDIS].contains(&p.as_str()))
            || self.sizes.contains_key("weather");
        let redis = peers.iter().any(|p| p == REDIS);
        if frameworks || redis {
            out.push_str(
                "\n## Targets over HTTP\n\n| target | figure | met |\n| --- | --- | --- |\n",
            );
        }
        if frameworks {
            out.push_str(&self.targets(&rows));
        }
        if redis {
            let echo = workloads::all()
                .into_iter()
                .find(|w| w.name == "echo")
                .map_or("echo", |w| w.label);
            httpredisreport::targets(
                &mut out,
                &rows,
                &format!("{echo}, stateful"),
                &self.client_counts(),
                self.session_label().as_deref(),
            );
        }
        out.push_str(&self.failures());
        out
    }

    fn targets(&self, rows: &[Row]) -> String {
        let many = *self.client_counts().last().unwrap_or(&64);
        let mut out = String::new();
        let why_not = |label: &str, peer: &str| -> String {
            let failed = rows
                .iter()
                .find(|r| r.label.starts_with(label))
                .and_then(|r| r.samples.get(peer))
                .is_some_and(|s| s.as_ref().is_err_and(|e| e != "not run"));
            if failed {
                format!("n/a: {peer}'s runs failed (see below)")
            } else {
                format!("n/a: {peer} not run")
            }
        };
        let mut ratio = |what: String, label: String, peer: &str, better: Better, bound: f64| {
            let line = match (
                median_of(rows, &label, "ours"),
                median_of(rows, &label, peer),
            ) {
                (Some(ours), Some(theirs)) if theirs != 0.0 => {
                    let r = ours / theirs;
                    let met = match better {
                        Better::Higher => r >= bound,
                        Better::Lower => r <= bound,
                    };
                    // Three decimals when two would round onto the bound.
                    let shown = if format!("{r:.2}") == format!("{bound:.2}") {
                        format!("{r:.3}")
                    } else {
                        format!("{r:.2}")
                    };
                    format!(
                        "| {what} | ours ÷ {peer} = {shown}× | {} |",
                        if met { "yes" } else { "**no**" }
                    )
                }
                (None, _) => format!("| {what} | {} | n/a |", why_not(&label, "ours")),
                _ => format!("| {what} | {} | n/a |", why_not(&label, peer)),
            };
            let _ = writeln!(out, "{line}");
        };
        let echo = workloads::all()
            .into_iter()
            .find(|w| w.name == "echo")
            .map_or("echo", |w| w.label);
        for mode in httpsuite::MODES {
            if !self
                .runs
                .iter()
                .any(|r| r.mode == mode && r.workload == "echo")
            {
                continue;
            }
            let prefix = format!("{echo}, {mode}");
            // rmcp as its examples serve it, and with TCP_NODELAY (when run).
            let rmcps: Vec<&str> = ["rmcp", "rmcp-nodelay"]
                .into_iter()
                .filter(|p| *p == "rmcp" || self.runs.iter().any(|r| r.peer == *p))
                .collect();
            for &rmcp in &rmcps {
                ratio(
                    format!(
                        "tools/call over HTTP ({mode}), {many} concurrent clients: ≥ 2× {rmcp}'s throughput"
                    ),
                    format!("{prefix}: calls/s, {many} {}", plural(many)),
                    rmcp,
                    Better::Higher,
                    2.0,
                );
            }
            ratio(
                format!(
                    "tools/call over HTTP ({mode}), {many} concurrent clients: CPU per request ≤ 1.3× the hyper floor's"
                ),
                format!("{prefix}: server CPU per call, {many} {}", plural(many)),
                "floor",
                Better::Lower,
                1.3,
            );
            for &rmcp in &rmcps {
                ratio(
                    format!("p99 latency at {many} clients ({mode}): no worse than {rmcp}'s"),
                    format!("{prefix}: latency p99, {many} {}", plural(many)),
                    rmcp,
                    Better::Lower,
                    1.0,
                );
            }
        }
        if let Some(n) = self.session_label() {
            let label = format!("{n} idle sessions, connections closed: server RSS");
            let line = match median_of(rows, &label, "ours") {
                Some(rss_mib) => {
                    let mb = rss_mib * 1048576.0 / 1e6;
                    format!(
                        "| {n} idle sessions: RSS under 60 MB | {mb:.1} MB ({rss_mib:.1} MiB) | {} |",
                        if mb * 1e6 < SESSIONS_RSS_TARGET_BYTES {
                            "yes"
                        } else {
                            "**no**"
                        }
                    )
                }
                None => format!(
                    "| {n} idle sessions: RSS under 60 MB | {} | n/a |",
                    why_not(&label, "ours")
                ),
            };
            let _ = writeln!(out, "{line}");
        }
        let bytes = |name: &str| {
            self.sizes
                .get(name)
                .and_then(|s| s.get("bytes"))
                .and_then(Value::as_u64)
        };
        let mut size_target = |what: &str, ours: Option<u64>, ours_name: &str| {
            let line = match (ours, bytes("rmcp")) {
                (Some(a), Some(b)) => format!(
                    "| {what} | {ours_name} {:.2} MiB ÷ rmcp-http {:.2} MiB = {:.2}× | {} |",
                    a as f64 / 1048576.0,
                    b as f64 / 1048576.0,
                    a as f64 / b as f64,
                    if a <= b { "yes" } else { "**no**" }
                ),
                (None, _) => format!("| {what} | n/a: {ours_name} not built | n/a |"),
                (_, None) => format!("| {what} | n/a: rmcp-http not built | n/a |"),
            };
            let _ = writeln!(out, "{line}");
        };
        size_target(
            "release binary of the weather example with `http` (root workspace, `Server::run()`: `--http ADDR`): no bigger than rmcp's Streamable HTTP server",
            bytes("weather"),
            "weather",
        );
        size_target(
            "(the same for the benchmark servers: ours-http ≤ rmcp-http)",
            bytes("ours"),
            "ours-http",
        );
        out
    }

    fn failures(&self) -> String {
        let mut lines = Vec::new();
        for r in &self.runs {
            if let Some(e) = &r.error {
                lines.push(format!(
                    "- round {} {} {} {}: {}",
                    r.round,
                    r.peer,
                    r.mode,
                    r.workload,
                    crate::load::preview(e.as_bytes(), 300)
                ));
            }
        }
        for r in &self.sessions {
            if let Some(e) = &r.error {
                lines.push(format!(
                    "- round {} {} sessions: {}",
                    r.round,
                    r.peer,
                    crate::load::preview(e.as_bytes(), 300)
                ));
            }
        }
        if lines.is_empty() {
            return String::new();
        }
        format!(
            "\n{} of {} HTTP runs failed:\n{}\n",
            lines.len(),
            self.runs.len() + self.sessions.len(),
            lines.join("\n")
        )
    }
}

/// The client counts of the load phases of `runs`, ascending, each once.
pub fn client_counts(runs: &[HttpRun]) -> Vec<usize> {
    let mut counts: Vec<usize> = runs
        .iter()
        .flat_map(|r| r.phases.iter().map(|p| p.clients))
        .collect();
    counts.sort_unstable();
    counts.dedup();
    counts
}
