//! A JSON Schema (2020-12) validator for the subset of the specification
//! that tool input schemas use.
//!
//! A schema is compiled once into a graph of [`Node`]s (one per subschema,
//! `$ref`s as edges); a value is then checked in two passes: [`Schema::is_valid`]
//! answers without allocating, and only when it says no does
//! [`Schema::errors`] walk again to collect every violation with its JSON
//! path. Error texts, and the order in which errors are reported, follow the
//! `jsonschema` crate, which the runtime used before, except for members
//! rejected by a schema in `unevaluatedProperties`: they get that schema's
//! errors, as with `additionalProperties`, rather than being called
//! unexpected.
//!
//! Keywords outside the supported subset are refused at compile time with
//! their location, rather than silently not checked.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;

use regex_lite::Regex;
use serde_json::{Map, Number, Value};

type NodeId = usize;

/// The keywords of JSON Schema (any draft) that the validator does not
/// implement: a schema using one is refused.
const UNSUPPORTED: &[&str] = &[
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
    "if",
    "then",
    "else",
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

/// Above this many `properties`, lookups go through a hash map (and, as in
/// `jsonschema`, members are always visited in the instance's order).
const MANY_PROPERTIES: usize = 15;

/// A compiled schema.
pub(crate) struct Schema {
    nodes: Vec<Node>,
    root: NodeId,
}

#[derive(Default)]
struct Node {
    /// `Some` for a boolean schema.
    boolean: Option<bool>,
    checks: Vec<Check>,
    /// For `unevaluatedProperties`: what this schema evaluates by itself.
    eval: Evaluates,
}

#[derive(Default)]
struct Evaluates {
    /// `properties` names.
    names: Vec<String>,
    /// `patternProperties`.
    patterns: Vec<Regex>,
    /// `additionalProperties` is present: every member is evaluated.
    all: bool,
}

enum Type {
    Null = 1,
    Boolean = 2,
    Integer = 4,
    Number = 8,
    String = 16,
    Array = 32,
    Object = 64,
}

const TYPE_NAMES: [(&str, u8); 7] = [
    ("null", Type::Null as u8),
    ("boolean", Type::Boolean as u8),
    ("integer", Type::Integer as u8),
    ("number", Type::Number as u8),
    ("string", Type::String as u8),
    ("array", Type::Array as u8),
    ("object", Type::Object as u8),
];

enum Check {
    Type {
        set: u8,
        /// Written as one type (`"string"` or `["string"]`): the message
        /// names it alone.
        single: bool,
    },
    Enum(Value),
    Const(Value),
    Bound {
        kind: BoundKind,
        limit: Value,
    },
    MultipleOf(f64),
    MinLength(u64),
    MaxLength(u64),
    Pattern(Regex, String),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    /// `items`, applied from `start` (after `prefixItems`).
    Items {
        start: usize,
        node: NodeId,
    },
    PrefixItems(Vec<NodeId>),
    MinProperties(u64),
    MaxProperties(u64),
    Required(Vec<String>),
    /// `properties` alone (no `additionalProperties` schema or `false`),
    /// with a `required` of two names folded in as `jsonschema` does.
    Properties {
        properties: Properties,
        required: Option<[String; 2]>,
    },
    /// `patternProperties` alone.
    PatternProperties(Vec<(Regex, NodeId)>),
    /// `additionalProperties` that is `false` or a schema, with the
    /// `properties` and `patternProperties` beside it.
    Members {
        properties: Properties,
        patterns: Vec<(Regex, NodeId)>,
        /// `None`: `false`.
        additional: Option<NodeId>,
        /// A `required` of one name, folded in.
        required: Option<String>,
        /// This is the root schema's `additionalProperties`.
        root: bool,
    },
    AllOf(Vec<NodeId>),
    AnyOf(Vec<NodeId>),
    OneOf(Vec<NodeId>),
    Not(NodeId, Value),
    Ref(NodeId),
    /// `unevaluatedProperties`, in the schema `owner`.
    Unevaluated {
        schema: NodeId,
        owner: NodeId,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum BoundKind {
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
}

struct Properties {
    list: Vec<(String, NodeId)>,
    index: Option<HashMap<String, usize>>,
}

impl Properties {
    fn get(&self, name: &str) -> Option<NodeId> {
        match &self.index {
            Some(index) => index.get(name).map(|&i| self.list[i].1),
            None => self
                .list
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, node)| *node),
        }
    }
}

/// One violation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Error<'a> {
    /// The JSON pointer to the value at fault (`""` for the whole value).
    pub path: String,
    pub kind: ErrorKind<'a>,
}

