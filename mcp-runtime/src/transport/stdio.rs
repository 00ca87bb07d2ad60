//! The stdio transport: one JSON message per line on stdin and stdout.
//!
//! Reading and writing run on two dedicated threads that own the locked
//! handles, rather than on Tokio's blocking pool, whose per-operation
//! hand-off would sit on the hot path of every message. The writer drains
//! everything ready before each flush, so a burst of responses costs one
//! `write` call.

use std::io::{self, BufRead, BufWriter, Write};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use crate::connection::{self, Incoming, ServerCore};

/// Lines read ahead of the dispatcher; beyond this the reader thread waits.
const READ_AHEAD: usize = 256;
/// Replies queued for the writer; beyond this, calls wait to answer.
const WRITE_QUEUE: usize = 1024;

pub(crate) async fn serve(core: Arc<ServerCore>) -> io::Result<()> {
    let (in_tx, in_rx) = mpsc::channel(READ_AHEAD);
    let (out_tx, out_rx) = mpsc::channel(WRITE_QUEUE);
    let max = core.limits.max_message_bytes;
    std::thread::Builder::new()
        .name("mcp-stdin".into())
        .spawn(move || read_lines(io::stdin().lock(), max, &in_tx))?;
    let (done_tx, done_rx) = oneshot::channel();
    std::thread::Builder::new()
        .name("mcp-stdout".into())
        .spawn(move || {
            let _ = done_tx.send(write_lines(io::stdout().lock(), out_rx));
        })?;
    let grace = core.limits.shutdown_grace;
    connection::serve(core, in_rx, out_tx).await;
    let result = match done_rx.await {
        Ok(Err(error)) if error.kind() != io::ErrorKind::BrokenPipe => Err(error),
        _ => Ok(()),
    };
    exit_despite_stuck_blocking_calls(grace);
    result
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

/// Splits input into lines (`\n`, tolerating `\r\n`). A line longer than
/// `max` is skipped as it streams past, never held whole, and reported as
/// [`Incoming::TooLarge`]. Returns at EOF, on a read error, or when the
/// connection stops listening.
pub(crate) fn read_lines<R: BufRead>(mut reader: R, max: usize, tx: &mpsc::Sender<Incoming>) {
    let mut line = Vec::new();
    let mut too_large = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => {
                tracing::error!(%error, "reading stdin failed; stopping");
                return;
            }
        };
        if buf.is_empty() {
            // A last line without its newline is still a message, and one
            // over the limit is still answered "message too large".
            if too_large {
                let _ = tx.blocking_send(Incoming::TooLarge);
            } else if !line.is_empty() {
                let _ = tx.blocking_send(Incoming::Line(finish(line)));
            }
            return;
        }
        let (chunk, end) = match memchr::memchr(b'\n', buf) {
            Some(pos) => (&buf[..pos], Some(pos + 1)),
            None => (buf, None),
        };
        if !too_large {
            if line.len() + chunk.len() > max {
                too_large = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let consumed = end.unwrap_or(buf.len());
        reader.consume(consumed);
        if end.is_some() {
            let message = if too_large {
                Incoming::TooLarge
            } else {
                Incoming::Line(finish(std::mem::take(&mut line)))
            };
            too_large = false;
            if tx.blocking_send(message).is_err() {
                return;
            }
        }
    }
}

fn finish(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    line
}

/// Writes replies as they come, flushing once nothing more is ready.
pub(crate) fn write_lines<W: Write>(output: W, mut rx: mpsc::Receiver<Vec<u8>>) -> io::Result<()> {
    let mut writer = BufWriter::with_capacity(64 * 1024, output);
    while let Some(first) = rx.blocking_recv() {
        writer.write_all(&first)?;
        while let Ok(more) = rx.try_recv() {
            writer.write_all(&more)?;
        }
        writer.flush()?;
    }
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<Incoming> {
        let (tx, mut rx) = mpsc::channel(64);
        read_lines(std::io::BufReader::with_capacity(4, input), max, &tx);
        drop(tx);
        let mut out = Vec::new();
        while let Ok(m) = rx.try_recv() {
            out.push(m);
        }
        out
    }

    #[test]
    fn splits_lines_and_skips_oversized_ones() {
        let got = lines(b"ab\r\n0123456789abc\nc\nlast", 8);
        let shown: Vec<String> = got
            .iter()
            .map(|m| match m {
                Incoming::Line(l) => String::from_utf8_lossy(l).into_owned(),
                Incoming::TooLarge => "<too large>".into(),
            })
            .collect();
        assert_eq!(shown, ["ab", "<too large>", "c", "last"]);
    }

    #[test]
    fn an_unterminated_last_line_over_the_limit_is_reported() {
        let got = lines(b"ok\n0123456789abc", 8);
        assert_eq!(got.len(), 2);
        assert!(matches!(&got[0], Incoming::Line(l) if l == b"ok"));
        assert!(matches!(got[1], Incoming::TooLarge));
    }
}
