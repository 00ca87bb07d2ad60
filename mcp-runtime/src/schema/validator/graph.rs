//! The compiled form of a schema: a graph of [`Node`]s, one per subschema,
//! each a list of [`Check`]s (one per keyword, or per group of keywords
//! checked together), which point to other nodes by [`NodeId`] for
//! subschemas and `$ref`s.

use std::collections::HashMap;

use regex_lite::Regex;
use serde_json::Value;

pub(super) type NodeId = usize;

/// Above this many `properties`, lookups go through a hash map (and, as in
/// `jsonschema`, members are always visited in the instance's order).
pub(super) const MANY_PROPERTIES: usize = 15;

/// A compiled schema.
pub(crate) struct Schema {
    pub(super) nodes: Vec<Node>,
    pub(super) root: NodeId,
}

#[derive(Default)]
pub(super) struct Node {
    /// `Some` for a boolean schema.
    pub(super) boolean: Option<bool>,
    pub(super) checks: Vec<Check>,
    /// For `unevaluatedProperties`: what this schema evaluates by itself.
    pub(super) eval: Evaluates,
}

#[derive(Default)]
pub(super) struct Evaluates {
    /// `properties` names.
    pub(super) names: Vec<String>,
    /// `patternProperties`.
    pub(super) patterns: Vec<Regex>,
    /// `additionalProperties` is present: every member is evaluated.
    pub(super) all: bool,
}

pub(super) enum Type {
    Null = 1,
    Boolean = 2,
    Integer = 4,
    Number = 8,
    String = 16,
    Array = 32,
    Object = 64,
}

pub(super) const TYPE_NAMES: [(&str, u8); 7] = [
    ("null", Type::Null as u8),
    ("boolean", Type::Boolean as u8),
    ("integer", Type::Integer as u8),
    ("number", Type::Number as u8),
    ("string", Type::String as u8),
    ("array", Type::Array as u8),
    ("object", Type::Object as u8),
];

pub(super) enum Check {
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
    /// `if`, with the `then` and `else` beside it (each may be absent; with
    /// neither, the check only matters to `unevaluatedProperties`, which
    /// counts what a valid `if` evaluates).
    If {
        condition: NodeId,
        then: Option<NodeId>,
        otherwise: Option<NodeId>,
    },
    Ref(NodeId),
    /// `unevaluatedProperties`, in the schema `owner`.
    Unevaluated {
        schema: NodeId,
        owner: NodeId,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum BoundKind {
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
}

pub(super) struct Properties {
    pub(super) list: Vec<(String, NodeId)>,
    pub(super) index: Option<HashMap<String, usize>>,
}

impl Properties {
    pub(super) fn get(&self, name: &str) -> Option<NodeId> {
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

pub(super) fn properties(list: Vec<(&String, NodeId)>) -> Properties {
    let list: Vec<(String, NodeId)> = list.into_iter().map(|(n, id)| (n.clone(), id)).collect();
    let index = (list.len() >= MANY_PROPERTIES).then(|| {
        list.iter()
            .enumerate()
            .map(|(i, (n, _))| (n.clone(), i))
            .collect()
    });
    Properties { list, index }
}
