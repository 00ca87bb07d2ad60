//! The Redis plumbing the fleet stores share (`tasks::RedisTasks`,
//! `sessions::RedisSessions`): opening a client from a URL without ever
//! printing the URL (it may hold a password), the one multiplexed
//! connection every call of a store shares and its retry rule, the sentence
//! an error is told in, and the background [`Subscriber`] that hears a
//! store's pub/sub channels.
//!
//! Nothing here knows what a task or a session is: each store owns its
//! keys, its scripts and its error type, and turns the sentences made here
//! into its own errors.

use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use ::redis::{Client, RedisError, RedisResult};
use tokio::sync::watch;

mod subscriber;

pub(crate) use subscriber::{Message, Subscriber, Subscription};

/// How long connecting, or one command, may take unless a store's
/// `timeout` says otherwise.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// The key prefix unless a store's `prefix` says otherwise.
pub(crate) const DEFAULT_PREFIX: &str = "mcp";

/// Milliseconds since the Unix epoch, by this process's clock.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A client for the Redis server at `url`, and its `host:port` (what
/// errors name): only reads the URL. The error is a sentence that says
/// what is wrong with the URL without quoting it.
pub(crate) fn open(url: &str) -> Result<(Client, String), String> {
    let client = Client::open(url).map_err(|e| {
        // The error may quote the URL, password and all: say what is
        // wrong with it without it.
        format!(
            "not a Redis URL (redis://HOST:PORT/): {}",
            e.detail().unwrap_or(e.category())
        )
    })?;
    let addr = client.get_connection_info().addr().to_string();
    Ok((client, addr))
}

/// One store's way to Redis: the client, the server's `host:port` for the
/// errors, the timeout, and the connection every call shares (made on
/// first use, inside the runtime). Clones share the connection: two stores
/// on the same server can share one ([`Link::same`]).
#[derive(Clone)]
pub(crate) struct Link {
    client: Client,
    /// The URL, only to tell whether two links go to the same server as
    /// the same user: never shown (it may hold a password).
    url: Arc<str>,
    /// `host:port` of the server (never the URL: it may hold a password).
    addr: String,
    timeout: Duration,
    connection: Arc<OnceLock<ConnectionManager>>,
}

impl Link {
    /// A link to the server at `url` with [`DEFAULT_TIMEOUT`]; see [`open`].
    pub(crate) fn new(url: &str) -> Result<Link, String> {
        let (client, addr) = open(url)?;
        Ok(Link {
            client,
            url: url.into(),
            addr,
            timeout: DEFAULT_TIMEOUT,
            connection: Arc::default(),
        })
    }

    /// The same server with another timeout, not connected yet.
    pub(crate) fn with_timeout(&self, timeout: Duration) -> Link {
        Link {
            client: self.client.clone(),
            url: Arc::clone(&self.url),
            addr: self.addr.clone(),
            timeout,
            connection: Arc::default(),
        }
    }

    /// Whether `other` goes to the same server, database and user with
    /// the same timeout: then one connection can serve both stores.
    #[cfg(all(feature = "tasks-redis", feature = "sessions-redis"))]
    // The command line shares links, with HTTP.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn same(&self, other: &Link) -> bool {
        self.url == other.url && self.timeout == other.timeout
    }

    /// Whether `other` shares this link's connection.
    #[cfg(all(test, feature = "tasks-redis", feature = "sessions-redis"))]
    pub(crate) fn shares_connection(&self, other: &Link) -> bool {
        Arc::ptr_eq(&self.connection, &other.connection)
    }

    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    pub(crate) fn addr(&self) -> &str {
        &self.addr
    }

    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The sentence for a failure of `doing` (`reading task X`):
    /// `redis at HOST:PORT: doing: error`.
    pub(crate) fn failed(&self, doing: &str, error: &RedisError) -> String {
        format!("redis at {}: {doing}: {error}", self.addr)
    }

    /// The shared connection, set up now if it is not. Setting up does
    /// not connect: the first command does.
    pub(crate) fn connection(&self) -> Result<ConnectionManager, String> {
        if let Some(connection) = self.connection.get() {
            return Ok(connection.clone());
        }
        // No retries inside a call: a call while Redis is down fails at
        // once, and the next call connects again.
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(self.timeout))
            .set_response_timeout(Some(self.timeout))
            .set_number_of_retries(0);
        let made = self
            .client
            .get_connection_manager_lazy(config)
            .map_err(|e| self.failed("setting up the connection", &e))?;
        Ok(self.connection.get_or_init(|| made).clone())
    }

    /// Runs `call` on the shared connection, and once more (on the
    /// connection made again) when it failed before reaching Redis: the
    /// connection was refused, as a connection made while Redis was down
    /// is, or (for a call that may run twice, `idempotent`) it broke, as
    /// the connection to a Redis that restarted does. A timeout is not
    /// tried again: the call stays within the timeout. The error is the
    /// sentence of [`failed`](Link::failed).
    pub(crate) async fn run<T, F, Fut>(
        &self,
        idempotent: bool,
        doing: &str,
        call: F,
    ) -> Result<T, String>
    where
        F: Fn(ConnectionManager) -> Fut,
        Fut: Future<Output = RedisResult<T>>,
    {
        let connection = self.connection()?;
        match call(connection.clone()).await {
            Err(e) if retried(&e, idempotent) => call(connection).await,
            outcome => outcome,
        }
        .map_err(|e| self.failed(doing, &e))
    }
}

