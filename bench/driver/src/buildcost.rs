//! Build cost: the same server of 1 and of 100 tools, written with ours and
//! with rmcp, built in release: from clean (every dependency compiled), and
//! again after editing the body of one tool; plus the binary's size.
//!
//! The fixtures are generated under `target/buildcost/` (bench's target
//! directory) from bench-codegen (see crate::fixture).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::fixture::{self, Fixture, Shape};

use serde::{Deserialize, Serialize};

/// One measurement.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Build {
    pub peer: String,
    pub tools: usize,
    /// "clean" or "edit".
    pub kind: String,
    pub round: u32,
    pub seconds: Option<f64>,
    pub binary_bytes: Option<u64>,
    pub error: Option<String>,
}

pub struct Options {
    pub bench_dir: PathBuf,
    pub out_dir: PathBuf,
    pub rounds: u32,
    /// Which tool counts get a clean build (the others get a figure
    /// derived in the report).
    pub clean_for: Vec<usize>,
    pub tool_counts: Vec<usize>,
}

pub use crate::fixture::PEERS;

fn fixture_of(options: &Options, peer: &str, tools: usize) -> std::io::Result<Fixture> {
    Fixture::new(
        &options.bench_dir,
        "target/buildcost",
        peer,
        tools,
        Shape::Plain,
    )
}

/// Edits tool 0 and times the release rebuild, the target brought up to
/// date first (untimed).
fn timed_rebuild(
    options: &Options,
    peer: &str,
    tools: usize,
    target: &Path,
) -> Result<f64, String> {
    let fixture = fixture_of(options, peer, tools).map_err(|e| e.to_string())?;
    fixture
        .timed_edit(fixture::Build::Release, target, true)
        .map(|t| t.built.seconds)
}

pub fn run(options: &Options) -> std::io::Result<()> {
    std::fs::create_dir_all(&options.out_dir)?;
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(options.out_dir.join("builds.jsonl"))?;
    let started = Instant::now();
    let mut record = |build: Build| -> std::io::Result<()> {
        eprintln!(
            "[{:>4.0}s] build {:<5} {:>3} tools  {:<5} {}",
            started.elapsed().as_secs_f64(),
            build.peer,
            build.tools,
            build.kind,
            match (&build.seconds, &build.error) {
                (_, Some(e)) => format!("FAILED: {}", crate::load::preview(e.as_bytes(), 300)),
                (Some(s), None) => format!(
                    "{s:.1} s, binary {:.2} MiB",
                    build.binary_bytes.unwrap_or(0) as f64 / 1048576.0
                ),
                _ => String::new(),
            }
        );
        serde_json::to_writer(&mut out, &build)?;
        out.write_all(b"\n")?;
        out.flush()
    };
    let root = options.bench_dir.join("target/buildcost");
    for &tools in &options.tool_counts {
        for peer in PEERS {
            let fixture = fixture_of(options, peer, tools)?;
            fixture.write(None)?;
            if options.clean_for.contains(&tools) {
                // A fresh target directory: every dependency is compiled.
                let target = root.join("clean-target");
                let _ = std::fs::remove_dir_all(&target);
                let result = fixture.cargo(fixture::Build::Release, &target);
                record(Build {
                    peer: peer.into(),
                    tools,
                    kind: "clean".into(),
                    round: 1,
                    binary_bytes: fixture.binary_size(&target),
                    seconds: result.as_ref().ok().map(|b| b.seconds),
                    error: result.err(),
                })?;
                let _ = std::fs::remove_dir_all(&target);
            }
            // A target directory kept between runs.
            let target = root.join(format!("target-{peer}"));
            for round in 1..=options.rounds {
                let result = timed_rebuild(options, peer, tools, &target);
                record(Build {
                    peer: peer.into(),
                    tools,
                    kind: "edit".into(),
                    round,
                    binary_bytes: fixture.binary_size(&target),
                    seconds: result.as_ref().ok().copied(),
                    error: result.err(),
                })?;
            }
        }
    }
    Ok(())
}

pub fn load(dir: &Path) -> Vec<Build> {
    std::fs::read_to_string(dir.join("builds.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}
