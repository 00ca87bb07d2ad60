//! A session's GET stream in a fleet: its messages are kept in the store
//! (stream `0`, appended by [`sink`](super::sink)), and the instance that
//! holds the GET sends them. Any GET takes the stream over (the instance
//! held it before, if another, is told, and ends its response): this
//! instance registers to hear the session's events, holds the stream in
//! the store, sends what was kept after the cursor (the `Last-Event-ID`,
//! or how far the last holder delivered), then the events as they are
//! announced, skipping those it sent already. Event ids are `0_{entry}`,
//! the entry's id in the store, so that any instance resumes from them.
//! When the response ends, the stream is let go, noting how far it was
//! delivered. After the subscription was made again (Redis was away), it
//! reads again from the last event it sent.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::http::Response;
use bytes::{BufMut, Bytes, BytesMut};
use tokio::sync::mpsc;

use super::super::session::Session;
use super::super::stream::ReaderGuard;
use crate::sessions::RedisSessions;

/// A comment sent when nothing else was, so that proxies and clients do
/// not take a quiet stream for a dead one.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// What a held GET stream hears.
pub(super) enum Heard {
    /// An entry appended to the session's stream.
    Event { entry: String, line: String },
    /// Another instance took the stream over, or the session ended.
    Over,
    /// The subscription was made again: read from the last sent.
    Again,
}

/// The GET streams this instance holds, by session.
#[derive(Default)]
pub(super) struct Holders {
    held: Mutex<HashMap<String, Holder>>,
    tokens: AtomicU64,
}

/// One GET stream held here.
struct Holder {
    /// Which GET registered it.
    token: u64,
    tell: mpsc::UnboundedSender<Heard>,
    /// The last entry it sent.
    sent: Arc<Mutex<Option<String>>>,
}

impl Holders {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Holder>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hears the events of `session` from now on, instead of the GET that
    /// held it here before (whose response ends).
    fn register(&self, session: &str) -> Registered {
        let token = self.tokens.fetch_add(1, Ordering::Relaxed);
        let (tell, heard) = mpsc::unbounded_channel();
        let sent = Arc::new(Mutex::new(None));
        let holder = Holder {
            token,
            tell,
            sent: Arc::clone(&sent),
        };
        self.lock().insert(session.to_owned(), holder);
        Registered { token, heard, sent }
    }

    /// Stops hearing for `session`, unless another GET registered since.
    fn unregister(&self, session: &str, token: u64) {
        let mut held = self.lock();
        if held
            .get(session)
            .is_some_and(|holder| holder.token == token)
        {
            held.remove(session);
        }
    }

    /// Whether a GET holds `session` here.
    fn holds(&self, session: &str) -> bool {
        self.lock().contains_key(session)
    }

    /// Tells the GET holding `session` here, if one does.
    pub(super) fn tell(&self, session: &str, heard: Heard) {
        if let Some(holder) = self.lock().get(session) {
            let _ = holder.tell.send(heard);
        }
    }

    /// Tells every GET held here to read again.
    pub(super) fn read_again(&self) {
        for holder in self.lock().values() {
            let _ = holder.tell.send(Heard::Again);
        }
    }

    /// How far each GET held here was sent: (session, entry) pairs, for
    /// the store to note, so that a GET without `Last-Event-ID` after
    /// this instance is gone starts about there.
    pub(super) fn cursors(&self) -> Vec<(String, String)> {
        self.lock()
            .iter()
            .filter_map(|(session, holder)| {
                let sent = holder.sent.lock().unwrap_or_else(|e| e.into_inner());
                Some((session.clone(), sent.clone()?))
            })
            .collect()
    }
}

/// A GET's registration with [`Holders`].
pub(super) struct Registered {
    pub(super) token: u64,
    heard: mpsc::UnboundedReceiver<Heard>,
    sent: Arc<Mutex<Option<String>>>,
}

/// The parts of a GET the fleet answers.
pub(super) struct Get {
    pub(super) store: RedisSessions,
    pub(super) holders: Arc<Holders>,
    pub(super) instance: String,
    pub(super) session: Arc<Session>,
    /// Where to start: after this entry (`None`: from the first kept).
    pub(super) after: Option<String>,
    /// Send an event with an id and no data first (2025-11-25).
    pub(super) prime: bool,
    /// Entries read at once.
    pub(super) keep: usize,
}

/// Registers to hear the session's events: what [`respond`] takes once
/// the stream is held in the store.
pub(super) fn listen(holders: &Holders, session: &str) -> Registered {
    holders.register(session)
}

/// Lets go of a registration made by [`listen`] whose GET was refused.
pub(super) fn forget(holders: &Holders, session: &str, token: u64) {
    holders.unregister(session, token);
}

/// The SSE response of a GET that holds the stream now.
pub(super) fn respond(get: Get, registered: Registered) -> Response<Body> {
    let reader = get.session.standalone.attach();
    let Registered { token, heard, sent } = registered;
    *sent.lock().unwrap_or_else(|e| e.into_inner()) = get.after.clone();
    let state = Held {
        last: get.after.clone(),
        read: true,
        get,
        token,
        heard,
        sent,
        _reader: reader,
    };
    let body = futures_util::stream::unfold(Some(state), next);
    super::super::sse::with_body(Body::from_stream(body))
}

