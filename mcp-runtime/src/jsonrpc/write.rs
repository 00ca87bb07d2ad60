//! Writing responses and notifications as JSON text, straight into the
//! output buffer.

use serde::Serialize;

use super::error::ErrorObject;
use super::id::RequestId;

/// Appends `{"jsonrpc":"2.0","id":ID,"result":RESULT}` (no newline: a
/// message is a line, or an element of a batch).
pub(crate) fn write_result(out: &mut Vec<u8>, id: &RequestId, result: &impl Serialize) {
    write_result_with(out, id, |out| {
        if serde_json::to_writer(&mut *out, result).is_err() {
            out.extend_from_slice(b"{}");
        }
    });
}

/// [`write_result`] with the result written by `write`.
pub(crate) fn write_result_with(
    out: &mut Vec<u8>,
    id: &RequestId,
    write: impl FnOnce(&mut Vec<u8>),
) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id.as_json().as_bytes());
    out.extend_from_slice(b",\"result\":");
    write(out);
    out.push(b'}');
}

/// Appends an error response; `id: None` writes `"id":null`.
pub(crate) fn write_error(out: &mut Vec<u8>, id: Option<&RequestId>, error: &ErrorObject) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id.map_or("null", RequestId::as_json).as_bytes());
    out.extend_from_slice(b",\"error\":");
    if serde_json::to_writer(&mut *out, error).is_err() {
        out.extend_from_slice(b"{\"code\":-32603,\"message\":\"internal error\"}");
    }
    out.push(b'}');
}

/// Appends `{"jsonrpc":"2.0","method":METHOD,"params":PARAMS}` (no newline).
pub(crate) fn write_notification(out: &mut Vec<u8>, method: &str, params: &impl Serialize) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":");
    let _ = serde_json::to_writer(&mut *out, method);
    out.extend_from_slice(b",\"params\":");
    if serde_json::to_writer(&mut *out, params).is_err() {
        out.extend_from_slice(b"{}");
    }
    out.push(b'}');
}
