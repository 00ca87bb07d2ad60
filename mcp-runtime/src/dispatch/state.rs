//! One client connection's state: the server it serves, its session, its
//! calls, what it last saw served, and who sends what it reads. Transports
//! hold a [`Connection`], feed it lines (see `dispatch::serve`) and drain
//! its [`Outbox`]; it never touches stdin or stdout itself. Each era's
//! handling of a request is a room of its own (`connection` for legacy
//! sessions, `modern` for 2026-07-28); both read and write this state.

use std::sync::Arc;

use super::calls::Calls;
use super::core::ServerCore;
use super::live::Held;
use crate::auth::Identity;
#[cfg(feature = "http")]
use crate::context::ClientInfo;
use crate::context::SessionShared;
use crate::notify::Subscription;
use crate::outbox::Outbox;
#[cfg(feature = "http")]
use crate::protocol::version::ProtocolVersion;
use crate::telemetry;

pub(crate) struct Connection {
    pub(super) core: Arc<ServerCore>,
    /// Where [`Connection::handle`] sends what it reads (stdio); a message
    /// dispatched with [`Connection::handle_parsed`] (HTTP) names its own.
    pub(super) out: Outbox,
    /// Set by `initialize` (legacy), or for one request of the 2026-07-28
    /// era while it is routed.
    pub(super) session: Option<Arc<SessionShared>>,
    pub(super) calls: Calls,
    /// What is served, as this connection last saw it.
    pub(super) held: Held,
    /// Who sent the message being dispatched, when the transport
    /// authenticated it (HTTP with auth); set before each dispatch.
    pub(super) identity: Option<Arc<Identity>>,
    /// The HTTP session this connection serves, for middleware and
    /// telemetry.
    pub(super) session_id: Option<Arc<str>>,
    /// The extensions of the HTTP request being dispatched, for middleware
    /// (empty elsewhere); set before each dispatch.
    pub(super) extensions: http::Extensions,
    /// Whether messages come over HTTP (`handle_parsed`), for telemetry.
    pub(super) http: bool,
    /// Every request is of the 2026-07-28 era (an HTTP request whose
    /// headers said so), whatever its `_meta` claims.
    pub(super) modern_only: bool,
    /// The 2026-07-28 subscriptions this connection's listen requests
    /// opened: they last as long as it does.
    pub(super) listens: Vec<Arc<Subscription>>,
    /// The session's span, from `initialize` (or its resumption) until the
    /// connection is dropped.
    pub(super) session_span: tracing::Span,
    /// Whether the server's hub tells this connection's session about
    /// changes (see [`Connection::register_notices`]).
    pub(super) registered: bool,
}

impl Connection {
    pub(crate) fn new(core: Arc<ServerCore>, out: Outbox) -> Connection {
        let calls = Calls::new(&core.limits);
        Connection {
            held: core.live.hold(),
            core,
            out,
            session: None,
            calls,
            identity: None,
            session_id: None,
            extensions: http::Extensions::new(),
            http: false,
            modern_only: false,
            listens: Vec::new(),
            session_span: tracing::Span::none(),
            registered: false,
        }
    }

    /// Who sends the messages dispatched from now on (each HTTP request
    /// carries its own token).
    pub(crate) fn set_identity(&mut self, identity: Option<Arc<Identity>>) {
        self.identity = identity;
    }

    /// The HTTP session this connection serves (its spans say so).
    #[cfg(feature = "http")]
    pub(crate) fn set_session_id(&mut self, id: Arc<str>) {
        self.session_id = Some(id);
    }

    /// The extensions of the HTTP request whose messages are dispatched
    /// from now on, for the layers of [`Server::layer`](crate::Server::layer)
    /// to read. Kept only when the server has layers: moving them here costs
    /// nothing, copying them would.
    #[cfg(feature = "http")]
    pub(crate) fn set_extensions(&mut self, extensions: http::Extensions) {
        if self.core.service.is_some() {
            self.extensions = extensions;
        }
    }

    /// The version negotiated by `initialize`, once it is done.
    #[cfg(feature = "http")]
    pub(crate) fn version(&self) -> Option<ProtocolVersion> {
        self.session.as_ref().map(|s| s.version)
    }

    /// Serves as if `initialize` had negotiated `version` with an unnamed
    /// client: a stateless HTTP request stands alone.
    #[cfg(feature = "http")]
    pub(crate) fn assume_initialized(&mut self, version: ProtocolVersion) {
        self.session = Some(Arc::new(
            SessionShared::new(Arc::clone(&self.core.state), version, ClientInfo::default())
                .with_ask_timeout(self.core.limits.client_request_timeout)
                .one_way(),
        ));
    }

    /// Serves every request in the 2026-07-28 era (an HTTP request whose
    /// headers said so), whatever its `_meta` claims.
    #[cfg(feature = "http")]
    pub(crate) fn serve_modern(&mut self) {
        self.modern_only = true;
    }

    /// Cancels every call in flight (the session ended).
    #[cfg(feature = "http")]
    pub(crate) fn abort_all(&mut self) {
        self.calls.abort_all();
    }

    /// Waits up to `grace` for the calls in flight to answer, then drops
    /// the rest (shutdown).
    #[cfg(feature = "http")]
    pub(crate) async fn drain(&mut self, grace: std::time::Duration) {
        self.calls.finish(grace).await;
    }

    /// Where the messages come from, for their spans.
    pub(super) fn peer(&self) -> telemetry::Peer<'_> {
        telemetry::Peer {
            session: self.session.as_deref(),
            session_id: self.session_id.as_deref(),
            http: self.http,
        }
    }
}
