//! The compile suite: what a developer with N tools waits for. The same
//! crate of N structured tools (bench-codegen's `*_tools_structured`),
//! written with ours and with rmcp, is checked and built (debug and
//! release): cold (the fixture crate only, its dependencies built), and
//! after editing one tool's body (what an editor's `cargo check` on save
//! and the next `cargo build` cost). Plus the release binary's size, and
//! the code generated per tool: LLVM IR lines and monomorphized copies
//! from `cargo llvm-lines` (when given), expanded lines (opt-in).
//!
//! Fixtures live in `target/compile/{peer}-{n}/`; each peer has one target
//! directory, `target/compile-target/{peer}/`, shared by every N, its
//! dependencies built first (untimed). Every timed command must have
//! compiled the fixture only (cargo's `Compiling`/`Checking` lines), else
//! it is discarded and done again.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::fixture::{Build, Fixture, PEERS, Shape};

/// One timed cargo command (a line of `compile.jsonl`).
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Measure {
    pub peer: String,
    pub tools: usize,
    /// "cold" (the fixture only, after `cargo clean -p`), "edit" (after
    /// editing tool 0's body) or "clean" (an empty target directory: every
    /// dependency compiled too).
    pub kind: String,
    /// "check", "debug" or "release".
    pub profile: String,
    pub round: u32,
    pub seconds: Option<f64>,
    /// The 1-minute load average before and after the command.
    pub load_before: Option<f64>,
    pub load_after: Option<f64>,
    /// How many crates the timed command compiled (1: the fixture).
    pub crates: usize,
    /// Which attempt was kept (an attempt that compiled more than the
    /// fixture is discarded).
    pub attempt: u32,
    pub binary_bytes: Option<u64>,
    pub error: Option<String>,
}

/// The code generated per tool by one peer (a line of `compile-code.jsonl`):
/// the difference between its fixtures of `from` and `to` tools, divided
/// by `to − from`.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct Code {
    pub peer: String,
    /// "llvm-lines" (debug build) or "expanded" (`-Zunpretty=expanded`).
    pub what: String,
    pub from: usize,
    pub to: usize,
    /// Whole-crate totals, by tool count: lines, and copies for llvm-lines.
    pub totals: BTreeMap<usize, (u64, Option<u64>)>,
    pub lines_per_tool: Option<f64>,
    pub copies_per_tool: Option<f64>,
    /// llvm-lines: the functions with the most copies per tool (copies,
    /// lines per tool, name), most first.
    pub top: Vec<(f64, f64, String)>,
    pub error: Option<String>,
}

pub struct Options {
    pub bench_dir: PathBuf,
    pub out_dir: PathBuf,
    pub rounds: u32,
    pub tool_counts: Vec<usize>,
    /// Release builds too (cold and after an edit).
    pub release: bool,
    /// Also check and build from an empty target directory, every
    /// dependency compiled, at N=100 (or the largest N).
    pub clean_all: bool,
    /// The `cargo-llvm-lines` binary, when the per-tool LLVM figures are wanted.
    pub llvm_lines: Option<PathBuf>,
    /// Expanded lines per tool (`RUSTC_BOOTSTRAP=1 -Zunpretty=expanded`).
    pub expanded: bool,
}

/// How many functions of the per-tool llvm-lines diff are kept.
const TOP: usize = 20;

fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The two tool counts the per-tool figures are taken between: the
/// smallest, and 100 (or the largest) when there are two.
pub fn per_tool_counts(counts: &[usize]) -> Option<(usize, usize)> {
    let from = *counts.iter().min()?;
    let to = if counts.contains(&100) && from != 100 {
        100
    } else {
        *counts.iter().max()?
    };
    (to > from).then_some((from, to))
}

