//! Transports: how bytes reach a connection and leave it.

pub(crate) mod stdio;
