//! JSON-RPC batches (protocol version 2025-03-26 only): one array in, one
//! array out, with an entry for every request of the batch in its order.

use serde_json::value::RawValue;
use tokio::sync::oneshot;

use super::reply::{Replies, error_bytes};
use super::state::Connection;
use crate::jsonrpc::{self, ErrorObject, INVALID_REQUEST, Message};
use crate::outbox::Outbox;
use crate::protocol::version::ProtocolVersion;

enum BatchPart {
    Ready(Vec<u8>),
    Pending(oneshot::Receiver<Option<Vec<u8>>>),
}

impl Connection {
    /// Serves a batch; its reply, and what its calls report, go to `out`.
    pub(super) async fn handle_batch(&mut self, items: Vec<&RawValue>, out: &Outbox) {
        let version = self.session.as_ref().map(|s| s.version);
        if !version.is_some_and(ProtocolVersion::accepts_batches) {
            let version = version.map_or("(not initialized)", ProtocolVersion::as_str);
            let error = ErrorObject::new(
                INVALID_REQUEST,
                format!(
                    "Invalid request: JSON-RPC batches are not supported in protocol version {version}"
                ),
            );
            out.write_with(|reply| jsonrpc::write_error(reply, None, &error));
            return;
        }
        if items.is_empty() {
            let error = ErrorObject::new(INVALID_REQUEST, "Invalid request: empty batch");
            out.write_with(|reply| jsonrpc::write_error(reply, None, &error));
            return;
        }
        let mut parts = Vec::new();
        for item in items {
            let message = jsonrpc::classify(item);
            if let Message::Request { id, method, .. } = &message
                && method == "initialize"
            {
                parts.push(BatchPart::Ready(error_bytes(
                    Some(id),
                    ErrorObject::new(
                        INVALID_REQUEST,
                        "Invalid request: initialize cannot be part of a batch",
                    ),
                )));
                continue;
            }
            let (sender, receiver) = oneshot::channel();
            let mut slot = Some(sender);
            let mut reply = Vec::new();
            let size = item.get().len();
            if self
                .handle_message(message, size, out, &mut slot, Replies::Batch(&mut reply))
                .await
            {
                parts.push(BatchPart::Ready(reply));
            } else if slot.is_none() {
                parts.push(BatchPart::Pending(receiver));
            }
        }
        if parts.is_empty() {
            return; // only notifications: no reply at all
        }
        let out = out.clone();
        self.calls.spawn(async move {
            let mut body = vec![b'['];
            let mut empty = true;
            for part in parts {
                let reply = match part {
                    BatchPart::Ready(reply) => Some(reply),
                    BatchPart::Pending(receiver) => receiver.await.ok().flatten(),
                };
                if let Some(reply) = reply {
                    if !empty {
                        body.push(b',');
                    }
                    body.extend_from_slice(&reply);
                    empty = false;
                }
            }
            if !empty {
                body.extend_from_slice(b"]\n");
                out.send(&body).await;
            }
        });
    }
}
