//! The gateway: serves stdio MCP servers, which were never written for the
//! network, and Streamable HTTP ones (protected by OAuth or not), over
//! Streamable HTTP, with OAuth and a rate limit per client.
//!
//! ```sh
//! cargo run --example gateway --features client -- --http 127.0.0.1:8080 -- npx -y @modelcontextprotocol/server-everything
//! cargo run --example gateway --features client,auth -- --http 127.0.0.1:8080 \
//!     --auth-issuer https://auth.example.com --auth-audience https://mcp.example.com/mcp \
//!     --rate-limit 5 \
//!     -- --name files npx -y @modelcontextprotocol/server-filesystem /srv/shared \
//!     -- --name weather ./weather
//! ```
//!
//! A Streamable HTTP server is mounted by its URL, and one that is an OAuth
//! protected resource with OAuth options (the gateway's own identity: a
//! user's sign-in in a browser at startup, or client credentials; the
//! tokens of the gateway's own clients are never passed on):
//!
//! ```sh
//! TRACKER_SECRET=... cargo run --example gateway --features client -- --http 127.0.0.1:8080 \
//!     -- --name tracker --url https://mcp.tracker.example/mcp \
//!        --oauth-client-id gateway --oauth-client-secret-env TRACKER_SECRET
//! ```
//!
//! `--transforms FILE` changes the tools served (`Server::transform`; the
//! file's format is in `transforms.rs`), and `--tool-search` with `--pin`
//! and `--pin-tag` turns on progressive discovery (`Server::tool_search`):
//!
//! ```sh
//! cargo run --example gateway --features client -- --http 127.0.0.1:8080 \
//!     --transforms transforms.toml --tool-search --pin say --pin-tag core \
//!     -- npx -y @modelcontextprotocol/server-everything
//! ```
//!
//! Each upstream is mounted with `Server::mount` (`Upstream::command`, or
//! `Upstream::http` with `Upstream::oauth`):
//! one process per upstream, shared by every client session, respawned if
//! it dies; `--per-session` gives each session its own. `--help` tells the
//! rest; the options before the first `--` that are not the gateway's
//! (`--http`, `--stateless`, `--auth-issuer`, `--auth-audience`, ...) go to
//! `Server::run_with_args`, which serves.

mod args;
#[path = "../tool_tables.rs"]
mod tool_tables;
mod transforms;

#[path = "../upstream_oauth.rs"]
mod upstream_oauth;

#[path = "../middleware/rate_limit.rs"]
mod rate_limit;

use std::process::ExitCode;

use governor::Quota;
use mcp_runtime::middleware::{McpRequest, McpService};
use mcp_runtime::{RegistryError, Server, Upstream};
use tower::{Layer, ServiceExt};

use args::{Args, Parsed, UpstreamSource};
use rate_limit::RateLimitLayer;

/// A boxed, sendable future (what `rate_limit.rs` returns).
type BoxFuture<T> = std::pin::Pin<Box<dyn Future<Output = T> + Send>>;

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
    match serve(*args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Mounts every upstream, then serves as the server options say.
async fn serve(args: Args) -> std::io::Result<()> {
    let mut server = Server::new("gateway", env!("CARGO_PKG_VERSION"))
        .log_to_stderr()
        .instructions(
            "A gateway: the tools, resources and prompts of the servers behind it. \
         With several servers, each one's tools and prompts are prefixed with its name.",
        );
    if let Some(per_second) = args.rate_limit {
        server = server.layer(tower::layer::layer_fn(move |inner| {
            calls_only(RateLimitLayer::new(Quota::per_second(per_second)), inner)
        }));
    }
    for upstream in args.upstreams {
        let mut mounted = match &upstream.source {
            UpstreamSource::Command { program, args } => Upstream::command(program, args),
            UpstreamSource::Url { url, oauth } => {
                let mut mounted = Upstream::http(url.clone());
                if let Some(settings) = oauth {
                    // The gateway's own identity for this upstream, never
                    // the token a client of the gateway presented.
                    let name = match upstream.prefix.as_str() {
                        "" => url.as_str(),
                        prefix => prefix,
                    };
                    let oauth = settings.build(name).await.map_err(std::io::Error::other)?;
                    tracing::info!(
                        prefix = %upstream.prefix,
                        url = %url,
                        grant = ?settings.grant(),
                        "OAuth on: the gateway authorizes as itself"
                    );
                    mounted = mounted.oauth(oauth);
                }
                mounted
            }
        }
        .label(&upstream.label);
        if args.per_session {
            mounted = mounted.per_session();
        }
        if let Some(bytes) = args.max_message_size {
            mounted = mounted.max_message_size(bytes);
        }
        mounted = mounted.tags(upstream.tags);
        tracing::info!(prefix = %upstream.prefix, upstream = %upstream.label, "mounting");
        server = server.mount(upstream.prefix, mounted).await?;
    }
    // A transform that names no tool served now is likely a typo; it
    // applies all the same to a tool a server adds later, hence `optional`.
    if let Ok(registry) = server.registry() {
        for transform in &args.transforms {
            if registry.get(transform.name()).is_none() {
                tracing::warn!(
                    "--transforms names `{}`, which no server serves (yet): tools are named as the gateway serves them, prefix included",
                    transform.name()
                );
            }
        }
    }
    for transform in args.transforms {
        server = server.transform(transform.optional());
    }
    if let Some(search) = args.tool_search {
        server = server.tool_search(search);
    }
    // Named by the file rather than by the line of this file that added it.
    if let Err(RegistryError::InvalidTransform { tool, reason, .. }) = server.registry() {
        return Err(std::io::Error::other(format!(
            "--transforms: the table of `{tool}` cannot apply: {reason}"
        )));
    }
    server.run_with_args(args.server_args).await
}

/// `limit` applied to `tools/call` alone: lists, reads, pings and the
/// handshake are not calls and never count against a client.
fn calls_only<L>(limit: L, inner: McpService) -> McpService
where
    L: Layer<McpService>,
    L::Service: tower::Service<
            McpRequest,
            Response = mcp_runtime::serde_json::Value,
            Error = tower::BoxError,
        > + Clone
        + Send
        + Sync
        + 'static,
    <L::Service as tower::Service<McpRequest>>::Future: Send + 'static,
{
    let limited = McpService::new(limit.layer(inner.clone()));
    McpService::new(tower::service_fn(move |request: McpRequest| {
        let next = if request.method() == "tools/call" {
            limited.clone()
        } else {
            inner.clone()
        };
        next.oneshot(request)
    }))
}
