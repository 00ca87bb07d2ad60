//! Legacy sessions shared by a fleet (`Server::sessions`): what the
//! session eras' endpoint ([`legacy`](super::legacy)) consults, through
//! trait objects, so that it reads the same with or without the store's
//! feature, and memory mode (no store, the default) stays as it is.
//!
//! In a fleet the store is the source of truth and the endpoint's own
//! [`Sessions`] is this instance's cache of the sessions it served: each
//! request loads its session's record (one round trip), and uses the
//! cached connection when the record's revision is the one it knows,
//! refreshes it when it is newer, and resumes the session from the record
//! when nothing is cached. What the client changes is written through
//! before the response goes. The cache's own idle timeout and bounds only
//! ever drop cached connections, never a stored session.
//!
//! - [`Store`]: the store given to `Server::sessions`, as the transport's
//!   settings keep it (checked at start-up), and [`Shared`], what makes a
//!   [`Fleet`] of it for one endpoint;
//! - [`Fleet`]: what the endpoint asks on a request's way (what it knows
//!   of each session it caches is the session's
//!   [`Stored`](super::session::Stored));
//! - `redis` (feature `sessions-redis`): the same on
//!   [`RedisSessions`](crate::sessions::RedisSessions), with `parts` (the
//!   stored record as a connection's parts and back), `routing` (answers
//!   and cancellations for other instances), `sink` (what belongs to no
//!   request, appended to the session's GET stream in the store),
//!   `stream` (the GET stream, sent by the instance holding it), `export`
//!   (a POST's stream resumed on another instance than its own), `bus`
//!   (the notifier's events told to every instance) and `inbound` (what
//!   this instance hears, and its lease and reaping ticks).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use axum::body::Body;
use axum::http::Response;
use futures_util::future::BoxFuture;

use super::HttpConfig;
use super::client::Client;
use super::session::{Active, Session};
use super::sessions::{Full, NoRandomness, Sessions};
use crate::dispatch::{Connection, ServerCore};
use crate::jsonrpc::Line;
use crate::sessions::SessionStore;

#[cfg(feature = "sessions-redis")]
mod bus;
#[cfg(feature = "sessions-redis")]
mod export;
#[cfg(feature = "sessions-redis")]
mod inbound;
#[cfg(feature = "sessions-redis")]
mod parts;
#[cfg(feature = "sessions-redis")]
mod redis;
#[cfg(feature = "sessions-redis")]
mod routing;
#[cfg(feature = "sessions-redis")]
mod sink;
#[cfg(feature = "sessions-redis")]
mod stream;

/// A refusal, as the response to send (a 503 when the store cannot be
/// reached).
pub(crate) type Refused = Box<Response<Body>>;

/// What the transport asks of a store of shared sessions.
pub(crate) trait Shared: fmt::Debug + Send + Sync {
    /// The start-up check: the store answers. The error is a sentence
    /// naming the store's server, never its URL.
    fn check(&self) -> BoxFuture<'_, Result<(), String>>;

    /// The fleet one endpoint serves through, with `cache` its cache of
    /// sessions. Its background work starts with the first request.
    fn fleet(
        &self,
        core: Arc<ServerCore>,
        cache: Arc<Sessions>,
        config: &HttpConfig,
    ) -> Arc<dyn Fleet>;
}

/// What the session eras' endpoint asks of the fleet on a request's way.
pub(crate) trait Fleet: Send + Sync {
    /// Until this instance listens to the fleet (its channels, the
    /// notifier's events, the lease and reaping ticks), what starts it;
    /// `None` once it does. Every request of either era awaits it, so
    /// that an instance serving only 2026-07-28 clients hears the fleet's
    /// events too.
    fn start(&self) -> Option<BoxFuture<'_, ()>>;

    /// A new session for `initialize` from `client`, not yet kept (see
    /// [`Fleet::create`]), whose messages outside requests go to the store.
    fn new_session(&self, client: Option<Client>) -> Result<Arc<Session>, NoRandomness>;

    /// GET: `session`'s stream, taken over from whichever instance held
    /// it, from after the entry `last_event_id` names (else from where it
    /// was delivered); or a POST's stream another instance keeps, which
    /// `last_event_id` names. `None` for any other id (a POST's stream
    /// of this instance: resumed as in memory mode).
    fn get<'a>(
        &'a self,
        session: Arc<Session>,
        last_event_id: Option<&'a str>,
        prime: bool,
    ) -> Option<BoxFuture<'a, Response<Body>>>;

    /// The session `id` names, as the store has it: the cached one (brought
    /// up to date if it changed through another instance), or one resumed
    /// from the record. `Ok(None)` when the store has no such session.
    fn session<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Active>, Refused>>;

    /// Keeps in the store `session`, which `initialize` just started here
    /// (the fleet's bounds apply: `Ok(Err(Full))` when no room could be
    /// made), and watches what its client changes from now on.
    fn create<'a>(
        &'a self,
        session: &'a Arc<Session>,
    ) -> BoxFuture<'a, Result<Result<(), Full>, Refused>>;

    /// Writes to the store what the client changed while its message was
    /// dispatched by `session`.
    fn write_through<'a>(&'a self, session: &'a Session) -> BoxFuture<'a, Result<(), Refused>>;

    /// Ends session `id` in the store (its GET stream's holder is told).
    fn end<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), Refused>>;

    /// When `line` is the client's answer to a question another instance
    /// asked, passes it on there: what to answer the POST with (202, or a
    /// 503 when that instance is gone). `None` for any other message.
    fn pass_on<'a>(
        &'a self,
        session: &'a Session,
        line: &'a Line<'a>,
    ) -> Option<BoxFuture<'a, Response<Body>>>;

    /// When `line` cancels a request whose call does not run in
    /// `connection` (it may run on another instance), what tells the other
    /// instances, to await once it was dispatched here.
    fn cancel_elsewhere(
        &self,
        session: &Session,
        connection: &Connection,
        line: &Line<'_>,
    ) -> Option<BoxFuture<'static, ()>>;
}

/// The store of `Server::sessions`, and who named it (for the start-up
/// error: `Server::sessions`, or `--sessions-redis` on the command line).
#[derive(Clone, Debug)]
pub(crate) struct Store {
    pub(crate) shared: Arc<dyn Shared>,
    pub(crate) named_by: &'static str,
}

impl Store {
    /// The transport's view of `store`.
    pub(crate) fn new(store: impl SessionStore) -> Store {
        Store {
            shared: shared(Box::new(store)),
            named_by: "Server::sessions",
        }
    }

    /// The start-up check, its error the sentence a server that cannot
    /// start says (after `cannot start the MCP server: `).
    pub(crate) async fn check(&self) -> Result<(), String> {
        self.shared
            .check()
            .await
            .map_err(|error| format!("{}: {error}", self.named_by))
    }
}

/// The store behind a [`SessionStore`]: the trait is sealed, so it is one
/// of this crate's.
fn shared(store: Box<dyn Any + Send + Sync>) -> Arc<dyn Shared> {
    #[cfg(feature = "sessions-redis")]
    if let Ok(store) = store.downcast::<crate::sessions::RedisSessions>() {
        return Arc::new(redis::RedisShared::new(*store));
    }
    #[cfg(not(feature = "sessions-redis"))]
    let _ = store;
    unreachable!("SessionStore is sealed: every store implementing it is handled here")
}
