//! The compile suite's section of RESULTS.md: one column group per tool
//! count (ours, rmcp, ours ÷ rmcp), the code generated per tool, the
//! functions with the most copies per tool, and its targets.

use std::fmt::Write;
use std::path::Path;

use crate::compile::{self, Code, Measure};
use crate::report::{num, ratio, stats};

/// The timed rows: label, kind, profile.
const ROWS: [(&str, &str, &str); 9] = [
    ("cold check, fixture only", "cold", "check"),
    ("cold debug build, fixture only", "cold", "debug"),
    ("cold release build, fixture only", "cold", "release"),
    ("check after editing one tool", "edit", "check"),
    ("debug build after editing one tool", "edit", "debug"),
    ("release build after editing one tool", "edit", "release"),
    ("clean check, every dependency", "clean", "check"),
    ("clean debug build, every dependency", "clean", "debug"),
    ("clean release build, every dependency", "clean", "release"),
];

/// The loaded results of a compile run.
pub struct Section {
    measures: Vec<Measure>,
    code: Vec<Code>,
    counts: Vec<usize>,
}

impl Section {
    /// The compile suite's results in `dir`, if it ran there.
    pub fn load(dir: &Path) -> Option<Section> {
        let measures = compile::load(dir);
        if measures.is_empty() {
            return None;
        }
        let mut counts: Vec<usize> = measures.iter().map(|m| m.tools).collect();
        counts.sort_unstable();
        counts.dedup();
        Some(Section {
            measures,
            code: compile::load_code(dir),
            counts,
        })
    }

    /// The 1-minute load averages before each timed command.
    pub fn loads(&self) -> Vec<f64> {
        self.measures.iter().filter_map(|m| m.load_before).collect()
    }

    fn samples(&self, peer: &str, tools: usize, kind: &str, profile: &str) -> Vec<f64> {
        self.measures
            .iter()
            .filter(|m| {
                m.peer == peer && m.tools == tools && m.kind == kind && m.profile == profile
            })
            .filter_map(|m| m.seconds)
            .collect()
    }

    fn median(&self, peer: &str, tools: usize, kind: &str, profile: &str) -> Option<f64> {
        stats(&self.samples(peer, tools, kind, profile)).map(|s| s.median)
    }

    /// ours ÷ rmcp of the medians.
    fn ratio(&self, tools: usize, kind: &str, profile: &str) -> Option<f64> {
        let ours = self.median("ours", tools, kind, profile)?;
        let rmcp = self.median("rmcp", tools, kind, profile)?;
        (rmcp > 0.0).then(|| ours / rmcp)
    }

    fn code(&self, peer: &str, what: &str) -> Option<&Code> {
        self.code
            .iter()
            .rev()
            .find(|c| c.peer == peer && c.what == what)
    }

    /// The section: the table, growth with N, the per-tool functions.
    pub fn render(&self) -> String {
        let rounds = self.measures.iter().map(|m| m.round).max().unwrap_or(0);
        let mut out = String::from("\n## Compile: a crate of N tools, ours and rmcp\n\n");
        let _ = writeln!(
            out,
            "Each tool: an async fn of three documented parameters returning a struct of its own \
             (bench-codegen's `*_tools_structured`). Seconds, median (min–max) of {rounds} \
             round{s}, peers interleaved; × is ours ÷ rmcp (below 1: ours is faster). \
             \"fixture only\": after `cargo clean -p` of the fixture, its dependencies built; \
             \"after editing one tool\": one string in tool 0's body changed since that \
             profile's cold build.\n",
            s = if rounds == 1 { "" } else { "s" }
        );
        let _ = write!(out, "| ↓ |");
        for n in &self.counts {
            let _ = write!(out, " N={n} ours | N={n} rmcp | × |");
        }
        let _ = writeln!(out, "\n|{}", " --- |".repeat(1 + 3 * self.counts.len()));
        for (label, kind, profile) in ROWS {
            if !self
                .measures
                .iter()
                .any(|m| m.kind == kind && m.profile == profile)
            {
                continue;
            }
            let _ = write!(out, "| {label}, s |");
            for &n in &self.counts {
                for peer in ["ours", "rmcp"] {
                    let cell = self.cell(peer, n, kind, profile);
                    let _ = write!(out, " {cell} |");
                }
                let r = self.ratio(n, kind, profile).map_or("—".into(), ratio);
                let _ = write!(out, " {r} |");
            }
            out.push('\n');
        }
        self.render_sizes(&mut out);
        self.render_code_rows(&mut out);
        self.render_growth(&mut out);
        self.render_top(&mut out);
        if let Some(s) = stats(&self.loads()) {
            let _ = writeln!(
                out,
                "\n1-minute load average before each timed command: median {:.1}, max {:.1} \
                 (`compile.jsonl` has it before and after each; anything well above 1 means \
                 other work shared the CPUs, and moves these ratios by ±0.3).",
                s.median, s.max
            );
        }
        let failed: Vec<&Measure> = self.measures.iter().filter(|m| m.error.is_some()).collect();
        if !failed.is_empty() {
            let _ = writeln!(out, "\n{} timed commands failed:", failed.len());
            for m in failed {
                let _ = writeln!(
                    out,
                    "- round {} {} N={} {} {}: {}",
                    m.round,
                    m.peer,
                    m.tools,
                    m.kind,
                    m.profile,
                    crate::load::preview(m.error.as_deref().unwrap_or("").as_bytes(), 300)
                        .replace('\n', " ")
                );
            }
        }
        out
    }

