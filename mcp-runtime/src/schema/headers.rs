//! The `x-mcp-header` marks of a tool's input schema (MCP 2026-07-28): a
//! property so marked is mirrored by clients into `Mcp-Param-{Name}`.
//! Clients drop a tool whose marks break the rules, so a server checks
//! them before serving it: each mark is a string that is an HTTP token
//! (RFC 9110 `tchar`s), unique ignoring case, on a string, integer or
//! boolean property reachable from the root through `properties` keys
//! alone (not through `items`, `allOf`, `$ref`, `$defs`...). A marked
//! integer must also stay within ±(2^53 − 1), which [`bound_integers`]
//! writes into the schema so that a larger one is refused as an invalid
//! argument.

use serde_json::{Map, Value};

const MARK: &str = "x-mcp-header";

/// Keywords whose values are data, not schemas: nothing in them is a mark.
const DATA: &[&str] = &["enum", "const", "default", "examples"];

/// Checks every `x-mcp-header` mark of `schema`; the error says which and
/// why.
pub(crate) fn check(schema: &Map<String, Value>) -> Result<(), String> {
    let mut seen = Vec::new();
    walk(schema, &mut String::new(), Reach::Root, &mut seen)
}

#[derive(Clone, Copy, PartialEq)]
enum Reach {
    Root,
    /// A property reached from the root through `properties` keys alone.
    Property,
    Elsewhere,
}

/// `seen`: the marks found so far, lowercased, with where each is.
fn walk(
    schema: &Map<String, Value>,
    at: &mut String,
    reach: Reach,
    seen: &mut Vec<(String, String)>,
) -> Result<(), String> {
    if let Some(mark) = schema.get(MARK) {
        check_mark(schema, mark, at, reach, seen)?;
    }
    for (key, value) in schema {
        if key == MARK || DATA.contains(&key.as_str()) {
            continue;
        }
        let len = at.len();
        at.push('/');
        at.push_str(key);
        if key == "properties"
            && let Value::Object(properties) = value
        {
            let next = match reach {
                Reach::Elsewhere => Reach::Elsewhere,
                _ => Reach::Property,
            };
            for (name, property) in properties {
                if let Value::Object(property) = property {
                    let len = at.len();
                    at.push('/');
                    at.push_str(name);
                    walk(property, at, next, seen)?;
                    at.truncate(len);
                }
            }
        } else {
            elsewhere(value, at, seen)?;
        }
        at.truncate(len);
    }
    Ok(())
}

