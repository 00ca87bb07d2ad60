//! Classifying one incoming message, borrowing from the line: requests,
//! notifications, responses, batches and what is invalid, with the
//! `params` of `tools/call` read in the same pass (`call_params`).

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::jsonrpc::call_params;
use crate::jsonrpc::error::ErrorObject;
use crate::jsonrpc::id::RequestId;
use crate::jsonrpc::text::string_of;

/// One incoming message, classified.
#[derive(Debug)]
pub(crate) enum Message<'a> {
    Request {
        id: RequestId,
        method: Cow<'a, str>,
        params: Option<&'a RawValue>,
        /// The params of a `tools/call`, when read with the envelope (then
        /// `params` is `None`).
        call: Option<call_params::Checked<'a>>,
    },
    Notification {
        method: Cow<'a, str>,
        params: Option<&'a RawValue>,
    },
    /// A response to a request of ours: the server ignores it, the client
    /// routes it by `id` (`None` when the id is `null` or not one MCP
    /// allows). At least one of `result` and `error` is present.
    Response {
        id: Option<RequestId>,
        result: Option<&'a RawValue>,
        error: Option<&'a RawValue>,
    },
    /// Well-formed JSON that is not a valid message: answered -32600.
    Invalid {
        id: Option<RequestId>,
        reason: &'static str,
    },
}

/// Why a response carries no result.
pub(crate) enum Failed {
    /// Its `error` object.
    Error(ErrorObject),
    /// Its `result` or `error` does not parse: why.
    Malformed(String),
}

/// What a response (`Message::Response`) says: its result, or its error
/// object.
pub(crate) fn outcome(
    result: Option<&RawValue>,
    error: Option<&RawValue>,
) -> Result<Value, Failed> {
    match (error, result) {
        (Some(error), _) => Err(match serde_json::from_str::<ErrorObject>(error.get()) {
            Ok(error) => Failed::Error(error),
            Err(e) => Failed::Malformed(format!("its error object is malformed: {e}")),
        }),
        (None, Some(result)) => {
            serde_json::from_str(result.get()).map_err(|e| Failed::Malformed(e.to_string()))
        }
        // Never classified a response: it has one or the other.
        (None, None) => Ok(Value::Null),
    }
}

/// What one line holds.
#[derive(Debug)]
pub(crate) enum Line<'a> {
    /// Only whitespace: ignored.
    Blank,
    /// Not JSON (or too deeply nested): answered -32700.
    ParseError,
    Single(Message<'a>),
    /// A JSON array: a batch, served only to 2025-03-26 sessions.
    Batch(Vec<&'a RawValue>),
}

/// The members of a message, as raw JSON. Reads `params` of a `tools/call`
/// straight away when `method` comes first; refuses repeated members.
#[derive(Default)]
struct Envelope<'a> {
    jsonrpc: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
    method: Option<&'a RawValue>,
    params: Option<&'a RawValue>,
    call: Option<call_params::Checked<'a>>,
    result: Option<&'a RawValue>,
    error: Option<&'a RawValue>,
}

impl<'a> Envelope<'a> {
    /// `eager`: read the params of a `tools/call` now. Without, `params`
    /// is only delimited, which needs no nesting budget.
    fn parse(text: &'a str, eager: bool) -> serde_json::Result<Envelope<'a>> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let envelope = deserializer.deserialize_map(EnvelopeVisitor { eager })?;
        deserializer.end()?;
        Ok(envelope)
    }
}

struct EnvelopeVisitor {
    eager: bool,
}

impl<'de> serde::de::Visitor<'de> for EnvelopeVisitor {
    type Value = Envelope<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> Result<Envelope<'de>, A::Error> {
        use serde::de::Error;
        let mut envelope = Envelope::default();
        while let Some(key) = map.next_key::<Member>()? {
            let (slot, name) = match key {
                Member::Jsonrpc => (&mut envelope.jsonrpc, "jsonrpc"),
                Member::Id => (&mut envelope.id, "id"),
                Member::Method => (&mut envelope.method, "method"),
                Member::Params => {
                    if envelope.params.is_some() || envelope.call.is_some() {
                        return Err(A::Error::duplicate_field("params"));
                    }
                    if self.eager && envelope.method.map(RawValue::get) == Some("\"tools/call\"") {
                        envelope.call = Some(map.next_value_seed(call_params::Seed)?);
                    } else {
                        envelope.params = Some(map.next_value()?);
                    }
                    continue;
                }
                Member::Result => (&mut envelope.result, "result"),
                Member::Error => (&mut envelope.error, "error"),
                Member::Other => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    continue;
                }
            };
            if slot.is_some() {
                return Err(A::Error::duplicate_field(name));
            }
            *slot = Some(map.next_value()?);
        }
        Ok(envelope)
    }
}

