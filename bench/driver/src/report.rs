//! The table: for every metric, each peer's median with its min–max over the
//! rounds, and ours divided by each other peer (the floor included).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use serde_json::Value;

use crate::buildcost::{self, Build};
use crate::suite::{self, Run};
use crate::workloads::{self, Server};

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Better {
    Higher,
    Lower,
}

/// One row: a label and each peer's samples (or why there are none).
pub(crate) struct Row {
    pub(crate) label: String,
    pub(crate) unit: &'static str,
    pub(crate) better: Better,
    pub(crate) samples: BTreeMap<String, Result<Vec<f64>, String>>,
    /// Computed from other rows, not measured: shown with "≈".
    pub(crate) derived: bool,
}

/// A runtime metric: label, unit, direction and how to read it off a run.
type Metric = (String, &'static str, Better, fn(&Run) -> Option<f64>);

pub(crate) struct Stats {
    pub(crate) median: f64,
    pub(crate) min: f64,
    pub(crate) max: f64,
    pub(crate) n: usize,
}

pub(crate) fn stats(values: &[f64]) -> Option<Stats> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    Some(Stats {
        median,
        min: v[0],
        max: v[n - 1],
        n,
    })
}

/// A ratio with two decimals, or enough to tell a very small one from 0.
pub(crate) fn ratio(r: f64) -> String {
    if r != 0.0 && r.abs() < 0.1 {
        format!("{r:.3}×")
    } else {
        format!("{r:.2}×")
    }
}

pub(crate) fn num(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Collects, per peer, one sample per ok run from `pick`; a peer whose
/// runs all failed gets the first error.
fn collect<'a>(
    runs: impl Iterator<Item = &'a Run> + Clone,
    peers: &[String],
    pick: impl Fn(&Run) -> Option<f64>,
) -> BTreeMap<String, Result<Vec<f64>, String>> {
    peers
        .iter()
        .map(|peer| {
            let mine = runs.clone().filter(|r| &r.peer == peer);
            let values: Vec<f64> = mine
                .clone()
                .filter(|r| r.error.is_none())
                .filter_map(&pick)
                .collect();
            let entry = if values.is_empty() {
                // A peer not run for this workload (the modern workloads
                // run only against peers that serve that era): "—".
                Err(mine
                    .filter_map(|r| r.error.clone())
                    .next()
                    .unwrap_or_else(|| "—".into()))
            } else {
                Ok(values)
            };
            (peer.clone(), entry)
        })
        .collect()
}

/// The peers that were run, in the driver's order (ours first, the floor last).
fn peer_order(runs: &[Run]) -> Vec<String> {
    let mut peers: Vec<String> = Vec::new();
    for run in runs {
        if !peers.contains(&run.peer) {
            peers.push(run.peer.clone());
        }
    }
    let known: Vec<String> = suite::known_peers().into_iter().map(|p| p.name).collect();
    peers.sort_by_key(|p| known.iter().position(|k| k == p).unwrap_or(usize::MAX));
    peers
}

fn runtime_rows(runs: &[Run], peers: &[String]) -> Vec<Row> {
    let in_flight = runs.first().map_or(0, |r| r.in_flight);
    let mut rows = Vec::new();
    for workload in workloads::all() {
        let of = runs.iter().filter(move |r| r.workload == workload.name);
        if of.clone().next().is_none() {
            continue;
        }
        let metrics: [Metric; 6] = [
            (
                format!("calls/s, {in_flight} in flight"),
                "calls/s",
                Better::Higher,
                |r| r.pipelined.as_ref().map(|p| p.calls_per_s),
            ),
            (
                "latency p50, one at a time".into(),
                "µs",
                Better::Lower,
                |r| r.sequential.as_ref().and_then(|p| p.p50_us),
            ),
            (
                "latency p99, one at a time".into(),
                "µs",
                Better::Lower,
                |r| r.sequential.as_ref().and_then(|p| p.p99_us),
            ),
            (
                "server CPU per call, pipelined".into(),
                "µs",
                Better::Lower,
                |r| r.pipelined.as_ref().map(|p| p.cpu_us_per_call),
            ),
            (
                "server CPU per call, one at a time".into(),
                "µs",
                Better::Lower,
                |r| r.sequential.as_ref().map(|p| p.cpu_us_per_call),
            ),
            ("server peak RSS".into(), "MiB", Better::Lower, |r| {
                r.peak_rss_kib.map(|k| k as f64 / 1024.0)
            }),
        ];
        for (label, unit, better, pick) in metrics {
            rows.push(Row {
                label: format!("{}: {label}", workload.label),
                unit,
                better,
                samples: collect(of.clone(), peers, pick),
                derived: false,
            });
        }
    }
    for (server, label) in [
        (Server::Basic, "spawn → initialize response, 3 tools"),
        (Server::Many, "spawn → initialize response, 200 tools"),
    ] {
        let names: Vec<&str> = workloads::all()
            .into_iter()
            .filter(|w| w.server == server)
            .map(|w| w.name)
            .collect();
        let of = runs.iter().filter(|r| names.contains(&r.workload.as_str()));
        if of.clone().next().is_some() {
            rows.push(Row {
                label: label.into(),
                unit: "ms",
                better: Better::Lower,
                samples: collect(of, peers, |r| r.init_ms),
                derived: false,
            });
        }
    }
    rows
}

