//! The shared sessions of a fleet on Redis (feature `sessions-redis`):
//! [`Shared`] over [`RedisSessions`], and the [`Fleet`] one endpoint
//! serves through.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{Response, StatusCode};
use futures_util::future::BoxFuture;

use super::super::HttpConfig;
use super::super::client::Client;
use super::super::event_id;
use super::super::reply::error;
use super::super::reply::{accepted, unavailable};
use super::super::session::{Active, Session, Stored};
use super::super::sessions::{Full, NoRandomness, Sessions};
use super::bus::RedisBus;
use super::export::{self, Exports};
use super::stream::{self, Get, Holders};
use super::{Fleet, Refused, Shared, inbound, parts, routing, sink};
use crate::dispatch::{Connection, ServerCore};
use crate::jsonrpc::{INTERNAL_ERROR, INVALID_REQUEST, InstanceTag, Line};
use crate::protocol::version::ProtocolVersion;
use crate::sessions::data::{self, Limits};
use crate::sessions::{RedisSessions, SessionStoreError};

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

    fn fleet(
        &self,
        core: Arc<ServerCore>,
        cache: Arc<Sessions>,
        config: &HttpConfig,
    ) -> Arc<dyn Fleet> {
        let tag = InstanceTag::random()
            .or_else(|| InstanceTag::parse(&format!("{:08x}", std::process::id())))
            .expect("eight hex digits make a tag");
        if !core.set_instance(tag) {
            tracing::debug!("the server's instance tag was set already");
        }
        let tag = core.instance().unwrap_or(tag);
        tracing::info!(instance = %tag, redis = ?self.store, "legacy sessions are shared through Redis");
        // The notifier's events go to every instance from now on (or from
        // the first request, for a router made outside a runtime).
        if tokio::runtime::Handle::try_current().is_ok() {
            let bus = RedisBus::new(self.store.clone(), config.replay_events);
            core.hub.set_bus(Arc::new(bus));
        }
        let fleet = Arc::new(RedisFleet {
            store: self.store.clone(),
            core,
            cache,
            tag,
            limits: Limits {
                idle_timeout: config.session_idle_timeout,
                max: config.max_sessions,
                per_client: config.per_client(),
            },
            keep: config.replay_events,
            holders: Arc::default(),
            exports: Arc::new(Exports::new(self.store.clone(), tag, config.replay_events)),
            started: tokio::sync::OnceCell::new(),
        });
        // Listening from the start where there is a runtime (else from the
        // first request): the notifier's events are the fleet's at once.
        if tokio::runtime::Handle::try_current().is_ok() {
            let starting = Arc::clone(&fleet);
            tokio::spawn(async move { starting.begin().await });
        }
        fleet
    }
}

/// One endpoint's fleet on Redis: the store, this instance's tag, and its
/// cache of sessions.
struct RedisFleet {
    store: RedisSessions,
    core: Arc<ServerCore>,
    cache: Arc<Sessions>,
    tag: InstanceTag,
    limits: Limits,
    /// Entries kept per GET stream in the store.
    keep: usize,
    /// The GET streams this instance holds.
    holders: Arc<Holders>,
    /// POST streams copied to the store, and resumptions of other
    /// instances' streams.
    exports: Arc<Exports>,
    /// Listening and the ticks, started by the first request.
    started: tokio::sync::OnceCell<()>,
}

impl RedisFleet {
    /// Starts listening to this instance's channels, and the lease and
    /// reaping ticks, once.
    async fn begin(&self) {
        self.started
            .get_or_init(|| async {
                let heard = self.store.listen(self.tag.as_str()).await;
                let cache = Arc::downgrade(&self.cache);
                let bus = RedisBus::new(self.store.clone(), self.keep);
                // `false` when set already: then this one is dropped.
                self.core.hub.set_bus(Arc::new(bus));
                let holders = Arc::clone(&self.holders);
                let hub = Arc::clone(&self.core.hub);
                let exports = Arc::clone(&self.exports);
                tokio::spawn(inbound::listen(cache.clone(), holders, exports, hub, heard));
                let idle = self.limits.idle_timeout;
                let ticks = inbound::Ticks {
                    cache,
                    holders: Arc::clone(&self.holders),
                    store: self.store.clone(),
                    instance: self.tag.as_str().to_owned(),
                    idle,
                };
                tokio::spawn(ticks.run());
            })
            .await;
    }

