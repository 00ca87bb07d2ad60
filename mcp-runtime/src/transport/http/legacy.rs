//! The session eras (2025-03-26 to 2025-11-25) at the endpoint: POST with
//! or without a session (`initialize` starts one), GET for a session's
//! stream or to resume one with `Last-Event-ID`, DELETE to end a session;
//! in stateless mode every POST stands alone and GET and DELETE are 405.
//!
//! Resuming a POST's stream the session no longer keeps answers its
//! request with an error, which the event id names
//! ([`event_id`](super::event_id)): a client that got an empty stream would
//! resume it again and again.
//!
//! With a store of shared sessions (`Server::sessions`), each request's
//! session is found through the [`Fleet`] (the local sessions are then its
//! cache), what the client changes is written through before the response,
//! the client's answers to another instance's questions and its
//! cancellations of calls running elsewhere are passed on, and `initialize`
//! and `DELETE` start and end the session fleet-wide.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode};

use super::HttpConfig;
use super::client::Clients;
use super::event_id::{self, EventId};
use super::fleet::Fleet;
use super::headers::{Accepts, LAST_EVENT_ID, SESSION_ID};
use super::reply::{error, method_not_allowed, unavailable};
use super::request::{Posts, REPLY_ROOM, Sender, respond};
use super::session::{Active, Session};
use super::sessions::{Bounds, Full, NoRandomness, Sessions};
use super::sse;
use super::stream::ReaderGuard;
use crate::auth::Identity;
use crate::dispatch::ServerCore;
use crate::jsonrpc::{ErrorObject, INTERNAL_ERROR, INVALID_REQUEST, Line, Message, write_error};
use crate::protocol::version::ProtocolVersion;

/// The version assumed for a request that names none and has no session.
const DEFAULT_VERSION: ProtocolVersion = ProtocolVersion::V2025_03_26;

/// The endpoint of the session eras.
pub(super) struct Legacy {
    core: Arc<ServerCore>,
    stateless: bool,
    sessions: Arc<Sessions>,
    clients: Clients,
    posts: Arc<Posts>,
    /// The fleet's shared sessions, with `Server::sessions`.
    fleet: Option<Arc<dyn Fleet>>,
}

impl Legacy {
    pub(super) fn new(core: Arc<ServerCore>, config: &HttpConfig, posts: Arc<Posts>) -> Legacy {
        // In a fleet the bounds are the store's, fleet-wide; here they
        // only bound the cache.
        let per_client = match &config.sessions {
            Some(_) => config.max_sessions,
            None => config.per_client(),
        };
        let sessions = Arc::new(Sessions::new(Bounds {
            idle_timeout: config.session_idle_timeout,
            max: config.max_sessions,
            per_client,
            replay_events: config.replay_events,
        }));
        let fleet = config.sessions.as_ref().map(|store| {
            store
                .shared
                .fleet(Arc::clone(&core), Arc::clone(&sessions), config)
        });
        Legacy {
            core,
            stateless: config.stateless,
            sessions,
            clients: Clients::new(&config.trusted_proxies),
            posts,
            fleet,
        }
    }