fn size_rows(sizes: &serde_json::Map<String, Value>, peers: &[String]) -> Vec<Row> {
    [("basic", "3 tools"), ("many", "200 tools")]
        .into_iter()
        .map(|(kind, label)| Row {
            label: format!("release binary, benchmark server of {label}"),
            unit: "MiB",
            better: Better::Lower,
            samples: peers
                .iter()
                .map(|p| {
                    let size = sizes
                        .get(&format!("{p}/{kind}"))
                        .and_then(Value::as_u64)
                        .map(|b| vec![b as f64 / 1048576.0])
                        .ok_or_else(|| "not built".to_string());
                    (p.clone(), size)
                })
                .collect(),
            derived: false,
        })
        .collect()
}

fn build_rows(builds: &[Build], peers: &[String]) -> Vec<Row> {
    let mut counts: Vec<usize> = builds.iter().map(|b| b.tools).collect();
    counts.sort_unstable();
    counts.dedup();
    let mut rows = Vec::new();
    // `kind` "" takes every kind (binary sizes).
    let pick = |kind: &str, tools: usize, what: fn(&Build) -> Option<f64>| {
        peers
            .iter()
            .map(|peer| {
                let mine: Vec<&Build> = builds
                    .iter()
                    .filter(|b| {
                        &b.peer == peer && (kind.is_empty() || b.kind == kind) && b.tools == tools
                    })
                    .collect();
                let values: Vec<f64> = mine.iter().filter_map(|b| what(b)).collect();
                let entry = if !values.is_empty() {
                    Ok(values)
                } else if !buildcost::PEERS.contains(&peer.as_str()) {
                    Err("—".to_string())
                } else {
                    Err(mine
                        .iter()
                        .find_map(|b| b.error.clone())
                        .unwrap_or_else(|| "not measured".into()))
                };
                (peer.clone(), entry)
            })
            .collect::<BTreeMap<_, _>>()
    };
    let median = |kind: &str, tools: usize, peer: &str| {
        let values: Vec<f64> = builds
            .iter()
            .filter(|b| b.peer == peer && b.kind == kind && b.tools == tools)
            .filter_map(|b| b.seconds)
            .collect();
        stats(&values).map(|s| s.median)
    };
    // The smallest server with a clean build: the others' clean builds are
    // derived from it when they were not measured (`--clean-all` measures them).
    let base = counts
        .iter()
        .copied()
        .find(|&t| builds.iter().any(|b| b.kind == "clean" && b.tools == t));
    for &tools in &counts {
        let plural = if tools == 1 { "tool" } else { "tools" };
        if builds.iter().any(|b| b.kind == "clean" && b.tools == tools) {
            rows.push(Row {
                label: format!("clean release build, server of {tools} {plural}"),
                unit: "s",
                better: Better::Lower,
                samples: pick("clean", tools, |b| b.seconds),
                derived: false,
            });
        } else if let Some(base) = base {
            rows.push(Row {
                label: format!(
                    "clean release build, server of {tools} {plural} (derived: clean {base} + rebuild {tools} − rebuild {base})"
                ),
                unit: "s",
                better: Better::Lower,
                samples: peers
                    .iter()
                    .map(|peer| {
                        let value = match (
                            median("clean", base, peer),
                            median("edit", base, peer),
                            median("edit", tools, peer),
                        ) {
                            (Some(clean), Some(small), Some(large)) => {
                                Ok(vec![clean - small + large])
                            }
                            _ if !buildcost::PEERS.contains(&peer.as_str()) => Err("—".into()),
                            _ => Err("not measured".into()),
                        };
                        (peer.clone(), value)
                    })
                    .collect(),
                derived: true,
            });
        }
        rows.push(Row {
            label: format!("release rebuild after editing one tool body, {tools} {plural}"),
            unit: "s",
            better: Better::Lower,
            samples: pick("edit", tools, |b| b.seconds),
            derived: false,
        });
    }
    for &tools in &counts {
        let plural = if tools == 1 { "tool" } else { "tools" };
        rows.push(Row {
            label: format!("release binary, server of {tools} {plural}"),
            unit: "MiB",
            better: Better::Lower,
            samples: pick("", tools, |b| b.binary_bytes.map(|n| n as f64 / 1048576.0)),
            derived: false,
        });
    }
    rows
}

