//! The "Tasks" section of the report: the round trip create → result in
//! each era, one `tasks/get` poll, the memory kept for 10,000 finished
//! tasks, and a plain call on a server with a task tool beside one without.

use std::fmt::Write;
use std::path::Path;

use crate::report::{Better, num, ratio, stats};
use crate::tasks::{self, CHURN, KEPT_TASKS, TaskRun};

/// The peers that run tasks, in the table's order; ratios to rmcp.
const PEERS: [&str; 3] = ["ours", "ours-redis", "rmcp"];
const RATIOS: [(&str, &str); 2] = [("ours", "rmcp"), ("ours-redis", "rmcp")];
/// A difference this small counts as no difference, whatever the ranges
/// (a single round has no range).
const NOISE: f64 = 0.03;
/// [`KEPT_TASKS`] as the text writes it.
const KEPT: &str = "10,000";

/// How a figure is read off a run.
type Pick = fn(&TaskRun) -> Option<f64>;

struct Metric {
    label: String,
    unit: &'static str,
    better: Better,
    workload: &'static str,
    pick: Pick,
}

fn metric(
    label: &str,
    unit: &'static str,
    better: Better,
    workload: &'static str,
    pick: Pick,
) -> Metric {
    Metric {
        label: label.into(),
        unit,
        better,
        workload,
        pick,
    }
}

/// Each sample of `peer` for `metric`, or the first error of its runs
/// ("—" when it was not run).
fn samples(runs: &[TaskRun], metric: &Metric, peer: &str) -> Result<Vec<f64>, String> {
    let mine: Vec<&TaskRun> = runs
        .iter()
        .filter(|r| r.peer == peer && r.workload == metric.workload)
        .collect();
    let values: Vec<f64> = mine
        .iter()
        .filter(|r| r.error.is_none())
        .filter_map(|r| (metric.pick)(r))
        .collect();
    if values.is_empty() {
        Err(mine
            .iter()
            .find_map(|r| r.error.clone())
            .unwrap_or_else(|| "—".into()))
    } else {
        Ok(values)
    }
}

