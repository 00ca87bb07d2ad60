//! Request ids, kept as the raw JSON text the client sent; the ids of the
//! server's own requests to its client, which in a fleet name the
//! instance that asked ([`InstanceTag`]).

use std::fmt;
use std::sync::Arc;

use serde_json::value::RawValue;

/// A request id, kept as the raw JSON text the client sent (a string with
/// its quotes, or an integer), so that it is echoed byte for byte.
#[derive(Clone)]
pub struct RequestId(IdText);

/// Ids are short: most are kept inline, without an allocation or reference
/// counting per request.
#[derive(Clone)]
enum IdText {
    Inline { len: u8, bytes: [u8; INLINE_ID] },
    Shared(Arc<str>),
}

const INLINE_ID: usize = 22;

impl RequestId {
    /// Checks that `raw` is a string or an integer, as MCP requires.
    pub(crate) fn parse(raw: &RawValue) -> Option<RequestId> {
        let text = raw.get();
        let valid = if text.starts_with('"') {
            true
        } else {
            let digits = text.strip_prefix('-').unwrap_or(text);
            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        };
        valid.then(|| RequestId::from_json(text))
    }

    /// The id of the server's `n`th request to its client: `"mcp-rs-N"`.
    pub(crate) fn server(n: u64) -> RequestId {
        RequestId::from_json(&format!("\"mcp-rs-{n}\""))
    }

    /// The id of the `n`th request to a client of the fleet's instance
    /// `instance`: `"mcp-rs-{instance}-{n}"`, so that an answer POSTed to
    /// another instance can be routed to the one that waits for it.
    pub(crate) fn server_of(instance: InstanceTag, n: u64) -> RequestId {
        RequestId::from_json(&format!("\"mcp-rs-{instance}-{n}\""))
    }

    /// The instance of a fleet whose request this id names
    /// (`"mcp-rs-ab12cd34-7"` gives `ab12cd34`); `None` for any other id,
    /// an untagged `"mcp-rs-7"` among them.
    // The transport of a fleet (`sessions-redis`) routes by it.
    #[cfg_attr(not(any(test, feature = "sessions-redis")), allow(dead_code))]
    pub(crate) fn instance(&self) -> Option<InstanceTag> {
        let key = self.key();
        let (tag, n) = key.strip_prefix("s:mcp-rs-")?.split_once('-')?;
        let counted = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
        counted.then(|| InstanceTag::parse(tag)).flatten()
    }

    /// An integer id, as the client numbers its requests.
    #[cfg(feature = "client")]
    pub(crate) fn number(n: u64) -> RequestId {
        RequestId::from_json(&n.to_string())
    }

    /// The id as an integer, if it is one that fits 64 bits.
    #[cfg(feature = "client")]
    pub(crate) fn as_u64(&self) -> Option<u64> {
        self.as_json().parse().ok()
    }

    fn from_json(text: &str) -> RequestId {
        RequestId(match u8::try_from(text.len()) {
            Ok(len) if text.len() <= INLINE_ID => {
                let mut bytes = [0; INLINE_ID];
                bytes[..text.len()].copy_from_slice(text.as_bytes());
                IdText::Inline { len, bytes }
            }
            _ => IdText::Shared(Arc::from(text)),
        })
    }

    /// The id as it would be written in JSON (strings with their quotes).
    pub fn as_json(&self) -> &str {
        match &self.0 {
            IdText::Inline { len, bytes } => {
                // SAFETY: only ever filled from a whole `&str` of `len` bytes.
                unsafe { std::str::from_utf8_unchecked(&bytes[..usize::from(*len)]) }
            }
            IdText::Shared(text) => text,
        }
    }

    /// A comparable key: equal for ids that are equal as JSON values, even
    /// when spelled differently (`"a"` and `"\u0061"`).
    pub(crate) fn key(&self) -> String {
        canonical_id(self.as_json())
    }
}

impl PartialEq for RequestId {
    fn eq(&self, other: &Self) -> bool {
        self.as_json() == other.as_json()
    }
}

impl Eq for RequestId {}

impl std::hash::Hash for RequestId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_json().hash(state);
    }
}

