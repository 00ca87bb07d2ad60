//! The openapi example's command line: its own options, wherever they stand,
//! and the rest for `Server::run_with_args`.

use std::ffi::OsString;

/// What the command line asks for.
pub enum Parsed {
    Run(Args),
    Help,
}

/// A command line to run.
#[derive(Debug, Default, PartialEq)]
pub struct Args {
    /// The OpenAPI document: a file (JSON or YAML), or an http(s) URL.
    pub document: String,
    /// `--base-url URL`: where the API is; else the document's `servers`.
    pub base_url: Option<String>,
    /// `--bearer-env VAR`: the bearer token, read from this variable.
    pub bearer_env: Option<String>,
    /// `--api-key-env VAR`: the API key, read from this variable.
    pub api_key_env: Option<String>,
    /// `--tag T`, repeated: serve only the operations with one of these tags.
    pub tags: Vec<String>,
    /// `--exclude OP`, repeated: leave these operations out.
    pub exclude: Vec<String>,
    /// `--skip-unsupported`: serve the rest when an operation cannot be.
    pub skip_unsupported: bool,
    /// `--no-output-schemas`: tools without output schemas.
    pub no_output_schemas: bool,
    /// `--tool-search`: progressive discovery (`Server::tool_search`).
    pub tool_search: bool,
    /// `--pin NAME`, repeated: tools listed beside the search tool.
    pub pins: Vec<String>,
    /// What is left, for `Server::run_with_args`.
    pub server_args: Vec<OsString>,
}

/// The server options (`Server::run_with_args`) that take a value: the
/// word after one of them is its value, never the document.
const SERVER_OPTIONS_WITH_VALUE: [&str; 6] = [
    "--http",
    "--auth-issuer",
    "--auth-audience",
    "--tasks-redis",
    "--task-lease",
    "--sessions-redis",
];

