//! What each keyword of a schema object compiles to, the keywords that are
//! refused, and the order in which a schema's checks run and report.

use regex_lite::Regex;
use serde_json::{Map, Value};

use super::compile::Compiler;
use super::graph::{BoundKind, Check, MANY_PROPERTIES, Node, NodeId, TYPE_NAMES, properties};
use super::pointer::{join, shown};
use crate::schema::Member;

/// The keywords of JSON Schema (any draft) that the validator does not
/// implement: a schema using one is refused.
const UNSUPPORTED: &[&str] = &[
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "propertyNames",
    "additionalItems",
];

fn non_negative(value: &Value, location: &str) -> Result<u64, String> {
    match value {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                return Ok(u);
            }
            match n.as_f64() {
                Some(f) if f >= 0.0 && f.fract() == 0.0 && f < 1.8e19 => Ok(f as u64),
                _ => Err(format!(
                    "{} must be a non-negative integer, not {value}",
                    shown(location)
                )),
            }
        }
        _ => Err(format!(
            "{} must be a non-negative integer, not {value}",
            shown(location)
        )),
    }
}

fn regex(pattern: &str, location: &str) -> Result<Regex, String> {
    Regex::new(pattern).map_err(|e| {
        format!(
            "{}: {pattern:?} is not a valid regular expression: {e}",
            shown(location)
        )
    })
}

impl<'s> Compiler<'s> {
    fn compile_patterns(
        &mut self,
        value: &'s Value,
        location: &str,
    ) -> Result<Vec<(Regex, NodeId)>, String> {
        self.compile_map(value, location)?
            .into_iter()
            .map(|(pattern, node)| Ok((regex(pattern, &join(location, pattern))?, node)))
            .collect()
    }

    pub(super) fn compile_object(
        &mut self,
        map: &'s Map<String, Value>,
        location: &str,
        id: NodeId,
    ) -> Result<Node, String> {
        let mut node = Node::default();
        let additional = map.member("additionalProperties");
        // `additionalProperties` that is `false` or a schema takes
        // `properties` and `patternProperties` into one check (at its place).
        let members = matches!(additional, Some(Value::Bool(false) | Value::Object(_)));
        let has_properties = map.has("properties");
        let has_patterns = map.has("patternProperties");
        let required: Option<Vec<&str>> = match map.member("required") {
            Some(Value::Array(list)) => list.iter().map(Value::as_str).collect(),
            _ => None,
        };
        let small_properties = map
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.len() < MANY_PROPERTIES);
        // Which `required` lists are checked with the members, and where.
        let required_with_members = match &required {
            Some(list)
                if list.len() == 1
                    && matches!(additional, Some(Value::Bool(false)))
                    && has_properties
                    && !has_patterns =>
            {
                Some(list[0].to_owned())
            }
            _ => None,
        };
        let required_with_properties = match &required {
            Some(list)
                if list.len() == 2
                    && has_properties
                    && small_properties
                    && !members
                    && !has_patterns =>
            {
                Some([list[0].to_owned(), list[1].to_owned()])
            }
            _ => None,
        };
        // `type: array` with `items`: `jsonschema` checks the type and the
        // item counts with the items, at the place of `items`.
        let array_shape = matches!(
            map.member("items"),
            Some(Value::Object(_) | Value::Bool(false))
        ) && map.member("type").and_then(Value::as_str) == Some("array")
            && ![
                "prefixItems",
                "additionalItems",
                "contains",
                "unevaluatedItems",
                "uniqueItems",
            ]
            .iter()
            .any(|k| map.has(k))
            && ["minItems", "maxItems"]
                .iter()
                .all(|k| map.member(k).is_none_or(|v| non_negative(v, "").is_ok()));

