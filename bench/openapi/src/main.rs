//! What importing a large OpenAPI document costs: `bench/run --suite openapi`
//! runs this on GitHub's (npm `@octokit/openapi`, installed by
//! tests/openapi/install). See bench/README.md, "OpenAPI import".
//!
//! ```text
//! openapi-import --document PATH [--rounds N] [--out DIR]
//! ```
//!
//! Each round, with output schemas and without (`.output_schemas(false)`):
//!
//! - **read and convert**: `Server::openapi(OpenApi::from_file(PATH)
//!   .skip_unsupported())`, which reads the file, parses the JSON and makes
//!   every operation's tool;
//! - **registry**: `Server::registry()`, which compiles every input schema's
//!   validator and checks the names (what start-up does);
//! - **import**: the sum of the two, the figure the issue asks to keep
//!   under a second;
//! - **tools/list**: the bytes of the `tools/list` result (compact JSON,
//!   every page; protocol 2025-11-25), and how long an in-process client
//!   takes from connecting (which builds the registry and serializes the
//!   list once) to having that answer.
//!
//! Prints a table, medians with the minimum in brackets; with `--out DIR`,
//! also writes them to `DIR/openapi.json`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mcp_runtime::Server;
use mcp_runtime::openapi::OpenApi;
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::TestClient;

/// One round's figures.
struct Round {
    convert: Duration,
    registry: Duration,
    tools: usize,
    list_bytes: usize,
    first_list: Duration,
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("openapi-import: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let (mut document, mut rounds, mut out) = (None, 5usize, None);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--document" => document = Some(PathBuf::from(value()?)),
            "--rounds" => {
                rounds = value()?
                    .parse()
                    .map_err(|_| "--rounds needs a number".to_owned())?;
            }
            "--out" => out = Some(PathBuf::from(value()?)),
            _ => {
                return Err(format!(
                    "unknown argument {arg}; usage: openapi-import --document PATH [--rounds N] [--out DIR]"
                ));
            }
        }
    }
    let document = document.ok_or("--document PATH is required")?;
    // For the table and the JSON: the file's name, not where it is.
    let name = document.file_name().map_or_else(
        || document.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    let size = std::fs::metadata(&document)
        .map_err(|e| format!("{}: {e}", document.display()))?
        .len();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;

    let mut results = Vec::new();
    for output_schemas in [true, false] {
        let mut figures = Vec::new();
        for _ in 0..rounds.max(1) {
            figures.push(runtime.block_on(round(&document, output_schemas))?);
        }
        results.push((output_schemas, figures));
    }

    println!(
        "OpenAPI import of {name} ({:.1} MB), {} rounds, median [min]:",
        size as f64 / 1e6,
        rounds.max(1)
    );
    println!("{:<34} {:>24} {:>24}", "", "with output schemas", "without");
    let row = |label: &str, figure: &dyn Fn(&Round) -> Duration| {
        let cells: Vec<String> = results
            .iter()
            .map(|(_, figures)| {
                let (median, min) = spread(figures.iter().map(figure).collect());
                format!("{:.0} ms [{:.0}]", ms(median), ms(min))
            })
            .collect();
        println!("{label:<34} {:>24} {:>24}", cells[0], cells[1]);
    };
    row("read and convert", &|r| r.convert);
    row("registry build", &|r| r.registry);
    row("import (the two)", &|r| r.convert + r.registry);
    row("connect + first tools/list", &|r| r.first_list);
    let first = |with: bool| &results[usize::from(!with)].1[0];
    println!(
        "{:<34} {:>24} {:>24}",
        "tools served",
        first(true).tools,
        first(false).tools
    );
    println!(
        "{:<34} {:>24} {:>24}",
        "tools/list bytes",
        first(true).list_bytes,
        first(false).list_bytes
    );

    if let Some(dir) = out {
        let report: Vec<Value> = results
            .iter()
            .map(|(with, figures)| {
                json!({
                    "output_schemas": with,
                    "tools": figures[0].tools,
                    "tools_list_bytes": figures[0].list_bytes,
                    "convert_ms": figures.iter().map(|r| ms(r.convert)).collect::<Vec<_>>(),
                    "registry_ms": figures.iter().map(|r| ms(r.registry)).collect::<Vec<_>>(),
                    "first_list_ms": figures.iter().map(|r| ms(r.first_list)).collect::<Vec<_>>(),
                })
            })
            .collect();
        let path = dir.join("openapi.json");
        let text = json!({"document": name, "bytes": size, "runs": report});
        std::fs::write(&path, format!("{text:#}\n"))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

fn api(document: &PathBuf, output_schemas: bool) -> OpenApi {
    OpenApi::from_file(document)
        .skip_unsupported()
        .output_schemas(output_schemas)
}

async fn round(document: &PathBuf, output_schemas: bool) -> Result<Round, String> {
    let started = Instant::now();
    let server = Server::new("github", "1.0.0").openapi(api(document, output_schemas));
    let convert = started.elapsed();
    let started = Instant::now();
    let registry = server.registry().map_err(|e| e.to_string())?;
    let registry_time = started.elapsed();
    let tools = registry.tools().len();
    drop(registry);

    let server = Server::new("github", "1.0.0").openapi(api(document, output_schemas));
    let started = Instant::now();
    let mut client = TestClient::connect(server)
        .await
        .map_err(|e| e.to_string())?;
    let mut list_bytes = 0;
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let page = client
            .request("tools/list", params)
            .await
            .map_err(|e| format!("tools/list: {e:?}"))?;
        list_bytes += mcp_runtime::serde_json::to_vec(&page)
            .map_err(|e| e.to_string())?
            .len();
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    let first_list = started.elapsed();
    client.close().await;
    Ok(Round {
        convert,
        registry: registry_time,
        tools,
        list_bytes,
        first_list,
    })
}

fn spread(mut values: Vec<Duration>) -> (Duration, Duration) {
    values.sort();
    (values[values.len() / 2], values[0])
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}
