//! Schema Objects as the JSON Schema 2020-12 clients are sent: local
//! `$ref`s inlined (each component converted once per direction, then
//! cloned), a component met again inside its own expansion kept as
//! `{"$ref": "#/$defs/Name"}` with the component in the tool's root
//! `$defs`, the 3.0 dialect rewritten (`nullable`, boolean
//! `exclusiveMinimum`/`exclusiveMaximum`), OpenAPI-only keywords dropped
//! (`example`, `discriminator`, `xml`, `externalDocs`, `x-*`), `readOnly`
//! properties left out of inputs and `writeOnly` ones out of outputs.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::document::{DIALECT_2020_12, Document, Version, escape};
use crate::schema::{Subschemas, subschemas};

/// Which side of a call a schema describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Direction {
    /// Arguments: `readOnly` properties are left out.
    Input,
    /// Results: `writeOnly` properties are left out.
    Output,
}

/// A converted schema and the recursive components (by pointer) its
/// `#/$defs/..` references need.
#[derive(Clone, Debug)]
pub(crate) struct Piece {
    pub(crate) value: Value,
    pub(crate) deps: BTreeSet<String>,
}

type Key = (Direction, String);

/// The converter of one document, shared by all its operations.
pub(crate) struct Schemas<'d> {
    doc: &'d Document,
    memo: HashMap<Key, Piece>,
    /// Components whose expansion is under way.
    stack: Vec<Key>,
    recursive: HashSet<Key>,
    /// Recursive components: their `$defs` name and converted schema.
    defs: HashMap<Key, Piece>,
    names: HashMap<String, String>,
    taken: HashSet<String>,
}

impl<'d> Schemas<'d> {
    pub(crate) fn new(doc: &'d Document) -> Self {
        Schemas {
            doc,
            memo: HashMap::new(),
            stack: Vec::new(),
            recursive: HashSet::new(),
            defs: HashMap::new(),
            names: HashMap::new(),
            taken: HashSet::new(),
        }
    }

    /// `schema` (found at the pointer `at`) converted for `direction`.
    pub(crate) fn convert(
        &mut self,
        schema: &Value,
        at: &str,
        direction: Direction,
    ) -> Result<Piece, String> {
        let mut deps = BTreeSet::new();
        let value = self.value(schema, at, direction, &mut deps)?;
        Ok(Piece { value, deps })
    }

    /// The root `$defs` that `deps` need, each with what it needs in turn;
    /// `None` when there are none.
    pub(crate) fn defs(&self, deps: &BTreeSet<String>, direction: Direction) -> Option<Value> {
        let mut todo: Vec<&String> = deps.iter().collect();
        let mut seen = BTreeSet::new();
        let mut defs = Map::new();
        while let Some(pointer) = todo.pop() {
            if !seen.insert(pointer.clone()) {
                continue;
            }
            let Some(piece) = self.defs.get(&(direction, pointer.clone())) else {
                continue;
            };
            defs.insert(self.names[pointer].clone(), piece.value.clone());
            todo.extend(piece.deps.iter());
        }
        (!defs.is_empty()).then(|| {
            defs.sort_keys();
            Value::Object(defs)
        })
    }

