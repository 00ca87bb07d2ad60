//! Tests of the validator: each keyword, paths, every error collected,
//! `unevaluatedProperties`, recursive `$ref`s, big integers, refused
//! schemas; and a differential property test against the `jsonschema`
//! crate (the validator the runtime used before), comparing verdicts and
//! the argument-error text built from the errors.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::Schema;
use crate::schema::arguments::ArgumentValidator;

fn compile(schema: Value) -> Schema {
    Schema::compile(&schema).unwrap_or_else(|e| panic!("{schema}: {e}"))
}

/// `(path, message)` of every error.
fn errors(schema: Value, value: Value) -> Vec<(String, String)> {
    let schema = compile(schema);
    let verdict = schema.is_valid(&value);
    let errors: Vec<(String, String)> = schema
        .errors(&value)
        .iter()
        .map(|e| (e.path.clone(), e.to_string()))
        .collect();
    assert_eq!(verdict, errors.is_empty(), "{errors:?}");
    errors
}

fn one(schema: Value, value: Value) -> String {
    let errors = errors(schema, value);
    assert_eq!(errors.len(), 1, "{errors:?}");
    errors[0].1.clone()
}

fn refused(schema: Value) -> String {
    match Schema::compile(&schema) {
        Ok(_) => panic!("{schema} was accepted"),
        Err(e) => e,
    }
}

#[test]
fn types() {
    assert_eq!(
        one(json!({"type": "string"}), json!(1)),
        r#"1 is not of type "string""#
    );
    assert_eq!(
        one(json!({"type": ["string", "null"]}), json!(1.5)),
        r#"1.5 is not of types "null", "string""#
    );
    assert_eq!(
        one(json!({"type": ["array"]}), json!({})),
        r#"{} is not of type "array""#
    );
    assert!(errors(json!({"type": "integer"}), json!(3.0)).is_empty());
    assert!(errors(json!({"type": "integer"}), json!(u64::MAX)).is_empty());
    assert_eq!(
        one(json!({"type": "integer"}), json!(2.5)),
        r#"2.5 is not of type "integer""#
    );
    assert!(errors(json!({"type": "number"}), json!(2)).is_empty());
    assert!(errors(json!({"type": ["integer", "boolean"]}), json!(true)).is_empty());
}

#[test]
fn numbers() {
    assert_eq!(
        one(json!({"minimum": 1}), json!(0)),
        "0 is less than the minimum of 1"
    );
    assert_eq!(
        one(json!({"maximum": 7}), json!(9)),
        "9 is greater than the maximum of 7"
    );
    assert_eq!(
        one(json!({"exclusiveMinimum": 1.5}), json!(1.5)),
        "1.5 is less than or equal to the minimum of 1.5"
    );
    assert_eq!(
        one(json!({"exclusiveMaximum": 0}), json!(0.0)),
        "0.0 is greater than or equal to the maximum of 0"
    );
    assert_eq!(
        one(json!({"multipleOf": 2}), json!(3)),
        "3 is not a multiple of 2"
    );
    assert_eq!(
        one(json!({"multipleOf": 0.5}), json!(0.7)),
        "0.7 is not a multiple of 0.5"
    );
    assert!(errors(json!({"multipleOf": 0.1}), json!(0.3)).is_empty());
    assert!(errors(json!({"multipleOf": 2}), json!(4.0)).is_empty());
    // Strings are not numbers: the bounds do not apply.
    assert!(errors(json!({"minimum": 1}), json!("0")).is_empty());
}

#[test]
fn big_integers_are_compared_exactly() {
    let max = json!({"maximum": u64::MAX, "minimum": i64::MIN});
    assert!(errors(max.clone(), json!(u64::MAX)).is_empty());
    assert!(errors(max.clone(), json!(i64::MIN)).is_empty());
    // 18446744073709551616.0 is the f64 next to u64::MAX.
    assert_eq!(
        one(max.clone(), json!(18446744073709551616.0)),
        "1.8446744073709552e+19 is greater than the maximum of 18446744073709551615"
    );
    let below = json!({"maximum": 9007199254740993u64});
    assert!(errors(below.clone(), json!(9007199254740993u64)).is_empty());
    assert_eq!(
        one(below, json!(9007199254740994u64)),
        "9007199254740994 is greater than the maximum of 9007199254740993"
    );
    // i64::MAX as f64 rounds up to 2^63: not above i64::MAX + 1.
    assert_eq!(
        one(json!({"maximum": i64::MAX}), json!(9223372036854775808u64)),
        "9223372036854775808 is greater than the maximum of 9223372036854775807"
    );
    assert!(errors(json!({"minimum": 0.5}), json!(1)).is_empty());
    assert_eq!(
        one(json!({"minimum": 0.5}), json!(0)),
        "0 is less than the minimum of 0.5"
    );
}

