//! One session of the stateful HTTP transport: a [`Connection`] found by
//! a random id, its streams, and whether it is in use. The store that
//! finds, times out and evicts sessions is [`sessions`](super::sessions).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::client::Client;
use super::stream::EventStream;
use crate::context::SessionChange;
use crate::dispatch::{Connection, Routed};
use crate::protocol::version::ProtocolVersion;

/// Ended streams kept per session for a client that reconnects to read
/// their last events (a stream read to its end keeps only its last one).
const KEPT_STREAMS: usize = 32;

/// The bytes of responses already read to their end that one session keeps
/// in case their client's connection dropped before they arrived; beyond
/// it the oldest are forgotten (their resumption answers an error, so the
/// client sends the request again). Responses not yet read are kept
/// whatever their size, within [`KEPT_STREAMS`].
const KEPT_SPENT_BYTES: usize = 1 << 20;

pub(crate) struct Session {
    pub(crate) id: Arc<str>,
    /// Requests of one session are dispatched one at a time, in the order
    /// they arrive; calls that have to wait run as tasks meanwhile.
    pub(crate) connection: tokio::sync::Mutex<Connection>,
    /// The version `initialize` negotiated; unset until it succeeds.
    pub(crate) version: OnceLock<ProtocolVersion>,
    /// With auth, the subject whose token created the session: only its
    /// tokens may use it.
    pub(crate) owner: OnceLock<String>,
    /// Who started it, for the bound on one client's sessions (`None`:
    /// unknown, bound by the limit on all sessions only).
    pub(crate) client: Option<Client>,
    /// Milliseconds since the store's epoch when last used.
    pub(crate) last_used: AtomicU64,
    /// Where the store's idle order has it: milliseconds (at most
    /// `last_used`, or later while it was busy) and a serial number
    /// unique in the store. Changed only under the store's order lock.
    pub(crate) indexed: AtomicU64,
    pub(crate) serial: u64,
    /// Requests of this session being served now (see [`Active`]).
    in_flight: AtomicUsize,
    /// Messages that belong to no request: the GET stream, number 0.
    pub(crate) standalone: Arc<EventStream>,
    /// POST streams that answered with SSE, by number, for `Last-Event-ID`.
    streams: Mutex<HashMap<u64, Arc<EventStream>>>,
    next_stream: AtomicU64,
    ended: AtomicBool,
    /// In a fleet (`Server::sessions`): what this instance knows of the
    /// stored session it caches. Unset in memory mode.
    #[cfg_attr(not(feature = "sessions-redis"), allow(dead_code))] // Only a store reads it.
    pub(crate) fleet: OnceLock<Arc<Stored>>,
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
    /// streams beyond [`KEPT_STREAMS`] (see [`Session::prune_streams`]).
    pub(crate) fn keep_stream(&self, stream: &Arc<EventStream>) {
        let mut streams = self.lock_streams();
        streams.insert(stream.number, Arc::clone(stream));
        prune(&mut streams);
    }

    /// Forgets the oldest ended streams beyond [`KEPT_STREAMS`], and the
    /// oldest read to their end beyond [`KEPT_SPENT_BYTES`]: called when a
    /// stream was read to its end.
    pub(crate) fn prune_streams(&self) {
        prune(&mut self.lock_streams());
    }

    /// Whether this session gave a stream this number (kept or not).
    pub(crate) fn issued(&self, number: u64) -> bool {
        number < self.next_stream.load(Ordering::Relaxed)
    }