/// Renders the table (Markdown) and the footnotes.
pub(crate) fn render(rows: &[Row], peers: &[String]) -> String {
    let others: Vec<&String> = peers.iter().filter(|p| p.as_str() != "ours").collect();
    let has_ours = peers.iter().any(|p| p == "ours");
    let mut notes: Vec<String> = Vec::new();
    let mut out = String::new();
    let _ = write!(out, "| metric | unit |");
    for p in peers {
        let _ = write!(out, " {p} |");
    }
    if has_ours {
        for p in &others {
            let _ = write!(out, " ours ÷ {p} |");
        }
    }
    out.push('\n');
    let columns = 2 + peers.len() + if has_ours { others.len() } else { 0 };
    let _ = writeln!(out, "|{}", " --- |".repeat(columns));
    for row in rows {
        let arrow = match row.better {
            Better::Higher => "↑",
            Better::Lower => "↓",
        };
        let _ = write!(out, "| {} {arrow} | {} |", row.label, row.unit);
        let mut medians: BTreeMap<&str, f64> = BTreeMap::new();
        for p in peers {
            let cell = match row.samples.get(p) {
                Some(Ok(values)) => match stats(values) {
                    Some(s) => {
                        medians.insert(p, s.median);
                        if row.derived {
                            format!("≈{}", num(s.median))
                        } else if s.n > 1 && num(s.min) != num(s.max) {
                            format!("{} ({}–{})", num(s.median), num(s.min), num(s.max))
                        } else {
                            num(s.median)
                        }
                    }
                    None => "n/a".into(),
                },
                Some(Err(reason)) if reason == "—" => "—".into(),
                Some(Err(reason)) => {
                    let short = crate::load::preview(reason.as_bytes(), 300);
                    let index = match notes.iter().position(|n| n == &short) {
                        Some(i) => i + 1,
                        None => {
                            notes.push(short);
                            notes.len()
                        }
                    };
                    format!("n/a [{index}]")
                }
                None => "—".into(),
            };
            let _ = write!(out, " {cell} |");
        }
        if has_ours {
            for p in &others {
                let cell = match (medians.get("ours"), medians.get(p.as_str())) {
                    (Some(a), Some(b)) if *b != 0.0 => ratio(a / b),
                    _ => "—".into(),
                };
                let _ = write!(out, " {cell} |");
            }
        }
        out.push('\n');
    }
    if !notes.is_empty() {
        out.push('\n');
        for (i, note) in notes.iter().enumerate() {
            let _ = writeln!(out, "[{}] {}", i + 1, note.replace('\n', " "));
        }
    }
    out
}

fn failures(runs: &[Run]) -> String {
    let failed: Vec<&Run> = runs.iter().filter(|r| r.error.is_some()).collect();
    if failed.is_empty() {
        return String::new();
    }
    let mut out = format!("\n{} of {} runs failed:\n", failed.len(), runs.len());
    for r in failed {
        let _ = writeln!(
            out,
            "- round {} {} {}: {}",
            r.round,
            r.peer,
            r.workload,
            crate::load::preview(r.error.as_deref().unwrap_or("").as_bytes(), 300)
        );
    }
    out
}

fn load_line(loads: &[f64]) -> String {
    match stats(loads) {
        Some(s) => format!(
            "- 1-minute load average at the start of each run: median {:.1}, max {:.1} \
             (anything well above 1 means other work shared the CPUs)\n",
            s.median, s.max
        ),
        None => String::new(),
    }
}

