//! The gateway's command line: its own options and the server options
//! before the first `--`, then one command per upstream, each after a `--`.

use std::ffi::OsString;
use std::num::NonZeroU32;
use std::path::Path;

/// What the command line asks for.
pub enum Parsed {
    Run(Args),
    Help,
}

/// A command line to run.
pub struct Args {
    /// `--per-session`: one upstream process per client session.
    pub per_session: bool,
    /// `--rate-limit N`: tool calls per second per client.
    pub rate_limit: Option<NonZeroU32>,
    /// `--max-message-size BYTES`: the longest answer read from a server.
    pub max_message_size: Option<usize>,
    /// What is left before the first `--`, for `Server::run_with_args`.
    pub server_args: Vec<OsString>,
    pub upstreams: Vec<UpstreamArgs>,
}

/// One stdio server to mount.
pub struct UpstreamArgs {
    /// What its tools and prompts are prefixed with ("" with one upstream
    /// and no `--name`).
    pub prefix: String,
    pub program: OsString,
    pub args: Vec<OsString>,
    /// For the log: the command line.
    pub label: String,
}

/// The usage, for `--help`.
pub fn usage() -> String {
    format!(
        "gateway {version}: serves stdio MCP servers over Streamable HTTP

usage: gateway [OPTIONS] -- [--name NAME] COMMAND [ARGS...] [-- [--name NAME] COMMAND [ARGS...] ...]

Each COMMAND is a stdio MCP server, started once and shared by every client
session (restarted if it exits). Its tools, resources and prompts are served
as the gateway's own.

Names: with one server, its tools and prompts keep their names. With
several, each server's tools and prompts are prefixed with `NAME_`, where
NAME is given by `--name NAME` at the start of its command, or else is the
file name of its program without extension (`./weather` -> `weather_`).
Two servers with the same NAME are refused: give them different `--name`s.
`--name` with one server prefixes it too. Resource URIs keep theirs.
A command cannot contain a `--` of its own: it would start the next one.

Gateway options:
      --per-session      one process of each server per client session
                         (for servers that keep state per client); default:
                         one process shared by all sessions
      --rate-limit N     at most N tool calls per second per client (a
                         burst of N), a client being the token's subject
                         when --auth-issuer is on, else its HTTP session;
                         past it a call is refused with -32600 \"rate limit
                         exceeded ...: retry in S s\". Default: no limit
      --max-message-size BYTES  the longest message read from a server
                         (default 16 MiB); a longer answer fails its call,
                         naming its size, and the server stays mounted
  -h, --help             print this help and exit

Server options (as for every mcp-runtime server):
      --http ADDR        serve Streamable HTTP at http://ADDR/mcp; ADDR is
                         HOST:PORT, or a port alone for 127.0.0.1:PORT.
                         Without it, the gateway serves on stdin and stdout
      --stateless        with --http: no sessions
      --auth-issuer URL  with --http: require OAuth access tokens issued by
                         this authorization server
      --auth-audience URI  with --auth-issuer: the gateway's URL, which
                         tokens must name as their audience
      --list-tools       print the tools of every server, as served, and exit
  -V, --version          print the name and version and exit

Examples:
  gateway --http 8080 -- npx -y @modelcontextprotocol/server-everything
  gateway --http 8080 --rate-limit 5 -- --name files npx -y \\
      @modelcontextprotocol/server-filesystem /srv/shared -- ./weather

The log goes to stderr (RUST_LOG, default info), with each server's stderr.
",
        version = env!("CARGO_PKG_VERSION")
    )
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Parsed, String> {
    let mut args = args.into_iter();
    let mut per_session = false;
    let mut rate_limit = None;
    let mut max_message_size = None;
    let mut server_args = Vec::new();
    let mut separated = false;
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--") => {
                separated = true;
                break;
            }
            Some("-h" | "--help") => return Ok(Parsed::Help),
            Some("--per-session") => per_session = true,
            Some("--rate-limit") => {
                let value = args
                    .next()
                    .ok_or("--rate-limit needs a number: --rate-limit 5")?;
                rate_limit = Some(calls_per_second(&value.to_string_lossy())?);
            }
            Some(option) if option.starts_with("--rate-limit=") => {
                rate_limit = Some(calls_per_second(&option["--rate-limit=".len()..])?);
            }
            Some("--max-message-size") => {
                let value = args.next().ok_or(
                    "--max-message-size needs a number of bytes: --max-message-size 1048576",
                )?;
                max_message_size = Some(bytes(&value.to_string_lossy())?);
            }
            Some(option) if option.starts_with("--max-message-size=") => {
                max_message_size = Some(bytes(&option["--max-message-size=".len()..])?);
            }
            _ => server_args.push(arg),
        }
    }
    if !separated {
        return Err("no server to serve: give its command after `--`, such as \
                    `gateway --http 8080 -- npx -y @modelcontextprotocol/server-everything`"
            .into());
    }
    // The rest: commands separated by `--`.
    let mut groups: Vec<Vec<OsString>> = vec![Vec::new()];
    for arg in args {
        if arg == "--" {
            groups.push(Vec::new());
        } else {
            groups.last_mut().expect("one group at least").push(arg);
        }
    }
    let several = groups.len() > 1;
    let mut upstreams: Vec<UpstreamArgs> = Vec::new();
    for (index, group) in groups.into_iter().enumerate() {
        let upstream = upstream(group, index + 1, several)?;
        if let Some(other) = upstreams
            .iter()
            .find(|other| other.prefix == upstream.prefix)
        {
            return Err(format!(
                "two servers are named `{}` (`{}` and `{}`): put `--name NAME` before one of them, with a name of its own",
                upstream.prefix, other.label, upstream.label
            ));
        }
        upstreams.push(upstream);
    }
    Ok(Parsed::Run(Args {
        per_session,
        rate_limit,
        max_message_size,
        server_args,
        upstreams,
    }))
}