#[test]
fn strings() {
    assert_eq!(
        one(json!({"minLength": 2}), json!("A")),
        r#""A" is shorter than 2 characters"#
    );
    assert_eq!(
        one(json!({"minLength": 1}), json!("")),
        r#""" is shorter than 1 character"#
    );
    // Characters, not bytes.
    assert!(errors(json!({"maxLength": 3}), json!("été")).is_empty());
    assert_eq!(
        one(json!({"maxLength": 3}), json!("étés")),
        r#""étés" is longer than 3 characters"#
    );
    assert_eq!(
        one(json!({"pattern": "^[a-z]+$"}), json!("A1")),
        r#""A1" does not match "^[a-z]+$""#
    );
    // Not anchored.
    assert!(errors(json!({"pattern": "b"}), json!("abc")).is_empty());
    // `format` is an annotation.
    assert!(errors(json!({"format": "email"}), json!("x")).is_empty());
}

#[test]
fn enums_and_consts() {
    assert_eq!(
        one(json!({"enum": ["a", "b"]}), json!("c")),
        r#""c" is not one of "a" or "b""#
    );
    assert_eq!(
        one(json!({"enum": [1, 2, 3, 4, 5]}), json!(6)),
        "6 is not one of 1, 2 or 3 other candidates"
    );
    assert!(errors(json!({"enum": [1, {"a": [2]}]}), json!({"a": [2.0]})).is_empty());
    assert_eq!(
        one(json!({"const": "x"}), json!("y")),
        r#""x" was expected"#
    );
    assert!(errors(json!({"const": 1}), json!(1.0)).is_empty());
}

