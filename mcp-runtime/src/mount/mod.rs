//! Mounting other MCP servers (the `client` feature): what an upstream
//! server serves appears in ours, as if it were ours, and every request
//! for it is forwarded. The building block of gateways (an authenticated
//! HTTP front for stdio servers) and chains (one front, several servers,
//! one middleware stack).
//!
//! [`Server::mount`] connects to the upstream, lists its tools, resources,
//! resource templates and prompts, and adds them:
//!
//! | upstream | here |
//! | --- | --- |
//! | tool `read_file` | tool `{prefix}_read_file`, same schemas, annotations, output schema, icons and `_meta` |
//! | prompt `review` | prompt `{prefix}_review`, same arguments |
//! | resource `file:///a.txt`, template `file:///{path}` | the same URI, the same template |
//!
//! (With the prefix `""`, names are unchanged.) A name or URI that
//! something else already serves refuses the mount, naming both. The
//! upstream's instructions are added to ours (introduced by the prefix).
//!
//! An entry that cannot be served here (a tool name over 64 characters
//! once prefixed, a template that is not RFC 6570) is left out with a
//! warning in the log.
//!
//! Forwarding keeps what the client asked for: arguments are validated
//! against the upstream's schema (one using a keyword this validator does
//! not know is served as is and left to the upstream to check), then sent; progress the upstream reports
//! reaches the caller's progress token; a call our client cancels is
//! cancelled upstream; completions of mounted prompts and templates are
//! the upstream's. Middleware ([`Server::layer`]) sees mounted entries
//! like local ones, so one policy covers both.
//!
//! While the server runs, the mount follows the upstream: a list it says
//! changed is listed again and the difference applied (our clients get
//! `list_changed`), its log messages reach our sessions (logger: the
//! prefix), its resource updates reach our subscribers (a subscription is
//! passed on upstream). An upstream that goes away loses its entries (our
//! clients are told) and is connected to again with backoff, from a
//! quarter of a second up to thirty; what it serves then comes back.
//!
//! ```no_run
//! use mcp_runtime::{Server, Upstream};
//!
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     Server::new("front", "1.0.0")
//!         .mount("fs", Upstream::command("npx", ["-y", "@modelcontextprotocol/server-filesystem", "/srv/docs"]))
//!         .await?
//!         .mount("search", Upstream::http("http://127.0.0.1:9000/mcp"))
//!         .await?
//!         .run()
//!         .await
//! }
//! ```

mod entries;
mod error;
mod follow;
mod link;
mod listing;
pub(crate) mod tasks;
mod upstream;

use std::sync::Arc;

use crate::location::Location;
use crate::registry::error::Primitive;
use crate::server::Server;

pub use self::error::MountError;
use self::follow::{Start, follow, prepare};
use self::link::Link;
use self::listing::{Entries, Mounted, fetch};
pub use self::upstream::Upstream;

impl Server {
    /// Mounts the server `upstream` under `prefix`: connects to it now,
    /// lists what it serves and serves that too, forwarding each request
    /// (see the [`mount`](crate::mount) module). `upstream` is an
    /// [`Upstream`] or a connected [`Client`](crate::client::Client).
    ///
    /// Fails if the upstream cannot be reached or listed, or serves a
    /// name or URI that this server already serves (the error names both);
    /// `?` turns the error into an `io::Error` for `main`.
    #[track_caller]
    pub fn mount(
        self,
        prefix: impl Into<String>,
        upstream: impl Into<Upstream>,
    ) -> impl Future<Output = Result<Server, MountError>> + Send {
        let at = Location::caller();
        let (prefix, upstream) = (prefix.into(), upstream.into());
        mount(self, prefix, upstream, at)
    }
}