    /// A POST of the session eras, its headers checked by the endpoint;
    /// `version` is what its `MCP-Protocol-Version` header names.
    pub(super) async fn post(
        &self,
        line: Line<'_>,
        size: usize,
        headers: &HeaderMap,
        version: Option<ProtocolVersion>,
        accepts: Accepts,
        sender: Sender,
    ) -> Response<Body> {
        let initialize = matches!(&line, Line::Single(Message::Request { method, .. }) if method == "initialize");
        if self.stateless {
            return self
                .post_stateless(line, size, version, initialize, accepts, sender)
                .await;
        }
        // With a session id, `initialize` goes to that session (which
        // refuses a second one, as on stdio); without, it starts one.
        if initialize && !headers.contains_key(&SESSION_ID) {
            return self.initialize(line, size, headers, accepts, sender).await;
        }
        let session = match self.session_of(headers, sender.identity()).await {
            Ok(session) => session,
            Err(response) => return *response,
        };
        let negotiated = session.version.get().copied();
        if let (Some(asked), Some(negotiated)) = (version, negotiated)
            && asked != negotiated
        {
            return error(
                StatusCode::BAD_REQUEST,
                Some(INVALID_REQUEST),
                &format!(
                    "Bad Request: MCP-Protocol-Version {asked} is not the version this session negotiated ({negotiated})"
                ),
            );
        }
        if let Some(passed) = (self.fleet.as_ref()).and_then(|fleet| fleet.pass_on(&session, &line))
        {
            return passed.await;
        }
        let reader = self.stream_of(&session, &line);
        {
            let out = reader.stream().outbox(REPLY_ROOM);
            let mut connection = session.connection.lock().await;
            let elsewhere = (self.fleet.as_ref())
                .and_then(|fleet| fleet.cancel_elsewhere(&session, &connection, &line));
            sender.hand_to(&mut connection);
            connection.handle_parsed(line, size, &out).await;
            if let Some(fleet) = &self.fleet
                && let Err(response) = fleet.write_through(&session).await
            {
                return *response;
            }
            if let Some(elsewhere) = elsewhere {
                elsewhere.await;
            }
        }
        let response = respond(
            reader,
            accepts,
            Some(&*session),
            None,
            negotiated.unwrap_or(DEFAULT_VERSION),
        )
        .await;
        self.sessions.touch(&session);
        response
    }