    fn lock_streams(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<EventStream>>> {
        self.streams.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn is_ended(&self) -> bool {
        self.ended.load(Ordering::Acquire)
    }

    /// A session for `connection`, not yet in the store.
    pub(crate) fn new(
        id: Arc<str>,
        connection: Connection,
        standalone: Arc<EventStream>,
        client: Option<Client>,
        now: u64,
        serial: u64,
    ) -> Session {
        Session {
            id,
            connection: tokio::sync::Mutex::new(connection),
            version: OnceLock::new(),
            owner: OnceLock::new(),
            client,
            last_used: AtomicU64::new(now),
            indexed: AtomicU64::new(now),
            serial,
            in_flight: AtomicUsize::new(0),
            standalone,
            streams: Mutex::default(),
            next_stream: AtomicU64::new(1),
            ended: AtomicBool::new(false),
            fleet: OnceLock::new(),
        }
    }

    /// Its place in the store's idle order.
    pub(crate) fn key(&self) -> (u64, u64) {
        (self.indexed.load(Ordering::Relaxed), self.serial)
    }

    /// Counts a request as being served until the guard drops.
    pub(crate) fn enter(self: &Arc<Self>) -> Active {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        Active(Arc::clone(self))
    }

    /// Ends the session: its streams close and its calls are dropped.
    pub(crate) fn end(self: Arc<Self>) {
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
    /// served, or a stream being read (its GET stream, or a POST's
    /// answered with SSE).
    pub(crate) fn is_busy(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) > 0
            || self.connection.try_lock().is_err()
            || self.standalone.has_readers()
            || self.lock_streams().values().any(|s| s.has_readers())
    }
}

/// Forgets ended streams nobody reads: one read to its end that alone is
/// larger than [`KEPT_SPENT_BYTES`], then the oldest while more than
/// [`KEPT_STREAMS`] streams are kept or the ones read to their end hold
/// more than [`KEPT_SPENT_BYTES`].
fn prune(streams: &mut HashMap<u64, Arc<EventStream>>) {
    let mut ended: Vec<(u64, Option<usize>)> = streams
        .values()
        .filter(|s| s.is_finished() && !s.has_readers())
        .map(|s| (s.number, s.spent_bytes()))
        .collect();
    // A response larger than the whole budget goes first, alone.
    ended.retain(|&(number, bytes)| {
        let alone = bytes.is_some_and(|bytes| bytes > KEPT_SPENT_BYTES);
        if alone {
            streams.remove(&number);
        }
        !alone
    });
    ended.sort_unstable();
    let mut spent: usize = ended.iter().filter_map(|(_, bytes)| *bytes).sum();
    for (number, bytes) in ended {
        if streams.len() <= KEPT_STREAMS && spent <= KEPT_SPENT_BYTES {
            break;
        }
        if streams.len() > KEPT_STREAMS || bytes.is_some() {
            streams.remove(&number);
            spent -= bytes.unwrap_or(0);
        }
    }
}

/// What an instance of a fleet knows of the stored session it caches
/// (see [`fleet`](super::fleet)).
#[cfg_attr(not(feature = "sessions-redis"), allow(dead_code))] // Only a store reads it.
pub(crate) struct Stored {
    /// The record's revision the cached connection is of.
    pub(crate) rev: AtomicU64,
    /// What the client changed, told by the session's hook, until written
    /// through.
    pub(crate) changes: Arc<Mutex<Vec<SessionChange>>>,
    /// Where answers and cancellations routed from other instances go.
    pub(crate) routed: Routed,
    /// Copies a POST stream whose reader dropped before its end to the
    /// store, where any instance resumes it.
    pub(crate) export: Export,
}

/// What copies a POST stream to a fleet's store ([`Stored::export`]).
pub(crate) type Export = Box<dyn Fn(&Arc<EventStream>) + Send + Sync>;

/// A session with a request of it being served: the session counts as
/// busy, and is not evicted, while this lives.
pub(crate) struct Active(Arc<Session>);

impl std::ops::Deref for Active {
    type Target = Arc<Session>;

    fn deref(&self) -> &Arc<Session> {
        &self.0
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A session id: 128 random bits from the operating system, as 32 hex digits.
/// `None` if the OS has no randomness to give: never a guessable id.
pub(crate) fn new_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::ServerCore;
    use crate::jsonrpc::RequestId;

    /// A session's stream number `n`, answered with a response of `size`
    /// bytes and read to its end.
    async fn spent(session: &Session, n: u64, size: usize) -> Arc<EventStream> {
        let stream = EventStream::new(n, 8);
        let out = stream.outbox(size + 64);
        let mut line = Vec::new();
        let result = serde_json::value::to_raw_value(&"x".repeat(size)).unwrap();
        crate::jsonrpc::write_result(&mut line, &RequestId::server(n), &result);
        line.push(b'\n');
        out.send(&line).await;
        drop(out);
        session.keep_stream(&stream);
        let mut cursor = 0;
        while let super::super::stream::Read::Events(events) = stream.read(cursor).await {
            cursor = events.last().map_or(cursor, |(number, _)| *number);
        }
        stream.keep_last();
        session.prune_streams();
        stream
    }

    fn session() -> Session {
        let core = Arc::new(crate::Server::new("t", "0").into_core().unwrap());
        let standalone = EventStream::new(0, 4);
        let connection = Connection::new(core as Arc<ServerCore>, standalone.outbox(0));
        Session::new("s".into(), connection, standalone, None, 0, 0)
    }

    #[tokio::test]
    async fn responses_read_to_their_end_are_kept_within_a_byte_budget() {
        let session = session();
        for n in 1..=3 {
            spent(&session, n, 400 * 1024).await;
        }
        // 1.2 MiB of spent responses: the oldest goes.
        assert!(session.stream(1).is_none());
        assert!(session.stream(2).is_some() && session.stream(3).is_some());
        // One larger than the whole budget is not kept at all.
        spent(&session, 4, 2 << 20).await;
        assert!(session.stream(4).is_none());
        assert!(session.stream(3).is_some(), "smaller ones stay");
        // Small ones are kept up to the number of streams.
        for n in 5..40 {
            spent(&session, n, 10).await;
        }
        assert!(session.stream(39).is_some());
        assert!(session.stream(2).is_none() && session.stream(3).is_none());
    }
}
