//! Where a connection's outgoing messages go, in the order they were made.
//!
//! Every message of a connection (the dispatcher's replies, a call's result
//! from its task, a progress report, a log message) is appended to one
//! queue, under one lock, at the moment it is made: nothing is ever written
//! after a message made later. While the dispatcher works through a block of
//! input it [holds](Outbox::hold) the queue, so the replies to a block of
//! requests, and whatever calls report meanwhile, go out in one write when
//! it [releases](Outbox::release) it (or sooner, past [`FLUSH_AT`] bytes).
//!
//! Writing never blocks a runtime thread: the queue is written straight to
//! the sink when that cannot block (the pipe or socket has room), otherwise
//! by a dedicated writer thread that blocks for the client. The common case
//! so costs one `write` and no hand-over between threads.
//!
//! The in-process [`TestClient`](crate::testing::TestClient) uses a sink
//! that always has room: a channel.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use tokio::sync::Notify;

/// Queued bytes at which the output counts as full: [`Outbox::wait_for_room`]
/// waits, and [`Outbox::try_send`] refuses.
const HIGH_WATER: usize = 1 << 20;
/// Held bytes beyond which the queue is written without waiting for the
/// release.
const FLUSH_AT: usize = 16 * 1024;
/// A writer buffer above this size is not kept between writes.
const KEEP_CAPACITY: usize = 256 * 1024;

/// The sending side of a connection's output. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Outbox(Arc<Shared>);

/// Writes to the client without blocking, when that is possible.
pub(crate) trait DirectWrite: Send + Sync {
    /// Writes some of `bytes` if it can without blocking: `Ok(0)` when it
    /// cannot, an error when the output is gone.
    fn try_write(&self, bytes: &[u8]) -> io::Result<usize>;
    /// Writes all of `bytes`, blocking as long as it takes (on the writer
    /// thread, which a sink whose `try_write` never returns 0 can do without).
    fn write_all(&self, bytes: &[u8]) -> io::Result<()>;
}

#[derive(Default)]
struct State {
    /// Whole messages with their newlines, in the order they were made.
    queue: Vec<u8>,
    /// The dispatcher is working through a block of input: replies gather.
    held: bool,
    /// The writer thread holds bytes taken from `queue`.
    writing: bool,
    writer_waiting: bool,
    /// No more messages will come: the writer exits once `queue` is written.
    finished: bool,
    /// The output failed (the client went away): everything is dropped.
    closed: bool,
}

struct Shared {
    state: Mutex<State>,
    /// Whether `queue` held [`HIGH_WATER`] bytes when last changed, readable
    /// without the lock.
    full: AtomicBool,
    wake_writer: Condvar,
    room: Notify,
    sink: Box<dyn DirectWrite>,
}

impl Outbox {
    pub(crate) fn new(sink: Box<dyn DirectWrite>) -> Outbox {
        Self::with_capacity(sink, 0)
    }

    /// An output whose queue has room for `bytes` before it grows: for a
    /// short-lived output (one HTTP request's), so that writing its few
    /// messages does not reallocate the queue again and again.
    pub(crate) fn with_capacity(sink: Box<dyn DirectWrite>, bytes: usize) -> Outbox {
        Outbox(Arc::new(Shared {
            state: Mutex::new(State {
                queue: Vec::with_capacity(bytes),
                ..State::default()
            }),
            full: AtomicBool::new(false),
            wake_writer: Condvar::new(),
            room: Notify::new(),
            sink,
        }))
    }