fn header(
    dir: &Path,
    loads: &[f64],
    http: Option<&crate::httpreport::Section>,
    stdio: bool,
) -> String {
    let meta: Value = std::fs::read_to_string(dir.join("meta.json"))
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(Value::Null);
    let get = |k: &str| {
        meta.get(k)
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string()
    };
    let mut suites = String::new();
    if stdio {
        let _ = writeln!(
            suites,
            "- stdio: {rounds} rounds, peers interleaved; one fresh server process per run; \
             pipelined runs keep {in_flight} calls in flight",
            rounds = meta.get("rounds").and_then(Value::as_u64).unwrap_or(0),
            in_flight = meta.get("in_flight").and_then(Value::as_u64).unwrap_or(0),
        );
    }
    if let Some(http) = http {
        suites.push_str(&http.suite_line());
    }
    format!(
        "# mcp-runtime benchmark, {date} ({mode})\n\n\
         - commit: {commit}\n\
         - machine: {nproc} CPUs, {cpu}, {mem}, Linux {kernel}\n\
         - toolchain: {rustc}\n\
         - peers: {versions}\n\
         {suites}{load}\n\
         Cells: median (min–max) over the rounds. ↑ higher is better, ↓ lower is better. \
         \"ours ÷ X\" divides our median by X's: above 1 is better for ↑ rows, below 1 for ↓ rows.\n",
        date = get("date"),
        mode = get("mode"),
        commit = get("commit"),
        nproc = meta.get("nproc").and_then(Value::as_u64).unwrap_or(0),
        cpu = get("cpu"),
        mem = get("memory"),
        kernel = get("kernel"),
        rustc = get("rustc"),
        versions = get("versions"),
        load = load_line(loads),
    )
}

/// The whole report for a results directory: the stdio suite's table (if
/// it ran) and the Streamable HTTP suite's (if it ran).
pub fn report(dir: &Path) -> String {
    let runs = suite::load_runs(dir);
    let builds = buildcost::load(dir);
    let sizes: serde_json::Map<String, Value> = std::fs::read_to_string(dir.join("sizes.json"))
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default();
    let http = crate::httpreport::Section::load(dir);
    let task_loads = crate::tasksreport::loads(dir);
    let compile = crate::compilereport::Section::load(dir);
    let stdio = !runs.is_empty()
        || !builds.is_empty()
        || (http.is_none() && task_loads.is_empty() && compile.is_none());
    let mut loads: Vec<f64> = runs.iter().filter_map(|r| r.load1).collect();
    if let Some(http) = &http {
        loads.extend(http.loads());
    }
    loads.extend(task_loads);
    if let Some(compile) = &compile {
        loads.extend(compile.loads());
    }
    let compile_targets = compile.as_ref().map(|c| c.targets()).unwrap_or_default();
    let mut out = header(dir, &loads, http.as_ref(), stdio);
    if stdio {
        let mut peers = peer_order(&runs);
        for b in &builds {
            if !peers.contains(&b.peer) {
                peers.push(b.peer.clone());
            }
        }
        let mut rows = runtime_rows(&runs, &peers);
        rows.extend(size_rows(&sizes, &peers));
        rows.extend(build_rows(&builds, &peers));
        if http.is_some() {
            out.push_str("\n## stdio\n");
        }
        out.push('\n');
        out.push_str(&render(&rows, &peers));
        out.push_str(&targets(&rows, &runs, &compile_targets));
        out.push_str(&failures(&runs));
    }
    if let Some(http) = &http {
        out.push_str(&http.render());
    }
    out.push_str(&crate::modern::render_section(dir));
    out.push_str(&crate::forward::render_section(dir));
    out.push_str(&crate::tasksreport::render_section(dir));
    if let Some(compile) = &compile {
        out.push_str(&compile.render());
        if !stdio {
            out.push_str(&crate::compilereport::render_targets(&compile_targets));
        }
    }
    out
}

/// The median of `peer` in the row whose label starts with `label`.
pub(crate) fn median_of(rows: &[Row], label: &str, peer: &str) -> Option<f64> {
    let row = rows.iter().find(|r| r.label.starts_with(label))?;
    let samples = row.samples.get(peer)?.as_ref().ok()?;
    stats(samples).map(|s| s.median)
}

