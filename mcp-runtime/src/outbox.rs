//! Where a connection's outgoing messages go.
//!
//! Over stdio, a message is written straight to the output by whoever
//! produces it (the dispatcher, a call's task, a progress report) when that
//! cannot block: nothing is queued ahead of it and the pipe or socket has
//! room. Otherwise it is queued for a dedicated writer thread, which
//! blocks for the client. The common case so costs one `write` and no hand
//! over between threads; a slow client costs queueing, never a stalled
//! runtime thread. Order is kept: nothing is written directly while
//! anything is queued or being written.
//!
//! The in-process [`TestClient`](crate::testing::TestClient) reads a channel
//! instead.

use std::io;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use tokio::sync::{Notify, mpsc};

/// Queued bytes beyond which `send` waits and `try_send` refuses.
const HIGH_WATER: usize = 1 << 20;
/// A writer buffer above this size is not kept between writes.
const KEEP_CAPACITY: usize = 256 * 1024;

/// The sending side of a connection's output. Cheap to clone.
#[derive(Clone)]
pub(crate) enum Outbox {
    /// Whole messages, one per item, for an in-process reader.
    Channel(mpsc::Sender<Vec<u8>>),
    /// A byte stream written to a file descriptor.
    Stream(Arc<Stream>),
}

impl Outbox {
    /// Sends `bytes` (whole messages with their newlines), waiting while
    /// the output is full. Dropped if the output is closed.
    pub(crate) async fn send(&self, bytes: Vec<u8>) {
        match self {
            Outbox::Channel(tx) => {
                let _ = tx.send(bytes).await;
            }
            Outbox::Stream(stream) => {
                stream.wait_for_room().await;
                stream.push(&bytes);
            }
        }
    }

    /// Sends what `buf` holds and leaves it empty (its allocation is kept
    /// when the bytes could be copied out).
    pub(crate) async fn send_buf(&self, buf: &mut Vec<u8>) {
        if buf.is_empty() {
            return;
        }
        match self {
            Outbox::Channel(_) => self.send(std::mem::take(buf)).await,
            Outbox::Stream(stream) => {
                stream.wait_for_room().await;
                stream.push(buf);
                buf.clear();
            }
        }
    }

    /// Sends without waiting; `false` if the output is full or closed.
    pub(crate) fn try_send(&self, bytes: Vec<u8>) -> bool {
        match self {
            Outbox::Channel(tx) => tx.try_send(bytes).is_ok(),
            Outbox::Stream(stream) => {
                let state = stream.lock();
                if state.pending.len() >= HIGH_WATER {
                    return false;
                }
                stream.push_locked(state, &bytes)
            }
        }
    }

    /// Whether the client can no longer receive anything.
    pub(crate) fn is_closed(&self) -> bool {
        match self {
            Outbox::Channel(tx) => tx.is_closed(),
            Outbox::Stream(stream) => stream.lock().closed,
        }
    }
}

/// Writes to a file descriptor without blocking, when that is possible.
pub(crate) trait DirectWrite: Send + Sync {
    /// Writes some of `bytes` if it can without blocking: `Ok(0)` when it
    /// cannot, an error when the output is gone.
    fn try_write(&self, bytes: &[u8]) -> io::Result<usize>;
    /// Writes all of `bytes`, blocking as long as it takes.
    fn write_all(&self, bytes: &[u8]) -> io::Result<()>;
}

#[derive(Default)]
struct State {
    pending: Vec<u8>,
    /// The writer thread holds bytes taken from `pending`.
    writing: bool,
    writer_waiting: bool,
    /// No more messages will come: the writer exits once `pending` is written.
    finished: bool,
    /// The output failed (the client went away): everything is dropped.
    closed: bool,
}

/// The shared state of a stream output and its writer thread.
pub(crate) struct Stream {
    state: Mutex<State>,
    wake_writer: Condvar,
    room: Notify,
    sink: Box<dyn DirectWrite>,
}

