//! Reshaping a tool's published input schema for a
//! [`ToolTransform`](crate::ToolTransform): an argument renamed, hidden
//! with a fixed value, hidden without one, or given another description.
//!
//! Only the root object's own arguments (its `properties`) are reshaped;
//! nested properties are out of reach. A rename follows the name into
//! every root keyword that names arguments (`required`,
//! `dependentRequired`, `dependentSchemas`) and into the same keywords of
//! the root's `allOf`, `anyOf`, `oneOf`, `not`, `if`, `then` and `else`
//! subschemas, which apply to the same object. A hidden argument must be
//! one that nothing but `properties` (and, for a fixed one, `required`)
//! names, so that removing it cannot change what else the schema says.
//!
//! Each refusal is a sentence about the argument, for
//! [`RegistryError::InvalidTransform`](crate::RegistryError::InvalidTransform),
//! which names the tool.

use serde_json::{Map, Value};

use crate::schema::validator::Schema;

/// The root subschemas that constrain the same object as the root.
const SAME_OBJECT: &[&str] = &["allOf", "anyOf", "oneOf", "not", "if", "then", "else"];

/// Root keywords a rename or a hidden argument cannot be followed into.
const OPAQUE: &[&str] = &["$ref", "patternProperties", "propertyNames"];

/// Renames the argument `old` to `new`, keeping its place among the
/// properties.
pub(crate) fn rename_arg(
    schema: &mut Map<String, Value>,
    old: &str,
    new: &str,
) -> Result<(), String> {
    check_reshapable(schema, old)?;
    let properties = properties(schema, old)?;
    if properties.contains_key(new) {
        return Err(format!(
            "it renames the argument `{old}` to `{new}`, which is an argument already; choose \
             another name"
        ));
    }
    let renamed: Map<String, Value> = std::mem::take(properties)
        .into_iter()
        .map(|(key, value)| {
            if key == old {
                (new.to_owned(), value)
            } else {
                (key, value)
            }
        })
        .collect();
    *properties = renamed;
    rename_in(schema, old, new);
    Ok(())
}

/// Renames `old` in the keywords of `schema` that name arguments, and in
/// its same-object subschemas.
fn rename_in(schema: &mut Map<String, Value>, old: &str, new: &str) {
    let swap = |name: &mut Value| {
        if name.as_str() == Some(old) {
            *name = Value::from(new);
        }
    };
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.iter_mut().for_each(swap);
    }
    if let Some(Value::Object(dependent)) = schema.get_mut("dependentRequired") {
        for names in dependent.values_mut() {
            if let Value::Array(names) = names {
                names.iter_mut().for_each(swap);
            }
        }
        rename_key(dependent, old, new);
    }
    if let Some(Value::Object(dependent)) = schema.get_mut("dependentSchemas") {
        rename_key(dependent, old, new);
    }
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        // In a same-object subschema (the root's was renamed already).
        rename_key(properties, old, new);
    }
    for keyword in SAME_OBJECT {
        match schema.get_mut(*keyword) {
            Some(Value::Object(sub)) => rename_in(sub, old, new),
            Some(Value::Array(subs)) => {
                for sub in subs.iter_mut().filter_map(Value::as_object_mut) {
                    rename_in(sub, old, new);
                }
            }
            _ => {}
        }
    }
}

fn rename_key(map: &mut Map<String, Value>, old: &str, new: &str) {
    if map.contains_key(old) && !map.contains_key(new) {
        let renamed: Map<String, Value> = std::mem::take(map)
            .into_iter()
            .map(|(key, value)| {
                if key == old {
                    (new.to_owned(), value)
                } else {
                    (key, value)
                }
            })
            .collect();
        *map = renamed;
    }
}

