//! Serving one connection: the lines a transport hands it, each message
//! they hold (responses to the server's own requests, notifications,
//! requests, batches), and each request sent to its era: a legacy session
//! (`connection`) or the 2026-07-28 era (`modern`).

use std::time::Instant;

use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tracing::Instrument;

use super::frame::{BatchSlot, Frame, Request};
use super::incoming::{Incoming, lines_of, without_cr};
use super::modern::{claims_modern, meta_of};
use super::reply::{Answer, Replies};
use super::state::Connection;
use crate::context::SessionChange;
use crate::jsonrpc::{self, ErrorObject, INVALID_REQUEST, Line, Message, PARSE_ERROR, RequestId};
use crate::outbox::Outbox;
use crate::telemetry;

/// Serves `connection` until `incoming` ends (EOF) or the output closes.
/// On EOF, calls in flight get the grace period to finish and answer.
pub(crate) async fn serve(
    mut connection: Connection,
    mut incoming: mpsc::Receiver<Incoming<'static>>,
) {
    while let Some(message) = incoming.recv().await {
        if !connection.handle(message).await {
            return;
        }
    }
    connection.finish().await;
}

impl Connection {
    /// Handles one piece of input; its replies, and whatever calls report
    /// meanwhile, go out together when it is done. Waits while the client
    /// is not reading its output. Returns `false` once the output is
    /// closed: the calls in flight were dropped and the connection is over.
    pub(crate) async fn handle(&mut self, message: Incoming<'_>) -> bool {
        let out = self.out.clone();
        out.hold();
        match message {
            Incoming::Line(line) => self.handle_line(&line, &out).await,
            Incoming::Lines(block) => {
                for line in lines_of(&block) {
                    self.handle_line(line, &out).await;
                }
            }
            Incoming::TooLarge => self.too_large(&out),
        }
        out.release();
        out.wait_for_room().await;
        self.calls.reap();
        if out.is_closed() {
            tracing::debug!("output closed; stopping");
            self.calls.abort_all();
            return false;
        }
        true
    }

    /// The input ended: calls in flight get the grace period to finish and
    /// answer, then are dropped.
    pub(crate) async fn finish(mut self) {
        self.end_listens();
        self.calls.finish(self.core.limits.shutdown_grace).await;
    }

    fn too_large(&self, out: &Outbox) {
        let max_message_bytes = self.core.limits.max_message_bytes;
        out.write_with(|reply| {
            jsonrpc::write_error(reply, None, &ErrorObject::too_large(max_message_bytes));
        });
    }

    async fn handle_line(&mut self, line: &[u8], out: &Outbox) {
        // The limit holds whatever the transport (stdio skips lines that
        // outgrow it before they end, but one can arrive whole in a block;
        // the in-process TestClient does not check at all).
        if line.len() > self.core.limits.max_message_bytes {
            return self.too_large(out);
        }
        self.dispatch(jsonrpc::parse_line(without_cr(line)), line.len(), out)
            .await;
        // A client that sends faster than it reads: reading pauses until
        // it catches up, so a block of small requests with large replies
        // cannot pile up in memory.
        if out.is_full() {
            out.released_while(out.wait_for_room()).await;
        }
    }

    /// Serves one parsed message body (HTTP): replies, and everything the
    /// calls it starts report, go to `out` instead of the connection's
    /// output. Returns once the body is dispatched; calls that have to wait
    /// answer later, from their tasks.
    #[cfg(feature = "http")]
    pub(crate) async fn handle_parsed(&mut self, line: Line<'_>, size: usize, out: &Outbox) {
        self.http = true;
        out.hold();
        self.dispatch(line, size, out).await;
        out.release();
        self.calls.reap();
    }

    async fn dispatch(&mut self, line: Line<'_>, size: usize, out: &Outbox) {
        match line {
            Line::Blank => {}
            Line::ParseError => out.write_with(|reply| {
                jsonrpc::write_error(
                    reply,
                    None,
                    &ErrorObject::new(PARSE_ERROR, "Parse error: the message is not valid JSON"),
                );
            }),
            Line::Single(message) => {
                self.handle_message(message, size, out, &mut None, Replies::Out(out))
                    .await;
            }
            Line::Batch(items) => self.handle_batch(items, out).await,
        }
    }

