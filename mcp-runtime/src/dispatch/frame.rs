//! The request frame: a request as the router of either era sees it
//! ([`Request`]), and what every handler of one is handed beside it
//! ([`Frame`]: its id, its size, and where its answer goes).

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::oneshot;

use super::reply::Replies;
use crate::jsonrpc::call_params;
use crate::jsonrpc::{ErrorObject, INVALID_PARAMS, RequestId};
use crate::outbox::Outbox;

/// What was asked: a request's method and params.
pub(super) struct Request<'m, 'a> {
    pub(super) method: &'m str,
    pub(super) params: Option<&'a RawValue>,
    /// The params of a `tools/call`, when they were read with the
    /// message's envelope.
    pub(super) call: Option<call_params::Checked<'a>>,
}

/// Where a call that has to wait sends its entry of a batch (`None` when
/// it was cancelled).
pub(super) type BatchSlot = oneshot::Sender<Option<Vec<u8>>>;

/// One request's frame: its id, the size of the message it came in, and
/// where its answer goes.
pub(super) struct Frame<'a> {
    pub(super) id: &'a RequestId,
    /// The length of the message it came in, counted against the backlog
    /// if its call has to wait.
    pub(super) size: usize,
    /// Where the calls it starts report (progress, logs, questions) and,
    /// outside a batch, where a call that has to wait answers.
    pub(super) out: &'a Outbox,
    /// Inside a batch, a call that has to wait answers through the sender
    /// here (and takes it).
    pub(super) batch_slot: &'a mut Option<BatchSlot>,
    /// Where an answer given at once goes.
    pub(super) reply: Replies<'a>,
}

/// `params` as an object: absent is empty; anything but an object is -32602.
pub(super) fn params_object(params: Option<&RawValue>) -> Result<Map<String, Value>, ErrorObject> {
    match params {
        None => Ok(Map::new()),
        Some(raw) => match serde_json::from_str(raw.get()) {
            Ok(value) => object(value),
            Err(_) => Err(not_an_object()),
        },
    }
}

fn not_an_object() -> ErrorObject {
    ErrorObject::new(INVALID_PARAMS, "`params` must be an object")
}

/// `params` read already (or rewritten by a layer) as an object: `null` is
/// empty; anything but an object is -32602.
pub(super) fn object(params: Value) -> Result<Map<String, Value>, ErrorObject> {
    match params {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        _ => Err(not_an_object()),
    }
}
