//! Sessions of the stateful HTTP transport: one [`Connection`] each, found
//! by a random id, ended by `DELETE`, by an idle timeout, or to make room
//! under the limit on their number.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};
use std::time::{Duration, Instant};

use super::stream::EventStream;
use crate::dispatch::{Connection, ServerCore};
use crate::protocol::version::ProtocolVersion;

/// Ended streams kept per session for a client that reconnects to read
/// their last events.
const KEPT_STREAMS: usize = 32;

pub(crate) struct Session {
    pub(crate) id: Arc<str>,
    /// Requests of one session are dispatched one at a time, in the order
    /// they arrive; calls that have to wait run as tasks meanwhile.
    pub(crate) connection: tokio::sync::Mutex<Connection>,
    /// The version `initialize` negotiated; unset until it succeeds.
    pub(crate) version: OnceLock<ProtocolVersion>,
    /// Milliseconds since the store's epoch when last used.
    last_used: AtomicU64,
    /// Messages that belong to no request: the GET stream, number 0.
    pub(crate) standalone: Arc<EventStream>,
    /// POST streams that answered with SSE, by number, for `Last-Event-ID`.
    streams: Mutex<HashMap<u64, Arc<EventStream>>>,
    next_stream: AtomicU64,
    ended: AtomicBool,
}

impl Session {
    /// A number for a new stream of this session.
    pub(crate) fn stream_number(&self) -> u64 {
        self.next_stream.fetch_add(1, Ordering::Relaxed)
    }

    /// The stream with this number, if it is still kept.
    pub(crate) fn stream(&self, number: u64) -> Option<Arc<EventStream>> {
        if number == 0 {
            return Some(Arc::clone(&self.standalone));
        }
        self.lock_streams().get(&number).cloned()
    }

    /// Keeps `stream` so a client can resume it; forgets the oldest ended
    /// streams beyond [`KEPT_STREAMS`].
    pub(crate) fn keep_stream(&self, stream: &Arc<EventStream>) {
        let mut streams = self.lock_streams();
        streams.insert(stream.number, Arc::clone(stream));
        if streams.len() > KEPT_STREAMS {
            let mut ended: Vec<u64> = streams
                .values()
                .filter(|s| s.is_finished() && !s.has_readers())
                .map(|s| s.number)
                .collect();
            ended.sort_unstable();
            let excess = streams.len() - KEPT_STREAMS;
            for number in ended.into_iter().take(excess) {
                streams.remove(&number);
            }
        }
    }

    /// Forgets a stream whose reader took everything.
    pub(crate) fn forget_stream(&self, number: u64) {
        self.lock_streams().remove(&number);
    }

