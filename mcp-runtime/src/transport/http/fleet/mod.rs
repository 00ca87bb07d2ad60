//! Legacy sessions shared by a fleet (`Server::sessions`): what the
//! session eras' endpoint ([`legacy`](super::legacy)) consults, through a
//! trait object, so that it reads the same with or without the store's
//! feature, and memory mode (no store, the default) stays as it is.
//!
//! - [`Store`]: the store given to `Server::sessions`, as the transport's
//!   settings keep it (checked at start-up).
//! - `redis` (feature `sessions-redis`): the same on
//!   [`RedisSessions`](crate::sessions::RedisSessions).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use futures_util::future::BoxFuture;

use crate::sessions::SessionStore;

#[cfg(feature = "sessions-redis")]
mod redis;

/// What the transport asks of a store of shared sessions.
pub(crate) trait Shared: fmt::Debug + Send + Sync {
    /// The start-up check: the store answers. The error is a sentence
    /// naming the store's server, never its URL.
    fn check(&self) -> BoxFuture<'_, Result<(), String>>;
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
