//! [`RedisTasks`]: tasks kept in Redis, so that every instance of a fleet
//! sees every task, its result outlives the instance that ran it, and a
//! change made on one instance is announced to all (feature `tasks-redis`).
//!
//! The record is JSON under one key that Redis itself deletes at the end of
//! the task's TTL. A change reads the record, applies
//! [`TaskRecord::apply`] here (the one state machine), and writes the new
//! text back with a Lua script that compares it with what was read first
//! (compare-and-set, retried when another instance changed it meanwhile):
//! this works on the one multiplexed connection every call shares, where
//! `WATCH`/`MULTI` would not. Announcements go out with `PUBLISH` from the
//! same script, and come in through one subscribed connection per store
//! (`events`).

use std::fmt;
use std::future::Future;
use std::time::Duration;

use redis::aio::ConnectionManager;
use redis::{AsyncCommands, RedisResult, Script};
use tokio::sync::broadcast;

use super::id::now_ms;
use super::record::{Change, TaskRecord};
use super::store::{StoreError, StoreFuture, TaskEvents, TaskStore, Updated};
use crate::redis::{DEFAULT_PREFIX, Link, Listening};

mod events;

use events::Events;

/// How many times a change is tried again when another instance changed
/// the same task between the read and the write.
const MAX_RACES: usize = 32;

/// How long the ids of changed tasks are kept in the changes set, for a
/// subscription that comes back to replay what it missed.
const KEEP_CHANGES_MS: u64 = 5 * 60_000;

/// Writes a new record: its key with its expiry, its place in the owner's
/// list (whose own expiry is pushed to the latest of its tasks'), and its
/// lease. A record already expired is written, and gone at once.
///
/// KEYS: task, list, leases. ARGV: json, expires_ms, list member,
/// lease until_ms or "", id, now_ms.
const CREATE: &str = r"
redis.call('SET', KEYS[1], ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
local left = tonumber(ARGV[2]) - tonumber(ARGV[6])
if left > 0 then
  redis.call('ZADD', KEYS[2], 0, ARGV[3])
  local ttl = redis.call('PTTL', KEYS[2])
  if ttl == -1 or ttl < left then
    redis.call('PEXPIREAT', KEYS[2], ARGV[2])
  end
  if ARGV[4] ~= '' then
    redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5])
  end
end
return 1
";

/// Replaces a record if it is still the text read before the change:
/// 0 gone, 1 changed meanwhile (try again), 2 written. Keeps the key's
/// expiry, keeps the lease index in step, and, unless told not to (a
/// renewal), publishes the id and notes it in the changes set (for a
/// subscription that was down meanwhile), which keeps the last
/// `KEEP_CHANGES_MS`.
///
/// KEYS: task, leases, changes. ARGV: old json, new json, publish
/// "1"/"0", lease until_ms or "", id, channel, now_ms, KEEP_CHANGES_MS.
const COMPARE_AND_SET: &str = r"
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
if current ~= ARGV[1] then return 1 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
if ARGV[4] == '' then
  redis.call('ZREM', KEYS[2], ARGV[5])
else
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
end
if ARGV[3] == '1' then
  local now = tonumber(ARGV[7])
  local keep = tonumber(ARGV[8])
  redis.call('ZADD', KEYS[3], now, ARGV[5])
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. (now - keep))
  redis.call('PEXPIRE', KEYS[3], keep)
  redis.call('PUBLISH', ARGV[6], ARGV[5])
end
return 2
";

