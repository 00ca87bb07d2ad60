//! JSON Schemas: generating them from Rust types and shaping them for real
//! clients (`generate`), checking arguments against them (`validator`,
//! wrapped for tool calls by `arguments`), and checking their `x-mcp-header`
//! marks (`headers`), and reshaping a published one for a tool transform
//! (`reshape`).

pub(crate) mod arguments;
pub(crate) mod generate;
pub(crate) mod headers;
pub(crate) mod reshape;
pub(crate) mod validator;

use serde_json::{Map, Value};

/// Looking a keyword up in a schema object. A schema has a handful of
/// keywords, and serde_json's map hashes the key with SipHash on every
/// lookup, which costs more than comparing it with each of them: building
/// 200 tools' schemas spent a fifth of its time hashing.
pub(crate) trait Member {
    /// The value of `key`, if present.
    fn member(&self, key: &str) -> Option<&Value>;

    /// Whether `key` is present.
    fn has(&self, key: &str) -> bool {
        self.member(key).is_some()
    }
}

impl Member for Map<String, Value> {
    fn member(&self, key: &str) -> Option<&Value> {
        const SCAN: usize = 12;
        if self.len() <= SCAN {
            self.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
        } else {
            self.get(key)
        }
    }
}

/// How a JSON Schema 2020-12 keyword holds subschemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Subschemas {
    /// One subschema (`items`, `not`, `if`, ...).
    One,
    /// A list of them (`allOf`, `prefixItems`, ...).
    List,
    /// A map of them (`properties`, `$defs`, ...).
    Map,
}

/// Whether `keyword`'s value is a subschema, a list or a map of them: the
/// keywords a walk over every subschema follows.
pub(crate) fn subschemas(keyword: &str) -> Option<Subschemas> {
    match keyword {
        "properties" | "patternProperties" | "$defs" | "dependentSchemas" => Some(Subschemas::Map),
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => Some(Subschemas::List),
        "items"
        | "additionalProperties"
        | "not"
        | "if"
        | "then"
        | "else"
        | "contains"
        | "propertyNames"
        | "unevaluatedProperties"
        | "unevaluatedItems"
        | "contentSchema" => Some(Subschemas::One),
        _ => None,
    }
}