    /// A batch answering another instance's question: each answer to the
    /// instance that asked it (202; 503 when one of them is gone), or 400
    /// when requests or notifications come with them.
    async fn pass_on_batch(&self, session: &Session, batch: routing::Batch) -> Response<Body> {
        let answers = match batch {
            routing::Batch::Answers(answers) => answers,
            routing::Batch::Mixed => {
                return error(
                    StatusCode::BAD_REQUEST,
                    Some(INVALID_REQUEST),
                    "Bad Request: this batch answers a question another server instance asked, \
                     and carries requests or notifications too; send the answers in a batch \
                     of their own",
                );
            }
        };
        let mut gone = false;
        for (asker, routed) in answers {
            match asker {
                Some(asker) => match self.store.route(asker.as_str(), &routed.to_text()).await {
                    Ok(0) => {
                        tracing::info!(instance = %asker, "an answer for an instance that is gone");
                        gone = true;
                    }
                    Ok(_) => {}
                    Err(error) => return *self.unreachable(&error),
                },
                None => inbound::deliver_to(session, &routed),
            }
        }
        if gone {
            return unavailable(
                Some(INTERNAL_ERROR),
                "Service Unavailable: a server instance that asked a question this batch \
                 answers is gone, and the call that asked it with it",
            );
        }
        accepted()
    }

    /// The 503 for a store that cannot be reached.
    fn unreachable(&self, error: &SessionStoreError) -> Refused {
        tracing::warn!(%error, "the session store cannot be reached");
        Box::new(unavailable(
            Some(INTERNAL_ERROR),
            &format!(
                "Service Unavailable: the session store cannot be reached ({error}); try again"
            ),
        ))
    }

    /// Session `id` resumed here from its record, of revision `rev`, and
    /// cached; `None` when the record is of a version this server does not
    /// speak.
    fn resume(&self, id: &str, rev: u64, record: &data::SessionData) -> Option<Active> {
        let parts = parts::parts(record)?;
        let version = parts.version;
        let core = Arc::clone(&self.core);
        let out = sink::outbox(self.store.clone(), id.into(), self.keep);
        let session = self
            .cache
            .resumed(id, |_| Connection::resume(core, out, parts));
        let _ = session.version.set(version);
        if let Some(owner) = &record.owner {
            let _ = session.owner.set(owner.clone());
        }
        if let Ok(connection) = session.connection.try_lock() {
            watch(&session, &connection, rev, &self.exports);
        }
        Some(self.cache.adopt(session).enter())
    }
}

/// The request's tag in a POST stream's event id (`{inst}~{n}.{rid}_{seq}`),
/// if it names one.
fn tag_of(id: &str) -> Option<&str> {
    let (head, _) = id.trim().rsplit_once('_')?;
    let (_, tag) = head.split_once('.')?;
    Some(tag)
}

/// Watches what the client of `session` changes (queued until written
/// through), notes the record's revision its connection is of, and has
/// its POST streams whose readers drop copied through `exports`.
fn watch(session: &Session, connection: &Connection, rev: u64, exports: &Arc<Exports>) {
    let changes = Arc::new(Mutex::new(Vec::new()));
    let queue = Arc::clone(&changes);
    connection.watch_changes(Arc::new(move |change| {
        queue.lock().unwrap_or_else(|e| e.into_inner()).push(change);
    }));
    let _ = session.fleet.set(Arc::new(Stored {
        rev: AtomicU64::new(rev),
        changes,
        routed: connection.routed(),
        export: Exports::on_drop(exports, &session.id),
    }));
}

