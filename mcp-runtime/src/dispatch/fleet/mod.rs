//! What the HTTP transport of a fleet calls to serve a legacy session
//! (protocol 2025-11-25 and earlier) on an instance that did not
//! initialize it. The session's store (Redis) keeps what `initialize`
//! agreed on and what the client changed since; any instance rebuilds
//! the session's [`Connection`](super::Connection) from those plain
//! values, and keeps the store up to date with what its clients change.
//!
//! - `resume`: a connection that starts initialized, from a session's
//!   [`SessionParts`] (no `initialize` is replayed: a second one would be
//!   refused), a cached one refreshed from newer parts, and the hook that
//!   reports each change the client makes
//!   ([`SessionChange`](crate::context::SessionChange): the change is
//!   made locally, then the hook writes it through to the store).
//! - `routed`: the client's answers and cancellations that reached
//!   another instance, delivered to the questions and calls of this one
//!   ([`Routed`], usable without the connection's lock).
//!
//! This room takes and gives plain values only: it imports neither the
//! transport nor the session store (sibling rooms). In memory mode (one
//! instance, the default) none of it is used.

mod resume;
mod routed;

pub(crate) use self::resume::SessionParts;
pub(crate) use self::routed::Routed;

#[cfg(test)]
mod tests;
