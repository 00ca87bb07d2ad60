//! The "Forwarding" section of RESULTS.md: ours called directly against
//! ours called through a front that mounts it (the chain over stdio, the
//! gateway over Streamable HTTP), and our client beside rmcp's
//! (`client-bench`'s `clients.jsonl`).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use serde_json::Value;

use crate::httpreport;
use crate::httpsuite::{self, HttpPhase, HttpRun};
use crate::report::{Better, Row, num, render, stats};
use crate::suite::{self, Phase, Run};
use crate::workloads;

/// The median of `pick` over the runs that have it.
fn median<T>(runs: &[&T], pick: impl Fn(&T) -> Option<f64>) -> Option<f64> {
    let values: Vec<f64> = runs.iter().filter_map(|r| pick(r)).collect();
    stats(&values).map(|s| s.median)
}

/// A difference with its sign: `+3.2`, `−0.41`.
fn signed(v: f64) -> String {
    if v < 0.0 {
        format!("−{}", num(-v))
    } else {
        format!("+{}", num(v))
    }
}

/// `direct → front (+added)`, or n/a.
fn added(direct: Option<f64>, front: Option<f64>) -> String {
    match (direct, front) {
        (Some(d), Some(f)) => format!("{} → {} ({})", num(d), num(f), signed(f - d)),
        _ => "n/a".into(),
    }
}

/// `direct → front (ratio×)`, for throughput.
fn ratio(direct: Option<f64>, front: Option<f64>) -> String {
    match (direct, front) {
        (Some(d), Some(f)) if d > 0.0 => {
            format!("{} → {} ({:.2}×)", num(d), num(f), f / d)
        }
        _ => "n/a".into(),
    }
}

/// CPU per call: the direct server's, then the front's and its upstream's.
fn cpu(direct: Option<f64>, front: Option<f64>, upstream: Option<f64>) -> String {
    match (direct, front, upstream) {
        (Some(d), Some(f), Some(u)) => format!(
            "{} → {} + {} = {} ({})",
            num(d),
            num(f),
            num(u),
            num(f + u),
            signed(f + u - d)
        ),
        _ => "n/a".into(),
    }
}

fn stdio_table(runs: &[Run]) -> String {
    let ok = |peer: &str, workload: &str| -> Vec<&Run> {
        runs.iter()
            .filter(|r| r.peer == peer && r.workload == workload && r.error.is_none())
            .collect()
    };
    let in_flight = runs.first().map_or(0, |r| r.in_flight);
    let mut out = format!(
        "\n### stdio: direct → through the chain\n\n\
         | workload | latency p50, µs | latency p99, µs | CPU per call one at a time, µs: direct → front + upstream | calls/s, {in_flight} in flight | CPU per call pipelined, µs: direct → front + upstream |\n\
         | --- | --- | --- | --- | --- | --- |\n"
    );
    let mut any = false;
    for workload in workloads::all() {
        let (direct, chain) = (ok("ours", workload.name), ok("chain", workload.name));
        if direct.is_empty() && chain.is_empty() {
            continue;
        }
        any = true;
        let seq = |r: &Run| r.sequential.clone();
        let pipe = |r: &Run| r.pipelined.clone();
        let of = |runs: &[&Run], phase: fn(&Run) -> Option<Phase>, f: fn(&Phase) -> Option<f64>| {
            median(runs, |r| phase(r).as_ref().and_then(f))
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            workload.label,
            added(
                of(&direct, seq, |p| p.p50_us),
                of(&chain, seq, |p| p.p50_us)
            ),
            added(
                of(&direct, seq, |p| p.p99_us),
                of(&chain, seq, |p| p.p99_us)
            ),
            cpu(
                of(&direct, seq, |p| Some(p.cpu_us_per_call)),
                of(&chain, seq, |p| Some(p.cpu_us_per_call)),
                of(&chain, seq, |p| p.upstream_cpu_us_per_call),
            ),
            ratio(
                of(&direct, pipe, |p| Some(p.calls_per_s)),
                of(&chain, pipe, |p| Some(p.calls_per_s)),
            ),
            cpu(
                of(&direct, pipe, |p| Some(p.cpu_us_per_call)),
                of(&chain, pipe, |p| Some(p.cpu_us_per_call)),
                of(&chain, pipe, |p| p.upstream_cpu_us_per_call),
            ),
        );
    }
    if any { out } else { String::new() }
}

fn http_table(runs: &[HttpRun]) -> String {
    let mut out = String::from(
        "\n### Streamable HTTP: direct → through the gateway\n\n\
         | workload, mode, clients | latency p50, µs | latency p99, µs | calls/s | server CPU per call, µs: direct → front + upstream |\n\
         | --- | --- | --- | --- | --- |\n",
    );
    let counts = httpreport::client_counts(runs);
    let mut any = false;
    for workload in workloads::all() {
        for mode in httpsuite::MODES {
            for &clients in &counts {
                let phases = |peer: &str| -> Vec<&HttpPhase> {
                    runs.iter()
                        .filter(|r| {
                            r.peer == peer
                                && r.mode == mode
                                && r.workload == workload.name
                                && r.error.is_none()
                        })
                        .flat_map(|r| r.phases.iter().filter(|p| p.clients == clients))
                        .collect()
                };
                let (direct, gateway) = (phases("ours"), phases("gateway"));
                if direct.is_empty() && gateway.is_empty() {
                    continue;
                }
                any = true;
                let _ = writeln!(
                    out,
                    "| {}, {mode}, {clients} | {} | {} | {} | {} |",
                    workload.name,
                    added(
                        median(&direct, |p| Some(p.p50_us)),
                        median(&gateway, |p| Some(p.p50_us))
                    ),
                    added(
                        median(&direct, |p| Some(p.p99_us)),
                        median(&gateway, |p| Some(p.p99_us))
                    ),
                    ratio(
                        median(&direct, |p| Some(p.calls_per_s)),
                        median(&gateway, |p| Some(p.calls_per_s))
                    ),
                    cpu(
                        median(&direct, |p| Some(p.cpu_us_per_call)),
                        median(&gateway, |p| Some(p.cpu_us_per_call)),
                        median(&gateway, |p| p.upstream_cpu_us_per_call),
                    ),
                );
            }
        }
    }
    if any { out } else { String::new() }
}

