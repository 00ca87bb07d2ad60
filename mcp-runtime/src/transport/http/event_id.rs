//! The ids of the session eras' SSE events, which a client sends back as
//! `Last-Event-ID` to resume a stream: `0_{seq}` on a session's GET
//! stream, `{n}.{rid}_{seq}` on the stream of the session's `n`th POST.
//! In a fleet (`Server::sessions`) a POST's stream lives on the instance
//! that served the POST, and its ids name that instance first:
//! `{inst}~{n}.{rid}_{seq}` (`inst`: its 8 hex digits), so that any
//! instance a resumption reaches knows whom to ask.
//!
//! `rid` names the request the POST carried: the JSON text of its id
//! (`7`, `"call-7"`), base64url without padding. It is left out (`{n}_{seq}`)
//! for a batch, a POST without a request, and an id whose JSON text is
//! longer than [`MAX_NAMED_ID`] bytes, so that ids stay short. Naming the
//! request lets a server that no longer keeps a stream still answer the
//! client that resumes it: an error response for that request, instead of
//! an empty stream the client would resume again and again.
//!
//! Parsed by splitting on the last `_` (base64url has `_` in its alphabet).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::{BufMut, BytesMut};
use serde_json::value::RawValue;

use crate::jsonrpc::{InstanceTag, RequestId};

/// The longest request id (as JSON text, in bytes) an event id names.
pub(crate) const MAX_NAMED_ID: usize = 200;

/// What an event id says: the stream, the request its POST carried (if
/// the id names it), and the event's number in the stream.
#[derive(Debug, PartialEq)]
pub(crate) struct EventId {
    /// The instance of a fleet that keeps the stream (`None` outside a
    /// fleet).
    pub(crate) instance: Option<InstanceTag>,
    pub(crate) stream: u64,
    pub(crate) request: Option<RequestId>,
    pub(crate) seq: u64,
}

/// The `rid` of a stream that answers the request `id`, or `None` if its
/// id is too long to name.
pub(crate) fn request_tag(id: &RequestId) -> Option<Box<str>> {
    let json = id.as_json();
    (json.len() <= MAX_NAMED_ID).then(|| URL_SAFE_NO_PAD.encode(json).into_boxed_str())
}

/// Appends the id of event `seq` of stream `stream`, whose request's tag
/// is `tag`, kept by `instance` in a fleet.
pub(crate) fn write(
    out: &mut BytesMut,
    instance: Option<InstanceTag>,
    stream: u64,
    tag: Option<&str>,
    seq: u64,
) {
    if let Some(instance) = instance {
        out.put_slice(instance.as_str().as_bytes());
        out.put_u8(b'~');
    }
    out.put_slice(stream.to_string().as_bytes());
    if let Some(tag) = tag {
        out.put_u8(b'.');
        out.put_slice(tag.as_bytes());
    }
    out.put_u8(b'_');
    out.put_slice(seq.to_string().as_bytes());
}

/// Reads an event id (surrounding whitespace ignored); `None` if it is
/// not one this server writes.
pub(crate) fn parse(text: &str) -> Option<EventId> {
    let (head, seq) = text.trim().rsplit_once('_')?;
    let (instance, head) = match head.split_once('~') {
        Some((instance, head)) => (Some(InstanceTag::parse(instance)?), head),
        None => (None, head),
    };
    let (stream, tag) = match head.split_once('.') {
        Some((stream, tag)) => (stream, Some(tag)),
        None => (head, None),
    };
    let request = match tag {
        Some(tag) => Some(decode_request(tag)?),
        None => None,
    };
    Some(EventId {
        instance,
        stream: number(stream)?,
        request,
        seq: number(seq)?,
    })
}