    /// The document pointer of the recursive component kept as
    /// `#/$defs/{name}`.
    pub(crate) fn origin(&self, name: &str) -> Option<&str> {
        self.names
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(pointer, _)| pointer.as_str())
    }

    fn value(
        &mut self,
        schema: &Value,
        at: &str,
        direction: Direction,
        deps: &mut BTreeSet<String>,
    ) -> Result<Value, String> {
        match schema {
            Value::Bool(_) if self.doc.version == Version::V31 => Ok(schema.clone()),
            Value::Object(map) => match map.get("$ref") {
                Some(Value::String(reference)) => {
                    let target = self.reference(reference, at, direction, deps)?;
                    self.siblings(target, map, at, direction, deps)
                }
                Some(other) => Err(format!("the `$ref` at {at} is {other}, not a string")),
                None => self.object(map, at, direction, deps),
            },
            other => Err(format!(
                "the schema at {at} is {other}, not a schema object"
            )),
        }
    }

    fn reference(
        &mut self,
        reference: &str,
        at: &str,
        direction: Direction,
        deps: &mut BTreeSet<String>,
    ) -> Result<Value, String> {
        let key = (direction, reference.to_owned());
        if let Some(piece) = self.memo.get(&key) {
            deps.extend(piece.deps.iter().cloned());
            return Ok(piece.value.clone());
        }
        if self.stack.contains(&key) {
            self.recursive.insert(key);
            deps.insert(reference.to_owned());
            return Ok(json!({ "$ref": format!("#/$defs/{}", self.name(reference)) }));
        }
        let target = self.doc.resolve(reference, at)?;
        self.stack.push(key.clone());
        let mut own = BTreeSet::new();
        let converted = self.value(target, reference, direction, &mut own);
        self.stack.pop();
        let converted = converted?;
        let piece = if self.recursive.contains(&key) {
            self.defs.insert(
                key.clone(),
                Piece {
                    value: converted,
                    deps: own,
                },
            );
            Piece {
                value: json!({ "$ref": format!("#/$defs/{}", self.name(reference)) }),
                deps: BTreeSet::from([reference.to_owned()]),
            }
        } else {
            Piece {
                value: converted,
                deps: own,
            }
        };
        deps.extend(piece.deps.iter().cloned());
        self.memo.insert(key, piece.clone());
        Ok(piece.value)
    }

    /// The `$defs` name of a recursive component: its pointer's last
    /// segment, made safe and unique.
    fn name(&mut self, pointer: &str) -> String {
        if let Some(name) = self.names.get(pointer) {
            return name.clone();
        }
        let last = pointer.rsplit('/').next().unwrap_or("schema");
        let last = last.replace("~1", "/").replace("~0", "~");
        let base: String = last
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let mut name = base.clone();
        let mut n = 2;
        while !self.taken.insert(name.clone()) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.names.insert(pointer.to_owned(), name.clone());
        name
    }

    /// A `$ref`'s target with the keywords beside the `$ref`: under 3.0 only
    /// `description` counts; under 3.1 all do, merged when no keyword
    /// clashes, else both under `allOf`.
    fn siblings(
        &mut self,
        target: Value,
        map: &Map<String, Value>,
        at: &str,
        direction: Direction,
        deps: &mut BTreeSet<String>,
    ) -> Result<Value, String> {
        let mut rest = map.clone();
        rest.remove("$ref");
        if self.doc.version == Version::V30 {
            rest.retain(|k, _| k == "description");
        }
        if rest.is_empty() {
            return Ok(target);
        }
        let Value::Object(rest) = self.object(&rest, at, direction, deps)? else {
            return Ok(target);
        };
        // Annotations beside a `$ref` say something about this use of it.
        let annotation = |k: &str| {
            matches!(
                k,
                "description"
                    | "title"
                    | "default"
                    | "examples"
                    | "deprecated"
                    | "readOnly"
                    | "writeOnly"
            )
        };
        match target {
            Value::Object(mut target)
                if rest
                    .keys()
                    .all(|k| annotation(k) || !target.contains_key(k)) =>
            {
                target.extend(rest);
                Ok(Value::Object(target))
            }
            target => {
                let mut both = rest;
                both.insert("allOf".into(), json!([target]));
                Ok(Value::Object(both))
            }
        }
    }

    fn object(
        &mut self,
        map: &Map<String, Value>,
        at: &str,
        direction: Direction,
        deps: &mut BTreeSet<String>,
    ) -> Result<Value, String> {
        let v30 = self.doc.version == Version::V30;
        let mut out = Map::new();
        for (key, value) in map {
            let here = format!("{at}/{}", escape(key));
            match key.as_str() {
                "example" | "discriminator" | "xml" | "externalDocs" => {}
                k if k.starts_with("x-") => {}
                "nullable" if v30 => {}
                "$schema" => {
                    if value.as_str() != Some(DIALECT_2020_12) {
                        return Err(format!(
                            "the schema at {at} declares `$schema` {value}; only JSON Schema \
                             2020-12 ({DIALECT_2020_12}) is read"
                        ));
                    }
                }
                _ => match subschemas(key) {
                    Some(Subschemas::Map) => {
                        let Value::Object(members) = value else {
                            return Err(format!("`{key}` at {at} is not an object"));
                        };
                        let mut converted = Map::new();
                        for (name, sub) in members {
                            let sub_at = format!("{here}/{}", escape(name));
                            converted
                                .insert(name.clone(), self.value(sub, &sub_at, direction, deps)?);
                        }
                        out.insert(key.clone(), Value::Object(converted));
                    }
                    Some(Subschemas::List) => {
                        let Value::Array(list) = value else {
                            return Err(format!("`{key}` at {at} is not an array"));
                        };
                        let mut converted = Vec::with_capacity(list.len());
                        for (i, sub) in list.iter().enumerate() {
                            converted.push(self.value(
                                sub,
                                &format!("{here}/{i}"),
                                direction,
                                deps,
                            )?);
                        }
                        out.insert(key.clone(), Value::Array(converted));
                    }
                    Some(Subschemas::One) if !value.is_boolean() => {
                        let converted = self.value(value, &here, direction, deps)?;
                        out.insert(key.clone(), converted);
                    }
                    _ => {
                        out.insert(key.clone(), value.clone());
                    }
                },
            }
        }
        if v30 {
            exclusive_bounds(&mut out);
        }
        drop_hidden(&mut out, direction);
        if v30 && map.get("nullable") == Some(&Value::Bool(true)) {
            return Ok(nullable(out));
        }
        Ok(Value::Object(out))
    }
}

