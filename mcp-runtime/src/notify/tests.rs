//! The hub as its users see it: what each registered output receives.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::Notifier;
use crate::context::{ClientInfo, LogLevel, SessionShared};
use crate::outbox::{DirectWrite, Outbox};
use crate::protocol::version::ProtocolVersion;

struct ChannelSink(mpsc::UnboundedSender<Vec<u8>>);

impl DirectWrite for ChannelSink {
    fn try_write(&self, bytes: &[u8]) -> std::io::Result<usize> {
        self.write_all(bytes).map(|()| bytes.len())
    }

    fn write_all(&self, bytes: &[u8]) -> std::io::Result<()> {
        self.0
            .send(bytes.to_vec())
            .map_err(|_| std::io::ErrorKind::BrokenPipe.into())
    }
}

/// An output and what was written to it, one message a line.
pub(super) struct Seen {
    pub(super) out: Outbox,
    written: mpsc::UnboundedReceiver<Vec<u8>>,
}

impl Seen {
    pub(super) fn new() -> Seen {
        let (sender, written) = mpsc::unbounded_channel();
        Seen {
            out: Outbox::new(Box::new(ChannelSink(sender))),
            written,
        }
    }

    /// Every message written so far, taken.
    pub(super) fn take(&mut self) -> Vec<Value> {
        let mut bytes = Vec::new();
        while let Ok(chunk) = self.written.try_recv() {
            bytes.extend(chunk);
        }
        bytes
            .split(|b| *b == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| serde_json::from_slice(line).expect("a JSON line"))
            .collect()
    }

    /// The methods of every message written so far, taken.
    pub(super) fn methods(&mut self) -> Vec<String> {
        self.take()
            .iter()
            .map(|m| m["method"].as_str().unwrap_or_default().to_owned())
            .collect()
    }
}

/// A legacy session as `initialize` would start it.
pub(super) fn session() -> Arc<SessionShared> {
    let client = ClientInfo {
        name: "test".into(),
        version: "1".into(),
        capabilities: json!({}),
    };
    Arc::new(SessionShared::new(
        Arc::default(),
        ProtocolVersion::V2025_06_18,
        client,
    ))
}

#[test]
fn a_session_registered_again_is_told_once_on_its_new_output() {
    let notifier = Notifier::default();
    let session = session();
    let (mut first, mut second) = (Seen::new(), Seen::new());
    notifier.hub.register(&session, first.out.downgrade());
    notifier.hub.register(&session, second.out.downgrade());
    assert_eq!(notifier.tools_changed(), 1);
    assert!(first.take().is_empty(), "the old output was told");
    assert_eq!(second.methods(), ["notifications/tools/list_changed"]);
}

#[test]
fn an_unregistered_session_is_not_told_and_others_still_are() {
    let notifier = Notifier::default();
    let (gone, kept) = (session(), session());
    let (mut gone_out, mut kept_out) = (Seen::new(), Seen::new());
    notifier.hub.register(&gone, gone_out.out.downgrade());
    notifier.hub.register(&kept, kept_out.out.downgrade());
    assert!(notifier.hub.unregister(&gone));
    assert!(!notifier.hub.unregister(&gone), "unregistered twice");
    assert_eq!(notifier.log(LogLevel::Error, None, json!("hello")), 1);
    assert!(gone_out.take().is_empty());
    assert_eq!(kept_out.methods(), ["notifications/message"]);
}
