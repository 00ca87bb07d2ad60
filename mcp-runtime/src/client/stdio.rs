//! The stdio transport: spawns the server's command, writes each message
//! as a line to its stdin, reads each line of its stdout as a message, and
//! passes each line of its stderr to `tracing` (target
//! `mcp_runtime::client::stderr`). The child is killed when the client is
//! dropped.

use std::process::Stdio as Piped;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::Mutex;

use crate::client::error::ClientError;
use crate::client::transport::{BoxFuture, Inbound, Received, Transport};

/// How long `close` lets the server exit by itself after its stdin closed.
const GRACE: Duration = Duration::from_secs(2);

pub(crate) struct StdioTransport {
    stdin: Mutex<Option<ChildStdin>>,
    child: Mutex<Child>,
}

impl StdioTransport {
    /// Spawns `command` with piped stdin, stdout and stderr; what it
    /// writes to stdout goes to `inbound`, line by line. `name` tags its
    /// stderr lines in the log.
    pub(crate) fn spawn(
        mut command: Command,
        name: String,
        inbound: Inbound,
    ) -> std::io::Result<StdioTransport> {
        command
            .stdin(Piped::piped())
            .stdout(Piped::piped())
            .stderr(Piped::piped())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let stdin = child.stdin.take();
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(read_stdout(BufReader::new(stdout), inbound));
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

async fn read_stdout(mut stdout: BufReader<tokio::process::ChildStdout>, inbound: Inbound) {
    loop {
        let mut line = Vec::new();
        match stdout.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                while matches!(line.last(), Some(b'\n' | b'\r')) {
                    line.pop();
                }
                if !line.is_empty() && inbound.send(Received::Message(line)).await.is_err() {
                    return;
                }
            }
        }
    }
}

async fn read_stderr(mut stderr: BufReader<tokio::process::ChildStderr>, name: String) {
    let mut line = Vec::new();
    while let Ok(1..) = stderr.read_until(b'\n', &mut line).await {
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        tracing::info!(target: "mcp_runtime::client::stderr", server = %name, "{text}");
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