/// The comparison key of an id given as raw JSON text (as in
/// `notifications/cancelled`).
pub(crate) fn canonical_id(raw_json: &str) -> String {
    // Integers by their digits: parsed as a number, one beyond 64 bits
    // would be rounded to a float, merging distinct ids.
    let digits = raw_json.strip_prefix('-').unwrap_or(raw_json);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        let sign = if digits.bytes().any(|b| b != b'0') && digits.len() < raw_json.len() {
            "-"
        } else {
            ""
        };
        return format!("n:{sign}{digits}");
    }
    match serde_json::from_str::<serde_json::Value>(raw_json) {
        Ok(serde_json::Value::String(s)) => format!("s:{s}"),
        _ => format!("r:{raw_json}"),
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_json())
    }
}

impl fmt::Debug for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_json())
    }
}

/// One instance of a fleet, as the ids of its requests to clients name
/// it: 8 lowercase hex digits, drawn at random when the process starts.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct InstanceTag([u8; 8]);

impl InstanceTag {
    /// The tag spelled `text`: exactly 8 lowercase hex digits.
    pub(crate) fn parse(text: &str) -> Option<InstanceTag> {
        let bytes: [u8; 8] = text.as_bytes().try_into().ok()?;
        let hex = |b: &u8| b.is_ascii_digit() || (b'a'..=b'f').contains(b);
        bytes.iter().all(hex).then_some(InstanceTag(bytes))
    }

    /// A new tag, from 32 random bits; `None` when the system has no
    /// randomness to give.
    // The transport of a fleet (`sessions-redis`) tags its instance.
    #[cfg_attr(not(any(test, feature = "sessions-redis")), allow(dead_code))]
    pub(crate) fn random() -> Option<InstanceTag> {
        let mut random = [0u8; 4];
        getrandom::fill(&mut random).ok()?;
        let mut tag = [0u8; 8];
        for (i, byte) in random.iter().enumerate() {
            tag[2 * i] = HEX[usize::from(byte >> 4)];
            tag[2 * i + 1] = HEX[usize::from(byte & 0xf)];
        }
        Some(InstanceTag(tag))
    }

    /// Its 8 hex digits.
    pub(crate) fn as_str(&self) -> &str {
        // Only ever filled with ASCII hex digits.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

impl fmt::Display for InstanceTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for InstanceTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "InstanceTag({})", self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_is_eight_lowercase_hex_digits() {
        assert_eq!(
            InstanceTag::parse("ab12cd34").map(|t| t.to_string()),
            Some("ab12cd34".to_owned())
        );
        for wrong in [
            "AB12CD34",
            "ab12cd3",
            "ab12cd345",
            "ab12cd3g",
            "",
            "ab12-d34",
        ] {
            assert_eq!(InstanceTag::parse(wrong), None, "{wrong}");
        }
        let random = InstanceTag::random().unwrap();
        assert_eq!(InstanceTag::parse(random.as_str()), Some(random));
    }

    #[test]
    fn a_tagged_id_names_its_instance() {
        let tag = InstanceTag::parse("ab12cd34").unwrap();
        let id = RequestId::server_of(tag, 7);
        assert_eq!(id.as_json(), r#""mcp-rs-ab12cd34-7""#);
        assert_eq!(id.instance(), Some(tag));
        // However the client spells it.
        let escaped = RequestId::from_json(r#""mcp-rs-\u0061b12cd34-7""#);
        assert_eq!(escaped.instance(), Some(tag));
        let long = RequestId::server_of(tag, u64::MAX);
        assert_eq!(long.instance(), Some(tag));
    }

    #[test]
    fn other_ids_name_no_instance() {
        for json in [
            r#""mcp-rs-7""#,
            r#""mcp-rs-ab12cd34-""#,
            r#""mcp-rs-ab12cd34-7x""#,
            r#""mcp-rs-AB12CD34-7""#,
            r#""mcp-rs-ab12cd3-7""#,
            r#""xmcp-rs-ab12cd34-7""#,
            r#""ab12cd34""#,
            "7",
        ] {
            assert_eq!(RequestId::from_json(json).instance(), None, "{json}");
        }
        assert_eq!(RequestId::server(7).instance(), None);
    }
}
