//! [`RedisSessions`]: legacy sessions kept in Redis, shared by a fleet
//! (feature `sessions-redis`). The keys are described in the
//! [module's docs](crate::sessions); each operation is one Lua script
//! (`scripts`), its answer read by hand (`decode`); the messages half
//! (streams, holders, routing) is in `messages`.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use redis::aio::ConnectionManager;
use redis::{ErrorKind, ServerErrorKind, Value};
use tokio::sync::broadcast;

use super::SessionStoreError;
use super::data::{Full, Inbound, Limits, Loaded, SessionChange, SessionData};
use crate::redis::{DEFAULT_PREFIX, Link, Listening};

mod decode;
mod messages;
mod scripts;

use scripts::Scripts;

/// How long a busy lease lasts: an instance renews the leases of the
/// sessions it serves every [`BUSY_EVERY`]; a killed instance's lapse
/// within this.
pub(crate) const BUSY_LEASE: Duration = Duration::from_secs(6);

/// How often an instance renews its busy leases.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) const BUSY_EVERY: Duration = Duration::from_secs(2);

/// How much longer than the idle timeout a session's keys live: the
/// safety net, should no instance be left to reap it.
const EXPIRY_MARGIN: Duration = Duration::from_secs(60);

/// The grain of a session's recorded last use: a use less than this after
/// the last one recorded does not refresh its idle order and expiry (one
/// read in Redis, not nine commands, per request of a busy session). A
/// hundredth of the idle timeout, at most 1 s; the reaper waits this much
/// past the idle timeout, so that no session ends early.
pub(crate) fn grain(idle_timeout: Duration) -> Duration {
    (idle_timeout / 100).min(Duration::from_secs(1))
}

/// Keeps legacy sessions in Redis, shared by the instances of a fleet
/// (feature `sessions-redis`).
///
/// ```no_run
/// # fn main() -> Result<(), mcp_runtime::sessions::SessionStoreError> {
/// use std::time::Duration;
/// use mcp_runtime::sessions::RedisSessions;
///
/// let store = RedisSessions::new("redis://127.0.0.1:6379/")?
///     .prefix("weather")
///     .timeout(Duration::from_secs(1));
/// # Ok(()) }
/// ```
///
/// Making one only reads the URL. A server checks that Redis answers
/// before it starts listening, and stops with a sentence naming the
/// server's `host:port` (never the URL, which may hold a password) if it
/// does not. While Redis cannot be reached, every operation fails within
/// [`timeout`](RedisSessions::timeout) (at once when the connection is
/// refused); once it is back, the same store carries on. Clones share the
/// connection and the subscription.
///
/// One Redis server (with replicas if you like): the scripts touch several
/// keys at once, which Redis Cluster does not allow across slots. Redis
/// 6.0 or later, or a server that speaks as it does (Valkey).
#[derive(Clone)]
pub struct RedisSessions {
    inner: Arc<Inner>,
}

struct Inner {
    link: Link,
    prefix: String,
    scripts: Scripts,
    /// What the subscription hears, for [`RedisSessions::listen`].
    inbound: broadcast::Sender<Inbound>,
    listening: Listening,
    /// This store's value in the reaper's lock, for the logs of Redis.
    token: String,
}

impl Inner {
    fn new(link: Link, prefix: String) -> Inner {
        Inner {
            link,
            prefix,
            scripts: Scripts::new(),
            inbound: broadcast::channel(4096).0,
            listening: Listening::default(),
            token: format!("{:08x}", rand_u32()),
        }
    }
}

/// 32 random bits, or the process id where the system has no randomness
/// (the reaper's token only tells instances apart in Redis).
fn rand_u32() -> u32 {
    let mut bytes = [0u8; 4];
    match getrandom::fill(&mut bytes) {
        Ok(()) => u32::from_le_bytes(bytes),
        Err(_) => std::process::id(),
    }
}