    fn cell(&self, peer: &str, tools: usize, kind: &str, profile: &str) -> String {
        match stats(&self.samples(peer, tools, kind, profile)) {
            Some(s) if s.n > 1 && num(s.min) != num(s.max) => {
                format!("{} ({}–{})", num(s.median), num(s.min), num(s.max))
            }
            Some(s) => num(s.median),
            None => "—".into(),
        }
    }

    fn render_sizes(&self, out: &mut String) {
        let size = |peer: &str, n: usize| {
            self.measures
                .iter()
                .rev()
                .filter(|m| m.peer == peer && m.tools == n && m.kind != "clean")
                .find_map(|m| m.binary_bytes)
                .map(|b| b as f64 / 1048576.0)
        };
        if !self.measures.iter().any(|m| m.binary_bytes.is_some()) {
            return;
        }
        let _ = write!(out, "| release binary, MiB |");
        for &n in &self.counts {
            let (a, b) = (size("ours", n), size("rmcp", n));
            let cell = |v: Option<f64>| v.map_or("—".into(), num);
            let r = match (a, b) {
                (Some(a), Some(b)) if b > 0.0 => ratio(a / b),
                _ => "—".into(),
            };
            let _ = write!(out, " {} | {} | {r} |", cell(a), cell(b));
        }
        out.push('\n');
    }

    /// LLVM IR lines and copies of the whole crate (where measured) and
    /// per tool (in the column of the larger tool count).
    fn render_code_rows(&self, out: &mut String) {
        type Pick = fn(&Code, usize) -> Option<f64>;
        let rows: [(&str, &str, Pick); 5] = [
            ("LLVM IR lines, debug, whole crate", "llvm-lines", |c, n| {
                c.totals.get(&n).map(|t| t.0 as f64)
            }),
            ("monomorphized copies, whole crate", "llvm-lines", |c, n| {
                c.totals.get(&n).and_then(|t| t.1).map(|v| v as f64)
            }),
            ("LLVM IR lines / tool", "llvm-lines", |c, n| {
                (n == c.to).then_some(c.lines_per_tool).flatten()
            }),
            ("copies / tool", "llvm-lines", |c, n| {
                (n == c.to).then_some(c.copies_per_tool).flatten()
            }),
            ("expanded lines / tool", "expanded", |c, n| {
                (n == c.to).then_some(c.lines_per_tool).flatten()
            }),
        ];
        for (label, what, pick) in rows {
            let (Some(ours), Some(rmcp)) = (self.code("ours", what), self.code("rmcp", what))
            else {
                continue;
            };
            let label = if label.ends_with("/ tool") {
                format!(
                    "{label} ((N={} − N={}) ÷ {})",
                    ours.to,
                    ours.from,
                    ours.to - ours.from
                )
            } else {
                label.to_string()
            };
            let _ = write!(out, "| {label} |");
            for &n in &self.counts {
                let (a, b) = (pick(ours, n), pick(rmcp, n));
                let cell = |v: Option<f64>| match v {
                    Some(v) if v.abs() >= 100.0 => format!("{v:.0}"),
                    Some(v) => format!("{v:.1}"),
                    None => "—".into(),
                };
                let r = match (a, b) {
                    (Some(a), Some(b)) if b != 0.0 => ratio(a / b),
                    _ => "—".into(),
                };
                let _ = write!(out, " {} | {} | {r} |", cell(a), cell(b));
            }
            out.push('\n');
        }
        for c in self.code.iter().filter(|c| c.error.is_some()) {
            let _ = writeln!(
                out,
                "\n{} {}: {}",
                c.peer,
                c.what,
                crate::load::preview(c.error.as_deref().unwrap_or("").as_bytes(), 300)
                    .replace('\n', " ")
            );
        }
    }