/// 3.0's boolean `exclusiveMinimum` / `exclusiveMaximum` beside
/// `minimum` / `maximum` as 2020-12's numbers.
fn exclusive_bounds(schema: &mut Map<String, Value>) {
    for (exclusive, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        match schema.get(exclusive) {
            Some(Value::Bool(true)) => match schema.remove(bound) {
                Some(limit) => {
                    schema.insert(exclusive.into(), limit);
                }
                None => {
                    schema.remove(exclusive);
                }
            },
            Some(Value::Bool(false)) => {
                schema.remove(exclusive);
            }
            _ => {}
        }
    }
}

/// 3.0's `nullable: true`: `null` added to `type` (and to `enum`), or the
/// schema made one branch of an `anyOf` with `{"type": "null"}`.
fn nullable(mut schema: Map<String, Value>) -> Value {
    if let Some(Value::Array(values)) = schema.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    match schema.get_mut("type") {
        Some(Value::String(kind)) => {
            let kind = std::mem::take(kind);
            schema.insert("type".into(), json!([kind, "null"]));
            Value::Object(schema)
        }
        Some(Value::Array(kinds)) => {
            if !kinds.contains(&json!("null")) {
                kinds.push(json!("null"));
            }
            Value::Object(schema)
        }
        _ => {
            // The annotations stay outside, where clients read them.
            let mut outer = Map::new();
            for key in ["title", "description", "default", "readOnly", "writeOnly"] {
                if let Some(value) = schema.remove(key) {
                    outer.insert(key.into(), value);
                }
            }
            outer.insert(
                "anyOf".into(),
                json!([Value::Object(schema), {"type": "null"}]),
            );
            Value::Object(outer)
        }
    }
}

/// Leaves out the properties a direction never carries: `readOnly` ones
/// from inputs, `writeOnly` ones from outputs (and from `required`).
fn drop_hidden(schema: &mut Map<String, Value>, direction: Direction) {
    let flag = match direction {
        Direction::Input => "readOnly",
        Direction::Output => "writeOnly",
    };
    let Some(Value::Object(properties)) = schema.get_mut("properties") else {
        return;
    };
    let hidden: Vec<String> = properties
        .iter()
        .filter(|(_, sub)| sub.get(flag) == Some(&Value::Bool(true)))
        .map(|(name, _)| name.clone())
        .collect();
    if hidden.is_empty() {
        return;
    }
    properties.retain(|name, _| !hidden.contains(name));
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|name| !name.as_str().is_some_and(|n| hidden.iter().any(|h| h == n)));
    }
}