    /// `initialize` in stateful mode: a new session, kept if it succeeds.
    async fn initialize(
        &self,
        line: Line<'_>,
        size: usize,
        headers: &HeaderMap,
        accepts: Accepts,
        sender: Sender,
    ) -> Response<Body> {
        let client = self.clients.of(sender.identity(), sender.peer(), headers);
        let created = match &self.fleet {
            Some(fleet) => fleet.new_session(client),
            None => self.sessions.create(&self.core, client),
        };
        let session = match created {
            Ok(session) => session,
            Err(NoRandomness) => {
                tracing::error!("no random bytes from the operating system for a session id");
                return error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    Some(INTERNAL_ERROR),
                    "internal error",
                );
            }
        };
        if let Some(identity) = sender.identity() {
            let _ = session.owner.set(identity.subject().to_owned());
        }
        let reader = self.stream_of(&session, &line);
        let version = {
            let out = reader.stream().outbox(REPLY_ROOM);
            let mut connection = session.connection.lock().await;
            sender.hand_to(&mut connection);
            connection.handle_parsed(line, size, &out).await;
            connection.version()
        };
        let Some(version) = version else {
            // Refused (no protocolVersion, bad params): no session.
            return respond(reader, accepts, None, None, DEFAULT_VERSION).await;
        };
        let _ = session.version.set(version);
        let kept = match &self.fleet {
            Some(fleet) => match fleet.create(&session).await {
                Ok(kept) => kept,
                Err(response) => {
                    Arc::clone(&session).end();
                    return *response;
                }
            },
            None => self.sessions.insert(&session),
        };
        if let Err(full) = kept {
            Arc::clone(&session).end();
            return self.refuse(full);
        }
        let mut response = respond(reader, accepts, Some(&session), None, version).await;
        if let Ok(id) = HeaderValue::from_str(&session.id) {
            response.headers_mut().insert(SESSION_ID, id);
        }
        response
    }

    /// 503 for a session that found no room: every session that could have
    /// made it is in use.
    fn refuse(&self, full: Full) -> Response<Body> {
        tracing::warn!(
            sessions = self.sessions.len(),
            ?full,
            "initialize refused: no room for a session, and every one that could make room is in use"
        );
        unavailable(
            Some(INTERNAL_ERROR),
            match full {
                Full::Client => {
                    "Service Unavailable: this client holds as many sessions as it may, and \
                     each is in use; end one with DELETE, or try again later"
                }
                Full::Server => {
                    "Service Unavailable: too many sessions, and each is in use; try again later"
                }
            },
        )
    }

    /// A new stream of `session` for the POST of `line`, its event ids
    /// naming the request the POST carries.
    fn stream_of(&self, session: &Session, line: &Line<'_>) -> ReaderGuard {
        let tag = match line {
            Line::Single(Message::Request { id, .. }) => event_id::request_tag(id),
            _ => None,
        };
        self.posts.stream_for(session.stream_number(), tag)
    }

    async fn post_stateless(
        &self,
        line: Line<'_>,
        size: usize,
        version: Option<ProtocolVersion>,
        initialize: bool,
        accepts: Accepts,
        sender: Sender,
    ) -> Response<Body> {
        let (reader, mut connection) = self.posts.lone();
        let version = version.unwrap_or(DEFAULT_VERSION);
        if !initialize {
            connection.assume_initialized(version);
        }
        sender.hand_to(&mut connection);
        connection
            .handle_parsed(line, size, &reader.stream().outbox(REPLY_ROOM))
            .await;
        respond(reader, accepts, None, Some(connection), version).await
    }

    /// The session a request names: 400 without one, 404 if unknown or
    /// (with auth) created by another subject; in a fleet, 503 when the
    /// store cannot be reached.
    async fn session_of(
        &self,
        headers: &HeaderMap,
        identity: Option<&Identity>,
    ) -> Result<Active, Box<Response<Body>>> {
        let Some(id) = headers.get(&SESSION_ID) else {
            return Err(Box::new(error(
                StatusCode::BAD_REQUEST,
                Some(INVALID_REQUEST),
                "Bad Request: Mcp-Session-Id header is required (send initialize first to get one)",
            )));
        };
        let id = id.to_str().unwrap_or_default();
        let found = match &self.fleet {
            Some(fleet) => fleet.session(id).await?,
            None => self.sessions.get(id),
        };
        let found = found.filter(|session| {
            let Some(owner) = session.owner.get() else {
                return true;
            };
            let same = identity.is_some_and(|who| who.subject() == owner);
            if !same {
                // Answered as an unknown session: whether another user's
                // session exists is not this caller's business.
                tracing::warn!(
                    subject = identity.map(Identity::subject),
                    "a session id created by another subject was refused"
                );
            }
            same
        });
        found.ok_or_else(|| {
            Box::new(error(
                StatusCode::NOT_FOUND,
                Some(INVALID_REQUEST),
                "Not Found: unknown or expired session; send initialize to start a new one",
            ))
        })
    }

    /// GET: a session's stream, or the rest of one with `Last-Event-ID`.
    pub(super) async fn get(
        &self,
        headers: &HeaderMap,
        identity: Option<&Identity>,
    ) -> Response<Body> {
        if self.stateless {
            return method_not_allowed(
                "Method Not Allowed: this server is stateless and has no stream to GET",
                "POST",
            );
        }
        if !Accepts::of(headers).sse {
            return error(
                StatusCode::NOT_ACCEPTABLE,
                None,
                "Not Acceptable: GET opens an SSE stream; the Accept header must allow text/event-stream",
            );
        }
        let session = match self.session_of(headers, identity).await {
            Ok(session) => session,
            Err(response) => return *response,
        };
        let version = session.version.get().copied().unwrap_or(DEFAULT_VERSION);
        let last = headers
            .get(&LAST_EVENT_ID)
            .map(|last| last.to_str().unwrap_or_default());
        if let Some(fleet) = &self.fleet {
            // As in memory mode: a resumed stream is not primed again.
            let prime = last.is_none() && version >= ProtocolVersion::V2025_11_25;
            if let Some(held) = fleet.get(Arc::clone(&session), last, prime) {
                return held.await;
            }
        }
        if let Some(last) = headers.get(&LAST_EVENT_ID) {
            return resume(&session, last.to_str().unwrap_or_default());
        }
        let stream = Arc::clone(&session.standalone);
        if stream.has_readers() {
            return error(
                StatusCode::CONFLICT,
                None,
                "Conflict: this session's GET stream is already open",
            );
        }
        let reader = stream.attach();
        let cursor = stream.delivered();
        sse::response(sse::Feed {
            stream,
            cursor,
            first: None,
            prime: version >= ProtocolVersion::V2025_11_25,
            ids: true,
            reader,
            session: Some(Arc::clone(&session)),
            connection: None,
        })
    }

    /// DELETE: ends the session (fleet-wide, in a fleet).
    pub(super) async fn delete(
        &self,
        headers: &HeaderMap,
        identity: Option<&Identity>,
    ) -> Response<Body> {
        if self.stateless {
            return method_not_allowed(
                "Method Not Allowed: this server is stateless and has no sessions to end",
                "POST",
            );
        }
        let session = match self.session_of(headers, identity).await {
            Ok(session) => session,
            Err(response) => return *response,
        };
        if let Some(fleet) = &self.fleet
            && let Err(response) = fleet.end(&session.id).await
        {
            return *response;
        }
        self.sessions.remove(&session.id);
        Response::builder()
            .status(StatusCode::NO_CONTENT)
            .body(Body::empty())
            .unwrap_or_default()
    }

    /// Until this instance listens to its fleet (if it has one), what
    /// starts it: awaited by every request, of either era.
    pub(super) fn start_fleet(&self) -> Option<futures_util::future::BoxFuture<'_, ()>> {
        self.fleet.as_ref()?.start()
    }

    /// Shutdown: every session's GET stream ends, its calls in flight get
    /// `grace` to answer, then every session ends.
    pub(super) async fn shutdown(&self, grace: Duration) {
        let sessions = self.sessions.all();
        for session in &sessions {
            session.standalone.close();
        }
        let drains = sessions.into_iter().map(|session| async move {
            session.connection.lock().await.drain(grace).await;
        });
        let _ = tokio::time::timeout(grace, futures_util::future::join_all(drains)).await;
        self.sessions.end_all();
    }
}