/// What is wrong, with what the message needs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ErrorKind<'a> {
    Type {
        instance: &'a Value,
        set: u8,
        single: bool,
    },
    Enum {
        instance: &'a Value,
        options: &'a Value,
    },
    Const {
        expected: &'a Value,
    },
    Minimum {
        instance: &'a Value,
        limit: &'a Value,
    },
    Maximum {
        instance: &'a Value,
        limit: &'a Value,
    },
    ExclusiveMinimum {
        instance: &'a Value,
        limit: &'a Value,
    },
    ExclusiveMaximum {
        instance: &'a Value,
        limit: &'a Value,
    },
    MultipleOf {
        instance: &'a Value,
        multiple: f64,
    },
    MinLength {
        instance: &'a Value,
        limit: u64,
    },
    MaxLength {
        instance: &'a Value,
        limit: u64,
    },
    Pattern {
        instance: &'a Value,
        pattern: &'a str,
    },
    MinItems {
        instance: &'a Value,
        limit: u64,
    },
    MaxItems {
        instance: &'a Value,
        limit: u64,
    },
    UniqueItems {
        instance: &'a Value,
    },
    MinProperties {
        instance: &'a Value,
        limit: u64,
    },
    MaxProperties {
        instance: &'a Value,
        limit: u64,
    },
    Required {
        property: &'a str,
    },
    AdditionalProperties {
        unexpected: Vec<&'a str>,
    },
    /// `unevaluatedProperties: false`. (With a schema, the errors of the
    /// schema are reported at each member instead: unlike `jsonschema`,
    /// which names the members as "unexpected" although they are allowed
    /// with another value.)
    UnevaluatedProperties {
        unexpected: Vec<&'a str>,
        /// The names that the schema declares for this object, which it
        /// would have accepted (see [`Schema::declare`]).
        declared: Vec<&'a str>,
    },
    /// A `false` schema. `root_additional`: it is the root schema's
    /// `additionalProperties: false` with no `properties` beside it, which
    /// (as in `jsonschema`) is reported once, at the object, with the value
    /// of its first member.
    False {
        instance: &'a Value,
        root_additional: bool,
    },
    AnyOf {
        instance: &'a Value,
    },
    OneOfNone {
        instance: &'a Value,
    },
    OneOfMany {
        instance: &'a Value,
    },
    Not {
        schema: &'a Value,
        instance: &'a Value,
    },
}

fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

fn quoted_list(f: &mut fmt::Formatter<'_>, names: &[&str]) -> fmt::Result {
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "'{name}'")?;
    }
    f.write_str(if names.len() == 1 {
        " was unexpected)"
    } else {
        " were unexpected)"
    })
}

impl fmt::Display for Error<'_> {
    /// The message, without the path (the texts of `jsonschema`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorKind as K;
        match &self.kind {
            K::Type {
                instance,
                set,
                single: true,
            } => {
                let name = TYPE_NAMES
                    .iter()
                    .find(|(_, bit)| set & bit != 0)
                    .map_or("", |(name, _)| name);
                write!(f, r#"{instance} is not of type "{name}""#)
            }
            K::Type { instance, set, .. } => {
                write!(f, "{instance} is not of types ")?;
                let mut first = true;
                for (name, bit) in TYPE_NAMES {
                    if set & bit != 0 {
                        if !first {
                            f.write_str(", ")?;
                        }
                        first = false;
                        write!(f, "\"{name}\"")?;
                    }
                }
                Ok(())
            }
            K::Enum { instance, options } => {
                write!(f, "{instance} is not one of ")?;
                let options = options.as_array().map_or(&[][..], Vec::as_slice);
                let total = options.len();
                if total <= 3 {
                    for (i, option) in options.iter().enumerate() {
                        if i == 0 {
                            write!(f, "{option}")?;
                        } else if i == total - 1 {
                            write!(f, " or {option}")?;
                        } else {
                            write!(f, ", {option}")?;
                        }
                    }
                } else {
                    for (i, option) in options.iter().take(2).enumerate() {
                        if i == 0 {
                            write!(f, "{option}")?;
                        } else {
                            write!(f, ", {option}")?;
                        }
                    }
                    write!(f, " or {} other candidates", total - 2)?;
                }
                Ok(())
            }
            K::Const { expected } => write!(f, "{expected} was expected"),
            K::Minimum { instance, limit } => {
                write!(f, "{instance} is less than the minimum of {limit}")
            }
            K::Maximum { instance, limit } => {
                write!(f, "{instance} is greater than the maximum of {limit}")
            }
            K::ExclusiveMinimum { instance, limit } => {
                write!(
                    f,
                    "{instance} is less than or equal to the minimum of {limit}"
                )
            }
            K::ExclusiveMaximum { instance, limit } => write!(
                f,
                "{instance} is greater than or equal to the maximum of {limit}"
            ),
            K::MultipleOf { instance, multiple } => {
                write!(f, "{instance} is not a multiple of {multiple}")
            }
            K::MinLength { instance, limit } => write!(
                f,
                "{instance} is shorter than {limit} character{}",
                plural(*limit, "", "s")
            ),
            K::MaxLength { instance, limit } => write!(
                f,
                "{instance} is longer than {limit} character{}",
                plural(*limit, "", "s")
            ),
            K::Pattern { instance, pattern } => {
                write!(f, r#"{instance} does not match "{pattern}""#)
            }
            K::MinItems { instance, limit } => write!(
                f,
                "{instance} has less than {limit} item{}",
                plural(*limit, "", "s")
            ),
            K::MaxItems { instance, limit } => write!(
                f,
                "{instance} has more than {limit} item{}",
                plural(*limit, "", "s")
            ),
            K::UniqueItems { instance } => write!(f, "{instance} has non-unique elements"),
            K::MinProperties { instance, limit } => write!(
                f,
                "{instance} has less than {limit} propert{}",
                plural(*limit, "y", "ies")
            ),
            K::MaxProperties { instance, limit } => write!(
                f,
                "{instance} has more than {limit} propert{}",
                plural(*limit, "y", "ies")
            ),
            K::Required { property } => {
                write!(f, "{} is a required property", Value::from(*property))
            }
            K::AdditionalProperties { unexpected } => {
                f.write_str("Additional properties are not allowed (")?;
                quoted_list(f, unexpected)
            }
            K::UnevaluatedProperties { unexpected, .. } => {
                f.write_str("Unevaluated properties are not allowed (")?;
                quoted_list(f, unexpected)
            }
            K::False { instance, .. } => write!(f, "False schema does not allow {instance}"),
            K::AnyOf { instance } => write!(
                f,
                "{instance} is not valid under any of the schemas listed in the 'anyOf' keyword"
            ),
            K::OneOfNone { instance } => write!(
                f,
                "{instance} is not valid under any of the schemas listed in the 'oneOf' keyword"
            ),
            K::OneOfMany { instance } => write!(
                f,
                "{instance} is valid under more than one of the schemas listed in the 'oneOf' keyword"
            ),
            K::Not { schema, instance } => write!(f, "{schema} is not allowed for {instance}"),
        }
    }
}

