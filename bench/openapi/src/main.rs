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
//! A third column serves the document with progressive discovery
//! (`Server::tool_search(ToolSearch::new())`, output schemas on): its
//! tools/list is the two synthetic tools, and a `search_tools` call
//! ("create an issue comment", the default 50 results at most) is timed and
//! sized, from the request to its answer.
//!
//! Prints a table, medians with the minimum in brackets; with `--out DIR`,
//! also writes them to `DIR/openapi.json`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mcp_runtime::openapi::OpenApi;
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Server, ToolSearch};

/// How the document is served in a column of the table.
#[derive(Clone, Copy)]
struct Mode {
    label: &'static str,
    output_schemas: bool,
    discovery: bool,
}

const MODES: [Mode; 3] = [
    Mode {
        label: "with output schemas",
        output_schemas: true,
        discovery: false,
    },
    Mode {
        label: "without",
        output_schemas: false,
        discovery: false,
    },
    Mode {
        label: "with discovery",
        output_schemas: true,
        discovery: true,
    },
];

/// What progressive discovery's search is asked in the discovery column.
const QUERY: &str = "create an issue comment";

/// One round's figures.
struct Round {
    convert: Duration,
    registry: Duration,
    tools: usize,
    listed: usize,
    list_bytes: usize,
    first_list: Duration,
    /// With discovery: one search's time, its answer's bytes, and where
    /// `issues_create-comment` ranks among its results.
    search: Option<(Duration, usize, Option<usize>)>,
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
    for mode in MODES {
        let mut figures = Vec::new();
        for _ in 0..rounds.max(1) {
            figures.push(runtime.block_on(round(&document, mode))?);
        }
        results.push((mode, figures));
    }

    println!(
        "OpenAPI import of {name} ({:.1} MB), {} rounds, median [min]:",
        size as f64 / 1e6,
        rounds.max(1)
    );
    let line = |label: &str, cells: Vec<String>| {
        print!("{label:<30}");
        for cell in cells {
            print!(" {cell:>22}");
        }
        println!();
    };
    line("", MODES.iter().map(|mode| mode.label.to_owned()).collect());
    let row = |label: &str, figure: &dyn Fn(&Round) -> Duration| {
        let cells = results
            .iter()
            .map(|(_, figures)| {
                let (median, min) = spread(figures.iter().map(figure).collect());
                format!("{:.0} ms [{:.0}]", ms(median), ms(min))
            })
            .collect();
        line(label, cells);
    };
    row("read and convert", &|r| r.convert);
    row("registry build", &|r| r.registry);
    row("import (the two)", &|r| r.convert + r.registry);
    row("connect + first tools/list", &|r| r.first_list);
    let each = |figure: &dyn Fn(&Round) -> String| {
        results
            .iter()
            .map(|(_, figures)| figure(&figures[0]))
            .collect::<Vec<_>>()
    };
    line("tools served", each(&|r| r.tools.to_string()));
    line("tools listed", each(&|r| r.listed.to_string()));
    line("tools/list bytes", each(&|r| r.list_bytes.to_string()));
    if let Some((_, figures)) = results.iter().find(|(mode, _)| mode.discovery) {
        let searches: Vec<_> = figures.iter().filter_map(|r| r.search).collect();
        if let Some(&(_, bytes, rank)) = searches.first() {
            let (median, min) = spread(searches.iter().map(|s| s.0).collect());
            println!(
                "search_tools {QUERY:?}: {:.1} ms [{:.1}], {bytes} bytes, \
                 issues_create-comment ranked {}",
                ms(median),
                ms(min),
                rank.map_or("nowhere".to_owned(), |rank| format!("#{}", rank + 1))
            );
        }
    }

    if let Some(dir) = out {
        let report: Vec<Value> = results
            .iter()
            .map(|(mode, figures)| {
                json!({
                    "mode": mode.label,
                    "output_schemas": mode.output_schemas,
                    "discovery": mode.discovery,
                    "tools": figures[0].tools,
                    "tools_listed": figures[0].listed,
                    "tools_list_bytes": figures[0].list_bytes,
                    "search_ms": figures.iter().filter_map(|r| r.search).map(|s| ms(s.0)).collect::<Vec<_>>(),
                    "search_bytes": figures[0].search.map(|s| s.1),
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

fn serve(document: &PathBuf, mode: Mode) -> Server {
    let api = OpenApi::from_file(document)
        .skip_unsupported()
        .output_schemas(mode.output_schemas);
    let server = Server::new("github", "1.0.0").openapi(api);
    if mode.discovery {
        server.tool_search(ToolSearch::new())
    } else {
        server
    }
}

async fn round(document: &PathBuf, mode: Mode) -> Result<Round, String> {
    let started = Instant::now();
    let server = serve(document, mode);
    let convert = started.elapsed();
    let started = Instant::now();
    let registry = server.registry().map_err(|e| e.to_string())?;
    let registry_time = started.elapsed();
    let tools = registry.tools().len();
    drop(registry);

    let server = serve(document, mode);
    let started = Instant::now();
    let mut client = TestClient::connect(server)
        .await
        .map_err(|e| e.to_string())?;
    let mut list_bytes = 0;
    let mut listed = 0;
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
        listed += page["tools"].as_array().map_or(0, Vec::len);
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    let first_list = started.elapsed();
    let search = if mode.discovery {
        let started = Instant::now();
        let found = client
            .call_tool("search_tools", json!({"query": QUERY}))
            .await
            .map_err(|e| format!("search_tools: {e:?}"))?;
        let took = started.elapsed();
        let bytes = mcp_runtime::serde_json::to_vec(&found)
            .map_err(|e| e.to_string())?
            .len();
        let rank = found["structuredContent"]["tools"]
            .as_array()
            .and_then(|tools| {
                tools
                    .iter()
                    .position(|tool| tool["name"] == "issues_create-comment")
            });
        Some((took, bytes, rank))
    } else {
        None
    };
    client.close().await;
    Ok(Round {
        convert,
        registry: registry_time,
        tools,
        listed,
        list_bytes,
        first_list,
        search,
    })
}

fn spread(mut values: Vec<Duration>) -> (Duration, Duration) {
    values.sort();
    (values[values.len() / 2], values[0])
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}
