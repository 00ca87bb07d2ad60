//! Sending a message of the 2026-07-28 era over Streamable HTTP (a part
//! of the HTTP transport, [`super`]): no session, the era's headers
//! ([`headers`]), a refusal whose body is the request's JSON-RPC error
//! taken as its answer (a modern server answers an unsupported version
//! or a header mismatch with 400 and such a body; the client must see
//! the code), and a cancellation that closes the request's stream rather
//! than being posted.

use std::sync::Arc;

use serde_json::Value;

use super::read::content_type;
use super::refusal::refuse;
use super::{Outgoing, Shared};
use crate::client::error::ClientError;
use crate::client::limit;
use crate::client::modern::headers;

impl Shared {
    /// The 2026-07-28 era's headers for `message`, if it is of that era
    /// (see the module's docs); notes the era a request is of.
    pub(super) fn era(&self, message: &[u8], out: &Outgoing) -> Option<Vec<(String, String)>> {
        let mut state = self.state();
        let era = headers::for_message(message, state.modern.as_deref(), &self.marks);
        if let Outgoing::Request(..) = out {
            state.modern = era.as_ref().map(|headers| headers[0].1.clone());
        }
        era
    }

    /// Sends a message of the 2026-07-28 era: no session; a cancellation
    /// closes the request's stream instead of being posted.
    pub(super) async fn send_modern(
        self: &Arc<Self>,
        message: Vec<u8>,
        out: Outgoing,
        era: Vec<(String, String)>,
    ) -> Result<(), ClientError> {
        if let Outgoing::Notification(method) = &out
            && method == "notifications/cancelled"
        {
            let id = serde_json::from_slice::<Value>(&message)
                .ok()
                .and_then(|m| Some(m.get("params")?.get("requestId")?.to_string()));
            let mut state = self.state();
            state.streams.retain(|(stream, task)| {
                let cancelled = Some(stream) == id.as_ref();
                if cancelled {
                    task.abort();
                }
                !cancelled && !task.is_finished()
            });
            return Ok(());
        }
        let response = self.post(&message, false, &era).await?.0;
        let expect = match out {
            Outgoing::Request(id, _) => Some(id),
            _ => None,
        };
        let status = response.status();
        // 401 and 403 ask for credentials: refused as in every era.
        let credentials = matches!(status.as_u16(), 401 | 403);
        if status.is_client_error() && !credentials && content_type(&response) == "application/json"
        {
            // A modern server's refusal: its JSON-RPC error answers the request.
            let body = limit::read_body(response, self.max_message)
                .await
                .unwrap_or_default();
            if let Some(id) = &expect
                && self.answer_in(&body, id).is_some()
            {
                self.deliver(&body, Some(id)).await;
                return Ok(());
            }
            return Err(ClientError::Http {
                status: status.as_u16(),
                message: String::from_utf8_lossy(&body).chars().take(500).collect(),
                www_authenticate: None,
            });
        }
        let response = refuse(response).await?;
        self.receive(response, expect)
    }

    /// Keeps the task reading the answer to `expect`, a request of the
    /// 2026-07-28 era, so that cancelling the request closes its stream.
    pub(super) fn track(&self, expect: Option<String>, task: &tokio::task::JoinHandle<()>) {
        let mut state = self.state();
        if let (Some(id), Some(_)) = (expect, &state.modern) {
            state.streams.retain(|(_, task)| !task.is_finished());
            state.streams.push((id, task.abort_handle()));
        }
    }
}
