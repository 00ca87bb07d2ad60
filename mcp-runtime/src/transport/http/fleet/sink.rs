//! The output of a session's connection in a fleet: what belongs to no
//! request (log messages and change notices from the hub, a task's
//! messages, a URL elicitation's completion) is appended to the session's
//! GET stream in the store (`0`), in order, so that whichever instance
//! holds that stream sends it, and `Last-Event-ID` finds it on any
//! instance. The outbox hands its bytes to a bounded queue; one task per
//! session appends them line by line (each line one JSON-RPC message).
//! The queue and its task are made by the first bytes: most sessions a
//! fleet's instance caches never send a message outside a request, and
//! cost it no task.
//! While the store cannot be reached, lines are dropped (and logged).

use std::io;
use std::sync::{Arc, OnceLock};

use tokio::runtime::Handle;
use tokio::sync::mpsc;

use crate::outbox::{DirectWrite, Outbox};
use crate::sessions::RedisSessions;

/// Chunks of output queued before the outbox holds back (its writer
/// thread then waits for room).
const QUEUED: usize = 256;

/// An output whose lines go to the GET stream of `session` in `store`,
/// keeping about `keep` entries. Made within a runtime (whose handle the
/// pump is started on).
pub(super) fn outbox(store: RedisSessions, session: Arc<str>, keep: usize) -> Outbox {
    Outbox::new(Box::new(ToStore {
        pump: Pump {
            store,
            session,
            keep,
            runtime: Handle::current(),
        },
        chunks: OnceLock::new(),
    }))
}

/// The outbox's sink: the queue of the pump, once there is one.
struct ToStore {
    pump: Pump,
    chunks: OnceLock<mpsc::Sender<Vec<u8>>>,
}

/// What starting the pump takes.
struct Pump {
    store: RedisSessions,
    session: Arc<str>,
    keep: usize,
    runtime: Handle,
}

impl ToStore {
    /// The queue, its pump started by the first caller.
    fn chunks(&self) -> &mpsc::Sender<Vec<u8>> {
        self.chunks.get_or_init(|| {
            let (chunks, queued) = mpsc::channel(QUEUED);
            let Pump {
                store,
                session,
                keep,
                runtime,
            } = &self.pump;
            let run = pump(store.clone(), Arc::clone(session), *keep, queued);
            runtime.spawn(run);
            chunks
        })
    }
}

impl DirectWrite for ToStore {
    fn try_write(&self, bytes: &[u8]) -> io::Result<usize> {
        match self.chunks().try_send(bytes.to_vec()) {
            Ok(()) => Ok(bytes.len()),
            Err(mpsc::error::TrySendError::Full(_)) => Ok(0),
            Err(mpsc::error::TrySendError::Closed(_)) => Err(io::ErrorKind::BrokenPipe.into()),
        }
    }

    fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
        // On the outbox's writer thread, never a runtime's.
        self.chunks()
            .blocking_send(bytes.to_vec())
            .map_err(|_| io::ErrorKind::BrokenPipe.into())
    }
}

/// Appends each line queued, in order, until the outbox is dropped.
async fn pump(
    store: RedisSessions,
    session: Arc<str>,
    keep: usize,
    mut queued: mpsc::Receiver<Vec<u8>>,
) {
    let mut pending: Vec<u8> = Vec::new();
    while let Some(chunk) = queued.recv().await {
        pending.extend_from_slice(&chunk);
        while let Some(end) = pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            let Ok(line) = std::str::from_utf8(&line[..end]) else {
                continue;
            };
            if line.trim().is_empty() {
                continue;
            }
            match store.append(&session, "0", line, keep).await {
                Ok(Some(_)) => {}
                Ok(None) => tracing::debug!(%session, "a message for a session that is gone"),
                Err(error) => {
                    tracing::warn!(%session, %error, "a message of a session's GET stream is lost");
                }
            }
        }
    }
}
