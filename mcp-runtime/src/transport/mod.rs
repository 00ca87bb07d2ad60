//! Transports: how bytes reach a connection and leave it.

#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod stdio;