impl Stream {
    pub(crate) fn new(sink: Box<dyn DirectWrite>) -> Arc<Stream> {
        Arc::new(Stream {
            state: Mutex::new(State::default()),
            wake_writer: Condvar::new(),
            room: Notify::new(),
            sink,
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave `State` inconsistent
        // in a way that matters more than losing the output.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn wait_for_room(&self) {
        crate::wait::until(&self.room, || {
            let state = self.lock();
            state.pending.len() < HIGH_WATER || state.closed
        })
        .await;
    }

    fn push(&self, bytes: &[u8]) -> bool {
        let state = self.lock();
        self.push_locked(state, bytes)
    }

    fn push_locked(&self, mut state: MutexGuard<'_, State>, bytes: &[u8]) -> bool {
        if state.closed || state.finished {
            return false;
        }
        let mut rest = bytes;
        if state.pending.is_empty() && !state.writing {
            match self.sink.try_write(rest) {
                Ok(n) => rest = &rest[n..],
                Err(error) => {
                    close(&mut state, &error);
                    drop(state);
                    self.room.notify_waiters();
                    return false;
                }
            }
        }
        if !rest.is_empty() {
            state.pending.extend_from_slice(rest);
            if state.writer_waiting {
                self.wake_writer.notify_one();
            }
        }
        true
    }

    /// No more messages: the writer thread writes what is queued and ends.
    pub(crate) fn finish(&self) {
        self.lock().finished = true;
        self.wake_writer.notify_one();
    }

    /// The writer thread's loop: blocking writes of whatever was queued.
    /// Returns once finished and drained, or at the first write error.
    pub(crate) fn run_writer(&self) -> io::Result<()> {
        let mut buf = Vec::new();
        loop {
            {
                let mut state = self.lock();
                while state.pending.is_empty() {
                    if state.finished || state.closed {
                        return Ok(());
                    }
                    state.writer_waiting = true;
                    state = self
                        .wake_writer
                        .wait(state)
                        .unwrap_or_else(|e| e.into_inner());
                    state.writer_waiting = false;
                }
                std::mem::swap(&mut state.pending, &mut buf);
                state.writing = true;
            }
            self.room.notify_waiters();
            let result = self.sink.write_all(&buf);
            buf.clear();
            if buf.capacity() > KEEP_CAPACITY {
                buf = Vec::new();
            }
            let mut state = self.lock();
            state.writing = false;
            if let Err(error) = result {
                close(&mut state, &error);
                drop(state);
                self.room.notify_waiters();
                return Err(error);
            }
        }
    }
}

fn close(state: &mut State, error: &io::Error) {
    if !state.closed {
        tracing::debug!(%error, "output closed");
    }
    state.closed = true;
    state.pending = Vec::new();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// A sink that takes direct writes only while `open`, records
    /// everything, and can be made to fail.
    #[derive(Default)]
    struct Recorder {
        open: AtomicBool,
        fail: AtomicBool,
        written: Mutex<Vec<u8>>,
    }

    impl DirectWrite for Arc<Recorder> {
        fn try_write(&self, bytes: &[u8]) -> io::Result<usize> {
            if self.fail.load(Ordering::SeqCst) {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            if !self.open.load(Ordering::SeqCst) {
                return Ok(0);
            }
            self.written.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
            if self.fail.load(Ordering::SeqCst) {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            self.written.lock().unwrap().extend_from_slice(bytes);
            Ok(())
        }
    }

    fn text(recorder: &Recorder) -> String {
        String::from_utf8(recorder.written.lock().unwrap().clone()).unwrap()
    }

    #[tokio::test]
    async fn writes_directly_when_it_can_and_keeps_order_when_it_cannot() {
        let recorder = Arc::new(Recorder::default());
        recorder.open.store(true, Ordering::SeqCst);
        let stream = Stream::new(Box::new(Arc::clone(&recorder)));
        let out = Outbox::Stream(Arc::clone(&stream));
        out.send(b"1\n".to_vec()).await;
        assert_eq!(text(&recorder), "1\n", "written without the writer thread");
        // The sink is full: queued, and later messages queue behind it even
        // once the sink has room again.
        recorder.open.store(false, Ordering::SeqCst);
        out.send(b"2\n".to_vec()).await;
        recorder.open.store(true, Ordering::SeqCst);
        assert!(out.try_send(b"3\n".to_vec()));
        let mut buf = b"4\n".to_vec();
        out.send_buf(&mut buf).await;
        assert!(buf.is_empty());
        assert_eq!(text(&recorder), "1\n");
        stream.finish();
        let writer = {
            let stream = Arc::clone(&stream);
            std::thread::spawn(move || stream.run_writer())
        };
        writer.join().unwrap().unwrap();
        assert_eq!(text(&recorder), "1\n2\n3\n4\n");
        // Finished: nothing more is accepted.
        assert!(!out.try_send(b"5\n".to_vec()));
    }

    #[tokio::test]
    async fn a_failed_write_closes_the_output() {
        let recorder = Arc::new(Recorder::default());
        let stream = Stream::new(Box::new(Arc::clone(&recorder)));
        let out = Outbox::Stream(Arc::clone(&stream));
        assert!(!out.is_closed());
        recorder.fail.store(true, Ordering::SeqCst);
        out.send(b"lost\n".to_vec()).await;
        assert!(out.is_closed());
        assert!(!out.try_send(b"x\n".to_vec()));
        assert!(stream.run_writer().is_ok(), "nothing left to write");
    }

    #[tokio::test]
    async fn senders_wait_for_room_and_try_send_refuses_when_full() {
        let recorder = Arc::new(Recorder::default());
        let stream = Stream::new(Box::new(Arc::clone(&recorder)));
        let out = Outbox::Stream(Arc::clone(&stream));
        out.send(vec![b'x'; HIGH_WATER]).await;
        assert!(!out.try_send(b"dropped\n".to_vec()));
        let waiting = tokio::spawn({
            let out = out.clone();
            async move { out.send(b"after\n".to_vec()).await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "waits while the queue is full");
        let writer = {
            let stream = Arc::clone(&stream);
            std::thread::spawn(move || stream.run_writer())
        };
        waiting.await.unwrap();
        stream.finish();
        writer.join().unwrap().unwrap();
        let written = recorder.written.lock().unwrap();
        assert_eq!(written.len(), HIGH_WATER + b"after\n".len());
        assert!(written.ends_with(b"x\nafter\n") || written.ends_with(b"xafter\n"));
    }
}