/// Keeps tasks in Redis, for one server or a fleet of its instances
/// (feature `tasks-redis`).
///
/// ```no_run
/// # fn main() -> Result<(), mcp_runtime::tasks::StoreError> {
/// use mcp_runtime::tasks::RedisTasks;
///
/// let store = RedisTasks::new("redis://127.0.0.1:6379/")?.prefix("weather");
/// # Ok(()) }
/// ```
///
/// Making one does not connect: the server starts, and serves plain calls,
/// while Redis is down. Each call connects if it is not connected (the
/// connection is shared by all calls, and made again when Redis went
/// away); while Redis cannot be reached, every method fails within
/// [`timeout`](RedisTasks::timeout) (at once when the connection is
/// refused) with a [`StoreError`] that names the server and what failed.
///
/// # Keys
///
/// With the prefix `mcp` ([`prefix`](RedisTasks::prefix)):
///
/// - `mcp:task:ID`: the task's record, as JSON; Redis deletes it at the
///   end of the task's TTL (`PEXPIREAT` its creation + TTL).
/// - `mcp:tasks:list:ERA:OWNER` (`ERA` is `modern` or `legacy`; `OWNER` is
///   `anon`, or `owner:` and the caller's subject): a sorted set of
///   `CREATED_MS:ID` (the time zero-padded to 20 digits) that lists a
///   caller's tasks oldest first; it expires with its last task, and an
///   id whose task expired is dropped from it when a list meets it.
/// - `mcp:tasks:leases`: a sorted set of the ids of running tasks, scored
///   by when their lease runs out; an id is dropped once its task ended
///   or expired.
/// - the channel `mcp:tasks:events`: the id of each task that changed (a
///   lease renewal excepted), published by the instance that changed it.
/// - `mcp:tasks:changes`: the same ids, scored by when they changed, kept
///   for 5 minutes: what a subscription that was down replays.
///
/// # What survives what
///
/// Tasks live in Redis: they outlive the instance that made them, and any
/// instance sharing the Redis server and the prefix sees them. Whether
/// they outlive a restart of Redis is Redis's persistence
/// (`appendonly yes`, or snapshots). One Redis server (with replicas if
/// you like) holds them: the scripts touch several keys at once, which
/// Redis Cluster does not allow across slots. Redis 6.0 or later (or a
/// server that speaks as it does, such as Valkey): the scripts use
/// `SET … KEEPTTL`.
///
/// Events come through one subscription per store, made by a background
/// task started on first use inside a tokio runtime, subscribed again
/// (after 0.1 s, doubling up to 5 s) when Redis went away, and stopped when
/// the store is dropped. Each time it subscribes, it announces the tasks
/// changed since 30 s before it was last known subscribed, or before it
/// started (from `mcp:tasks:changes`): a change made while this instance
/// was not listening (Redis was back, the subscription not yet) is
/// announced late, not lost, and one may be announced twice.
pub struct RedisTasks {
    link: Link,
    prefix: String,
    create: Script,
    compare_and_set: Script,
    events: broadcast::Sender<String>,
    listening: Listening,
}

impl RedisTasks {
    /// A store on the Redis server at `url` (`redis://[:PASSWORD@]HOST:PORT/[DB]`
    /// or `redis+unix:///PATH`), with the keys under the prefix `mcp`.
    /// Only reads the URL: fails if it is not one, not if the server is
    /// down.
    pub fn new(url: &str) -> Result<RedisTasks, StoreError> {
        Ok(RedisTasks {
            link: Link::new(url).map_err(StoreError)?,
            prefix: DEFAULT_PREFIX.to_owned(),
            create: Script::new(CREATE),
            compare_and_set: Script::new(COMPARE_AND_SET),
            events: broadcast::channel(1024).0,
            listening: Listening::default(),
        })
    }

    /// Puts every key under `prefix` (default `mcp`): instances that share
    /// a Redis server and a prefix share their tasks; another prefix is
    /// another set of tasks.
    pub fn prefix(mut self, prefix: &str) -> RedisTasks {
        prefix.clone_into(&mut self.prefix);
        self.reset();
        self
    }

    /// How long connecting to Redis, and each command, may take before the
    /// call fails (default 2 s).
    pub fn timeout(mut self, timeout: Duration) -> RedisTasks {
        self.link = self.link.with_timeout(timeout);
        self.reset();
        self
    }

    /// Forgets the connection and stops the subscription, if the store was
    /// used already: the next call makes them with the settings as they
    /// are now.
    fn reset(&mut self) {
        self.link = self.link.with_timeout(self.link.timeout());
        self.listening.stop();
    }

    /// Its way to Redis, for a session store on the same server to share
    /// its connection.
    #[cfg(feature = "sessions-redis")]
    pub(crate) fn link(&self) -> &Link {
        &self.link
    }

    fn task_key(&self, id: &str) -> String {
        format!("{}:task:{id}", self.prefix)
    }

    fn list_key(&self, owner: Option<&str>, modern: bool) -> String {
        let era = if modern { "modern" } else { "legacy" };
        match owner {
            None => format!("{}:tasks:list:{era}:anon", self.prefix),
            Some(owner) => format!("{}:tasks:list:{era}:owner:{owner}", self.prefix),
        }
    }

    fn leases_key(&self) -> String {
        format!("{}:tasks:leases", self.prefix)
    }

    fn changes_key(&self) -> String {
        format!("{}:tasks:changes", self.prefix)
    }

    fn channel(&self) -> String {
        format!("{}:tasks:events", self.prefix)
    }

    /// A failure of `doing` (`reading task X`), for the caller.
    /// A record that does not read back, for the caller.
    fn corrupt(&self, id: &str, error: &serde_json::Error) -> StoreError {
        StoreError(format!(
            "redis at {}: task {id} is not a task record: {error}",
            self.link.addr()
        ))
    }

    /// Starts the events subscription if it is not running (only inside a
    /// tokio runtime), and waits for its first attempt (bounded by the
    /// timeout), so that a change made after the first call of a store is
    /// heard by its own receivers.
    async fn listen(&self) {
        Listening::first_attempt(self.start_listener(), self.link.timeout()).await;
    }