/// The `number`th command after a `--` (from 1): `[--name NAME] PROGRAM ARGS...`.
fn upstream(group: Vec<OsString>, number: usize, several: bool) -> Result<UpstreamArgs, String> {
    let mut words = group.into_iter().peekable();
    let mut name = None;
    match words.peek().and_then(|word| word.to_str()) {
        Some("--name") => {
            words.next();
            let value = words.next().ok_or(format!(
                "`--name` of command {number} needs a name: --name NAME COMMAND ..."
            ))?;
            name = Some(value.to_string_lossy().into_owned());
        }
        Some(word) if word.starts_with("--name=") => {
            name = Some(word["--name=".len()..].to_owned());
            words.next();
        }
        _ => {}
    }
    let Some(program) = words.next() else {
        return Err(format!(
            "command {number} is empty: give a server's command after each `--`"
        ));
    };
    let args: Vec<OsString> = words.collect();
    let label = std::iter::once(&program)
        .chain(&args)
        .map(|word| word.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ");
    let prefix = match name {
        Some(name) => name,
        None if several => Path::new(&program)
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default(),
        None => String::new(),
    };
    let valid = prefix.len() <= 32
        && prefix
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if !valid || (several && prefix.is_empty()) {
        return Err(format!(
            "`{prefix}` cannot prefix tool names (command {number}, `{label}`): name it with `--name NAME`, NAME being 1 to 32 letters, digits, `_`, `-` or `.`"
        ));
    }
    Ok(UpstreamArgs {
        prefix,
        program,
        args,
        label,
    })
}

fn calls_per_second(value: &str) -> Result<NonZeroU32, String> {
    value.parse().map_err(|_| {
        format!("--rate-limit takes a number of calls per second, 1 or more, not `{value}`")
    })
}

fn bytes(value: &str) -> Result<usize, String> {
    value
        .parse()
        .map_err(|_| format!("--max-message-size takes a number of bytes, not `{value}`"))
}
