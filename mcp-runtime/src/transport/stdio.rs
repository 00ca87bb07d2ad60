//! The stdio transport: one JSON message per line on stdin and stdout.
//!
//! One dedicated thread reads stdin in large blocks and dispatches every
//! line of a block itself, with the runtime's handle entered: a call that
//! completes when first polled is answered right there, and only one that
//! has to wait becomes a Tokio task. A request so costs no hand-over
//! between threads at all, and a burst of requests is read, dispatched and
//! answered a block at a time. Output goes through an [`Outbox`]: written
//! directly when the pipe has room, queued for a writer thread when it does
//! not. Neither side uses Tokio's blocking pool, whose per-operation hand-off
//! would sit on the hot path of every message.
//!
//! On Unix the protocol's output is moved off descriptor 1 before serving,
//! and stderr is put in its place: a stray `println!` in a tool then lands
//! in the log instead of corrupting the protocol stream.

use std::borrow::Cow;
use std::future::Future;
use std::io::{self, Read};
use std::pin::pin;
use std::sync::Arc;
use std::task::{Poll, Wake, Waker};

use tokio::sync::oneshot;

use crate::dispatch::{Connection, Incoming, ServerCore};
use crate::outbox::Outbox;

/// The size of one read from stdin.
const READ_SIZE: usize = 64 * 1024;

pub(crate) async fn serve(core: Arc<ServerCore>) -> io::Result<()> {
    let max = core.limits.max_message_bytes;
    let grace = core.limits.shutdown_grace;
    let out = Outbox::new(sink::take_stdout()?);
    let (written_tx, written_rx) = oneshot::channel();
    let writer = out.clone();
    std::thread::Builder::new()
        .name("mcp-stdout".into())
        .spawn(move || {
            let _ = written_tx.send(writer.run_writer());
        })?;
    let mut connection = Connection::new(core, out.clone());
    let runtime = tokio::runtime::Handle::current();
    let (ended_tx, ended_rx) = oneshot::channel();
    std::thread::Builder::new()
        .name("mcp-stdin".into())
        .spawn(move || {
            let _entered = runtime.enter();
            let mut open = true;
            read_blocks(io::stdin().lock(), READ_SIZE, max, |incoming| {
                open = block_on(connection.handle(incoming));
                open
            });
            // At EOF the calls in flight still get their grace period, on
            // the runtime; with the output closed there is nothing to wait for.
            let _ = ended_tx.send(open.then_some(connection));
        })?;
    match ended_rx.await {
        Ok(Some(connection)) => connection.finish().await,
        Ok(None) => {}
        Err(_) => tracing::error!("the stdin thread stopped unexpectedly"),
    }
    out.finish();
    let result = match written_rx.await {
        Ok(Err(error)) if error.kind() != io::ErrorKind::BrokenPipe => Err(error),
        _ => Ok(()),
    };
    exit_despite_stuck_blocking_calls(grace);
    result
}

/// Runs `future` to completion on this thread, parking it while the future
/// waits. Dispatching a block of input waits only when the output is full or
/// the backlog of calls waiting for a slot is.
fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }
    thread_local! {
        static WAKER: Waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    }
    WAKER.with(|waker| {
        let mut cx = std::task::Context::from_waker(waker);
        let mut future = pin!(future);
        loop {
            if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                return output;
            }
            std::thread::park();
        }
    })
}

/// Synchronous calls abandoned after the grace period cannot be stopped, and
/// the Tokio runtime waits for them when `main` returns and drops it, so a
/// stuck one would keep the process alive after its client has gone. Give
/// the program one more grace period to finish, then exit.
fn exit_despite_stuck_blocking_calls(grace: std::time::Duration) {
    let stuck = crate::__private::blocking_calls_running();
    if stuck == 0 {
        return;
    }
    tracing::warn!(
        calls = stuck,
        "synchronous tool calls are still running after the client went away; \
         the process exits in {grace:?} without waiting for them"
    );
    let _ = std::thread::Builder::new()
        .name("mcp-exit".into())
        .spawn(move || {
            std::thread::sleep(grace);
            std::process::exit(0);
        });
}