impl RedisSessions {
    /// A store on the Redis server at `url` (`redis://[:PASSWORD@]HOST:PORT/[DB]`
    /// or `redis+unix:///PATH`), with the keys under the prefix `mcp`.
    /// Only reads the URL: fails if it is not one (without quoting it),
    /// not if the server is down.
    pub fn new(url: &str) -> Result<RedisSessions, SessionStoreError> {
        let link = Link::new(url).map_err(SessionStoreError::new)?;
        Ok(RedisSessions {
            inner: Arc::new(Inner::new(link, DEFAULT_PREFIX.to_owned())),
        })
    }

    /// Puts every key under `prefix` (default `mcp`): instances that share
    /// a Redis server and a prefix share their sessions.
    pub fn prefix(self, prefix: &str) -> RedisSessions {
        let link = self.inner.link.with_timeout(self.inner.link.timeout());
        RedisSessions {
            inner: Arc::new(Inner::new(link, prefix.to_owned())),
        }
    }

    /// How long connecting to Redis, and each command, may take before the
    /// operation fails (default 2 s).
    pub fn timeout(self, timeout: Duration) -> RedisSessions {
        let link = self.inner.link.with_timeout(timeout);
        RedisSessions {
            inner: Arc::new(Inner::new(link, self.inner.prefix.clone())),
        }
    }