/// A member's name, recognized without being copied.
enum Member {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl<'de> Deserialize<'de> for Member {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MemberVisitor;
        impl serde::de::Visitor<'_> for MemberVisitor {
            type Value = Member;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E>(self, name: &str) -> Result<Member, E> {
                Ok(match name {
                    "jsonrpc" => Member::Jsonrpc,
                    "id" => Member::Id,
                    "method" => Member::Method,
                    "params" => Member::Params,
                    "result" => Member::Result,
                    "error" => Member::Error,
                    _ => Member::Other,
                })
            }
        }
        deserializer.deserialize_identifier(MemberVisitor)
    }
}

/// The deepest nesting of arrays and objects accepted in a message.
pub(crate) const MAX_DEPTH: usize = 128;

pub(crate) fn parse_line(line: &[u8]) -> Line<'_> {
    // Checked for the whole line up front: serde_json does not check the
    // bytes of strings it skips (`"\xff"` alone would pass as a string).
    let Ok(text) = std::str::from_utf8(line) else {
        return Line::ParseError;
    };
    // JSON's whitespace only: a form feed is not blank, it is not JSON.
    let Some(first) = text
        .bytes()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    else {
        return Line::Blank;
    };
    if nesting_exceeds(line, MAX_DEPTH) {
        return Line::ParseError;
    }
    match first {
        b'[' => match serde_json::from_str::<Vec<&RawValue>>(text) {
            Ok(items) => Line::Batch(items),
            Err(_) => Line::ParseError,
        },
        // One pass: the envelope is parsed straight from the line.
        b'{' => match classify_object(text) {
            Some(message) => Line::Single(message),
            None => Line::ParseError,
        },
        _ => match serde_json::from_str::<serde::de::IgnoredAny>(text) {
            Ok(_) => Line::Single(Message::Invalid {
                id: None,
                reason: "a message must be a JSON object",
            }),
            Err(_) => Line::ParseError,
        },
    }
}

/// Whether brackets outside strings nest deeper than `limit`. serde_json
/// skips raw values without a depth limit, so this is checked up front.
pub(crate) fn nesting_exceeds(line: &[u8], limit: usize) -> bool {
    // Fewer opening brackets than the limit cannot nest deeper: a count
    // memchr does with SIMD settles almost every line without the scan
    // below.
    let openings = memchr::memchr2_iter(b'[', b'{', line).count();
    if openings <= limit {
        return false;
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in line {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Classifies one message already known to be valid JSON.
pub(crate) fn classify(raw: &RawValue) -> Message<'_> {
    classify_text(raw.get())
}

/// Classifies one message known to be valid JSON, or, for a line starting
/// with `{`, one that may not be: `None` then means it is not valid JSON.
fn classify_object(text: &str) -> Option<Message<'_>> {
    // Read eagerly, arguments nested near the depth limit can exceed
    // serde_json's own limit, counted from the envelope: read them lazily
    // then, from `params`.
    match Envelope::parse(text, true).or_else(|_| Envelope::parse(text, false)) {
        Ok(envelope) => Some(classify_envelope(envelope)),
        // Not an envelope: either not JSON at all, or JSON of another shape.
        Err(_) => serde_json::from_str::<serde::de::IgnoredAny>(text)
            .is_ok()
            .then_some(Message::Invalid {
                id: None,
                reason: "a message must be a JSON object with each member once",
            }),
    }
}

fn classify_text(text: &str) -> Message<'_> {
    if !text.starts_with('{') {
        return Message::Invalid {
            id: None,
            reason: "a message must be a JSON object",
        };
    }
    classify_object(text).unwrap_or(Message::Invalid {
        id: None,
        reason: "a message must be a JSON object with each member once",
    })
}

