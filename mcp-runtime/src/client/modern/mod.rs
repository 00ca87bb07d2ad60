//! The 2026-07-28 era, as a client speaks it. There is no `initialize`
//! and no session: [`negotiate`] probes with `server/discover` and falls
//! back to `initialize` for a legacy server (and the other way round);
//! from then on every request carries the era's `_meta` (the session adds
//! it), over HTTP with the era's headers ([`headers`]). A server that
//! needs input answers `input_required`, and [`rounds`] answers it with
//! the handlers the legacy era answers the server's own requests with.
//! Change notifications come on a `subscriptions/listen` request
//! ([`listen`]); `server/discover` and the lists are kept as long as the
//! server says they stay fresh ([`cache`]).

pub(crate) mod cache;
pub(crate) mod headers;
pub(crate) mod listen;
pub(crate) mod negotiate;
pub(crate) mod rounds;

/// The `_meta` keys of the era: the server's own, and the one it reads
/// only through serde.
pub(crate) use crate::dispatch::{CLIENT_CAPABILITIES, LOG_LEVEL, SERVER_INFO};
pub(crate) const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