    /// How the loop's figures grow from one tool count to the next.
    fn render_growth(&self, out: &mut String) {
        let big: Vec<usize> = self.counts.iter().copied().filter(|&n| n >= 100).collect();
        if big.len() < 2 {
            return;
        }
        let _ = writeln!(out, "\nGrowth with N (median ÷ median):\n");
        for pair in big.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            for (label, kind, profile) in ROWS.iter().filter(|r| r.1 == "edit") {
                let grow = |peer: &str| match (
                    self.median(peer, a, kind, profile),
                    self.median(peer, b, kind, profile),
                ) {
                    (Some(x), Some(y)) if x > 0.0 => format!("×{:.1}", y / x),
                    _ => "—".into(),
                };
                if self.samples("ours", b, kind, profile).is_empty() {
                    continue;
                }
                let _ = writeln!(
                    out,
                    "- {label}, N={a} → N={b} (×{:.0} tools): ours {}, rmcp {}; ours ÷ rmcp {} → {}",
                    b as f64 / a as f64,
                    grow("ours"),
                    grow("rmcp"),
                    self.ratio(a, kind, profile).map_or("—".into(), ratio),
                    self.ratio(b, kind, profile).map_or("—".into(), ratio),
                );
            }
        }
    }

    /// The functions with the most monomorphized copies per tool.
    fn render_top(&self, out: &mut String) {
        for peer in ["ours", "rmcp"] {
            let Some(code) = self.code(peer, "llvm-lines") else {
                continue;
            };
            if code.top.is_empty() {
                continue;
            }
            let _ = writeln!(
                out,
                "\n{peer}: the 10 functions with the most copies per tool (debug build, \
                 (N={} − N={}) ÷ {}):\n\n| copies / tool | LLVM lines / tool | function |\n| --- | --- | --- |",
                code.to,
                code.from,
                code.to - code.from
            );
            for (copies, lines, name) in code.top.iter().take(10) {
                let name = if name.chars().count() > 120 {
                    format!("{}…", name.chars().take(120).collect::<String>())
                } else {
                    name.clone()
                };
                let _ = writeln!(
                    out,
                    "| {copies:.1} | {lines:.0} | `{}` |",
                    name.replace('|', "\\|")
                );
            }
        }
    }

    /// Rows for the Targets table: what, ours ÷ rmcp, met.
    pub fn targets(&self) -> Vec<(String, String, bool)> {
        let mut rows = Vec::new();
        let n = 100;
        for (what, kind, profile) in [
            ("check after editing one tool", "edit", "check"),
            ("debug build after editing one tool", "edit", "debug"),
            ("cold check (fixture only)", "cold", "check"),
            ("cold debug build (fixture only)", "cold", "debug"),
            ("cold release build (fixture only)", "cold", "release"),
            ("clean check (every dependency)", "clean", "check"),
            ("clean debug build (every dependency)", "clean", "debug"),
            ("clean release build (every dependency)", "clean", "release"),
        ] {
            if let Some(r) = self.ratio(n, kind, profile) {
                rows.push((
                    format!("compile, {n} tools: {what} ≤ 1× rmcp"),
                    format!("{r:.2}×"),
                    r <= 1.0,
                ));
            }
        }
        for (what, kind, profile) in [
            ("check after editing one tool", "edit", "check"),
            ("debug build after editing one tool", "edit", "debug"),
        ] {
            if let (Some(r100), Some(r500)) = (
                self.ratio(100, kind, profile),
                self.ratio(500, kind, profile),
            ) {
                rows.push((
                    format!("compile, 500 tools: {what}, ours ÷ rmcp no worse than at 100"),
                    format!("{r500:.2}× (100 tools: {r100:.2}×)"),
                    r500 <= r100,
                ));
            }
        }
        rows
    }
}

