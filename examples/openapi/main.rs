//! Any OpenAPI 3.0 or 3.1 document's operations served as MCP tools, with
//! `Server::openapi`: each operation a tool, each call an HTTP request to
//! the API.
//!
//! ```sh
//! # The Petstore the tests use, through the Prism mock server:
//! npx @stoplight/prism-cli@5.14.2 mock tests/openapi/petstore.json -p 4010 &
//! PETSTORE_TOKEN=secret cargo run --example openapi --features openapi -- \
//!     tests/openapi/petstore.json --base-url http://127.0.0.1:4010 \
//!     --bearer-env PETSTORE_TOKEN --skip-unsupported --http 8080
//! ```
//!
//! `--tag`, `--exclude`, `--skip-unsupported` and `--no-output-schemas`
//! choose what is served, `--tool-search` (with `--pin NAME`) lists a few
//! tools and a search tool instead of every operation; credentials come from the environment
//! (`--bearer-env VAR`, `--api-key-env VAR`), never from the command line.
//! The options that are not the example's (`--http`, `--list-tools`, ...)
//! go to `Server::run_with_args`, which serves. `--help` tells the rest.

mod args;

use std::process::ExitCode;

use mcp_runtime::openapi::OpenApi;
use mcp_runtime::{Server, ToolSearch};

use args::{Args, Parsed};

#[tokio::main]
async fn main() -> ExitCode {
    let args = match args::parse(std::env::args_os().skip(1)) {
        Ok(Parsed::Run(args)) => args,
        Ok(Parsed::Help) => {
            print!("{}", args::usage());
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            eprintln!("error: {error}; try --help");
            return ExitCode::from(2);
        }
    };
    match serve(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Reads the document, applies the options, and serves as the server
/// options say.
async fn serve(args: Args) -> Result<(), String> {
    // Credentials first: a missing variable is a usage error, said before
    // anything is read.
    let bearer = match &args.bearer_env {
        Some(name) => Some(args::secret("--bearer-env", name)?),
        None => None,
    };
    let api_key = match &args.api_key_env {
        Some(name) => Some(args::secret("--api-key-env", name)?),
        None => None,
    };
    let mut api = if args.document.starts_with("http://") || args.document.starts_with("https://") {
        OpenApi::from_url(&args.document)
            .await
            .map_err(|error| error.to_string())?
    } else {
        OpenApi::from_file(&args.document)
    };
    if let Some(url) = &args.base_url {
        api = api.base_url(url);
    }
    if let Some(token) = bearer {
        api = api.bearer(token);
    }
    if let Some(key) = api_key {
        api = api.api_key(key);
    }
    if !args.tags.is_empty() {
        api = api.include_tags(args.tags);
    }
    if !args.exclude.is_empty() {
        api = api.exclude_operations(args.exclude);
    }
    if args.skip_unsupported {
        api = api.skip_unsupported();
    }
    if args.no_output_schemas {
        api = api.output_schemas(false);
    }
    let mut server = Server::new("openapi", env!("CARGO_PKG_VERSION"))
        .log_to_stderr()
        .instructions(
            "The operations of an HTTP API, one tool each, from its OpenAPI document: a call \
             makes the request and answers with the API's response.",
        )
        .openapi(api);
    if args.tool_search {
        server = server.tool_search(ToolSearch::new().pin(args.pins));
    }
    server
        .run_with_args(args.server_args)
        .await
        .map_err(|error| error.to_string())
}