async fn mount(
    mut server: Server,
    prefix: String,
    mut upstream: Upstream,
    at: Location,
) -> Result<Server, MountError> {
    let label = upstream.label.clone();
    if !prefix
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Err(MountError::InvalidPrefix { prefix });
    }
    if upstream.per_session && !upstream.reconnects() {
        return Err(MountError::PerSessionNeedsConnect { upstream: label });
    }
    let client = match upstream.connected.take() {
        Some(client) => client,
        None => upstream
            .open()
            .await
            .map_err(|source| MountError::Connect {
                upstream: label.clone(),
                source: Box::new(source),
            })?,
    };
    let client = Arc::new(client);
    let link = Arc::new(Link::new(prefix, upstream, server.notifier()));
    // Before listing, so that a change made meanwhile is not missed.
    let notes = client.notifications();
    let entries = fetch(&link, &client, None, at)
        .await
        .map_err(|source| MountError::List {
            upstream: label.clone(),
            source: Box::new(source),
        })?;
    check_collisions(&server, &entries, &label)?;
    if let Some(theirs) = client.instructions() {
        server = with_instructions(server, &link.prefix, theirs);
    }
    prepare(&client).await;
    link.set_shared(Some(Arc::clone(&client)));
    let mounted = Mounted::of(&entries);
    tracing::info!(
        upstream = %label,
        prefix = %link.prefix,
        tools = entries.tools.len(),
        resources = entries.resources.len(),
        prompts = entries.prompts.len(),
        "mounted"
    );
    let handle = server.handle();
    let source = format!("the upstream server `{label}`");
    let Entries {
        tools,
        resources,
        prompts,
    } = entries;
    for (key, (_, tool)) in tools {
        server
            .mounts
            .keys
            .push((Primitive::Tool, key, source.clone()));
        server = server.tool(tool);
    }
    for (key, (_, resource)) in resources {
        server
            .mounts
            .keys
            .push((Primitive::Resource, key, source.clone()));
        server = server.resource(resource);
    }
    for (key, (_, prompt)) in prompts {
        server
            .mounts
            .keys
            .push((Primitive::Prompt, key, source.clone()));
        server = server.prompt(prompt);
    }
    let start = Start {
        client,
        notes,
        mounted,
    };
    let task = tokio::spawn(follow(link, handle, start, at));
    server.mounts.tasks.push(task.abort_handle());
    Ok(server)
}

/// Adds the upstream's instructions to ours: as they are for a mount
/// without prefix, else introduced by the prefix its names carry.
fn with_instructions(server: Server, prefix: &str, theirs: &str) -> Server {
    let theirs = if prefix.is_empty() {
        theirs.to_owned()
    } else {
        format!("Tools and prompts named `{prefix}_...`: {theirs}")
    };
    let joined = match server.instructions_text() {
        Some(ours) => format!("{ours}\n\n{theirs}"),
        None => theirs,
    };
    server.instructions(joined)
}

/// Refuses entries whose key something else serves, naming it. Tools are
/// compared by the names they are served under (after the tool filter
/// and the transforms), so a local tool renamed or hidden does not take
/// its own name from a mount.
fn check_collisions(server: &Server, entries: &Entries, upstream: &str) -> Result<(), MountError> {
    let served = server.served_tool_names();
    let lists = [
        (Primitive::Tool, entries.tools.keys().collect::<Vec<_>>()),
        (Primitive::Resource, entries.resources.keys().collect()),
        (Primitive::Prompt, entries.prompts.keys().collect()),
    ];
    for (kind, keys) in lists {
        for key in keys {
            if let Some(other) = served_by(server, kind, key, &served) {
                return Err(MountError::Collision {
                    kind,
                    key: key.clone(),
                    upstream: upstream.to_owned(),
                    other,
                });
            }
        }
    }
    Ok(())
}

/// What already serves `key` as a `kind`, in words. `served` maps a
/// tool's own name to the one it is served under.
fn served_by(
    server: &Server,
    kind: Primitive,
    key: &str,
    served: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    // Two names are one if they are served as one; a tool left out is
    // no collision.
    let as_served = |name: &str| match kind {
        Primitive::Tool => served(name),
        _ => Some(name.to_owned()),
    };
    let key = &as_served(key)?;
    if let Some((_, _, source)) = server
        .mounts
        .keys
        .iter()
        .find(|(k, existing, _)| *k == kind && as_served(existing).as_ref() == Some(key))
    {
        return Some(source.clone());
    }
    let dynamic = server.dynamic();
    let (attribute, mut defined) = match kind {
        Primitive::Tool => (
            "#[tool]",
            inventory::iter::<crate::tools::def::ToolDef>
                .into_iter()
                .map(|d| (d.name, d.location))
                .chain(dynamic.tools.iter().map(|t| (t.name.as_str(), t.location)))
                .collect::<Vec<_>>(),
        ),
        Primitive::Resource => (
            "#[resource]",
            inventory::iter::<crate::resources::def::ResourceDef>
                .into_iter()
                .map(|d| (d.uri, d.location))
                .chain(
                    dynamic
                        .resources
                        .iter()
                        .map(|r| (r.uri.as_str(), r.location)),
                )
                .collect(),
        ),
        Primitive::Prompt => (
            "#[prompt]",
            inventory::iter::<crate::prompts::def::PromptDef>
                .into_iter()
                .map(|d| (d.name, d.location))
                .chain(
                    dynamic
                        .prompts
                        .iter()
                        .map(|p| (p.name.as_str(), p.location)),
                )
                .collect(),
        ),
    };
    defined.retain(|(name, _)| as_served(name).as_ref() == Some(key));
    let found = defined.first().map(|(_, location)| *location);
    found.map(|location| {
        if location.is_dynamic() {
            format!("the {kind} added at {location}")
        } else {
            format!("the {attribute} at {location}")
        }
    })
}