        for (keyword, value) in map {
            let here = join(location, keyword);
            let at = &here;
            let kw = keyword.as_str();
            if UNSUPPORTED.contains(&kw) {
                return Err(format!(
                    "the keyword `{kw}` (at `{here}`) is not supported by this server's \
                     argument validator, so the arguments could not be checked against it"
                ));
            }
            match kw {
                "type" => {
                    let check = type_check(value, at)?;
                    if !array_shape {
                        node.checks.push(check);
                    }
                }
                "enum" => {
                    if !value.is_array() {
                        return Err(format!("{} must be an array", shown(at)));
                    }
                    node.checks.push(Check::Enum(value.clone()));
                }
                "const" => node.checks.push(Check::Const(value.clone())),
                "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                    if !value.is_number() {
                        return Err(format!("{} must be a number, not {value}", shown(at)));
                    }
                    let kind = match kw {
                        "minimum" => BoundKind::Minimum,
                        "maximum" => BoundKind::Maximum,
                        "exclusiveMinimum" => BoundKind::ExclusiveMinimum,
                        _ => BoundKind::ExclusiveMaximum,
                    };
                    node.checks.push(Check::Bound {
                        kind,
                        limit: value.clone(),
                    });
                }
                "multipleOf" => match value.as_f64() {
                    Some(m) if m > 0.0 => node.checks.push(Check::MultipleOf(m)),
                    _ => {
                        return Err(format!(
                            "{} must be a number greater than 0, not {value}",
                            shown(at)
                        ));
                    }
                },
                "minLength" => node.checks.push(Check::MinLength(non_negative(value, at)?)),
                "maxLength" => node.checks.push(Check::MaxLength(non_negative(value, at)?)),
                "pattern" => {
                    let Value::String(pattern) = value else {
                        return Err(format!("{} must be a string", shown(at)));
                    };
                    node.checks
                        .push(Check::Pattern(regex(pattern, at)?, pattern.clone()));
                }
                "minItems" | "maxItems" => {
                    let n = non_negative(value, at)?;
                    if !array_shape {
                        node.checks.push(if kw == "minItems" {
                            Check::MinItems(n)
                        } else {
                            Check::MaxItems(n)
                        });
                    }
                }
                "uniqueItems" => match value {
                    Value::Bool(true) => node.checks.push(Check::UniqueItems),
                    Value::Bool(false) => {}
                    _ => return Err(format!("{} must be a boolean", shown(at))),
                },
                "items" => {
                    if value.is_array() {
                        return Err(format!(
                            "{} must be a schema; for a tuple, use `prefixItems`",
                            shown(at)
                        ));
                    }
                    let items = self.compile(value, at)?;
                    let start = map
                        .get("prefixItems")
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len);
                    if array_shape {
                        if let Some(t) = map.member("type") {
                            node.checks.push(type_check(t, &join(location, "type"))?);
                        }
                        for k in ["minItems", "maxItems"] {
                            if let Some(v) = map.member(k) {
                                let n = non_negative(v, "")?;
                                node.checks.push(if k == "minItems" {
                                    Check::MinItems(n)
                                } else {
                                    Check::MaxItems(n)
                                });
                            }
                        }
                    }
                    node.checks.push(Check::Items { start, node: items });
                }
                "prefixItems" => {
                    let list = self.compile_list(value, at)?;
                    node.checks.push(Check::PrefixItems(list));
                }
                "minProperties" => node
                    .checks
                    .push(Check::MinProperties(non_negative(value, at)?)),
                "maxProperties" => node
                    .checks
                    .push(Check::MaxProperties(non_negative(value, at)?)),
                "required" => {
                    let Some(list) = &required else {
                        return Err(format!("{} must be an array of strings", shown(at)));
                    };
                    for (i, name) in list.iter().enumerate() {
                        if list[..i].contains(name) {
                            return Err(format!("{} lists {name:?} twice", shown(at)));
                        }
                    }
                    if required_with_members.is_none() && required_with_properties.is_none() {
                        node.checks.push(Check::Required(
                            list.iter().map(|s| (*s).to_owned()).collect(),
                        ));
                    }
                }
                "properties" => {
                    let compiled = self.compile_map(value, at)?;
                    node.eval.names = compiled.iter().map(|(n, _)| (*n).clone()).collect();
                    if !members {
                        node.checks.push(Check::Properties {
                            properties: properties(compiled),
                            required: required_with_properties.clone(),
                        });
                    }
                }
                "patternProperties" => {
                    let patterns = self.compile_patterns(value, at)?;
                    node.eval.patterns = patterns.iter().map(|(r, _)| r.clone()).collect();
                    if !members {
                        node.checks.push(Check::PatternProperties(patterns));
                    }
                }
                "additionalProperties" => {
                    let additional = self.compile(value, at)?;
                    node.eval.all = true;
                    if members {
                        let properties = match map.member("properties") {
                            Some(p) => {
                                properties(self.compile_map(p, &join(location, "properties"))?)
                            }
                            None => properties(Vec::new()),
                        };
                        let patterns = match map.member("patternProperties") {
                            Some(p) => {
                                self.compile_patterns(p, &join(location, "patternProperties"))?
                            }
                            None => Vec::new(),
                        };
                        node.checks.push(Check::Members {
                            properties,
                            patterns,
                            additional: (!matches!(value, Value::Bool(false)))
                                .then_some(additional),
                            required: required_with_members.clone(),
                            root: location.is_empty(),
                        });
                    }
                }
                "allOf" => {
                    let list = self.compile_list(value, at)?;
                    node.checks.push(Check::AllOf(list));
                }
                "anyOf" => {
                    let list = self.compile_list(value, at)?;
                    node.checks.push(Check::AnyOf(list));
                }
                "oneOf" => {
                    let list = self.compile_list(value, at)?;
                    node.checks.push(Check::OneOf(list));
                }
                "not" => {
                    let not = self.compile(value, at)?;
                    node.checks.push(Check::Not(not, value.clone()));
                }
                "if" => {
                    let condition = self.compile(value, at)?;
                    let mut branch = |keyword: &str| match map.member(keyword) {
                        Some(sub) => self.compile(sub, &join(location, keyword)).map(Some),
                        None => Ok(None),
                    };
                    let then = branch("then")?;
                    let otherwise = branch("else")?;
                    node.checks.push(Check::If {
                        condition,
                        then,
                        otherwise,
                    });
                }
                // Without an `if`, they have no effect (and are not compiled);
                // with one, they are compiled with it.
                "then" | "else" => {}
                "$ref" => {
                    let Value::String(reference) = value else {
                        return Err(format!("{} must be a string", shown(at)));
                    };
                    let target = self.resolve(reference, at)?;
                    node.checks.push(Check::Ref(target));
                }
                "unevaluatedProperties" => {
                    let schema = self.compile(value, at)?;
                    node.checks.push(Check::Unevaluated { schema, owner: id });
                }
                "$defs" | "definitions" => {
                    self.compile_map(value, at)?;
                }
                "$id" if !location.is_empty() => {
                    return Err(format!(
                        "`$id` (at `{here}`) inside a subschema is not supported"
                    ));
                }
                "title" | "description" | "$comment" | "$id" | "$schema" | "$anchor"
                | "contentMediaType" | "contentEncoding" | "format"
                    if !value.is_string() =>
                {
                    return Err(format!("{} must be a string", shown(at)));
                }
                "deprecated" | "readOnly" | "writeOnly" if !value.is_boolean() => {
                    return Err(format!("{} must be a boolean", shown(at)));
                }
                "examples" if !value.is_array() => {
                    return Err(format!("{} must be an array", shown(at)));
                }
                // Annotations (`default`, `contentSchema`, `$vocabulary`,
                // those above) and members that are not keywords (`x-...`).
                _ => {}
            }
        }
        // `jsonschema` runs (and reports) a schema's keywords in an order of
        // its own, cheap ones first; the checks folded into another run at
        // that one's place.
        node.checks
            .sort_by_key(|check| priority(check, array_shape));
        Ok(node)
    }
}

