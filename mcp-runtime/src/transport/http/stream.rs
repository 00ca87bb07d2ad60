//! One response stream: the messages a POST's request produces (its
//! progress and log notifications, then its response), or a session's
//! messages that belong to no request (the GET stream).
//!
//! The connection writes into it through an [`Outbox`] whose sink is this
//! stream: every line becomes an event with a number. The HTTP side reads
//! events from a cursor, so a client that reconnects with `Last-Event-ID`
//! reads on from where it was, for as long as the events are kept: the last
//! `capacity` events once delivered, or all of them while a reader is behind
//! (the sink then refuses more, and the outbox holds them back). A stream
//! nobody reads keeps its last `capacity` events; one read to its end keeps
//! its last (the response), for a client whose connection dropped before
//! the response reached it.

use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use tokio::sync::Notify;

use crate::jsonrpc::{InstanceTag, is_response};
use crate::outbox::{DirectWrite, Outbox, WeakOutbox};

pub(crate) struct EventStream {
    /// Its number in the session, the first part of its event ids.
    pub(crate) number: u64,
    /// The request its POST carried, as its event ids name it
    /// ([`event_id`](super::event_id)); `None` for the GET stream.
    pub(crate) tag: Option<Box<str>>,
    /// The instance of a fleet that keeps it, which its event ids name
    /// (`None` outside a fleet).
    pub(crate) instance: Option<InstanceTag>,
    state: Mutex<State>,
    changed: Notify,
    /// Readers attached now (HTTP responses streaming it).
    readers: AtomicUsize,
}

struct State {
    /// Kept events, oldest first, numbered from 1 without gaps.
    events: VecDeque<(u64, Bytes)>,
    next: u64,
    /// Events up to this number were handed to a reader.
    delivered: u64,
    capacity: usize,
    /// A response was written: nothing follows it.
    answered: bool,
    /// No more events will come.
    ended: bool,
    /// The sink refused bytes: the outbox holds them until a reader pumps it.
    refused: bool,
    /// Read to its end: only its last event is kept, in case the client's
    /// connection dropped before it arrived.
    spent: bool,
    source: WeakOutbox,
}

/// What a reader gets from [`EventStream::read`].
pub(crate) enum Read {
    /// Events after the cursor, in order.
    Events(Vec<(u64, Bytes)>),
    /// Nothing after the cursor, and nothing more will come.
    End,
}

impl EventStream {
    pub(crate) fn new(number: u64, capacity: usize) -> Arc<EventStream> {
        EventStream::tagged(number, None, capacity)
    }

    /// A stream whose event ids name the request `tag` stands for.
    pub(crate) fn tagged(number: u64, tag: Option<Box<str>>, capacity: usize) -> Arc<EventStream> {
        EventStream::kept_by(None, number, tag, capacity)
    }

    /// A stream whose event ids name the request `tag` stands for, and the
    /// instance of a fleet that keeps it.
    pub(crate) fn kept_by(
        instance: Option<InstanceTag>,
        number: u64,
        tag: Option<Box<str>>,
        capacity: usize,
    ) -> Arc<EventStream> {
        Arc::new(EventStream {
            number,
            tag,
            instance,
            state: Mutex::new(State {
                events: VecDeque::new(),
                next: 1,
                delivered: 0,
                capacity: capacity.max(1),
                answered: false,
                ended: false,
                refused: false,
                spent: false,
                source: WeakOutbox::default(),
            }),
            changed: Notify::new(),
            readers: AtomicUsize::new(0),
        })
    }

    /// An output whose messages become this stream's events, with room for
    /// `bytes` before its queue grows (a request's stream writes a reply or
    /// two and ends; a session's GET stream may never be written to). The
    /// stream ends when every clone of it is dropped.
    pub(crate) fn outbox(self: &Arc<Self>, bytes: usize) -> Outbox {
        let out = Outbox::with_capacity(Box::new(Sink(Arc::clone(self))), bytes);
        self.lock().source = out.downgrade();
        out
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Ends the stream: readers get what is kept, then the end.
    pub(crate) fn close(&self) {
        self.lock().ended = true;
        self.changed.notify_waiters();
    }

    /// Whether no more events will come.
    pub(crate) fn is_finished(&self) -> bool {
        let state = self.lock();
        state.answered || state.ended
    }

    pub(crate) fn has_readers(&self) -> bool {
        self.readers.load(Ordering::Acquire) > 0
    }

    /// Counts a reader as attached while the guard lives.
    pub(crate) fn attach(self: &Arc<Self>) -> ReaderGuard {
        self.readers.fetch_add(1, Ordering::AcqRel);
        ReaderGuard(Arc::clone(self))
    }

    /// Waits for events after `cursor`, or the end.
    pub(crate) async fn read(&self, cursor: u64) -> Read {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let (taken, end, refused) = {
                let mut state = self.lock();
                // Numbered in order: skip what the reader has.
                let taken: Vec<(u64, Bytes)> = state
                    .events
                    .iter()
                    .skip_while(|(n, _)| *n <= cursor)
                    .cloned()
                    .collect();
                if let Some(&(last, _)) = taken.last() {
                    state.delivered = state.delivered.max(last);
                    trim(&mut state);
                }
                let end = (state.answered || state.ended) && cursor + 1 >= state.next;
                let refused = std::mem::take(&mut state.refused).then(|| state.source.clone());
                (taken, end, refused)
            };
            // The sink refused bytes while this reader was behind: now
            // there is room, the outbox writes them.
            let pumped = refused
                .and_then(|weak| weak.upgrade())
                .map(|out| out.pump());
            if !taken.is_empty() {
                return Read::Events(taken);
            }
            if end {
                return Read::End;
            }
            if pumped.is_none() {
                changed.await;
            }
        }
    }

