//! [`Handshake`]: how a client presents itself when it connects, in
//! either era.

use serde_json::Value;

use crate::client::session::Handlers;
use crate::protocol::version::ProtocolVersion;

/// What `initialize` (or each request's `_meta`) says about the client,
/// and what it answers the server's requests with.
pub(crate) struct Handshake {
    pub(crate) client_info: Value,
    pub(crate) capabilities: Value,
    pub(crate) handlers: Handlers,
    /// The version offered first: 2026-07-28 probes with
    /// `server/discover`, a legacy one sends `initialize` first.
    pub(crate) first: ProtocolVersion,
}