/// Every schema inside a keyword other than `properties`.
fn elsewhere(
    value: &Value,
    at: &mut String,
    seen: &mut Vec<(String, String)>,
) -> Result<(), String> {
    match value {
        Value::Object(map) => walk(map, at, Reach::Elsewhere, seen),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let len = at.len();
                at.push_str(&format!("/{index}"));
                elsewhere(item, at, seen)?;
                at.truncate(len);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn check_mark(
    schema: &Map<String, Value>,
    mark: &Value,
    at: &str,
    reach: Reach,
    seen: &mut Vec<(String, String)>,
) -> Result<(), String> {
    let at = if at.is_empty() { "the root" } else { at };
    if reach != Reach::Property {
        return Err(format!(
            "the `{MARK}` at {at} is not on a property reachable from the root through \
             `properties` alone"
        ));
    }
    let Value::String(name) = mark else {
        return Err(format!("the `{MARK}` at {at} is not a string"));
    };
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
    {
        return Err(format!(
            "the `{MARK}` {name:?} at {at} is not an HTTP token (ASCII letters, digits and \
             any of !#$%&'*+-.^_`|~)"
        ));
    }
    let primitive = |t: &Value| matches!(t.as_str(), Some("string" | "integer" | "boolean"));
    let typed = match schema.get("type") {
        Some(Value::Array(types)) => {
            let mut not_null = types.iter().filter(|t| t.as_str() != Some("null"));
            not_null.next().is_some_and(primitive) && not_null.next().is_none()
        }
        Some(one) => primitive(one),
        None => false,
    };
    if !typed {
        return Err(format!(
            "the `{MARK}` {name:?} at {at} marks a property whose `type` is not \"string\", \
             \"integer\" or \"boolean\""
        ));
    }
    let lower = name.to_ascii_lowercase();
    if let Some((_, first)) = seen.iter().find(|(other, _)| *other == lower) {
        return Err(format!(
            "the `{MARK}` {name:?} at {at} names the same header as the one at {first} \
             (header names are case-insensitive)"
        ));
    }
    seen.push((lower, at.to_owned()));
    Ok(())
}

/// The largest integer a header may carry: 2^53 − 1, the largest that
/// an IEEE 754 double holds exactly, as the specification requires.
pub(crate) const SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Keeps every marked integer property within ±[`SAFE_INTEGER`], by
/// tightening (or adding) its `minimum` and `maximum`.
pub(crate) fn bound_integers(schema: &mut Map<String, Value>) {
    for (path, _) in marked(schema) {
        let Some(property) = property_at(schema, &path) else {
            continue;
        };
        let integer = match property.get("type") {
            Some(Value::String(t)) => t == "integer",
            Some(Value::Array(types)) => types.iter().any(|t| t == "integer"),
            _ => false,
        };
        if !integer {
            continue;
        }
        let safe = SAFE_INTEGER as f64;
        let number =
            |property: &Map<String, Value>, key: &str| property.get(key).and_then(Value::as_f64);
        if !number(property, "minimum").is_some_and(|have| have >= -safe) {
            property.insert("minimum".into(), Value::from(-SAFE_INTEGER));
        }
        if !number(property, "maximum").is_some_and(|have| have <= safe) {
            property.insert("maximum".into(), Value::from(SAFE_INTEGER));
        }
    }
}

/// The arguments a tool's input schema marks with `x-mcp-header`: the
/// path of `properties` keys to each, and its header's name part.
pub(crate) fn marked(schema: &Map<String, Value>) -> Vec<(Vec<String>, String)> {
    fn walk(
        schema: &Map<String, Value>,
        path: &mut Vec<String>,
        found: &mut Vec<(Vec<String>, String)>,
    ) {
        let Some(Value::Object(properties)) = schema.get("properties") else {
            return;
        };
        for (key, property) in properties {
            let Value::Object(property) = property else {
                continue;
            };
            path.push(key.clone());
            if let Some(Value::String(header)) = property.get("x-mcp-header") {
                found.push((path.clone(), header.clone()));
            }
            walk(property, path, found);
            path.pop();
        }
    }
    let mut found = Vec::new();
    walk(schema, &mut Vec::new(), &mut found);
    found
}

/// The property at `path` (a chain of `properties` keys), as [`marked`]
/// gives it.
fn property_at<'a>(
    schema: &'a mut Map<String, Value>,
    path: &[String],
) -> Option<&'a mut Map<String, Value>> {
    path.iter().try_fold(schema, |at, key| {
        match at.get_mut("properties")?.get_mut(key)? {
            Value::Object(property) => Some(property),
            _ => None,
        }
    })
}

/// Removes every `x-mcp-header` mark from `schema`: what a server does
/// with a tool it serves for another (a mounted upstream) whose marks
/// break the rules, so that clients keep the tool instead of dropping it.
pub(crate) fn strip(schema: &mut Map<String, Value>) {
    schema.shift_remove(MARK);
    for (key, value) in schema.iter_mut() {
        if !DATA.contains(&key.as_str()) {
            strip_within(value);
        }
    }
}