pub fn run(options: &Options) -> std::io::Result<()> {
    std::fs::create_dir_all(&options.out_dir)?;
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(options.out_dir.join("compile.jsonl"))?;
    let started = Instant::now();
    let elapsed = move || started.elapsed().as_secs_f64();
    let mut record = |m: Measure| -> std::io::Result<()> {
        eprintln!(
            "[{:>5.0}s] compile {:<4} {:>3} tools  {:<5} {:<7} {}",
            elapsed(),
            m.peer,
            m.tools,
            m.kind,
            m.profile,
            match (&m.seconds, &m.error) {
                (_, Some(e)) => format!("FAILED: {}", crate::load::preview(e.as_bytes(), 300)),
                (Some(s), None) => format!(
                    "{s:.2} s (load {:.1} → {:.1}){}",
                    m.load_before.unwrap_or(0.0),
                    m.load_after.unwrap_or(0.0),
                    m.binary_bytes
                        .map(|b| format!(", binary {:.2} MiB", b as f64 / 1048576.0))
                        .unwrap_or_default()
                ),
                _ => String::new(),
            }
        );
        serde_json::to_writer(&mut out, &m)?;
        out.write_all(b"\n")?;
        out.flush()
    };
    let mut builds = vec![Build::Check, Build::Debug];
    if options.release {
        builds.push(Build::Release);
    }
    let fixture = |peer: &str, tools: usize| {
        Fixture::new(
            &options.bench_dir,
            "target/compile",
            peer,
            tools,
            Shape::Structured,
        )
    };
    let target_of = |peer: &str| options.bench_dir.join("target/compile-target").join(peer);
    let smallest = options.tool_counts.iter().copied().min().unwrap_or(1);

    // The dependencies, once per peer and profile, untimed.
    for peer in PEERS {
        for &tools in &options.tool_counts {
            fixture(peer, tools)?.write(None)?;
        }
        let f = fixture(peer, smallest)?;
        for &build in &builds {
            let t = Instant::now();
            match f.cargo(build, &target_of(peer)) {
                Ok(built) => eprintln!(
                    "[{:>5.0}s] compile {peer:<4} dependencies, {}: {} crates compiled in {:.0} s (untimed)",
                    elapsed(),
                    build.name(),
                    built.compiled.len(),
                    t.elapsed().as_secs_f64()
                ),
                Err(e) => {
                    return Err(std::io::Error::other(format!(
                        "the {peer} fixture does not build: {e}"
                    )));
                }
            }
        }
    }

    for round in 1..=options.rounds {
        for &tools in &options.tool_counts {
            for peer in PEERS {
                let f = fixture(peer, tools)?;
                let target = target_of(peer);
                // Profile by profile: cleaning the fixture for debug's
                // cold build also removes check's output (both live in the
                // dev profile's directory), so each edit follows its own
                // profile's cold build.
                for &build in &builds {
                    record(timed(&f, &target, "cold", build, round, |f, target| {
                        cold(f, target, build)
                    }))?;
                    record(timed(&f, &target, "edit", build, round, |f, target| {
                        f.timed_edit(build, target, false)
                            .map(|t| (t.built, t.attempt))
                    }))?;
                }
            }
        }
        if options.clean_all {
            let tools = if options.tool_counts.contains(&100) {
                100
            } else {
                options.tool_counts.iter().copied().max().unwrap_or(1)
            };
            for peer in PEERS {
                let f = fixture(peer, tools)?;
                let target = options
                    .bench_dir
                    .join("target/compile-target")
                    .join(format!("{peer}-clean"));
                for &build in &builds {
                    let _ = std::fs::remove_dir_all(&target);
                    record(timed(&f, &target, "clean", build, round, |f, target| {
                        f.cargo(build, target).map(|b| (b, 1))
                    }))?;
                }
                let _ = std::fs::remove_dir_all(&target);
            }
        }
    }

    // The code per tool: deterministic, measured once, after the timings
    // (these builds change the fixtures' flags).
    let Some((from, to)) = per_tool_counts(&options.tool_counts) else {
        return Ok(());
    };
    let mut code_out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(options.out_dir.join("compile-code.jsonl"))?;
    let mut write_code = |code: Code| -> std::io::Result<()> {
        eprintln!(
            "[{:>5.0}s] compile {:<4} {} per tool: {}",
            elapsed(),
            code.peer,
            code.what,
            match (&code.error, code.lines_per_tool) {
                (Some(e), _) => format!("FAILED: {}", crate::load::preview(e.as_bytes(), 300)),
                (None, Some(lines)) => format!(
                    "{lines:.0} lines{}",
                    code.copies_per_tool
                        .map(|c| format!(", {c:.1} copies"))
                        .unwrap_or_default()
                ),
                _ => String::new(),
            }
        );
        serde_json::to_writer(&mut code_out, &code)?;
        code_out.write_all(b"\n")?;
        code_out.flush()
    };
    for peer in PEERS {
        if let Some(tool) = &options.llvm_lines {
            let mut texts = Vec::new();
            for tools in [from, to] {
                let f = fixture(peer, tools)?;
                let text = llvm_lines(tool, &f, &target_of(peer));
                if let Ok(text) = &text {
                    // Kept beside the fixture for a closer look (not in
                    // the results: a megabyte each).
                    std::fs::write(f.dir.join("llvm-lines.txt"), text)?;
                }
                texts.push(text);
            }
            write_code(llvm_code(peer, from, to, &texts[0], &texts[1]))?;
        }
        if options.expanded {
            // A target directory of its own: RUSTC_BOOTSTRAP may make
            // cargo rebuild the dependencies.
            let target = options
                .bench_dir
                .join("target/compile-target")
                .join(format!("{peer}-expanded"));
            let mut code = Code {
                peer: peer.into(),
                what: "expanded".into(),
                from,
                to,
                ..Code::default()
            };
            for tools in [from, to] {
                match expanded_lines(&fixture(peer, tools)?, &target) {
                    Ok(lines) => {
                        code.totals.insert(tools, (lines, None));
                    }
                    Err(e) => code.error = Some(e),
                }
            }
            if let (Some(a), Some(b)) = (code.totals.get(&from), code.totals.get(&to)) {
                code.lines_per_tool = Some((b.0 as f64 - a.0 as f64) / (to - from) as f64);
            }
            write_code(code)?;
        }
    }
    Ok(())
}

