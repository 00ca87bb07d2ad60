//! The sessions of one endpoint: found by id, ended by `DELETE`, by the
//! idle timeout, or to make room.
//!
//! Room is made, rather than newcomers refused, when a new session would
//! pass a bound: one client's own idlest session ends when that client is
//! at its bound ([`Server::max_sessions_per_client`]), and the idlest of
//! all when the server is at [`Server::max_sessions`]. A session in use (a
//! request being served, a stream being read) is never ended this way;
//! its client's next request to an ended one gets 404 and initializes
//! again, as the transport specification expects.
//!
//! The idle order is a `BTreeMap` by (last use, serial), overall and per
//! client, kept up to date lazily: a request only stores its time in an
//! atomic, as before, and an entry found out of date when the order is
//! consulted is moved to where it belongs (each move is paid for by a
//! request that came since). A busy session found first is moved to the
//! back as if used now. Finding the idlest session is therefore O(log n)
//! amortized; a search passes over [`EXAMINED`] sessions in use at most,
//! so a server whose sessions are all in use answers 503 in bounded time.
//!
//! [`Server::max_sessions_per_client`]: crate::Server::max_sessions_per_client
//! [`Server::max_sessions`]: crate::Server::max_sessions

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockWriteGuard, Weak};
use std::time::{Duration, Instant};

use super::client::Client;
use super::session::{Active, Session, new_id};
use super::stream::EventStream;
use crate::dispatch::{Connection, ServerCore};

/// Sessions in use one search for the idlest session passes over before
/// it gives up.
const EXAMINED: usize = 1024;

/// A session's place in the idle order: (milliseconds, serial).
type Key = (u64, u64);

type Map = HashMap<Arc<str>, Arc<Session>>;

/// The sessions of one endpoint.
pub(crate) struct Sessions {
    /// By id: what every request looks up (a read lock).
    map: RwLock<Map>,
    /// Which to end first. Taken before `map`'s write lock, never after.
    order: Mutex<Order>,
    epoch: Instant,
    idle_timeout: Duration,
    max: usize,
    per_client: usize,
    replay_events: usize,
    serials: AtomicU64,
    reaper: AtomicBool,
}

/// The sessions in the store, idlest first.
#[derive(Default)]
struct Order {
    all: BTreeMap<Key, Arc<Session>>,
    clients: HashMap<Client, BTreeMap<Key, Arc<Session>>>,
}

/// Why a session could not be kept.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Full {
    /// Its client is at its bound, and every session it has is in use.
    Client,
    /// The server is at its bound, and the sessions looked at are in use.
    Server,
}

/// The limits of a [`Sessions`].
pub(crate) struct Bounds {
    pub(crate) idle_timeout: Duration,
    pub(crate) max: usize,
    pub(crate) per_client: usize,
    pub(crate) replay_events: usize,
}

impl Sessions {
    pub(crate) fn new(bounds: Bounds) -> Sessions {
        Sessions {
            map: RwLock::default(),
            order: Mutex::default(),
            epoch: Instant::now(),
            idle_timeout: bounds.idle_timeout,
            max: bounds.max.max(1),
            per_client: bounds.per_client.max(1),
            replay_events: bounds.replay_events,
            serials: AtomicU64::new(0),
            reaper: AtomicBool::new(false),
        }
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn lock_order(&self) -> MutexGuard<'_, Order> {
        self.order.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn write_map(&self) -> RwLockWriteGuard<'_, Map> {
        self.map.write().unwrap_or_else(|e| e.into_inner())
    }

    /// The live session with this id, marked as used and counted as in use
    /// while the guard lives (so that it cannot be evicted meanwhile).
    pub(crate) fn get(&self, id: &str) -> Option<Active> {
        let active = {
            let map = self.map.read().unwrap_or_else(|e| e.into_inner());
            // Entered under the read lock: eviction checks under the write
            // lock, so it sees this request.
            map.get(id).filter(|s| !s.is_ended())?.enter()
        };
        self.touch(&active);
        Some(active)
    }

