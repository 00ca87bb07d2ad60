//! A session the server forgot (404, legacy era): initialized again with
//! the `initialize` and `notifications/initialized` sent at first, the
//! replayed answer read here and not passed on.

use std::sync::Arc;

use reqwest::Response;

use super::read::is_sse;
use super::refusal::refuse;
use super::{LISTEN_TIMEOUT, SESSION_ID, Shared};
use crate::client::error::ClientError;
use crate::client::limit;
use crate::client::sse::{Event, SseParser};
use crate::jsonrpc::{self, Line, Message};

impl Shared {
    /// The server forgot the session `expired` (404): initializes a new one
    /// with the `initialize` and `notifications/initialized` sent at first
    /// (the answer swallowed), then reopens the GET stream.
    pub(super) async fn reinitialize(self: &Arc<Self>, expired: &str) -> Result<(), ClientError> {
        let _one_at_a_time = self.reinitializing.lock().await;
        let (initialize, initialized) = {
            let state = self.state();
            if state.session.as_deref() != Some(expired) {
                // Another request did it meanwhile.
                return Ok(());
            }
            (state.initialize.clone(), state.initialized.clone())
        };
        let Some((initialize, id)) = initialize else {
            return Err(ClientError::Closed);
        };
        tracing::info!("the server forgot the session (404): initializing a new one");
        let (response, _) = self.post(&initialize, false, &[]).await?;
        let response = refuse(response).await?;
        let session = response
            .headers()
            .get(SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        tokio::time::timeout(self.header_timeout, self.swallow(response, &id))
            .await
            .map_err(|_| ClientError::Timeout)??;
        self.state().session = session;
        if let Some(initialized) = initialized {
            refuse(self.post(&initialized, true, &[]).await?.0).await?;
        }
        // As after the first handshake: the message sent again next may be
        // answered on the new GET stream.
        let _ = tokio::time::timeout(LISTEN_TIMEOUT, self.listen()).await;
        Ok(())
    }

    /// Reads the answer to a replayed `initialize` (`id`) without passing
    /// it on: an error if the server refused.
    async fn swallow(&self, response: Response, id: &str) -> Result<(), ClientError> {
        let mut answer = None;
        if is_sse(&response) {
            let mut response = response;
            let mut parser = SseParser::new(self.max_message);
            while let (None, Ok(Some(bytes))) = (&answer, response.chunk().await) {
                for event in parser.feed(&bytes) {
                    if let Event::Message(data) = event {
                        answer = answer.or_else(|| self.answer_in(&data, id));
                    }
                }
            }
        } else {
            let body = limit::read_body(response, self.max_message)
                .await
                .unwrap_or_default();
            answer = self.answer_in(&body, id);
        }
        match answer {
            Some(None) => Ok(()),
            Some(Some(error)) => Err(ClientError::InvalidResponse {
                method: "initialize".into(),
                reason: format!("initializing a new session failed: {error}"),
            }),
            None => Err(ClientError::InvalidResponse {
                method: "initialize".into(),
                reason: "initializing a new session got no answer".into(),
            }),
        }
    }

    /// The answer to `id` in `body`, if there: `Some(None)` for a result,
    /// `Some(Some(error))` for an error.
    pub(super) fn answer_in(&self, body: &[u8], id: &str) -> Option<Option<String>> {
        let check = |message: Message<'_>| match message {
            Message::Response {
                id: Some(got),
                error,
                result,
            } if got.as_json() == id => {
                self.note_version(id, result);
                Some(error.map(|e| e.get().to_owned()))
            }
            _ => None,
        };
        match jsonrpc::parse_line(body) {
            Line::Single(message) => check(message),
            Line::Batch(items) => items.into_iter().find_map(|i| check(jsonrpc::classify(i))),
            _ => None,
        }
    }
}
