//! The gateway's command line: its own options and the server options
//! before the first `--`, then one command per upstream, each after a `--`.

use std::ffi::OsString;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};

use mcp_runtime::{ToolSearch, ToolTransform};

use crate::upstream_oauth::{Grant, OAuthSettings, Secret};

/// What the command line asks for.
pub enum Parsed {
    Run(Box<Args>),
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
    /// `--transforms FILE`: what to change about the tools served.
    pub transforms: Vec<ToolTransform>,
    /// `--tool-search` (with `--pin` and `--pin-tag`): progressive discovery.
    pub tool_search: Option<ToolSearch>,
    /// What is left before the first `--`, for `Server::run_with_args`.
    pub server_args: Vec<OsString>,
    pub upstreams: Vec<UpstreamArgs>,
}

/// One server to mount.
pub struct UpstreamArgs {
    /// What its tools and prompts are prefixed with ("" with one upstream
    /// and no `--name`).
    pub prefix: String,
    pub source: UpstreamSource,
    /// For the log: the command line, or the URL.
    pub label: String,
    /// `--tags T,U`: given to every tool of the server.
    pub tags: Vec<String>,
}

/// Where a server to mount is.
pub enum UpstreamSource {
    /// A stdio server the gateway starts.
    Command {
        program: OsString,
        args: Vec<OsString>,
    },
    /// A Streamable HTTP server (`--url`), protected by OAuth or not.
    Url {
        /// Its MCP endpoint.
        url: String,
        /// How the gateway gets its tokens (`--oauth...`); `None`: it
        /// sends none.
        oauth: Option<OAuthSettings>,
    },
}

