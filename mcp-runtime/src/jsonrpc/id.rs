//! Request ids, kept as the raw JSON text the client sent.

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