#[test]
fn arrays() {
    let schema = json!({
        "type": "array",
        "prefixItems": [{"type": "string"}],
        "items": {"type": "integer"},
        "minItems": 2,
        "maxItems": 3,
        "uniqueItems": true
    });
    assert!(errors(schema.clone(), json!(["a", 1, 2])).is_empty());
    assert_eq!(
        errors(schema.clone(), json!([1, "b", 1, 1])),
        // In `jsonschema`'s order: assertions on the array first.
        [
            ("".into(), r#"[1,"b",1,1] has more than 3 items"#.into()),
            ("".into(), r#"[1,"b",1,1] has non-unique elements"#.into()),
            ("/1".into(), r#""b" is not of type "integer""#.into()),
            ("/0".into(), r#"1 is not of type "string""#.into()),
        ]
    );
    assert_eq!(one(schema, json!(["a"])), r#"["a"] has less than 2 items"#);
    assert_eq!(
        one(
            json!({"items": false, "prefixItems": [true]}),
            json!([1, 2])
        ),
        "False schema does not allow 2"
    );
}

#[test]
fn objects_and_paths() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a/b": {"type": "integer"},
            "o": {
                "type": "object",
                "properties": {"x": {"type": "boolean"}},
                "required": ["x"],
                "additionalProperties": false
            },
            "m": {"additionalProperties": {"type": "string"}}
        },
        "patternProperties": {"^p": {"minimum": 0}},
        "required": ["a/b"],
        "minProperties": 1,
        "maxProperties": 3
    });
    assert_eq!(
        errors(
            schema.clone(),
            json!({"a/b": "1", "o": {"y": 1}, "m": {"k": 1}, "p": -1})
        ),
        [
            (
                "".into(),
                r#"{"a/b":"1","o":{"y":1},"m":{"k":1},"p":-1} has more than 3 properties"#.into()
            ),
            ("/a~1b".into(), r#""1" is not of type "integer""#.into()),
            (
                "/o".into(),
                "Additional properties are not allowed ('y' was unexpected)".into()
            ),
            ("/o".into(), r#""x" is a required property"#.into()),
            ("/m/k".into(), r#"1 is not of type "string""#.into()),
            ("/p".into(), "-1 is less than the minimum of 0".into()),
        ]
    );
    assert_eq!(
        errors(schema, json!({})),
        [
            ("".into(), "{} has less than 1 property".into()),
            ("".into(), r#""a/b" is a required property"#.into()),
        ]
    );
}

#[test]
fn combinators() {
    let any = json!({"anyOf": [{"type": "string"}, {"minimum": 3}]});
    assert!(errors(any.clone(), json!(5)).is_empty());
    assert_eq!(
        one(any, json!(1)),
        "1 is not valid under any of the schemas listed in the 'anyOf' keyword"
    );
    let one_of = json!({"oneOf": [{"type": "integer"}, {"minimum": 3}]});
    assert!(errors(one_of.clone(), json!(2)).is_empty());
    assert_eq!(
        one(one_of.clone(), json!(4)),
        "4 is valid under more than one of the schemas listed in the 'oneOf' keyword"
    );
    assert_eq!(
        one(one_of, json!(1.5)),
        "1.5 is not valid under any of the schemas listed in the 'oneOf' keyword"
    );
    // `allOf` reports what each branch finds.
    assert_eq!(
        errors(
            json!({"allOf": [{"minimum": 3}, {"multipleOf": 2}]}),
            json!(1)
        ),
        [
            ("".into(), "1 is less than the minimum of 3".into()),
            ("".into(), "1 is not a multiple of 2".into()),
        ]
    );
    assert_eq!(
        one(json!({"not": {"type": "string"}}), json!("s")),
        r#"{"type":"string"} is not allowed for "s""#
    );
}

#[test]
fn unevaluated_properties_see_through_one_of() {
    // As `schema.rs` makes it for a flattened enum.
    let schema = json!({
        "type": "object",
        "properties": {"common": {"type": "string"}},
        "oneOf": [
            {"properties": {"kind": {"const": "a"}, "x": {"type": "integer"}}, "required": ["kind"]},
            {"properties": {"kind": {"const": "b"}, "y": {"type": "integer"}}, "required": ["kind"]}
        ],
        "unevaluatedProperties": false
    });
    assert!(errors(schema.clone(), json!({"common": "c", "kind": "a", "x": 1})).is_empty());
    assert!(errors(schema.clone(), json!({"kind": "b", "y": 1})).is_empty());
    // `y` belongs to the other branch.
    assert_eq!(
        one(schema.clone(), json!({"kind": "a", "y": 1})),
        "Unevaluated properties are not allowed ('y' was unexpected)"
    );
    // No valid branch: nothing they name is evaluated.
    assert_eq!(
        errors(schema, json!({"common": "c", "kind": "c", "z": 1})),
        [
            (
                "".into(),
                r#"{"common":"c","kind":"c","z":1} is not valid under any of the schemas listed in the 'oneOf' keyword"#
                    .into()
            ),
            (
                "".into(),
                "Unevaluated properties are not allowed ('kind', 'z' were unexpected)".into()
            ),
        ]
    );
    // Two valid branches (one of them `true`): `oneOf` fails, and what its
    // branches evaluate does not count (JSON Schema 2020-12 drops the
    // annotations of a failing keyword).
    let schema = json!({
        "oneOf": [true, {"additionalProperties": {"type": "object"}}],
        "unevaluatedProperties": false
    });
    assert_eq!(
        errors(schema, json!({"c": {}})),
        [
            (
                "".into(),
                r#"{"c":{}} is valid under more than one of the schemas listed in the 'oneOf' keyword"#
                    .into()
            ),
            (
                "".into(),
                "Unevaluated properties are not allowed ('c' was unexpected)".into()
            ),
        ]
    );
    // Through `$ref` and `allOf`, and with a schema.
    let schema = json!({
        "$defs": {"base": {"properties": {"a": true}}},
        "allOf": [{"$ref": "#/$defs/base"}, {"patternProperties": {"^p": true}}],
        "unevaluatedProperties": {"type": "integer"}
    });
    assert!(errors(schema.clone(), json!({"a": "s", "pq": "s", "n": 1})).is_empty());
    // A member that the schema rejects is allowed with another value: the
    // schema's errors say which, at the member.
    assert_eq!(
        errors(schema, json!({"a": 1, "n": "s", "m": 2, "o": null})),
        [
            ("/n".into(), r#""s" is not of type "integer""#.into()),
            ("/o".into(), r#"null is not of type "integer""#.into()),
        ]
    );
}

#[test]
fn recursive_references() {
    let schema = json!({
        "type": "object",
        "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#"}}},
        "required": ["value"],
        "additionalProperties": false
    });
    assert!(
        errors(
            schema.clone(),
            json!({"value": 1, "children": [{"value": 2, "children": []}]})
        )
        .is_empty()
    );
    assert_eq!(
        errors(
            schema,
            json!({"value": 1, "children": [{"children": [{"value": "x"}]}]})
        ),
        [
            (
                "/children/0/children/0/value".into(),
                r#""x" is not of type "integer""#.into()
            ),
            (
                "/children/0".into(),
                r#""value" is a required property"#.into()
            ),
        ]
    );
    let defs = json!({
        "$ref": "#/$defs/Tree",
        "$defs": {"Tree": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#/$defs/Tree"}}]}}
    });
    assert!(errors(defs.clone(), json!([1, [2, [3]]])).is_empty());
    assert_eq!(errors(defs, json!([1, ["x"]])).len(), 1);
    // Percent-encoded and escaped pointers.
    let odd = json!({"$defs": {"a b": {"type": "string"}, "c/d": {"type": "integer"}},
                     "properties": {"x": {"$ref": "#/$defs/a%20b"}, "y": {"$ref": "#/$defs/c~1d"}}});
    assert_eq!(errors(odd, json!({"x": 1, "y": "s"})).len(), 2);
}

#[test]
fn unsupported_and_invalid_schemas_are_refused_with_their_location() {
    for (schema, expected) in [
        (
            json!({"properties": {"a": {"if": {}}}}),
            "`if` (at `/properties/a/if`)",
        ),
        (
            json!({"$dynamicRef": "#x"}),
            "`$dynamicRef` (at `/$dynamicRef`)",
        ),
        (json!({"dependentSchemas": {}}), "`dependentSchemas`"),
        (
            json!({"items": {"unevaluatedItems": false}}),
            "`/items/unevaluatedItems`",
        ),
        (json!({"contains": {}}), "`contains`"),
        (json!({"propertyNames": {}}), "`propertyNames`"),
        (json!({"$defs": {"x": {"then": {}}}}), "`/$defs/x/then`"),
    ] {
        let error = refused(schema);
        assert!(error.contains(expected), "{error}");
        assert!(error.contains("not supported"), "{error}");
    }
    for (schema, expected) in [
        (json!({"$ref": "other.json#/x"}), "`/$ref`"),
        (json!({"$ref": "#/$defs/missing"}), "points to nothing"),
        (json!({"$ref": "#anchor"}), "not supported"),
        (json!({"pattern": "(["}), "not a valid regular expression"),
        (
            json!({"patternProperties": {"*": {}}}),
            "not a valid regular expression",
        ),
        (json!({"minimum": "one"}), "`/minimum` must be a number"),
        (json!({"minLength": -1}), "non-negative integer"),
        (json!({"type": "text"}), "not a type"),
        (
            json!({"properties": {"a": 1}}),
            "`/properties/a` must be a schema",
        ),
        (json!({"required": "a"}), "array of strings"),
        (json!({"items": [{}]}), "prefixItems"),
        (json!({"anyOf": []}), "non-empty"),
        (json!({"multipleOf": 0}), "greater than 0"),
        (json!({"$ref": "#"}), "refers back to itself"),
        (
            json!({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}]}}}),
            "refers back to itself",
        ),
    ] {
        let error = refused(schema);
        assert!(error.contains(expected), "{error}");
    }
    // Members that are not keywords, and annotations, are ignored.
    compile(json!({
        "x-internal": {"if": 1}, "title": "T", "description": "D", "default": 3,
        "examples": [1], "deprecated": false, "readOnly": true, "writeOnly": false,
        "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:x",
        "$comment": "c", "contentMediaType": "text/plain", "contentEncoding": "base64",
        "format": "uint8"
    }));
}

#[test]
fn a_valid_value_needs_no_allocation_for_its_verdict() {
    // Not measured here (no allocator hook in this crate): `is_valid` has
    // no `Vec`, `String` or map on its path apart from `uniqueItems` and
    // objects of more than 128 members under `unevaluatedProperties`. This
    // test documents the split: `errors` is only asked after a `false`.
    let schema = compile(json!({"type": "object", "properties": {"a": {"type": "integer"}}}));
    assert!(schema.is_valid(&json!({"a": 1})));
    assert!(schema.errors(&json!({"a": 1})).is_empty());
}

// ---------------------------------------------------------------------------
// Differential test against `jsonschema`.

/// The argument validation as it was with `jsonschema` (the previous
/// `arguments.rs`), to compare the full text; given the schema without a
/// quirk of `jsonschema` (see [`no_true_branches`]), and with the errors of
/// a schema in `unevaluatedProperties` (see [`Oracle::errors`]).
mod oracle {
    use jsonschema::error::ValidationErrorKind;
    use jsonschema::{ValidationError, ValidatorMap};
    use serde_json::{Map, Value};

    pub struct Oracle {
        validator: jsonschema::Validator,
        /// Every subschema, by `#`-pointer.
        subschemas: ValidatorMap,
        schema: Value,
        names: Vec<String>,
    }

    /// Replaces each `true` in a `oneOf` by `{}`, the same schema.
    ///
    /// For `unevaluatedProperties`, the members that a `oneOf` evaluates
    /// are those its one valid branch evaluates, if exactly one is valid
    /// (the rule of `jsonschema` and of the validator; JSON Schema 2020-12
    /// drops the annotations of a keyword that fails, as `oneOf` does with
    /// two valid branches). But `jsonschema` 0.60 leaves boolean branches
    /// out when it counts the valid ones: with `"oneOf": [true, X]` and
    /// both valid, it takes what `X` evaluates, and does not report members
    /// that the validator (and `jsonschema` itself, given `{}` for `true`)
    /// reports as unevaluated. Verdicts are the same either way (the
    /// `oneOf` fails); only the list of errors differs.
    fn no_true_branches(schema: &mut Value) {
        let Value::Object(map) = schema else { return };
        for (keyword, value) in map.iter_mut() {
            match (keyword.as_str(), value) {
                ("properties" | "patternProperties" | "$defs", Value::Object(subs)) => {
                    subs.values_mut().for_each(no_true_branches);
                }
                ("allOf" | "anyOf" | "oneOf" | "prefixItems", Value::Array(list)) => {
                    for sub in list {
                        if keyword == "oneOf" && *sub == Value::Bool(true) {
                            *sub = Value::Object(Map::new());
                        }
                        no_true_branches(sub);
                    }
                }
                // Not under `not`: its error shows its schema as written
                // (and it reports nothing from inside, where the quirk
                // would show).
                ("items" | "additionalProperties" | "unevaluatedProperties", sub) => {
                    no_true_branches(sub);
                }
                _ => {}
            }
        }
    }

    fn escape(name: &str) -> String {
        name.replace('~', "~0").replace('/', "~1")
    }

    /// `valid`: `None` if the tool takes no arguments.
    fn unknown_arguments(unexpected: &[String], valid: Option<&[String]>) -> String {
        let listed = unexpected
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let noun = if unexpected.len() == 1 { "" } else { "s" };
        match valid {
            None => format!("unknown argument{noun} {listed} (this tool takes no arguments)"),
            Some([]) => format!("unknown argument{noun} {listed}"),
            Some(names) => format!(
                "unknown argument{noun} {listed} (valid arguments: {})",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    impl Oracle {
        pub fn new(schema: &Map<String, Value>) -> Result<Self, String> {
            let mut schema = Value::Object(schema.clone());
            no_true_branches(&mut schema);
            let options = jsonschema::options().with_draft(jsonschema::Draft::Draft202012);
            let validator = options.build(&schema).map_err(|e| e.to_string())?;
            let subschemas = options.build_map(&schema).map_err(|e| e.to_string())?;
            let names = schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            Ok(Oracle {
                validator,
                subschemas,
                schema,
                names,
            })
        }

        pub fn is_valid(&self, value: &Value) -> bool {
            self.validator.is_valid(value)
        }

        /// The errors of `jsonschema`, as `(instance path, error)`, except
        /// that members that a schema in `unevaluatedProperties` rejects
        /// get the errors of that schema, at their path (as `jsonschema`
        /// does for `additionalProperties`), rather than one error naming
        /// them "unexpected": they are allowed, with another value. The
        /// third member is, for `unevaluatedProperties`, its location.
        fn errors<'v>(&'v self, value: &'v Value) -> Vec<(String, ValidationError<'v>, String)> {
            let mut out = Vec::new();
            self.collect(&self.validator, "", value, "", &mut out);
            out
        }

        fn collect<'v>(
            &'v self,
            validator: &'v jsonschema::Validator,
            schema: &str,
            value: &'v Value,
            base: &str,
            out: &mut Vec<(String, ValidationError<'v>, String)>,
        ) {
            for error in validator.iter_errors(value) {
                let local = error.instance_path().as_str().to_owned();
                let path = format!("{base}{local}");
                let keyword = match error.kind() {
                    ValidationErrorKind::UnevaluatedProperties { .. } => {
                        self.location(schema, error.evaluation_path().as_str())
                    }
                    _ => String::new(),
                };
                let rejected = match error.kind() {
                    ValidationErrorKind::UnevaluatedProperties { unexpected }
                        if self.schema.pointer(&keyword) != Some(&Value::Bool(false)) =>
                    {
                        unexpected.clone()
                    }
                    _ => {
                        out.push((path, error, keyword));
                        continue;
                    }
                };
                let subschema = self
                    .subschemas
                    .get(&format!("#{keyword}"))
                    .unwrap_or_else(|| panic!("no subschema at {keyword}"));
                let object = value
                    .pointer(&local)
                    .and_then(Value::as_object)
                    .expect("the error is about an object");
                for name in rejected {
                    let at = format!("{path}/{}", escape(&name));
                    self.collect(subschema, &keyword, &object[&name], &at, out);
                }
            }
        }

        /// The pointer in the schema of the keyword at `evaluation` (a path
        /// through `$ref`s) from the subschema at `schema`. (The
        /// `schema_path` of an error is relative to the subschema validated
        /// against, unless it went through a `$ref`.)
        fn location(&self, schema: &str, evaluation: &str) -> String {
            let mut at = schema.to_owned();
            for token in evaluation.split('/').skip(1) {
                if token == "$ref" {
                    let reference = self.schema.pointer(&at).and_then(|s| s["$ref"].as_str());
                    at = reference.expect("a local $ref")[1..].to_owned();
                } else {
                    at.push('/');
                    at.push_str(token);
                }
            }
            at
        }

        pub fn validate(&self, tool: &str, arguments: &Value) -> Result<(), String> {
            if self.validator.is_valid(arguments) {
                return Ok(());
            }
            let mut problems: Vec<(usize, String)> = self
                .errors(arguments)
                .iter()
                .map(|(path, error, keyword)| {
                    let path = path.as_str();
                    let kind = error.kind();
                    let text = if path.is_empty()
                        && matches!(kind, ValidationErrorKind::FalseSchema)
                        && error.schema_path().as_str() == "/additionalProperties"
                    {
                        let unexpected: Vec<String> = arguments
                            .as_object()
                            .map(|map| {
                                map.keys()
                                    .filter(|k| !self.names.contains(k))
                                    .cloned()
                                    .collect()
                            })
                            .unwrap_or_default();
                        unknown_arguments(&unexpected, None)
                    } else if let ("", ValidationErrorKind::UnevaluatedProperties { unexpected }) =
                        (path, kind)
                    {
                        let owner = keyword.strip_suffix("/unevaluatedProperties").unwrap();
                        let mut declared = Vec::new();
                        self.declared(owner, arguments, &mut declared);
                        unknown_arguments(unexpected, Some(&declared))
                    } else {
                        self.describe(path, kind, error)
                    };
                    (self.rank(path, kind), text)
                })
                .collect();
            problems.sort_by_key(|(rank, _)| *rank);
            let mut seen = std::collections::HashSet::new();
            problems.retain(|(_, text)| seen.insert(text.clone()));
            let mut text = format!("Invalid arguments for tool `{tool}`:\n");
            for (_, problem) in &problems {
                text.push_str("- ");
                text.push_str(problem);
                text.push('\n');
            }
            text.push_str("Correct the arguments and call the tool again.");
            Err(text)
        }

        fn rank(&self, path: &str, kind: &ValidationErrorKind) -> usize {
            let argument = match (path, kind) {
                ("", ValidationErrorKind::Required { property }) => {
                    property.as_str().map(str::to_owned)
                }
                ("", _) => None,
                _ => path
                    .trim_start_matches('/')
                    .split('/')
                    .next()
                    .map(|segment| segment.replace("~1", "/").replace("~0", "~")),
            };
            argument
                .and_then(|name| self.names.iter().position(|n| *n == name))
                .unwrap_or(self.names.len())
        }

        /// Adds the names that the schema at `at` declares for `value`,
        /// itself and through the subschemas whose annotations count.
        fn declared(&self, at: &str, value: &Value, names: &mut Vec<String>) {
            let Some(Value::Object(schema)) = self.schema.pointer(at) else {
                return;
            };
            if let Some(Value::Object(properties)) = schema.get("properties") {
                for name in properties.keys() {
                    if !names.contains(name) {
                        names.push(name.clone());
                    }
                }
            }
            let valid = |branch: &String| {
                self.subschemas
                    .get(&format!("#{branch}"))
                    .unwrap()
                    .is_valid(value)
            };
            let branches = |keyword: &str| -> Vec<String> {
                let count = schema
                    .get(keyword)
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                (0..count)
                    .map(|i| format!("{at}/{keyword}/{i}"))
                    .filter(valid)
                    .collect()
            };
            for branch in branches("allOf").into_iter().chain(branches("anyOf")) {
                self.declared(&branch, value, names);
            }
            if let [branch] = &branches("oneOf")[..] {
                self.declared(branch, value, names);
            }
            if let Some(Value::String(reference)) = schema.get("$ref") {
                self.declared(&reference[1..], value, names);
            }
        }

        fn describe(
            &self,
            path: &str,
            kind: &ValidationErrorKind,
            error: &dyn std::fmt::Display,
        ) -> String {
            match kind {
                ValidationErrorKind::Required { property } => {
                    let name = property
                        .as_str()
                        .map_or_else(|| property.to_string(), str::to_owned);
                    if path.is_empty() {
                        format!("`/{name}`: missing required argument `{name}`")
                    } else {
                        format!("`{path}/{name}`: missing required property `{name}`")
                    }
                }
                ValidationErrorKind::AdditionalProperties { unexpected }
                | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                    if path.is_empty() {
                        unknown_arguments(unexpected, Some(&self.names))
                    } else {
                        let listed = unexpected
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ");
                        format!(
                            "`{path}`: unknown propert{} {listed}",
                            if unexpected.len() == 1 { "y" } else { "ies" }
                        )
                    }
                }
                _ => {
                    let at = if path.is_empty() { "arguments" } else { path };
                    format!("`{at}`: {error}")
                }
            }
        }
    }
}

const NAMES: [&str; 5] = ["a", "b", "c", "d/e", "p1"];

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(&NAMES[..]).prop_map(str::to_owned)
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-4i64..8).prop_map(Value::from),
        prop::sample::select(vec![0.5, 1.5, 2.0, -0.5, 0.1, 0.3, 3.0, 1e20]).prop_map(Value::from),
        prop::sample::select(vec![
            json!(u64::MAX),
            json!(i64::MIN),
            json!(i64::MAX),
            json!(9007199254740993u64),
            json!(18446744073709551616.0),
        ]),
    ]
}

