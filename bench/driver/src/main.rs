//! The benchmark driver. `bench/run` calls it; see bench/README.md.
//!
//! ```text
//! driver meta      --out DIR --bench-dir D --commit C --date D --mode M --rounds N [--in-flight K]
//! driver suite     --out DIR --bin-dir D [--peers a,b] [--workloads a,b] [--rounds N] [--quick] [--in-flight K]
//! driver buildcost --out DIR --bench-dir D [--rounds N] [--tools 1,100] [--no-clean | --clean-all]
//! driver compile   --out DIR --bench-dir D [--rounds N] [--tools 1,100,500] [--quick] [--no-release]
//!                  [--clean-all] [--llvm-lines PATH] [--expanded]
//! driver http      --out DIR --bin-dir D [--peers ours,rmcp,floor] [--modes stateful,stateless]
//!                  [--workloads echo] [--clients 1,64] [--sessions N] [--rounds N] [--quick] [--weather PATH]
//!                  [--redis-server PATH]  (for the peer ours-redis: sessions in Redis)
//! driver tasks     --out DIR --bin-dir D --redis-server PATH [--peers a,b] [--workloads a,b]
//!                  [--rounds N] [--quick] [--in-flight K]
//! driver report    DIR
//! ```

mod buildcost;
mod compile;
mod compilereport;
mod fixture;
mod forward;
mod httpclient;
mod httpredis;
mod httpredisreport;
mod httpreport;
mod httpsuite;
mod load;
mod modern;
mod process;
mod redis;
mod report;
mod suite;
mod tasks;
mod tasksreport;
mod tasktrips;
mod workloads;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

struct Args {
    flags: HashMap<String, String>,
    positional: Vec<String>,
}

impl Args {
    fn parse(raw: impl Iterator<Item = String>) -> Args {
        let mut flags = HashMap::new();
        let mut positional = Vec::new();
        let mut raw = raw.peekable();
        while let Some(arg) = raw.next() {
            if let Some(name) = arg.strip_prefix("--") {
                let takes_value = !matches!(
                    name,
                    "quick" | "no-clean" | "clean-all" | "no-release" | "expanded"
                );
                let value = if takes_value {
                    raw.next().unwrap_or_default()
                } else {
                    String::new()
                };
                flags.insert(name.to_string(), value);
            } else {
                positional.push(arg);
            }
        }
        Args { flags, positional }
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.flags.get(name).map(String::as_str)
    }

    fn path(&self, name: &str) -> Result<PathBuf, String> {
        self.get(name)
            .map(PathBuf::from)
            .ok_or_else(|| format!("--{name} is required"))
    }

    fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("--{name}: not a number: {v}")),
        }
    }

    fn list(&self, name: &str) -> Vec<String> {
        self.get(name)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn main() -> ExitCode {
    let mut raw = std::env::args().skip(1);
    let command = raw.next().unwrap_or_default();
    let args = Args::parse(raw);
    match run(&command, &args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("driver {command}: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: &str, args: &Args) -> Result<(), String> {
    let quick = args.get("quick").is_some();
    let in_flight = args.number("in-flight", 64u64)?;
    match command {
        "meta" => report::write_meta(
            &args.path("out")?,
            &args.path("bench-dir")?,
            args.get("commit").unwrap_or("?"),
            args.get("date").unwrap_or("?"),
            args.get("mode").unwrap_or("?"),
            args.number("rounds", 0)?,
            in_flight,
        )
        .map_err(|e| e.to_string()),
        "suite" => {
            // A forwarding front's upstream outlives the front by a moment:
            // it is reaped here, with its rusage.
            process::become_subreaper();
            let wanted = args.list("peers");
            let wanted = if wanted.is_empty() {
                suite::default_peers().into_iter().map(|p| p.name).collect()
            } else {
                wanted
            };
            let known = suite::known_peers();
            let peers = wanted
                .iter()
                .map(|name| {
                    known
                        .iter()
                        .find(|p| &p.name == name)
                        .cloned()
                        .ok_or_else(|| {
                            let names: Vec<_> = known.iter().map(|p| p.name.as_str()).collect();
                            format!("unknown peer {name}; known: {}", names.join(", "))
                        })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let options = suite::Options {
                bin_dir: args.path("bin-dir")?,
                out_dir: args.path("out")?,
                peers,
                workloads: args.list("workloads"),
                rounds: args.number("rounds", if quick { 2 } else { 5 })?,
                quick,
                in_flight,
            };
            suite::run(&options).map_err(|e| e.to_string())
        }
        "http" => {
            process::become_subreaper();
            let known = httpsuite::known_peers();
            let wanted = args.list("peers");
            let peers = if wanted.is_empty() {
                httpsuite::default_peers()
            } else {
                wanted
                    .iter()
                    .map(|name| {
                        known
                            .iter()
                            .find(|p| &p.name == name)
                            .cloned()
                            .ok_or_else(|| {
                                let names: Vec<_> = known.iter().map(|p| p.name.as_str()).collect();
                                format!("unknown HTTP peer {name}; known: {}", names.join(", "))
                            })
                    })
                    .collect::<Result<Vec<_>, _>>()?
            };
            let mut modes = args.list("modes");
            if modes.is_empty() {
                modes = httpsuite::MODES.iter().map(|m| m.to_string()).collect();
            }
            if let Some(m) = modes
                .iter()
                .find(|m| !httpsuite::MODES.contains(&m.as_str()))
            {
                return Err(format!("unknown mode {m}; known: stateful, stateless"));
            }
            let mut workloads = args.list("workloads");
            if workloads.is_empty() {
                workloads = vec!["echo".into()];
            }
            let basic: Vec<&str> = workloads::all()
                .into_iter()
                .filter(|w| w.server == workloads::Server::Basic)
                .map(|w| w.name)
                .collect();
            if let Some(w) = workloads.iter().find(|w| !basic.contains(&w.as_str())) {
                return Err(format!(
                    "unknown HTTP workload {w}; known: {}",
                    basic.join(", ")
                ));
            }
            let clients = match args.get("clients") {
                None => vec![1, 64],
                Some(_) => args
                    .list("clients")
                    .iter()
                    .map(|c| match c.parse::<usize>() {
                        Ok(n) if n > 0 => Ok(n),
                        _ => Err(format!("--clients: not a positive number: {c}")),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            };
            let options = httpsuite::Options {
                bin_dir: args.path("bin-dir")?,
                out_dir: args.path("out")?,
                peers,
                modes,
                workloads,
                clients,
                sessions: args.number("sessions", 10_000u64)?,
                rounds: args.number("rounds", if quick { 2 } else { 5 })?,
                quick,
                weather: args.get("weather").map(PathBuf::from),
                redis_server: args
                    .get("redis-server")
                    .map_or_else(|| PathBuf::from("redis-server"), PathBuf::from),
            };
            httpsuite::run(&options).map_err(|e| e.to_string())
        }
        "tasks" => {
            let known: Vec<&str> = tasks::known_peers().iter().map(|p| p.name).collect();
            let peers = args.list("peers");
            if let Some(p) = peers.iter().find(|p| !known.contains(&p.as_str())) {
                return Err(format!(
                    "unknown tasks peer {p}; known: {}",
                    known.join(", ")
                ));
            }
            let names: Vec<&str> = tasks::workloads().iter().map(|w| w.name).collect();
            let workloads = args.list("workloads");
            if let Some(w) = workloads.iter().find(|w| !names.contains(&w.as_str())) {
                return Err(format!(
                    "unknown tasks workload {w}; known: {}",
                    names.join(", ")
                ));
            }
            let options = tasks::Options {
                bin_dir: args.path("bin-dir")?,
                out_dir: args.path("out")?,
                redis_server: args
                    .get("redis-server")
                    .map_or_else(|| PathBuf::from("redis-server"), PathBuf::from),
                peers,
                workloads,
                rounds: args.number("rounds", if quick { 2 } else { 5 })?,
                quick,
                in_flight,
            };
            tasks::run(&options).map_err(|e| e.to_string())
        }
        "buildcost" => {
            let tools = args.list("tools");
            let tool_counts = if tools.is_empty() {
                vec![1, 100]
            } else {
                tools
                    .iter()
                    .map(|t| t.parse().map_err(|_| format!("--tools: not a number: {t}")))
                    .collect::<Result<_, _>>()?
            };
            // A clean build takes minutes: by default only the smallest
            // server gets one, and the report derives the others from it.
            let clean_for = if args.get("no-clean").is_some() {
                vec![]
            } else if args.get("clean-all").is_some() {
                tool_counts.clone()
            } else {
                tool_counts.iter().min().into_iter().copied().collect()
            };
            let options = buildcost::Options {
                bench_dir: args.path("bench-dir")?,
                out_dir: args.path("out")?,
                rounds: args.number("rounds", if quick { 1 } else { 2 })?,
                clean_for,
                tool_counts,
            };
            buildcost::run(&options).map_err(|e| e.to_string())
        }
        "compile" => {
            // Quick: 1 and 100 tools, one round, no release builds.
            let tools = args.list("tools");
            let tool_counts = if tools.is_empty() {
                if quick { vec![1, 100] } else { vec![1, 100, 500] }
            } else {
                tools
                    .iter()
                    .map(|t| match t.parse::<usize>() {
                        Ok(n) if n > 0 => Ok(n),
                        _ => Err(format!("--tools: not a positive number: {t}")),
                    })
                    .collect::<Result<_, _>>()?
            };
            let options = compile::Options {
                bench_dir: args.path("bench-dir")?,
                out_dir: args.path("out")?,
                rounds: args.number("rounds", if quick { 1 } else { 3 })?,
                tool_counts,
                release: !quick && args.get("no-release").is_none(),
                clean_all: args.get("clean-all").is_some(),
                llvm_lines: args.get("llvm-lines").filter(|p| !p.is_empty()).map(PathBuf::from),
                expanded: args.get("expanded").is_some(),
            };
            compile::run(&options).map_err(|e| e.to_string())
        }
        "report" => {
            let dir = args
                .positional
                .first()
                .map(PathBuf::from)
                .ok_or("report needs the results directory")?;
            let text = report::report(&dir);
            std::fs::write(dir.join("RESULTS.md"), &text).map_err(|e| e.to_string())?;
            print!("{text}");
            Ok(())
        }
        _ => Err(
            "usage: driver meta|suite|http|tasks|buildcost|compile|report ... (see bench/README.md)"
                .to_string(),
        ),
    }
}