    /// Once read to its end, keeps only its last event (the response, when
    /// the request was answered): a client whose connection dropped after
    /// everything was written resumes and still gets the response, and an
    /// ended stream costs one event.
    pub(crate) fn keep_last(&self) {
        let mut state = self.lock();
        let drop = state.events.len().saturating_sub(1);
        state.events.drain(..drop);
        state.events.shrink_to_fit();
        state.spent = true;
    }

    /// The bytes of a stream [read to its end](EventStream::keep_last)
    /// (its last event), or `None` if it was not.
    pub(crate) fn spent_bytes(&self) -> Option<usize> {
        let state = self.lock();
        state
            .spent
            .then(|| state.events.iter().map(|(_, line)| line.len()).sum())
    }

    /// The number of the last event handed to a reader, 0 before any.
    pub(crate) fn delivered(&self) -> u64 {
        self.lock().delivered
    }
}

/// Drops delivered events beyond the capacity.
fn trim(state: &mut State) {
    while state.events.len() > state.capacity {
        match state.events.front() {
            Some(&(n, _)) if n <= state.delivered => {
                state.events.pop_front();
            }
            _ => break,
        }
    }
}

/// A reader attached to a stream; detaches on drop.
pub(crate) struct ReaderGuard(Arc<EventStream>);

impl ReaderGuard {
    pub(crate) fn stream(&self) -> &Arc<EventStream> {
        &self.0
    }
}

impl Drop for ReaderGuard {
    fn drop(&mut self) {
        self.0.readers.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The outbox's sink: lines in, events out.
struct Sink(Arc<EventStream>);

impl DirectWrite for Sink {
    fn try_write(&self, bytes: &[u8]) -> io::Result<usize> {
        let stream = &self.0;
        let mut state = stream.lock();
        if state.ended {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        let unread = state.next - 1 - state.delivered;
        if unread as usize >= state.capacity && stream.has_readers() {
            // A reader is behind: hold back until it catches up.
            state.refused = true;
            return Ok(0);
        }
        drop(state);
        self.append(bytes);
        Ok(bytes.len())
    }

    /// Takes everything, past the capacity: the outbox hands over what it
    /// still holds when its last handle is dropped (the request is done).
    fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
        if self.0.lock().ended {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        self.append(bytes);
        Ok(())
    }
}

impl Sink {
    /// Each line of `bytes` as an event.
    fn append(&self, bytes: &[u8]) {
        let stream = &self.0;
        let mut state = stream.lock();
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            if is_response(line) {
                state.answered = true;
            }
            let n = state.next;
            state.next += 1;
            state.events.push_back((n, Bytes::copy_from_slice(line)));
        }
        if !stream.has_readers() {
            // Nobody is reading: keep only the newest events.
            while state.events.len() > state.capacity {
                state.events.pop_front();
            }
        }
        drop(state);
        stream.changed.notify_waiters();
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        self.0.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_stream_read_to_its_end_keeps_its_response_only() {
        let stream = EventStream::new(3, 256);
        let reader = stream.attach();
        let out = stream.outbox(1024);
        for n in 1..=100 {
            assert!(out.try_send(format!("{{\"progress\":{n}}}\n").as_bytes()));
        }
        assert!(out.try_send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"));
        drop(out);
        let mut cursor = 0;
        while let Read::Events(events) = stream.read(cursor).await {
            cursor = events.last().unwrap().0;
        }
        assert_eq!(cursor, 101);
        drop(reader);
        stream.keep_last();
        {
            let state = stream.lock();
            assert_eq!(state.events.len(), 1);
            assert!(
                state.events.capacity() < 8,
                "the room for the rest is freed"
            );
        }
        // A reader that resumes from any earlier event gets the response.
        let Read::Events(rest) = stream.read(40).await else {
            panic!("the response is kept");
        };
        assert_eq!(rest.len(), 1);
        assert_eq!(rest[0].0, 101);
        assert!(is_response(&rest[0].1));
        assert!(matches!(stream.read(101).await, Read::End));
    }
}