    /// Handles one message of `size` bytes; writes its reply to `reply` and
    /// returns `true` when there is one to send now. A call that has to
    /// wait replies from its task, to the batch when `batch_slot` holds a
    /// sender (which it then takes).
    pub(super) async fn handle_message(
        &mut self,
        message: Message<'_>,
        size: usize,
        out: &Outbox,
        batch_slot: &mut Option<BatchSlot>,
        mut reply: Replies<'_>,
    ) -> bool {
        match message {
            Message::Response { id, result, error } => {
                // The client's answer to a request of ours.
                let routed = self
                    .session
                    .as_ref()
                    .is_some_and(|session| session.asks.answer(id.as_ref(), result, error));
                if !routed {
                    tracing::debug!(
                        id = id.as_ref().map(RequestId::as_json),
                        "ignored a response that answers no request of ours"
                    );
                }
                false
            }
            Message::Invalid { id, reason } => {
                reply.write(|reply| {
                    jsonrpc::write_error(
                        reply,
                        id.as_ref(),
                        &ErrorObject::new(INVALID_REQUEST, format!("Invalid request: {reason}")),
                    );
                });
                true
            }
            Message::Notification { method, params } => {
                let peer = self.peer();
                let span = telemetry::request_span(&self.core, &method, None, params, None, peer);
                span.in_scope(|| self.handle_notification(&method, params));
                false
            }
            Message::Request {
                id,
                method,
                params,
                call,
            } => {
                let peer = self.peer();
                let span = telemetry::request_span(
                    &self.core,
                    &method,
                    Some(&id),
                    params,
                    call.as_ref(),
                    peer,
                );
                let started = (!span.is_disabled()).then(Instant::now);
                let request = Request {
                    method: &method,
                    params,
                    call,
                };
                let mut frame = Frame {
                    id: &id,
                    size,
                    out,
                    batch_slot,
                    reply,
                };
                let handling = self.handle_request(request, &mut frame);
                // Wrapping moves the whole future: only when it is logged.
                let outcome = if started.is_some() {
                    handling.instrument(span.clone()).await
                } else {
                    handling.await
                };
                let elapsed_us = || started.map_or(0, |s| s.elapsed().as_micros() as u64);
                match outcome {
                    Ok(Answer::Written) => {
                        if started.is_some() {
                            let session = self.session.as_deref();
                            telemetry::answered(&span, &method, session, elapsed_us());
                        }
                        true
                    }
                    Ok(Answer::Later) => false,
                    Err(error) => {
                        if started.is_some() {
                            telemetry::failed(&span, &error, elapsed_us());
                        }
                        (frame.reply).write(|reply| jsonrpc::write_error(reply, Some(&id), &error));
                        true
                    }
                }
            }
        }
    }

    /// Sends a request to its era: a legacy session stays legacy; without
    /// one, a request may be of the 2026-07-28 era.
    async fn handle_request(
        &mut self,
        request: Request<'_, '_>,
        frame: &mut Frame<'_>,
    ) -> Result<Answer, ErrorObject> {
        let modern = self.modern_only
            || (self.session.is_none() && claims_modern(request.method, meta_of(&request)));
        if modern {
            return Box::pin(self.handle_modern(request, frame)).await;
        }
        self.handle_legacy(request, frame).await
    }

    fn handle_notification(&mut self, method: &str, params: Option<&RawValue>) {
        match method {
            "notifications/cancelled" => {
                // The id as sent: parsed into a `Value`, an integer beyond
                // 64 bits would be rounded and could name another call.
                #[derive(serde::Deserialize)]
                struct Cancelled<'a> {
                    #[serde(rename = "requestId", borrow)]
                    request_id: &'a RawValue,
                }
                let Some(Ok(Cancelled { request_id })) =
                    params.map(|raw| serde_json::from_str::<Cancelled<'_>>(raw.get()))
                else {
                    return;
                };
                let key = jsonrpc::canonical_id(request_id.get());
                if self.calls.cancel(&key) {
                    tracing::debug!(request_id = %request_id, "call cancelled by the client");
                } else if self.unlisten(&key) {
                    tracing::debug!(request_id = %request_id, "subscription cancelled by the client");
                }
            }
            "notifications/initialized" => tracing::debug!("client sent notifications/initialized"),
            "notifications/roots/list_changed" => {
                // Asked again the next time a tool wants them.
                if let Some(session) = &self.session {
                    if let Ok(mut roots) = session.roots.lock() {
                        *roots = None;
                    }
                    session.changed(SessionChange::RootsChanged);
                }
            }
            other => tracing::trace!(method = other, "notification ignored"),
        }
    }
}