// ---------------------------------------------------------------------------
// Compilation

struct Compiler<'s> {
    root: &'s Value,
    nodes: Vec<Node>,
    /// Subschemas compiled so far, by their JSON pointer in the document.
    at: HashMap<String, NodeId>,
    /// The location of each node, for messages.
    locations: Vec<String>,
}

fn escape(segment: &str, into: &mut String) {
    for c in segment.chars() {
        match c {
            '~' => into.push_str("~0"),
            '/' => into.push_str("~1"),
            c => into.push(c),
        }
    }
}

fn join(location: &str, segment: &str) -> String {
    let mut out = String::with_capacity(location.len() + segment.len() + 1);
    out.push_str(location);
    out.push('/');
    escape(segment, &mut out);
    out
}

fn shown(location: &str) -> String {
    if location.is_empty() {
        "the root".to_owned()
    } else {
        format!("`{location}`")
    }
}

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

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

impl<'s> Compiler<'s> {
    fn reserve(&mut self, location: &str) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.locations.push(location.to_owned());
        self.at.insert(location.to_owned(), id);
        id
    }

    /// Compiles the subschema `schema`, found at `location`.
    fn compile(&mut self, schema: &'s Value, location: &str) -> Result<NodeId, String> {
        if let Some(&id) = self.at.get(location) {
            return Ok(id);
        }
        let id = self.reserve(location);
        let node = match schema {
            Value::Bool(b) => Node {
                boolean: Some(*b),
                ..Node::default()
            },
            Value::Object(map) => self.compile_object(map, location, id)?,
            other => {
                return Err(format!(
                    "{} must be a schema (an object or a boolean), not {other}",
                    shown(location)
                ));
            }
        };
        self.nodes[id] = node;
        Ok(id)
    }

    fn compile_list(&mut self, value: &'s Value, location: &str) -> Result<Vec<NodeId>, String> {
        match value {
            Value::Array(list) if !list.is_empty() => list
                .iter()
                .enumerate()
                .map(|(i, sub)| self.compile(sub, &join(location, &i.to_string())))
                .collect(),
            _ => Err(format!(
                "{} must be a non-empty array of schemas",
                shown(location)
            )),
        }
    }

    fn compile_map(
        &mut self,
        value: &'s Value,
        location: &str,
    ) -> Result<Vec<(&'s String, NodeId)>, String> {
        let Value::Object(map) = value else {
            return Err(format!("{} must be an object", shown(location)));
        };
        map.iter()
            .map(|(name, sub)| Ok((name, self.compile(sub, &join(location, name))?)))
            .collect()
    }

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

    fn resolve(&mut self, reference: &str, location: &str) -> Result<NodeId, String> {
        let unsupported = || {
            format!(
                "{}: the reference {reference:?} is not supported; only references \
                 inside the schema (`#` or `#/...`) are",
                shown(location)
            )
        };
        let fragment = reference.strip_prefix('#').ok_or_else(unsupported)?;
        let pointer = percent_decode(fragment).ok_or_else(unsupported)?;
        if !pointer.is_empty() && !pointer.starts_with('/') {
            return Err(unsupported());
        }
        if let Some(&id) = self.at.get(&pointer) {
            return Ok(id);
        }
        let mut target = self.root;
        if !pointer.is_empty() {
            for token in pointer[1..].split('/') {
                let token = token.replace("~1", "/").replace("~0", "~");
                target = match target {
                    Value::Object(map) => map.get(&token),
                    Value::Array(list) => token.parse::<usize>().ok().and_then(|i| list.get(i)),
                    _ => None,
                }
                .ok_or_else(|| {
                    format!(
                        "{}: the reference {reference:?} points to nothing in the schema",
                        shown(location)
                    )
                })?;
            }
        }
        self.compile(target, &pointer)
    }

    fn compile_object(
        &mut self,
        map: &'s Map<String, Value>,
        location: &str,
        id: NodeId,
    ) -> Result<Node, String> {
        let mut node = Node::default();
        let additional = map.get("additionalProperties");
        // `additionalProperties` that is `false` or a schema takes
        // `properties` and `patternProperties` into one check (at its place).
        let members = matches!(additional, Some(Value::Bool(false) | Value::Object(_)));
        let has_properties = map.contains_key("properties");
        let has_patterns = map.contains_key("patternProperties");
        let required: Option<Vec<&str>> = match map.get("required") {
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
            map.get("items"),
            Some(Value::Object(_) | Value::Bool(false))
        ) && map.get("type").and_then(Value::as_str) == Some("array")
            && ![
                "prefixItems",
                "additionalItems",
                "contains",
                "unevaluatedItems",
                "uniqueItems",
            ]
            .iter()
            .any(|k| map.contains_key(*k))
            && ["minItems", "maxItems"]
                .iter()
                .all(|k| map.get(*k).is_none_or(|v| non_negative(v, "").is_ok()));

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
                        if let Some(t) = map.get("type") {
                            node.checks.push(type_check(t, &join(location, "type"))?);
                        }
                        for k in ["minItems", "maxItems"] {
                            if let Some(v) = map.get(k) {
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
                        let properties = match map.get("properties") {
                            Some(p) => {
                                properties(self.compile_map(p, &join(location, "properties"))?)
                            }
                            None => properties(Vec::new()),
                        };
                        let patterns = match map.get("patternProperties") {
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

    /// Refuses a `$ref` (or combinator) loop that never goes into the value:
    /// validating with it would not end.
    fn check_loops(&self) -> Result<(), String> {
        // 0: not visited, 1: on the stack, 2: done.
        let mut state = vec![0u8; self.nodes.len()];
        for start in 0..self.nodes.len() {
            if state[start] != 0 {
                continue;
            }
            let mut stack: Vec<(NodeId, usize)> = vec![(start, 0)];
            state[start] = 1;
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                let edges = in_place(&self.nodes[node]);
                if let Some(&child) = edges.get(*next) {
                    *next += 1;
                    match state[child] {
                        0 => {
                            state[child] = 1;
                            stack.push((child, 0));
                        }
                        1 => {
                            return Err(format!(
                                "the schema at {} refers back to itself without going into \
                                 the value (through `$ref`, `allOf`, `anyOf`, `oneOf` or `not`), \
                                 so validation would never end",
                                shown(&self.locations[child])
                            ));
                        }
                        _ => {}
                    }
                } else {
                    state[node] = 2;
                    stack.pop();
                }
            }
        }
        Ok(())
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
        Check::Unevaluated { .. } => 60,
        Check::Ref(_) => 70,
    }
}

/// The subschemas a node applies to the same value.
fn in_place(node: &Node) -> Vec<NodeId> {
    let mut out = Vec::new();
    for check in &node.checks {
        match check {
            Check::AllOf(list) | Check::AnyOf(list) | Check::OneOf(list) => {
                out.extend(list.iter().copied());
            }
            Check::Not(n, _) | Check::Ref(n) => out.push(*n),
            _ => {}
        }
    }
    out
}

fn properties(list: Vec<(&String, NodeId)>) -> Properties {
    let list: Vec<(String, NodeId)> = list.into_iter().map(|(n, id)| (n.clone(), id)).collect();
    let index = (list.len() >= MANY_PROPERTIES).then(|| {
        list.iter()
            .enumerate()
            .map(|(i, (n, _))| (n.clone(), i))
            .collect()
    });
    Properties { list, index }
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

// ---------------------------------------------------------------------------
// Numbers

/// Compares two JSON numbers exactly (integers beyond 2^53 included).
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    fn int(n: &Number) -> Option<i128> {
        n.as_u64()
            .map(i128::from)
            .or_else(|| n.as_i64().map(i128::from))
    }
    match (int(a), int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        (Some(x), None) => compare_int_float(x, b.as_f64()?),
        (None, Some(y)) => compare_int_float(y, a.as_f64()?).map(Ordering::reverse),
        (None, None) => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

fn compare_int_float(x: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    // Every integer here is within ±2^64.
    if f >= 3.0e19 {
        return Some(Ordering::Less);
    }
    if f <= -3.0e19 {
        return Some(Ordering::Greater);
    }
    let floor = f.floor();
    let whole = floor as i128; // exact: |floor| < 2^65
    Some(match x.cmp(&whole) {
        Ordering::Equal if floor != f => Ordering::Less,
        other => other,
    })
}

fn numbers_equal(a: &Number, b: &Number) -> bool {
    compare(a, b) == Some(Ordering::Equal)
}

/// JSON equality, with numbers compared by value (`1` equals `1.0`).
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

fn is_integer(n: &Number) -> bool {
    n.is_u64() || n.is_i64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// A finite number as `mantissa * 10^-decimals`, from its shortest
/// representation (so `0.1` is 1 * 10^-1, not its binary value).
fn decimal_parts(f: f64) -> Option<(i128, i32)> {
    use std::fmt::Write;
    /// Room for any `f64` in `{:e}` form, so no allocation.
    struct Buffer {
        bytes: [u8; 40],
        len: usize,
    }
    impl Write for Buffer {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let end = self.len + s.len();
            self.bytes
                .get_mut(self.len..end)
                .ok_or(fmt::Error)?
                .copy_from_slice(s.as_bytes());
            self.len = end;
            Ok(())
        }
    }
    let mut buffer = Buffer {
        bytes: [0; 40],
        len: 0,
    };
    write!(buffer, "{f:e}").ok()?;
    let text = std::str::from_utf8(&buffer.bytes[..buffer.len]).ok()?;
    let (digits, exponent) = text.split_once('e')?;
    let exponent: i32 = exponent.parse().ok()?;
    let negative = digits.starts_with('-');
    let mut mantissa: i128 = 0;
    let mut decimals = 0i32;
    let mut after_point = false;
    for c in digits.trim_start_matches('-').chars() {
        match c {
            '.' => after_point = true,
            d => {
                mantissa = mantissa
                    .checked_mul(10)?
                    .checked_add(i128::from(d.to_digit(10)?))?;
                if after_point {
                    decimals += 1;
                }
            }
        }
    }
    Some((
        if negative { -mantissa } else { mantissa },
        decimals - exponent,
    ))
}

fn divides_exactly(value: f64, multiple: f64) -> Option<bool> {
    let (vm, vd) = decimal_parts(value)?;
    let (mm, md) = decimal_parts(multiple)?;
    if mm == 0 {
        return None;
    }
    let shared = vd.min(md);
    let scale =
        |m: i128, d: i32| m.checked_mul(10_i128.checked_pow(u32::try_from(d - shared).ok()?)?);
    Some(scale(vm, md)? % scale(mm, vd)? == 0)
}

fn is_multiple_of(n: &Number, multiple: f64) -> bool {
    if multiple.fract() == 0.0 && multiple <= 9_007_199_254_740_992.0 {
        if let Some(v) = n.as_u64() {
            return v % (multiple as u64) == 0;
        }
        if let Some(v) = n.as_i64() {
            return v % (multiple as i64) == 0;
        }
    }
    let Some(value) = n.as_f64() else {
        return true;
    };
    if value == 0.0 {
        return true;
    }
    if value.abs() < multiple {
        return false;
    }
    match divides_exactly(value, multiple) {
        Some(answer) => answer,
        None => {
            let q = value / multiple;
            q.is_finite() && q.fract() == 0.0
        }
    }
}

fn bound_holds(kind: BoundKind, n: &Number, limit: &Number) -> bool {
    match (kind, compare(n, limit)) {
        (_, None) => true,
        (BoundKind::Minimum, Some(o)) => o != Ordering::Less,
        (BoundKind::Maximum, Some(o)) => o != Ordering::Greater,
        (BoundKind::ExclusiveMinimum, Some(o)) => o == Ordering::Greater,
        (BoundKind::ExclusiveMaximum, Some(o)) => o == Ordering::Less,
    }
}

fn has_unique_items(items: &[Value]) -> bool {
    if items.len() <= 32 {
        for (i, a) in items.iter().enumerate() {
            if items[i + 1..].iter().any(|b| equal(a, b)) {
                return false;
            }
        }
        return true;
    }
    // Long arrays: by hash (consistent with `equal`), not pair by pair.
    let state = std::hash::RandomState::new();
    let mut seen: HashMap<u64, Vec<&Value>> = HashMap::with_capacity(items.len());
    for item in items {
        let bucket = seen.entry(hash_value(&state, item)).or_default();
        if bucket.iter().any(|other| equal(item, other)) {
            return false;
        }
        bucket.push(item);
    }
    true
}

/// A hash under which values that are [`equal`] hash alike (numbers by
/// their `f64` value, object members in any order).
fn hash_value(state: &std::hash::RandomState, value: &Value) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut hasher = state.build_hasher();
    match value {
        Value::Null => 0u8.hash(&mut hasher),
        Value::Bool(b) => (1u8, b).hash(&mut hasher),
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(0.0);
            let f = if f == 0.0 { 0.0 } else { f };
            (2u8, f.to_bits()).hash(&mut hasher);
        }
        Value::String(s) => (3u8, s).hash(&mut hasher),
        Value::Array(items) => {
            (4u8, items.len()).hash(&mut hasher);
            for item in items {
                hash_value(state, item).hash(&mut hasher);
            }
        }
        Value::Object(members) => {
            let combined = members.iter().fold(0u64, |acc, (k, v)| {
                let mut member = state.build_hasher();
                k.hash(&mut member);
                hash_value(state, v).hash(&mut member);
                acc.wrapping_add(member.finish())
            });
            (5u8, members.len(), combined).hash(&mut hasher);
        }
    }
    hasher.finish()
}

fn type_matches(set: u8, value: &Value) -> bool {
    let bit = match value {
        Value::Null => Type::Null as u8,
        Value::Bool(_) => Type::Boolean as u8,
        Value::Number(n) => {
            if set & Type::Number as u8 != 0 {
                return true;
            }
            return set & Type::Integer as u8 != 0 && is_integer(n);
        }
        Value::String(_) => Type::String as u8,
        Value::Array(_) => Type::Array as u8,
        Value::Object(_) => Type::Object as u8,
    };
    set & bit != 0
}

// ---------------------------------------------------------------------------
// Which members `unevaluatedProperties` sees as evaluated

/// A set of member indexes of one object; no allocation up to 128 members.
enum Marks {
    Small(u128),
    Big(Vec<bool>),
}

impl Marks {
    fn new(len: usize) -> Marks {
        if len <= 128 {
            Marks::Small(0)
        } else {
            Marks::Big(vec![false; len])
        }
    }
    fn set(&mut self, i: usize) {
        match self {
            Marks::Small(bits) => *bits |= 1u128 << i,
            Marks::Big(v) => v[i] = true,
        }
    }
    fn get(&self, i: usize) -> bool {
        match self {
            Marks::Small(bits) => bits & (1u128 << i) != 0,
            Marks::Big(v) => v[i],
        }
    }
}

// ---------------------------------------------------------------------------
// Validation

impl Schema {
    /// Compiles `schema`; `Err` says what is wrong or unsupported, and where.
    pub(crate) fn compile(schema: &Value) -> Result<Schema, String> {
        let mut compiler = Compiler {
            root: schema,
            nodes: Vec::new(),
            at: HashMap::new(),
            locations: Vec::new(),
        };
        let root = compiler.compile(schema, "")?;
        compiler.check_loops()?;
        Ok(Schema {
            nodes: compiler.nodes,
            root,
        })
    }

    /// Whether `value` is valid. Allocates nothing, except for
    /// `uniqueItems` over more than 32 items and `unevaluatedProperties`
    /// over objects of more than 128 members.
    pub(crate) fn is_valid(&self, value: &Value) -> bool {
        self.valid(self.root, value)
    }

    /// Every violation, in the order `jsonschema` reports them.
    pub(crate) fn errors<'a>(&'a self, value: &'a Value) -> Vec<Error<'a>> {
        let mut errors = Vec::new();
        let mut path = String::new();
        self.collect(self.root, value, &mut path, &mut errors);
        errors
    }

    /// Adds to `names` the member names that the schema `id` declares (in
    /// `properties`) for the object `value`: itself, and the subschemas
    /// whose annotations `unevaluatedProperties` counts (`$ref` targets,
    /// valid `allOf` and `anyOf` branches, the one valid `oneOf` branch).
    fn declare<'a>(&'a self, id: NodeId, value: &Value, names: &mut Vec<&'a str>) {
        let node = &self.nodes[id];
        for name in &node.eval.names {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        for check in &node.checks {
            match check {
                Check::Ref(target) => self.declare(*target, value, names),
                Check::AllOf(list) | Check::AnyOf(list) => {
                    for n in list {
                        if self.valid(*n, value) {
                            self.declare(*n, value, names);
                        }
                    }
                }
                Check::OneOf(list) => {
                    let mut valid = list.iter().filter(|n| self.valid(**n, value));
                    if let (Some(n), None) = (valid.next(), valid.next()) {
                        self.declare(*n, value, names);
                    }
                }
                _ => {}
            }
        }
    }

    fn valid(&self, id: NodeId, value: &Value) -> bool {
        let node = &self.nodes[id];
        if let Some(b) = node.boolean {
            return b;
        }
        node.checks
            .iter()
            .all(|check| self.check_valid(check, value))
    }

    fn check_valid(&self, check: &Check, value: &Value) -> bool {
        match check {
            Check::Type { set, .. } => type_matches(*set, value),
            Check::Enum(options) => options
                .as_array()
                .is_some_and(|o| o.iter().any(|option| equal(option, value))),
            Check::Const(expected) => equal(expected, value),
            Check::Bound { kind, limit } => match (value, limit) {
                (Value::Number(n), Value::Number(l)) => bound_holds(*kind, n, l),
                _ => true,
            },
            Check::MultipleOf(m) => match value {
                Value::Number(n) => is_multiple_of(n, *m),
                _ => true,
            },
            Check::MinLength(limit) => match value {
                Value::String(s) => s.chars().count() as u64 >= *limit,
                _ => true,
            },
            Check::MaxLength(limit) => match value {
                Value::String(s) => s.chars().count() as u64 <= *limit,
                _ => true,
            },
            Check::Pattern(re, _) => match value {
                Value::String(s) => re.is_match(s),
                _ => true,
            },
            Check::MinItems(limit) => match value {
                Value::Array(a) => a.len() as u64 >= *limit,
                _ => true,
            },
            Check::MaxItems(limit) => match value {
                Value::Array(a) => a.len() as u64 <= *limit,
                _ => true,
            },
            Check::UniqueItems => match value {
                Value::Array(a) => has_unique_items(a),
                _ => true,
            },
            Check::Items { start, node } => match value {
                Value::Array(a) => a.iter().skip(*start).all(|item| self.valid(*node, item)),
                _ => true,
            },
            Check::PrefixItems(nodes) => match value {
                Value::Array(a) => a
                    .iter()
                    .zip(nodes)
                    .all(|(item, node)| self.valid(*node, item)),
                _ => true,
            },
            Check::MinProperties(limit) => match value {
                Value::Object(o) => o.len() as u64 >= *limit,
                _ => true,
            },
            Check::MaxProperties(limit) => match value {
                Value::Object(o) => o.len() as u64 <= *limit,
                _ => true,
            },
            Check::Required(names) => match value {
                Value::Object(o) => names.iter().all(|n| o.contains_key(n)),
                _ => true,
            },
            Check::Properties {
                properties,
                required,
            } => match value {
                Value::Object(o) => {
                    required
                        .as_ref()
                        .is_none_or(|r| r.iter().all(|n| o.contains_key(n)))
                        && o.iter().all(|(name, v)| {
                            properties.get(name).is_none_or(|node| self.valid(node, v))
                        })
                }
                _ => true,
            },
            Check::PatternProperties(patterns) => match value {
                Value::Object(o) => patterns.iter().all(|(re, node)| {
                    o.iter()
                        .all(|(name, v)| !re.is_match(name) || self.valid(*node, v))
                }),
                _ => true,
            },
            Check::Members {
                properties,
                patterns,
                additional,
                required,
                ..
            } => match value {
                Value::Object(o) => {
                    required.as_ref().is_none_or(|r| o.contains_key(r))
                        && o.iter().all(|(name, v)| {
                            let mut matched = false;
                            if let Some(node) = properties.get(name) {
                                matched = true;
                                if !self.valid(node, v) {
                                    return false;
                                }
                            }
                            for (re, node) in patterns {
                                if re.is_match(name) {
                                    matched = true;
                                    if !self.valid(*node, v) {
                                        return false;
                                    }
                                }
                            }
                            matched || additional.is_some_and(|node| self.valid(node, v))
                        })
                }
                _ => true,
            },
            Check::AllOf(nodes) => nodes.iter().all(|n| self.valid(*n, value)),
            Check::AnyOf(nodes) => nodes.iter().any(|n| self.valid(*n, value)),
            Check::OneOf(nodes) => {
                let mut count = 0;
                for n in nodes {
                    if self.valid(*n, value) {
                        count += 1;
                        if count > 1 {
                            return false;
                        }
                    }
                }
                count == 1
            }
            Check::Not(node, _) => !self.valid(*node, value),
            Check::Ref(node) => self.valid(*node, value),
            Check::Unevaluated { schema, owner } => match value {
                Value::Object(o) => self.unevaluated(*schema, *owner, value, o).is_none(),
                _ => true,
            },
        }
    }

    /// The members of `object` that the schema `owner` evaluates, added to
    /// `marks` (the semantics of `jsonschema`: `properties` and
    /// `patternProperties` names, everything under `additionalProperties`,
    /// what a nested `unevaluatedProperties` accepts, and what `$ref`s, valid
    /// `allOf` and `anyOf` branches and the one valid `oneOf` branch evaluate).
    fn mark(
        &self,
        owner: NodeId,
        value: &Value,
        object: &Map<String, Value>,
        marks: &mut Marks,
        top: bool,
    ) {
        let node = &self.nodes[owner];
        let eval = &node.eval;
        if eval.all {
            for i in 0..object.len() {
                marks.set(i);
            }
            return;
        }
        if !eval.names.is_empty() || !eval.patterns.is_empty() {
            for (i, (name, _)) in object.iter().enumerate() {
                if eval.names.iter().any(|n| n == name)
                    || eval.patterns.iter().any(|r| r.is_match(name))
                {
                    marks.set(i);
                }
            }
        }
        for check in &node.checks {
            match check {
                Check::Ref(target) => self.mark(*target, value, object, marks, false),
                Check::AllOf(list) | Check::AnyOf(list) => {
                    for n in list {
                        if self.valid(*n, value) {
                            self.mark(*n, value, object, marks, false);
                        }
                    }
                }
                Check::OneOf(list) => {
                    let mut only = None;
                    let mut count = 0;
                    for n in list {
                        if self.valid(*n, value) {
                            count += 1;
                            only = Some(*n);
                            if count > 1 {
                                break;
                            }
                        }
                    }
                    if let (1, Some(n)) = (count, only) {
                        self.mark(n, value, object, marks, false);
                    }
                }
                Check::Unevaluated { schema, .. } if !top => {
                    for (i, (_, v)) in object.iter().enumerate() {
                        if !marks.get(i) && self.valid(*schema, v) {
                            marks.set(i);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// `None` if every member of `object` (which is `value`) is evaluated
    /// by `owner` or valid under its `unevaluatedProperties` (`schema`);
    /// else the marks, unset for the members at fault.
    fn unevaluated(
        &self,
        schema: NodeId,
        owner: NodeId,
        value: &Value,
        object: &Map<String, Value>,
    ) -> Option<Marks> {
        let mut marks = Marks::new(object.len());
        self.mark(owner, value, object, &mut marks, true);
        let mut bad = false;
        for (i, (_, v)) in object.iter().enumerate() {
            if !marks.get(i) {
                if self.valid(schema, v) {
                    marks.set(i);
                } else {
                    bad = true;
                }
            }
        }
        bad.then_some(marks)
    }

    fn collect<'a>(
        &'a self,
        id: NodeId,
        value: &'a Value,
        path: &mut String,
        errors: &mut Vec<Error<'a>>,
    ) {
        let node = &self.nodes[id];
        if let Some(b) = node.boolean {
            if !b {
                errors.push(Error {
                    path: path.clone(),
                    kind: ErrorKind::False {
                        instance: value,
                        root_additional: false,
                    },
                });
            }
            return;
        }
        for check in &node.checks {
            self.collect_check(check, value, path, errors);
        }
    }

    fn below<'a>(
        &'a self,
        id: NodeId,
        value: &'a Value,
        segment: &str,
        path: &mut String,
        errors: &mut Vec<Error<'a>>,
    ) {
        let len = path.len();
        path.push('/');
        escape(segment, path);
        self.collect(id, value, path, errors);
        path.truncate(len);
    }

    fn collect_check<'a>(
        &'a self,
        check: &'a Check,
        value: &'a Value,
        path: &mut String,
        errors: &mut Vec<Error<'a>>,
    ) {
        fn at<'a>(path: &str, kind: ErrorKind<'a>) -> Error<'a> {
            Error {
                path: path.to_owned(),
                kind,
            }
        }
        use ErrorKind as K;
        match check {
            Check::Items { start, node } => {
                if let Value::Array(a) = value {
                    for (i, item) in a.iter().enumerate().skip(*start) {
                        self.below(*node, item, &i.to_string(), path, errors);
                    }
                }
            }
            Check::PrefixItems(nodes) => {
                if let Value::Array(a) = value {
                    for (i, (item, node)) in a.iter().zip(nodes).enumerate() {
                        self.below(*node, item, &i.to_string(), path, errors);
                    }
                }
            }
            Check::Required(names) => {
                if let Value::Object(o) = value {
                    for name in names {
                        if !o.contains_key(name) {
                            errors.push(at(path, K::Required { property: name }));
                        }
                    }
                }
            }
            Check::Properties {
                properties,
                required,
            } => {
                let Value::Object(o) = value else { return };
                if let Some(required) = required {
                    for name in required {
                        if !o.contains_key(name) {
                            errors.push(at(path, K::Required { property: name }));
                        }
                    }
                }
                if properties.index.is_some() || o.len() <= properties.list.len() {
                    for (name, v) in o {
                        if let Some(node) = properties.get(name) {
                            self.below(node, v, name, path, errors);
                        }
                    }
                } else {
                    for (name, node) in &properties.list {
                        if let Some(v) = o.get(name) {
                            self.below(*node, v, name, path, errors);
                        }
                    }
                }
            }
            Check::PatternProperties(patterns) => {
                let Value::Object(o) = value else { return };
                for (re, node) in patterns {
                    for (name, v) in o {
                        if re.is_match(name) {
                            self.below(*node, v, name, path, errors);
                        }
                    }
                }
            }
            Check::Members {
                properties,
                patterns,
                additional,
                required,
                root,
            } => {
                let Value::Object(o) = value else { return };
                if additional.is_none() && properties.list.is_empty() && patterns.is_empty() {
                    if let Some((_, first)) = o.iter().next() {
                        errors.push(at(
                            path,
                            K::False {
                                instance: first,
                                root_additional: *root,
                            },
                        ));
                    }
                    return;
                }
                let mut unexpected = Vec::new();
                for (name, v) in o {
                    let mut matched = false;
                    if let Some(node) = properties.get(name) {
                        matched = true;
                        self.below(node, v, name, path, errors);
                    }
                    for (re, node) in patterns {
                        if re.is_match(name) {
                            matched = true;
                            self.below(*node, v, name, path, errors);
                        }
                    }
                    if !matched {
                        match additional {
                            Some(node) => self.below(*node, v, name, path, errors),
                            None => unexpected.push(name.as_str()),
                        }
                    }
                }
                if !unexpected.is_empty() {
                    errors.push(at(path, K::AdditionalProperties { unexpected }));
                }
                // As `jsonschema` does, the required member counts as
                // present only if `properties` names it.
                if let Some(name) = required
                    && !(o.contains_key(name) && properties.get(name).is_some())
                {
                    errors.push(at(path, K::Required { property: name }));
                }
            }
            Check::AllOf(nodes) => {
                for n in nodes {
                    self.collect(*n, value, path, errors);
                }
            }
            Check::Ref(node) => self.collect(*node, value, path, errors),
            Check::Unevaluated { schema, owner } => {
                let Value::Object(o) = value else { return };
                let Some(marks) = self.unevaluated(*schema, *owner, value, o) else {
                    return;
                };
                let rejected = o.iter().enumerate().filter(|(i, _)| !marks.get(*i));
                if self.nodes[*schema].boolean == Some(false) {
                    // `false`: the members are not allowed at all, by name.
                    let unexpected = rejected.map(|(_, (k, _))| k.as_str()).collect();
                    let mut declared = Vec::new();
                    self.declare(*owner, value, &mut declared);
                    errors.push(at(
                        path,
                        K::UnevaluatedProperties {
                            unexpected,
                            declared,
                        },
                    ));
                } else {
                    // A schema: the members are allowed, but their values
                    // are wrong; say how, at each one (as for a schema in
                    // `additionalProperties`).
                    for (_, (name, v)) in rejected {
                        self.below(*schema, v, name, path, errors);
                    }
                }
            }
            _ => {
                if self.check_valid(check, value) {
                    return;
                }
                let instance = value;
                let kind = match check {
                    Check::Type { set, single } => K::Type {
                        instance,
                        set: *set,
                        single: *single,
                    },
                    Check::Enum(options) => K::Enum { instance, options },
                    Check::Const(expected) => K::Const { expected },
                    Check::Bound { kind, limit } => match kind {
                        BoundKind::Minimum => K::Minimum { instance, limit },
                        BoundKind::Maximum => K::Maximum { instance, limit },
                        BoundKind::ExclusiveMinimum => K::ExclusiveMinimum { instance, limit },
                        BoundKind::ExclusiveMaximum => K::ExclusiveMaximum { instance, limit },
                    },
                    Check::MultipleOf(multiple) => K::MultipleOf {
                        instance,
                        multiple: *multiple,
                    },
                    Check::MinLength(limit) => K::MinLength {
                        instance,
                        limit: *limit,
                    },
                    Check::MaxLength(limit) => K::MaxLength {
                        instance,
                        limit: *limit,
                    },
                    Check::Pattern(_, pattern) => K::Pattern { instance, pattern },
                    Check::MinItems(limit) => K::MinItems {
                        instance,
                        limit: *limit,
                    },
                    Check::MaxItems(limit) => K::MaxItems {
                        instance,
                        limit: *limit,
                    },
                    Check::UniqueItems => K::UniqueItems { instance },
                    Check::MinProperties(limit) => K::MinProperties {
                        instance,
                        limit: *limit,
                    },
                    Check::MaxProperties(limit) => K::MaxProperties {
                        instance,
                        limit: *limit,
                    },
                    Check::AnyOf(_) => K::AnyOf { instance },
                    Check::OneOf(nodes) => {
                        if nodes.iter().any(|n| self.valid(*n, value)) {
                            K::OneOfMany { instance }
                        } else {
                            K::OneOfNone { instance }
                        }
                    }
                    Check::Not(_, schema) => K::Not { schema, instance },
                    _ => return,
                };
                errors.push(at(path, kind));
            }
        }
    }
}

#[cfg(test)]
#[path = "validator_tests.rs"]
mod tests;