fn instance() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        number(),
        prop::sample::select(vec!["", "a", "ab", "A1", "été", "p", "xyz1", "abcdef"])
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec((name(), inner), 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

fn type_name() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "null", "boolean", "integer", "number", "string", "array", "object",
    ])
}

/// A schema built from the supported keywords, members in random order.
fn schema(defs: bool) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        1 => any::<bool>().prop_map(Value::from),
        6 => keywords(Vec::new()).prop_map(Value::Object),
    ];
    leaf.prop_recursive(3, 20, 3, move |inner| {
        let sub = prop_oneof![
            4 => inner.clone(),
            1 => if defs {
                prop::sample::select(vec!["#/$defs/D", "#"])
                    .prop_map(|r| json!({"$ref": r}))
                    .boxed()
            } else {
                inner.clone().boxed()
            },
        ];
        let applicators = prop::collection::vec(
            prop_oneof![
                prop::collection::vec((name(), sub.clone()), 1..4).prop_map(|p| (
                    "properties".to_owned(),
                    Value::Object(p.into_iter().collect())
                )),
                sub.clone()
                    .prop_map(|s| ("additionalProperties".to_owned(), s)),
                Just(("additionalProperties".to_owned(), json!(false))),
                sub.clone()
                    .prop_map(|s| ("patternProperties".to_owned(), json!({"^p": s}))),
                sub.clone().prop_map(|s| ("items".to_owned(), s)),
                prop::collection::vec(sub.clone(), 1..3)
                    .prop_map(|l| ("prefixItems".to_owned(), Value::from(l))),
                prop::collection::vec(sub.clone(), 1..3)
                    .prop_map(|l| ("allOf".to_owned(), Value::from(l))),
                prop::collection::vec(sub.clone(), 1..3)
                    .prop_map(|l| ("anyOf".to_owned(), Value::from(l))),
                prop::collection::vec(sub.clone(), 1..3)
                    .prop_map(|l| ("oneOf".to_owned(), Value::from(l))),
                sub.clone().prop_map(|s| ("not".to_owned(), s)),
                Just(("unevaluatedProperties".to_owned(), json!(false))),
                sub.prop_map(|s| ("unevaluatedProperties".to_owned(), s)),
            ],
            0..3,
        );
        applicators.prop_flat_map(keywords).prop_map(Value::Object)
    })
}

