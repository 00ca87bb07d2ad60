//! How one request's call is set up and answered: its [`Context`] and
//! its [`Job`], the writer of its response. Shared by the calls of a
//! connection (`calls`) and those that become tasks (`task_calls`).

use std::sync::{Arc, Mutex};

use super::core::ServerCore;
use super::reply::{JsonAnswer, is_error_answer, write_json_answer};
use super::tails::finish;
use crate::asking::rounds::Round;
use crate::auth::Identity;
use crate::context::{Cancellation, Context, RequestScope, SessionShared};
use crate::jsonrpc::RequestId;
use crate::outbox::Outbox;
use crate::protocol::version::ProtocolVersion;

/// How the answer of a call producing `R` is written.
pub(crate) struct Job<R> {
    /// The request's method, for logs.
    pub(crate) method: &'static str,
    pub(crate) version: ProtocolVersion,
    /// Writes the response to the request `id`.
    pub(crate) write: fn(&mut Vec<u8>, &RequestId, &R, ProtocolVersion),
    /// Whether the answer is an error, for logs.
    pub(crate) is_error: fn(&R) -> bool,
    /// What a 2026-07-28 result adds (`resultType`, the server's name, a
    /// cache hint); `None` for the legacy era.
    pub(crate) tail: Option<Arc<str>>,
    /// The round of a 2026-07-28 request that may ask.
    pub(crate) round: Option<Arc<Round>>,
}

impl<R> Job<R> {
    /// Writes the response to `id`.
    pub(crate) fn answer(&self, reply: &mut Vec<u8>, id: &RequestId, result: &R) {
        if let Some(round) = &self.round
            && let Some(questions) = round.take_raised()
        {
            return round.write_input_required(reply, id, &questions);
        }
        let start = reply.len();
        (self.write)(reply, id, result, self.version);
        if let Some(tail) = &self.tail {
            finish(reply, start, id, tail);
        }
    }
}

impl Job<JsonAnswer> {
    /// The job of a request of `session` answered with a [`JsonAnswer`].
    pub(crate) fn json(method: &'static str, session: &SessionShared, core: &ServerCore) -> Self {
        Job {
            method,
            version: session.version,
            write: write_json_answer,
            is_error: is_error_answer,
            tail: core.tail(session, method),
            round: session.round.clone(),
        }
    }
}

/// The context of one request of `session`, for the handler named `name`.
pub(crate) fn request_context(
    session: &Arc<SessionShared>,
    name: Arc<str>,
    id: &RequestId,
    progress_token: Option<serde_json::Value>,
    out: &Outbox,
    identity: Option<&Arc<Identity>>,
) -> Context {
    Context::for_request(RequestScope {
        session: Arc::clone(session),
        name,
        id: id.clone(),
        progress_token,
        cancellation: Cancellation::default(),
        progress: Mutex::default(),
        out: out.clone(),
        identity: identity.cloned(),
        replay: session
            .round
            .as_ref()
            .map(|round| Arc::clone(&round.replay)),
        required: Mutex::default(),
        task: Default::default(),
    })
}