/// Reads `reader` in blocks of up to `read_size` bytes and delivers the
/// complete lines of each as one [`Incoming::Lines`]; the connection splits
/// them. A line growing past `max` bytes without its newline is skipped as
/// it streams past, never held whole, and reported as
/// [`Incoming::TooLarge`]. (A complete line over `max` can arrive within
/// one block; the connection refuses it by its length.) Returns at EOF, on
/// a read error, or when `deliver` returns `false`.
pub(crate) fn read_blocks<R: Read>(
    mut reader: R,
    read_size: usize,
    max: usize,
    mut deliver: impl FnMut(Incoming<'_>) -> bool,
) {
    let mut block = vec![0u8; read_size.max(1)];
    // The start of the line that has not ended yet.
    let mut partial: Vec<u8> = Vec::new();
    let mut skipping = false;
    loop {
        let n = match reader.read(&mut block) {
            Ok(n) => n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => {
                tracing::error!(%error, "reading stdin failed; stopping");
                return;
            }
        };
        if n == 0 {
            // A last line without its newline is still a message, and one
            // over the limit is still answered "message too large".
            if skipping {
                deliver(Incoming::TooLarge);
            } else if !partial.is_empty() {
                deliver(Incoming::Lines(Cow::Owned(partial)));
            }
            return;
        }
        let mut data = &block[..n];
        if skipping {
            let Some(end) = memchr::memchr(b'\n', data) else {
                continue;
            };
            skipping = false;
            if !deliver(Incoming::TooLarge) {
                return;
            }
            data = &data[end + 1..];
        }
        let rest = match memchr::memrchr(b'\n', data) {
            Some(last) => {
                // Straight from the read buffer, unless a line began in an
                // earlier read.
                let delivered = if partial.is_empty() {
                    deliver(Incoming::Lines(Cow::Borrowed(&data[..=last])))
                } else {
                    partial.extend_from_slice(&data[..=last]);
                    let delivered = deliver(Incoming::Lines(Cow::Borrowed(&partial)));
                    partial.clear();
                    if partial.capacity() > read_size.max(1) * 4 {
                        partial = Vec::new();
                    }
                    delivered
                };
                if !delivered {
                    return;
                }
                &data[last + 1..]
            }
            None => data,
        };
        if partial.len() + rest.len() > max {
            partial = Vec::new();
            skipping = true;
        } else {
            partial.extend_from_slice(rest);
        }
    }
}

#[cfg(unix)]
mod sink {
    //! The protocol's output as a file descriptor, written without
    //! blocking when the kind of file allows knowing that it will not.

    use std::fs::File;
    use std::io::{self, Write};
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::sync::atomic::{AtomicBool, Ordering};

    use crate::outbox::DirectWrite;

    /// Room kept free in a pipe beyond the bytes written: pipes store
    /// data in pages, and a partly read or partly filled page holds less.
    const PIPE_SLACK: usize = 8 * 1024;

    enum Kind {
        /// A pipe of this capacity: room is capacity minus unread bytes
        /// (asked with FIONREAD), unless the kernel takes `RWF_NOWAIT`
        /// writes to pipes (Linux 5.x and later), which need no asking.
        Pipe { capacity: usize, nowait: AtomicBool },
        /// A socket: `send` can be told not to wait.
        Socket,
        /// A regular file: writes do not wait on anyone.
        File,
        /// A terminal or anything else: left to the writer thread.
        Other,
    }

    pub(super) struct FdSink {
        file: File,
        kind: Kind,
    }

    /// Takes the protocol's output off descriptor 1, onto a descriptor of
    /// its own, and points descriptor 1 at stderr.
    pub(super) fn take_stdout() -> io::Result<Box<dyn DirectWrite>> {
        // Anything already printed through `std::io::stdout` goes first.
        let _ = io::stdout().flush();
        // SAFETY: fcntl on a descriptor number; the result is checked.
        let fd = unsafe { libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just created by F_DUPFD_CLOEXEC and is owned here.
        let file = unsafe { File::from_raw_fd(fd) };
        // SAFETY: dup2 on descriptor numbers; failure leaves fd 1 as it was.
        if unsafe { libc::dup2(2, 1) } < 0 {
            tracing::debug!(
                error = %io::Error::last_os_error(),
                "could not point descriptor 1 at stderr"
            );
        }
        let kind = kind_of(&file);
        Ok(Box::new(FdSink { file, kind }))
    }

    fn kind_of(file: &File) -> Kind {
        let Ok(metadata) = file.metadata() else {
            return Kind::Other;
        };
        use std::os::unix::fs::FileTypeExt;
        let file_type = metadata.file_type();
        if file_type.is_fifo() {
            pipe_capacity(file).map_or(Kind::Other, |capacity| Kind::Pipe {
                capacity,
                nowait: AtomicBool::new(cfg!(any(target_os = "linux", target_os = "android"))),
            })
        } else if file_type.is_socket() {
            Kind::Socket
        } else if file_type.is_file() {
            Kind::File
        } else {
            Kind::Other
        }
    }

    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn pipe_capacity(file: &File) -> Option<usize> {
        // SAFETY: fcntl on an open descriptor; the result is checked.
        let capacity = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETPIPE_SZ) };
        usize::try_from(capacity).ok().filter(|&c| c > 0)
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    fn pipe_capacity(_: &File) -> Option<usize> {
        None
    }

    /// One write that takes what fits and never waits (`RWF_NOWAIT`).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn write_nowait(file: &File, bytes: &[u8]) -> io::Result<usize> {
        let iov = libc::iovec {
            iov_base: bytes.as_ptr().cast_mut().cast(),
            iov_len: bytes.len(),
        };
        // SAFETY: one iovec over `bytes`, which outlives the call; the
        // kernel only reads from it. Offset -1: the file's own position.
        let written = unsafe { libc::pwritev2(file.as_raw_fd(), &iov, 1, -1, libc::RWF_NOWAIT) };
        if written < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(written.unsigned_abs())
        }
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    fn write_nowait(_: &File, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::from_raw_os_error(libc::ENOSYS))
    }

    #[cfg(target_os = "linux")]
    const SEND_FLAGS: libc::c_int = libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL;
    #[cfg(not(target_os = "linux"))]
    const SEND_FLAGS: libc::c_int = libc::MSG_DONTWAIT;

    impl DirectWrite for FdSink {
        fn try_write(&self, bytes: &[u8]) -> io::Result<usize> {
            loop {
                let result = match &self.kind {
                    Kind::Pipe { nowait, .. } if nowait.load(Ordering::Relaxed) => {
                        match write_nowait(&self.file, bytes) {
                            Err(e)
                                if matches!(
                                    e.raw_os_error(),
                                    Some(libc::EOPNOTSUPP | libc::EINVAL | libc::ENOSYS)
                                ) =>
                            {
                                // An older kernel: ask for the room instead.
                                nowait.store(false, Ordering::Relaxed);
                                continue;
                            }
                            other => other,
                        }
                    }
                    &Kind::Pipe { capacity, .. } => {
                        let mut unread: libc::c_int = 0;
                        // SAFETY: FIONREAD writes one int through the pointer.
                        let ok = unsafe {
                            libc::ioctl(self.file.as_raw_fd(), libc::FIONREAD, &mut unread)
                        } == 0;
                        let unread = usize::try_from(unread).unwrap_or(usize::MAX);
                        let room = capacity.saturating_sub(unread.saturating_add(PIPE_SLACK));
                        if !ok || room == 0 {
                            return Ok(0);
                        }
                        // What fits now; the writer thread takes the rest.
                        (&self.file).write(&bytes[..bytes.len().min(room)])
                    }
                    Kind::Socket => {
                        // SAFETY: `bytes` is valid for `len` bytes.
                        let sent = unsafe {
                            libc::send(
                                self.file.as_raw_fd(),
                                bytes.as_ptr().cast(),
                                bytes.len(),
                                SEND_FLAGS,
                            )
                        };
                        if sent < 0 {
                            Err(io::Error::last_os_error())
                        } else {
                            Ok(sent.unsigned_abs())
                        }
                    }
                    Kind::File => (&self.file).write_all(bytes).map(|()| bytes.len()),
                    Kind::Other => return Ok(0),
                };
                return match result {
                    Ok(n) => Ok(n),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(0),
                    Err(e) => Err(e),
                };
            }
        }

        fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
            (&self.file).write_all(bytes)
        }
    }
}