/// Assertion keywords (and `extra`), shuffled, duplicates dropped.
fn keywords(extra: Vec<(String, Value)>) -> impl Strategy<Value = serde_json::Map<String, Value>> {
    let assertion = prop_oneof![
        type_name().prop_map(|t| ("type".to_owned(), json!(t))),
        prop::collection::btree_set(type_name(), 1..3)
            .prop_map(|t| ("type".to_owned(), json!(t.into_iter().collect::<Vec<_>>()))),
        prop::collection::vec(instance(), 1..5).prop_map(|e| ("enum".to_owned(), Value::from(e))),
        instance().prop_map(|c| ("const".to_owned(), c)),
        (
            prop::sample::select(vec![
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum"
            ]),
            number()
        )
            .prop_map(|(k, n)| (k.to_owned(), n)),
        prop::sample::select(vec![json!(2), json!(3), json!(0.5), json!(0.1), json!(1.5)])
            .prop_map(|m| ("multipleOf".to_owned(), m)),
        (
            prop::sample::select(vec![
                "minLength",
                "maxLength",
                "minItems",
                "maxItems",
                "minProperties",
                "maxProperties"
            ]),
            0u64..4
        )
            .prop_map(|(k, n)| (k.to_owned(), json!(n))),
        prop::sample::select(vec!["^[a-z]+$", "\\d", "b", "^$"])
            .prop_map(|p| ("pattern".to_owned(), json!(p))),
        any::<bool>().prop_map(|u| ("uniqueItems".to_owned(), json!(u))),
        prop::collection::btree_set(name(), 1..4).prop_map(|r| (
            "required".to_owned(),
            json!(r.into_iter().collect::<Vec<_>>())
        )),
        Just(("description".to_owned(), json!("d"))),
    ];
    (prop::collection::vec(assertion, 0..4), Just(extra))
        .prop_flat_map(|(mut list, extra)| {
            list.extend(extra);
            Just(list).prop_shuffle()
        })
        .prop_map(|list| list.into_iter().collect())
}

