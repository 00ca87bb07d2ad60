//! The answers of the list methods (`tools/list`, `resources/list`,
//! `resources/templates/list`, `prompts/list`), serialized once per
//! protocol version and page when the server starts, and found again by
//! cursor.

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::jsonrpc::{ErrorObject, INVALID_PARAMS};
use crate::protocol::version::ProtocolVersion;

/// One list's pages: `[version][page]`.
pub(crate) struct Pages {
    by_version: Vec<Vec<Box<RawValue>>>,
}

impl Pages {
    /// Pages of at most `page_size` entries of `items` (all in one page
    /// when `None`), under `key`, each entry serialized by `entry` for the
    /// version.
    pub(crate) fn build<'a, T, E: Serialize>(
        items: &'a [T],
        page_size: Option<usize>,
        key: &'static str,
        entry: impl Fn(&'a T, ProtocolVersion) -> E,
    ) -> Pages {
        let page_size = page_size.unwrap_or(usize::MAX).max(1);
        let chunks: Vec<&'a [T]> = if items.is_empty() {
            vec![items]
        } else {
            items.chunks(page_size.min(items.len())).collect()
        };
        let by_version = ProtocolVersion::ALL
            .iter()
            .map(|&version| {
                chunks
                    .iter()
                    .enumerate()
                    .map(|(i, chunk)| {
                        let page = Page {
                            key,
                            entries: chunk.iter().map(|item| entry(item, version)).collect(),
                            next_cursor: (i + 1 < chunks.len()).then(|| cursor(i + 1)),
                        };
                        serde_json::value::to_raw_value(&page).unwrap_or_default()
                    })
                    .collect()
            })
            .collect();
        Pages { by_version }
    }

    /// The page at `cursor` (the first without one), in `version`'s shape.
    pub(crate) fn page(
        &self,
        cursor: Option<&Value>,
        version: ProtocolVersion,
    ) -> Result<&RawValue, ErrorObject> {
        let pages = &self.by_version[version.index()];
        let page = match cursor {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => match parse_cursor(c) {
                Some(i) if i > 0 && i < pages.len() => i,
                _ => {
                    return Err(ErrorObject::new(
                        INVALID_PARAMS,
                        format!("Invalid cursor: {c:?}"),
                    ));
                }
            },
            Some(_) => {
                return Err(ErrorObject::new(
                    INVALID_PARAMS,
                    "`cursor` must be a string",
                ));
            }
        };
        Ok(&pages[page])
    }
}

/// One page: `{"<key>": [...], "nextCursor": "..."}`.
struct Page<E> {
    key: &'static str,
    entries: Vec<E>,
    next_cursor: Option<String>,
}

impl<E: Serialize> Serialize for Page<E> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map =
            serializer.serialize_map(Some(1 + usize::from(self.next_cursor.is_some())))?;
        map.serialize_entry(self.key, &self.entries)?;
        if let Some(cursor) = &self.next_cursor {
            map.serialize_entry("nextCursor", cursor)?;
        }
        map.end()
    }
}

fn cursor(page: usize) -> String {
    format!("page-{page}")
}

fn parse_cursor(cursor: &str) -> Option<usize> {
    cursor.strip_prefix("page-")?.parse().ok()
}
