//! The `/mcp` endpoint: POST carries messages in, GET opens a session's
//! stream, DELETE ends a session. Every request is checked in the order
//! of PROTOCOL.md's table, then handed to the same connection core that
//! serves stdio.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::http::header::{ACCEPT, ALLOW, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Response, StatusCode};
use bytes::{Bytes, BytesMut};

use super::HttpConfig;
use super::access::Access;
use super::guard::Guard;
use super::session::{CreateError, Session, Sessions};
use super::sse;
use super::stream::{EventStream, Read, ReaderGuard};
use crate::auth::Identity;
use crate::dispatch::{Connection, ServerCore};
use crate::jsonrpc::{
    self, ErrorObject, INTERNAL_ERROR, INVALID_REQUEST, Line, Message, PARSE_ERROR, is_response,
    is_unaddressed_error,
};
use crate::outbox::Outbox;
use crate::protocol::version::ProtocolVersion;

// Names ready-made: looked up by `&str`, a name is parsed and lowercased
// on every lookup.
pub(super) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
pub(super) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// Bytes a request's output has room for before its queue grows: most
/// replies fit.
pub(super) const REPLY_ROOM: usize = 1024;

/// The version assumed for a request that names none and has no session.
const DEFAULT_VERSION: ProtocolVersion = ProtocolVersion::V2025_03_26;

pub(crate) struct Endpoint {
    pub(crate) core: Arc<ServerCore>,
    stateless: bool,
    guard: Guard,
    /// Bearer tokens and scopes, with `Server::auth` (feature `auth`).
    pub(crate) access: Access,
    pub(crate) sessions: Arc<Sessions>,
    /// Stream numbers of stateless requests, unique per server.
    pub(super) stateless_streams: AtomicU64,
    replay_events: usize,
    shutting_down: AtomicBool,
    /// The output of stateless connections, where nothing goes.
    pub(super) discard: Outbox,
}

/// What a POST brings besides its body: who sent it (with
/// `Server::auth` (feature `auth`)) and its HTTP extensions (for the
/// layers of [`Server::layer`](crate::Server::layer)).
pub(super) struct Sender {
    identity: Option<Arc<Identity>>,
    extensions: axum::http::Extensions,
}

impl Sender {
    /// Makes the connection dispatch the POST's messages as this sender's.
    pub(super) fn hand_to(self, connection: &mut Connection) {
        connection.set_identity(self.identity);
        connection.set_extensions(self.extensions);
    }
}

/// What the client's `Accept` header allows.
#[derive(Clone, Copy)]
pub(super) struct Accepts {
    json: bool,
    sse: bool,
}

impl Accepts {
    fn of(headers: &HeaderMap) -> Accepts {
        let mut accepts = Accepts {
            json: false,
            sse: false,
        };
        let values = headers.get_all(ACCEPT);
        let mut any = false;
        for value in values {
            any = true;
            for item in value.to_str().unwrap_or_default().split(',') {
                let media = item.split(';').next().unwrap_or_default().trim();
                let is = |name: &str| media.eq_ignore_ascii_case(name);
                if is("*/*") {
                    accepts.json = true;
                    accepts.sse = true;
                } else if is("application/json") || is("application/*") {
                    accepts.json = true;
                } else if is("text/event-stream") || is("text/*") {
                    accepts.sse = true;
                }
            }
        }
        if !any {
            // No `Accept` at all accepts anything (RFC 9110).
            accepts = Accepts {
                json: true,
                sse: true,
            };
        }
        accepts
    }
}

impl Endpoint {
    pub(crate) fn new(core: Arc<ServerCore>, config: &HttpConfig, local: bool) -> Endpoint {
        Endpoint {
            core,
            stateless: config.stateless,
            guard: Guard::new(&config.allowed_hosts, &config.allowed_origins, local),
            access: Access::new(config),
            sessions: Arc::new(Sessions::new(
                config.session_idle_timeout,
                config.max_sessions,
                config.replay_events,
            )),
            stateless_streams: AtomicU64::new(1),
            replay_events: config.replay_events,
            shutting_down: AtomicBool::new(false),
            discard: Outbox::discard(),
        }
    }

    /// Serves one HTTP request to `/mcp`.
    pub(crate) async fn handle(&self, request: Request<Body>) -> Response<Body> {
        if let Err(reason) = self.guard.check(request.headers()) {
            tracing::warn!(reason, "HTTP request refused");
            return error(StatusCode::FORBIDDEN, None, reason);
        }
        let identity = match self.access.admit(&self.core, request.headers()).await {
            Ok(identity) => identity,
            Err(refused) => return *refused,
        };
        match *request.method() {
            Method::POST => self.post(request, identity).await,
            Method::GET => self.get(request.headers(), identity.as_deref()),
            Method::DELETE => self.delete(request.headers(), identity.as_deref()),
            _ => {
                let mut response = error(
                    StatusCode::METHOD_NOT_ALLOWED,
                    None,
                    "Method Not Allowed: use POST, GET or DELETE",
                );
                response.headers_mut().insert(
                    ALLOW,
                    HeaderValue::from_static(if self.stateless {
                        "POST"
                    } else {
                        "GET, POST, DELETE"
                    }),
                );
                response
            }
        }
    }