/// A root schema (an object schema, as tools have), maybe with `$defs`.
fn root_schema() -> impl Strategy<Value = Value> {
    (
        keywords(Vec::new()),
        prop::option::of(schema(false)),
        schema(true),
        any::<bool>(),
    )
        .prop_map(|(mut root, def, main, closed)| {
            if let Value::Object(main) = main {
                for (k, v) in main {
                    root.insert(k, v);
                }
            }
            if let Some(def) = def {
                root.insert("$defs".into(), json!({ "D": def }));
            } else if Value::Object(root.clone())
                .to_string()
                .contains("#/$defs/D")
            {
                root.insert("$defs".into(), json!({"D": {"type": "integer"}}));
            }
            if closed && !root.contains_key("additionalProperties") {
                root.insert("additionalProperties".into(), json!(false));
            }
            Value::Object(root)
        })
}

fn differ(schema: &Value, value: &Value) -> Result<(), TestCaseError> {
    let map = schema.as_object().unwrap();
    let ours = match ArgumentValidator::new(map) {
        Ok(ours) => ours,
        // A loop `jsonschema` would follow forever.
        Err(e) if e.contains("refers back to itself") => return Ok(()),
        Err(e) => return Err(TestCaseError::fail(format!("refused {schema}: {e}"))),
    };
    let oracle = match oracle::Oracle::new(map) {
        Ok(oracle) => oracle,
        Err(e) => {
            return Err(TestCaseError::fail(format!(
                "jsonschema refused {schema}: {e}"
            )));
        }
    };
    prop_assert_eq!(
        Schema::compile(schema).unwrap().is_valid(value),
        oracle.is_valid(value),
        "verdict for {} on {}",
        value,
        schema
    );
    prop_assert_eq!(
        ours.validate("t", value),
        oracle.validate("t", value),
        "text for {} on {}",
        value,
        schema
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(2000)
    ))]

    #[test]
    fn same_verdicts_and_texts_as_jsonschema(
        schema in root_schema(),
        values in prop::collection::vec(instance(), 1..6),
    ) {
        for value in &values {
            differ(&schema, value)?;
        }
    }

    #[test]
    fn same_verdicts_and_texts_on_matching_objects(
        schema in root_schema(),
        members in prop::collection::vec((name(), instance()), 0..5),
    ) {
        differ(&schema, &Value::Object(members.into_iter().collect()))?;
    }
}