/// Whether every value `schema` accepts is a JSON object (`type: object`,
/// or an `allOf` with such a member, or `oneOf`/`anyOf` of such schemas).
pub(crate) fn is_object(schema: &Value) -> bool {
    let kind = |v: &Value| v.get("type") == Some(&json!("object"));
    if kind(schema) {
        return true;
    }
    let all = |key: &str| {
        schema
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(|list| !list.is_empty() && list.iter().all(is_object))
    };
    schema
        .get("allOf")
        .and_then(Value::as_array)
        .is_some_and(|list| list.iter().any(is_object))
        || all("oneOf")
        || all("anyOf")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn doc(version: Version, schemas: Value) -> Document {
        Document {
            root: json!({"components": {"schemas": schemas}}),
            version,
        }
    }

    fn convert(doc: &Document, schema: Value, direction: Direction) -> Result<Value, String> {
        let mut schemas = Schemas::new(doc);
        let piece = schemas.convert(&schema, "#/x", direction)?;
        let mut value = piece.value;
        if let Some(defs) = schemas.defs(&piece.deps, direction) {
            value["$defs"] = defs;
        }
        Ok(value)
    }

    #[test]
    fn rewrites_the_3_0_dialect() {
        let doc = doc(Version::V30, json!({}));
        let cases = [
            (
                json!({"type": "string", "nullable": true, "enum": ["a"]}),
                json!({"type": ["string", "null"], "enum": ["a", null]}),
            ),
            (
                json!({"allOf": [{"type": "object"}], "nullable": true, "description": "d"}),
                json!({"description": "d", "anyOf": [{"allOf": [{"type": "object"}]}, {"type": "null"}]}),
            ),
            (
                json!({"type": "integer", "minimum": 0, "exclusiveMinimum": true, "maximum": 9, "exclusiveMaximum": false}),
                json!({"type": "integer", "exclusiveMinimum": 0, "maximum": 9}),
            ),
            (
                json!({"type": "object", "example": {}, "x-internal": 1, "discriminator": {}, "xml": {}, "externalDocs": {}}),
                json!({"type": "object"}),
            ),
        ];
        for (given, expected) in cases {
            assert_eq!(convert(&doc, given, Direction::Input).unwrap(), expected);
        }
    }

    #[test]
    fn leaves_read_only_out_of_inputs_and_write_only_out_of_outputs() {
        let doc = doc(Version::V31, json!({}));
        let schema = json!({"type": "object", "required": ["id", "secret", "name"], "properties": {
            "id": {"type": "integer", "readOnly": true},
            "secret": {"type": "string", "writeOnly": true},
            "name": {"type": "string"}
        }});
        let input = convert(&doc, schema.clone(), Direction::Input).unwrap();
        assert_eq!(input["required"], json!(["secret", "name"]));
        assert!(input["properties"].get("id").is_none());
        let output = convert(&doc, schema, Direction::Output).unwrap();
        assert_eq!(output["required"], json!(["id", "name"]));
        assert!(output["properties"].get("secret").is_none());
    }

    #[test]
    fn inlines_references_and_applies_siblings_by_version() {
        let schemas = json!({"Id": {"type": "integer", "description": "an id"}});
        let schema =
            json!({"$ref": "#/components/schemas/Id", "description": "the pet's", "minimum": 1});
        let v30 = doc(Version::V30, schemas.clone());
        assert_eq!(
            convert(&v30, schema.clone(), Direction::Input).unwrap(),
            json!({"type": "integer", "description": "the pet's"})
        );
        let v31 = doc(Version::V31, schemas);
        assert_eq!(
            convert(&v31, schema, Direction::Input).unwrap(),
            json!({"type": "integer", "description": "the pet's", "minimum": 1})
        );
        let clash = json!({"$ref": "#/components/schemas/Id", "type": "string"});
        assert_eq!(
            convert(&v31, clash, Direction::Input).unwrap(),
            json!({"type": "string", "allOf": [{"type": "integer", "description": "an id"}]})
        );
        let plain = json!({"$ref": "#/components/schemas/Id", "minimum": 1});
        assert_eq!(
            convert(&v31, plain, Direction::Input).unwrap(),
            json!({"type": "integer", "description": "an id", "minimum": 1})
        );
    }

    #[test]
    fn keeps_cycles_as_root_defs() {
        let doc = doc(
            Version::V31,
            json!({
                "Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}},
                "A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/B"}}},
                "B": {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"}}}
            }),
        );
        let node = convert(
            &doc,
            json!({"$ref": "#/components/schemas/Node"}),
            Direction::Output,
        )
        .unwrap();
        assert_eq!(
            node,
            json!({"$ref": "#/$defs/Node", "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}})
        );
        let a = convert(
            &doc,
            json!({"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"}}}),
            Direction::Input,
        )
        .unwrap();
        assert_eq!(a["properties"]["a"], json!({"$ref": "#/$defs/A"}));
        assert_eq!(
            a["$defs"]["A"],
            json!({"type": "object", "properties": {"b": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}}})
        );
    }

    #[test]
    fn names_the_pointer_of_a_bad_reference() {
        let doc = doc(Version::V31, json!({}));
        let error = convert(
            &doc,
            json!({"type": "object", "properties": {"p": {"$ref": "#/components/schemas/Gone"}}}),
            Direction::Input,
        )
        .unwrap_err();
        assert_eq!(
            error,
            "the reference #/components/schemas/Gone (at #/x/properties/p) points to nothing in \
             the document"
        );
        let error = convert(
            &doc,
            json!({"items": {"$ref": "https://example.com/pet.json"}}),
            Direction::Input,
        )
        .unwrap_err();
        assert!(error.starts_with("the reference https://example.com/pet.json (at #/x/items) points outside this document"), "{error}");
    }

    #[test]
    fn tells_objects_from_other_schemas() {
        assert!(is_object(&json!({"type": "object"})));
        assert!(is_object(
            &json!({"allOf": [{"type": "object"}, {"required": ["a"]}]})
        ));
        assert!(is_object(
            &json!({"oneOf": [{"type": "object"}, {"type": "object"}]})
        ));
        assert!(!is_object(
            &json!({"oneOf": [{"type": "object"}, {"type": "string"}]})
        ));
        assert!(!is_object(&json!({"type": "array"})));
    }
}
