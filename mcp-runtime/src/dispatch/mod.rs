//! One client connection, from the lines a transport reads to the messages
//! it writes. From the top down:
//!
//! - `serve`: the lines a transport hands a connection, each message they
//!   hold, and each request sent to its era; `batch`: JSON-RPC batches
//!   (protocol 2025-03-26).
//! - The two eras, sibling rooms that never import each other:
//!   `connection`, legacy sessions (up to 2025-11-25: the lifecycle gate
//!   and `initialize`), and `modern`, the 2026-07-28 era (no session; each
//!   request checked by its `_meta`, `server/discover`), with `listen`,
//!   its `subscriptions/listen`.
//! - What both eras route to: `route`, routing by method; `layered`, the
//!   path through the server's middleware; `resources` and `prompts`, the
//!   methods that run as calls; `logging`, `logging/setLevel`; `calls`,
//!   the calls in flight and waiting.
//! - What all of them stand on: `state`, the [`Connection`] itself;
//!   `frame`, a request and where its answer goes; `reply`, replies and
//!   the refusals both eras give; `tails`, what a 2026-07-28 result adds;
//!   `core`, what every connection of a server shares; `live`, what it
//!   serves right now, paged by `pages`; `incoming`, what a transport hands
//!   a connection.
//! - `fleet`: what a fleet's HTTP transport calls to serve a legacy
//!   session from what its store keeps (`Connection::resume`).

mod batch;
mod calls;
mod connection;
mod core;
// Called by the fleet's session glue in `transport/http` (features `http`
// and `sessions-redis`), which needs only some of its checks (the tests
// use the rest).
#[cfg_attr(not(test), allow(dead_code))]
mod fleet;
mod frame;
mod incoming;
mod job;
mod layered;
mod listen;
mod live;
mod logging;
mod modern;
mod pages;
mod prompts;
mod reply;
mod resources;
mod route;
mod serve;
#[cfg(feature = "skills")]
mod skills;
mod state;
mod tails;
mod task_calls;
mod tasks;

pub(crate) use self::core::{Limits, ServerCore};
// `Routed` is named by the HTTP transport; `SessionParts` by a fleet's.
#[cfg_attr(
    not(all(feature = "http", feature = "sessions-redis")),
    allow(unused_imports)
)]
pub(crate) use self::fleet::{Routed, SessionParts};
pub(crate) use self::incoming::{Incoming, for_each_line, lines_of};
pub(crate) use self::live::Live;
pub(crate) use self::live::Snapshot;
#[cfg(feature = "http")]
pub(crate) use self::modern::{claims_modern, declared_version, meta_in};
pub(crate) use self::serve::serve;
pub(crate) use self::state::Connection;
/// The 2026-07-28 era's `_meta` keys, which the client sends and reads too.
#[cfg(feature = "client")]
pub(crate) use self::{
    modern::{CLIENT_CAPABILITIES, LOG_LEVEL, PROTOCOL_VERSION},
    tails::SERVER_INFO,
};
