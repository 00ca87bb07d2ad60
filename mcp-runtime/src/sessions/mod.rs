//! Shared sessions: the legacy era's sessions (protocol 2024-11-05 to
//! 2025-11-25 over Streamable HTTP) kept where every instance of a fleet
//! finds them, so that any instance serves any request of any session
//! behind a balancer with no stickiness.
//!
//! A session is what `initialize` negotiated and what the client changed
//! since: the protocol version, the client's info and capabilities, the
//! authenticated subject that owns it, the client key its per-client bound
//! counts it under, its log level, its resource subscriptions, and an
//! epoch bumped when its roots changed. That record is the source of
//! truth; each instance keeps a cache of the connections it built from it,
//! checked against the record's revision on every request (one round
//! trip). Messages meant for a session's GET stream are kept in a bounded
//! stream per session and announced to the instance holding that GET
//! stream, so that nothing is delivered twice and nothing is lost while it
//! is connected, and `Last-Event-ID` works on any instance.
//!
//! `RedisSessions` (feature `sessions-redis`) keeps them in Redis. Its
//! keys, with the prefix `mcp` (`RedisSessions::prefix`) and a session id
//! `S`:
//!
//! - `mcp:session:S`: a hash: `v` (protocol version), `ci` (client info and
//!   capabilities, JSON), `own` (owner, if any), `cl` (client key, if any),
//!   `lvl` (log level), `rev` (bumped by every change), `roots` (epoch),
//!   `ttl` (its expiry, ms), `hold` (the instance holding the GET stream,
//!   if one does), `gd` (how far that stream was delivered when its holder
//!   let go), `at` (its last use recorded, ms) and `g` (the grain of that
//!   record: a use less than `g` after `at` is not recorded, so that a
//!   busy session costs Redis one read per request; a hundredth of the
//!   idle timeout, at most 1 s). It expires the idle timeout + 60 s after
//!   its last use recorded: the safety net, should every instance be gone;
//!   the reaper ends idle sessions before (the idle timeout + the grain
//!   after their last use recorded, so that none ends early).
//! - `mcp:session:S:subs`: the subscribed URIs (a set);
//!   `mcp:session:S:ev:NAME`: a stream of events (`0`: the GET stream;
//!   `I.N`: POST stream `N` of instance `I`, copied for a resumption
//!   elsewhere, its entries `0-{event number}`, expiring after 5 minutes),
//!   field `m` the JSON-RPC line, trimmed to about the events kept;
//!   `mcp:session:S:streams`: the names of those streams. All expire with
//!   the hash (and go when the session ends).
//! - `mcp:uri:URI`: the sessions subscribed to `URI` (a set, kept without
//!   expiry; a session ended or found gone leaves it).
//! - `mcp:sessions:idle` (every session by last use recorded, ms), `mcp:sessions:client:CL`
//!   (one client's, expiring with its latest), `mcp:sessions:busy` (sessions
//!   in use, scored by when their lease lapses: an instance renews the
//!   leases of the sessions it serves every 2 s, for 6 s), and
//!   `mcp:sessions:reaper` (which instance reaps this round).
//! - the channels `mcp:instance:I` (what instance `I` must hear: events for
//!   the GET streams it holds, sessions changed or ended, a GET stream
//!   taken by another instance, messages routed to it) and
//!   `mcp:sessions:events` (what every instance hears).
//!
//! Every time is Redis's (`TIME` in the scripts): one clock for the fleet.
//!
//! A server keeps its sessions in a store given to `Server::sessions`
//! (feature `http`), or with `--sessions-redis URL` on the command line of
//! [`Server::run`](crate::Server::run).

use std::fmt;

#[cfg(feature = "sessions-redis")]
pub(crate) mod data;
#[cfg(feature = "sessions-redis")]
mod redis;

#[cfg(feature = "sessions-redis")]
#[doc(hidden)]
pub mod probe;

#[cfg(feature = "sessions-redis")]
pub use redis::RedisSessions;
#[cfg(all(feature = "sessions-redis", feature = "http"))]
pub(crate) use redis::{BUSY_EVERY, reap_every};

/// Where the legacy sessions of a server are kept so that every instance
/// of a fleet serves them: `RedisSessions` (feature `sessions-redis`),
/// given to `Server::sessions`. Sealed: the transport relies on what the
/// store it knows does, so no other type implements it.
pub trait SessionStore: sealed::Sealed + Send + Sync + 'static {}

#[cfg(feature = "sessions-redis")]
impl SessionStore for RedisSessions {}

mod sealed {
    /// Keeps [`SessionStore`](super::SessionStore) to this crate's stores.
    pub trait Sealed {}

    #[cfg(feature = "sessions-redis")]
    impl Sealed for super::RedisSessions {}
}

/// A session store could not do what it was asked: Redis could not be
/// reached, did not answer in time, or answered what is not a session.
/// The sentence names the server (`redis at HOST:PORT: …`), never its URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionStoreError(String);

impl SessionStoreError {
    #[cfg_attr(not(feature = "sessions-redis"), allow(dead_code))]
    pub(crate) fn new(sentence: String) -> SessionStoreError {
        SessionStoreError(sentence)
    }
}

impl fmt::Display for SessionStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SessionStoreError {}
