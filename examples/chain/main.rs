//! The chain: a stdio front that mounts several MCP servers, named in a
//! config file, and routes every call through a middleware layer that logs
//! every call. The config also blocks tools (not served), changes tools
//! (names, descriptions, tags, arguments: `ToolTransform`s) and can turn on
//! progressive discovery (`ToolSearch`).
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
#[path = "../tool_tables.rs"]
mod tool_tables;
#[path = "../upstream_oauth.rs"]
mod upstream_oauth;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use mcp_runtime::{RegistryError, Server, ToolTransform, Upstream};

use config::{Config, Source};
use layers::CallLogLayer;

/// A boxed, sendable future: what the layers return.
type BoxFuture<T> = std::pin::Pin<Box<dyn Future<Output = T> + Send>>;

const USAGE: &str = "usage: chain CONFIG [SERVER OPTIONS]

Serves, on stdin and stdout (or over HTTP with --http), the tools, resources
and prompts of the MCP servers that CONFIG names, each server's tools and
prompts prefixed with its `prefix` (default: its name) and `_`. Every request
is logged (target `chain` on stderr); the tools in CONFIG's `blocked_tools`
are not served: not listed, and a call of one is answered as for an
unknown tool. A server's `[servers.tools.NAME]` tables change its tools;
a `[tool_search]` table lists only some tools, with a search tool and a
proxy that calls any tool (progressive discovery).

CONFIG is TOML, or JSON when its name ends in .json:

  blocked_tools = [\"files_write_file\"]   # names as the chain serves them

  [tool_search]                   # optional: progressive discovery
  pin = [\"read\"]                  # listed, by served names
  pin_tags = [\"core\"]             # and every tool with one of these tags

  [[servers]]
  name = \"files\"                 # unique; the prefix unless `prefix` is given
  command = [\"npx\", \"-y\", \"@modelcontextprotocol/server-filesystem\", \"/srv\"]
  env = { NODE_ENV = \"production\" }    # optional
  cwd = \"..\"                      # optional, relative to CONFIG's folder
  tags = [\"files\"]                # optional, given to every tool of the server

  [servers.tools.read_file]       # a tool, by the server's own name
  name = \"read\"                   # served as `read`; also title, description,
  tags = [\"core\"]                 # tags, hidden = true
  [servers.tools.read_file.arguments.path]
  description = \"The file.\"       # also name = \"...\", value = ... (fixed,
                                  # hidden), hidden = true (optional, hidden)

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
    // The log layer sees every request, refusals included.
    let mut server = Server::new("chain", env!("CARGO_PKG_VERSION"))
        .log_to_stderr()
        .layer(CallLogLayer);
    // Each transform with what the config calls it, for the warning when
    // it names no tool. Blocked tools are hidden, like a table's `hidden`.
    let mut transforms: Vec<(ToolTransform, String)> = Vec::new();
    for name in config.blocked_tools {
        let transform = ToolTransform::new(&name).hide();
        transforms.push((transform, "blocked_tools".to_owned()));
    }
    for mounted in config.servers {
        for (tool, table) in &mounted.tools {
            let served = mounted.served(tool);
            transforms.push((
                table.transform(&served, &mounted.tags),
                format!("[servers.tools.{tool}] of server `{}`", mounted.name),
            ));
        }
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
        let upstream = upstream
            .label(format!("{} ({what})", mounted.name))
            .tags(mounted.tags);
        tracing::info!(server = %mounted.name, prefix = %mounted.prefix, "mounting");
        server = server.mount(mounted.prefix, upstream).await?;
    }
    // A transform that names no tool mounted now is likely a typo (or a
    // blocked name without its prefix); it applies all the same to a tool
    // a server adds later under that name, hence `optional`.
    if let Ok(registry) = server.registry() {
        for (transform, what) in &transforms {
            let tool = transform.name();
            if registry.get(tool).is_none() {
                tracing::warn!(
                    "{file}: {what} names `{tool}`, which no server serves (yet): tools are named as the chain serves them, `PREFIX_TOOL`, and in [servers.tools.NAME] by the server's own name"
                );
            }
        }
    }
    let mut tables = Vec::new();
    for (transform, what) in transforms {
        tables.push((transform.name().to_owned(), what));
        server = server.transform(transform.optional());
    }
    if let Some(search) = config.tool_search {
        server = server.tool_search(search);
    }
    // A table that cannot apply to its tool is named by its place in the
    // file rather than by the line of this file that added it.
    if let Err(RegistryError::InvalidTransform { tool, reason, .. }) = server.registry()
        && let Some((_, what)) = tables.iter().find(|(name, _)| *name == tool)
    {
        return Err(std::io::Error::other(format!(
            "{file}: {what} cannot apply to `{tool}`: {reason}"
        )));
    }
    server.run_with_args(server_args).await
}