    /// The subscription's state, started now if need be; `None` outside a
    /// tokio runtime.
    fn start_listener(&self) -> Option<tokio::sync::watch::Receiver<crate::redis::Subscription>> {
        self.listening.start(|report| {
            Events {
                client: self.link.client().clone(),
                addr: self.link.addr().to_owned(),
                channel: self.channel(),
                changes: self.changes_key(),
                timeout: self.link.timeout(),
                events: self.events.clone(),
            }
            .subscriber(report)
        })
    }

    /// Runs `call` on the shared connection with the shared retry rule
    /// ([`Link::run`]), the events subscription started first.
    async fn run<T, F, Fut>(&self, idempotent: bool, doing: &str, call: F) -> Result<T, StoreError>
    where
        F: Fn(ConnectionManager) -> Fut,
        Fut: Future<Output = RedisResult<T>>,
    {
        self.listen().await;
        self.link
            .run(idempotent, doing, call)
            .await
            .map_err(StoreError)
    }

    /// The records under `keys`, in order (`None` for those gone).
    async fn read_many(
        &self,
        keys: &[String],
        doing: &str,
    ) -> Result<Vec<Option<String>>, StoreError> {
        self.run(true, doing, |mut connection| async move {
            redis::cmd("MGET")
                .arg(keys)
                .query_async(&mut connection)
                .await
        })
        .await
    }

    /// The record of `id` and its text, unless it is gone.
    async fn read(&self, id: &str) -> Result<Option<(String, TaskRecord)>, StoreError> {
        let key = self.task_key(id);
        let key = &key;
        let text: Option<String> = self
            .run(
                true,
                &format!("reading task {id}"),
                |mut connection| async move { connection.get(key).await },
            )
            .await?;
        let Some(text) = text else {
            return Ok(None);
        };
        let record: TaskRecord = serde_json::from_str(&text).map_err(|e| self.corrupt(id, &e))?;
        // Redis deletes it at its expiry; this is for a clock a little
        // ahead of Redis's.
        if record.expires_ms() <= now_ms() {
            return Ok(None);
        }
        Ok(Some((text, record)))
    }

    async fn do_create(&self, record: TaskRecord) -> Result<(), StoreError> {
        let text = serde_json::to_string(&record).map_err(|e| self.corrupt(&record.id, &e))?;
        let mut invocation = self.create.prepare_invoke();
        invocation
            .key(self.task_key(&record.id))
            .key(self.list_key(record.owner.as_deref(), record.modern))
            .key(self.leases_key())
            .arg(text)
            .arg(record.expires_ms())
            .arg(list_member(record.created_ms, &record.id))
            .arg(lease_score(&record))
            .arg(&record.id)
            .arg(now_ms());
        let invocation = &invocation;
        // Writing the same record twice is harmless: tried again on a
        // broken connection too.
        let _: i64 = self
            .run(
                true,
                &format!("creating task {}", record.id),
                |mut connection| async move { invocation.invoke_async(&mut connection).await },
            )
            .await?;
        Ok(())
    }

    async fn do_update(&self, id: &str, change: Change) -> Result<Updated, StoreError> {
        let announce = if matches!(change, Change::Renew(_)) {
            "0"
        } else {
            "1"
        };
        let doing = format!("updating task {id}");
        for _ in 0..MAX_RACES {
            let Some((old, mut record)) = self.read(id).await? else {
                return Ok(Updated::NotFound);
            };
            if !record.apply(&change, now_ms()) {
                return Ok(Updated::Unchanged(record));
            }
            let new = serde_json::to_string(&record).map_err(|e| self.corrupt(id, &e))?;
            let mut invocation = self.compare_and_set.prepare_invoke();
            invocation
                .key(self.task_key(id))
                .key(self.leases_key())
                .key(self.changes_key())
                .arg(old)
                .arg(new)
                .arg(announce)
                .arg(lease_score(&record))
                .arg(id)
                .arg(self.channel())
                .arg(now_ms())
                .arg(KEEP_CHANGES_MS);
            let invocation = &invocation;
            // Not again on a broken connection: the first may have been
            // written, and the second would then report a lost race.
            let outcome: i64 = self
                .run(false, &doing, |mut connection| async move {
                    invocation.invoke_async(&mut connection).await
                })
                .await?;
            match outcome {
                0 => return Ok(Updated::NotFound),
                2 => return Ok(Updated::Changed(record)),
                // Changed by another call meanwhile: apply to what it is now.
                _ => continue,
            }
        }
        Err(StoreError(format!(
            "redis at {}: task {id} changed under every one of {MAX_RACES} attempts to update it",
            self.link.addr()
        )))
    }