    /// This store on the connection of `tasks` when both go to the same
    /// server, database and user with the same timeout (`--sessions-redis`
    /// and `--tasks-redis` naming one Redis): one connection per process
    /// for both (D12). Otherwise this store as it is. The subscriptions
    /// stay one per store.
    #[cfg(feature = "tasks-redis")]
    // The command line uses it, with HTTP.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn share_connection(self, tasks: &crate::tasks::RedisTasks) -> RedisSessions {
        if !self.inner.link.same(tasks.link()) {
            return self;
        }
        RedisSessions {
            inner: Arc::new(Inner::new(tasks.link().clone(), self.inner.prefix.clone())),
        }
    }

    fn key(&self, rest: &str) -> String {
        format!("{}:{rest}", self.inner.prefix)
    }

    /// A script's answer, on the shared connection with the shared retry
    /// rule (`idempotent`: it may run twice). One `EVALSHA` built straight
    /// from the arguments (no copy of them per call), the script loaded
    /// and run again should Redis not know it (after a restart).
    async fn invoke(
        &self,
        script: &redis::Script,
        args: &[&str],
        idempotent: bool,
        doing: &str,
    ) -> Result<Value, SessionStoreError> {
        let mut evalsha = redis::cmd("EVALSHA");
        evalsha
            .arg(script.get_hash())
            .arg(0)
            .arg(&self.inner.prefix)
            .arg(args);
        let evalsha = &evalsha;
        self.inner
            .link
            .run(
                idempotent,
                doing,
                |mut connection: ConnectionManager| async move {
                    match evalsha.query_async(&mut connection).await {
                        Err(e) if e.kind() == ErrorKind::Server(ServerErrorKind::NoScript) => {
                            script.load_async(&mut connection).await?;
                            evalsha.query_async(&mut connection).await
                        }
                        answer => answer,
                    }
                },
            )
            .await
            .map_err(SessionStoreError::new)
    }

    /// An answer that does not read as expected, for the caller.
    fn unexpected(&self, doing: &str, what: &str) -> SessionStoreError {
        SessionStoreError::new(format!(
            "redis at {}: {doing}: unexpected answer: {what}",
            self.inner.link.addr()
        ))
    }

    /// The start-up check: Redis answers, and has the scripts loaded. The
    /// error names `host:port`, never the URL.
    pub(crate) async fn check(&self) -> Result<(), SessionStoreError> {
        let _: String = self
            .inner
            .link
            .run(true, "connecting", |mut connection| async move {
                redis::cmd("PING").query_async(&mut connection).await
            })
            .await
            .map_err(SessionStoreError::new)?;
        for script in self.inner.scripts.all() {
            let _: String = self
                .inner
                .link
                .run(
                    true,
                    "loading the session scripts",
                    |mut connection| async move { script.load_async(&mut connection).await },
                )
                .await
                .map_err(SessionStoreError::new)?;
        }
        Ok(())
    }

    /// Keeps a new session `id` with `data`, within `limits` (fleet-wide):
    /// at its client's bound, the client's idlest session not busy ends
    /// first; at the fleet's, the idlest of all not busy. `Ok(Err(Full))`
    /// when none could end; else the ids ended to make room.
    pub(crate) async fn create(
        &self,
        id: &str,
        data: &SessionData,
        limits: &Limits,
    ) -> Result<Result<Vec<String>, Full>, SessionStoreError> {
        let doing = format!("creating session {id}");
        let ttl = (limits.idle_timeout + EXPIRY_MARGIN)
            .as_millis()
            .to_string();
        let max = limits.max.max(1).to_string();
        let per_client = limits.per_client.max(1).to_string();
        let grain = grain(limits.idle_timeout).as_millis().to_string();
        let client = serde_json::to_string(&data.client)
            .map_err(|e| self.unexpected(&doing, &e.to_string()))?;
        let level = data.log_level.to_string();
        let roots = data.roots.to_string();
        let mut fields: Vec<&str> = vec![
            "v",
            &data.version,
            "ci",
            &client,
            "lvl",
            &level,
            "roots",
            &roots,
        ];
        if let Some(owner) = &data.owner {
            fields.extend(["own", owner]);
        }
        if let Some(key) = &data.client_key {
            fields.extend(["cl", key]);
        }
        let count = (fields.len() / 2).to_string();
        let mut args: Vec<&str> = vec![
            id,
            &ttl,
            &max,
            &per_client,
            data.client_key.as_deref().unwrap_or(""),
            &grain,
            &count,
        ];
        args.extend(fields);
        args.extend(data.subscriptions.iter().map(String::as_str));
        let answer = self
            .invoke(&self.inner.scripts.create, &args, true, &doing)
            .await?;
        let words = decode::texts(&answer).ok_or_else(|| self.unexpected(&doing, "not a list"))?;
        match words.split_first() {
            Some((ok, ended)) if ok == "ok" => Ok(Ok(ended.to_vec())),
            Some((full, which)) if full == "full" => {
                Ok(Err(match which.first().map(String::as_str) {
                    Some("client") => Full::Client,
                    _ => Full::Server,
                }))
            }
            _ => Err(self.unexpected(&doing, "neither ok nor full")),
        }
    }

    /// The hot path, one round trip: `None` if session `id` is gone; else
    /// its expiry and idle order refreshed, and its revision, holder, and
    /// data unless `known_rev` is its revision.
    pub(crate) async fn load(
        &self,
        id: &str,
        known_rev: Option<u64>,
    ) -> Result<Option<Loaded>, SessionStoreError> {
        // The hot path: the sentence of a failure is made only for one.
        let doing = "loading a session";
        let known = known_rev.map(|rev| rev.to_string()).unwrap_or_default();
        let answer = self
            .invoke(&self.inner.scripts.load, &[id, &known], true, doing)
            .await
            .map_err(|e| SessionStoreError::new(format!("{e} (session {id})")))?;
        let doing = || format!("loading session {id}");
        let items = match answer {
            Value::Nil => return Ok(None),
            Value::Array(items) => items,
            _ => return Err(self.unexpected(&doing(), "not a list")),
        };
        let rev = items.first().and_then(decode::number);
        let holder = items.get(1).and_then(decode::text);
        let (Some(rev), Some(holder)) = (rev, holder) else {
            return Err(self.unexpected(&doing(), "no revision"));
        };
        let data = match (items.get(2), items.get(3)) {
            (Some(hash), Some(subs)) => Some(
                decode::session(hash, subs)
                    .map_err(|why| self.unexpected(&doing(), &format!("not a session: {why}")))?,
            ),
            _ => None,
        };
        Ok(Some(Loaded {
            rev,
            holder: decode::optional(holder),
            data,
        }))
    }

    /// Applies one change to session `id` (its holder is told): its new
    /// revision, or `None` if it is gone.
    pub(crate) async fn change(
        &self,
        id: &str,
        change: SessionChange,
    ) -> Result<Option<u64>, SessionStoreError> {
        let doing = format!("changing session {id}");
        let level;
        let (kind, arg) = match &change {
            SessionChange::LogLevel(l) => {
                level = l.to_string();
                ("lvl", level.as_str())
            }
            SessionChange::Subscribe(uri) => ("sub", uri.as_str()),
            SessionChange::Unsubscribe(uri) => ("unsub", uri.as_str()),
            SessionChange::RootsChanged => ("roots", ""),
        };
        let answer = self
            .invoke(&self.inner.scripts.change, &[id, kind, arg], false, &doing)
            .await?;
        match answer {
            Value::Nil => Ok(None),
            other => decode::number(&other)
                .map(Some)
                .ok_or_else(|| self.unexpected(&doing, "no revision")),
        }
    }

    /// Ends session `id`: every key and index entry of it goes, and the
    /// instance holding its GET stream is told. Whether there was one.
    pub(crate) async fn end(&self, id: &str) -> Result<bool, SessionStoreError> {
        let doing = format!("ending session {id}");
        let answer = self
            .invoke(&self.inner.scripts.end, &[id], true, &doing)
            .await?;
        Ok(decode::number(&answer) == Some(1))
    }

    /// Marks `ids` busy for [`BUSY_LEASE`] (and used now): none of them is
    /// ended to make room or for being idle meanwhile. Returns those that
    /// are gone.
    pub(crate) async fn busy(&self, ids: &[String]) -> Result<Vec<String>, SessionStoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let lease = BUSY_LEASE.as_millis().to_string();
        let mut args: Vec<&str> = vec![&lease];
        args.extend(ids.iter().map(String::as_str));
        let doing = "renewing busy leases";
        let answer = self
            .invoke(&self.inner.scripts.busy, &args, true, doing)
            .await?;
        decode::texts(&answer).ok_or_else(|| self.unexpected(doing, "not a list"))
    }

    /// Lets the leases of `ids` go at once (they are no longer busy here).
    pub(crate) async fn not_busy(&self, ids: &[String]) -> Result<(), SessionStoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let key = self.key("sessions:busy");
        let (key, ids) = (&key, ids);
        let _: i64 = self
            .inner
            .link
            .run(true, "dropping busy leases", |mut connection| async move {
                redis::cmd("ZREM")
                    .arg(key)
                    .arg(ids)
                    .query_async(&mut connection)
                    .await
            })
            .await
            .map_err(SessionStoreError::new)?;
        Ok(())
    }

    /// Ends the sessions unused for longer than `idle_timeout` (and at
    /// most its [`grain`] more) and not busy, unless another instance reaped within the last
    /// [`reap_every`] (one instance acts per round): the ids ended.
    pub(crate) async fn reap(
        &self,
        idle_timeout: Duration,
    ) -> Result<Vec<String>, SessionStoreError> {
        let idle = (idle_timeout + grain(idle_timeout)).as_millis().to_string();
        let lock = reap_every(idle_timeout).as_millis().to_string();
        let doing = "ending idle sessions";
        let answer = self
            .invoke(
                &self.inner.scripts.reap,
                &[&idle, &lock, &self.inner.token],
                true,
                doing,
            )
            .await?;
        decode::texts(&answer).ok_or_else(|| self.unexpected(doing, "not a list"))
    }
}