/// The usage, for `--help`.
pub fn usage() -> String {
    format!(
        "gateway {version}: serves MCP servers (stdio or HTTP) over Streamable HTTP

usage: gateway [OPTIONS] -- UPSTREAM [-- UPSTREAM ...]
  where UPSTREAM is   [--name NAME] [--tags T,U] COMMAND [ARGS...]
                  or  [--name NAME] [--tags T,U] --url URL [OAUTH OPTIONS]

Each COMMAND is a stdio MCP server, started once and shared by every client
session (restarted if it exits); each URL a Streamable HTTP MCP server,
connected to once (again if the connection is lost). Their tools, resources
and prompts are served as the gateway's own.

Names: with one server, its tools and prompts keep their names. With
several, each server's tools and prompts are prefixed with `NAME_`, where
NAME is given by `--name NAME` at the start of its command, or else is the
file name of its program without extension (`./weather` -> `weather_`);
a --url server needs a --name when there are several.
Two servers with the same NAME are refused: give them different `--name`s.
`--name` with one server prefixes it too. Resource URIs keep theirs.
A command cannot contain a `--` of its own: it would start the next one.
`--tags T,U` gives every tool of that server these tags (for --pin-tag and
searches).

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
      --transforms FILE  change the tools served, as FILE says (TOML, or
                         JSON when its name ends in .json): one table per
                         tool, by the name the gateway serves it under:
                           [tools.\"everything_echo\"]
                           name = \"say\"          # also title, description,
                           tags = [\"core\"]       # tags, hidden = true
                           [tools.\"everything_echo\".arguments.message]
                           name = \"text\"         # also description; or
                           # value = 1 (hidden, fixed), hidden = true
                         A table's tags replace the tool's (--tags's too).
                         A table naming no tool is a warning (a server may
                         add the tool later)
      --tool-search      progressive discovery: tools/list shows only the
                         pinned tools, `search_tools` (finds any tool by
                         name, description or tag) and `call_tool` (calls
                         any tool by name); every tool stays callable
      --pin NAME         with --tool-search: list this tool (as served,
                         after --transforms); repeatable
      --pin-tag TAG      with --tool-search: list every tool tagged TAG;
                         repeatable
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

OAuth options, for a --url server that is an OAuth protected resource (any
one of them turns OAuth on). The gateway obtains tokens with its own
identity, for that server alone; the tokens of the gateway's own clients
(--auth-issuer) are never passed on:
      --oauth            OAuth with nothing else given: the authorization
                         code flow, the gateway registering itself (dynamic
                         client registration) and asking for the scopes the
                         server's challenge names
      --oauth-grant G    authorization_code: a user signs in once, in a
                         browser; the gateway prints the URL on stderr (and
                         opens a browser where it can) at startup, and
                         waits for the redirect on 127.0.0.1 (5 minutes).
                         client_credentials: no user, the gateway's own
                         client id and secret (a service).
                         Default: client_credentials with a secret, else
                         authorization_code
      --oauth-client-id ID  a client registered with the authorization
                         server beforehand (required by client_credentials)
      --oauth-client-secret-env VAR  its secret, read from the environment
                         variable VAR (never on the command line)
      --oauth-scopes S   the scopes to ask for, separated by spaces or
                         commas; default: those the server asks for
      --oauth-metadata-document URL  the https URL of this client's
                         metadata document, its client id where the
                         authorization server supports them
      --oauth-token-store FILE  keep the tokens in FILE (mode 0600), and
                         the client registered on the fly if any, so that
                         a restart needs no new sign-in while a refresh
                         token lasts; several servers may share one
                         file. Default: in memory
      --oauth-redirect-uri URI  the loopback redirect URI to listen on
                         (http://127.0.0.1:PORT/PATH), for a client
                         registered with one; default: any free port,
                         http://127.0.0.1:PORT/callback
      --oauth-no-browser print the authorization URL, open no browser

Examples:
  gateway --http 8080 -- npx -y @modelcontextprotocol/server-everything
  gateway --http 8080 --rate-limit 5 -- --name files npx -y \\
      @modelcontextprotocol/server-filesystem /srv/shared -- ./weather
  TRACKER_SECRET=... gateway --http 8080 -- --name tracker \\
      --url https://mcp.tracker.example/mcp --oauth-client-id gateway \\
      --oauth-client-secret-env TRACKER_SECRET --oauth-scopes issues:read
  gateway --http 8080 -- --name docs --url https://docs.example/mcp \\
      --oauth-client-id gateway-desktop \\
      --oauth-token-store ~/.config/gateway/tokens.json

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
    let mut transforms = Vec::new();
    let mut tool_search = false;
    let mut pins: Vec<String> = Vec::new();
    let mut pin_tags: Vec<String> = Vec::new();
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
            Some("--tool-search") => tool_search = true,
            Some(option @ ("--transforms" | "--pin" | "--pin-tag")) => {
                let value = args.next().ok_or_else(|| {
                    format!(
                        "{option} needs a value: {option} {}",
                        match option {
                            "--transforms" => "FILE",
                            "--pin" => "TOOL_NAME",
                            _ => "TAG",
                        }
                    )
                })?;
                let value = value.to_string_lossy().into_owned();
                gateway_value(option, value, &mut transforms, &mut pins, &mut pin_tags)?;
            }
            Some(option)
                if ["--transforms=", "--pin=", "--pin-tag="]
                    .iter()
                    .any(|start| option.starts_with(start)) =>
            {
                let (option, value) = option.split_once('=').expect("an `=`");
                let value = value.to_owned();
                gateway_value(option, value, &mut transforms, &mut pins, &mut pin_tags)?;
            }
            _ => server_args.push(arg),
        }
    }
    if !tool_search && (!pins.is_empty() || !pin_tags.is_empty()) {
        return Err(
            "--pin and --pin-tag choose what --tool-search lists: add --tool-search".into(),
        );
    }
    let tool_search = tool_search.then(|| ToolSearch::new().pin(pins).pin_tags(pin_tags));
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
    Ok(Parsed::Run(Box::new(Args {
        per_session,
        rate_limit,
        max_message_size,
        transforms,
        tool_search,
        server_args,
        upstreams,
    })))
}

/// Applies `--transforms`, `--pin` or `--pin-tag` with its value.
fn gateway_value(
    option: &str,
    value: String,
    transforms: &mut Vec<ToolTransform>,
    pins: &mut Vec<String>,
    pin_tags: &mut Vec<String>,
) -> Result<(), String> {
    if value.is_empty() {
        return Err(format!("{option} needs a value, not an empty one"));
    }
    match option {
        "--transforms" => transforms.extend(crate::transforms::load(Path::new(&value))?),
        "--pin" => pins.push(value),
        _ => pin_tags.push(value),
    }
    Ok(())
}

/// The `number`th upstream after a `--` (from 1): its options, then
/// `PROGRAM ARGS...` (or nothing after `--url URL`).
fn upstream(group: Vec<OsString>, number: usize, several: bool) -> Result<UpstreamArgs, String> {
    let mut words = group.into_iter().peekable();
    let mut name = None;
    let mut url = None;
    let mut oauth: Option<OAuthSettings> = None;
    let mut tags: Vec<String> = Vec::new();
    let in_command = format!("(command {number})");
    while let Some(word) = words.peek().and_then(|word| word.to_str()) {
        let (option, inline) = match word.split_once('=') {
            Some((option, value)) if option.starts_with("--") => {
                (option.to_owned(), Some(value.to_owned()))
            }
            _ => (word.to_owned(), None),
        };
        if !(option == "--name"
            || option == "--url"
            || option == "--tags"
            || option.starts_with("--oauth"))
        {
            break;
        }
        words.next();
        let takes_value = option != "--oauth" && option != "--oauth-no-browser";
        let value = if takes_value {
            match inline {
                Some(value) => value,
                None => words
                    .next()
                    .map(|value| value.to_string_lossy().into_owned())
                    .ok_or(match option.as_str() {
                        "--name" => format!(
                            "`--name` of command {number} needs a name: --name NAME COMMAND ..."
                        ),
                        _ => format!("`{option}` of command {number} needs a value; see --help"),
                    })?,
            }
        } else if inline.is_some() {
            return Err(format!("`{option}` {in_command} takes no value"));
        } else {
            String::new()
        };
        if option.starts_with("--oauth") {
            let settings = oauth.get_or_insert_with(OAuthSettings::default);
            oauth_option(settings, &option, value).map_err(|e| format!("{e} {in_command}"))?;
            continue;
        }
        match option.as_str() {
            "--name" => name = Some(value),
            "--tags" => {
                let given = value
                    .split(',')
                    .map(str::trim)
                    .filter(|tag| !tag.is_empty());
                tags.extend(given.map(str::to_owned));
                if tags.is_empty() {
                    return Err(format!(
                        "`--tags` {in_command} names no tag: --tags TAG,TAG"
                    ));
                }
            }
            _ => url = Some(value),
        }
    }
    let rest: Vec<OsString> = words.collect();
    let source = match url {
        Some(url) => {
            if let Some(extra) = rest.first() {
                return Err(format!(
                    "`{}` after `--url {url}` {in_command}: a --url server has no command; put it after a `--` of its own",
                    extra.to_string_lossy()
                ));
            }
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!(
                    "`--url {url}` {in_command} is not an http:// or https:// URL: give the server's MCP endpoint, such as http://127.0.0.1:8000/mcp"
                ));
            }
            if let Some(settings) = &oauth {
                settings
                    .check(|setting| flag(setting).to_owned())
                    .map_err(|e| format!("{e} {in_command}"))?;
            }
            UpstreamSource::Url { url, oauth }
        }
        None => {
            if oauth.is_some() {
                return Err(format!(
                    "the --oauth options {in_command} apply to a --url server (OAuth protects HTTP servers), not to a command"
                ));
            }
            let mut rest = rest.into_iter();
            let Some(program) = rest.next() else {
                return Err(format!(
                    "command {number} is empty: give a server's command (or --url URL) after each `--`"
                ));
            };
            UpstreamSource::Command {
                program,
                args: rest.collect(),
            }
        }
    };
    let label = match &source {
        UpstreamSource::Command { program, args } => std::iter::once(program)
            .chain(args)
            .map(|word| word.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" "),
        UpstreamSource::Url { url, .. } => url.clone(),
    };
    let prefix = match (name, &source) {
        (Some(name), _) => name,
        (None, UpstreamSource::Url { url, .. }) if several => {
            return Err(format!(
                "the server at {url} {in_command} needs a name to prefix its tools with: put `--name NAME` before `--url`"
            ));
        }
        (None, UpstreamSource::Command { program, .. }) if several => Path::new(program)
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default(),
        (None, _) => String::new(),
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
        source,
        label,
        tags,
    })
}

/// The flag of an OAuth setting (for the messages of `OAuthSettings::check`).
fn flag(setting: &str) -> &'static str {
    match setting {
        "client_id" => "--oauth-client-id",
        "client_secret" => "--oauth-client-secret-env",
        "metadata_document" => "--oauth-metadata-document",
        "redirect_uri" => "--oauth-redirect-uri",
        "scopes" => "--oauth-scopes",
        "token_store" => "--oauth-token-store",
        _ => "--oauth-grant",
    }
}

