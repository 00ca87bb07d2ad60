//! Schema generation and the post-processing that makes schemas friendly to
//! real clients: JSON Schema 2020-12, `$ref`s inlined (only recursive types
//! keep `$defs`), no `$schema`, no root `title`, root `type: object`, and for
//! inputs `additionalProperties: false` and optional properties without a
//! `null` type.

use schemars::generate::{Contract, SchemaSettings};
use schemars::{Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use super::{Member, Subschemas, subschemas};

/// The generator for input schemas (what the tool deserializes).
pub(crate) fn input_generator() -> SchemaGenerator {
    generator(Contract::Deserialize)
}

/// The generator for output schemas (what the tool serializes).
pub(crate) fn output_generator() -> SchemaGenerator {
    generator(Contract::Serialize)
}

fn generator(contract: Contract) -> SchemaGenerator {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings.meta_schema = None;
    settings.contract = contract;
    settings.into_generator()
}

/// Finishes a tool's input schema.
#[cfg(test)]
pub(crate) fn finish_input(schema: Schema) -> Result<Map<String, Value>, String> {
    finish_inputs(schema).map(|(published, _)| published)
}

/// The schema a tool's arguments are validated against.
#[cfg(test)]
pub(crate) fn finish_input_for_validation(schema: Schema) -> Result<Map<String, Value>, String> {
    finish_inputs(schema).map(|(_, checked)| checked)
}

/// A schema object.
type Object = Map<String, Value>;

/// Both finished forms of a tool's input schema, from one pass: what
/// clients get, and what arguments are checked against (the same plus the
/// range of every integer type that schemars leaves open: `i32`, `u32`,
/// `i64`, `u64`, `isize`, `usize`, 128-bit, so that a number the parameter
/// cannot hold is reported with its path like any other violation, instead
/// of failing afterwards in deserialization; clients get the schema without
/// these bounds, where `maximum: 18446744073709551615` on every integer
/// would only be noise). The two differ only in those bounds, which need
/// the `format`s that the last step drops.
pub(crate) fn finish_inputs(schema: Schema) -> Result<(Object, Object), String> {
    let mut root = into_object(schema)?;
    clean_root(&mut root);
    // The generated arguments schema has no doc; a root description can only
    // come from a `#[serde(flatten)]`ed type, and the tool's own description
    // is what the model should read.
    root.shift_remove("description");
    match root.member("type") {
        Some(Value::String(t)) if t == "object" => {}
        None if root.has("properties") => {}
        other => {
            return Err(format!(
                "an input schema must describe an object, but this one has type {}",
                other.map_or("(none)".to_owned(), Value::to_string)
            ));
        }
    }
    root.insert("type".into(), json!("object"));
    strip_optional_nulls(&mut root);
    if root
        .member("properties")
        .and_then(Value::as_object)
        .is_some_and(Map::is_empty)
    {
        root.shift_remove("properties");
    }
    if root
        .member("required")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        root.shift_remove("required");
    }
    // With combinators at the root (a flattened enum), properties live in
    // subschemas, which `additionalProperties` does not see.
    let combined = ["allOf", "anyOf", "oneOf"]
        .iter()
        .any(|k| root.contains_key(*k));
    let key = if combined {
        "unevaluatedProperties"
    } else {
        "additionalProperties"
    };
    root.insert(key.into(), Value::Bool(false));
    let mut checked = root.clone();
    bound_integer_formats(&mut checked);
    drop_nonstandard_formats(&mut checked);
    drop_nonstandard_formats(&mut root);
    Ok((root, checked))
}

/// Finishes a tool's output schema. Returns the schema and whether values
/// must be wrapped as `{"result": value}` because the type is not an object.
/// An output schema as listed, and (for a type that is not an object) the
/// type's own schema.
pub(crate) type OutputSchemas = (Map<String, Value>, Option<Map<String, Value>>);

