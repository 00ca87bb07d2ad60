//! Where the reply to one message goes, what a handler did about it, and
//! the answers that both eras give alike.

use serde_json::json;
use serde_json::value::RawValue;

use crate::jsonrpc::{self, ErrorObject, INVALID_REQUEST, METHOD_NOT_FOUND, RequestId};
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
    if let Outcome::Failed(error) = outcome {
        return jsonrpc::write_error(reply, Some(id), error);
    }
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

/// The answer of a request served by a call that is not `tools/call`: a
/// result, serialized when the handler ended, or an error.
pub(crate) type JsonAnswer = Result<Box<RawValue>, ErrorObject>;

/// Writes a [`JsonAnswer`] as the response to `id`.
pub(crate) fn write_json_answer(
    reply: &mut Vec<u8>,
    id: &RequestId,
    answer: &JsonAnswer,
    _: ProtocolVersion,
) {
    match answer {
        Ok(result) => jsonrpc::write_result(reply, id, result),
        Err(error) => jsonrpc::write_error(reply, Some(id), error),
    }
}

/// Whether a [`JsonAnswer`] is an error, for logs.
pub(crate) fn is_error_answer(answer: &JsonAnswer) -> bool {
    answer.is_err()
}

/// `value` serialized as a result; a value that cannot be is an internal
/// error (and logged).
pub(crate) fn json_result(value: &impl serde::Serialize) -> JsonAnswer {
    serde_json::value::to_raw_value(value).map_err(|error| {
        tracing::error!(%error, "a result could not be serialized");
        ErrorObject::new(jsonrpc::INTERNAL_ERROR, "internal error")
    })
}

/// -32601 for a method that is not served.
pub(crate) fn method_not_found(method: &str) -> ErrorObject {
    ErrorObject::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
        .with_data(json!({ "method": method }))
}

/// The refusal of a request that needs a session before `initialize`.
pub(crate) fn not_initialized() -> ErrorObject {
    ErrorObject::new(
        INVALID_REQUEST,
        "server not initialized: send initialize first",
    )
}

/// A result from its JSON text.
pub(crate) fn raw(json: &str) -> Box<RawValue> {
    RawValue::from_string(json.to_owned()).unwrap_or_default()
}
