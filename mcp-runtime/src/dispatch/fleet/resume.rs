//! A legacy session served from what a fleet's store keeps of it: a
//! [`Connection`] that starts initialized ([`Connection::resume`]), the
//! parts to store once `initialize` is done ([`Connection::parts`]), the
//! changes to store as the client makes them
//! ([`Connection::watch_changes`]), and a cached connection brought up to
//! date with changes made through another instance
//! ([`Connection::refresh`]).

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::context::{ChangeHook, ClientInfo, SessionShared};
use crate::dispatch::core::ServerCore;
use crate::dispatch::state::Connection;
use crate::outbox::Outbox;
use crate::protocol::version::ProtocolVersion;

/// What a fleet's store keeps of a legacy session, as plain values: what
/// `initialize` agreed on (never changed since) and what the client
/// changed after.
#[derive(Clone, Debug)]
pub(crate) struct SessionParts {
    /// The protocol version `initialize` negotiated.
    pub(crate) version: ProtocolVersion,
    /// The client, as `initialize` described it (with its capabilities).
    pub(crate) client: ClientInfo,
    /// The level set by `logging/setLevel` (a
    /// [`LogLevel`](crate::LogLevel) as `u8`; `info` until set).
    pub(crate) log_level: u8,
    /// The URIs of the resources the client subscribed to.
    pub(crate) subscriptions: HashSet<String>,
    /// How many times the client said its roots changed
    /// (`notifications/roots/list_changed`): when it moves, the roots an
    /// instance kept are asked again.
    pub(crate) roots_epoch: u64,
}

impl Connection {
    /// A connection serving the legacy session `parts` describe, already
    /// initialized: no `initialize` is dispatched (a second one would be
    /// refused), and nothing is logged but "session resumed" at debug.
    /// Its requests to the client wait as long as `initialize` would have
    /// set; what belongs to no call goes to `out`, as for a session
    /// `initialize` started. Unlike that session, the hub does not tell it
    /// about changes until [`Connection::register_notices`] (only the
    /// instance holding the session's GET stream does), and what the
    /// client changes is reported only once
    /// [`Connection::watch_changes`] is set.
    pub(crate) fn resume(core: Arc<ServerCore>, out: Outbox, parts: SessionParts) -> Connection {
        let SessionParts {
            version,
            client,
            log_level,
            subscriptions,
            roots_epoch,
        } = parts;
        let session = core.new_session(version, client);
        session.log_level.store(log_level, Ordering::Relaxed);
        session.roots_epoch.store(roots_epoch, Ordering::Relaxed);
        if let Ok(mut subscribed) = session.subscriptions.lock() {
            *subscribed = subscriptions;
        }
        tracing::debug!(
            client = %session.client.name,
            client_version = %session.client.version,
            negotiated = %session.version,
            "session resumed"
        );
        let mut connection = Connection::new(core, out);
        // Only a session served over HTTP is ever resumed.
        connection.http = true;
        connection.start(Arc::new(session));
        connection
    }

    /// What a store keeps of this connection's session, as it is now
    /// (after `initialize`, to store it); `None` before `initialize`.
    pub(crate) fn parts(&self) -> Option<SessionParts> {
        self.session.as_deref().map(SessionShared::parts)
    }

    /// Tells `hook` of each change the client makes to this connection's
    /// session from now on (`logging/setLevel`, `resources/subscribe` and
    /// `unsubscribe` once they succeed, `notifications/roots/list_changed`),
    /// so that a fleet's store keeps them. Set it right after
    /// [`Connection::resume`], or after `initialize`, before the next
    /// message. `false` when there is no session yet, or it has a hook
    /// already (which stays).
    pub(crate) fn watch_changes(&self, hook: ChangeHook) -> bool {
        self.session
            .as_ref()
            .is_some_and(|session| session.on_change.set(hook).is_ok())
    }

    /// Brings this connection's session (cached by an instance of a
    /// fleet) up to date with `parts` stored since, changed through
    /// another instance: see [`SessionShared::refresh`]. `false` when
    /// there is no session.
    pub(crate) fn refresh(&self, parts: SessionParts) -> bool {
        let Some(session) = &self.session else {
            return false;
        };
        session.refresh(parts);
        true
    }
}

impl SessionShared {
    /// What a store keeps of this session, as it is now.
    pub(crate) fn parts(&self) -> SessionParts {
        SessionParts {
            version: self.version,
            client: self.client.clone(),
            log_level: self.log_level.load(Ordering::Relaxed),
            subscriptions: self
                .subscriptions
                .lock()
                .map(|subscribed| subscribed.clone())
                .unwrap_or_default(),
            roots_epoch: self.roots_epoch.load(Ordering::Relaxed),
        }
    }

    /// Takes the log level and the subscriptions of `parts`, in place (the
    /// [`Notifier`](crate::Notifier) reads them at once), and forgets the
    /// roots it kept when the client said they changed since (the roots
    /// epoch moved). The version and the client are those `initialize`
    /// agreed on, which never change: `parts`' are ignored. The hook is
    /// not told: these changes are the store's already.
    pub(crate) fn refresh(&self, parts: SessionParts) {
        self.log_level.store(parts.log_level, Ordering::Relaxed);
        if let Ok(mut subscribed) = self.subscriptions.lock() {
            *subscribed = parts.subscriptions;
        }
        let epoch = self.roots_epoch.swap(parts.roots_epoch, Ordering::AcqRel);
        if epoch != parts.roots_epoch
            && let Ok(mut roots) = self.roots.lock()
        {
            *roots = None;
        }
    }
}