fn strip_within(value: &mut Value) {
    match value {
        Value::Object(map) => strip(map),
        Value::Array(items) => items.iter_mut().for_each(strip_within),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn checked(schema: Value) -> Result<(), String> {
        check(schema.as_object().unwrap())
    }

    #[test]
    fn marks_on_reachable_primitive_properties_pass() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "limit": {"type": ["integer", "null"], "x-mcp-header": "Limit"},
                "where": {
                    "type": "object",
                    "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}}
                },
                "choice": {"enum": [{"x-mcp-header": "data, not a mark"}]}
            }
        });
        assert_eq!(checked(schema), Ok(()));
    }

    #[test]
    fn marks_that_break_the_rules_are_refused() {
        let one = |property: Value| {
            checked(json!({"type": "object", "properties": {"p": property}})).unwrap_err()
        };
        assert!(one(json!({"type": "string", "x-mcp-header": ""})).contains("HTTP token"));
        assert!(one(json!({"type": "string", "x-mcp-header": "a b"})).contains("HTTP token"));
        assert!(one(json!({"type": "string", "x-mcp-header": 7})).contains("not a string"));
        assert!(one(json!({"type": "number", "x-mcp-header": "N"})).contains("`type`"));
        assert!(one(json!({"type": "array", "x-mcp-header": "N"})).contains("`type`"));
        assert!(one(json!({"x-mcp-header": "N"})).contains("`type`"));
        let under_items = one(json!({
            "type": "array",
            "items": {"type": "string", "x-mcp-header": "Item"}
        }));
        assert!(under_items.contains("/properties/p/items"), "{under_items}");
        let under_any_of = checked(json!({
            "type": "object",
            "anyOf": [{"properties": {"q": {"type": "string", "x-mcp-header": "Q"}}}]
        }))
        .unwrap_err();
        assert!(
            under_any_of.contains("/anyOf/0/properties/q"),
            "{under_any_of}"
        );
        let in_defs = checked(json!({
            "type": "object",
            "$defs": {"d": {"type": "string", "x-mcp-header": "D"}}
        }));
        assert!(in_defs.is_err());
        let on_root = checked(json!({"type": "object", "x-mcp-header": "Root"})).unwrap_err();
        assert!(on_root.contains("the root"), "{on_root}");
        let twice = checked(json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "x-mcp-header": "Region"},
                "b": {"type": "string", "x-mcp-header": "REGION"}
            }
        }))
        .unwrap_err();
        assert!(twice.contains("/properties/a"), "{twice}");
    }

    #[test]
    fn marked_integers_are_kept_within_the_safe_range() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "text": {"type": "string", "x-mcp-header": "Text"},
                "wide": {"type": "integer", "x-mcp-header": "Wide"},
                "narrow": {"type": ["integer", "null"], "minimum": 0, "maximum": 10, "x-mcp-header": "Narrow"},
                "beyond": {"type": "integer", "minimum": -1e300, "maximum": 18446744073709551615u64, "x-mcp-header": "Beyond"},
                "unmarked": {"type": "integer"}
            }
        });
        bound_integers(schema.as_object_mut().unwrap());
        let safe = json!(SAFE_INTEGER);
        let minus = json!(-SAFE_INTEGER);
        let properties = &schema["properties"];
        assert_eq!(
            (
                &properties["wide"]["minimum"],
                &properties["wide"]["maximum"]
            ),
            (&minus, &safe)
        );
        assert_eq!(
            (
                &properties["narrow"]["minimum"],
                &properties["narrow"]["maximum"]
            ),
            (&json!(0), &json!(10))
        );
        assert_eq!(
            (
                &properties["beyond"]["minimum"],
                &properties["beyond"]["maximum"]
            ),
            (&minus, &safe)
        );
        assert_eq!(properties["unmarked"], json!({"type": "integer"}));
        assert_eq!(
            properties["text"],
            json!({"type": "string", "x-mcp-header": "Text"})
        );
    }

    #[test]
    fn stripping_removes_every_mark_but_leaves_data_alone() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "p": {"type": "number", "x-mcp-header": "P"},
                "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}},
                "choice": {"enum": [{"x-mcp-header": "data, not a mark"}]}
            },
            "anyOf": [{"properties": {"q": {"type": "string", "x-mcp-header": "Q"}}}]
        });
        strip(schema.as_object_mut().unwrap());
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "p": {"type": "number"},
                    "list": {"type": "array", "items": {"type": "string"}},
                    "choice": {"enum": [{"x-mcp-header": "data, not a mark"}]}
                },
                "anyOf": [{"properties": {"q": {"type": "string"}}}]
            })
        );
        assert_eq!(check(schema.as_object().unwrap()), Ok(()));
    }
}