#[cfg(not(unix))]
mod sink {
    //! Elsewhere, stdout as it is, written by the writer thread only.

    use std::io::{self, Write};

    use crate::outbox::DirectWrite;

    struct Stdout;

    pub(super) fn take_stdout() -> io::Result<Box<dyn DirectWrite>> {
        Ok(Box::new(Stdout))
    }

    impl DirectWrite for Stdout {
        fn try_write(&self, _: &[u8]) -> io::Result<usize> {
            Ok(0)
        }

        fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
            let mut out = io::stdout().lock();
            out.write_all(bytes)?;
            out.flush()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `input` in blocks of `read_size` and splits what arrives the
    /// way the connection does.
    fn lines(input: &[u8], read_size: usize, max: usize) -> Vec<String> {
        let mut out = Vec::new();
        read_blocks(input, read_size, max, |m| {
            crate::dispatch::for_each_line(&m, max, |line| {
                out.push(match line {
                    Some(l) => String::from_utf8_lossy(l).into_owned(),
                    None => "<too large>".into(),
                })
            });
            true
        });
        out
    }

    #[test]
    fn splits_lines_and_skips_oversized_ones() {
        for read_size in [1, 2, 3, 4, 7, 64] {
            let got = lines(b"ab\r\n0123456789abc\nc\n\nlast", read_size, 8);
            assert_eq!(
                got,
                ["ab", "<too large>", "c", "", "last"],
                "read size {read_size}"
            );
        }
    }

    #[test]
    fn an_unterminated_last_line_over_the_limit_is_reported() {
        for read_size in [1, 4, 64] {
            let got = lines(b"ok\n0123456789abc", read_size, 8);
            assert_eq!(got, ["ok", "<too large>"], "read size {read_size}");
        }
    }

    #[test]
    fn a_long_line_is_not_held_whole() {
        // Read 4 bytes at a time, the skipped line never grows `partial`
        // past the limit, and the line after it arrives intact.
        let mut input = b"x".repeat(10_000);
        input.extend_from_slice(b"\n{}\n");
        assert_eq!(lines(&input, 4, 16), ["<too large>", "{}"]);
    }
}
