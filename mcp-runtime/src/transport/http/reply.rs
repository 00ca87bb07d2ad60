//! The endpoint's own answers, the same in both eras: HTTP errors whose
//! body is a JSON-RPC error, plain JSON replies, 202, and the status a
//! 2026-07-28 response carries.

use axum::body::Body;
use axum::http::header::{ALLOW, CACHE_CONTROL, CONTENT_TYPE, RETRY_AFTER};
use axum::http::{HeaderValue, Response, StatusCode};
use bytes::Bytes;

use crate::jsonrpc::{self, ErrorObject, INVALID_REQUEST, is_unaddressed_error};

/// 202: what was posted needs no answer (or its request was cancelled).
pub(super) fn accepted() -> Response<Body> {
    Response::builder()
        .status(StatusCode::ACCEPTED)
        .body(Body::empty())
        .unwrap_or_default()
}

/// A lone response of the session eras as plain JSON: 400 for an error
/// that answers no request (a parse error, say), 200 otherwise.
pub(super) fn json_response(line: Bytes) -> Response<Body> {
    let status = if is_unaddressed_error(&line) {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    json_response_with(status, line)
}

/// `line` as a plain JSON answer with `status`.
pub(super) fn json_response_with(status: StatusCode, line: Bytes) -> Response<Body> {
    Response::builder()
        .status(status)
        .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
        .body(Body::from(line))
        .unwrap_or_default()
}

/// The status of a lone response of the 2026-07-28 era: 404 for a method
/// it does not have, 400 for the request's own faults, 500 for the
/// server's.
pub(super) fn status_of(line: &[u8]) -> StatusCode {
    // Our writers put `result` or `error` right after the id, and a
    // string id has its quotes escaped: the first of the two is the one.
    let Some(at) = memchr::memmem::find(line, b",\"error\":{\"code\":") else {
        return StatusCode::OK;
    };
    if memchr::memmem::find(&line[..at], b",\"result\":").is_some() {
        return StatusCode::OK;
    }
    let digits = &line[at + 17..];
    let end = digits
        .iter()
        .position(|b| !(b.is_ascii_digit() || *b == b'-'))
        .unwrap_or(digits.len());
    let code = std::str::from_utf8(&digits[..end])
        .ok()
        .and_then(|c| c.parse::<i32>().ok());
    match code {
        Some(jsonrpc::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(jsonrpc::INTERNAL_ERROR) => StatusCode::INTERNAL_SERVER_ERROR,
        Some(_) => StatusCode::BAD_REQUEST,
        None => StatusCode::OK,
    }
}

/// 413, with the limit in the error.
pub(super) fn too_large(limit: usize) -> Response<Body> {
    error_response(
        StatusCode::PAYLOAD_TOO_LARGE,
        &ErrorObject::too_large(limit),
    )
}

/// 405 with the `Allow` header.
pub(super) fn method_not_allowed(message: &str, allow: &'static str) -> Response<Body> {
    let mut response = error(StatusCode::METHOD_NOT_ALLOWED, None, message);
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    response
}

/// Seconds a 503 asks the client to wait before it tries again.
pub(super) const RETRY_SECONDS: u32 = 5;

/// 503 with `Retry-After`: the client may try again in [`RETRY_SECONDS`].
pub(super) fn unavailable(code: Option<i32>, message: &str) -> Response<Body> {
    let mut response = error(StatusCode::SERVICE_UNAVAILABLE, code, message);
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(RETRY_SECONDS));
    response
}

/// Any path but the endpoint's.
pub(crate) fn not_found() -> Response<Body> {
    error(
        StatusCode::NOT_FOUND,
        None,
        "Not Found: the MCP endpoint is /mcp",
    )
}

/// An HTTP error whose body is a JSON-RPC error without an id, as the
/// transport specification suggests (`code` -32600 unless given).
pub(crate) fn error(status: StatusCode, code: Option<i32>, message: &str) -> Response<Body> {
    error_response(
        status,
        &ErrorObject::new(code.unwrap_or(INVALID_REQUEST), message),
    )
}

/// `status`, with `error` (and no id) as the body.
fn error_response(status: StatusCode, error: &ErrorObject) -> Response<Body> {
    let mut body = Vec::new();
    jsonrpc::write_error(&mut body, None, error);
    Response::builder()
        .status(status)
        .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
        .header(CACHE_CONTROL, HeaderValue::from_static("no-store"))
        .body(Body::from(body))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_follow_the_error_code() {
        let line = |code: i32| {
            format!(r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":{code},"message":"m"}}}}"#)
        };
        assert_eq!(status_of(line(-32601).as_bytes()), StatusCode::NOT_FOUND);
        assert_eq!(status_of(line(-32602).as_bytes()), StatusCode::BAD_REQUEST);
        assert_eq!(status_of(line(-32021).as_bytes()), StatusCode::BAD_REQUEST);
        assert_eq!(
            status_of(line(-32603).as_bytes()),
            StatusCode::INTERNAL_SERVER_ERROR
        );
        assert_eq!(
            status_of(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            StatusCode::OK
        );
        let nested = br#"{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"x":1,"error":{"code":-32601}}}}"#;
        assert_eq!(status_of(nested), StatusCode::OK);
    }
}