/// Our client beside rmcp's: the generic table, clients as peers.
fn clients_table(dir: &Path) -> String {
    let runs: Vec<Value> = std::fs::read_to_string(dir.join("clients.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    if runs.is_empty() {
        return String::new();
    }
    let in_flight = runs
        .first()
        .and_then(|r| r.get("in_flight"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let clients: Vec<String> = ["ours", "rmcp"]
        .into_iter()
        .filter(|c| {
            runs.iter()
                .any(|r| r.get("client").and_then(Value::as_str) == Some(c))
        })
        .map(String::from)
        .collect();
    let metrics: [(String, &str, Better, &str); 8] = [
        (
            "spawn → connected (handshake done)".into(),
            "ms",
            Better::Lower,
            "/connect_ms",
        ),
        (
            "latency p50, one at a time".into(),
            "µs",
            Better::Lower,
            "/sequential/p50_us",
        ),
        (
            "latency p99, one at a time".into(),
            "µs",
            Better::Lower,
            "/sequential/p99_us",
        ),
        (
            format!("calls/s, {in_flight} in flight"),
            "calls/s",
            Better::Higher,
            "/pipelined/calls_per_s",
        ),
        (
            "client CPU per call, one at a time".into(),
            "µs",
            Better::Lower,
            "/sequential/client_cpu_us_per_call",
        ),
        (
            "client CPU per call, pipelined".into(),
            "µs",
            Better::Lower,
            "/pipelined/client_cpu_us_per_call",
        ),
        (
            "server CPU per call, one at a time".into(),
            "µs",
            Better::Lower,
            "/sequential/server_cpu_us_per_call",
        ),
        (
            "server CPU per call, pipelined".into(),
            "µs",
            Better::Lower,
            "/pipelined/server_cpu_us_per_call",
        ),
    ];
    let mut rows = Vec::new();
    let mut failures = String::new();
    for workload in ["echo", "order", "payload"] {
        let of: Vec<&Value> = runs
            .iter()
            .filter(|r| r.get("workload").and_then(Value::as_str) == Some(workload))
            .collect();
        if of.is_empty() {
            continue;
        }
        for r in &of {
            if let Some(e) = r.get("error").and_then(Value::as_str) {
                let _ = writeln!(
                    failures,
                    "- round {} {} {workload}: {}",
                    r.get("round").and_then(Value::as_u64).unwrap_or(0),
                    r.get("client").and_then(Value::as_str).unwrap_or("?"),
                    crate::load::preview(e.as_bytes(), 300)
                );
            }
        }
        for (label, unit, better, pointer) in &metrics {
            let samples = clients
                .iter()
                .map(|c| {
                    let mine = of
                        .iter()
                        .filter(|r| r.get("client").and_then(Value::as_str) == Some(c));
                    let values: Vec<f64> = mine
                        .clone()
                        .filter(|r| r.get("error").is_none_or(Value::is_null))
                        .filter_map(|r| r.pointer(pointer).and_then(Value::as_f64))
                        .collect();
                    let entry = if values.is_empty() {
                        Err(mine
                            .filter_map(|r| {
                                r.get("error").and_then(Value::as_str).map(String::from)
                            })
                            .next()
                            .unwrap_or_else(|| "not run".into()))
                    } else {
                        Ok(values)
                    };
                    (c.clone(), entry)
                })
                .collect::<BTreeMap<_, _>>();
            rows.push(Row {
                label: format!("{workload}: {label}"),
                unit,
                better: *better,
                samples,
                derived: false,
            });
        }
    }
    let mut out = String::from(
        "\n### Client: mcp-runtime's `Client` beside rmcp's, calling `ours-basic` over stdio\n\n",
    );
    out.push_str(&render(&rows, &clients));
    if !failures.is_empty() {
        out.push_str("\nFailed client runs:\n");
        out.push_str(&failures);
    }
    out
}

/// The section, or nothing if neither front nor client-bench ran here.
pub fn render_section(dir: &Path) -> String {
    let runs = suite::load_runs(dir);
    let http = httpsuite::load_runs(dir);
    let mut body = String::new();
    if runs.iter().any(|r| r.peer == "chain") {
        body.push_str(&stdio_table(&runs));
    }
    if http.iter().any(|r| r.peer == "gateway") {
        body.push_str(&http_table(&http));
    }
    body.push_str(&clients_table(dir));
    if body.is_empty() {
        return String::new();
    }
    format!(
        "\n## Forwarding\n\n\
         Ours direct (`ours`) against ours through a front that mounts it (prefix `\"\"`): the chain \
         (`ours-chain`, stdio) and the gateway (`ours-gateway`, Streamable HTTP), one upstream process \
         each. Medians over the rounds; \"+\" is the median through the front minus the median direct. \
         CPU per call: the front's threads plus its upstream's (the process it spawned), against the \
         direct server's. Lists (`tools/list`) are answered by the front from what it mounted, \
         without the upstream.\n{body}"
    )
}
