//! Compiling a schema document into the graph: each subschema once, by its
//! location (so `$ref`s to it share it, and recursive ones end), `$ref`s
//! inside the document resolved (JSON pointers, and `$anchor` names: the
//! whole document is one resource, as `$id` is only allowed at its root),
//! and loops that would never end refused.
//! What each keyword becomes is in `keywords`.

use std::collections::HashMap;

use serde_json::Value;

use super::graph::{Check, Node, NodeId, Schema};
use super::pointer::{join, percent_decode, shown};

impl Schema {
    /// Compiles `schema`; `Err` says what is wrong or unsupported, and where.
    pub(crate) fn compile(schema: &Value) -> Result<Schema, String> {
        let mut anchors = HashMap::new();
        find_anchors(schema, "", &mut anchors)?;
        let mut compiler = Compiler {
            root: schema,
            nodes: Vec::new(),
            at: HashMap::new(),
            locations: Vec::new(),
            anchors,
        };
        let root = compiler.compile(schema, "")?;
        compiler.check_loops()?;
        Ok(Schema {
            nodes: compiler.nodes,
            root,
        })
    }
}

pub(super) struct Compiler<'s> {
    root: &'s Value,
    nodes: Vec<Node>,
    /// Subschemas compiled so far, by their JSON pointer in the document.
    at: HashMap<String, NodeId>,
    /// The location of each node, for messages.
    locations: Vec<String>,
    /// The location of the subschema of each `$anchor`.
    anchors: HashMap<String, String>,
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
    pub(super) fn compile(&mut self, schema: &'s Value, location: &str) -> Result<NodeId, String> {
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

    pub(super) fn compile_list(
        &mut self,
        value: &'s Value,
        location: &str,
    ) -> Result<Vec<NodeId>, String> {
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

    pub(super) fn compile_map(
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

    pub(super) fn resolve(&mut self, reference: &str, location: &str) -> Result<NodeId, String> {
        let unsupported = || {
            format!(
                "{}: the reference {reference:?} is not supported; only references \
                 inside the schema (`#`, `#/...` or `#` and an `$anchor`) are",
                shown(location)
            )
        };
        let fragment = reference.strip_prefix('#').ok_or_else(unsupported)?;
        let mut pointer = percent_decode(fragment).ok_or_else(unsupported)?;
        if !pointer.is_empty() && !pointer.starts_with('/') {
            pointer = self.anchors.get(&pointer).cloned().ok_or_else(|| {
                format!(
                    "{}: the reference {reference:?} names no `$anchor` of the schema",
                    shown(location)
                )
            })?;
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
                                 the value (through `$ref`, `allOf`, `anyOf`, `oneOf`, `not`, \
                                 `if`, `then` or `else`), so validation would never end",
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

/// The keywords whose value is a subschema, a list of them, or a map of
/// them: where `$anchor`s are looked for.
const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
];
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP: &[&str] = &["properties", "patternProperties", "$defs", "definitions"];

/// Records the location of the subschema of each `$anchor` in `schema`
/// (found at `location`), refusing invalid and repeated names.
fn find_anchors(
    schema: &Value,
    location: &str,
    anchors: &mut HashMap<String, String>,
) -> Result<(), String> {
    let Value::Object(map) = schema else {
        return Ok(());
    };
    if let Some(Value::String(name)) = map.get("$anchor") {
        let mut chars = name.chars();
        let valid = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
        let here = join(location, "$anchor");
        if !valid {
            return Err(format!(
                "{}: {name:?} is not an anchor name (a letter or `_`, then letters, digits, \
                 `-`, `.` or `_`)",
                shown(&here)
            ));
        }
        if let Some(other) = anchors.insert(name.clone(), location.to_owned()) {
            return Err(format!(
                "{}: the anchor {name:?} is also defined at {}",
                shown(&here),
                shown(&join(&other, "$anchor"))
            ));
        }
    }
    for (keyword, value) in map {
        let at = join(location, keyword);
        let keyword = keyword.as_str();
        if ONE.contains(&keyword) {
            find_anchors(value, &at, anchors)?;
        } else if LIST.contains(&keyword) {
            if let Value::Array(list) = value {
                for (i, sub) in list.iter().enumerate() {
                    find_anchors(sub, &join(&at, &i.to_string()), anchors)?;
                }
            }
        } else if MAP.contains(&keyword)
            && let Value::Object(subs) = value
        {
            for (name, sub) in subs {
                find_anchors(sub, &join(&at, name), anchors)?;
            }
        }
    }
    Ok(())
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
            Check::If {
                condition,
                then,
                otherwise,
            } => {
                out.push(*condition);
                out.extend(then.iter().chain(otherwise).copied());
            }
            _ => {}
        }
    }
    out
}
