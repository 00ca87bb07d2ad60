//! The stdio transport: spawns the server's command, writes each message
//! as a line to its stdin, reads each line of its stdout as a message, and
//! passes each line of its stderr to `tracing` (target
//! `mcp_runtime::client::stderr`). The child is killed when the client is
//! dropped.

use std::process::Stdio as Piped;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::Mutex;

use crate::client::error::ClientError;
use crate::client::limit::{Lines, Piece};
use crate::client::transport::{BoxFuture, Inbound, Received, Transport};

/// How long `close` lets the server exit by itself after its stdin closed.
const GRACE: Duration = Duration::from_secs(2);

pub(crate) struct StdioTransport {
    stdin: Mutex<Option<ChildStdin>>,
    child: Mutex<Child>,
}

impl StdioTransport {
    /// Spawns `command` with piped stdin, stdout and stderr; what it
    /// writes to stdout goes to `inbound`, line by line, a line longer than
    /// `max_message` bytes skipped. `name` tags its stderr lines in the log.
    pub(crate) fn spawn(
        mut command: Command,
        name: String,
        inbound: Inbound,
        max_message: usize,
    ) -> std::io::Result<StdioTransport> {
        command
            .stdin(Piped::piped())
            .stdout(Piped::piped())
            .stderr(Piped::piped())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let stdin = child.stdin.take();
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(read_stdout(stdout, inbound, max_message));
        }
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(read_stderr(BufReader::new(stderr), name));
        }
        Ok(StdioTransport {
            stdin: Mutex::new(stdin),
            child: Mutex::new(child),
        })
    }
}

/// The size of one read from the server's stdout.
const READ_SIZE: usize = 64 * 1024;

/// Passes each line of `stdout` on; one over `max` bytes is skipped as it
/// streams past (never held whole) and reported, and the next line is
/// read as usual.
async fn read_stdout(mut stdout: tokio::process::ChildStdout, inbound: Inbound, max: usize) {
    let mut lines = Lines::new(max);
    let mut block = vec![0u8; READ_SIZE];
    let mut pieces = Vec::new();
    loop {
        let ended = match stdout.read(&mut block).await {
            Ok(0) | Err(_) => {
                lines.finish(&mut pieces);
                true
            }
            Ok(n) => {
                lines.feed(&block[..n], &mut pieces);
                false
            }
        };
        for piece in pieces.drain(..) {
            let received = match piece {
                Piece::Line(line) => Received::Message(line),
                Piece::TooLarge(oversize) => Received::TooLarge {
                    id: oversize.id,
                    size: Some(oversize.size),
                    limit: max,
                },
            };
            if inbound.send(received).await.is_err() {
                return;
            }
        }
        if ended {
            return;
        }
    }
}

/// The longest stderr line logged whole; the rest of a longer one is cut.
const MAX_STDERR_LINE: u64 = 64 * 1024;

async fn read_stderr(mut stderr: BufReader<tokio::process::ChildStderr>, name: String) {
    let mut line = Vec::new();
    loop {
        // At most the limit of one line is kept; the rest of it is skipped.
        match (&mut stderr)
            .take(MAX_STDERR_LINE)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let mut cut = 0u64;
        if line.last() != Some(&b'\n') {
            loop {
                let skipped = match stderr.fill_buf().await {
                    Ok([]) | Err(_) => break,
                    Ok(buffer) => match memchr::memchr(b'\n', buffer) {
                        Some(end) => end + 1,
                        None => buffer.len(),
                    },
                };
                let ended = stderr.buffer().get(skipped - 1) == Some(&b'\n');
                stderr.consume(skipped);
                cut += skipped as u64;
                if ended {
                    break;
                }
            }
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        if cut == 0 {
            tracing::info!(target: "mcp_runtime::client::stderr", server = %name, "{text}");
        } else {
            tracing::info!(target: "mcp_runtime::client::stderr", server = %name, "{text}… ({cut} more bytes cut)");
        }
        line.clear();
    }
}

impl Transport for StdioTransport {
    fn send(&self, mut message: Vec<u8>) -> BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async move {
            message.push(b'\n');
            let mut stdin = self.stdin.lock().await;
            let Some(pipe) = stdin.as_mut() else {
                return Err(ClientError::Closed);
            };
            let written = async {
                pipe.write_all(&message).await?;
                pipe.flush().await
            };
            written.await.map_err(|error| match error.kind() {
                std::io::ErrorKind::BrokenPipe => ClientError::Closed,
                _ => ClientError::Io(error),
            })
        })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            // Closing stdin asks the server to exit.
            self.stdin.lock().await.take();
            let mut child = self.child.lock().await;
            if tokio::time::timeout(GRACE, child.wait()).await.is_err() {
                let _ = child.kill().await;
            }
        })
    }
}