/// Recursive schemas with `$ref` loops through values terminate and agree.
#[test]
fn recursive_schemas_agree() {
    let schema = json!({
        "type": "object",
        "properties": {"n": {"$ref": "#/$defs/N"}},
        "$defs": {"N": {"oneOf": [{"type": "integer"}, {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}, "unevaluatedProperties": false}]}},
        "additionalProperties": false
    });
    for value in [
        json!({"n": 1}),
        json!({"n": {"n": {"n": "x"}}}),
        json!({"n": {"m": 1}}),
        json!({"n": {"n": 2}, "z": 1}),
    ] {
        differ(&schema, &value).unwrap();
    }
}

#[test]
fn long_arrays_are_checked_for_duplicates_by_hash() {
    let schema = compile(json!({"uniqueItems": true}));
    let mut items: Vec<Value> = (0..10_000).map(Value::from).collect();
    assert!(schema.is_valid(&Value::from(items.clone())));
    items.push(json!(5000.0));
    assert!(!schema.is_valid(&Value::from(items.clone())));
    let objects: Vec<Value> = (0..100)
        .map(|i| json!({"a": i, "b": [i, {"c": null}]}))
        .chain([json!({"b": [7.0, {"c": null}], "a": 7})])
        .collect();
    assert!(!schema.is_valid(&Value::from(objects)));
    let distinct: Vec<Value> = (0..100).map(|i| json!({"a": i, "b": -i})).collect();
    assert!(schema.is_valid(&Value::from(distinct)));
}