    pub(crate) fn touch(&self, session: &Session) {
        session.last_used.store(self.now(), Ordering::Relaxed);
    }

    pub(crate) fn len(&self) -> usize {
        self.map.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// A new session for `client`, not yet findable: [`Sessions::insert`]
    /// it once `initialize` succeeded. `Err` only when the operating
    /// system gives no random bytes for its id.
    pub(crate) fn create(
        self: &Arc<Self>,
        core: &Arc<ServerCore>,
        client: Option<Client>,
    ) -> Result<Arc<Session>, NoRandomness> {
        self.create_with(core, client, |_| None)
    }

    /// [`Sessions::create`], the connection's output (what belongs to no
    /// request) made by `out` for the new session's id (a fleet's goes to
    /// its store), or the session's GET stream when it makes none.
    pub(crate) fn create_with(
        self: &Arc<Self>,
        core: &Arc<ServerCore>,
        client: Option<Client>,
        out: impl FnOnce(&str) -> Option<crate::outbox::Outbox>,
    ) -> Result<Arc<Session>, NoRandomness> {
        let id: Arc<str> = new_id().ok_or(NoRandomness)?.into();
        self.start_reaper();
        let standalone = EventStream::new(0, self.replay_events);
        let out = out(&id).unwrap_or_else(|| standalone.outbox(0));
        let mut connection = Connection::new(Arc::clone(core), out);
        connection.set_session_id(Arc::clone(&id));
        let serial = self.serials.fetch_add(1, Ordering::Relaxed);
        Ok(Arc::new(Session::new(
            id,
            connection,
            standalone,
            client,
            self.now(),
            serial,
        )))
    }

    /// Keeps `session`, first ending its client's idlest session when the
    /// client is at its bound, and the idlest of all when the server is at
    /// its own.
    pub(crate) fn insert(&self, session: &Arc<Session>) -> Result<(), Full> {
        let now = self.now();
        let mut order = self.lock_order();
        let mut map = self.write_map();
        if let Some(client) = &session.client {
            let held = order.clients.get(client).map_or(0, BTreeMap::len);
            if held >= self.per_client {
                let idlest = order.idlest(Some(client), now).ok_or(Full::Client)?;
                evict(&mut order, &mut map, &idlest, "its client is at its bound");
            }
        }
        if map.len() >= self.max {
            let idlest = order.idlest(None, now).ok_or(Full::Server)?;
            evict(&mut order, &mut map, &idlest, "the server is at its bound");
        }
        session.indexed.store(now, Ordering::Relaxed);
        order.add(session);
        map.insert(Arc::clone(&session.id), Arc::clone(session));
        tracing::debug!(session = %session.id, "session started");
        Ok(())
    }

    /// A session with the given `id` (one a fleet's store keeps), its
    /// connection made by `connect` (given the session's GET stream, whose
    /// output it may take), not yet findable: [`Sessions::adopt`] it.
    #[cfg_attr(not(feature = "sessions-redis"), allow(dead_code))] // A fleet's cache.
    pub(crate) fn resumed(
        self: &Arc<Self>,
        id: &str,
        connect: impl FnOnce(&Arc<EventStream>) -> Connection,
    ) -> Arc<Session> {
        self.start_reaper();
        let id: Arc<str> = id.into();
        let standalone = EventStream::new(0, self.replay_events);
        let mut connection = connect(&standalone);
        connection.set_session_id(Arc::clone(&id));
        let serial = self.serials.fetch_add(1, Ordering::Relaxed);
        Arc::new(Session::new(
            id,
            connection,
            standalone,
            None,
            self.now(),
            serial,
        ))
    }

    /// Keeps `session` as [`Sessions::insert`] does, unless one with its id
    /// is kept already (two requests resumed it at once): the one kept.
    /// When no room can be made, `session` is served without being kept.
    #[cfg_attr(not(feature = "sessions-redis"), allow(dead_code))] // A fleet's cache.
    pub(crate) fn adopt(&self, session: Arc<Session>) -> Arc<Session> {
        let kept = {
            let map = self.map.read().unwrap_or_else(|e| e.into_inner());
            map.get(&*session.id).filter(|s| !s.is_ended()).cloned()
        };
        if let Some(kept) = kept {
            return kept;
        }
        let now = self.now();
        let mut order = self.lock_order();
        let mut map = self.write_map();
        if let Some(kept) = map.get(&*session.id).filter(|s| !s.is_ended()) {
            return Arc::clone(kept);
        }
        if map.len() >= self.max {
            let Some(idlest) = order.idlest(None, now) else {
                return session;
            };
            evict(&mut order, &mut map, &idlest, "the cache is at its bound");
        }
        session.indexed.store(now, Ordering::Relaxed);
        order.add(&session);
        map.insert(Arc::clone(&session.id), Arc::clone(&session));
        session
    }

    /// The session with this id, if kept, without marking it used.
    #[cfg_attr(not(feature = "sessions-redis"), allow(dead_code))] // A fleet's cache.
    pub(crate) fn peek(&self, id: &str) -> Option<Arc<Session>> {
        let map = self.map.read().unwrap_or_else(|e| e.into_inner());
        map.get(id).filter(|s| !s.is_ended()).cloned()
    }

    /// Ends the session with this id; returns whether there was one.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let mut order = self.lock_order();
        let session = self.write_map().remove(id);
        match session {
            Some(session) => {
                order.remove(&session);
                drop(order);
                tracing::debug!(session = %session.id, "session ended by the client");
                session.end();
                true
            }
            None => false,
        }
    }

