//! Reading what the scripts answer, and what the channels carry, by hand
//! from [`redis::Value`]s (the shapes vary with the answer, and the
//! crate's `streams` commands are not built).

use std::collections::{BTreeSet, HashMap};

use redis::Value;

use super::super::data::{Inbound, SessionData};

/// A bulk string, simple string or integer as text.
pub(super) fn text(value: &Value) -> Option<String> {
    match value {
        Value::BulkString(bytes) => String::from_utf8(bytes.clone()).ok(),
        Value::SimpleString(s) => Some(s.clone()),
        Value::Int(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Texts of an array (an empty one for nil).
pub(super) fn texts(value: &Value) -> Option<Vec<String>> {
    match value {
        Value::Array(items) | Value::Set(items) => items.iter().map(text).collect(),
        Value::Nil => Some(Vec::new()),
        _ => None,
    }
}

/// A number, from an integer or its text.
pub(super) fn number(value: &Value) -> Option<u64> {
    match value {
        Value::Int(n) => u64::try_from(*n).ok(),
        other => text(other)?.parse().ok(),
    }
}

/// `""` is none.
pub(super) fn optional(text: String) -> Option<String> {
    Some(text).filter(|t| !t.is_empty())
}

/// A session's data from its hash (`HGETALL`, flat) and its subscriptions.
pub(super) fn session(hash: &Value, subs: &Value) -> Result<SessionData, String> {
    let flat = texts(hash).ok_or("its hash is not a list of fields")?;
    let mut fields: HashMap<String, String> = HashMap::new();
    let mut pairs = flat.into_iter();
    while let (Some(name), Some(value)) = (pairs.next(), pairs.next()) {
        fields.insert(name, value);
    }
    let version = fields.remove("v").ok_or("it has no version")?;
    let client = match fields.get("ci") {
        Some(json) => serde_json::from_str(json).map_err(|e| format!("its client info: {e}"))?,
        None => serde_json::Value::Null,
    };
    let log_level = match fields.get("lvl") {
        Some(level) => level.parse().map_err(|_| "its log level is not a number")?,
        None => 0,
    };
    let roots = match fields.get("roots") {
        Some(epoch) => epoch
            .parse()
            .map_err(|_| "its roots epoch is not a number")?,
        None => 0,
    };
    let subscriptions: BTreeSet<String> = texts(subs)
        .ok_or("its subscriptions are not a set")?
        .into_iter()
        .collect();
    Ok(SessionData {
        version,
        client,
        owner: fields.remove("own"),
        client_key: fields.remove("cl"),
        log_level,
        subscriptions,
        roots,
    })
}

/// The entries of an `XRANGE` answer: (id, field `m`), in order.
pub(super) fn entries(value: &Value) -> Option<Vec<(String, String)>> {
    let Value::Array(items) = value else {
        return (value == &Value::Nil).then(Vec::new);
    };
    items
        .iter()
        .map(|item| {
            let Value::Array(pair) = item else {
                return None;
            };
            let [id, fields] = pair.as_slice() else {
                return None;
            };
            let fields = texts(fields)?;
            let line = fields
                .chunks(2)
                .find(|pair| pair[0] == "m")
                .and_then(|pair| pair.get(1).cloned())?;
            Some((text(id)?, line))
        })
        .collect()
}

/// The entry id just after `id` (`MS-SEQ` → `MS-(SEQ+1)`), for an
/// exclusive range that Redis before 6.2 cannot say; `None` if `id` is not
/// one.
pub(super) fn after(id: &str) -> Option<String> {
    let (ms, seq) = id.split_once('-')?;
    let ms: u64 = ms.parse().ok()?;
    let seq: u64 = seq.parse().ok()?;
    Some(match seq.checked_add(1) {
        Some(seq) => format!("{ms}-{seq}"),
        None => format!("{}-0", ms.checked_add(1)?),
    })
}

/// What a message heard on `channel` means, for an instance whose channel
/// is `instance` and whose broadcast channel is `events`; `None` for what
/// it does not know.
pub(super) fn inbound(
    instance: &str,
    events: &str,
    channel: &str,
    payload: &[u8],
) -> Option<Inbound> {
    let payload = std::str::from_utf8(payload).ok()?;
    if channel == events {
        return Some(Inbound::Broadcast(payload.to_owned()));
    }
    if channel != instance {
        return None;
    }
    let (kind, rest) = payload.split_once(' ')?;
    match kind {
        "E" => {
            let mut parts = rest.splitn(4, ' ');
            let (session, stream, entry, line) =
                (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
            Some(Inbound::Event {
                session: session.to_owned(),
                stream: stream.to_owned(),
                entry: entry.to_owned(),
                line: line.to_owned(),
            })
        }
        "C" => {
            let (session, rev) = rest.split_once(' ')?;
            Some(Inbound::Changed {
                session: session.to_owned(),
                rev: rev.parse().ok()?,
            })
        }
        "X" => Some(Inbound::Ended {
            session: rest.to_owned(),
        }),
        "T" => Some(Inbound::Taken {
            session: rest.to_owned(),
        }),
        "R" => Some(Inbound::Routed(rest.to_owned())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bulk(text: &str) -> Value {
        Value::BulkString(text.as_bytes().to_vec())
    }

    #[test]
    fn the_id_after_an_entry_is_the_next_sequence() {
        assert_eq!(after("1700000000000-0").as_deref(), Some("1700000000000-1"));
        assert_eq!(after("5-41").as_deref(), Some("5-42"));
        assert_eq!(after(&format!("5-{}", u64::MAX)).as_deref(), Some("6-0"));
        assert_eq!(after("garbage"), None);
        assert_eq!(after("5-x"), None);
    }

    #[test]
    fn a_session_reads_back_from_its_hash() {
        let hash = Value::Array(
            [
                "v",
                "2025-11-25",
                "ci",
                r#"{"name":"c"}"#,
                "lvl",
                "3",
                "rev",
                "7",
                "roots",
                "2",
                "own",
                "alice",
            ]
            .into_iter()
            .map(bulk)
            .collect(),
        );
        let subs = Value::Array(vec![bulk("file:///a"), bulk("file:///b")]);
        let data = session(&hash, &subs).unwrap();
        assert_eq!(data.version, "2025-11-25");
        assert_eq!(data.client, serde_json::json!({"name": "c"}));
        assert_eq!(data.owner.as_deref(), Some("alice"));
        assert_eq!(data.client_key, None);
        assert_eq!(data.log_level, 3);
        assert_eq!(data.roots, 2);
        assert_eq!(data.subscriptions.len(), 2);
        assert!(session(&Value::Array(vec![]), &subs).is_err());
    }

    #[test]
    fn stream_entries_decode_in_order() {
        let reply = Value::Array(vec![
            Value::Array(vec![
                bulk("1-0"),
                Value::Array(vec![bulk("m"), bulk("one")]),
            ]),
            Value::Array(vec![
                bulk("1-1"),
                Value::Array(vec![bulk("m"), bulk("two two")]),
            ]),
        ]);
        assert_eq!(
            entries(&reply).unwrap(),
            vec![
                ("1-0".into(), "one".into()),
                ("1-1".into(), "two two".into())
            ]
        );
        assert_eq!(entries(&Value::Array(vec![])).unwrap(), vec![]);
        assert!(entries(&bulk("x")).is_none());
    }

    #[test]
    fn channel_messages_decode() {
        let me = "mcp:instance:ab12cd34";
        let all = "mcp:sessions:events";
        assert_eq!(
            inbound(me, all, me, b"E s1 0 5-1 {\"a\": 1}"),
            Some(Inbound::Event {
                session: "s1".into(),
                stream: "0".into(),
                entry: "5-1".into(),
                line: "{\"a\": 1}".into(),
            })
        );
        assert_eq!(
            inbound(me, all, me, b"C s1 4"),
            Some(Inbound::Changed {
                session: "s1".into(),
                rev: 4
            })
        );
        assert_eq!(
            inbound(me, all, me, b"X s1"),
            Some(Inbound::Ended {
                session: "s1".into()
            })
        );
        assert_eq!(
            inbound(me, all, me, b"T s1"),
            Some(Inbound::Taken {
                session: "s1".into()
            })
        );
        assert_eq!(
            inbound(me, all, me, b"R any thing"),
            Some(Inbound::Routed("any thing".into()))
        );
        assert_eq!(
            inbound(me, all, all, b"R x"),
            Some(Inbound::Broadcast("R x".into()))
        );
        assert_eq!(inbound(me, all, "other", b"X s1"), None);
        assert_eq!(inbound(me, all, me, b"Q s1"), None);
    }
}
