//! Which era a request is of: the session eras (2025-03-26 to 2025-11-25)
//! or 2026-07-28, where every POST stands alone. A request is of the
//! 2026-07-28 era when it names no session and its `MCP-Protocol-Version`
//! header names no legacy version (or, without the header, a POST's body
//! claims the era: its `_meta` names a version, or it is `server/discover`).

use axum::http::HeaderMap;

use super::headers::{PROTOCOL_VERSION, SESSION_ID};
use crate::dispatch::{claims_modern, meta_in};
use crate::jsonrpc::{Line, Message};
use crate::protocol::version::ProtocolVersion;

/// Whether a POST is of the 2026-07-28 era.
pub(super) fn is_modern(headers: &HeaderMap, line: &Line<'_>) -> bool {
    if headers.contains_key(&SESSION_ID) {
        return false;
    }
    match names_modern(headers) {
        Some(modern) => modern,
        None => match line {
            Line::Single(Message::Request {
                method,
                params,
                call,
                ..
            }) => claims_modern(method, meta_in(*params, call.as_ref())),
            _ => false,
        },
    }
}

/// Whether a GET is of the 2026-07-28 era (which has no GET stream): it
/// names no session, and a version that is not a legacy one.
pub(super) fn is_modern_get(headers: &HeaderMap) -> bool {
    !headers.contains_key(&SESSION_ID) && names_modern(headers) == Some(true)
}

/// What the `MCP-Protocol-Version` header says: `None` without one,
/// whether it names no legacy version otherwise.
fn names_modern(headers: &HeaderMap) -> Option<bool> {
    let named = headers.get(&PROTOCOL_VERSION)?;
    let named = named.to_str().unwrap_or_default().trim();
    Some(ProtocolVersion::parse_legacy(named).is_none())
}