/// Runs `command` on the fixture with the load average around it.
fn timed(
    f: &Fixture,
    target: &Path,
    kind: &str,
    build: Build,
    round: u32,
    command: impl FnOnce(&Fixture, &Path) -> Result<(crate::fixture::Built, u32), String>,
) -> Measure {
    let load_before = load_average();
    let result = command(f, target);
    let load_after = load_average();
    let (seconds, crates, attempt, error) = match result {
        Ok((built, attempt)) => (Some(built.seconds), built.compiled.len(), attempt, None),
        Err(e) => (None, 0, 0, Some(e)),
    };
    Measure {
        peer: f.peer.clone(),
        tools: f.tools,
        kind: kind.into(),
        profile: build.name().into(),
        round,
        seconds,
        load_before,
        load_after,
        crates,
        attempt,
        binary_bytes: if build == Build::Release && error.is_none() {
            f.binary_size(target)
        } else {
            None
        },
        error,
    }
}

/// `cargo clean -p` the fixture, then `build`: the fixture crate from
/// cold, its dependencies built. Done again when it compiled more.
fn cold(f: &Fixture, target: &Path, build: Build) -> Result<(crate::fixture::Built, u32), String> {
    let mut last = Vec::new();
    for attempt in 1..=3 {
        f.clean(build, target)?;
        let built = f.cargo(build, target)?;
        if built.compiled == [f.package()] {
            return Ok((built, attempt));
        }
        last = built.compiled;
    }
    Err(format!(
        "every cold build compiled more than the fixture ({}); is someone editing its dependencies?",
        last.join(", ")
    ))
}

/// `cargo llvm-lines` of the fixture's debug build: its text.
fn llvm_lines(tool: &Path, f: &Fixture, target: &Path) -> Result<String, String> {
    let output = Command::new(tool)
        .args(["llvm-lines", "--color", "never"])
        .current_dir(&f.dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_INCREMENTAL")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", tool.display()))?;
    if !output.status.success() {
        return Err(format!(
            "cargo llvm-lines failed in {}: {}",
            f.dir.display(),
            crate::load::preview(&output.stderr, 1500)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// `cargo llvm-lines`' table: function name → (lines, copies), the total
/// under "(TOTAL)".
pub fn parse_llvm_lines(text: &str) -> BTreeMap<String, (u64, u64)> {
    let mut functions = BTreeMap::new();
    for line in text.lines() {
        // "  31512 (4.9%,  4.9%)    303 (1.4%,  1.4%)  name", or without
        // the percentages on the total's line.
        let mut rest = line.trim_start();
        let mut numbers = [0u64; 2];
        let mut ok = true;
        for n in &mut numbers {
            let end = rest.find(' ').unwrap_or(rest.len());
            match rest[..end].parse() {
                Ok(v) => *n = v,
                Err(_) => {
                    ok = false;
                    break;
                }
            }
            rest = rest[end..].trim_start();
            // A percentage "(4.9%,  4.9%)", not the name "(TOTAL)".
            if let Some(group) = rest.strip_prefix('(')
                && let Some(close) = group.find(')')
                && group[..close].contains('%')
            {
                rest = group[close + 1..].trim_start();
            }
        }
        if ok && !rest.is_empty() {
            functions.insert(rest.to_string(), (numbers[0], numbers[1]));
        }
    }
    functions
}

/// The per-tool figures from the llvm-lines of the `from`- and `to`-tool
/// fixtures.
fn llvm_code(
    peer: &str,
    from: usize,
    to: usize,
    a: &Result<String, String>,
    b: &Result<String, String>,
) -> Code {
    let mut code = Code {
        peer: peer.into(),
        what: "llvm-lines".into(),
        from,
        to,
        ..Code::default()
    };
    let (a, b) = match (a, b) {
        (Ok(a), Ok(b)) => (parse_llvm_lines(a), parse_llvm_lines(b)),
        (Err(e), _) | (_, Err(e)) => {
            code.error = Some(e.clone());
            return code;
        }
    };
    let span = (to - from) as f64;
    let (Some(ta), Some(tb)) = (a.get("(TOTAL)"), b.get("(TOTAL)")) else {
        code.error = Some("no (TOTAL) line in cargo llvm-lines' output".into());
        return code;
    };
    code.totals.insert(from, (ta.0, Some(ta.1)));
    code.totals.insert(to, (tb.0, Some(tb.1)));
    code.lines_per_tool = Some((tb.0 as f64 - ta.0 as f64) / span);
    code.copies_per_tool = Some((tb.1 as f64 - ta.1 as f64) / span);
    let names: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let mut diff: Vec<(f64, f64, String)> = names
        .into_iter()
        .filter(|name| name.as_str() != "(TOTAL)")
        .map(|name| {
            let (la, ca) = a.get(name).copied().unwrap_or_default();
            let (lb, cb) = b.get(name).copied().unwrap_or_default();
            (
                (cb as f64 - ca as f64) / span,
                (lb as f64 - la as f64) / span,
                name.clone(),
            )
        })
        .collect();
    diff.sort_by(|x, y| {
        y.0.total_cmp(&x.0)
            .then(y.1.total_cmp(&x.1))
            .then(x.2.cmp(&y.2))
    });
    diff.truncate(TOP);
    code.top = diff;
    code
}

/// Lines of the fixture's source after macro expansion (a nightly-only
/// rustc flag, allowed on stable by RUSTC_BOOTSTRAP=1).
fn expanded_lines(f: &Fixture, target: &Path) -> Result<u64, String> {
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["rustc", "--profile", "check", "--color", "never", "--"])
        .arg("-Zunpretty=expanded")
        .current_dir(&f.dir)
        .env("CARGO_TARGET_DIR", target)
        .env("RUSTC_BOOTSTRAP", "1")
        .env_remove("RUSTFLAGS")
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo rustc -Zunpretty=expanded failed in {}: {}",
            f.dir.display(),
            crate::load::preview(&output.stderr, 1500)
        ));
    }
    Ok(output.stdout.iter().filter(|&&b| b == b'\n').count() as u64)
}