    /// Ends the sessions idle for longer than the timeout.
    fn reap(&self) {
        let limit = self.idle_timeout.as_millis() as u64;
        let stale = |session: &Session, now: u64| {
            now.saturating_sub(session.last_used.load(Ordering::Relaxed)) > limit
                && !session.is_busy()
        };
        let now = self.now();
        let idle: Vec<Arc<Session>> = self
            .map
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .filter(|s| stale(s, now))
            .cloned()
            .collect();
        if idle.is_empty() {
            return;
        }
        let mut order = self.lock_order();
        let mut map = self.write_map();
        let now = self.now();
        for session in idle {
            // Looked at again under the lock: a request may have come.
            if stale(&session, now) && map.remove(&session.id).is_some() {
                order.remove(&session);
                tracing::debug!(session = %session.id, "session ended after its idle timeout");
                session.end();
            }
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
        let mut order = self.lock_order();
        *order = Order::default();
        let sessions: Vec<Arc<Session>> = self.write_map().drain().map(|(_, s)| s).collect();
        drop(order);
        for session in sessions {
            session.end();
        }
    }
}

/// The operating system gave no random bytes for a session id: never a
/// guessable id instead.
pub(crate) struct NoRandomness;

/// Ends `session` to make room (the caller holds both locks).
fn evict(order: &mut Order, map: &mut Map, session: &Arc<Session>, why: &'static str) {
    order.remove(session);
    map.remove(&session.id);
    tracing::debug!(session = %session.id, why, "idlest session ended to make room");
    Arc::clone(session).end();
}

impl Order {
    fn add(&mut self, session: &Arc<Session>) {
        let key = session.key();
        self.all.insert(key, Arc::clone(session));
        if let Some(client) = &session.client {
            self.clients
                .entry(client.clone())
                .or_default()
                .insert(key, Arc::clone(session));
        }
    }

    fn remove(&mut self, session: &Session) {
        let key = session.key();
        self.all.remove(&key);
        if let Some(client) = &session.client
            && let Some(own) = self.clients.get_mut(client)
        {
            own.remove(&key);
            if own.is_empty() {
                self.clients.remove(client);
            }
        }
    }

