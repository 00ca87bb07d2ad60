//! Tests of the validator: each keyword, paths, every error collected,
//! `unevaluatedProperties`, `if`/`then`/`else`, `$anchor`s, recursive
//! `$ref`s, big integers, refused schemas. (The comparison with the
//! `jsonschema` crate is in `differential`.)

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
fn if_then_else() {
    let schema = json!({
        "if": {"properties": {"kind": {"const": "n"}}, "required": ["kind"]},
        "then": {"properties": {"v": {"type": "integer"}}, "required": ["v"]},
        "else": {"properties": {"v": {"type": "string"}}}
    });
    assert!(errors(schema.clone(), json!({"kind": "n", "v": 1})).is_empty());
    assert!(errors(schema.clone(), json!({"kind": "s", "v": "x"})).is_empty());
    assert!(errors(schema.clone(), json!({"v": "x"})).is_empty());
    // The branch that applies reports its own errors, with their paths.
    assert_eq!(
        errors(schema.clone(), json!({"kind": "n", "v": "x"})),
        [("/v".into(), r#""x" is not of type "integer""#.into())]
    );
    assert_eq!(
        one(schema.clone(), json!({"kind": "n"})),
        r#""v" is a required property"#
    );
    assert_eq!(
        errors(schema, json!({"kind": "s", "v": 1})),
        [("/v".into(), r#"1 is not of type "string""#.into())]
    );
    // Either branch alone; `then` and `else` without `if` do nothing.
    let then = json!({"if": {"minimum": 0}, "then": {"multipleOf": 2}});
    assert!(errors(then.clone(), json!(-3)).is_empty());
    assert_eq!(one(then, json!(3)), "3 is not a multiple of 2");
    let otherwise = json!({"if": {"minimum": 0}, "else": {"multipleOf": 2}});
    assert!(errors(otherwise.clone(), json!(3)).is_empty());
    assert_eq!(one(otherwise, json!(-3)), "-3 is not a multiple of 2");
    assert!(errors(json!({"if": false}), json!(1)).is_empty());
    assert!(errors(json!({"then": false, "else": false}), json!(1)).is_empty());
    // Boolean branches.
    let booleans = json!({"if": {"type": "string"}, "then": true, "else": false});
    assert!(errors(booleans.clone(), json!("s")).is_empty());
    assert_eq!(one(booleans, json!(1)), "False schema does not allow 1");
    // After `not`, before `unevaluatedProperties`, as `jsonschema` reports.
    assert_eq!(
        errors(
            json!({"else": {"maximum": 0}, "not": {"const": 3}, "if": false, "minimum": 5}),
            json!(3)
        ),
        [
            ("".into(), "3 is less than the minimum of 5".into()),
            ("".into(), "{\"const\":3} is not allowed for 3".into()),
            ("".into(), "3 is greater than the maximum of 0".into()),
        ]
    );
}

#[test]
fn unevaluated_properties_see_through_if_then_else() {
    let schema = json!({
        "type": "object",
        "if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
        "then": {"properties": {"x": {"type": "integer"}}},
        "else": {"properties": {"y": true}},
        "unevaluatedProperties": false
    });
    // `kind` is evaluated by the `if` when it holds, `x` by the `then`.
    assert!(errors(schema.clone(), json!({"kind": "a", "x": 1})).is_empty());
    assert!(errors(schema.clone(), json!({"y": 1})).is_empty());
    assert_eq!(
        one(schema.clone(), json!({"kind": "a", "y": 1})),
        "Unevaluated properties are not allowed ('y' was unexpected)"
    );
    // The `if` fails: what it names is not evaluated, the `else` applies.
    assert_eq!(
        one(schema.clone(), json!({"kind": "b", "x": 1, "y": 2})),
        "Unevaluated properties are not allowed ('kind', 'x' were unexpected)"
    );
    // A `then` that fails still counts what it names (as `jsonschema`
    // has it): its own error says what is wrong with `x`.
    assert_eq!(
        errors(schema.clone(), json!({"kind": "a", "x": "s"})),
        [("/x".into(), r#""s" is not of type "integer""#.into())]
    );
    // An `if` alone evaluates what it names when it holds.
    let alone = json!({
        "if": {"properties": {"a": {"type": "string"}}},
        "unevaluatedProperties": false
    });
    assert!(errors(alone.clone(), json!({"a": "s"})).is_empty());
    assert_eq!(
        one(alone, json!({"a": 1})),
        "Unevaluated properties are not allowed ('a' was unexpected)"
    );
    // The names the applying branches declare are the valid arguments.
    let tool = ArgumentValidator::new(schema.as_object().unwrap()).unwrap();
    assert_eq!(
        tool.validate("t", &json!({"kind": "a", "z": 1}))
            .unwrap_err(),
        "Invalid arguments for tool `t`:\n\
         - unknown argument `z` (valid arguments: `kind`, `x`)\n\
         Correct the arguments and call the tool again."
    );
}

#[test]
fn anchors() {
    let schema = json!({
        "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                              "properties": {"city": {"type": "string"}}}},
        "properties": {
            "home": {"$ref": "#addressDef"},
            "work": {"$ref": "#/$defs/address"},
            "list": {"items": {"$anchor": "item", "type": "integer"}},
            "more": {"$ref": "#item"}
        }
    });
    assert!(errors(schema.clone(), json!({"home": {"city": "c"}, "more": 1})).is_empty());
    assert_eq!(
        errors(
            schema,
            json!({"home": {"city": 1}, "work": {"city": 2}, "list": [3, "x"], "more": "y"})
        ),
        [
            ("/home/city".into(), r#"1 is not of type "string""#.into()),
            ("/work/city".into(), r#"2 is not of type "string""#.into()),
            ("/list/1".into(), r#""x" is not of type "integer""#.into()),
            ("/more".into(), r#""y" is not of type "integer""#.into()),
        ]
    );
    // An anchor at the root, recursively.
    let tree = json!({"$anchor": "node", "properties": {"kids": {"items": {"$ref": "#node"}}},
                      "required": ["v"]});
    assert_eq!(
        one(tree, json!({"v": 1, "kids": [{"kids": []}]})),
        r#""v" is a required property"#
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
        (
            json!({"$defs": {"x": {"if": {"dependentRequired": {}}}}}),
            "`/$defs/x/if/dependentRequired`",
        ),
    ] {
        let error = refused(schema);
        assert!(error.contains(expected), "{error}");
        assert!(error.contains("not supported"), "{error}");
    }
    for (schema, expected) in [
        (json!({"$ref": "other.json#/x"}), "`/$ref`"),
        (json!({"$ref": "#/$defs/missing"}), "points to nothing"),
        (json!({"$ref": "#anchor"}), "names no `$anchor`"),
        (
            json!({"$defs": {"a": {"$anchor": "1a"}}}),
            "`/$defs/a/$anchor`: \"1a\" is not an anchor name",
        ),
        (
            json!({"$anchor": "a", "properties": {"x": {"$anchor": "a"}}}),
            "also defined at `/$anchor`",
        ),
        (
            json!({"if": {"$ref": "#"}, "then": {}}),
            "refers back to itself",
        ),
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