/// Whether a call that failed with `error` is tried once more: see
/// [`Link::run`].
fn retried(error: &RedisError, idempotent: bool) -> bool {
    error.is_connection_refusal()
        || (idempotent && error.is_unrecoverable_error() && !error.is_timeout())
}

/// A store's running [`Subscriber`], if it runs: started on first use
/// inside a tokio runtime, stopped when the store is dropped or its
/// settings change.
#[derive(Default)]
pub(crate) struct Listening {
    running: Mutex<Option<Running>>,
}

struct Running {
    task: tokio::task::AbortHandle,
    state: watch::Receiver<Subscription>,
}

impl Listening {
    /// The subscription's state, started now with `subscriber` (called only
    /// then) if it is not running; `None` outside a tokio runtime.
    pub(crate) fn start(
        &self,
        subscriber: impl FnOnce(watch::Sender<Subscription>) -> Subscriber,
    ) -> Option<watch::Receiver<Subscription>> {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(running) = &*running {
            return Some(running.state.clone());
        }
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let (report, state) = watch::channel(Subscription::Starting);
        let task = runtime.spawn(subscriber(report).run()).abort_handle();
        *running = Some(Running {
            task,
            state: state.clone(),
        });
        Some(state)
    }

    /// Waits, at most `timeout`, for the first attempt of a subscription
    /// started with [`start`](Listening::start) to end.
    pub(crate) async fn first_attempt(
        state: Option<watch::Receiver<Subscription>>,
        timeout: Duration,
    ) {
        let Some(mut state) = state else {
            return;
        };
        let first = state.wait_for(|state| *state != Subscription::Starting);
        let _ = tokio::time::timeout(timeout, first).await;
    }

    /// Stops the subscription if it runs.
    pub(crate) fn stop(&mut self) {
        let running = self.running.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(running) = running.take() {
            running.task.abort();
        }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        // The subscription's task would otherwise run on, alone.
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_url_is_refused_without_quoting_it() {
        let Err(why) = Link::new("http://:secret@example.com/") else {
            panic!("an http URL is not a Redis URL");
        };
        assert!(why.starts_with("not a Redis URL"), "{why}");
        assert!(!why.contains("secret"), "{why}");
    }

    #[test]
    fn errors_name_the_server_and_never_the_password() {
        let link = Link::new("redis://:secret@127.0.0.1:1/").unwrap();
        assert_eq!(link.addr(), "127.0.0.1:1");
        let error = RedisError::from(std::io::Error::from(std::io::ErrorKind::ConnectionRefused));
        let sentence = link.failed("connecting", &error);
        assert!(
            sentence.starts_with("redis at 127.0.0.1:1: connecting: "),
            "{sentence}"
        );
        assert!(!sentence.contains("secret"), "{sentence}");
    }

    #[test]
    fn a_refused_connection_is_tried_again_a_broken_one_only_when_idempotent() {
        let refused = RedisError::from(std::io::Error::from(std::io::ErrorKind::ConnectionRefused));
        assert!(retried(&refused, false));
        let broken = RedisError::from(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert!(retried(&broken, true));
        assert!(!retried(&broken, false));
        let timeout = RedisError::from(std::io::Error::from(std::io::ErrorKind::TimedOut));
        assert!(!retried(&timeout, true));
    }
}