/// Applies one `--oauth...` option (its value, "" for the flags).
fn oauth_option(settings: &mut OAuthSettings, option: &str, value: String) -> Result<(), String> {
    match option {
        "--oauth" => {}
        "--oauth-no-browser" => settings.open_browser = false,
        "--oauth-grant" => {
            settings.grant = Some(Grant::parse(&value).map_err(|e| format!("--oauth-grant: {e}"))?)
        }
        "--oauth-client-id" => settings.client_id = Some(value),
        "--oauth-client-secret-env" => settings.client_secret = Some(Secret::Env(value)),
        "--oauth-scopes" => {
            let scopes: Vec<String> = value
                .split([' ', ','])
                .filter(|scope| !scope.is_empty())
                .map(str::to_owned)
                .collect();
            if scopes.is_empty() {
                return Err("--oauth-scopes names no scope".into());
            }
            settings.scopes = Some(scopes);
        }
        "--oauth-metadata-document" => settings.metadata_document = Some(value),
        "--oauth-token-store" => settings.token_store = Some(PathBuf::from(value)),
        "--oauth-redirect-uri" => settings.redirect_uri = Some(value),
        "--oauth-client-secret" => {
            return Err("a secret on the command line is visible to every user of the machine: put it in an environment variable and give --oauth-client-secret-env VAR".into());
        }
        other => return Err(format!("`{other}` is not an OAuth option; see --help")),
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Args, String> {
        match parse(args.iter().map(OsString::from))? {
            Parsed::Run(args) => Ok(*args),
            Parsed::Help => Err("help".into()),
        }
    }

    #[test]
    fn discovery_options_come_before_the_first_separator() {
        let args = parsed(&[
            "--http",
            "8080",
            "--tool-search",
            "--pin",
            "say",
            "--pin-tag=core",
            "--",
            "--name",
            "everything",
            "--tags",
            "demo, core",
            "node",
            "--pin",
        ])
        .unwrap();
        assert!(args.tool_search.is_some());
        assert_eq!(args.server_args, ["--http", "8080"]);
        let upstream = &args.upstreams[0];
        assert_eq!(upstream.tags, ["demo", "core"]);
        // Options after `--` belong to the server's command.
        match &upstream.source {
            UpstreamSource::Command { program, args } => {
                assert_eq!(program, "node");
                assert_eq!(args, &["--pin"]);
            }
            UpstreamSource::Url { .. } => panic!("a command"),
        }
    }

    #[test]
    fn pins_without_tool_search_are_refused() {
        let error = parsed(&["--pin", "say", "--", "node"]).err().unwrap();
        assert_eq!(
            error,
            "--pin and --pin-tag choose what --tool-search lists: add --tool-search"
        );
        let error = parsed(&["--tool-search", "--pin"]).err().unwrap();
        assert_eq!(error, "--pin needs a value: --pin TOOL_NAME");
    }

    #[test]
    fn a_transforms_file_that_cannot_be_read_is_named() {
        let error = parsed(&["--transforms", "/no/such/t.toml", "--", "node"])
            .err()
            .unwrap();
        assert!(
            error.starts_with("--transforms: cannot read /no/such/t.toml: "),
            "{error}"
        );
    }
}
