//! The answers of the list methods (`tools/list`, `resources/list`,
//! `resources/templates/list`, `prompts/list`), serialized once per
//! protocol version and page when first asked for, and found again by
//! cursor.

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::OnceLock;

use crate::jsonrpc::{ErrorObject, INVALID_PARAMS};
use crate::protocol::version::ProtocolVersion;

/// One list's pages, `[version][page]`, each version's serialized the
/// first time a client of that version asks (a server whose clients all
/// speak one version never serializes the other shapes).
pub(crate) struct Pages {
    key: &'static str,
    page_size: usize,
    by_version: [OnceLock<Vec<Box<RawValue>>>; ProtocolVersion::ALL.len()],
}

impl Pages {
    /// Pages of at most `page_size` entries (all in one page when `None`),
    /// under `key`.
    pub(crate) fn new(key: &'static str, page_size: Option<usize>) -> Pages {
        Pages {
            key,
            page_size: page_size.unwrap_or(usize::MAX).max(1),
            by_version: Default::default(),
        }
    }

    /// The page at `cursor` (the first without one) of `items`, in
    /// `version`'s shape, each entry serialized by `entry`. `items` must be
    /// the same on every call.
    pub(crate) fn page<'a, T, E: Serialize>(
        &'a self,
        items: &'a [T],
        entry: impl Fn(&'a T, ProtocolVersion) -> E,
        cursor: Option<&Value>,
        version: ProtocolVersion,
    ) -> Result<&'a RawValue, ErrorObject> {
        let pages = self.by_version[version.index()].get_or_init(|| {
            let chunks: Vec<&'a [T]> = if items.is_empty() {
                vec![items]
            } else {
                items.chunks(self.page_size.min(items.len())).collect()
            };
            chunks
                .iter()
                .enumerate()
                .map(|(i, chunk)| {
                    let page = Page {
                        key: self.key,
                        entries: chunk.iter().map(|item| entry(item, version)).collect(),
                        next_cursor: (i + 1 < chunks.len()).then(|| cursor_of(i + 1)),
                    };
                    serde_json::value::to_raw_value(&page).unwrap_or_default()
                })
                .collect()
        });
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

fn cursor_of(page: usize) -> String {
    format!("page-{page}")
}

fn parse_cursor(cursor: &str) -> Option<usize> {
    cursor.strip_prefix("page-")?.parse().ok()
}
