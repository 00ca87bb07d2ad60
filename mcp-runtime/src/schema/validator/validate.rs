//! The verdict: whether a value is valid, without allocating.

use serde_json::Value;

use super::graph::{Check, NodeId, Schema};
use super::values::{bound_holds, equal, has_unique_items, is_multiple_of, type_matches};

impl Schema {
    /// Whether `value` is valid. Allocates nothing, except for
    /// `uniqueItems` over more than 32 items and `unevaluatedProperties`
    /// over objects of more than 128 members.
    pub(crate) fn is_valid(&self, value: &Value) -> bool {
        self.valid(self.root, value)
    }

    pub(super) fn valid(&self, id: NodeId, value: &Value) -> bool {
        let node = &self.nodes[id];
        if let Some(b) = node.boolean {
            return b;
        }
        node.checks
            .iter()
            .all(|check| self.check_valid(check, value))
    }

    pub(super) fn check_valid(&self, check: &Check, value: &Value) -> bool {
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
            Check::If {
                condition,
                then,
                otherwise,
            } => {
                if then.is_none() && otherwise.is_none() {
                    return true;
                }
                let branch = if self.valid(*condition, value) {
                    then
                } else {
                    otherwise
                };
                branch.is_none_or(|n| self.valid(n, value))
            }
            Check::Ref(node) => self.valid(*node, value),
            Check::Unevaluated { schema, owner } => match value {
                Value::Object(o) => self.unevaluated(*schema, *owner, value, o).is_none(),
                _ => true,
            },
        }
    }
}