pub(crate) fn finish_output(schema: Schema) -> Result<OutputSchemas, String> {
    let mut root = into_object(schema)?;
    clean_root(&mut root);
    drop_nonstandard_formats(&mut root);
    let is_object = matches!(root.member("type"), Some(Value::String(t)) if t == "object");
    if is_object {
        return Ok((root, None));
    }
    Ok(wrap_output_schema(root))
}

/// The schema of a type that is not an object, as listed to clients before
/// 2026-07-28 (under `result`), and as it is.
pub(crate) fn wrap_output_schema(mut root: Map<String, Value>) -> OutputSchemas {
    // As it is, for the 2026-07-28 era, whose structured content may be
    // any JSON value.
    let bare = root.clone();
    // The type's schema moves to `/properties/result`: references to its
    // root (`#`, from a recursive type) must follow it; `$defs` move to the
    // wrapper's root, so `#/$defs/...` stays as it is.
    rebase_root_refs(&mut root, "#/properties/result");
    let defs = root.shift_remove("$defs");
    let mut wrapper = Map::new();
    wrapper.insert("type".into(), json!("object"));
    wrapper.insert(
        "properties".into(),
        json!({ "result": Value::Object(root) }),
    );
    wrapper.insert("required".into(), json!(["result"]));
    if let Some(defs) = defs {
        wrapper.insert("$defs".into(), defs);
    }
    (wrapper, Some(bare))
}

