//! The seam every transport implements. A transport sends whole JSON-RPC
//! messages, and delivers what the server sends on the channel it was given
//! when it was built: one complete JSON message per item, the channel
//! closing when the server is gone.

use std::future::Future;
use std::pin::Pin;

use crate::client::error::ClientError;

/// A boxed, sendable future.
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How inbound messages reach the session: one complete JSON message per
/// item; the sender dropped means the server is gone.
pub(crate) type Inbound = tokio::sync::mpsc::Sender<Received>;

/// What a transport hands the session.
pub(crate) enum Received {
    /// One complete JSON message from the server.
    Message(Vec<u8>),
    /// The answer to our request `id` can no longer come (an HTTP answer
    /// stream that dropped and could not be resumed): the request fails
    /// with [`ClientError::ConnectionLost`].
    Lost { id: u64, reason: String },
    /// A message over the client's `max_message_size` (`limit`) was
    /// skipped: the request `id` it answers, when known, fails with
    /// [`ClientError::TooLarge`]; `size` when known.
    TooLarge {
        id: Option<u64>,
        size: Option<u64>,
        limit: usize,
    },
}

/// How many inbound messages may wait for the session to read them before
/// the transport waits in turn.
pub(crate) const INBOUND_CAPACITY: usize = 64;

pub(crate) trait Transport: Send + Sync + 'static {
    /// Sends one JSON-RPC message (complete JSON text, no newline).
    fn send(&self, message: Vec<u8>) -> BoxFuture<'_, Result<(), ClientError>>;
    /// Ends the connection (stdio: closes stdin, waits a grace period, kills).
    fn close(&self) -> BoxFuture<'_, ()>;
}