    /// Moves `session` to `at` in the order.
    fn rekey(&mut self, session: &Arc<Session>, at: u64) {
        self.remove(session);
        session.indexed.store(at, Ordering::Relaxed);
        self.add(session);
    }

    /// The session idle longest, and not in use: of `client`'s, or of all.
    /// `None` when [`EXAMINED`] entries in a row are in use. The
    /// caller holds the map's write lock, so no request can start using
    /// the one returned before it is removed.
    fn idlest(&mut self, client: Option<&Client>, now: u64) -> Option<Arc<Session>> {
        let mut busy = 0;
        while busy < EXAMINED {
            let tree = match client {
                Some(client) => self.clients.get(client)?,
                None => &self.all,
            };
            let (&(indexed, _), first) = tree.first_key_value()?;
            let first = Arc::clone(first);
            let used = first.last_used.load(Ordering::Relaxed);
            if used > indexed {
                // Used since it was placed: to where it belongs now. Not
                // counted: each such move is paid for by a request.
                self.rekey(&first, used);
            } else if first.is_busy() {
                if indexed >= now {
                    // Everything left was placed now or later (this search
                    // passed over the rest): looked at where it is, since
                    // moving it on would place it in the future, and with
                    // each search further.
                    let tree = match client {
                        Some(client) => self.clients.get(client)?,
                        None => &self.all,
                    };
                    return tree
                        .values()
                        .take(EXAMINED - busy)
                        .find(|s| !s.is_busy())
                        .cloned();
                }
                // In use: behind everything idle, as if used now.
                self.rekey(&first, now);
                busy += 1;
            } else {
                return Some(first);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(max: usize, per_client: usize) -> Arc<Sessions> {
        Arc::new(Sessions::new(Bounds {
            idle_timeout: Duration::from_secs(600),
            max,
            per_client,
            replay_events: 4,
        }))
    }

    fn core() -> Arc<ServerCore> {
        Arc::new(crate::Server::new("t", "0").into_core().unwrap())
    }

    fn client(n: u8) -> Option<Client> {
        Some(Client::Address([10, 0, 0, n].into()))
    }

    fn start(store: &Arc<Sessions>, core: &Arc<ServerCore>, who: Option<Client>) -> Arc<Session> {
        let Ok(session) = store.create(core, who) else {
            panic!("no randomness")
        };
        store.insert(&session).expect("room");
        session
    }

    /// Whether the store has it (without using it, which would move it).
    fn alive(store: &Sessions, session: &Session) -> bool {
        store.map.read().unwrap().contains_key(&session.id)
    }

    /// Long enough for the store's clock (milliseconds) to move.
    fn tick() {
        std::thread::sleep(Duration::from_millis(3));
    }

    #[tokio::test]
    async fn a_client_at_its_bound_loses_its_own_idlest_session() {
        let (store, core) = (store(100, 3), core());
        let other = start(&store, &core, client(2));
        let mine: Vec<_> = (0..3)
            .map(|_| {
                tick();
                start(&store, &core, client(1))
            })
            .collect();
        tick();
        store.touch(&mine[0]);
        let newest = start(&store, &core, client(1));
        assert!(alive(&store, &other), "another client's session stays");
        assert!(!alive(&store, &mine[1]), "the idlest of its own ends");
        assert!(alive(&store, &mine[0]) && alive(&store, &mine[2]));
        assert!(alive(&store, &newest));
        assert_eq!(store.len(), 4);
    }

    #[tokio::test]
    async fn at_the_cap_the_idlest_of_all_ends_and_busy_ones_stay() {
        let (store, core) = (store(3, 10), core());
        let first = start(&store, &core, client(1));
        tick();
        let second = start(&store, &core, client(2));
        tick();
        let third = start(&store, &core, None);
        let busy = first.enter();
        start(&store, &core, client(3));
        assert!(alive(&store, &first), "in use: not evicted");
        assert!(!alive(&store, &second), "the idlest not in use ends");
        assert!(alive(&store, &third));
        drop(busy);
        let reader = third.standalone.attach();
        tick();
        start(&store, &core, client(3));
        assert!(
            alive(&store, &third),
            "a GET stream being read: not evicted"
        );
        assert!(!alive(&store, &first));
        drop(reader);
    }

    #[tokio::test]
    async fn when_every_session_is_in_use_the_bound_holds() {
        let (store, core) = (store(2, 2), core());
        let a = start(&store, &core, client(1));
        let b = start(&store, &core, client(1));
        let (_a, _b) = (a.enter(), b.enter());
        let Ok(refused) = store.create(&core, client(1)) else {
            panic!()
        };
        assert_eq!(store.insert(&refused), Err(Full::Client));
        let Ok(refused) = store.create(&core, client(2)) else {
            panic!()
        };
        assert_eq!(store.insert(&refused), Err(Full::Server));
        assert_eq!(store.len(), 2);
    }

    #[tokio::test]
    async fn a_search_that_finds_only_busy_sessions_does_not_place_them_in_the_future() {
        // Client 1's two sessions are in use, so its third is refused; the
        // search that found them busy must place them as used then, not
        // later. Client 2's session, used after that, is then the more
        // recent, and the idlest of all is one of client 1's.
        let (store, core) = (store(3, 2), core());
        let a = start(&store, &core, client(1));
        let b = start(&store, &core, client(1));
        tick();
        let c = start(&store, &core, client(2));
        let busy = (a.enter(), b.enter());
        let Ok(refused) = store.create(&core, client(1)) else {
            panic!()
        };
        assert_eq!(store.insert(&refused), Err(Full::Client));
        drop(busy);
        tick();
        store.touch(&c);
        tick();
        start(&store, &core, client(3));
        assert!(alive(&store, &c), "used last: not the idlest");
        assert!(!alive(&store, &a) || !alive(&store, &b));
        assert!(
            a.indexed.load(Ordering::Relaxed) <= store.now(),
            "placed in the future"
        );
    }

    #[tokio::test]
    async fn sessions_used_since_they_were_placed_do_not_make_a_search_give_up() {
        // More of them than a search passes over in use: moving the
        // entries of sessions used since is not giving up.
        let (store, core) = (store(2_000, 2_000), core());
        let sessions: Vec<_> = (0..2_000).map(|_| start(&store, &core, None)).collect();
        tick();
        for (n, session) in sessions.iter().enumerate() {
            if n != 1_500 {
                store.touch(session);
            }
        }
        start(&store, &core, None);
        assert!(!alive(&store, &sessions[1_500]), "the one not used since");
        assert_eq!(store.len(), 2_000);
    }

    #[test]
    fn one_client_may_hold_a_tenth_of_the_sessions_by_default() {
        let bound = |max: usize, per_client: Option<usize>| {
            let config = super::super::HttpConfig {
                max_sessions: max,
                max_sessions_per_client: per_client,
                ..Default::default()
            };
            config.per_client()
        };
        assert_eq!(bound(10_000, None), 1_000);
        assert_eq!(bound(50, None), 10, "at least 10");
        assert_eq!(bound(3, None), 3, "never more than all");
        assert_eq!(bound(10_000, Some(7)), 7);
        assert_eq!(bound(100, Some(500)), 100);
    }

    #[tokio::test]
    async fn removal_leaves_no_trace_in_the_order() {
        let (store, core) = (store(10, 10), core());
        let sessions: Vec<_> = (0..5).map(|_| start(&store, &core, client(1))).collect();
        for session in &sessions {
            assert!(store.remove(&session.id));
        }
        let order = store.lock_order();
        assert!(order.all.is_empty() && order.clients.is_empty());
    }
}