fn classify_envelope(envelope: Envelope<'_>) -> Message<'_> {
    let id = envelope.id.and_then(RequestId::parse);
    if envelope.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
        return Message::Invalid {
            id,
            reason: "`jsonrpc` must be \"2.0\"",
        };
    }
    let Some(method) = envelope.method else {
        if envelope.id.is_some() && (envelope.result.is_some() || envelope.error.is_some()) {
            return Message::Response {
                id,
                result: envelope.result,
                error: envelope.error,
            };
        }
        return Message::Invalid {
            id,
            reason: "a request needs a `method`",
        };
    };
    let Some(method) = string_of(method) else {
        return Message::Invalid {
            id,
            reason: "`method` must be a string",
        };
    };
    match (envelope.id, id) {
        (None, _) => Message::Notification {
            method,
            params: envelope.params,
        },
        (Some(_), Some(id)) => Message::Request {
            id,
            method,
            params: envelope.params,
            call: envelope.call,
        },
        (Some(_), None) => Message::Invalid {
            id: None,
            reason: "`id` must be a string or an integer",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::{
        ErrorObject, PARSE_ERROR, canonical_id, write_error, write_notification, write_result,
    };

    fn single(line: &str) -> Message<'_> {
        match parse_line(line.as_bytes()) {
            Line::Single(m) => m,
            other => panic!("not a single message: {other:?}"),
        }
    }

    #[test]
    fn requests_notifications_and_responses() {
        match single(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#) {
            Message::Request {
                id, method, params, ..
            } => {
                assert_eq!(id.as_json(), "7");
                assert_eq!(method, "ping");
                assert!(params.is_none());
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Message::Notification { .. }
        ));
        match single(r#"{"jsonrpc":"2.0","id":"x","result":{"a":1}}"#) {
            Message::Response { id, result, error } => {
                assert_eq!(
                    id.map(|id| id.as_json().to_owned()).as_deref(),
                    Some("\"x\"")
                );
                assert_eq!(result.map(RawValue::get), Some(r#"{"a":1}"#));
                assert!(error.is_none());
            }
            other => panic!("{other:?}"),
        }
        match single(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m"}}"#) {
            Message::Response { id, result, error } => {
                assert!(id.is_none());
                assert!(result.is_none());
                assert_eq!(
                    error.map(RawValue::get),
                    Some(r#"{"code":-32600,"message":"m"}"#)
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ids_are_kept_verbatim() {
        for raw in ["\"a\\u0062\"", "-12", "123456789012345678901234567890", "0"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"ping"}}"#);
            match single(&line) {
                Message::Request { id, .. } => assert_eq!(id.as_json(), raw),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn id_keys_keep_integers_beyond_64_bits_apart() {
        assert_ne!(
            canonical_id("18446744073709551616"),
            canonical_id("18446744073709551617")
        );
        assert_ne!(
            canonical_id("-123456789012345678901234567890"),
            canonical_id("-123456789012345678901234567891")
        );
        assert_eq!(canonical_id("7"), canonical_id("7"));
        assert_eq!(canonical_id("-0"), canonical_id("0"));
        assert_ne!(canonical_id("-7"), canonical_id("7"));
        assert_ne!(canonical_id("7"), canonical_id("\"7\""));
        assert_eq!(canonical_id("\"a\""), canonical_id("\"\\u0061\""));
        assert_ne!(canonical_id("7"), canonical_id("7.0"));
    }

    #[test]
    fn invalid_ids_are_refused() {
        for raw in ["null", "1.5", "true", "{}", "[]", "1e3"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"ping"}}"#);
            assert!(
                matches!(single(&line), Message::Invalid { id: None, .. }),
                "{raw}"
            );
        }
    }

    #[test]
    fn malformed_lines() {
        assert!(matches!(parse_line(b"{oops"), Line::ParseError));
        assert!(matches!(parse_line(b"\xff\xfe"), Line::ParseError));
        assert!(matches!(parse_line(b"\"\xff\""), Line::ParseError));
        assert!(matches!(parse_line(b"   "), Line::Blank));
        assert!(matches!(parse_line(b" \t\r"), Line::Blank));
        // Not JSON whitespace, so not a blank line either.
        assert!(matches!(parse_line(b"\x0c"), Line::ParseError));
        assert!(matches!(parse_line(b" \x0b "), Line::ParseError));
        assert!(matches!(parse_line(b"[1,2]"), Line::Batch(v) if v.len() == 2));
        let deep = "[".repeat(1000) + &"]".repeat(1000);
        assert!(matches!(parse_line(deep.as_bytes()), Line::ParseError));
        let deep_params = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"a":{}1{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert!(matches!(
            parse_line(deep_params.as_bytes()),
            Line::ParseError
        ));
        let brackets_in_strings = format!(
            r#"{{"jsonrpc":"2.0","method":"x","params":{{"s":"{}\""}}}}"#,
            "[".repeat(500)
        );
        assert!(matches!(
            parse_line(brackets_in_strings.as_bytes()),
            Line::Single(_)
        ));
        assert!(matches!(single("42"), Message::Invalid { id: None, .. }));
        assert!(matches!(
            single(r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#),
            Message::Invalid { id: Some(_), .. }
        ));
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","id":3,"method":5}"#),
            Message::Invalid { id: Some(_), .. }
        ));
    }

    #[test]
    fn writing() {
        let id =
            RequestId::parse(&serde_json::from_str::<Box<RawValue>>("\"q\"").unwrap()).unwrap();
        let written = |write: &dyn Fn(&mut Vec<u8>)| {
            let mut out = Vec::new();
            write(&mut out);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            written(&|out| write_result(out, &id, &serde_json::json!({}))),
            "{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"result\":{}}"
        );
        assert_eq!(
            written(&|out| write_error(out, None, &ErrorObject::new(PARSE_ERROR, "Parse error"))),
            "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}"
        );
        assert_eq!(
            written(&|out| write_notification(
                out,
                "notifications/progress",
                &serde_json::json!({"progress": 1})
            )),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}"
        );
    }
}