/// How often the fleet reaps idle sessions: a quarter of the idle timeout,
/// within 50 ms and 30 s (as one instance alone does).
pub(crate) fn reap_every(idle_timeout: Duration) -> Duration {
    (idle_timeout / 4).clamp(Duration::from_millis(50), Duration::from_secs(30))
}

impl fmt::Debug for RedisSessions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisSessions")
            .field("addr", &self.inner.link.addr())
            .field("prefix", &self.inner.prefix)
            .field("timeout", &self.inner.link.timeout())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sendable<T: Send>(_: &T) {}

    /// The operations run inside axum handlers and spawned tasks: their
    /// futures must be `Send`, the store `Send + Sync`.
    #[test]
    fn the_store_and_its_futures_are_send() {
        fn shared<T: Send + Sync + Clone + 'static>() {}
        shared::<RedisSessions>();
        let store = RedisSessions::new("redis://127.0.0.1:1/").unwrap();
        let data = SessionData {
            version: String::new(),
            client: serde_json::Value::Null,
            owner: None,
            client_key: None,
            log_level: 0,
            subscriptions: std::collections::BTreeSet::new(),
            roots: 0,
        };
        let limits = Limits {
            idle_timeout: Duration::from_secs(1),
            max: 1,
            per_client: 1,
        };
        let ids = [String::new()];
        let cursors = [(String::new(), String::new())];
        sendable(&store.check());
        sendable(&store.create("s", &data, &limits));
        sendable(&store.load("s", None));
        sendable(&store.change("s", SessionChange::RootsChanged));
        sendable(&store.end("s"));
        sendable(&store.busy(&ids));
        sendable(&store.not_busy(&ids));
        sendable(&store.reap(Duration::from_secs(1)));
        sendable(&store.append("s", "0", "{}", 1));
        sendable(&store.replay("s", "0", None, 1));
        sendable(&store.hold("s", "i"));
        sendable(&store.release("s", "i", None));
        sendable(&store.delivered("i", &cursors));
        sendable(&store.route("i", "x"));
        sendable(&store.export("s", "i.1", &[(1, "{}")], 1, Duration::from_secs(1), &ids));
        sendable(&store.broadcast("x"));
        sendable(&store.notify_uri("u", "x", 1));
        sendable(&store.listen("i"));
    }

    #[cfg(feature = "tasks-redis")]
    #[test]
    fn a_session_store_shares_the_connection_of_tasks_on_the_same_redis() {
        use crate::tasks::RedisTasks;
        let url = "redis://:pw@127.0.0.1:6390/2";
        let tasks = RedisTasks::new(url).unwrap();
        let shared = RedisSessions::new(url)
            .unwrap()
            .prefix("p")
            .share_connection(&tasks);
        assert!(shared.inner.link.shares_connection(tasks.link()));
        assert_eq!(shared.inner.prefix, "p", "its own prefix kept");
        for other in [
            RedisSessions::new("redis://:pw@127.0.0.1:6390/3").unwrap(),
            RedisSessions::new("redis://:other@127.0.0.1:6390/2").unwrap(),
            RedisSessions::new(url)
                .unwrap()
                .timeout(Duration::from_secs(9)),
        ] {
            let alone = other.share_connection(&tasks);
            assert!(!alone.inner.link.shares_connection(tasks.link()));
        }
    }

    #[test]
    fn the_grain_of_last_use_is_a_hundredth_of_the_idle_timeout_within_1_s() {
        assert_eq!(grain(Duration::from_secs(600)), Duration::from_secs(1));
        assert_eq!(grain(Duration::from_secs(10)), Duration::from_millis(100));
        assert_eq!(grain(Duration::from_millis(300)), Duration::from_millis(3));
    }

    #[test]
    fn the_fleet_reaps_at_the_single_instance_cadence() {
        assert_eq!(
            reap_every(Duration::from_secs(600)),
            Duration::from_secs(30)
        );
        assert_eq!(reap_every(Duration::from_secs(8)), Duration::from_secs(2));
        assert_eq!(
            reap_every(Duration::from_millis(10)),
            Duration::from_millis(50)
        );
    }

    #[test]
    fn debug_shows_the_server_not_the_url() {
        let store = RedisSessions::new("redis://:secret@127.0.0.1:6390/")
            .unwrap()
            .prefix("p");
        let shown = format!("{store:?}");
        assert!(shown.contains("127.0.0.1:6390"), "{shown}");
        assert!(shown.contains("\"p\""), "{shown}");
        assert!(!shown.contains("secret"), "{shown}");
    }

    #[test]
    fn a_bad_url_is_refused_without_quoting_it() {
        let error = RedisSessions::new("http://:secret@host/").unwrap_err();
        assert!(error.to_string().starts_with("not a Redis URL"), "{error}");
        assert!(!error.to_string().contains("secret"), "{error}");
    }
}