/// Rewrites every `$ref` that points into the root schema (other than into
/// `$defs`) to point below `base` instead.
fn rebase_root_refs(schema: &mut Map<String, Value>, base: &str) {
    for (key, value) in schema.iter_mut() {
        match (key.as_str(), value) {
            ("$ref", Value::String(target)) => {
                if target == "#" {
                    *target = base.to_owned();
                } else if target.starts_with("#/") && !target.starts_with("#/$defs/") {
                    *target = format!("{base}{}", &target[1..]);
                }
            }
            // Instance values, not subschemas.
            ("const" | "enum" | "default" | "examples", _) => {}
            (_, Value::Object(sub)) => rebase_root_refs(sub, base),
            (_, Value::Array(list)) => {
                for item in list {
                    if let Value::Object(sub) = item {
                        rebase_root_refs(sub, base);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Checks a hand-written input schema (a dynamic tool's) and applies the same
/// cleaning as to generated ones, except that it is not made stricter.
pub(crate) fn check_dynamic_input(schema: &Value) -> Result<Map<String, Value>, String> {
    let Value::Object(root) = schema else {
        return Err("an input schema must be a JSON object".into());
    };
    match root.member("type") {
        Some(Value::String(t)) if t == "object" => Ok(root.clone()),
        _ => Err("an input schema must have `\"type\": \"object\"` at its root".into()),
    }
}

fn into_object(schema: Schema) -> Result<Map<String, Value>, String> {
    match schema.to_value() {
        Value::Object(map) => Ok(map),
        Value::Bool(true) => Ok(Map::new()),
        other => Err(format!("unexpected schema {other}")),
    }
}

fn clean_root(root: &mut Map<String, Value>) {
    root.shift_remove("$schema");
    root.shift_remove("title");
    if root
        .member("$defs")
        .and_then(Value::as_object)
        .is_some_and(Map::is_empty)
    {
        root.shift_remove("$defs");
    }
}

/// The `format` values JSON Schema 2020-12 defines.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Removes schemars' own formats (`uint8`, `int32`, `double`...): they say
/// nothing `minimum`/`maximum` and `type` do not, and validators in clients
/// (Ajv in the TypeScript SDK and the Inspector) warn about every one.
pub(crate) fn drop_nonstandard_formats(schema: &mut Map<String, Value>) {
    if schema
        .member("format")
        .and_then(Value::as_str)
        .is_some_and(|f| !STANDARD_FORMATS.contains(&f))
    {
        schema.shift_remove("format");
    }
    for_each_subschema(schema, &mut |sub| drop_nonstandard_formats(sub));
}

/// Adds the range of the Rust integer type named by schemars' `format`
/// where schemars gives none (it does for 8- and 16-bit types only).
fn bound_integer_formats(schema: &mut Map<String, Value>) {
    let integer = match schema.member("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(types)) => types.iter().any(|t| t == "integer"),
        _ => false,
    };
    let bounds = schema
        .member("format")
        .and_then(Value::as_str)
        .and_then(integer_bounds);
    if let (true, Some((min, max))) = (integer, bounds) {
        schema.entry("minimum").or_insert(min);
        schema.entry("maximum").or_insert(max);
    }
    for_each_subschema(schema, &mut |sub| bound_integer_formats(sub));
}

fn integer_bounds(format: &str) -> Option<(Value, Value)> {
    Some(match format {
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "uint32" => (0.into(), u32::MAX.into()),
        "int64" => (i64::MIN.into(), i64::MAX.into()),
        "uint64" => (0.into(), u64::MAX.into()),
        "int" => ((isize::MIN as i64).into(), (isize::MAX as i64).into()),
        "uint" => (0.into(), (usize::MAX as u64).into()),
        // Arguments pass through serde_json's `Value`, which holds no
        // integer beyond 64 bits: a 128-bit parameter takes what fits.
        "int128" => (i64::MIN.into(), u64::MAX.into()),
        "uint128" => (0.into(), u64::MAX.into()),
        _ => return None,
    })
}

/// Removes `null` from the schemas of properties that are not required, at
/// every level: an absent property already means `None`, and many clients
/// break on `["string", "null"]` unions.
fn strip_optional_nulls(schema: &mut Map<String, Value>) {
    let required: Vec<String> = schema
        .member("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if !required.contains(name)
                && let Value::Object(property) = property
            {
                strip_null(property);
            }
        }
    }
    for_each_subschema(schema, &mut |sub| strip_optional_nulls(sub));
}

fn strip_null(schema: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = schema.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            schema.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if schema.member("default").is_some_and(Value::is_null) {
        schema.shift_remove("default");
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(alternatives)) = schema.get_mut(key) else {
            continue;
        };
        alternatives.retain(|alt| alt != &json!({"type": "null"}));
        if alternatives.len() == 1
            && let Some(Value::Object(only)) = alternatives.pop()
        {
            schema.shift_remove(key);
            // The property's own keys (its description) win over the inner type's.
            for (k, v) in only {
                schema.entry(k).or_insert(v);
            }
        }
    }
}

fn for_each_subschema(
    schema: &mut Map<String, Value>,
    f: &mut impl FnMut(&mut Map<String, Value>),
) {
    for (key, value) in schema.iter_mut() {
        match (subschemas(key), value) {
            (Some(Subschemas::Map), Value::Object(map)) => {
                for sub in map.values_mut() {
                    if let Value::Object(sub) = sub {
                        f(sub);
                    }
                }
            }
            (Some(Subschemas::List), Value::Array(list)) => {
                for sub in list {
                    if let Value::Object(sub) = sub {
                        f(sub);
                    }
                }
            }
            (Some(Subschemas::One), Value::Object(sub)) => f(sub),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(value: Value) -> Schema {
        Schema::try_from(value).unwrap()
    }

    #[test]
    fn optional_nulls_are_stripped_at_every_level() {
        let input = schema(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "properties": {
                "a": {"type": ["integer", "null"], "default": null},
                "b": {"anyOf": [{"type": "object", "properties": {
                        "x": {"type": ["string", "null"]},
                        "y": {"type": ["string", "null"]}
                     }, "required": ["y"]}, {"type": "null"}],
                      "description": "B"},
                "c": {"enum": ["p", "q", null]},
                "d": {"type": ["string", "null"]}
            },
            "required": ["d"]
        }));
        let out = finish_input(input).unwrap();
        assert_eq!(
            Value::Object(out),
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "integer"},
                    "b": {"type": "object", "description": "B", "properties": {
                        "x": {"type": "string"},
                        "y": {"type": ["string", "null"]}
                    }, "required": ["y"]},
                    "c": {"enum": ["p", "q"]},
                    "d": {"type": ["string", "null"]}
                },
                "required": ["d"],
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn only_standard_formats_are_kept() {
        let out = finish_input(schema(json!({
            "type": "object",
            "properties": {
                "n": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                "when": {"type": "string", "format": "date-time"},
                "list": {"type": "array", "items": {"type": "number", "format": "double"}}
            }
        })))
        .unwrap();
        assert_eq!(
            Value::Object(out),
            json!({
                "type": "object",
                "properties": {
                    "n": {"type": "integer", "minimum": 0, "maximum": 255},
                    "when": {"type": "string", "format": "date-time"},
                    "list": {"type": "array", "items": {"type": "number"}}
                },
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn integers_are_bounded_by_their_type_for_validation_only() {
        let raw = schema(json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "format": "uint32", "minimum": 0},
                "b": {"type": ["integer", "null"], "format": "int64"},
                "c": {"type": "array", "items": {"type": "integer", "format": "uint64", "minimum": 5}},
                "d": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                "e": {"type": "number", "format": "double"}
            },
            "required": ["a", "c", "d", "e"]
        }));
        let published = finish_input(raw.clone()).unwrap();
        assert_eq!(
            published["properties"]["a"],
            json!({"type": "integer", "minimum": 0})
        );
        assert_eq!(published["properties"]["b"], json!({"type": "integer"}));
        let checked = finish_input_for_validation(raw).unwrap();
        assert_eq!(
            checked["properties"]["a"],
            json!({"type": "integer", "minimum": 0, "maximum": 4294967295u32})
        );
        assert_eq!(
            checked["properties"]["b"],
            json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX})
        );
        assert_eq!(
            checked["properties"]["c"]["items"],
            json!({"type": "integer", "minimum": 5, "maximum": u64::MAX})
        );
        assert_eq!(
            checked["properties"]["d"],
            json!({"type": "integer", "minimum": 0, "maximum": 255})
        );
        assert_eq!(checked["properties"]["e"], json!({"type": "number"}));
    }

    #[test]
    fn empty_input_is_a_closed_object() {
        let out = finish_input(schema(json!({"type": "object", "properties": {}}))).unwrap();
        assert_eq!(
            Value::Object(out),
            json!({"type": "object", "additionalProperties": false})
        );
    }

    #[test]
    fn non_object_input_is_refused() {
        assert!(finish_input(schema(json!({"type": "string"}))).is_err());
    }

    #[test]
    fn non_object_output_is_wrapped_with_its_defs() {
        let (out, wrapped) = finish_output(schema(json!({
            "title": "Array_of_Node",
            "type": "array",
            "items": {"$ref": "#/$defs/Node"},
            "$defs": {"Node": {"type": "object"}}
        })))
        .unwrap();
        assert!(wrapped.is_some());
        assert_eq!(
            Value::Object(out),
            json!({
                "type": "object",
                "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                "required": ["result"],
                "$defs": {"Node": {"type": "object"}}
            })
        );
    }

    #[test]
    fn a_wrapped_recursive_type_still_refers_to_itself() {
        let (out, wrapped) = finish_output(schema(json!({
            "oneOf": [
                {"type": "integer"},
                {"type": "array", "items": {"$ref": "#"}},
                {"type": "object", "properties": {"x": {"$ref": "#/$defs/X"}}}
            ],
            "$defs": {"X": {"type": "array", "items": {"$ref": "#"}}}
        })))
        .unwrap();
        assert!(wrapped.is_some());
        assert_eq!(
            Value::Object(out),
            json!({
                "type": "object",
                "properties": {"result": {"oneOf": [
                    {"type": "integer"},
                    {"type": "array", "items": {"$ref": "#/properties/result"}},
                    {"type": "object", "properties": {"x": {"$ref": "#/$defs/X"}}}
                ]}},
                "required": ["result"],
                "$defs": {"X": {"type": "array", "items": {"$ref": "#/properties/result"}}}
            })
        );
    }

    #[test]
    fn object_output_is_kept() {
        let (out, wrapped) =
            finish_output(schema(json!({"title": "T", "type": "object"}))).unwrap();
        assert!(wrapped.is_none());
        assert_eq!(Value::Object(out), json!({"type": "object"}));
    }
}
