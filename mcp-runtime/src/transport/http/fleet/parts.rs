//! A stored session's record as the parts of a connection, and back: the
//! store keeps plain values ([`SessionData`]), the dispatcher takes its
//! own ([`SessionParts`]).

use serde_json::{Value, json};

use super::super::client::Client;
use crate::context::{ClientInfo, SessionChange};
use crate::dispatch::SessionParts;
use crate::protocol::version::ProtocolVersion;
use crate::sessions::data::{self, SessionData};

/// The record to store for a session `initialize` just started.
pub(super) fn record(
    parts: &SessionParts,
    owner: Option<&str>,
    client: Option<&Client>,
) -> SessionData {
    SessionData {
        version: parts.version.as_str().to_owned(),
        client: json!({
            "name": parts.client.name,
            "version": parts.client.version,
            "capabilities": parts.client.capabilities,
        }),
        owner: owner.map(str::to_owned),
        client_key: client.map(client_key),
        log_level: parts.log_level,
        subscriptions: parts.subscriptions.iter().cloned().collect(),
        roots: parts.roots_epoch,
    }
}

/// The parts of a connection serving the stored session `data`; `None`
/// when its version is not one this server speaks (stored by a newer
/// release, say).
pub(super) fn parts(data: &SessionData) -> Option<SessionParts> {
    let version = ProtocolVersion::parse_legacy(&data.version)?;
    let text = |field: &str| {
        data.client
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    Some(SessionParts {
        version,
        client: ClientInfo {
            name: text("name"),
            version: text("version"),
            capabilities: data
                .client
                .get("capabilities")
                .cloned()
                .unwrap_or(Value::Null),
        },
        log_level: data.log_level,
        subscriptions: data.subscriptions.iter().cloned().collect(),
        roots_epoch: data.roots,
    })
}

/// The key a client's sessions are counted under, fleet-wide.
fn client_key(client: &Client) -> String {
    match client {
        Client::Subject(subject) => format!("sub:{subject}"),
        Client::Address(address) => format!("ip:{address}"),
    }
}

/// A change the dispatcher reported, as the store takes it.
pub(super) fn change(change: SessionChange) -> data::SessionChange {
    match change {
        SessionChange::LogLevel(level) => data::SessionChange::LogLevel(level),
        SessionChange::Subscribe(uri) => data::SessionChange::Subscribe(uri),
        SessionChange::Unsubscribe(uri) => data::SessionChange::Unsubscribe(uri),
        SessionChange::RootsChanged => data::SessionChange::RootsChanged,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_gives_back_the_parts_it_was_made_of() {
        let original = SessionParts {
            version: ProtocolVersion::V2025_11_25,
            client: ClientInfo {
                name: "c".into(),
                version: "1".into(),
                capabilities: json!({"elicitation": {}}),
            },
            log_level: 3,
            subscriptions: ["file:///a".to_owned()].into_iter().collect(),
            roots_epoch: 2,
        };
        let address = Client::Address("10.0.0.1".parse().unwrap());
        let record = record(&original, Some("alice"), Some(&address));
        assert_eq!(record.owner.as_deref(), Some("alice"));
        assert_eq!(record.client_key.as_deref(), Some("ip:10.0.0.1"));
        let back = parts(&record).unwrap();
        assert_eq!(back.version, original.version);
        assert_eq!(back.client.name, "c");
        assert_eq!(back.client.capabilities, json!({"elicitation": {}}));
        assert_eq!(back.log_level, 3);
        assert_eq!(back.subscriptions, original.subscriptions);
        assert_eq!(back.roots_epoch, 2);
    }
}
