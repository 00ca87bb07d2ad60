//! Strings read from raw JSON, borrowed from the line where they can be.

use std::borrow::Cow;

use serde_json::value::RawValue;

/// The string `raw` holds, borrowed from the line unless it has escapes to
/// undo (serde's `Cow` always copies); `None` if it is not a string.
pub(crate) fn string_of(raw: &RawValue) -> Option<Cow<'_, str>> {
    serde_json::from_str::<&str>(raw.get())
        .map(Cow::Borrowed)
        .or_else(|_| serde_json::from_str::<String>(raw.get()).map(Cow::Owned))
        .ok()
}
