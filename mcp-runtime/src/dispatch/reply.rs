//! Where the reply to one message goes, and what a handler did about it.

use crate::jsonrpc::{self, ErrorObject, RequestId};
use crate::outbox::Outbox;
use crate::protocol::shape;
use crate::protocol::version::ProtocolVersion;
use crate::tools::def::Outcome;

/// Where the reply to one message goes.
pub(crate) enum Replies<'a> {
    /// To the connection's output, as a line of its own.
    Out(&'a Outbox),
    /// Into a batch's array: the bytes of its one entry.
    Batch(&'a mut Vec<u8>),
}

impl Replies<'_> {
    /// Writes one reply (without a newline) with `write`.
    pub(crate) fn write(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        match self {
            Replies::Out(out) => out.write_with(write),
            Replies::Batch(entry) => write(entry),
        }
    }
}

/// What a request handler did.
pub(crate) enum Answer {
    /// The reply was written.
    Written,
    /// A call is running, or waiting for a slot, as a task: it replies when
    /// it ends.
    Later,
}

/// A `tools/call` result, shaped for `version`.
pub(crate) fn write_call_result(
    reply: &mut Vec<u8>,
    id: &RequestId,
    outcome: &Outcome,
    version: ProtocolVersion,
) {
    jsonrpc::write_result_with(reply, id, |reply| {
        shape::write_outcome(reply, outcome, version)
    });
}

/// An error reply, as bytes of its own.
pub(crate) fn error_bytes(id: Option<&RequestId>, error: ErrorObject) -> Vec<u8> {
    let mut reply = Vec::new();
    jsonrpc::write_error(&mut reply, id, &error);
    reply
}
