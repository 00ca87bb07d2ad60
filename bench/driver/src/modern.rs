//! The "2026-07-28 era" section of the report: each modern workload beside
//! its legacy twin, served by the same binary (and rmcp's beside ours),
//! and what `server/discover` and `tools/list` cost against what a client
//! saves by keeping their answers for their `ttlMs`.

use std::fmt::Write;
use std::path::Path;

use crate::httpreport;
use crate::httpsuite::{self, HttpPhase, HttpRun};
use crate::report::{num, stats};
use crate::suite::{self, Phase, Run};

/// Legacy workload, its modern twin.
const PAIRS: [(&str, &str); 3] = [
    ("echo", "echo-2026"),
    ("call200", "call200-2026"),
    ("list200", "list200-2026"),
];

/// The peers that serve both eras, in the report's order.
const PEERS: [&str; 4] = ["ours", "rmcp", "rmcp-pipes", "rmcp-nodelay"];

/// A metric of a phase: what, its unit, how to read it.
struct Metric<P> {
    what: &'static str,
    unit: &'static str,
    pick: fn(&P) -> Option<f64>,
}

fn stdio_metrics() -> [(Metric<Run>, &'static str); 4] {
    [
        (
            Metric {
                what: "calls/s, pipelined",
                unit: "",
                pick: |r| r.pipelined.as_ref().map(|p: &Phase| p.calls_per_s),
            },
            "↑",
        ),
        (
            Metric {
                what: "server CPU per call, pipelined",
                unit: " µs",
                pick: |r| r.pipelined.as_ref().map(|p| p.cpu_us_per_call),
            },
            "↓",
        ),
        (
            Metric {
                what: "latency p50, one at a time",
                unit: " µs",
                pick: |r| r.sequential.as_ref().and_then(|p| p.p50_us),
            },
            "↓",
        ),
        (
            Metric {
                what: "latency p99, one at a time",
                unit: " µs",
                pick: |r| r.sequential.as_ref().and_then(|p| p.p99_us),
            },
            "↓",
        ),
    ]
}

fn http_metrics() -> [(Metric<HttpPhase>, &'static str); 4] {
    [
        (
            Metric {
                what: "calls/s",
                unit: "",
                pick: |p| Some(p.calls_per_s),
            },
            "↑",
        ),
        (
            Metric {
                what: "server CPU per call",
                unit: " µs",
                pick: |p| Some(p.cpu_sched_us_per_call),
            },
            "↓",
        ),
        (
            Metric {
                what: "latency p50",
                unit: " µs",
                pick: |p| Some(p.p50_us),
            },
            "↓",
        ),
        (
            Metric {
                what: "latency p99",
                unit: " µs",
                pick: |p| Some(p.p99_us),
            },
            "↓",
        ),
    ]
}

fn median(values: &[f64]) -> Option<f64> {
    stats(values).map(|s| s.median)
}

/// `legacy → modern (ratio)`, or what is known of it.
/// The rest of a row: each peer's legacy → modern transition, then the
/// first peer's modern median divided by each other's.
fn cells(out: &mut String, medians: impl Iterator<Item = (Option<f64>, Option<f64>)>, unit: &str) {
    let mut moderns = Vec::new();
    for (legacy, modern) in medians {
        moderns.push(modern);
        let _ = write!(out, " {} |", transition(legacy, modern, unit));
    }
    for other in moderns.iter().skip(1) {
        let _ = write!(out, " {} |", ratio_cell(moderns[0], *other));
    }
    out.push('\n');
}

fn transition(legacy: Option<f64>, modern: Option<f64>, unit: &str) -> String {
    match (legacy, modern) {
        (Some(a), Some(b)) if a != 0.0 => {
            format!("{}{unit} → {}{unit} ({:.2}×)", num(a), num(b), b / a)
        }
        (None, Some(b)) => format!("— → {}{unit}", num(b)),
        (Some(a), None) => format!("{}{unit} → n/a", num(a)),
        _ => "—".into(),
    }
}

fn ratio_cell(ours: Option<f64>, theirs: Option<f64>) -> String {
    match (ours, theirs) {
        (Some(a), Some(b)) if b != 0.0 => format!("{:.2}×", a / b),
        _ => "—".into(),
    }
}

/// The median of `pick` over a peer's ok runs of a workload.
fn stdio_median(
    runs: &[Run],
    peer: &str,
    workload: &str,
    pick: fn(&Run) -> Option<f64>,
) -> Option<f64> {
    let values: Vec<f64> = runs
        .iter()
        .filter(|r| r.peer == peer && r.workload == workload && r.error.is_none())
        .filter_map(pick)
        .collect();
    median(&values)
}

fn http_median(
    runs: &[HttpRun],
    peer: &str,
    workload: &str,
    mode: &str,
    clients: usize,
    pick: fn(&HttpPhase) -> Option<f64>,
) -> Option<f64> {
    let values: Vec<f64> = runs
        .iter()
        .filter(|r| r.peer == peer && r.workload == workload && r.mode == mode)
        .filter(|r| r.error.is_none())
        .filter_map(|r| r.phases.iter().find(|p| p.clients == clients))
        .filter_map(pick)
        .collect();
    median(&values)
}

fn header(out: &mut String, peers: &[&str]) {
    let _ = write!(out, "| workload | metric |");
    for p in peers {
        let _ = write!(out, " {p}: legacy → 2026-07-28 |");
    }
    for p in peers.iter().skip(1) {
        let _ = write!(out, " 2026-07-28: ours ÷ {p} |");
    }
    out.push('\n');
    let _ = writeln!(out, "|{}", " --- |".repeat(2 + peers.len() * 2 - 1));
}

fn stdio_table(runs: &[Run]) -> String {
    let peers: Vec<&str> = PEERS
        .into_iter()
        .filter(|p| runs.iter().any(|r| r.peer == *p))
        .collect();
    let ran = |modern: &str| runs.iter().any(|r| r.workload == modern);
    if peers.first() != Some(&"ours") || !PAIRS.iter().any(|(_, modern)| ran(modern)) {
        return String::new();
    }
    let mut out = String::new();
    header(&mut out, &peers);
    for (legacy, modern) in PAIRS {
        if !ran(modern) {
            continue;
        }
        for (metric, arrow) in stdio_metrics() {
            let _ = write!(out, "| {modern} | {} {arrow} |", metric.what);
            let medians = peers.iter().map(|p| {
                let median = |workload| stdio_median(runs, p, workload, metric.pick);
                (median(legacy), median(modern))
            });
            cells(&mut out, medians, metric.unit);
        }
    }
    out
}

fn http_table(runs: &[HttpRun]) -> String {
    let peers: Vec<&str> = PEERS
        .into_iter()
        .filter(|p| {
            runs.iter()
                .any(|r| r.peer == *p && r.workload == "echo-2026")
        })
        .collect();
    if peers.first() != Some(&"ours") {
        return String::new();
    }
    let counts = httpreport::client_counts(runs);
    let mut out = String::new();
    header(&mut out, &peers);
    for mode in httpsuite::MODES {
        if !runs
            .iter()
            .any(|r| r.workload == "echo-2026" && r.mode == mode)
        {
            continue;
        }
        for &n in &counts {
            for (metric, arrow) in http_metrics() {
                let clients = if n == 1 { "client" } else { "clients" };
                let _ = write!(
                    out,
                    "| echo-2026, {mode} server, {n} {clients} | {} {arrow} |",
                    metric.what
                );
                let medians = peers.iter().map(|p| {
                    let median = |workload| http_median(runs, p, workload, mode, n, metric.pick);
                    (median("echo"), median("echo-2026"))
                });
                cells(&mut out, medians, metric.unit);
            }
        }
    }
    out
}

/// What a client of the 2026-07-28 era fetches besides its calls, and
/// what keeping the answers for their `ttlMs` saves.
const CALLS_PER_MINUTE: f64 = 60.0;

fn caching_table(runs: &[Run]) -> String {
    let peers: Vec<&str> = ["ours", "rmcp"]
        .into_iter()
        .filter(|p| {
            runs.iter()
                .any(|r| r.peer == *p && r.workload == "discover-2026")
        })
        .collect();
    if peers.is_empty() {
        return String::new();
    }
    let bytes = |r: &Run| r.response_bytes.map(|b| b as f64);
    let cpu_seq = |r: &Run| r.sequential.as_ref().map(|p| p.cpu_us_per_call);
    let cpu_pipe = |r: &Run| r.pipelined.as_ref().map(|p| p.cpu_us_per_call);
    let p50 = |r: &Run| r.sequential.as_ref().and_then(|p| p.p50_us);
    let ttl = |r: &Run| r.ttl_ms.map(|t| t as f64);
    let requests = [
        ("`tools/list`, legacy", "list200"),
        ("`tools/list`, 2026-07-28", "list200-2026"),
        ("`server/discover`, 2026-07-28", "discover-2026"),
        (
            "`tools/call tool_199`, 2026-07-28 (for scale)",
            "call200-2026",
        ),
    ];
    let mut out = String::from(
        "\nWhat the lists and `server/discover` cost (the 200-tool server, stdio; medians):\n\n\
         | request | peer | answer, bytes | ttlMs | server CPU per call, one at a time | server CPU per call, pipelined | latency p50 |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for (label, workload) in requests {
        for p in &peers {
            if !runs.iter().any(|r| r.peer == *p && r.workload == workload) {
                continue;
            }
            let get = |pick: fn(&Run) -> Option<f64>| stdio_median(runs, p, workload, pick);
            let cell = |v: Option<f64>, unit: &str| {
                v.map_or("n/a".into(), |v| format!("{}{unit}", num(v)))
            };
            let _ = writeln!(
                out,
                "| {label} | {p} | {} | {} | {} | {} | {} |",
                cell(get(bytes), ""),
                get(ttl).map_or("—".into(), |t| format!("{t:.0}")),
                cell(get(cpu_seq), " µs"),
                cell(get(cpu_pipe), " µs"),
                cell(get(p50), " µs"),
            );
        }
    }
    // The saving, for ours (the hints are ours' defaults).
    let p = peers[0];
    let item = |workload: &str| {
        let cpu = stdio_median(runs, p, workload, cpu_seq)?;
        let bytes = stdio_median(runs, p, workload, bytes)?;
        let ttl = stdio_median(runs, p, workload, ttl)?;
        Some((cpu, bytes, ttl))
    };
    let (Some(discover), Some(list)) = (item("discover-2026"), item("list200-2026")) else {
        return out;
    };
    let _ = write!(
        out,
        "\nWhat honouring `ttlMs` saves, per client, at {calls:.0} tool calls a minute. A stateless \
         client has no session to tell it when its copy of the server's description or tool list \
         went stale; without the hints, the careful one fetches both before each call. With them it \
         fetches each once per `ttlMs` ({p}: its defaults, read off the answers). CPU is the server CPU of {p} \
         per request one at a time, from the table above; bytes are the answers' sizes.\n\n\
         | request | ttlMs | fetched per minute: before each call → per ttlMs | requests avoided per minute | server CPU saved per minute | bytes saved per minute |\n\
         | --- | --- | --- | --- | --- | --- |\n",
        calls = CALLS_PER_MINUTE,
    );
    let mut totals = (0.0, 0.0, 0.0);
    for (label, (cpu, bytes, ttl)) in [
        ("`server/discover`", discover),
        ("`tools/list` (200 tools)", list),
    ] {
        let with_ttl = if ttl > 0.0 {
            60_000.0 / ttl
        } else {
            CALLS_PER_MINUTE
        };
        let per_call = CALLS_PER_MINUTE;
        let avoided = (per_call - with_ttl).max(0.0);
        totals.0 += avoided;
        totals.1 += avoided * cpu;
        totals.2 += avoided * bytes;
        let _ = writeln!(
            out,
            "| {label} | {ttl:.0} | {per_call:.0} → {with_ttl:.3} | {avoided:.1} | {:.2} ms | {:.0} KB |",
            avoided * cpu / 1e3,
            avoided * bytes / 1e3,
        );
    }
    let _ = writeln!(
        out,
        "| both | | | {:.1} | {:.2} ms | {:.0} KB |",
        totals.0,
        totals.1 / 1e3,
        totals.2 / 1e3
    );
    if let Some(call) = stdio_median(runs, p, "call200-2026", cpu_seq).filter(|c| *c > 0.0) {
        let _ = writeln!(
            out,
            "\nOne `tools/list` of 200 tools costs {p} as much server CPU as {:.0} calls of a tool \
             (`server/discover`: {:.1}); fetched before every call, the list would cost {:.0}× the \
             calls themselves. A client that kept its copies forever would save as much, but would \
             not learn of a change; the hints bound how stale its copy gets (5 minutes for the lists) \
             at 0.2 list requests a minute.",
            list.0 / call,
            discover.0 / call,
            (list.0 + discover.0) / call,
        );
    }
    out
}

/// The section, or nothing if no modern workload ran here.
pub fn render_section(dir: &Path) -> String {
    let runs = suite::load_runs(dir);
    let http = httpsuite::load_runs(dir);
    let mut body = String::new();
    let stdio = stdio_table(&runs);
    if !stdio.is_empty() {
        let _ = write!(
            body,
            "\nstdio: each cell is the legacy workload's median → its 2026-07-28 twin's (ratio), \
             the same binary; the last columns divide ours' 2026-07-28 median by the other peer's.\n\n{stdio}"
        );
    }
    let http_text = http_table(&http);
    if !http_text.is_empty() {
        let _ = write!(
            body,
            "\nStreamable HTTP: `echo` (initialize, then calls) → `echo-2026` (no initialize; every \
             POST with `_meta` and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers), \
             the same server process configuration; closed-loop clients on keep-alive connections; \
             CPU per call from schedstat.\n\n{http_text}"
        );
    }
    body.push_str(&caching_table(&runs));
    if body.is_empty() {
        return String::new();
    }
    format!(
        "\n## The 2026-07-28 era\n\n\
         A modern request has no `initialize` before it; its params carry `_meta` \
         `{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}`, \
         and its result must say `\"resultType\":\"complete\"` (checked on the first answer of every run). \
         For a ratio legacy → 2026-07-28, above 1 is better for ↑ rows, below 1 for ↓ rows.\n{body}"
    )
}