/// Hides the argument `name` behind the fixed `value`: it leaves the
/// schema (its properties and `required`), after `value` was checked
/// against the argument's own schema.
pub(crate) fn fix_arg(
    schema: &mut Map<String, Value>,
    name: &str,
    value: &Value,
) -> Result<(), String> {
    check_reshapable(schema, name)?;
    check_hideable(schema, name)?;
    let property = properties(schema, name)?
        .get(name)
        .cloned()
        .unwrap_or(Value::Bool(true));
    check_value(schema, name, property, value)?;
    remove(schema, name);
    Ok(())
}

/// Hides the optional argument `name`: it leaves the schema, and the tool
/// is called without it.
pub(crate) fn hide_arg(schema: &mut Map<String, Value>, name: &str) -> Result<(), String> {
    check_reshapable(schema, name)?;
    properties(schema, name)?;
    if names_in(schema.get("required")).any(|n| n == name) {
        return Err(format!(
            "it hides the argument `{name}`, which the tool requires; give it a value with \
             `.fix_arg(\"{name}\", value)` instead"
        ));
    }
    check_hideable(schema, name)?;
    remove(schema, name);
    Ok(())
}

/// Sets the description of the argument `name`.
pub(crate) fn describe_arg(
    schema: &mut Map<String, Value>,
    name: &str,
    text: &str,
) -> Result<(), String> {
    match properties(schema, name)?.get_mut(name) {
        Some(Value::Object(property)) => {
            property.insert("description".to_owned(), Value::from(text));
            Ok(())
        }
        _ => Err(format!(
            "it describes the argument `{name}`, whose schema is not an object (`true` or \
             `false`); describe another argument, or none"
        )),
    }
}

/// The root `properties`, if `name` is one of them.
fn properties<'a>(
    schema: &'a mut Map<String, Value>,
    name: &str,
) -> Result<&'a mut Map<String, Value>, String> {
    let known: Vec<String> = match schema.get("properties") {
        Some(Value::Object(properties)) if properties.contains_key(name) => Vec::new(),
        Some(Value::Object(properties)) => properties.keys().map(|k| format!("`{k}`")).collect(),
        _ => Vec::new(),
    };
    match schema.get_mut("properties") {
        Some(Value::Object(properties)) if properties.contains_key(name) => Ok(properties),
        _ if known.is_empty() => Err(format!(
            "it names the argument `{name}`, but the tool takes no arguments; remove it"
        )),
        _ => Err(format!(
            "it names the argument `{name}`, but the tool has no such argument; use one of \
             {}",
            known.join(", ")
        )),
    }
}

/// Refuses a schema whose arguments are not all in its root `properties`.
fn check_reshapable(schema: &Map<String, Value>, name: &str) -> Result<(), String> {
    match OPAQUE.iter().find(|keyword| schema.contains_key(**keyword)) {
        Some(keyword) => Err(format!(
            "it reshapes the argument `{name}`, but the tool's input schema has a root \
             `{keyword}`, which a transform cannot follow; leave its arguments as they are"
        )),
        None => Ok(()),
    }
}

/// Refuses hiding an argument that another keyword names: what the
/// schema says about it would change meaning.
fn check_hideable(schema: &Map<String, Value>, name: &str) -> Result<(), String> {
    let named_by = |sub: &Map<String, Value>| -> Option<&'static str> {
        if let Some(Value::Object(dependent)) = sub.get("dependentRequired")
            && (dependent.contains_key(name)
                || dependent
                    .values()
                    .any(|v| names_in(Some(v)).any(|n| n == name)))
        {
            return Some("dependentRequired");
        }
        if let Some(Value::Object(dependent)) = sub.get("dependentSchemas")
            && dependent.contains_key(name)
        {
            return Some("dependentSchemas");
        }
        None
    };
    let mut found = named_by(schema);
    for keyword in SAME_OBJECT {
        if found.is_some() {
            break;
        }
        let subs: Vec<&Map<String, Value>> = match schema.get(*keyword) {
            Some(Value::Object(sub)) => vec![sub],
            Some(Value::Array(subs)) => subs.iter().filter_map(Value::as_object).collect(),
            _ => Vec::new(),
        };
        if subs.iter().any(|sub| {
            named_by(sub).is_some()
                || names_in(sub.get("required")).any(|n| n == name)
                || sub
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| p.contains_key(name))
        }) {
            found = Some(keyword);
        }
    }
    match found {
        Some(keyword) => Err(format!(
            "it hides the argument `{name}`, which the input schema's `{keyword}` also names; \
             a transform hides only an argument that nothing else in the schema refers to"
        )),
        None => Ok(()),
    }
}

