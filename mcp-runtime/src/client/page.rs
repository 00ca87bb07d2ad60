//! One page of a list (`tools/list`, `resources/list`,
//! `resources/templates/list`, `prompts/list`), read entry by entry: an
//! entry that cannot be read (nested deeper than a message may be, a
//! number out of range…) is left out with a warning that names it and
//! says why, and the rest of the page is kept. One bad entry costs only
//! itself, as an entry a mount cannot serve does.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::client::error::ClientError;
use crate::jsonrpc::{MAX_DEPTH, nesting_exceeds};

/// How deep an entry may nest: inside a message it sits three levels down
/// (the message, its result, the list), and a message may nest
/// [`MAX_DEPTH`] levels, so an entry read here can be served again.
const ENTRY_DEPTH: usize = MAX_DEPTH - 3;

/// What one page holds.
pub(crate) struct Page {
    /// The entries that could be read.
    pub(crate) items: Vec<Value>,
    /// Where the next page begins.
    pub(crate) next_cursor: Option<String>,
    /// How long the page stays fresh (the 2026-07-28 era's `ttlMs`).
    pub(crate) ttl_ms: Option<Value>,
}

impl Page {
    /// The page as a result again, with only what was read: what the
    /// client's cache keeps.
    pub(crate) fn to_result(&self, key: &str) -> Value {
        let mut result = serde_json::Map::new();
        result.insert(key.to_owned(), Value::Array(self.items.clone()));
        if let Some(next) = &self.next_cursor {
            result.insert("nextCursor".to_owned(), Value::String(next.clone()));
        }
        if let Some(ttl) = &self.ttl_ms {
            result.insert("ttlMs".to_owned(), ttl.clone());
        }
        Value::Object(result)
    }
}

/// The entries and the next cursor of a page the cache kept (made by
/// [`Page::to_result`]).
pub(crate) fn kept(
    method: &str,
    key: &str,
    mut result: Value,
) -> Result<(Vec<Value>, Option<String>), ClientError> {
    let next = result
        .get("nextCursor")
        .and_then(Value::as_str)
        .map(str::to_owned);
    match result.get_mut(key).map(Value::take) {
        Some(Value::Array(items)) => Ok((items, next)),
        _ => Err(ClientError::InvalidResponse {
            method: method.to_owned(),
            reason: format!("no `{key}` array"),
        }),
    }
}

/// Reads the page `raw`, the result of `method`, whose entries are under
/// `key`.
pub(crate) fn read(method: &str, key: &str, raw: &RawValue) -> Result<Page, ClientError> {
    let invalid = |reason: String| ClientError::InvalidResponse {
        method: method.to_owned(),
        reason,
    };
    let members = serde_json::from_str::<HashMap<String, &RawValue>>(raw.get())
        .map_err(|error| invalid(format!("the result is not a JSON object: {error}")))?;
    let entries = members
        .get(key)
        .and_then(|list| serde_json::from_str::<Vec<&RawValue>>(list.get()).ok())
        .ok_or_else(|| invalid(format!("no `{key}` array")))?;
    let mut items = Vec::with_capacity(entries.len());
    for entry in entries {
        match value(entry) {
            Ok(value) => items.push(value),
            Err(reason) => tracing::warn!(
                "the server's {method} entry {} is left out: {reason}",
                name(entry)
            ),
        }
    }
    let next_cursor = members
        .get("nextCursor")
        .and_then(|cursor| serde_json::from_str::<String>(cursor.get()).ok());
    let ttl_ms = members
        .get("ttlMs")
        .and_then(|ttl| serde_json::from_str::<Value>(ttl.get()).ok());
    Ok(Page {
        items,
        next_cursor,
        ttl_ms,
    })
}

fn value(entry: &RawValue) -> Result<Value, String> {
    if nesting_exceeds(entry.get().as_bytes(), ENTRY_DEPTH) {
        return Err(format!(
            "it is nested too deep (more than {ENTRY_DEPTH} levels of arrays and objects; \
             a message may have {MAX_DEPTH})"
        ));
    }
    serde_json::from_str(entry.get()).map_err(|error| error.to_string())
}

/// How the warning names an entry: its name, URI or URI template.
fn name(entry: &RawValue) -> String {
    #[derive(Deserialize)]
    struct Named {
        name: Option<String>,
        uri: Option<String>,
        #[serde(rename = "uriTemplate")]
        uri_template: Option<String>,
    }
    let named = serde_json::from_str::<Named>(entry.get())
        .ok()
        .and_then(|n| n.name.or(n.uri).or(n.uri_template));
    match named {
        Some(name) => format!("`{}`", name.chars().take(200).collect::<String>()),
        None => "without a name".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize) -> String {
        let mut schema = r#"{"type":"string"}"#.to_owned();
        for _ in 0..levels {
            schema = format!(r#"{{"type":"object","properties":{{"x":{schema}}}}}"#);
        }
        schema
    }

    #[test]
    fn an_entry_nested_too_deep_is_left_out_and_the_others_kept() {
        let page = format!(
            r#"{{"tools":[{{"name":"a","inputSchema":{{}}}},{{"name":"deep","inputSchema":{}}},{{"name":"b","inputSchema":{}}}],"nextCursor":"2"}}"#,
            nested(100),
            nested(60)
        );
        let raw = RawValue::from_string(page).unwrap();
        let page = read("tools/list", "tools", &raw).unwrap();
        let names: Vec<&str> = page
            .items
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(page.next_cursor.as_deref(), Some("2"));
    }

    #[test]
    fn an_entry_at_the_deepest_a_message_allows_is_kept() {
        let deepest = format!(
            r#"{{"name":"edge","x":{}1{}}}"#,
            "[".repeat(124),
            "]".repeat(124)
        );
        let deeper = format!(
            r#"{{"name":"over","x":{}1{}}}"#,
            "[".repeat(125),
            "]".repeat(125)
        );
        let raw = RawValue::from_string(format!(r#"{{"tools":[{deepest},{deeper}]}}"#)).unwrap();
        let page = read("tools/list", "tools", &raw).unwrap();
        assert_eq!(page.items.len(), 1);
        assert_eq!(page.items[0]["name"], "edge");
        // Served again, the entry still fits a message.
        let message = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":[{deepest}]}}}}"#);
        assert!(!nesting_exceeds(message.as_bytes(), MAX_DEPTH));
    }

    #[test]
    fn a_page_without_its_list_is_malformed() {
        let raw = RawValue::from_string(r#"{"tools":{}}"#.to_owned()).unwrap();
        let error = read("tools/list", "tools", &raw).err().unwrap();
        assert!(error.to_string().contains("no `tools` array"), "{error}");
    }
}
