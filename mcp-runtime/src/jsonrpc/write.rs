//! Writing responses and notifications as JSON text, straight into the
//! output buffer.

use serde::Serialize;

use super::error::ErrorObject;
use super::id::RequestId;

/// How every response these writers make begins (a notification begins
/// `{"jsonrpc":"2.0","method":`).
const RESPONSE_HEAD: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":";

/// Whether `line`, made by these writers, is a response or a batch of
/// them, not a notification.
#[cfg(feature = "http")]
pub(crate) fn is_response(line: &[u8]) -> bool {
    line.starts_with(RESPONSE_HEAD) || line.first() == Some(&b'[')
}

/// Whether `line`, made by these writers, is an error with `id: null`: an
/// answer to input that could not be read as a request.
#[cfg(feature = "http")]
pub(crate) fn is_unaddressed_error(line: &[u8]) -> bool {
    line.strip_prefix(RESPONSE_HEAD)
        .is_some_and(|rest| rest.starts_with(b"null,\"error\""))
}

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
    out.extend_from_slice(RESPONSE_HEAD);
    out.extend_from_slice(id.as_json().as_bytes());
    out.extend_from_slice(b",\"result\":");
    write(out);
    out.push(b'}');
}

/// Where the result of `response` (a response to `id` made by these
/// writers) begins; `None` for an error.
pub(crate) fn result_offset(response: &[u8], id: &RequestId) -> Option<usize> {
    let rest = response.strip_prefix(RESPONSE_HEAD)?;
    let rest = rest.strip_prefix(id.as_json().as_bytes())?;
    rest.starts_with(b",\"result\":")
        .then(|| response.len() - rest.len() + b",\"result\":".len())
}

/// Appends an error response; `id: None` writes `"id":null`.
pub(crate) fn write_error(out: &mut Vec<u8>, id: Option<&RequestId>, error: &ErrorObject) {
    out.extend_from_slice(RESPONSE_HEAD);
    out.extend_from_slice(id.map_or("null", RequestId::as_json).as_bytes());
    out.extend_from_slice(b",\"error\":");
    if serde_json::to_writer(&mut *out, error).is_err() {
        out.extend_from_slice(b"{\"code\":-32603,\"message\":\"internal error\"}");
    }
    out.push(b'}');
}

/// Appends `{"jsonrpc":"2.0","method":METHOD,"params":PARAMS,"id":ID}`
/// (no newline): a request, of the client's or of the server's to its
/// client. The id comes last, so that a request never begins as a
/// response does (`is_response`).
pub(crate) fn write_request(
    out: &mut Vec<u8>,
    id: &RequestId,
    method: &str,
    params: &impl Serialize,
) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":");
    let _ = serde_json::to_writer(&mut *out, method);
    out.extend_from_slice(b",\"params\":");
    if serde_json::to_writer(&mut *out, params).is_err() {
        out.extend_from_slice(b"{}");
    }
    out.extend_from_slice(b",\"id\":");
    out.extend_from_slice(id.as_json().as_bytes());
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

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;
    use crate::jsonrpc::{ErrorObject, INVALID_REQUEST};

    #[test]
    fn responses_are_told_from_notifications_by_their_head() {
        let raw = serde_json::value::RawValue::from_string("7".into()).unwrap();
        let id = RequestId::parse(&raw).unwrap();
        let mut result = Vec::new();
        write_result(&mut result, &id, &serde_json::json!({}));
        let mut error = Vec::new();
        write_error(
            &mut error,
            Some(&id),
            &ErrorObject::new(INVALID_REQUEST, "x"),
        );
        let mut unaddressed = Vec::new();
        write_error(
            &mut unaddressed,
            None,
            &ErrorObject::new(INVALID_REQUEST, "x"),
        );
        let mut notification = Vec::new();
        write_notification(
            &mut notification,
            "notifications/progress",
            &serde_json::json!({}),
        );
        for line in [&result, &error, &unaddressed] {
            assert!(is_response(line), "{}", String::from_utf8_lossy(line));
        }
        assert!(is_response(b"[{}]"), "a batch's reply");
        assert!(!is_response(&notification));
        let mut request = Vec::new();
        write_request(
            &mut request,
            &RequestId::server(1),
            "roots/list",
            &serde_json::json!({}),
        );
        assert!(!is_response(&request), "a request of the server's");
        assert!(is_unaddressed_error(&unaddressed));
        assert!(!is_unaddressed_error(&error));
        assert!(!is_unaddressed_error(&result));
    }
}