/// Checks a fixed value against the argument's schema, with the root's
/// `$defs` (and `definitions`) beside it so that its `$ref`s resolve.
fn check_value(
    root: &Map<String, Value>,
    name: &str,
    property: Value,
    value: &Value,
) -> Result<(), String> {
    let mut wrapper = Map::new();
    for keyword in ["$schema", "$defs", "definitions"] {
        if let Some(defs) = root.get(keyword) {
            wrapper.insert(keyword.to_owned(), defs.clone());
        }
    }
    wrapper.insert("type".to_owned(), Value::from("object"));
    wrapper.insert(
        "properties".to_owned(),
        Value::Object(Map::from_iter([(name.to_owned(), property)])),
    );
    let compiled = Schema::compile(&Value::Object(wrapper)).map_err(|reason| {
        format!(
            "it fixes the argument `{name}`, whose schema cannot be checked here ({reason}); \
             hide it with `.hide_arg` if it is optional"
        )
    })?;
    let instance = Value::Object(Map::from_iter([(name.to_owned(), value.clone())]));
    match compiled.errors(&instance).first() {
        None => Ok(()),
        Some(error) => Err(format!(
            "it fixes the argument `{name}` to {value}, which its schema refuses ({error}); \
             give a value the argument accepts"
        )),
    }
}

/// Removes the argument `name` from the root's properties and `required`.
fn remove(schema: &mut Map<String, Value>, name: &str) {
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.shift_remove(name);
    }
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|n| n.as_str() != Some(name));
        if required.is_empty() {
            schema.remove("required");
        }
    }
}

