//! The chain: a stdio front that mounts several MCP servers, named in a
//! config file, and routes every call through two middleware layers, a log
//! of every call and a list of blocked tools, which are not served.
//!
//! ```sh
//! cargo run --example chain --features client -- examples/chain/chain.toml
//! cargo run --example chain --features client -- examples/chain/chain.toml --http 127.0.0.1:8080
//! ```
//!
//! The config file's format is in `config.rs` (and `chain.toml`); the
//! arguments after it are the server options of every mcp-runtime server
//! (`--http`, `--list-tools`, ...), given to `Server::run_with_args`.

mod config;
mod layers;
#[path = "../upstream_oauth.rs"]
mod upstream_oauth;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use mcp_runtime::{Server, Upstream};

use config::{Config, Source};
use layers::{BlockToolsLayer, CallLogLayer};

/// A boxed, sendable future: what the layers return.
type BoxFuture<T> = std::pin::Pin<Box<dyn Future<Output = T> + Send>>;

const USAGE: &str = "usage: chain CONFIG [SERVER OPTIONS]

Serves, on stdin and stdout (or over HTTP with --http), the tools, resources
and prompts of the MCP servers that CONFIG names, each server's tools and
prompts prefixed with its `prefix` (default: its name) and `_`. Every request
is logged (target `chain` on stderr); the tools in CONFIG's `blocked_tools`
are not served: not listed, and a call of one is answered as for an
unknown tool.

CONFIG is TOML, or JSON when its name ends in .json:

  blocked_tools = [\"files_write_file\"]   # names as the chain serves them

  [[servers]]
  name = \"files\"                 # unique; the prefix unless `prefix` is given
  command = [\"npx\", \"-y\", \"@modelcontextprotocol/server-filesystem\", \"/srv\"]
  env = { NODE_ENV = \"production\" }    # optional
  cwd = \"..\"                      # optional, relative to CONFIG's folder

  [[servers]]
  name = \"remote\"
  url = \"http://127.0.0.1:8000/mcp\"   # a Streamable HTTP server
  prefix = \"\"                     # its tools keep their names

  [[servers]]
  name = \"tracker\"                # an OAuth protected resource
  url = \"https://mcp.tracker.example/mcp\"
  oauth = { client_id = \"chain\", client_secret_env = \"TRACKER_SECRET\" }
  # oauth = {}: a user signs in, in a browser, when the chain starts
  # (the URL is printed on stderr); see examples/chain/config.rs

SERVER OPTIONS: --http ADDR, --stateless, --auth-issuer URL,
--auth-audience URI, --list-tools, -V (as for every mcp-runtime server).
";

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let path = match args.next() {
        Some(arg) if arg == "-h" || arg == "--help" => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(arg) => PathBuf::from(arg),
        None => {
            eprintln!("error: no config file: chain CONFIG [SERVER OPTIONS]; try --help");
            return ExitCode::from(2);
        }
    };
    let config = match config::load(&path) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    match serve(config, &path.display().to_string(), args.collect()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Mounts every server of `config`, then serves as `server_args` say.
async fn serve(config: Config, file: &str, server_args: Vec<OsString>) -> std::io::Result<()> {
    let blocked = config.blocked_tools.clone();
    // The log layer first, so it is the outermost: it sees the refusals too.
    let mut server = Server::new("chain", env!("CARGO_PKG_VERSION"))
        .log_to_stderr()
        .layer(CallLogLayer)
        .layer(BlockToolsLayer::new(config.blocked_tools, file));
    for mounted in config.servers {
        let (upstream, what) = match mounted.source {
            Source::Url { url, oauth } => {
                let mut upstream = Upstream::http(url.clone());
                if let Some(settings) = oauth {
                    // The chain's own identity for this server; the
                    // tokens of the chain's clients are never passed on.
                    let oauth = settings
                        .build(&mounted.name)
                        .await
                        .map_err(std::io::Error::other)?;
                    tracing::info!(server = %mounted.name, grant = ?settings.grant(), "OAuth on");
                    upstream = upstream.oauth(oauth);
                }
                (upstream, url)
            }
            Source::Command {
                program,
                args,
                env,
                cwd,
            } => {
                let what = program.clone();
                let upstream = Upstream::spawn(move || {
                    let mut command = tokio::process::Command::new(&program);
                    command.args(&args).envs(&env);
                    if let Some(cwd) = &cwd {
                        command.current_dir(cwd);
                    }
                    command
                });
                (upstream, what)
            }
        };
        // Named in the log and in errors by its name and where it is.
        let upstream = upstream.label(format!("{} ({what})", mounted.name));
        tracing::info!(server = %mounted.name, prefix = %mounted.prefix, "mounting");
        server = server.mount(mounted.prefix, upstream).await?;
    }
    // The blocked tools mounted now are left out of the server altogether
    // (also from `--list-tools`); the layer hides those that come later. A
    // blocked name that names nothing is likely a typo (or a name without
    // its prefix).
    if let Ok(registry) = server.registry() {
        let (present, absent): (Vec<String>, Vec<String>) = blocked
            .into_iter()
            .partition(|tool| registry.get(tool).is_some());
        for tool in absent {
            tracing::warn!(
                "{file}: blocked_tools names `{tool}`, which no server serves (yet): tools are named as the chain serves them, `PREFIX_TOOL`"
            );
        }
        server = server.exclude_tools(present);
    }
    server.run_with_args(server_args).await
}
