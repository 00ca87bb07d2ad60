//! One POST's way through either era: who sent it ([`Sender`]), its body
//! read within the limit, a numbered stream for what its messages produce
//! ([`Posts`]), and the answer made of that stream ([`respond`]).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Response;
use bytes::{Bytes, BytesMut};

use super::headers::Accepts;
use super::reply::{accepted, json_response, json_response_with, status_of};
use super::session::Session;
use super::sse;
use super::stream::{EventStream, Read, ReaderGuard};
use crate::auth::Identity;
use crate::dispatch::{Connection, ServerCore};
use crate::jsonrpc::is_response;
use crate::outbox::Outbox;
use crate::protocol::version::ProtocolVersion;

/// Bytes a request's output has room for before its queue grows: most
/// replies fit.
pub(super) const REPLY_ROOM: usize = 1024;

/// What a POST brings besides its body: who sent it (with
/// `Server::auth` (feature `auth`)), the peer's address when known, and its
/// HTTP extensions (for the layers of [`Server::layer`](crate::Server::layer)).
pub(super) struct Sender {
    identity: Option<Arc<Identity>>,
    peer: Option<SocketAddr>,
    extensions: axum::http::Extensions,
}

impl Sender {
    pub(super) fn new(
        identity: Option<Arc<Identity>>,
        extensions: axum::http::Extensions,
    ) -> Sender {
        // Put there by our listener, or by axum's
        // `into_make_service_with_connect_info` around a mounted router.
        let peer = extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|info| info.0);
        Sender {
            identity,
            peer,
            extensions,
        }
    }

    /// The address of the peer that sent it, if known.
    pub(super) fn peer(&self) -> Option<SocketAddr> {
        self.peer
    }

    /// Who the token proves the sender is, with auth.
    pub(super) fn identity(&self) -> Option<&Identity> {
        self.identity.as_deref()
    }

    /// Makes the connection dispatch the POST's messages as this sender's.
    pub(super) fn hand_to(self, connection: &mut Connection) {
        connection.set_identity(self.identity);
        connection.set_extensions(self.extensions);
    }
}

/// The whole body, or `None` past `limit` bytes or on an error. A body
/// that comes in one piece (most do) is taken as it is, without a copy.
pub(super) async fn read_body(body: Body, limit: usize) -> Option<Bytes> {
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

/// Streams for POSTs' replies, and connections for the POSTs that stand
/// alone (stateless mode, and every POST of the 2026-07-28 era). One per
/// endpoint, shared by both eras.
pub(super) struct Posts {
    core: Arc<ServerCore>,
    /// Stream numbers of lone POSTs, unique per server.
    numbers: AtomicU64,
    replay_events: usize,
    /// The output of lone connections, where nothing goes.
    discard: Outbox,
}

impl Posts {
    pub(super) fn new(core: Arc<ServerCore>, replay_events: usize) -> Posts {
        Posts {
            core,
            numbers: AtomicU64::new(1),
            replay_events,
            discard: Outbox::discard(),
        }
    }

    /// A new stream for a POST's replies, read from the start: until the
    /// POST is answered, nothing its request reports is dropped (a stream
    /// nobody reads keeps only its newest events).
    pub(super) fn stream(&self, number: u64) -> ReaderGuard {
        EventStream::tagged(number, None, self.replay_events).attach()
    }

    /// [`stream`](Self::stream) whose event ids name the request `tag`
    /// stands for ([`event_id`](super::event_id)), and in a fleet this
    /// instance, which keeps it.
    pub(super) fn stream_for(&self, number: u64, tag: Option<Box<str>>) -> ReaderGuard {
        let instance = self.core.instance();
        EventStream::kept_by(instance, number, tag, self.replay_events).attach()
    }

    /// A stream and a connection for a POST that stands alone; the
    /// connection's own output stays unused: every message belongs to the
    /// request.
    pub(super) fn lone(&self) -> (ReaderGuard, Connection) {
        let number = self.numbers.fetch_add(1, Ordering::Relaxed);
        let connection = Connection::new(Arc::clone(&self.core), self.discard.clone());
        (self.stream(number), connection)
    }
}

/// The answer to a POST, from what its messages produced: 202 for none,
/// plain JSON for a lone response, an SSE stream otherwise.
pub(super) async fn respond(
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
                    return json_response_with(status_of(line), line.clone());
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
