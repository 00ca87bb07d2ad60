//! Reading a successful POST's answer, in a task of its own: plain JSON,
//! or an SSE stream resumed with `Last-Event-ID` if it drops before the
//! answer (never in the 2026-07-28 era). What it holds goes to the
//! session; a request whose answer is lost, or over the size limit, is
//! failed.

use std::sync::Arc;

use reqwest::header::CONTENT_TYPE;
use reqwest::{Response, StatusCode};
use serde_json::Value;
use serde_json::value::RawValue;

use super::refusal::chain;
use super::{DEFAULT_RETRY, EVENT_STREAM, Shared};
use crate::client::error::ClientError;
use crate::client::limit::{self, BodyError, our_id};
use crate::client::sse::{Event, SseParser};
use crate::client::transport::Received;
use crate::jsonrpc::{self, Line, Message};

/// How many times a POST's stream that dropped before its answer is
/// resumed before the request fails.
const RESUME_ATTEMPTS: u32 = 3;

impl Shared {
    /// Reads a successful POST's answer: plain JSON or an SSE stream, in
    /// a task of its own; what it holds goes to the session.
    pub(super) fn receive(
        self: &Arc<Self>,
        response: Response,
        expect: Option<String>,
    ) -> Result<(), ClientError> {
        if response.status() == StatusCode::ACCEPTED {
            if let Some(id) = expect {
                // A request is answered with JSON or a stream; 202 means
                // no answer will come (ours says so for a cancelled call).
                let shared = Arc::clone(self);
                tokio::spawn(async move {
                    let reason = "the server accepted the request without answering (202)";
                    shared.fail(&id, reason).await;
                });
            }
            return Ok(());
        }
        let media = content_type(&response);
        let status = response.status().as_u16();
        let task = if media.eq_ignore_ascii_case(EVENT_STREAM) {
            tokio::spawn(Arc::clone(self).follow(response, expect.clone()))
        } else if media.eq_ignore_ascii_case("application/json") {
            tokio::spawn(Arc::clone(self).read_json(response, expect.clone()))
        } else if expect.is_some() {
            return Err(ClientError::Http {
                status,
                message: format!("the answer's Content-Type is {media:?}, not JSON or SSE"),
                www_authenticate: None,
            });
        } else {
            return Ok(());
        };
        self.track(expect, &task);
        Ok(())
    }

    async fn read_json(self: Arc<Self>, response: Response, expect: Option<String>) {
        let answered = match limit::read_body(response, self.max_message).await {
            Ok(body) => self.deliver(&body, expect.as_deref()).await,
            Err(BodyError::TooLarge(size)) => {
                let id = expect.as_deref().and_then(our_id);
                return self.too_large(id, size).await;
            }
            Err(BodyError::Failed(error)) => {
                if let Some(id) = &expect {
                    let reason = format!("reading the answer failed: {}", chain(&error));
                    self.fail(id, &reason).await;
                }
                return;
            }
        };
        if let (false, Some(id)) = (answered, &expect) {
            self.fail(
                id,
                "the server's JSON answer holds no response to the request",
            )
            .await;
        }
    }

    /// Reads a POST's SSE stream; if it drops before the answer to
    /// `expect`, resumes it with `Last-Event-ID`, and fails the request
    /// when that is impossible.
    async fn follow(self: Arc<Self>, response: Response, expect: Option<String>) {
        let mut parser = SseParser::new(self.max_message);
        let mut answered = false;
        let mut ended = self
            .read_events(response, &mut parser, expect.as_deref(), &mut answered)
            .await;
        let Some(id) = expect else { return };
        if !answered && self.state().modern.is_some() {
            // The 2026-07-28 era does not resume streams.
            let reason = format!("the answer's stream ended ({ended})");
            return self.fail(&id, &reason).await;
        }
        let mut attempts = 0;
        while !answered {
            if self.stopped() {
                return;
            }
            let Some(last) = parser.last_id.clone() else {
                let reason =
                    format!("the answer's stream ended ({ended}) with no event id to resume from");
                return self.fail(&id, &reason).await;
            };
            if attempts == RESUME_ATTEMPTS {
                let reason = format!("the answer's stream ended and could not be resumed: {ended}");
                return self.fail(&id, &reason).await;
            }
            attempts += 1;
            if !self.pause(parser.retry.unwrap_or(DEFAULT_RETRY)).await {
                return;
            }
            tracing::debug!(last_event_id = last, "resuming the answer's stream");
            ended = match self.get(Some(&last)).await {
                Ok(response) if response.status().is_success() && is_sse(&response) => {
                    self.read_events(response, &mut parser, Some(&id), &mut answered)
                        .await
                }
                Ok(response) => format!("resuming it answered HTTP {}", response.status()),
                Err(error) => error.to_string(),
            };
        }
    }