    /// An output that drops everything written to it.
    pub(crate) fn discard() -> Outbox {
        struct Discard;
        impl DirectWrite for Discard {
            fn try_write(&self, bytes: &[u8]) -> io::Result<usize> {
                Ok(bytes.len())
            }
            fn write_all(&self, _: &[u8]) -> io::Result<()> {
                Ok(())
            }
        }
        Outbox::new(Box::new(Discard))
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave `State` inconsistent
        // in a way that matters more than losing the output.
        self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Gathers messages instead of writing each: until [`Outbox::release`],
    /// the queue is written only once it passes [`FLUSH_AT`] bytes.
    pub(crate) fn hold(&self) {
        self.lock().held = true;
    }

    /// Writes what was gathered since [`Outbox::hold`].
    pub(crate) fn release(&self) {
        let mut state = self.lock();
        state.held = false;
        self.flush(state);
    }

    /// Waits for `until` with what was gathered written out, then holds
    /// again: reading pauses mid-block, and the client must not wait for
    /// replies made before the pause.
    pub(crate) async fn released_while<T>(&self, until: impl Future<Output = T>) -> T {
        self.release();
        let output = until.await;
        self.hold();
        output
    }

    /// Appends one message, written by `write` (without its newline) straight
    /// into the queue. Never waits; a message that finds the output closed
    /// is dropped.
    pub(crate) fn write_with(&self, write: impl FnOnce(&mut Vec<u8>)) {
        let mut state = self.lock();
        if state.closed || state.finished {
            return;
        }
        write(&mut state.queue);
        state.queue.push(b'\n');
        self.flush(state);
    }

    /// Appends `bytes` (whole messages with their newlines), then waits while
    /// the output is full, so a client that does not read holds up the
    /// sender instead of growing the queue. Dropped if the output is closed.
    pub(crate) async fn send(&self, bytes: &[u8]) {
        if self.push(self.lock(), bytes) {
            self.wait_for_room().await;
        }
    }

    /// Appends `bytes` unless the output is full or closed; returns whether
    /// it did.
    pub(crate) fn try_send(&self, bytes: &[u8]) -> bool {
        let state = self.lock();
        state.queue.len() < HIGH_WATER && self.push(state, bytes)
    }

    /// Waits until the output is not full (or is closed).
    pub(crate) async fn wait_for_room(&self) {
        crate::wait::until(&self.0.room, || {
            let state = self.lock();
            state.queue.len() < HIGH_WATER || state.closed
        })
        .await;
    }

    /// Whether the output is full: the client is not keeping up. Cheap
    /// enough to ask after every message.
    pub(crate) fn is_full(&self) -> bool {
        self.0.full.load(Ordering::Relaxed)
    }

    /// Writes what the sink refused earlier, now that it has room (a sink
    /// without a writer thread, whose reader calls this after taking
    /// bytes), and wakes the senders waiting for room.
    #[cfg(feature = "http")]
    pub(crate) fn pump(&self) {
        let state = self.lock();
        self.flush(state);
        if !self.is_full() {
            self.0.room.notify_waiters();
        }
    }

    /// A handle that does not keep the output open.
    pub(crate) fn downgrade(&self) -> WeakOutbox {
        WeakOutbox(Arc::downgrade(&self.0))
    }

    /// Whether the client can no longer receive anything.
    pub(crate) fn is_closed(&self) -> bool {
        self.lock().closed
    }

    fn push(&self, mut state: MutexGuard<'_, State>, bytes: &[u8]) -> bool {
        if state.closed || state.finished {
            return false;
        }
        state.queue.extend_from_slice(bytes);
        self.flush(state);
        true
    }

    /// Writes the queue unless it is held (and small) or the writer thread
    /// has it: directly as far as the sink takes it without blocking, the
    /// rest by the writer thread.
    fn flush(&self, mut state: MutexGuard<'_, State>) {
        let hold = state.held && state.queue.len() < FLUSH_AT;
        if !state.queue.is_empty() && !state.writing && !hold {
            match self.0.sink.try_write(&state.queue) {
                Ok(n) if n == state.queue.len() => state.queue.clear(),
                Ok(n) => {
                    state.queue.drain(..n);
                    if state.writer_waiting {
                        self.0.wake_writer.notify_one();
                    }
                }
                Err(error) => {
                    close(&mut state, &error);
                    drop(state);
                    self.0.full.store(false, Ordering::Relaxed);
                    self.0.room.notify_waiters();
                    return;
                }
            }
        }
        self.0
            .full
            .store(state.queue.len() >= HIGH_WATER, Ordering::Relaxed);
    }

    /// No more messages: the writer thread writes what is queued and ends.
    pub(crate) fn finish(&self) {
        let mut state = self.lock();
        state.held = false;
        state.finished = true;
        self.0.wake_writer.notify_one();
    }

    /// The writer thread's loop: blocking writes of whatever the direct
    /// writes left queued. Returns once finished and drained, or at the
    /// first write error.
    pub(crate) fn run_writer(&self) -> io::Result<()> {
        let mut buf = Vec::new();
        loop {
            {
                let mut state = self.lock();
                // Held bytes wait for the release; nothing can be in front
                // of them, so taking them early would be just as right, but
                // the point of holding is one write per block.
                while state.queue.is_empty() || (state.held && state.queue.len() < FLUSH_AT) {
                    if state.closed || (state.finished && state.queue.is_empty()) {
                        return Ok(());
                    }
                    state.writer_waiting = true;
                    state = self
                        .0
                        .wake_writer
                        .wait(state)
                        .unwrap_or_else(|e| e.into_inner());
                    state.writer_waiting = false;
                }
                std::mem::swap(&mut state.queue, &mut buf);
                state.writing = true;
                self.0.full.store(false, Ordering::Relaxed);
            }
            self.0.room.notify_waiters();
            let result = self.0.sink.write_all(&buf);
            buf.clear();
            if buf.capacity() > KEEP_CAPACITY {
                buf = Vec::new();
            }
            let mut state = self.lock();
            state.writing = false;
            if let Err(error) = result {
                close(&mut state, &error);
                drop(state);
                self.0.room.notify_waiters();
                return Err(error);
            }
        }
    }
}

impl Drop for Shared {
    /// The last handle is gone: what the sink refused so far (a sink without
    /// a writer thread, whose reader was behind) is handed over whole, so
    /// no message made is lost. A sink with a writer thread has nothing
    /// left by then: the thread holds a handle until it has written all.
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        if !state.closed && !state.queue.is_empty() {
            let _ = self.sink.write_all(&state.queue);
        }
    }
}

