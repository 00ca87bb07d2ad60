//! A differential property test against the `jsonschema` crate (the
//! validator the runtime used before): random schemas of the supported
//! keywords and random values, comparing verdicts and the argument-error
//! text built from the errors.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::Schema;
use crate::schema::arguments::ArgumentValidator;

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
                (
                    "items"
                    | "additionalProperties"
                    | "unevaluatedProperties"
                    | "if"
                    | "then"
                    | "else",
                    sub,
                ) => {
                    no_true_branches(sub);
                }
                _ => {}
            }
        }
    }

    /// The pointer a generated local `$ref` goes to (`#D` is the
    /// `$anchor` of `/$defs/D`).
    fn target(reference: &str) -> String {
        match reference {
            "#D" => "/$defs/D".to_owned(),
            _ => reference[1..].to_owned(),
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
                    at = target(reference.expect("a local $ref"));
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
            if let Some(condition) = schema.get("if") {
                let at_if = format!("{at}/if");
                if self.subschemas[&format!("#{at_if}")].is_valid(value) {
                    if condition.is_object() {
                        self.declared(&at_if, value, names);
                    }
                    if schema.get("then").is_some_and(Value::is_object) {
                        self.declared(&format!("{at}/then"), value, names);
                    }
                } else if schema.get("else").is_some_and(Value::is_object) {
                    self.declared(&format!("{at}/else"), value, names);
                }
            }
            if let Some(Value::String(reference)) = schema.get("$ref") {
                self.declared(&target(reference), value, names);
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
                prop::sample::select(vec!["#/$defs/D", "#D", "#"])
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
                sub.clone()
                    .prop_map(|s| ("unevaluatedProperties".to_owned(), s)),
            ],
            0..3,
        );
        // `if`, `then` and `else`, each maybe (so also `then` or `else`
        // without `if`, which do nothing).
        let conditional = prop::option::weighted(
            0.3,
            (
                prop::option::of(sub.clone()),
                prop::option::of(sub.clone()),
                prop::option::of(sub),
            ),
        )
        .prop_map(|keywords| {
            let Some((condition, then, otherwise)) = keywords else {
                return Vec::new();
            };
            [("if", condition), ("then", then), ("else", otherwise)]
                .into_iter()
                .filter_map(|(k, s)| Some((k.to_owned(), s?)))
                .collect()
        });
        (applicators, conditional)
            .prop_map(|(mut list, conditional): (Vec<_>, Vec<_>)| {
                list.extend(conditional);
                list
            })
            .prop_flat_map(keywords)
            .prop_map(Value::Object)
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
            // `D`, also reached as `#D` by its `$anchor`.
            let def = match def {
                Some(Value::Object(def)) => Some(Value::Object(def)),
                Some(boolean) => Some(json!({ "allOf": [boolean] })),
                None if Value::Object(root.clone()).to_string().contains("\"#D\"")
                    || Value::Object(root.clone())
                        .to_string()
                        .contains("#/$defs/D") =>
                {
                    Some(json!({"type": "integer"}))
                }
                None => None,
            };
            if let Some(mut def) = def {
                def["$anchor"] = json!("D");
                root.insert("$defs".into(), json!({ "D": def }));
            }
            if closed && !root.contains_key("additionalProperties") {
                root.insert("additionalProperties".into(), json!(false));
            }
            Value::Object(root)
        })
}

/// A subschema naming some of the members (`properties`) besides
/// assertions, as the branches of an `if` do.
fn branch() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec((name(), schema(false)), 0..3),
        schema(false),
    )
        .prop_map(|(properties, rest)| {
            let mut branch = match rest {
                Value::Object(map) => map,
                _ => serde_json::Map::new(),
            };
            if !properties.is_empty() {
                branch.insert(
                    "properties".into(),
                    Value::Object(properties.into_iter().collect()),
                );
            }
            Value::Object(branch)
        })
}

/// A root schema with `if`, `then` and `else` (each maybe) whose branches
/// name members, with `unevaluatedProperties` beside them, or behind an
/// `allOf` or a `$ref`: what each branch evaluates, and when, shows.
fn conditional_root_schema() -> impl Strategy<Value = Value> {
    (
        prop::option::of(branch()),
        prop::option::of(branch()),
        prop::option::of(branch()),
        prop_oneof![Just(json!(false)), schema(false)],
        0..3u8,
        keywords(Vec::new()),
    )
        .prop_map(
            |(condition, then, otherwise, unevaluated, shape, mut root)| {
                let mut conditional = serde_json::Map::new();
                for (keyword, sub) in [("if", condition), ("then", then), ("else", otherwise)] {
                    if let Some(sub) = sub {
                        conditional.insert(keyword.into(), sub);
                    }
                }
                match shape {
                    0 => root.extend(conditional),
                    1 => {
                        root.insert("allOf".into(), json!([conditional]));
                    }
                    _ => {
                        root.insert("$ref".into(), json!("#D"));
                        let mut def = conditional;
                        def.insert("$anchor".into(), json!("D"));
                        root.insert("$defs".into(), json!({ "D": def }));
                    }
                }
                root.insert("unevaluatedProperties".into(), unevaluated);
                Value::Object(root)
            },
        )
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

    #[test]
    fn same_verdicts_and_texts_under_if_then_else(
        schema in conditional_root_schema(),
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
