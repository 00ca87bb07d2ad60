//! The client side of forwarding: mcp-runtime's `Client` (what `mount`
//! forwards with) beside rmcp's client, both calling the same server
//! (`ours-basic`, spawned by the client over stdio), interleaved over the
//! rounds. For each run: the handshake time, then a sequential phase (one
//! call at a time: latency p50/p99) and a pipelined one (K calls in
//! flight from K tasks sharing the client: calls/s), with the client's CPU
//! (this process, getrusage) and the server's (its threads' schedstat)
//! per call. One JSON line per run goes to `DIR/clients.jsonl`; `driver
//! report DIR` shows them. See bench/README.md, "Forwarding".
//!
//! ```text
//! client-bench --server PATH --out DIR [--clients ours,rmcp] [--workloads echo,order,payload]
//!              [--rounds N] [--quick] [--in-flight K]
//! ```

mod clients;
mod measure;

use std::path::PathBuf;
use std::process::ExitCode;

use clients::CLIENTS;

struct Options {
    server: PathBuf,
    out: PathBuf,
    clients: Vec<String>,
    workloads: Vec<String>,
    rounds: u32,
    quick: bool,
    in_flight: u64,
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        server: PathBuf::new(),
        out: PathBuf::new(),
        clients: CLIENTS.iter().map(ToString::to_string).collect(),
        workloads: measure::WORKLOADS
            .iter()
            .map(|w| w.name.to_string())
            .collect(),
        rounds: 0,
        quick: false,
        in_flight: 64,
    };
    let list = |v: String| {
        v.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    };
    let mut raw = std::env::args().skip(1);
    while let Some(arg) = raw.next() {
        let mut value = || raw.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--server" => options.server = value()?.into(),
            "--out" => options.out = value()?.into(),
            "--clients" => options.clients = list(value()?),
            "--workloads" => options.workloads = list(value()?),
            "--rounds" => {
                options.rounds = value()?.parse().map_err(|_| "--rounds: not a number")?
            }
            "--in-flight" => {
                options.in_flight = value()?.parse().map_err(|_| "--in-flight: not a number")?
            }
            "--quick" => options.quick = true,
            other => return Err(format!("unknown option {other}")),
        }
    }
    if options.server.as_os_str().is_empty() || options.out.as_os_str().is_empty() {
        return Err("usage: client-bench --server PATH --out DIR [--clients ours,rmcp] [--workloads a,b] [--rounds N] [--quick] [--in-flight K]".into());
    }
    if let Some(c) = options
        .clients
        .iter()
        .find(|c| !CLIENTS.contains(&c.as_str()))
    {
        return Err(format!("unknown client {c}; known: {}", CLIENTS.join(", ")));
    }
    if let Some(w) = options
        .workloads
        .iter()
        .find(|w| !measure::WORKLOADS.iter().any(|k| k.name == w.as_str()))
    {
        return Err(format!("unknown workload {w}; known: echo, order, payload"));
    }
    if options.rounds == 0 {
        options.rounds = if options.quick { 2 } else { 5 };
    }
    Ok(options)
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match parse() {
        Ok(options) => options,
        Err(e) => {
            eprintln!("client-bench: {e}");
            return ExitCode::from(2);
        }
    };
    match measure::run_all(&options).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("client-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