pub fn load(dir: &Path) -> Vec<Measure> {
    read_lines(&dir.join("compile.jsonl"))
}

pub fn load_code(dir: &Path) -> Vec<Code> {
    read_lines(&dir.join("compile-code.jsonl"))
}

fn read_lines<T: serde::de::DeserializeOwned>(path: &Path) -> Vec<T> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llvm_lines_table_is_read_with_and_without_percentages() {
        let text = "  Lines                 Copies               Function name\n\
                    \x20 -----                 ------               -------------\n\
                    \x20 641902                22116                (TOTAL)\n\
                    \x20  31512 (4.9%,  4.9%)    303 (1.4%,  1.4%)  schemars::generate::SchemaGenerator::subschema_for\n\
                    \x20   9393 (1.5%, 43.5%)    101 (0.5%, 23.2%)  <a as b>::c::{{closure}}\n";
        let f = parse_llvm_lines(text);
        assert_eq!(f.len(), 3, "{f:?}");
        assert_eq!(f["(TOTAL)"], (641902, 22116));
        assert_eq!(
            f["schemars::generate::SchemaGenerator::subschema_for"],
            (31512, 303)
        );
        assert_eq!(f["<a as b>::c::{{closure}}"], (9393, 101));
    }

    #[test]
    fn per_tool_figures_are_the_difference_over_the_tool_counts() {
        let a = Ok("  100 10 (TOTAL)\n  40 4 f\n  10 1 g\n".to_string());
        let b = Ok("  1090 109 (TOTAL)\n  436 40 f\n  10 1 g\n  99 99 h\n".to_string());
        let code = llvm_code("ours", 1, 100, &a, &b);
        assert_eq!(code.lines_per_tool, Some(10.0));
        assert_eq!(code.copies_per_tool, Some(1.0));
        let names: Vec<&str> = code.top.iter().map(|t| t.2.as_str()).collect();
        assert_eq!(names, ["h", "f", "g"]);
        assert_eq!(code.top[0].0, 1.0);
        assert_eq!(code.top[1], (36.0 / 99.0, 4.0, "f".to_string()));
        assert_eq!(code.top[2].0, 0.0);
    }

    #[test]
    fn per_tool_counts_prefer_one_and_a_hundred() {
        assert_eq!(per_tool_counts(&[1, 100, 500]), Some((1, 100)));
        assert_eq!(per_tool_counts(&[1, 500]), Some((1, 500)));
        assert_eq!(per_tool_counts(&[100]), None);
        assert_eq!(per_tool_counts(&[100, 500]), Some((100, 500)));
    }
}