/// The targets of the benchmark issue, checked against this run's medians;
/// `extra`: other suites' rows (what, value, met), appended.
fn targets(rows: &[Row], runs: &[Run], extra: &[(String, String, bool)]) -> String {
    // (what, row label prefix, peer, at least / at most, bound)
    let ratio_targets: [(&str, &str, &str, Better, f64); 10] = [
        (
            "echo pipelined ≥ 1.2× flymcp",
            "echo (trivial tool): calls/s",
            "flymcp",
            Better::Higher,
            1.2,
        ),
        (
            "echo pipelined ≥ 8× rmcp",
            "echo (trivial tool): calls/s",
            "rmcp",
            Better::Higher,
            8.0,
        ),
        (
            "echo pipelined ≥ 0.6× floor",
            "echo (trivial tool): calls/s",
            "floor",
            Better::Higher,
            0.6,
        ),
        (
            "structured output pipelined ≥ 1.2× flymcp",
            "structured output: calls/s",
            "flymcp",
            Better::Higher,
            1.2,
        ),
        (
            "64 KiB in and out ≥ 1.5× rmcp",
            "64 KiB in, 64 KiB out: calls/s",
            "rmcp",
            Better::Higher,
            1.5,
        ),
        (
            "64 KiB in and out ≥ 1× flymcp",
            "64 KiB in, 64 KiB out: calls/s",
            "flymcp",
            Better::Higher,
            1.0,
        ),
        (
            "tools/list of 200 tools ≥ 1× flymcp",
            "tools/list, 200 tools: calls/s",
            "flymcp",
            Better::Higher,
            1.0,
        ),
        (
            "echo sequential p50 ≤ 1.5× floor",
            "echo (trivial tool): latency p50",
            "floor",
            Better::Lower,
            1.5,
        ),
        (
            "rebuild after editing one tool ≤ 1× rmcp",
            "release rebuild after editing one tool body, 1 tool",
            "rmcp",
            Better::Lower,
            1.0,
        ),
        (
            "release binary ≤ 1× rmcp",
            "release binary, benchmark server of 3 tools",
            "rmcp",
            Better::Lower,
            1.0,
        ),
    ];
    let mut out =
        String::from("\n## Targets\n\n| target | ours ÷ peer | met |\n| --- | --- | --- |\n");
    let mut checked = 0;
    for (what, label, peer, better, bound) in ratio_targets {
        let (Some(ours), Some(theirs)) =
            (median_of(rows, label, "ours"), median_of(rows, label, peer))
        else {
            continue;
        };
        if theirs == 0.0 {
            continue;
        }
        let ratio = ours / theirs;
        let met = match better {
            Better::Higher => ratio >= bound,
            Better::Lower => ratio <= bound,
        };
        checked += 1;
        let _ = writeln!(
            out,
            "| {what} | {ratio:.2}× | {} |",
            if met { "yes" } else { "**no**" }
        );
    }
    // Backpressure: the peak RSS of our server with 20,000 calls requested in flight.
    let in_flight = runs.first().map_or(0, |r| r.in_flight);
    if in_flight >= 20_000 {
        let peak = runs
            .iter()
            .filter(|r| r.peer == "ours")
            .filter_map(|r| r.peak_rss_kib)
            .max();
        if let Some(kib) = peak {
            let mib = kib as f64 / 1024.0;
            checked += 1;
            let _ = writeln!(
                out,
                "| peak RSS < 30 MB with {in_flight} calls in flight requested | {mib:.1} MiB (highest of all runs) | {} |",
                if mib * 1.048_576 < 30.0 {
                    "yes"
                } else {
                    "**no**"
                }
            );
        }
    }
    checked += extra.len();
    out.push_str(&crate::compilereport::target_lines(extra));
    if checked == 0 {
        return String::new();
    }
    out
}

/// Machine and version facts for the header.
pub fn write_meta(
    dir: &Path,
    bench_dir: &Path,
    commit: &str,
    date: &str,
    mode: &str,
    rounds: u32,
    in_flight: u64,
) -> std::io::Result<()> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown CPU".to_string(), |(_, v)| v.trim().to_string());
    let memory = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map_or("?".to_string(), |kib| {
            format!("{:.0} GiB", kib as f64 / 1048576.0)
        });
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .unwrap_or_default()
        .trim()
        .to_string();
    let rustc = std::process::Command::new("rustc")
        .arg("-V")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let lock = std::fs::read_to_string(bench_dir.join("Cargo.lock")).unwrap_or_default();
    let version_of = |name: &str| {
        let marker = format!("name = \"{name}\"\nversion = \"");
        lock.find(&marker).map(|i| {
            let rest = &lock[i + marker.len()..];
            rest[..rest.find('"').unwrap_or(0)].to_string()
        })
    };
    let versions = ["rmcp", "flymcprust", "tokio", "serde_json", "axum", "hyper"]
        .iter()
        .filter_map(|n| version_of(n).map(|v| format!("{n} {v}")))
        .collect::<Vec<_>>()
        .join(", ");
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    let meta = serde_json::json!({
        "date": date,
        "commit": commit,
        "mode": mode,
        "nproc": nproc,
        "cpu": cpu,
        "memory": memory,
        "kernel": kernel,
        "rustc": rustc,
        "versions": versions,
        "rounds": rounds,
        "in_flight": in_flight,
    });
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("meta.json"), serde_json::to_string_pretty(&meta)?)
}
