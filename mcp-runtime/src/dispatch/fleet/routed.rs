//! Messages of a session that reached another instance of a fleet, for
//! what waits or runs here: the client's answer to a question this
//! instance asked (its id names the instance, see
//! [`RequestId::instance`]), and `notifications/cancelled` for a call
//! running here. The instance that received them finds which instance
//! to route them to; this is where they arrive.
//!
//! They are delivered through a [`Routed`] handle, without the
//! connection: a request of the same session may hold the connection
//! while it waits for room in the backlog, which frees only when calls
//! end, and a call may be waiting for the very answer being routed.

use std::sync::Arc;

use serde_json::value::RawValue;

use crate::context::SessionShared;
use crate::dispatch::calls::Running;
use crate::dispatch::state::Connection;
use crate::jsonrpc::RequestId;

/// What messages routed from another instance reach in one connection:
/// its session's questions waiting for answers, and its calls in flight.
/// Cheap to clone, and used without the connection; take it once the
/// session started (after [`Connection::resume`] or `initialize`).
#[derive(Clone)]
pub(crate) struct Routed {
    session: Option<Arc<SessionShared>>,
    calls: Running,
}

impl Routed {
    /// Whether a question of this session's, with `id`, waits for its
    /// answer here.
    pub(crate) fn is_waiting_for(&self, id: &RequestId) -> bool {
        (self.session.as_ref()).is_some_and(|session| session.asks.is_waiting(id))
    }

    /// Delivers the client's answer to the question with `id` (its
    /// `result`, or its `error`, as the JSON-RPC response had them), as
    /// if it had been POSTed here; `false` when no such question waits.
    pub(crate) fn answer(
        &self,
        id: &RequestId,
        result: Option<&RawValue>,
        error: Option<&RawValue>,
    ) -> bool {
        (self.session.as_ref()).is_some_and(|session| session.asks.answer(Some(id), result, error))
    }

    /// Whether the call of the request with `id` runs (or waits for a
    /// slot) here.
    pub(crate) fn is_running(&self, id: &RequestId) -> bool {
        self.calls.contains(&id.key())
    }

    /// Cancels the call of the request with `id`, as
    /// `notifications/cancelled` does (it is dropped and never answered;
    /// `reason` is only logged); `false` when no such call runs here.
    pub(crate) fn cancel(&self, id: &RequestId, reason: Option<&str>) -> bool {
        let cancelled = self.calls.cancel(&id.key());
        if cancelled {
            tracing::debug!(request_id = %id, reason, "call cancelled through another instance");
        }
        cancelled
    }
}

impl Connection {
    /// The handle through which messages routed from another instance
    /// reach this connection's session and calls.
    pub(crate) fn routed(&self) -> Routed {
        Routed {
            session: self.session.clone(),
            calls: self.calls.running(),
        }
    }
}
