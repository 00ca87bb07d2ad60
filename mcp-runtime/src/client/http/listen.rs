//! The session's GET stream (the legacy era): what the server sends on
//! its own, opened after the handshake and reopened with `Last-Event-ID`
//! when it drops, backing off while reopening fails. The same GET resumes
//! a POST's stream that dropped before its answer ([`super::read`]).

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::ACCEPT;
use reqwest::{Method, Response};
use tokio::sync::oneshot;

use super::read::is_sse;
use super::{DEFAULT_RETRY, EVENT_STREAM, Shared};
use crate::client::error::ClientError;
use crate::client::sse::SseParser;

const LAST_EVENT_ID: &str = "last-event-id";
/// The longest wait between attempts to reopen the GET stream.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

impl Shared {
    /// Waits `delay`; `false` if the transport closed meanwhile.
    pub(super) async fn pause(&self, delay: Duration) -> bool {
        let mut stop = self.stop.clone();
        tokio::select! {
            () = tokio::time::sleep(delay) => !self.stopped(),
            _ = stop.wait_for(|stopped| *stopped) => false,
        }
    }

    /// GETs the session's stream, or resumes one after `last_event_id`.
    pub(super) async fn get(&self, last_event_id: Option<&str>) -> Result<Response, ClientError> {
        let mut request = self
            .build(Method::GET, true)
            .await
            .header(ACCEPT, EVENT_STREAM);
        if let Some(last) = last_event_id {
            request = request.header(LAST_EVENT_ID, last);
        }
        self.execute(request).await
    }

    /// Starts (again) the task reading the session's GET stream; the
    /// receiver completes once the server answered its first GET (or the
    /// task ended).
    pub(super) fn listen(self: &Arc<Self>) -> oneshot::Receiver<()> {
        let (opened, on_open) = oneshot::channel();
        if self.stopped() {
            return on_open;
        }
        let task = tokio::spawn(Arc::clone(self).listening(opened));
        if let Some(old) = self.state().listening.replace(task.abort_handle()) {
            old.abort();
        }
        on_open
    }

    /// The GET stream: what the server sends on its own. Reopened (with
    /// `Last-Event-ID`) after the server's `retry` when it ends, backing off
    /// when reopening fails; given up on 405 (the server offers none), 404
    /// (the session ended: the next POST starts a new one) and 401/403.
    async fn listening(self: Arc<Self>, opened: oneshot::Sender<()>) {
        let mut opened = Some(opened);
        let mut parser = SseParser::new(self.max_message);
        let mut failures = 0u32;
        loop {
            let last = parser.last_id.clone();
            let answer = self.get(last.as_deref()).await;
            if let Some(opened) = opened.take() {
                let _ = opened.send(());
            }
            let ended = match answer {
                Ok(response) if response.status().is_success() && is_sse(&response) => {
                    failures = 0;
                    let mut answered = false;
                    self.read_events(response, &mut parser, None, &mut answered)
                        .await
                }
                Ok(response) => {
                    let status = response.status();
                    if matches!(status.as_u16(), 401 | 403 | 404 | 405) {
                        tracing::debug!(%status, "no GET stream");
                        return;
                    }
                    format!("HTTP {status}")
                }
                Err(error) => error.to_string(),
            };
            if self.stopped() {
                return;
            }
            failures += 1;
            let base = parser.retry.unwrap_or(DEFAULT_RETRY);
            let delay = base
                .saturating_mul(1 << (failures - 1).min(16))
                .min(MAX_BACKOFF.max(base));
            tracing::debug!(reason = ended, ?delay, "the GET stream ended; reopening it");
            if !self.pause(delay).await {
                return;
            }
        }
    }
}