    fn lock_streams(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<EventStream>>> {
        self.streams.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn is_ended(&self) -> bool {
        self.ended.load(Ordering::Acquire)
    }

    /// Ends the session: its streams close and its calls are dropped.
    fn end(self: Arc<Self>) {
        if self.ended.swap(true, Ordering::AcqRel) {
            return;
        }
        self.standalone.close();
        tokio::spawn(async move {
            // Dropping the calls drops their outputs, which ends their streams.
            self.connection.lock().await.abort_all();
        });
    }

    /// Whether something is using the session now: a request being
    /// dispatched, or a stream being read.
    fn is_busy(&self) -> bool {
        self.connection.try_lock().is_err()
            || self.standalone.has_readers()
            || self.lock_streams().values().any(|s| s.has_readers())
    }
}

/// The sessions of one endpoint.
pub(crate) struct Sessions {
    map: RwLock<HashMap<Arc<str>, Arc<Session>>>,
    epoch: Instant,
    idle_timeout: Duration,
    max: usize,
    replay_events: usize,
    reaper: AtomicBool,
}

/// Why a session could not be made.
pub(crate) enum CreateError {
    /// The limit on sessions is reached, and none is idle.
    TooMany,
    /// The operating system gave no random bytes for the id.
    NoRandomness,
}

impl Sessions {
    pub(crate) fn new(idle_timeout: Duration, max: usize, replay_events: usize) -> Sessions {
        Sessions {
            map: RwLock::default(),
            epoch: Instant::now(),
            idle_timeout,
            max: max.max(1),
            replay_events,
            reaper: AtomicBool::new(false),
        }
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// The live session with this id, marked as used.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        let session = self
            .map
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()?;
        if session.is_ended() {
            return None;
        }
        self.touch(&session);
        Some(session)
    }

    pub(crate) fn touch(&self, session: &Session) {
        session.last_used.store(self.now(), Ordering::Relaxed);
    }

    pub(crate) fn len(&self) -> usize {
        self.map.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// A new session, not yet findable: [`Sessions::insert`] it once
    /// `initialize` succeeded.
    pub(crate) fn create(
        self: &Arc<Self>,
        core: &Arc<ServerCore>,
    ) -> Result<Arc<Session>, CreateError> {
        if self.len() >= self.max {
            self.reap();
            if self.len() >= self.max {
                return Err(CreateError::TooMany);
            }
        }
        let id = new_id().ok_or(CreateError::NoRandomness)?;
        self.start_reaper();
        let standalone = EventStream::new(0, self.replay_events);
        let id: Arc<str> = id.into();
        let mut connection = Connection::new(Arc::clone(core), standalone.outbox(0));
        connection.set_session_id(Arc::clone(&id));
        Ok(Arc::new(Session {
            id,
            connection: tokio::sync::Mutex::new(connection),
            version: OnceLock::new(),
            last_used: AtomicU64::new(self.now()),
            standalone,
            streams: Mutex::default(),
            next_stream: AtomicU64::new(1),
            ended: AtomicBool::new(false),
        }))
    }

    pub(crate) fn insert(&self, session: &Arc<Session>) {
        self.map
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(Arc::clone(&session.id), Arc::clone(session));
        tracing::debug!(session = %session.id, "session started");
    }

    /// Ends the session with this id; returns whether there was one.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let session = self
            .map
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
        match session {
            Some(session) => {
                tracing::debug!(session = %session.id, "session ended by the client");
                session.end();
                true
            }
            None => false,
        }
    }

    /// Ends the sessions idle for longer than the timeout.
    fn reap(&self) {
        let now = self.now();
        let limit = self.idle_timeout.as_millis() as u64;
        let idle: Vec<Arc<Session>> = self
            .map
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .filter(|s| now.saturating_sub(s.last_used.load(Ordering::Relaxed)) > limit)
            .filter(|s| !s.is_busy())
            .cloned()
            .collect();
        if idle.is_empty() {
            return;
        }
        let mut map = self.map.write().unwrap_or_else(|e| e.into_inner());
        for session in idle {
            map.remove(&session.id);
            tracing::debug!(session = %session.id, "session ended after its idle timeout");
            session.end();
        }
    }

    /// Reaps idle sessions every so often, for as long as the store lives.
    fn start_reaper(self: &Arc<Self>) {
        if self.reaper.swap(true, Ordering::AcqRel) {
            return;
        }
        let every =
            (self.idle_timeout / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
        let store: Weak<Sessions> = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let Some(store) = store.upgrade() else { return };
                store.reap();
            }
        });
    }

    /// Every session, for shutdown.
    pub(crate) fn all(&self) -> Vec<Arc<Session>> {
        self.map
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect()
    }

    /// Ends every session (shutdown, after the grace period).
    pub(crate) fn end_all(&self) {
        let sessions: Vec<Arc<Session>> = self
            .map
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
            .map(|(_, s)| s)
            .collect();
        for session in sessions {
            session.end();
        }
    }
}

/// A session id: 128 random bits from the operating system, as 32 hex digits.
/// `None` if the OS has no randomness to give: never a guessable id.
fn new_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
