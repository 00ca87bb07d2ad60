//! The errors: every violation of an invalid value, with its path, in the
//! order `jsonschema` reports them. Only asked for after a `false` verdict.

use serde_json::Value;

use super::error::{Error, ErrorKind};
use super::graph::{BoundKind, Check, NodeId, Schema};
use super::pointer::escape;

impl Schema {
    /// Every violation, in the order `jsonschema` reports them.
    pub(crate) fn errors<'a>(&'a self, value: &'a Value) -> Vec<Error<'a>> {
        let mut errors = Vec::new();
        let mut path = String::new();
        self.collect(self.root, value, &mut path, &mut errors);
        errors
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
            // No error of its own: the errors of the branch that applies
            // (as `jsonschema` reports them).
            Check::If {
                condition,
                then,
                otherwise,
            } => {
                if then.is_none() && otherwise.is_none() {
                    return;
                }
                let branch = if self.valid(*condition, value) {
                    then
                } else {
                    otherwise
                };
                if let Some(n) = branch {
                    self.collect(*n, value, path, errors);
                }
            }
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