/// An [`Outbox`] that may be gone: the output ends when its last
/// [`Outbox`] is dropped (the sink is dropped with it), whoever holds these.
#[derive(Clone, Default)]
pub(crate) struct WeakOutbox(std::sync::Weak<Shared>);

impl WeakOutbox {
    pub(crate) fn upgrade(&self) -> Option<Outbox> {
        self.0.upgrade().map(Outbox)
    }
}

fn close(state: &mut State, error: &io::Error) {
    if !state.closed {
        tracing::debug!(%error, "output closed");
    }
    state.closed = true;
    state.queue = Vec::new();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink that takes direct writes only while `open`, records
    /// everything, and can be made to fail.
    #[derive(Default)]
    struct Recorder {
        open: AtomicBool,
        fail: AtomicBool,
        written: Mutex<Vec<u8>>,
        writes: Mutex<usize>,
    }

    impl DirectWrite for Arc<Recorder> {
        fn try_write(&self, bytes: &[u8]) -> io::Result<usize> {
            if self.fail.load(Ordering::SeqCst) {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            if !self.open.load(Ordering::SeqCst) {
                return Ok(0);
            }
            self.write_all(bytes).map(|()| bytes.len())
        }

        fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
            if self.fail.load(Ordering::SeqCst) {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            self.written.lock().unwrap().extend_from_slice(bytes);
            *self.writes.lock().unwrap() += 1;
            Ok(())
        }
    }

    fn text(recorder: &Recorder) -> String {
        String::from_utf8(recorder.written.lock().unwrap().clone()).unwrap()
    }

    fn outbox() -> (Arc<Recorder>, Outbox) {
        let recorder = Arc::new(Recorder::default());
        recorder.open.store(true, Ordering::SeqCst);
        let out = Outbox::new(Box::new(Arc::clone(&recorder)));
        (recorder, out)
    }

    #[tokio::test]
    async fn writes_directly_when_it_can_and_keeps_order_when_it_cannot() {
        let (recorder, out) = outbox();
        out.send(b"1\n").await;
        assert_eq!(text(&recorder), "1\n", "written without the writer thread");
        // The sink is full: queued, and later messages queue behind it even
        // once the sink has room again, until something flushes.
        recorder.open.store(false, Ordering::SeqCst);
        out.send(b"2\n").await;
        recorder.open.store(true, Ordering::SeqCst);
        out.finish();
        let writer = {
            let out = out.clone();
            std::thread::spawn(move || out.run_writer())
        };
        writer.join().unwrap().unwrap();
        assert_eq!(text(&recorder), "1\n2\n");
        // Finished: nothing more is accepted.
        assert!(!out.try_send(b"5\n"));
    }

    #[tokio::test]
    async fn held_messages_keep_the_order_they_were_made_in_and_go_out_in_one_write() {
        let (recorder, out) = outbox();
        out.hold();
        out.write_with(|buf| buf.extend_from_slice(b"reply 1"));
        // Another producer (a call's task, a progress report) while held:
        // queued behind the reply made before it, not written ahead of it.
        assert!(out.try_send(b"progress\n"));
        out.send(b"result\n").await;
        out.write_with(|buf| buf.extend_from_slice(b"reply 2"));
        assert_eq!(text(&recorder), "", "nothing is written while held");
        out.release();
        assert_eq!(text(&recorder), "reply 1\nprogress\nresult\nreply 2\n");
        assert_eq!(*recorder.writes.lock().unwrap(), 1);
        out.write_with(|buf| buf.extend_from_slice(b"after"));
        assert_eq!(
            *recorder.writes.lock().unwrap(),
            2,
            "not held: written at once"
        );
    }

    #[tokio::test]
    async fn a_large_held_queue_is_written_before_the_release() {
        let (recorder, out) = outbox();
        out.hold();
        let big = vec![b'x'; FLUSH_AT];
        out.write_with(|buf| buf.extend_from_slice(&big));
        assert_eq!(recorder.written.lock().unwrap().len(), FLUSH_AT + 1);
        out.release();
    }

    #[tokio::test]
    async fn a_failed_write_closes_the_output() {
        let (recorder, out) = outbox();
        assert!(!out.is_closed());
        recorder.fail.store(true, Ordering::SeqCst);
        out.send(b"lost\n").await;
        assert!(out.is_closed());
        assert!(!out.try_send(b"x\n"));
        assert!(out.run_writer().is_ok(), "nothing left to write");
    }

    #[tokio::test]
    async fn senders_wait_for_room_after_queueing_and_try_send_refuses_when_full() {
        let (recorder, out) = outbox();
        recorder.open.store(false, Ordering::SeqCst);
        assert!(out.try_send(&vec![b'x'; HIGH_WATER]));
        assert!(out.is_full());
        assert!(!out.try_send(b"dropped\n"));
        let waiting = tokio::spawn({
            let out = out.clone();
            async move { out.send(b"after\n").await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "waits while the queue is full");
        let writer = {
            let out = out.clone();
            std::thread::spawn(move || out.run_writer())
        };
        waiting.await.unwrap();
        assert!(!out.is_full());
        out.finish();
        writer.join().unwrap().unwrap();
        let written = recorder.written.lock().unwrap();
        assert_eq!(written.len(), HIGH_WATER + b"after\n".len());
        assert!(written.ends_with(b"xafter\n"));
    }
}