/// A GET stream being sent.
struct Held {
    get: Get,
    token: u64,
    heard: mpsc::UnboundedReceiver<Heard>,
    /// The last entry sent.
    last: Option<String>,
    /// The same, for the lease tick ([`Holders::cursors`]).
    sent: Arc<Mutex<Option<String>>>,
    /// Read the kept entries after `last` before going on live.
    read: bool,
    /// The session counts as busy while its GET is read.
    _reader: ReaderGuard,
}

impl Held {
    /// Notes that `entry` was sent.
    fn sent(&mut self, entry: String) {
        *self.sent.lock().unwrap_or_else(|e| e.into_inner()) = Some(entry.clone());
        self.last = Some(entry);
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let get = &self.get;
        get.holders.unregister(&get.session.id, self.token);
        let (store, instance) = (get.store.clone(), get.instance.clone());
        let (cached, holders) = (Arc::clone(&get.session), Arc::clone(&get.holders));
        let (session, last) = (get.session.id.to_string(), self.last.clone());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                // Only the holder is told of changes by its hub; a GET
                // that holds it here since registered under the same lock.
                let mut connection = cached.connection.lock().await;
                if !holders.holds(&session) {
                    connection.unregister_notices();
                }
                drop(connection);
                if let Err(error) = store.release(&session, &instance, last.as_deref()).await {
                    tracing::debug!(%session, %error, "a GET stream not let go");
                }
            });
        }
    }
}

async fn next(state: Option<Held>) -> Option<(Result<Bytes, Infallible>, Option<Held>)> {
    let mut held = state?;
    let mut chunk = BytesMut::new();
    if std::mem::take(&mut held.get.prime) {
        chunk.put_slice(b"retry: 1000\n");
        let at = held.last.clone().unwrap_or_else(|| "0-0".to_owned());
        write_event(&mut chunk, &at, "");
    }
    if std::mem::take(&mut held.read) {
        let get = &held.get;
        match get
            .store
            .replay(&get.session.id, "0", held.last.as_deref(), get.keep)
            .await
        {
            Ok(entries) => {
                // A full page: there may be more.
                held.read = entries.len() >= get.keep;
                for (entry, line) in entries {
                    write_event(&mut chunk, &entry, &line);
                    held.sent(entry);
                }
            }
            Err(error) => {
                tracing::warn!(session = %get.session.id, %error, "a GET stream could not be read");
            }
        }
    }
    if !chunk.is_empty() {
        return Some((Ok(chunk.freeze()), Some(held)));
    }
    loop {
        let heard = tokio::select! {
            heard = held.heard.recv() => heard,
            // Ended here (DELETE, shutdown, the cache letting it go).
            _ = held.get.session.standalone.read(0) => None,
            () = tokio::time::sleep(KEEP_ALIVE) => {
                return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), Some(held)));
            }
        };
        match heard {
            None | Some(Heard::Over) => return None,
            Some(Heard::Again) => {
                held.read = true;
                return Some((Ok(Bytes::new()), Some(held)));
            }
            Some(Heard::Event { entry, line }) => {
                if held
                    .last
                    .as_deref()
                    .is_some_and(|last| !newer(&entry, last))
                {
                    continue;
                }
                write_event(&mut chunk, &entry, &line);
                held.sent(entry);
                return Some((Ok(chunk.freeze()), Some(held)));
            }
        }
    }
}

/// Whether entry id `entry` (`MS-SEQ`) comes after `last`.
fn newer(entry: &str, last: &str) -> bool {
    let parse = |id: &str| {
        let (ms, seq) = id.split_once('-')?;
        Some((ms.parse::<u64>().ok()?, seq.parse::<u64>().ok()?))
    };
    match (parse(entry), parse(last)) {
        (Some(entry), Some(last)) => entry > last,
        _ => true,
    }
}

/// The entry named by a `Last-Event-ID` of a fleet's GET stream
/// (`0_{MS-SEQ}`); `None` for any other id.
pub(super) fn entry_of(last_event_id: &str) -> Option<&str> {
    let entry = last_event_id.strip_prefix("0_")?;
    let (ms, seq) = entry.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(ms) && digits(seq)).then_some(entry)
}

fn write_event(chunk: &mut BytesMut, entry: &str, line: &str) {
    chunk.reserve(line.len() + entry.len() + 24);
    chunk.put_slice(b"id: 0_");
    chunk.put_slice(entry.as_bytes());
    chunk.put_slice(b"\ndata: ");
    chunk.put_slice(line.as_bytes());
    chunk.put_slice(b"\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_ordered_by_time_then_sequence() {
        assert!(newer("2-0", "1-9"));
        assert!(newer("1-10", "1-9"));
        assert!(!newer("1-9", "1-9"));
        assert!(!newer("1-8", "1-9"));
    }

    #[test]
    fn a_fleet_get_stream_id_names_its_entry() {
        assert_eq!(entry_of("0_1700000000000-3"), Some("1700000000000-3"));
        assert_eq!(entry_of("0_0-0"), Some("0-0"));
        for other in ["0_5", "1.abc_2", "0_x-1", "0_1-", "7"] {
            assert_eq!(entry_of(other), None, "{other}");
        }
    }
}