impl Fleet for RedisFleet {
    fn start(&self) -> Option<BoxFuture<'_, ()>> {
        if self.started.initialized() {
            return None;
        }
        Some(Box::pin(self.begin()))
    }

    fn new_session(&self, client: Option<Client>) -> Result<Arc<Session>, NoRandomness> {
        self.cache.create_with(&self.core, client, |id| {
            Some(sink::outbox(self.store.clone(), id.into(), self.keep))
        })
    }

    fn get<'a>(
        &'a self,
        session: Arc<Session>,
        last_event_id: Option<&'a str>,
        prime: bool,
    ) -> Option<BoxFuture<'a, Response<Body>>> {
        if let Some(id) = last_event_id.and_then(event_id::parse)
            && let Some(owner) = id.instance
            && owner != self.tag
        {
            let tag = last_event_id.and_then(tag_of).map(str::to_owned);
            return Some(Box::pin(async move {
                self.begin().await;
                export::resume(&self.exports, &session.id, owner, id, tag.as_deref()).await
            }));
        }
        let after = match last_event_id {
            None => None,
            Some(last) => Some(stream::entry_of(last)?.to_owned()),
        };
        Some(Box::pin(async move {
            let registered = stream::listen(&self.holders, &session.id);
            let token = registered.token;
            let held = match self.store.hold(&session.id, self.tag.as_str()).await {
                Ok(Some(held)) => held,
                Ok(None) => {
                    stream::forget(&self.holders, &session.id, token);
                    return error(
                        StatusCode::NOT_FOUND,
                        Some(INVALID_REQUEST),
                        "Not Found: unknown or expired session; send initialize to start a new one",
                    );
                }
                Err(error) => {
                    stream::forget(&self.holders, &session.id, token);
                    return *self.unreachable(&error);
                }
            };
            if let Some(previous) = &held.previous
                && previous != self.tag.as_str()
            {
                tracing::debug!(session = %session.id, %previous, "GET stream taken over");
            }
            // The holder is the one instance the hub tells of changes.
            session.connection.lock().await.register_notices();
            let after = after.or(held.delivered);
            stream::respond(
                Get {
                    store: self.store.clone(),
                    holders: Arc::clone(&self.holders),
                    instance: self.tag.as_str().to_owned(),
                    session,
                    after,
                    prime,
                    keep: self.keep,
                },
                registered,
            )
        }))
    }

    fn session<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Active>, Refused>> {
        Box::pin(async move {
            self.begin().await;
            let cached = self.cache.get(id);
            let state = cached.as_ref().and_then(|s| s.fleet.get().cloned());
            let known = state.as_ref().map(|c| c.rev.load(Ordering::Acquire));
            let loaded = match self.store.load(id, known).await {
                Ok(loaded) => loaded,
                Err(error) => return Err(self.unreachable(&error)),
            };
            let Some(loaded) = loaded else {
                if cached.is_some() {
                    drop(cached);
                    self.cache.remove(id);
                }
                return Ok(None);
            };
            match (cached, state, loaded.data) {
                (Some(active), Some(_), None) => Ok(Some(active)),
                (Some(active), Some(state), Some(record)) => {
                    // Changed through another instance since.
                    if let Some(parts) = parts::parts(&record) {
                        active.connection.lock().await.refresh(parts);
                        state.rev.store(loaded.rev, Ordering::Release);
                    }
                    Ok(Some(active))
                }
                (_, _, Some(record)) => Ok(self.resume(id, loaded.rev, &record)),
                (_, _, None) => {
                    // Only a caller that knows a revision gets no record.
                    let error = SessionStoreError::new(format!(
                        "the record of session {id} came without its data"
                    ));
                    Err(self.unreachable(&error))
                }
            }
        })
    }

    fn create<'a>(
        &'a self,
        session: &'a Arc<Session>,
    ) -> BoxFuture<'a, Result<Result<(), Full>, Refused>> {
        Box::pin(async move {
            self.begin().await;
            let mut connection = session.connection.lock().await;
            let Some(parts) = connection.parts() else {
                return Ok(Err(Full::Server));
            };
            let record = parts::record(
                &parts,
                session.owner.get().map(String::as_str),
                session.client.as_ref(),
            );
            match self.store.create(&session.id, &record, &self.limits).await {
                Err(error) => Err(self.unreachable(&error)),
                Ok(Err(data::Full::Client)) => Ok(Err(Full::Client)),
                Ok(Err(data::Full::Server)) => Ok(Err(Full::Server)),
                Ok(Ok(ended)) => {
                    for id in ended {
                        // Ended to make room; its holder, if another, is told.
                        self.cache.remove(&id);
                    }
                    // A new record's revision is 1.
                    watch(session, &connection, 1, &self.exports);
                    // Only the instance holding the GET stream is told of
                    // changes by its hub (the notifier's events reach
                    // every instance).
                    connection.unregister_notices();
                    drop(connection);
                    self.cache.adopt(Arc::clone(session));
                    Ok(Ok(()))
                }
            }
        })
    }

    fn write_through<'a>(&'a self, session: &'a Session) -> BoxFuture<'a, Result<(), Refused>> {
        Box::pin(async move {
            let Some(state) = session.fleet.get() else {
                return Ok(());
            };
            let changes =
                std::mem::take(&mut *state.changes.lock().unwrap_or_else(|e| e.into_inner()));
            for change in changes {
                let before = state.rev.load(Ordering::Acquire);
                match self.store.change(&session.id, parts::change(change)).await {
                    // Ours alone since: the cached connection has it.
                    Ok(Some(rev)) if rev == before.wrapping_add(1) => {
                        let _ = state.rev.compare_exchange(
                            before,
                            rev,
                            Ordering::AcqRel,
                            Ordering::Acquire,
                        );
                    }
                    // Changed through another instance too, or gone: the
                    // next request's load says which.
                    Ok(_) => {}
                    Err(error) => {
                        // The cached connection has what the store may
                        // not: read the record again next time.
                        state.rev.store(u64::MAX, Ordering::Release);
                        return Err(self.unreachable(&error));
                    }
                }
            }
            Ok(())
        })
    }

    fn end<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), Refused>> {
        Box::pin(async move {
            match self.store.end(id).await {
                Ok(_) => Ok(()),
                Err(error) => Err(self.unreachable(&error)),
            }
        })
    }

    fn pass_on<'a>(
        &'a self,
        session: &'a Session,
        line: &'a Line<'a>,
    ) -> Option<BoxFuture<'a, Response<Body>>> {
        // Batches are of 2025-03-26 sessions only (dispatch refuses others).
        let batches = session.version.get() == Some(&ProtocolVersion::V2025_03_26);
        if batches && let Some(batch) = routing::batch_for_another(line, self.tag, &session.id) {
            return Some(Box::pin(self.pass_on_batch(session, batch)));
        }
        let (asker, routed) = routing::answer_for_another(line, self.tag, &session.id)?;
        Some(Box::pin(async move {
            match self.store.route(asker.as_str(), &routed.to_text()).await {
                Ok(0) => {
                    tracing::info!(instance = %asker, "an answer for an instance that is gone");
                    unavailable(
                        Some(INTERNAL_ERROR),
                        "Service Unavailable: the server instance that asked this question is \
                         gone, and the call that asked it with it",
                    )
                }
                Ok(_) => accepted(),
                Err(error) => *self.unreachable(&error),
            }
        }))
    }

    fn cancel_elsewhere(
        &self,
        session: &Session,
        connection: &Connection,
        line: &Line<'_>,
    ) -> Option<BoxFuture<'static, ()>> {
        let (id, routed) = routing::cancellation(line, &session.id)?;
        if connection.routed().is_running(&id) {
            return None;
        }
        let store = self.store.clone();
        Some(Box::pin(async move {
            if let Err(error) = store.broadcast(&routed.to_text()).await {
                tracing::warn!(%error, "a cancellation could not be told to the other instances");
            }
        }))
    }
}
