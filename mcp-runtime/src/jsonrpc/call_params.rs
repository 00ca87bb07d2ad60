//! The `params` of `tools/call`, read in one pass: the tool's name borrowed
//! from the line, its arguments as a tree of values, and the progress
//! token. The envelope reads them while it reads the message when `method`
//! comes before `params` (as every client sends them); otherwise they are
//! read from the raw `params` afterwards, the same way.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::jsonrpc::error::{ErrorObject, INVALID_PARAMS};
use crate::jsonrpc::text::string_of;

#[derive(Debug)]
pub(crate) struct CallParams<'a> {
    pub(crate) name: Cow<'a, str>,
    pub(crate) arguments: Value,
    pub(crate) progress_token: Option<Value>,
    /// `_meta` whole, as sent: for middleware, which sees the params as a
    /// value (see `dispatch::layered`), and telemetry, which reads the
    /// trace context in it.
    pub(crate) meta: Option<&'a RawValue>,
    /// 2026-07-28: the answers to the questions of an earlier round
    /// (`inputResponses`), as sent.
    pub(crate) input_responses: Option<&'a RawValue>,
    /// 2026-07-28: the state an earlier round handed the client
    /// (`requestState`), as sent.
    pub(crate) request_state: Option<&'a RawValue>,
    /// 2025-11-25: `task`, the client's ask that the call run as a task
    /// (`{"ttl": ms}`), as sent.
    pub(crate) task: Option<&'a RawValue>,
}

/// `params` checked: `Err` is the -32602 to answer. Boxed: it travels from
/// the envelope to the call, and moving a pointer is cheaper than moving
/// the parts.
pub(crate) type Checked<'a> = Result<Box<CallParams<'a>>, Box<ErrorObject>>;

/// Reads `params` (absent: as `{}`).
pub(crate) fn parse(params: Option<&RawValue>) -> Checked<'_> {
    match params {
        None => check(Members::default()),
        Some(raw) => {
            let mut deserializer = serde_json::Deserializer::from_str(raw.get());
            // `raw` is valid JSON already; nothing here fails but a nesting
            // limit, which is a client error like any other.
            Seed.deserialize(&mut deserializer)
                .unwrap_or_else(|_| Err(not_an_object()))
        }
    }
}

/// Deserializes `params` into a [`Checked`]: fails only on malformed JSON,
/// never on a wrong shape.
pub(crate) struct Seed;

impl<'de> DeserializeSeed<'de> for Seed {
    type Value = Checked<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Checked<'de>, D::Error> {
        deserializer.deserialize_any(ParamsVisitor)
    }
}

#[derive(Default)]
struct Members<'a> {
    name: Option<&'a RawValue>,
    arguments: Option<Value>,
    meta: Option<&'a RawValue>,
    input_responses: Option<&'a RawValue>,
    request_state: Option<&'a RawValue>,
    task: Option<&'a RawValue>,
}

fn not_an_object() -> Box<ErrorObject> {
    Box::new(ErrorObject::new(
        INVALID_PARAMS,
        "`params` must be an object",
    ))
}

fn check(members: Members<'_>) -> Checked<'_> {
    let name = members.name.and_then(string_of).ok_or_else(|| {
        Box::new(ErrorObject::new(
            INVALID_PARAMS,
            "tools/call needs `name`, the name of a tool (see tools/list)",
        ))
    })?;
    let arguments = match members.arguments {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(object @ Value::Object(_)) => object,
        Some(_) => {
            return Err(Box::new(ErrorObject::new(
                INVALID_PARAMS,
                "`arguments` must be an object",
            )));
        }
    };
    #[derive(Deserialize)]
    struct Meta {
        #[serde(rename = "progressToken")]
        progress_token: Option<Value>,
    }
    let progress_token = members
        .meta
        .and_then(|raw| serde_json::from_str::<Meta>(raw.get()).ok())
        .and_then(|meta| meta.progress_token)
        .filter(|t| t.is_string() || t.is_i64() || t.is_u64());
    Ok(Box::new(CallParams {
        name,
        arguments,
        progress_token,
        meta: members.meta,
        input_responses: members.input_responses,
        request_state: members.request_state,
        task: members.task,
    }))
}

struct ParamsVisitor;

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = Checked<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked<'de>, A::Error> {
        let mut members = Members::default();
        // A repeated member keeps its last value, as a JSON object would.
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Name => members.name = Some(map.next_value()?),
                Key::Arguments => members.arguments = Some(map.next_value()?),
                Key::Meta => members.meta = Some(map.next_value()?),
                Key::InputResponses => members.input_responses = Some(map.next_value()?),
                Key::RequestState => members.request_state = Some(map.next_value()?),
                Key::Task => members.task = Some(map.next_value()?),
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(check(members))
    }

    fn visit_unit<E>(self) -> Result<Checked<'de>, E> {
        Ok(check(Members::default()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Err(not_an_object()))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Checked<'de>, E> {
        Ok(Err(not_an_object()))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Checked<'de>, E> {
        Ok(Err(not_an_object()))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Checked<'de>, E> {
        Ok(Err(not_an_object()))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Checked<'de>, E> {
        Ok(Err(not_an_object()))
    }

    fn visit_str<E>(self, _: &str) -> Result<Checked<'de>, E> {
        Ok(Err(not_an_object()))
    }
}

/// A member's name, recognized without being copied.
enum Key {
    Name,
    Arguments,
    Meta,
    InputResponses,
    RequestState,
    Task,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E>(self, name: &str) -> Result<Key, E> {
                Ok(match name {
                    "name" => Key::Name,
                    "arguments" => Key::Arguments,
                    "_meta" => Key::Meta,
                    "inputResponses" => Key::InputResponses,
                    "requestState" => Key::RequestState,
                    "task" => Key::Task,
                    _ => Key::Other,
                })
            }
        }
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(params: &str) -> Checked<'_> {
        parse(Some(serde_json::from_str::<&RawValue>(params).unwrap()))
    }

    fn error(params: &str) -> String {
        parsed(params).unwrap_err().message
    }

    #[test]
    fn reads_name_arguments_and_progress_token() {
        let call = parsed(r#"{"x":[1,{"y":2}],"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":7}}"#).unwrap();
        assert!(matches!(call.name, Cow::Borrowed("echo")));
        assert_eq!(call.arguments, serde_json::json!({"text": "hi"}));
        assert_eq!(call.progress_token, Some(Value::from(7)));
        let call = parsed(r#"{"name":"\u0065cho","arguments":null,"_meta":{"progressToken":1.5}}"#)
            .unwrap();
        assert_eq!(call.name, "echo");
        assert_eq!(call.arguments, serde_json::json!({}));
        assert_eq!(call.progress_token, None, "a float is not a progress token");
        assert_eq!(parse(None).unwrap_err().message, error("{}"));
    }

    #[test]
    fn wrong_shapes_are_invalid_params_not_parse_errors() {
        for params in ["[1,2]", "\"x\"", "3", "true", "1.5"] {
            assert_eq!(error(params), "`params` must be an object", "{params}");
        }
        assert!(error("null").starts_with("tools/call needs `name`"));
        assert!(error(r#"{"name":5}"#).starts_with("tools/call needs `name`"));
        assert_eq!(
            error(r#"{"name":"echo","arguments":[1]}"#),
            "`arguments` must be an object"
        );
        // The last of repeated members counts.
        let call = parsed(r#"{"name":"a","name":"b","arguments":[],"arguments":{}}"#).unwrap();
        assert_eq!(call.name, "b");
    }
}
