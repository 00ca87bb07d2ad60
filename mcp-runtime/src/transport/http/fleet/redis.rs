//! The shared sessions of a fleet on Redis (feature `sessions-redis`):
//! [`Shared`] over [`RedisSessions`].

use futures_util::future::BoxFuture;

use super::Shared;
use crate::sessions::RedisSessions;

/// [`Shared`] on Redis.
#[derive(Debug)]
pub(crate) struct RedisShared {
    store: RedisSessions,
}

impl RedisShared {
    pub(crate) fn new(store: RedisSessions) -> RedisShared {
        RedisShared { store }
    }
}

impl Shared for RedisShared {
    fn check(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move { self.store.check().await.map_err(|e| e.to_string()) })
    }
}
