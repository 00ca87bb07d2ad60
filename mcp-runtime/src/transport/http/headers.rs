//! The request headers both eras read: MCP's own names, what a client's
//! `Accept` allows, and the version `MCP-Protocol-Version` names.

use axum::body::Body;
use axum::http::header::ACCEPT;
use axum::http::{HeaderMap, HeaderName, Response, StatusCode};

use super::reply::error;
use crate::jsonrpc::INVALID_REQUEST;
use crate::protocol::version::ProtocolVersion;

// Names ready-made: looked up by `&str`, a name is parsed and lowercased
// on every lookup.
pub(super) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
pub(super) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
pub(super) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// What the client's `Accept` header allows.
#[derive(Clone, Copy)]
pub(super) struct Accepts {
    pub(super) json: bool,
    pub(super) sse: bool,
}

impl Accepts {
    pub(super) fn of(headers: &HeaderMap) -> Accepts {
        let mut accepts = Accepts {
            json: false,
            sse: false,
        };
        let values = headers.get_all(ACCEPT);
        let mut any = false;
        for value in values {
            any = true;
            for item in value.to_str().unwrap_or_default().split(',') {
                let media = item.split(';').next().unwrap_or_default().trim();
                let is = |name: &str| media.eq_ignore_ascii_case(name);
                if is("*/*") {
                    accepts.json = true;
                    accepts.sse = true;
                } else if is("application/json") || is("application/*") {
                    accepts.json = true;
                } else if is("text/event-stream") || is("text/*") {
                    accepts.sse = true;
                }
            }
        }
        if !any {
            // No `Accept` at all accepts anything (RFC 9110).
            accepts = Accepts {
                json: true,
                sse: true,
            };
        }
        accepts
    }
}

/// The `MCP-Protocol-Version` header: `None` when absent, 400 when it
/// names a version this server does not serve.
pub(super) fn version(headers: &HeaderMap) -> Result<Option<ProtocolVersion>, Box<Response<Body>>> {
    let Some(value) = headers.get(&PROTOCOL_VERSION) else {
        return Ok(None);
    };
    let text = value.to_str().unwrap_or_default().trim();
    match ProtocolVersion::parse(text) {
        Some(version) => Ok(Some(version)),
        None => Err(Box::new(error(
            StatusCode::BAD_REQUEST,
            Some(INVALID_REQUEST),
            &format!(
                "Bad Request: unsupported MCP-Protocol-Version {text:?}; supported: {}",
                ProtocolVersion::ALL
                    .iter()
                    .map(|v| v.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ))),
    }
}