/// A decimal number, digits only (no sign, no spaces).
fn number(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// The request id a tag names: a string or an integer, as MCP allows.
fn decode_request(tag: &str) -> Option<RequestId> {
    if tag.is_empty() || tag.len() > MAX_NAMED_ID.div_ceil(3) * 4 {
        return None;
    }
    let json = String::from_utf8(URL_SAFE_NO_PAD.decode(tag).ok()?).ok()?;
    let raw: Box<RawValue> = serde_json::from_str(&json).ok()?;
    RequestId::parse(&raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(json: &str) -> RequestId {
        let raw: Box<RawValue> = serde_json::from_str(json).unwrap();
        RequestId::parse(&raw).unwrap()
    }

    fn written(stream: u64, tag: Option<&str>, seq: u64) -> String {
        let mut out = BytesMut::new();
        write(&mut out, None, stream, tag, seq);
        String::from_utf8(out.to_vec()).unwrap()
    }

    #[test]
    fn the_get_stream_and_unnamed_posts_keep_the_plain_form() {
        assert_eq!(written(0, None, 7), "0_7");
        assert_eq!(
            parse("0_7"),
            Some(EventId {
                instance: None,
                stream: 0,
                request: None,
                seq: 7
            })
        );
        assert_eq!(parse(" 12_0 ").map(|id| (id.stream, id.seq)), Some((12, 0)));
    }

    #[test]
    fn a_post_stream_names_its_request_and_reads_back() {
        for json in ["7", "-3", "\"call-7\"", "\"ü_?>~\"", "\"a_b_c\""] {
            let tag = request_tag(&id(json)).expect("a short id is named");
            assert!(
                tag.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
                "base64url, no padding: {tag}"
            );
            let text = written(4, Some(&tag), 12);
            assert_eq!(text, format!("4.{tag}_12"));
            let parsed = parse(&text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!((parsed.stream, parsed.seq), (4, 12), "{text}");
            assert_eq!(parsed.request.unwrap().as_json(), json, "{text}");
        }
        // `"?>"` is `Ij8-Ig`, `"??"` is `Ij8_Ig`: a `_` inside the tag.
        let tag = request_tag(&id("\"??\"")).unwrap();
        assert!(tag.contains('_'), "{tag}");
        let parsed = parse(&written(3, Some(&tag), 0)).unwrap();
        assert_eq!(parsed.request.unwrap().as_json(), "\"??\"");
    }

    #[test]
    fn in_a_fleet_a_post_stream_names_its_instance_first() {
        let instance = InstanceTag::parse("ab12cd34").unwrap();
        let tag = request_tag(&id("\"??\"")).unwrap();
        let mut out = BytesMut::new();
        write(&mut out, Some(instance), 5, Some(&tag), 9);
        let text = String::from_utf8(out.to_vec()).unwrap();
        assert_eq!(text, format!("ab12cd34~5.{tag}_9"));
        let parsed = parse(&text).unwrap();
        assert_eq!(parsed.instance, Some(instance));
        assert_eq!((parsed.stream, parsed.seq), (5, 9));
        assert_eq!(parsed.request.unwrap().as_json(), "\"??\"");
        // A batch's stream: no request named.
        let mut out = BytesMut::new();
        write(&mut out, Some(instance), 6, None, 1);
        assert_eq!(&out[..], b"ab12cd34~6_1");
        let parsed = parse("ab12cd34~6_1").unwrap();
        assert_eq!(
            (parsed.instance, parsed.stream, parsed.request),
            (Some(instance), 6, None)
        );
        // Outside a fleet, nothing names an instance.
        assert_eq!(parse("6_1").unwrap().instance, None);
    }

    #[test]
    fn a_long_request_id_is_not_named() {
        let long = format!("\"{}\"", "x".repeat(MAX_NAMED_ID));
        assert_eq!(request_tag(&id(&long)), None);
        let just = format!("\"{}\"", "x".repeat(MAX_NAMED_ID - 2));
        let tag = request_tag(&id(&just)).expect("200 bytes are named");
        assert!(parse(&written(1, Some(&tag), 1)).is_some());
    }

    #[test]
    fn what_this_server_never_writes_does_not_parse() {
        let tag = |json: &str| URL_SAFE_NO_PAD.encode(json);
        for text in [
            "",
            "garbage",
            "_",
            "3_",
            "_3",
            "3_x",
            "x_3",
            "+3_1",
            "3_-1",
            "3 _1",
            "3._1",
            "99999999999999999999_1",
            "3.!!_1",
            "3.Ij8-Ig=_1",
            "~3_1",
            "ab12cd3~3_1",
            "AB12CD34~3_1",
            "ab12cd34~~3_1",
            "ab12cd34~_1",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
        // Base64url of something that is not a request id MCP allows.
        for json in ["null", "1.5", "{}", "[1]", "\"unterminated", "true"] {
            let text = format!("3.{}_1", tag(json));
            assert_eq!(parse(&text), None, "{json}");
        }
        let huge = format!("3.{}_1", "A".repeat(1000));
        assert_eq!(parse(&huge), None);
    }
}
