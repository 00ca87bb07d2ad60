//! What the client makes of a message the strict parser refused, so that
//! nothing waits for an answer that was dropped: valid JSON nested deeper
//! than a message may be ([`MAX_DEPTH`] levels of arrays and objects) still
//! has its envelope read, without recursion (serde_json skips raw values
//! with a heap stack and no depth limit), so an answer reaches its waiter,
//! which reads it as far as it can; a line that is not JSON at all fails
//! the request it answers at once, when its id can be found.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::client::limit;
use crate::jsonrpc::MAX_DEPTH;

/// A message the strict parser refused.
pub(crate) enum Malformed<'a> {
    /// Valid JSON, nested too deep: an answer to our request `id`.
    DeepAnswer {
        id: u64,
        result: Option<&'a RawValue>,
        error: Option<&'a RawValue>,
    },
    /// Valid JSON, nested too deep, and not an answer to a request of
    /// ours: what it is, in words.
    Deep(String),
    /// Not JSON: why, and the id of our request it seems to answer.
    NotJson { id: Option<u64>, reason: String },
}

/// The members of a message, each skipped over, not parsed.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// Reads what can be read of `line`, which the strict parser refused.
pub(crate) fn read(line: &[u8]) -> Malformed<'_> {
    let not_json = |reason: String| Malformed::NotJson {
        id: limit::id_of(line),
        reason,
    };
    let text = match std::str::from_utf8(line) {
        Ok(text) => text,
        Err(error) => return not_json(format!("it is not UTF-8 ({error})")),
    };
    let envelope = match serde_json::from_str::<Envelope<'_>>(text) {
        Ok(envelope) => envelope,
        Err(error) => return not_json(error.to_string()),
    };
    if !crate::jsonrpc::nesting_exceeds(line, MAX_DEPTH) {
        // JSON of the shape of a message, yet refused: not one.
        return not_json("it is not a valid JSON-RPC message".to_owned());
    }
    let id = envelope
        .id
        .and_then(|id| serde_json::from_str::<u64>(id.get()).ok());
    match (id, &envelope.method, envelope.result.or(envelope.error)) {
        (Some(id), None, Some(_)) => Malformed::DeepAnswer {
            id,
            result: envelope.result,
            error: envelope.error,
        },
        (_, Some(method), _) => Malformed::Deep(format!("a `{method}` message {TOO_DEEP}")),
        _ => Malformed::Deep(format!("a message {TOO_DEEP}")),
    }
}

/// What is wrong with a message deeper than [`MAX_DEPTH`].
const TOO_DEEP: &str = "nested too deep (more than 128 levels of arrays and objects)";

/// Why the result `raw` of an answer cannot be read as JSON (`error`):
/// "nested too deep" when it is, else serde_json's words.
pub(crate) fn why_unreadable(raw: &RawValue, error: &serde_json::Error) -> String {
    // The result sits one level into the message.
    if crate::jsonrpc::nesting_exceeds(raw.get().as_bytes(), MAX_DEPTH - 1) {
        format!("the answer is {TOO_DEEP}")
    } else {
        error.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deep(levels: usize) -> String {
        format!("{}1{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn a_deep_answer_keeps_its_id_and_result() {
        let line = format!(
            r#"{{"result":{{"a":{}}},"jsonrpc":"2.0","id":4}}"#,
            deep(200)
        );
        match read(line.as_bytes()) {
            Malformed::DeepAnswer { id, result, error } => {
                assert_eq!(id, 4);
                assert!(result.unwrap().get().starts_with(r#"{"a":[[["#));
                assert!(error.is_none());
            }
            _ => panic!("not read as a deep answer"),
        }
        // Deep far past any stack: skipped without recursion.
        let line = format!(r#"{{"jsonrpc":"2.0","id":5,"result":{}}}"#, deep(1_000_000));
        assert!(matches!(
            read(line.as_bytes()),
            Malformed::DeepAnswer { id: 5, .. }
        ));
    }

    #[test]
    fn a_deep_notification_is_named_and_a_broken_answer_keeps_its_id() {
        let line = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{}}}"#,
            deep(300)
        );
        match read(line.as_bytes()) {
            Malformed::Deep(what) => assert_eq!(
                what,
                format!("a `notifications/message` message {TOO_DEEP}")
            ),
            _ => panic!("not read as deep"),
        }
        let line = br#"{"jsonrpc":"2.0","id":6,"result":{"tools":[{"name":"a",}]}}"#;
        match read(line) {
            Malformed::NotJson { id, reason } => {
                assert_eq!(id, Some(6));
                assert!(reason.contains("line 1 column"), "{reason}");
            }
            _ => panic!("read as JSON"),
        }
    }
}