/// The strings of a `required`-like array.
fn names_in(value: Option<&Value>) -> impl Iterator<Item = &str> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    fn sum() -> Map<String, Value> {
        schema(json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "First."},
                "b": {"type": "integer", "minimum": 0, "default": 2, "x-mcp-header": "B"},
                "c": {"type": "string"}
            },
            "required": ["a", "b"],
            "dependentRequired": {"c": ["a"]},
            "allOf": [{"required": ["a"]}],
            "additionalProperties": false
        }))
    }

    #[test]
    fn a_rename_keeps_the_place_and_follows_the_name() {
        let mut s = sum();
        rename_arg(&mut s, "a", "first").unwrap();
        let keys: Vec<&String> = s["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["first", "b", "c"]);
        assert_eq!(s["properties"]["first"]["description"], "First.");
        assert_eq!(s["required"], json!(["first", "b"]));
        assert_eq!(s["dependentRequired"], json!({"c": ["first"]}));
        assert_eq!(s["allOf"], json!([{"required": ["first"]}]));

        let mut s = sum();
        rename_arg(&mut s, "c", "comment").unwrap();
        assert_eq!(s["dependentRequired"], json!({"comment": ["a"]}));
    }

    #[test]
    fn a_renamed_argument_keeps_its_default_and_header_mark() {
        let mut s = sum();
        rename_arg(&mut s, "b", "second").unwrap();
        assert_eq!(s["properties"]["second"]["default"], 2);
        assert_eq!(s["properties"]["second"]["x-mcp-header"], "B");
        assert!(crate::schema::headers::check(&s).is_ok());
    }

    #[test]
    fn renames_that_cannot_work_are_refused() {
        let why = rename_arg(&mut sum(), "z", "y").unwrap_err();
        assert!(
            why.contains("no such argument; use one of `a`, `b`, `c`"),
            "{why}"
        );
        let why = rename_arg(&mut sum(), "a", "b").unwrap_err();
        assert!(
            why.contains("to `b`, which is an argument already"),
            "{why}"
        );
        let mut refs = schema(json!({"$ref": "#/$defs/X", "properties": {"a": {}}}));
        let why = rename_arg(&mut refs, "a", "x").unwrap_err();
        assert!(why.contains("root `$ref`"), "{why}");
        let mut none = schema(json!({"type": "object"}));
        let why = rename_arg(&mut none, "a", "x").unwrap_err();
        assert!(why.contains("takes no arguments"), "{why}");
    }

    #[test]
    fn a_fixed_argument_leaves_the_schema_after_its_value_is_checked() {
        let mut s = schema(json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer", "minimum": 0}},
            "required": ["a", "b"]
        }));
        fix_arg(&mut s, "b", &json!(1)).unwrap();
        assert_eq!(
            Value::Object(s),
            json!({"type": "object", "properties": {"a": {"type": "integer"}},
                   "required": ["a"]})
        );

        let mut s = schema(json!({
            "type": "object",
            "properties": {"b": {"type": "integer", "minimum": 0}},
            "required": ["b"]
        }));
        let why = fix_arg(&mut s, "b", &json!(-1)).unwrap_err();
        assert!(
            why.starts_with("it fixes the argument `b` to -1, which its schema refuses ("),
            "{why}"
        );
        let why = fix_arg(&mut s, "b", &json!("one")).unwrap_err();
        assert!(why.contains("\"one\" is not of type \"integer\""), "{why}");
        fix_arg(&mut s, "b", &json!(3)).unwrap();
        assert!(!s.contains_key("required"));
    }

    #[test]
    fn a_fixed_value_is_checked_through_the_roots_definitions() {
        let mut s = schema(json!({
            "type": "object",
            "properties": {"unit": {"$ref": "#/$defs/Unit"}},
            "$defs": {"Unit": {"enum": ["c", "f"]}}
        }));
        assert!(fix_arg(&mut s.clone(), "unit", &json!("k")).is_err());
        fix_arg(&mut s, "unit", &json!("c")).unwrap();
        assert_eq!(s["properties"], json!({}));
    }

    #[test]
    fn only_optional_arguments_that_nothing_names_are_hidden() {
        let mut s = schema(json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "page": {"type": "integer"}},
            "required": ["a"]
        }));
        let why = hide_arg(&mut s, "a").unwrap_err();
        assert!(
            why.contains("which the tool requires; give it a value with `.fix_arg(\"a\""),
            "{why}"
        );
        hide_arg(&mut s, "page").unwrap();
        assert_eq!(s["properties"], json!({"a": {"type": "integer"}}));

        let why = hide_arg(&mut sum(), "c").unwrap_err();
        assert!(why.contains("`dependentRequired` also names"), "{why}");
        let why = fix_arg(&mut sum(), "a", &json!(1)).unwrap_err();
        assert!(why.contains("`dependentRequired` also names"), "{why}");
        let mut branches = schema(json!({
            "type": "object",
            "properties": {"a": {}, "b": {}},
            "oneOf": [{"required": ["a"]}, {"required": ["b"]}]
        }));
        let why = hide_arg(&mut branches, "a").unwrap_err();
        assert!(why.contains("`oneOf` also names"), "{why}");
    }

    #[test]
    fn a_description_is_set_or_replaced() {
        let mut s = sum();
        describe_arg(&mut s, "a", "The first number.").unwrap();
        describe_arg(&mut s, "c", "A note.").unwrap();
        assert_eq!(s["properties"]["a"]["description"], "The first number.");
        assert_eq!(s["properties"]["c"]["description"], "A note.");
        let mut open = schema(json!({"properties": {"x": true}}));
        assert!(describe_arg(&mut open, "x", "..").is_err());
    }
}