/// GET with `Last-Event-ID`: the rest of the stream it names, from the
/// event after it. A POST's stream the session no longer keeps (read to its
/// end and then pushed out by newer ones) gets one event, an error response
/// to the request the id names; 410 if it names none; 400 for an id of no
/// stream of this session's.
fn resume(session: &Arc<Session>, last: &str) -> Response<Body> {
    let Some(EventId {
        stream: number,
        request,
        seq,
        ..
    }) = event_id::parse(last)
    else {
        return error(
            StatusCode::BAD_REQUEST,
            Some(INVALID_REQUEST),
            "Bad Request: Last-Event-ID is not the id of an event this server sent",
        );
    };
    if let Some(stream) = session.stream(number) {
        let reader = stream.attach();
        return sse::response(sse::Feed {
            stream,
            cursor: seq,
            first: None,
            prime: false,
            ids: true,
            reader,
            session: Some(Arc::clone(session)),
            connection: None,
        });
    }
    if !session.issued(number) {
        return error(
            StatusCode::BAD_REQUEST,
            Some(INVALID_REQUEST),
            "Bad Request: Last-Event-ID names no stream of this session",
        );
    }
    let Some(request) = request else {
        // A batch's stream, or one whose request id was too long to name:
        // nothing to answer, and 404 would tell the client that the
        // session is gone.
        return error(
            StatusCode::GONE,
            Some(INVALID_REQUEST),
            "Gone: the server no longer keeps the stream Last-Event-ID names, so what was left \
             of it is lost",
        );
    };
    tracing::info!(
        request = request.as_json(),
        "a client resumed a stream no longer kept; its request is answered with an error"
    );
    let mut line = Vec::new();
    write_error(
        &mut line,
        Some(&request),
        &ErrorObject::new(
            INTERNAL_ERROR,
            "the server no longer keeps this request's stream, so its result is lost; \
             send the request again",
        ),
    );
    sse::single(&line)
}
