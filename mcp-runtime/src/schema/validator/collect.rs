//! The errors: every violation of an invalid value, with its path, in the
//! order `jsonschema` reports them. Only asked for after a `false` verdict.

use regex_lite::Regex;
use serde_json::{Map, Value};

use super::error::{Error, ErrorKind};
use super::graph::{BoundKind, Check, NodeId, Properties, Schema};
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

    /// The errors of one keyword (or of the keywords folded into one
    /// check). Every `Check` is named here, so a new one does not compile
    /// until it says what it reports.
    fn collect_check<'a>(
        &'a self,
        check: &'a Check,
        value: &'a Value,
        path: &mut String,
        errors: &mut Vec<Error<'a>>,
    ) {
        match check {
            Check::Items { start, node } => self.collect_items(*start, *node, value, path, errors),
            Check::PrefixItems(nodes) => self.collect_prefix_items(nodes, value, path, errors),
            Check::Required(names) => {
                if let Value::Object(o) = value {
                    missing(names, o, path, errors);
                }
            }
            Check::Properties {
                properties,
                required,
            } => self.collect_properties(properties, required.as_ref(), value, path, errors),
            Check::PatternProperties(patterns) => {
                self.collect_pattern_properties(patterns, value, path, errors);
            }
            Check::Members {
                properties,
                patterns,
                additional,
                required,
                root,
            } => {
                let members = Members {
                    properties,
                    patterns,
                    additional: *additional,
                    required: required.as_deref(),
                    root: *root,
                };
                self.collect_members(&members, value, path, errors);
            }
            Check::AllOf(nodes) => {
                for n in nodes {
                    self.collect(*n, value, path, errors);
                }
            }
            Check::Ref(node) => self.collect(*node, value, path, errors),
            Check::If {
                condition,
                then,
                otherwise,
            } => self.collect_if(*condition, *then, *otherwise, value, path, errors),
            Check::Unevaluated { schema, owner } => {
                self.collect_unevaluated(*schema, *owner, value, path, errors);
            }
            // The assertions: one error each, where the value fails them.
            Check::Type { .. }
            | Check::Enum(_)
            | Check::Const(_)
            | Check::Bound { .. }
            | Check::MultipleOf(_)
            | Check::MinLength(_)
            | Check::MaxLength(_)
            | Check::Pattern(..)
            | Check::MinItems(_)
            | Check::MaxItems(_)
            | Check::UniqueItems
            | Check::MinProperties(_)
            | Check::MaxProperties(_)
            | Check::AnyOf(_)
            | Check::OneOf(_)
            | Check::Not(..) => {
                if !self.check_valid(check, value)
                    && let Some(kind) = self.violation(check, value)
                {
                    errors.push(at(path, kind));
                }
            }
        }
    }

    /// `items` from `start`: each item's errors, at its index.
    fn collect_items<'a>(
        &'a self,
        start: usize,
        node: NodeId,
        value: &'a Value,
        path: &mut String,
        errors: &mut Vec<Error<'a>>,
    ) {
        if let Value::Array(a) = value {
            for (i, item) in a.iter().enumerate().skip(start) {
                self.below(node, item, &i.to_string(), path, errors);
            }
        }
    }

    /// `prefixItems`: each item's errors against the schema at its index.
    fn collect_prefix_items<'a>(
        &'a self,
        nodes: &[NodeId],
        value: &'a Value,
        path: &mut String,
        errors: &mut Vec<Error<'a>>,
    ) {
        if let Value::Array(a) = value {
            for (i, (item, node)) in a.iter().zip(nodes).enumerate() {
                self.below(*node, item, &i.to_string(), path, errors);
            }
        }
    }

    /// `properties` (with a `required` of two names folded in): the
    /// missing names, then each named member's errors.
    fn collect_properties<'a>(
        &'a self,
        properties: &'a Properties,
        required: Option<&'a [String; 2]>,
        value: &'a Value,
        path: &mut String,
        errors: &mut Vec<Error<'a>>,
    ) {
        let Value::Object(o) = value else { return };
        if let Some(required) = required {
            missing(required, o, path, errors);
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

    /// `patternProperties` alone: each matching member's errors, pattern by
    /// pattern.
    fn collect_pattern_properties<'a>(
        &'a self,
        patterns: &'a [(Regex, NodeId)],
        value: &'a Value,
        path: &mut String,
        errors: &mut Vec<Error<'a>>,
    ) {
        let Value::Object(o) = value else { return };
        for (re, node) in patterns {
            for (name, v) in o {
                if re.is_match(name) {
                    self.below(*node, v, name, path, errors);
                }
            }
        }
    }

    /// `additionalProperties` with the `properties` and `patternProperties`
    /// beside it: each member's errors against every schema that applies
    /// to it, then the members none applies to, then the missing one.
    fn collect_members<'a>(
        &'a self,
        members: &Members<'a>,
        value: &'a Value,
        path: &mut String,
        errors: &mut Vec<Error<'a>>,
    ) {
        let Value::Object(o) = value else { return };
        let Members {
            properties,
            patterns,
            additional,
            required,
            root,
        } = *members;
        if additional.is_none() && properties.list.is_empty() && patterns.is_empty() {
            if let Some((_, first)) = o.iter().next() {
                errors.push(at(
                    path,
                    ErrorKind::False {
                        instance: first,
                        root_additional: root,
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
                    Some(node) => self.below(node, v, name, path, errors),
                    None => unexpected.push(name.as_str()),
                }
            }
        }
        if !unexpected.is_empty() {
            errors.push(at(path, ErrorKind::AdditionalProperties { unexpected }));
        }
        // As `jsonschema` does, the required member counts as present only
        // if `properties` names it.
        if let Some(name) = required
            && !(o.contains_key(name) && properties.get(name).is_some())
        {
            errors.push(at(path, ErrorKind::Required { property: name }));
        }
    }

    /// `if`: no error of its own, but the errors of the branch that applies
    /// (as `jsonschema` reports them).
    fn collect_if<'a>(
        &'a self,
        condition: NodeId,
        then: Option<NodeId>,
        otherwise: Option<NodeId>,
        value: &'a Value,
        path: &mut String,
        errors: &mut Vec<Error<'a>>,
    ) {
        if then.is_none() && otherwise.is_none() {
            return;
        }
        let branch = if self.valid(condition, value) {
            then
        } else {
            otherwise
        };
        if let Some(n) = branch {
            self.collect(n, value, path, errors);
        }
    }

    /// `unevaluatedProperties`: the members no other keyword evaluated,
    /// named when the schema is `false`, else each one's errors.
    fn collect_unevaluated<'a>(
        &'a self,
        schema: NodeId,
        owner: NodeId,
        value: &'a Value,
        path: &mut String,
        errors: &mut Vec<Error<'a>>,
    ) {
        let Value::Object(o) = value else { return };
        let Some(marks) = self.unevaluated(schema, owner, value, o) else {
            return;
        };
        let rejected = o.iter().enumerate().filter(|(i, _)| !marks.get(*i));
        if self.nodes[schema].boolean == Some(false) {
            // `false`: the members are not allowed at all, by name.
            let unexpected = rejected.map(|(_, (k, _))| k.as_str()).collect();
            let mut declared = Vec::new();
            self.declare(owner, value, &mut declared);
            errors.push(at(
                path,
                ErrorKind::UnevaluatedProperties {
                    unexpected,
                    declared,
                },
            ));
        } else {
            // A schema: the members are allowed, but their values are
            // wrong; say how, at each one (as for a schema in
            // `additionalProperties`).
            for (_, (name, v)) in rejected {
                self.below(schema, v, name, path, errors);
            }
        }
    }

    /// The error of an assertion that `value` fails; `None` for the
    /// applicators, whose errors are those of their subschemas (collected
    /// by `collect_check`, which asks only for assertions).
    fn violation<'a>(&'a self, check: &'a Check, instance: &'a Value) -> Option<ErrorKind<'a>> {
        use ErrorKind as K;
        Some(match check {
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
                if nodes.iter().any(|n| self.valid(*n, instance)) {
                    K::OneOfMany { instance }
                } else {
                    K::OneOfNone { instance }
                }
            }
            Check::Not(_, schema) => K::Not { schema, instance },
            Check::Items { .. }
            | Check::PrefixItems(_)
            | Check::Required(_)
            | Check::Properties { .. }
            | Check::PatternProperties(_)
            | Check::Members { .. }
            | Check::AllOf(_)
            | Check::If { .. }
            | Check::Ref(_)
            | Check::Unevaluated { .. } => return None,
        })
    }
}

/// `additionalProperties` with what stands beside it: the fields of
/// `Check::Members`.
#[derive(Clone, Copy)]
struct Members<'a> {
    properties: &'a Properties,
    patterns: &'a [(Regex, NodeId)],
    /// `None`: `false`.
    additional: Option<NodeId>,
    required: Option<&'a str>,
    root: bool,
}

/// An error at `path`.
fn at<'a>(path: &str, kind: ErrorKind<'a>) -> Error<'a> {
    Error {
        path: path.to_owned(),
        kind,
    }
}

/// A `required` error for each of `names` that `object` lacks.
fn missing<'a>(
    names: &'a [String],
    object: &Map<String, Value>,
    path: &str,
    errors: &mut Vec<Error<'a>>,
) {
    for name in names {
        if !object.contains_key(name) {
            errors.push(at(path, ErrorKind::Required { property: name }));
        }
    }
}