/// The rows of the Targets table (what, value, met) as Markdown lines.
pub fn target_lines(rows: &[(String, String, bool)]) -> String {
    let mut out = String::new();
    for (what, value, met) in rows {
        let _ = writeln!(
            out,
            "| {what} | {value} | {} |",
            if *met { "yes" } else { "**no**" }
        );
    }
    out
}

/// The Targets table of the compile rows alone (a run of the compile suite
/// only).
pub fn render_targets(rows: &[(String, String, bool)]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    format!(
        "\n## Targets\n\n| target | ours ÷ peer | met |\n| --- | --- | --- |\n{}",
        target_lines(rows)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measure(peer: &str, tools: usize, kind: &str, profile: &str, seconds: f64) -> Measure {
        Measure {
            peer: peer.into(),
            tools,
            kind: kind.into(),
            profile: profile.into(),
            round: 1,
            seconds: Some(seconds),
            load_before: Some(1.0),
            load_after: Some(1.0),
            crates: 1,
            attempt: 1,
            binary_bytes: None,
            error: None,
        }
    }

    fn section() -> Section {
        let measures = vec![
            measure("ours", 100, "edit", "check", 1.5),
            measure("rmcp", 100, "edit", "check", 1.0),
            measure("ours", 100, "edit", "debug", 2.0),
            measure("rmcp", 100, "edit", "debug", 4.0),
            measure("ours", 500, "edit", "check", 6.0),
            measure("rmcp", 500, "edit", "check", 5.0),
            measure("ours", 500, "edit", "debug", 12.0),
            measure("rmcp", 500, "edit", "debug", 20.0),
        ];
        Section {
            measures,
            code: vec![Code {
                peer: "ours".into(),
                what: "llvm-lines".into(),
                from: 1,
                to: 100,
                lines_per_tool: Some(1777.0),
                copies_per_tool: Some(57.0),
                ..Code::default()
            }],
            counts: vec![100, 500],
        }
    }

    #[test]
    fn the_table_has_each_peers_median_and_the_ratio_per_tool_count() {
        let text = section().render();
        assert!(
            text.contains(
                "| check after editing one tool, s | 1.50 | 1.00 | 1.50× | 6.00 | 5.00 | 1.20× |"
            ),
            "{text}"
        );
        assert!(
            text.contains("| debug build after editing one tool, s | 2.00 | 4.00 | 0.50× | 12.0 | 20.0 | 0.60× |"),
            "{text}"
        );
        // Rows of commands not run are left out; per-tool rows need both peers.
        assert!(!text.contains("cold check"), "{text}");
        assert!(!text.contains("LLVM IR lines / tool"), "{text}");
        assert!(
            text.contains(
                "check after editing one tool, N=100 → N=500 (×5 tools): ours ×4.0, rmcp ×5.0"
            ),
            "{text}"
        );
    }

    #[test]
    fn targets_compare_with_rmcp_at_100_and_the_ratio_at_500() {
        let rows = section().targets();
        let find = |what: &str| rows.iter().find(|r| r.0.contains(what)).cloned();
        let check = find("100 tools: check after editing").expect("check row");
        assert_eq!((check.1.as_str(), check.2), ("1.50×", false));
        let debug = find("100 tools: debug build after editing").expect("debug row");
        assert_eq!((debug.1.as_str(), debug.2), ("0.50×", true));
        let check500 = find("500 tools: check after editing").expect("500 check row");
        assert_eq!(check500.1, "1.20× (100 tools: 1.50×)");
        assert!(check500.2);
        let debug500 = find("500 tools: debug build after editing").expect("500 debug row");
        assert!(!debug500.2, "0.60× is worse than 0.50×");
        assert!(find("cold").is_none(), "no cold figures were measured");
    }
}