/// A Markdown table: each peer's median (min–max), then the ratios of
/// medians asked for.
fn table(
    runs: &[TaskRun],
    metrics: &[Metric],
    peers: &[&str],
    ratios: &[(&str, &str)],
    notes: &mut Vec<String>,
) -> String {
    let mut out = String::from("| metric | unit |");
    for p in peers {
        let _ = write!(out, " {p} |");
    }
    for (a, b) in ratios {
        let _ = write!(out, " {a} ÷ {b} |");
    }
    out.push('\n');
    let _ = writeln!(out, "|{}", " --- |".repeat(2 + peers.len() + ratios.len()));
    for m in metrics {
        let arrow = match m.better {
            Better::Higher => "↑",
            Better::Lower => "↓",
        };
        let _ = write!(out, "| {} {arrow} | {} |", m.label, m.unit);
        let mut medians = std::collections::BTreeMap::new();
        for p in peers {
            let cell = match samples(runs, m, p) {
                Ok(values) => {
                    let s = stats(&values).expect("not empty");
                    medians.insert(*p, s.median);
                    if s.n > 1 && num(s.min) != num(s.max) {
                        format!("{} ({}–{})", num(s.median), num(s.min), num(s.max))
                    } else {
                        num(s.median)
                    }
                }
                Err(reason) if reason == "—" => "—".into(),
                Err(reason) => {
                    let short = crate::load::preview(reason.as_bytes(), 300).replace('\n', " ");
                    let index = match notes.iter().position(|n| n == &short) {
                        Some(i) => i + 1,
                        None => {
                            notes.push(short);
                            notes.len()
                        }
                    };
                    format!("n/a [{index}]")
                }
            };
            let _ = write!(out, " {cell} |");
        }
        for (a, b) in ratios {
            let cell = match (medians.get(a), medians.get(b)) {
                (Some(x), Some(y)) if *y != 0.0 => ratio(x / y),
                _ => "—".into(),
            };
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    out
}

fn seq_p50(r: &TaskRun) -> Option<f64> {
    r.sequential.as_ref()?.p50_us
}
fn seq_p99(r: &TaskRun) -> Option<f64> {
    r.sequential.as_ref()?.p99_us
}
fn pipe_rate(r: &TaskRun) -> Option<f64> {
    Some(r.pipelined.as_ref()?.calls_per_s)
}
fn pipe_cpu(r: &TaskRun) -> Option<f64> {
    Some(r.pipelined.as_ref()?.cpu_us_per_call)
}
fn seq_cpu(r: &TaskRun) -> Option<f64> {
    Some(r.sequential.as_ref()?.cpu_us_per_call)
}

fn trip_metrics(workload: &'static str, era: &str, in_flight: u64) -> Vec<Metric> {
    let mut m = vec![
        metric(
            &format!("{era}: round trip p50, one at a time"),
            "µs",
            Better::Lower,
            workload,
            seq_p50,
        ),
        metric(
            &format!("{era}: round trip p99, one at a time"),
            "µs",
            Better::Lower,
            workload,
            seq_p99,
        ),
        metric(
            &format!("{era}: round trips/s, {in_flight} in flight"),
            "",
            Better::Higher,
            workload,
            pipe_rate,
        ),
        metric(
            &format!("{era}: server CPU per round trip, {in_flight} in flight"),
            "µs",
            Better::Lower,
            workload,
            pipe_cpu,
        ),
        metric(
            &format!("{era}: Redis's CPU per round trip, {in_flight} in flight"),
            "µs",
            Better::Lower,
            workload,
            |r| r.redis_cpu_us_pipelined,
        ),
    ];
    if workload == "trip-2026" {
        m.push(metric(
            &format!("{era}: tasks/get per round trip, one at a time"),
            "",
            Better::Lower,
            workload,
            |r| r.polls_sequential,
        ));
        m.push(metric(
            &format!("{era}: tasks/get per round trip, {in_flight} in flight"),
            "",
            Better::Lower,
            workload,
            |r| r.polls_pipelined,
        ));
    }
    m
}

fn call_metrics(workload: &'static str, what: &str, in_flight: u64) -> Vec<Metric> {
    vec![
        metric(
            &format!("{what}: answer size"),
            "bytes",
            Better::Lower,
            workload,
            |r| r.response_bytes.map(|b| b as f64),
        ),
        metric(
            &format!("{what}: calls/s, {in_flight} in flight"),
            "",
            Better::Higher,
            workload,
            pipe_rate,
        ),
        metric(
            &format!("{what}: server CPU per call, {in_flight} in flight"),
            "µs",
            Better::Lower,
            workload,
            pipe_cpu,
        ),
        metric(
            &format!("{what}: server CPU per call, one at a time"),
            "µs",
            Better::Lower,
            workload,
            seq_cpu,
        ),
        metric(
            &format!("{what}: latency p50, one at a time"),
            "µs",
            Better::Lower,
            workload,
            seq_p50,
        ),
        metric(
            &format!("{what}: latency p99, one at a time"),
            "µs",
            Better::Lower,
            workload,
            seq_p99,
        ),
    ]
}

fn mib(kib: Option<u64>) -> Option<f64> {
    kib.map(|k| k as f64 / 1024.0)
}

fn rss_metrics() -> Vec<Metric> {
    vec![
        metric(
            "RSS idle (after the first answer)",
            "MiB",
            Better::Lower,
            "rss",
            |r| mib(r.rss_idle_kib),
        ),
        metric(
            &format!("RSS after {KEPT} plain calls"),
            "MiB",
            Better::Lower,
            "rss",
            |r| mib(r.rss_plain_kib),
        ),
        metric(
            &format!("RSS with {KEPT} finished tasks kept"),
            "MiB",
            Better::Lower,
            "rss",
            |r| mib(r.rss_tasks_kib),
        ),
        metric(
            "server RSS added per finished task (vs. after the plain calls)",
            "bytes",
            Better::Lower,
            "rss",
            |r| {
                Some(
                    (r.rss_tasks_kib? as f64 - r.rss_plain_kib? as f64) * 1024.0
                        / KEPT_TASKS as f64,
                )
            },
        ),
        metric(
            "Redis's RSS added per finished task",
            "bytes",
            Better::Lower,
            "rss",
            |r| {
                Some(
                    (r.redis_rss_after_kib? as f64 - r.redis_rss_before_kib? as f64) * 1024.0
                        / KEPT_TASKS as f64,
                )
            },
        ),
    ]
}

/// VmRSS in MiB after `tasks` finished tasks, in a churn run.
fn churn(r: &TaskRun, tasks: u64) -> Option<f64> {
    let (_, kib) = r.rss_after_tasks.iter().find(|(n, _)| *n == tasks)?;
    mib(Some(*kib))
}

fn churn_metrics() -> Vec<Metric> {
    let row = |label: &str, pick: Pick| metric(label, "MiB", Better::Lower, "churn", pick);
    vec![
        row("RSS after 10,000 finished tasks", |r| churn(r, CHURN[0])),
        row("RSS after 50,000 finished tasks", |r| churn(r, CHURN[1])),
        row("RSS after 100,000 finished tasks", |r| churn(r, CHURN[2])),
    ]
}

/// Whether two peers' samples of `metric` overlap (min–max): within the
/// run's noise; `None` when either has a single sample.
fn overlap(runs: &[TaskRun], metric: &Metric, a: &str, b: &str) -> Option<bool> {
    let x = stats(&samples(runs, metric, a).ok()?)?;
    let y = stats(&samples(runs, metric, b).ok()?)?;
    (x.n > 1 && y.n > 1).then_some(x.min <= y.max && y.min <= x.max)
}

fn median(runs: &[TaskRun], metric: &Metric, peer: &str) -> Option<f64> {
    stats(&samples(runs, metric, peer).ok()?).map(|s| s.median)
}

/// The section, or nothing when the suite did not run.
pub fn render_section(dir: &Path) -> String {
    let runs = tasks::load_runs(dir);
    if runs.is_empty() {
        return String::new();
    }
    let in_flight = runs.first().map_or(0, |r| r.in_flight);
    let rounds = runs.iter().map(|r| r.round).max().unwrap_or(0);
    let mut notes = Vec::new();
    let mut out = format!(
        "\n## Tasks\n\n\
         {rounds} rounds, peers interleaved, one fresh server process per run (stdio). \
         `ours`: `ours-tasks`, tasks in memory (the default store); `ours-redis`: the same binary \
         with `--redis URL`, a `redis-server` of the run's own on a loopback port; `rmcp`: \
         `rmcp-tasks`, rmcp's in-memory `TaskManager`. The task tool yields once, then returns \
         its text: every call made as a task is one.\n"
    );
    // Only the parts whose workloads ran.
    let ran = |names: &[&str]| runs.iter().any(|r| names.contains(&r.workload.as_str()));
    if ran(&["trip-2025", "trip-2026"]) {
        out.push_str(
            "\n### Round trip: tools/call as a task → its result\n\n\
             2025-11-25: `tools/call` with `params.task`, then `tasks/result`. 2026-07-28: \
             `tools/call` declaring the extension, answered `resultType: \"task\"`, then \
             `tasks/get` at once and again until `completed` (result inlined). Latency is the \
             whole round trip.\n\n",
        );
        let mut metrics = trip_metrics("trip-2025", "2025-11-25", in_flight);
        metrics.extend(trip_metrics("trip-2026", "2026-07-28", in_flight));
        out.push_str(&table(&runs, &metrics, &PEERS, &RATIOS, &mut notes));
    }
    if ran(&["get-2025", "get-2026"]) {
        out.push_str("\n### One tasks/get on a finished task\n\n");
        let mut metrics = call_metrics("get-2025", "2025-11-25", in_flight);
        metrics.extend(call_metrics("get-2026", "2026-07-28", in_flight));
        out.push_str(&table(&runs, &metrics, &PEERS, &RATIOS, &mut notes));
    }
    // Beside a plain call on the same binary (ours-tasks, from the echo runs).
    let mut lines = String::new();
    for (get, echo, era) in [
        ("get-2025", "echo", "2025-11-25"),
        ("get-2026", "echo-2026", "2026-07-28"),
    ] {
        let g = median(&runs, &metric("", "", Better::Lower, get, pipe_cpu), "ours");
        let e = median(
            &runs,
            &metric("", "", Better::Lower, echo, pipe_cpu),
            "ours",
        );
        let gr = median(
            &runs,
            &metric("", "", Better::Higher, get, pipe_rate),
            "ours",
        );
        let er = median(
            &runs,
            &metric("", "", Better::Higher, echo, pipe_rate),
            "ours",
        );
        if let (Some(g), Some(e), Some(gr), Some(er)) = (g, e, gr, er) {
            let _ = writeln!(
                lines,
                "- {era}, ours (memory): a `tasks/get` costs the server {} µs against {} µs for a plain \
                 `tools/call echo` on the same binary ({}), {} against {} calls/s ({}).",
                num(g),
                num(e),
                ratio(g / e),
                num(gr),
                num(er),
                ratio(gr / er)
            );
        }
    }
    if !lines.is_empty() {
        out.push('\n');
        out.push_str(&lines);
    }

    if ran(&["rss"]) {
        let _ = write!(
            out,
            "\n### Memory: {KEPT} finished tasks kept\n\n\
         VmRSS of the server after its first answer (a plain call), after {KEPT} plain calls \
         (the same tool, from a client that takes no tasks), then with {KEPT} finished \
         tasks (2026-07-28, {in_flight} in flight; the first of them still answered at the end). \
         Per task: the difference over the plain calls, / {KEPT}.\n\n"
        );
        out.push_str(&table(&runs, &rss_metrics(), &PEERS, &RATIOS, &mut notes));
    }
    if ran(&["churn"]) {
        out.push_str(
            "\n### Memory past the 10,000 kept\n\n\
             Ours in memory (at most 10,000 kept, the ended ones evicted first): VmRSS after 10,000, 50,000 and 100,000 tasks made and read back \
             (2025-11-25, `tools/call` with `params.task` then `tasks/result`, \
             {in_flight} in flight):\n\n"
                .replace("{in_flight}", &in_flight.to_string())
                .as_str(),
        );
        out.push_str(&table(&runs, &churn_metrics(), &["ours"], &[], &mut notes));
    }

    if ran(&["echo", "echo-2026"]) {
        plain_section(&runs, in_flight, &mut out, &mut notes);
    }
    if !notes.is_empty() {
        out.push('\n');
        for (i, note) in notes.iter().enumerate() {
            let _ = writeln!(out, "[{}] {note}", i + 1);
        }
    }
    failures(&runs, &mut out);
    out
}

/// The plain call with and without a task tool in the binary, with a
/// verdict on each throughput and CPU row.
fn plain_section(runs: &[TaskRun], in_flight: u64, out: &mut String, notes: &mut Vec<String>) {
    let _ = write!(
        out,
        "\n### A plain call on a server with tasks enabled\n\n\
         `tools/call echo` (never a task) on `ours-notask` (the basic tools) and `ours-tasks` (the \
         same, plus the `task = \"optional\"` tool, which enables tasks; never used here), both \
         built from one package with the same features; 2025-11-25 session, and 2026-07-28 from a \
         client that declares the tasks extension.\n\n"
    );
    let mut metrics = call_metrics("echo", "echo, 2025-11-25", in_flight);
    metrics.extend(call_metrics("echo-2026", "echo, 2026-07-28", in_flight));
    out.push_str(&table(
        runs,
        &metrics,
        &["ours-notask", "ours"],
        &[("ours", "ours-notask")],
        notes,
    ));
    let mut verdicts = String::new();
    for m in metrics
        .iter()
        .filter(|m| m.label.contains("calls/s") || m.label.contains("CPU"))
    {
        let (Some(a), Some(b)) = (median(runs, m, "ours"), median(runs, m, "ours-notask")) else {
            continue;
        };
        // How much worse ours (with the task tool) is: > 0 is a cost.
        let worse = match m.better {
            Better::Higher => 1.0 - a / b,
            Better::Lower => a / b - 1.0,
        };
        let verdict = match overlap(runs, m, "ours", "ours-notask") {
            Some(true) => "within noise: the rounds' min–max ranges overlap",
            _ if worse <= 0.0 => "no added cost: ours-tasks measured no worse",
            _ if worse <= NOISE => "within 3%",
            Some(false) => "**an added cost**: worse by more than 3%, the ranges do not overlap",
            None => "worse by more than 3% in one round (no range to compare: run more rounds)",
        };
        let _ = writeln!(
            verdicts,
            "- {}: ours ÷ ours-notask {}, {verdict}",
            m.label,
            ratio(a / b)
        );
    }
    if !verdicts.is_empty() {
        out.push('\n');
        out.push_str(&verdicts);
    }
}

/// Failed runs, once per peer and workload (rmcp fails every
/// 2025-11-25 run the same way).
fn failures(runs: &[TaskRun], out: &mut String) {
    let failed: Vec<&TaskRun> = runs.iter().filter(|r| r.error.is_some()).collect();
    if !failed.is_empty() {
        let _ = writeln!(
            out,
            "\n{} of {} task runs failed:",
            failed.len(),
            runs.len()
        );
        let mut seen: Vec<(&str, &str)> = Vec::new();
        for r in &failed {
            if seen.contains(&(r.peer.as_str(), r.workload.as_str())) {
                continue;
            }
            seen.push((&r.peer, &r.workload));
            let rounds: Vec<String> = failed
                .iter()
                .filter(|f| f.peer == r.peer && f.workload == r.workload)
                .map(|f| f.round.to_string())
                .collect();
            let _ = writeln!(
                out,
                "- {} {} (round {}): {}",
                r.peer,
                r.workload,
                rounds.join(", "),
                crate::load::preview(r.error.as_deref().unwrap_or("").as_bytes(), 300)
            );
        }
    }
}

/// The 1-minute load averages seen at the start of the runs.
pub fn loads(dir: &Path) -> Vec<f64> {
    tasks::load_runs(dir)
        .iter()
        .filter_map(|r| r.load1)
        .collect()
}