    async fn do_list(
        &self,
        owner: Option<&str>,
        modern: bool,
        after: Option<(u64, &str)>,
        limit: usize,
    ) -> Result<Vec<TaskRecord>, StoreError> {
        let key = self.list_key(owner, modern);
        let key = &key;
        let mut from = match after {
            Some((created_ms, id)) => format!("({}", list_member(created_ms, id)),
            None => "-".to_owned(),
        };
        let mut page = Vec::new();
        let now = now_ms();
        while page.len() < limit {
            let want = limit - page.len();
            let batch = isize::try_from(want).unwrap_or(isize::MAX);
            let start = &from;
            let members: Vec<String> = self
                .run(true, "listing tasks", |mut connection| async move {
                    connection
                        .zrangebylex_limit(key, start, "+", 0, batch)
                        .await
                })
                .await?;
            let Some(last) = members.last() else {
                break;
            };
            from = format!("({last}");
            let ids: Vec<&str> = members
                .iter()
                .map(|member| member.split_once(':').map_or("", |(_, id)| id))
                .collect();
            let keys: Vec<String> = ids.iter().map(|id| self.task_key(id)).collect();
            let texts = self.read_many(&keys, "reading listed tasks").await?;
            let mut gone = Vec::new();
            for ((member, id), text) in members.iter().zip(&ids).zip(texts) {
                let Some(text) = text else {
                    gone.push(member.as_str());
                    continue;
                };
                let record: TaskRecord =
                    serde_json::from_str(&text).map_err(|e| self.corrupt(id, &e))?;
                if record.expires_ms() > now
                    && record.owner.as_deref() == owner
                    && record.modern == modern
                {
                    page.push(record);
                }
            }
            if !gone.is_empty() {
                let gone = &gone;
                let _: i64 = self
                    .run(
                        true,
                        "dropping expired tasks from a list",
                        |mut connection| async move { connection.zrem(key, gone).await },
                    )
                    .await?;
            }
            if members.len() < want {
                break;
            }
        }
        Ok(page)
    }

    async fn do_expired_leases(&self, now: u64) -> Result<Vec<String>, StoreError> {
        let leases = self.leases_key();
        let leases = &leases;
        let ids: Vec<String> = self
            .run(true, "reading leases", |mut connection| async move {
                connection
                    .zrangebyscore(leases, "-inf", format!("({now}"))
                    .await
            })
            .await?;
        if ids.is_empty() {
            return Ok(ids);
        }
        let keys: Vec<String> = ids.iter().map(|id| self.task_key(id)).collect();
        let texts = self
            .read_many(&keys, "reading tasks with expired leases")
            .await?;
        let mut expired = Vec::new();
        let mut done = Vec::new();
        for (id, text) in ids.into_iter().zip(texts) {
            let Some(text) = text else {
                done.push(id);
                continue;
            };
            let record: TaskRecord =
                serde_json::from_str(&text).map_err(|e| self.corrupt(&id, &e))?;
            match &record.lease {
                Some(lease) if !record.status.is_terminal() => {
                    if lease.until_ms < now {
                        expired.push(id);
                    }
                }
                _ => done.push(id),
            }
        }
        if !done.is_empty() {
            let done = &done;
            let _: i64 = self
                .run(
                    true,
                    "dropping ended tasks from the leases",
                    |mut connection| async move { connection.zrem(leases, done).await },
                )
                .await?;
        }
        Ok(expired)
    }
}

/// The lease's score in the leases set, or "" for none (the id leaves it).
fn lease_score(record: &TaskRecord) -> String {
    record
        .lease
        .as_ref()
        .map_or_else(String::new, |lease| lease.until_ms.to_string())
}

/// A task's member in its owner's list: sorts by creation, then id.
fn list_member(created_ms: u64, id: &str) -> String {
    format!("{created_ms:020}:{id}")
}

impl TaskStore for RedisTasks {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        Box::pin(self.do_create(record))
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move { Ok(self.read(id).await?.map(|(_, record)| record)) })
    }

    fn update<'a>(&'a self, id: &'a str, change: Change) -> StoreFuture<'a, Updated> {
        Box::pin(self.do_update(id, change))
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        modern: bool,
        after: Option<(u64, &'a str)>,
        limit: usize,
    ) -> StoreFuture<'a, Vec<TaskRecord>> {
        Box::pin(self.do_list(owner, modern, after, limit))
    }

    fn expired_leases(&self, now_ms: u64) -> StoreFuture<'_, Vec<String>> {
        Box::pin(self.do_expired_leases(now_ms))
    }

    fn events(&self) -> TaskEvents {
        let receiver = self.events.subscribe();
        // Outside a runtime, the first call of a method starts it.
        self.start_listener();
        receiver
    }
}

impl fmt::Debug for RedisTasks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisTasks")
            .field("addr", &self.link.addr())
            .field("prefix", &self.prefix)
            .field("timeout", &self.link.timeout())
            .finish_non_exhaustive()
    }
}
