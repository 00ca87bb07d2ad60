//! `unevaluatedProperties`: which members of an object the schema and its
//! in-place subschemas evaluate, by the rules of JSON Schema 2020-12 (as
//! `jsonschema` applies them).

use serde_json::{Map, Value};

use super::graph::{Check, NodeId, Schema};

/// A set of member indexes of one object; no allocation up to 128 members.
pub(super) enum Marks {
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
    pub(super) fn get(&self, i: usize) -> bool {
        match self {
            Marks::Small(bits) => bits & (1u128 << i) != 0,
            Marks::Big(v) => v[i],
        }
    }
}

impl Schema {
    /// The subschemas of an `if` whose annotations count for `value`: the
    /// `if` and the `then` if the `if` holds, else the `else`. As in
    /// `jsonschema`, the `then` or `else` counts whether or not it holds:
    /// if it does not, the value is invalid anyway, and its errors say what
    /// is wrong with the members it names rather than calling them
    /// unevaluated.
    fn conditional(
        &self,
        condition: NodeId,
        then: Option<NodeId>,
        otherwise: Option<NodeId>,
        value: &Value,
    ) -> impl Iterator<Item = NodeId> {
        let (first, second) = if self.valid(condition, value) {
            (Some(condition), then)
        } else {
            (otherwise, None)
        };
        first.into_iter().chain(second)
    }

    /// Adds to `names` the member names that the schema `id` declares (in
    /// `properties`) for the object `value`: itself, and the subschemas
    /// whose annotations `unevaluatedProperties` counts (`$ref` targets,
    /// valid `allOf` and `anyOf` branches, the one valid `oneOf` branch,
    /// those of an `if`: see [`Schema::conditional`]).
    pub(super) fn declare<'a>(&'a self, id: NodeId, value: &Value, names: &mut Vec<&'a str>) {
        let node = &self.nodes[id];
        for name in &node.eval.names {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        for check in &node.checks {
            match check {
                Check::Ref(target) => self.declare(*target, value, names),
                Check::If {
                    condition,
                    then,
                    otherwise,
                } => {
                    for n in self.conditional(*condition, *then, *otherwise, value) {
                        self.declare(n, value, names);
                    }
                }
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

    /// The members of `object` that the schema `owner` evaluates, added to
    /// `marks` (the semantics of `jsonschema`: `properties` and
    /// `patternProperties` names, everything under `additionalProperties`,
    /// what a nested `unevaluatedProperties` accepts, and what `$ref`s, valid
    /// `allOf` and `anyOf` branches, the one valid `oneOf` branch and the
    /// applying branches of an `if` evaluate).
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
                Check::If {
                    condition,
                    then,
                    otherwise,
                } => {
                    for n in self.conditional(*condition, *then, *otherwise, value) {
                        self.mark(n, value, object, marks, false);
                    }
                }
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
    pub(super) fn unevaluated(
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
}