/// The usage, for `--help`.
pub fn usage() -> String {
    format!(
        "openapi {version}: serves the operations of an OpenAPI 3.0 or 3.1 document as MCP tools

usage: openapi DOCUMENT [OPTIONS]

DOCUMENT is a file (JSON or YAML) or an http:// or https:// URL. Each
operation is a tool named after its operationId; a call makes the HTTP
request and answers the JSON response as structured content, and any other
status as an error result with the status and the body.

Options:
      --base-url URL        where the API is, such as http://127.0.0.1:4010;
                            default: the document's first `servers` entry
      --bearer-env VAR      send the bearer token in the environment
                            variable VAR (never on the command line)
      --api-key-env VAR     send the API key in the environment variable VAR,
                            where the document's apiKey scheme says
      --tag TAG             serve only the operations tagged TAG (repeat for
                            several tags)
      --exclude OPERATION   leave out an operation, by operationId or as
                            \"METHOD /path\" (repeat for several)
      --skip-unsupported    log the operations that cannot be served and
                            serve the rest; default: refuse to start, naming
                            the first one
      --no-output-schemas   no output schemas (for APIs whose answers drift
                            from their document: clients check them)
      --tool-search         progressive discovery: tools/list shows the
                            pinned tools, search_tools and call_tool; every
                            tool stays callable (for documents of many
                            operations)
      --pin TOOL            with --tool-search, list this tool too, by its
                            served name (repeat for several)
  -h, --help                print this help and exit

Server options (as for every mcp-runtime server):
      --http ADDR           serve Streamable HTTP at http://ADDR/mcp; ADDR is
                            HOST:PORT, or a port alone for 127.0.0.1:PORT.
                            Without it, the tools are served on stdin and
                            stdout
      --list-tools          print the tools, as served, and exit
  -V, --version             print the name and version and exit

Credentials go to the base URL's host only, over https (or plain http to
loopback).

Example (the tests' Petstore, through the Prism mock server):
  npx @stoplight/prism-cli@5.14.2 mock tests/openapi/petstore.json -p 4010 &
  PETSTORE_TOKEN=secret cargo run --example openapi --features openapi -- \\
      tests/openapi/petstore.json --base-url http://127.0.0.1:4010 \\
      --bearer-env PETSTORE_TOKEN --skip-unsupported --http 8080

The log goes to stderr (RUST_LOG, default info).
",
        version = env!("CARGO_PKG_VERSION")
    )
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Parsed, String> {
    let mut args = args.into_iter();
    let mut parsed = Args::default();
    let mut document = None;
    while let Some(arg) = args.next() {
        let Some(word) = arg.to_str() else {
            // Not UTF-8: not ours; a document path must be text.
            parsed.server_args.push(arg);
            continue;
        };
        let (option, inline) = match word.split_once('=') {
            Some((option, value)) if option.starts_with("--") => (option, Some(value.to_owned())),
            _ => (word, None),
        };
        let mut value = |example: &str| -> Result<String, String> {
            match inline.clone() {
                Some(value) if !value.is_empty() => Ok(value),
                Some(_) => Err(format!("{option} needs a value: {option} {example}")),
                None => args
                    .next()
                    .map(|value| value.to_string_lossy().into_owned())
                    .filter(|value| !value.starts_with("--"))
                    .ok_or_else(|| format!("{option} needs a value: {option} {example}")),
            }
        };
        match option {
            "-h" | "--help" => return Ok(Parsed::Help),
            "--base-url" => {
                let url = value("http://127.0.0.1:4010")?;
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(format!(
                        "--base-url {url} is not an http:// or https:// URL: give where the API \
                         answers, such as --base-url http://127.0.0.1:4010"
                    ));
                }
                parsed.base_url = Some(url);
            }
            "--bearer-env" => parsed.bearer_env = Some(value("API_TOKEN")?),
            "--api-key-env" => parsed.api_key_env = Some(value("API_KEY")?),
            "--tag" => parsed.tags.push(value("pets")?),
            "--exclude" => parsed.exclude.push(value("deletePet")?),
            "--pin" => parsed.pins.push(value("users_get-authenticated")?),
            "--skip-unsupported" | "--no-output-schemas" | "--tool-search" if inline.is_some() => {
                return Err(format!("{option} takes no value"));
            }
            "--skip-unsupported" => parsed.skip_unsupported = true,
            "--no-output-schemas" => parsed.no_output_schemas = true,
            "--tool-search" => parsed.tool_search = true,
            _ if SERVER_OPTIONS_WITH_VALUE.contains(&option) => {
                parsed.server_args.push(arg);
                if inline.is_none()
                    && let Some(value) = args.next()
                {
                    parsed.server_args.push(value);
                }
            }
            _ if word.starts_with('-') => parsed.server_args.push(arg),
            _ => {
                if let Some(first) = &document {
                    return Err(format!(
                        "two documents, {first} and {word}: this serves one OpenAPI document (or \
                         is `{word}` the value of an option?)"
                    ));
                }
                document = Some(word.to_owned());
            }
        }
    }
    if !parsed.pins.is_empty() && !parsed.tool_search {
        return Err("--pin lists a tool beside the search tool: give --tool-search too".to_owned());
    }
    parsed.document = document.ok_or(
        "no OpenAPI document: give its file or URL first, such as \
         `openapi tests/openapi/petstore.json --base-url http://127.0.0.1:4010`",
    )?;
    Ok(Parsed::Run(parsed))
}

/// The value of the environment variable `name`, given by `option`.
pub fn secret(option: &str, name: &str) -> Result<String, String> {
    match std::env::var(name) {
        Ok(value) if !value.is_empty() => Ok(value),
        Ok(_) => Err(format!(
            "the environment variable {name} ({option}) is empty"
        )),
        Err(std::env::VarError::NotPresent) => Err(format!(
            "the environment variable {name} ({option}) is not set: set it to the credential, \
             such as `{name}=... openapi ...`"
        )),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!(
            "the environment variable {name} ({option}) is not UTF-8"
        )),
    }
}
