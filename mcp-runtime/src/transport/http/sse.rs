//! Server-sent events: a stream's events as an HTTP response body, each
//! with an id ([`event_id`](super::event_id)) a client can resume from;
//! without ids in the 2026-07-28 era, which has no resumption.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderValue, Response, StatusCode};
use bytes::{BufMut, Bytes, BytesMut};

use super::event_id;
use super::session::Session;
use super::stream::{EventStream, Read, ReaderGuard};
use crate::dispatch::Connection;

/// A comment sent when nothing else was, so that proxies and clients do
/// not take a quiet stream for a dead one.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

const RETRY: &[u8] = b"retry: 1000\n";

/// What an SSE response reads from, and keeps alive while it does.
pub(crate) struct Feed {
    pub(crate) stream: Arc<EventStream>,
    /// Events up to this number were sent already.
    pub(crate) cursor: u64,
    /// Events read before the response began.
    pub(crate) first: Option<Vec<(u64, Bytes)>>,
    /// Send an event with an id and no data first (2025-11-25), so the
    /// client can resume even before the first message.
    pub(crate) prime: bool,
    /// Give each event an id (not in the 2026-07-28 era: nothing resumes).
    pub(crate) ids: bool,
    /// Held for its `Drop`: the stream counts as read while this lives.
    #[expect(dead_code, reason = "held for its Drop")]
    pub(crate) reader: ReaderGuard,
    pub(crate) session: Option<Arc<Session>>,
    /// A stateless request's connection: its calls run as long as the
    /// response is read, and are dropped with it.
    #[expect(dead_code, reason = "held for its Drop")]
    pub(crate) connection: Option<Connection>,
}

impl Drop for Feed {
    /// A session's POST stream whose reader drops before its end (the
    /// client's connection broke): in a fleet, copied to the store, where
    /// any instance resumes it. Nothing for a reader that reads to the end.
    fn drop(&mut self) {
        if self.stream.number == 0 || self.stream.is_finished() {
            return;
        }
        if let Some(stored) = self.session.as_ref().and_then(|s| s.fleet.get()) {
            (stored.export)(&self.stream);
        }
    }
}

pub(crate) fn response(feed: Feed) -> Response<Body> {
    let body = futures_util::stream::unfold(Some(feed), next);
    with_body(Body::from_stream(body))
}

/// A stream of one event without an id, `message`, that ends at once: the
/// answer to a client that resumes a stream no longer kept.
pub(crate) fn single(message: &[u8]) -> Response<Body> {
    let mut chunk = BytesMut::new();
    write_data(&mut chunk, message);
    with_body(Body::from(chunk.freeze()))
}

/// 200 with `body` as an SSE stream, with the headers that keep proxies
/// from buffering it.
pub(crate) fn with_body(body: Body) -> Response<Body> {
    Response::builder()
        .status(StatusCode::OK)
        .header(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"))
        .header(CACHE_CONTROL, HeaderValue::from_static("no-cache"))
        .header("x-accel-buffering", HeaderValue::from_static("no"))
        .body(body)
        .unwrap_or_default()
}

async fn next(feed: Option<Feed>) -> Option<(Result<Bytes, Infallible>, Option<Feed>)> {
    let mut feed = feed?;
    let mut chunk = BytesMut::new();
    if std::mem::take(&mut feed.prime) {
        // How long a client whose connection drops waits before it
        // reconnects with `Last-Event-ID` (SEP-1699 asks for the field).
        chunk.put_slice(RETRY);
        write_event(&mut chunk, &feed.stream, feed.cursor, b"");
    }
    let events = match feed.first.take() {
        Some(events) => Some(events),
        None if !chunk.is_empty() => None,
        None => match tokio::time::timeout(KEEP_ALIVE, feed.stream.read(feed.cursor)).await {
            Err(_) => return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), Some(feed))),
            Ok(Read::Events(events)) => Some(events),
            Ok(Read::End) => {
                if let Some(session) = &feed.session
                    && feed.stream.number != 0
                {
                    // Read to the end: the client may still resume it if
                    // its connection dropped before the response reached
                    // it; the rest is not needed.
                    feed.stream.keep_last();
                    session.prune_streams();
                }
                return None;
            }
        },
    };
    for (number, line) in events.into_iter().flatten() {
        if feed.ids {
            write_event(&mut chunk, &feed.stream, number, &line);
        } else {
            write_data(&mut chunk, &line);
        }
        feed.cursor = number;
    }
    Some((Ok(chunk.freeze()), Some(feed)))
}

/// `id: ` and the event's id, then the message as one `data:` line (a
/// message never contains a newline), then the blank line that ends the
/// event.
fn write_event(chunk: &mut BytesMut, stream: &EventStream, number: u64, data: &[u8]) {
    let tag = stream.tag.as_deref();
    chunk.reserve(data.len() + 48 + tag.map_or(0, str::len));
    chunk.put_slice(b"id: ");
    event_id::write(chunk, stream.instance, stream.number, tag, number);
    chunk.put_u8(b'\n');
    write_data(chunk, data);
}

/// The message as one `data:` line and the blank line that ends its event.
fn write_data(chunk: &mut BytesMut, data: &[u8]) {
    chunk.reserve(data.len() + 9);
    chunk.put_slice(b"data: ");
    chunk.put_slice(data);
    chunk.put_slice(b"\n\n");
}