    /// A request for any path but the endpoint's: the Protected Resource
    /// Metadata where it lives, 404 elsewhere.
    pub(crate) fn other(&self, path: &str) -> Response<Body> {
        self.access
            .metadata(&self.core, path)
            .unwrap_or_else(not_found)
    }

    async fn post(
        &self,
        request: Request<Body>,
        identity: Option<Arc<Identity>>,
    ) -> Response<Body> {
        let (mut parts, body) = request.into_parts();
        let sender = Sender {
            identity,
            // For the layers of `Server::layer` (moved, not copied).
            extensions: std::mem::take(&mut parts.extensions),
        };
        let headers = &parts.headers;
        let accepts = Accepts::of(headers);
        if !accepts.json && !accepts.sse {
            return error(
                StatusCode::NOT_ACCEPTABLE,
                None,
                "Not Acceptable: the Accept header must allow application/json and text/event-stream",
            );
        }
        let json_body = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !json_body {
            return error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                None,
                "Unsupported Media Type: the body must be application/json",
            );
        }
        if self.shutting_down.load(Ordering::Acquire) {
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                "Service Unavailable: the server is shutting down",
            );
        }
        let limit = self.core.limits.max_message_bytes;
        let declared = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|n| n > limit) {
            return too_large(limit);
        }
        let Some(body) = read_body(body, limit).await else {
            // Past the limit (a client that went away mid-body reads nothing).
            return too_large(limit);
        };
        let line = jsonrpc::parse_line(&body);
        let initialize = match &line {
            Line::ParseError | Line::Blank => {
                return error(
                    StatusCode::BAD_REQUEST,
                    Some(PARSE_ERROR),
                    "Parse error: the body is not valid JSON",
                );
            }
            Line::Single(Message::Request { method, .. }) => method == "initialize",
            _ => false,
        };
        let modern = super::modern::is_modern(headers, &line);
        let version = match header_version(headers) {
            Ok(version) => version,
            Err(_) if modern => None,
            Err(response) => return *response,
        };
        if let Err(refused) = self
            .access
            .authorize(&self.core, &line, sender.identity.as_deref())
        {
            return *refused;
        }
        if modern {
            return self
                .post_modern(line, body.len(), headers, accepts, sender)
                .await;
        }
        if self.stateless {
            return self
                .post_stateless(line, body.len(), version, initialize, accepts, sender)
                .await;
        }
        // With a session id, `initialize` goes to that session (which
        // refuses a second one, as on stdio); without, it starts one.
        if initialize && !headers.contains_key(&SESSION_ID) {
            return self.initialize(line, body.len(), accepts, sender).await;
        }
        let session = match self.session_of(headers, sender.identity.as_deref()) {
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
        let reader = self.request_stream(session.stream_number());
        {
            let out = reader.stream().outbox(REPLY_ROOM);
            let mut connection = session.connection.lock().await;
            sender.hand_to(&mut connection);
            connection.handle_parsed(line, body.len(), &out).await;
        }
        let response = self
            .respond(
                reader,
                accepts,
                Some(&session),
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
        accepts: Accepts,
        sender: Sender,
    ) -> Response<Body> {
        let session = match self.sessions.create(&self.core) {
            Ok(session) => session,
            Err(CreateError::TooMany) => {
                tracing::warn!(
                    sessions = self.sessions.len(),
                    "initialize refused: too many sessions"
                );
                return error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    Some(INTERNAL_ERROR),
                    "Service Unavailable: too many sessions; try again later",
                );
            }
            Err(CreateError::NoRandomness) => {
                tracing::error!("no random bytes from the operating system for a session id");
                return error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    Some(INTERNAL_ERROR),
                    "internal error",
                );
            }
        };
        if let Some(identity) = &sender.identity {
            let _ = session.owner.set(identity.subject().to_owned());
        }
        let reader = self.request_stream(session.stream_number());
        let version = {
            let out = reader.stream().outbox(REPLY_ROOM);
            let mut connection = session.connection.lock().await;
            sender.hand_to(&mut connection);
            connection.handle_parsed(line, size, &out).await;
            connection.version()
        };
        let Some(version) = version else {
            // Refused (no protocolVersion, bad params): no session.
            return self
                .respond(reader, accepts, None, None, DEFAULT_VERSION)
                .await;
        };
        let _ = session.version.set(version);
        self.sessions.insert(&session);
        let mut response = self
            .respond(reader, accepts, Some(&session), None, version)
            .await;
        if let Ok(id) = HeaderValue::from_str(&session.id) {
            response.headers_mut().insert(SESSION_ID, id);
        }
        response
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
        let number = self.stateless_streams.fetch_add(1, Ordering::Relaxed);
        let reader = self.request_stream(number);
        // Its own output stays unused: every message belongs to the request.
        let mut connection = Connection::new(Arc::clone(&self.core), self.discard.clone());
        let version = version.unwrap_or(DEFAULT_VERSION);
        if !initialize {
            connection.assume_initialized(version);
        }
        sender.hand_to(&mut connection);
        connection
            .handle_parsed(line, size, &reader.stream().outbox(REPLY_ROOM))
            .await;
        self.respond(reader, accepts, None, Some(connection), version)
            .await
    }

    /// The session a request names: 400 without one, 404 if unknown or
    /// (with auth) created by another subject.
    fn session_of(
        &self,
        headers: &HeaderMap,
        identity: Option<&Identity>,
    ) -> Result<Arc<Session>, Box<Response<Body>>> {
        let Some(id) = headers.get(&SESSION_ID) else {
            return Err(Box::new(error(
                StatusCode::BAD_REQUEST,
                Some(INVALID_REQUEST),
                "Bad Request: Mcp-Session-Id header is required (send initialize first to get one)",
            )));
        };
        let id = id.to_str().unwrap_or_default();
        let found = self.sessions.get(id).filter(|session| {
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

    /// A new stream for a POST's replies, read from the start: until the
    /// POST is answered, nothing its request reports is dropped (a stream
    /// nobody reads keeps only its newest events).
    pub(super) fn request_stream(&self, number: u64) -> ReaderGuard {
        EventStream::new(number, self.replay_events).attach()
    }

    /// The answer to a POST, from what its messages produced: 202 for none,
    /// plain JSON for a lone response, an SSE stream otherwise.
    pub(super) async fn respond(
        &self,
        reader: ReaderGuard,
        accepts: Accepts,
        session: Option<&Arc<Session>>,
        connection: Option<Connection>,
        version: ProtocolVersion,
    ) -> Response<Body> {
        let stream = Arc::clone(reader.stream());
        let Read::Events(first) = stream.read(0).await else {
            return accepted();
        };
        let lone_response = first.len() == 1 && is_response(&first[0].1) && stream.is_finished();
        if lone_response && accepts.json || !accepts.sse {
            // Plain JSON: the response alone (a client that takes no SSE
            // cannot be sent the notifications before it).
            let mut events = first;
            loop {
                if let Some((_, line)) = events.iter().find(|(_, line)| is_response(line)) {
                    if version.is_modern() {
                        let status = super::modern::status_of(line);
                        return json_response_with(status, line.clone());
                    }
                    return json_response(line.clone());
                }
                let cursor = events.last().map_or(0, |e| e.0);
                let Read::Events(more) = stream.read(cursor).await else {
                    return accepted();
                };
                events = more;
            }
        }
        if let Some(session) = session {
            session.keep_stream(&stream);
        }
        // Only a session's streams can be resumed (GET needs one).
        let prime = session.is_some() && version >= ProtocolVersion::V2025_11_25;
        sse::response(sse::Feed {
            stream,
            cursor: 0,
            first: Some(first),
            prime,
            ids: !version.is_modern(),
            reader,
            session: session.cloned(),
            connection,
        })
    }

    fn get(&self, headers: &HeaderMap, identity: Option<&Identity>) -> Response<Body> {
        let modern = !headers.contains_key(&SESSION_ID)
            && headers.get(&PROTOCOL_VERSION).is_some_and(|v| {
                ProtocolVersion::parse_legacy(v.to_str().unwrap_or_default().trim()).is_none()
            });
        if modern {
            return method_not_allowed(
                "Method Not Allowed: protocol 2026-07-28 has no GET stream; POST subscriptions/listen to hear of changes",
                "POST",
            );
        }
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
        let session = match self.session_of(headers, identity) {
            Ok(session) => session,
            Err(response) => return *response,
        };
        let version = session.version.get().copied().unwrap_or(DEFAULT_VERSION);
        if let Some(last) = headers.get(&LAST_EVENT_ID) {
            let (stream, cursor) = match parse_event_id(last.to_str().unwrap_or_default())
                .and_then(|(number, seq)| Some((session.stream(number)?, seq)))
            {
                Some(found) => found,
                None => {
                    // Nothing kept to resume: an empty stream that ends.
                    let stream = EventStream::new(u64::MAX, 1);
                    stream.close();
                    (stream, 0)
                }
            };
            let reader = stream.attach();
            return sse::response(sse::Feed {
                stream,
                cursor,
                first: None,
                prime: false,
                ids: true,
                reader,
                session: Some(session),
                connection: None,
            });
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
            session: Some(session),
            connection: None,
        })
    }

    fn delete(&self, headers: &HeaderMap, identity: Option<&Identity>) -> Response<Body> {
        if self.stateless {
            return method_not_allowed(
                "Method Not Allowed: this server is stateless and has no sessions to end",
                "POST",
            );
        }
        let session = match self.session_of(headers, identity) {
            Ok(session) => session,
            Err(response) => return *response,
        };
        self.sessions.remove(&session.id);
        Response::builder()
            .status(StatusCode::NO_CONTENT)
            .body(Body::empty())
            .unwrap_or_default()
    }

    /// Shutdown: refuse new work, let calls in flight answer within
    /// `grace`, then end every session.
    pub(crate) async fn shutdown(&self, grace: Duration) {
        self.shutting_down.store(true, Ordering::Release);
        // Open subscriptions (2026-07-28) are answered, which ends them.
        self.core.hub.end_subscriptions();
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

/// The `MCP-Protocol-Version` header: `None` when absent, 400 when it
/// names a version this server does not serve.
fn header_version(headers: &HeaderMap) -> Result<Option<ProtocolVersion>, Box<Response<Body>>> {
    let Some(value) = headers.get(&PROTOCOL_VERSION) else {
        return Ok(None);
    };
    let text = value.to_str().unwrap_or_default().trim();
    match ProtocolVersion::parse(text) {
        Some(version) => Ok(Some(version)),
        None => Err(Box::new(error(
            StatusCode::BAD_REQUEST,
            Some(INVALID_REQUEST),
            &format!(
                "Bad Request: unsupported MCP-Protocol-Version {text:?}; supported: {}",
                ProtocolVersion::ALL
                    .iter()
                    .map(|v| v.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ))),
    }
}

/// The whole body, or `None` past `limit` bytes or on an error. A body
/// that comes in one piece (most do) is taken as it is, without a copy.
async fn read_body(body: Body, limit: usize) -> Option<Bytes> {
    use futures_util::StreamExt;
    let mut chunks = body.into_data_stream();
    let mut whole = Bytes::new();
    let mut joined: Option<BytesMut> = None;
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.ok()?;
        let so_far = joined.as_ref().map_or(whole.len(), BytesMut::len);
        if so_far + chunk.len() > limit {
            return None;
        }
        match &mut joined {
            Some(joined) => joined.extend_from_slice(&chunk),
            None if whole.is_empty() => whole = chunk,
            None => {
                let mut both = BytesMut::with_capacity(so_far + chunk.len());
                both.extend_from_slice(&whole);
                both.extend_from_slice(&chunk);
                joined = Some(both);
            }
        }
    }
    Some(joined.map_or(whole, BytesMut::freeze))
}

/// `N_M` → stream `N`, event `M`.
fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.trim().split_once('_')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

/// 202: what was posted needs no answer (or its request was cancelled).
pub(super) fn accepted() -> Response<Body> {
    Response::builder()
        .status(StatusCode::ACCEPTED)
        .body(Body::empty())
        .unwrap_or_default()
}

fn json_response(line: Bytes) -> Response<Body> {
    let status = if is_unaddressed_error(&line) {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    json_response_with(status, line)
}

/// `line` as a plain JSON answer with `status`.
pub(super) fn json_response_with(status: StatusCode, line: Bytes) -> Response<Body> {
    Response::builder()
        .status(status)
        .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
        .body(Body::from(line))
        .unwrap_or_default()
}

fn too_large(limit: usize) -> Response<Body> {
    error_response(
        StatusCode::PAYLOAD_TOO_LARGE,
        &ErrorObject::too_large(limit),
    )
}

fn method_not_allowed(message: &str, allow: &'static str) -> Response<Body> {
    let mut response = error(StatusCode::METHOD_NOT_ALLOWED, None, message);
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    response
}

/// Any path but the endpoint's.
pub(crate) fn not_found() -> Response<Body> {
    error(
        StatusCode::NOT_FOUND,
        None,
        "Not Found: the MCP endpoint is /mcp",
    )
}

/// An HTTP error whose body is a JSON-RPC error without an id, as the
/// transport specification suggests (`code` -32600 unless given).
pub(crate) fn error(status: StatusCode, code: Option<i32>, message: &str) -> Response<Body> {
    error_response(
        status,
        &ErrorObject::new(code.unwrap_or(INVALID_REQUEST), message),
    )
}

/// `status`, with `error` (and no id) as the body.
fn error_response(status: StatusCode, error: &ErrorObject) -> Response<Body> {
    let mut body = Vec::new();
    jsonrpc::write_error(&mut body, None, error);
    Response::builder()
        .status(status)
        .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
        .header(CACHE_CONTROL, HeaderValue::from_static("no-store"))
        .body(Body::from(body))
        .unwrap_or_default()
}