/// Where `jsonschema` puts a keyword among those of its schema.
fn priority(check: &Check, array_shape: bool) -> u8 {
    match check {
        // With `items`, under `type: array`.
        Check::Type { .. } | Check::MinItems(_) | Check::MaxItems(_) if array_shape => 44,
        Check::Type { .. } => 1,
        Check::Const(_) => 5,
        Check::Enum(_) => 6,
        Check::Bound { kind, .. } => match kind {
            BoundKind::Minimum => 10,
            BoundKind::Maximum => 11,
            BoundKind::ExclusiveMinimum => 12,
            BoundKind::ExclusiveMaximum => 13,
        },
        Check::MultipleOf(_) => 14,
        Check::MinLength(_) => 20,
        Check::MaxLength(_) => 21,
        Check::MinItems(_) => 22,
        Check::MaxItems(_) => 23,
        Check::MinProperties(_) => 24,
        Check::MaxProperties(_) => 25,
        Check::Required(_) => 26,
        Check::Pattern(..) => 30,
        Check::UniqueItems => 35,
        Check::Properties { .. } => 40,
        Check::PatternProperties(_) => 41,
        Check::Members { .. } => 42,
        Check::Items { .. } => 44,
        Check::PrefixItems(_) => 45,
        Check::AllOf(_) => 50,
        Check::AnyOf(_) => 51,
        Check::OneOf(_) => 52,
        Check::Not(..) => 53,
        Check::If { .. } => 54,
        Check::Unevaluated { .. } => 60,
        Check::Ref(_) => 70,
    }
}

fn type_check(value: &Value, location: &str) -> Result<Check, String> {
    let bit = |name: &Value| {
        name.as_str()
            .and_then(|n| TYPE_NAMES.iter().find(|(t, _)| *t == n))
            .map(|(_, bit)| *bit)
            .ok_or_else(|| {
                format!(
                    "{}: {name} is not a type (array, boolean, integer, null, number, object, string)",
                    shown(location)
                )
            })
    };
    match value {
        Value::String(_) => Ok(Check::Type {
            set: bit(value)?,
            single: true,
        }),
        Value::Array(list) if !list.is_empty() => {
            let mut set = 0;
            for name in list {
                let b = bit(name)?;
                if set & b != 0 {
                    return Err(format!("{} lists {name} twice", shown(location)));
                }
                set |= b;
            }
            Ok(Check::Type {
                set,
                single: list.len() == 1,
            })
        }
        _ => Err(format!(
            "{} must be a type name or a non-empty array of them",
            shown(location)
        )),
    }
}