    /// Reads an SSE stream to its end, passing each message on; sets
    /// `answered` when the response to `expect` passes. Returns how the
    /// stream ended, in words.
    pub(super) async fn read_events(
        &self,
        mut response: Response,
        parser: &mut SseParser,
        expect: Option<&str>,
        answered: &mut bool,
    ) -> String {
        let mut stop = self.stop.clone();
        loop {
            let chunk = tokio::select! {
                chunk = response.chunk() => chunk,
                _ = stop.wait_for(|stopped| *stopped) => return "the client closed".into(),
            };
            match chunk {
                Ok(Some(bytes)) => {
                    for event in parser.feed(&bytes) {
                        match event {
                            Event::Message(data) => *answered |= self.deliver(&data, expect).await,
                            Event::TooLarge(oversize) => {
                                *answered |=
                                    oversize.id.is_some() && oversize.id == expect.and_then(our_id);
                                self.too_large(oversize.id, Some(oversize.size)).await;
                            }
                        }
                    }
                }
                Ok(None) => return "the server ended it".into(),
                Err(error) => return chain(&error),
            }
        }
    }

    /// Passes one message (or each of a batch) to the session; `true` if
    /// the response to `expect` was among them.
    pub(super) async fn deliver(&self, body: &[u8], expect: Option<&str>) -> bool {
        let (messages, answered) = self.split(body, expect);
        for message in messages {
            self.push(message).await;
        }
        answered
    }

    /// The messages in `body`, and whether the answer to `expect` is one.
    /// Notes the protocol version from the answer to `initialize`.
    fn split(&self, body: &[u8], expect: Option<&str>) -> (Vec<Vec<u8>>, bool) {
        let mut answered = false;
        let mut note = |message: &Message<'_>| {
            if let Message::Response {
                id: Some(id),
                result,
                ..
            } = message
            {
                answered |= expect == Some(id.as_json());
                self.note_version(id.as_json(), *result);
            }
        };
        let messages = match jsonrpc::parse_line(body) {
            Line::Blank => Vec::new(),
            Line::Batch(items) => items
                .into_iter()
                .map(|item| {
                    note(&jsonrpc::classify(item));
                    item.get().as_bytes().to_vec()
                })
                .collect(),
            Line::Single(message) => {
                note(&message);
                vec![body.to_vec()]
            }
            // The session tells what is wrong with it (not JSON, nested
            // too deep), and fails the request it answers if it finds its id.
            Line::ParseError => {
                answered |= expect.is_some() && expect.and_then(our_id) == limit::id_of(body);
                vec![body.to_vec()]
            }
        };
        (messages, answered)
    }

    /// The answer to `initialize` names the version every later request
    /// carries in `MCP-Protocol-Version`.
    pub(super) fn note_version(&self, id: &str, result: Option<&RawValue>) {
        let mut state = self.state();
        if state.initialize.as_ref().is_none_or(|(_, sent)| sent != id) {
            return;
        }
        let version = result
            .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
            .and_then(|r| r.get("protocolVersion")?.as_str().map(str::to_owned));
        if version.is_some() {
            state.version = version;
        }
    }

    async fn push(&self, message: Vec<u8>) {
        let inbound = self.inbound().clone();
        if let Some(inbound) = inbound {
            let _ = inbound.send(Received::Message(message)).await;
        }
    }

    /// A message over the limit was skipped: the session fails the request
    /// `id` it answers.
    async fn too_large(&self, id: Option<u64>, size: Option<u64>) {
        let inbound = self.inbound().clone();
        if let Some(inbound) = inbound {
            let limit = self.max_message;
            let _ = inbound.send(Received::TooLarge { id, size, limit }).await;
        }
    }

    /// Fails the request `id` (JSON text): its answer was lost.
    async fn fail(&self, id: &str, reason: &str) {
        tracing::debug!(id, reason, "a request's answer was lost");
        // Our ids are numbers; any other id is not one of our requests.
        let Ok(id) = id.trim().parse::<u64>() else {
            return;
        };
        let inbound = self.inbound().clone();
        if let Some(inbound) = inbound {
            let reason = reason.to_owned();
            let _ = inbound.send(Received::Lost { id, reason }).await;
        }
    }
}

/// The answer's media type, without its parameters.
pub(super) fn content_type(response: &Response) -> String {
    let value = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    value
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// Whether the answer is an SSE stream.
pub(super) fn is_sse(response: &Response) -> bool {
    content_type(response).eq_ignore_ascii_case(EVENT_STREAM)
}
