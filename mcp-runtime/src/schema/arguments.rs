//! Argument validation against a tool's `inputSchema`, with messages a model
//! can act on: every violation at once, each with its JSON path.

use serde_json::{Map, Value};

use crate::schema::validator::{Error, ErrorKind, Schema};

/// A compiled input schema. Built once per tool at start-up.
pub(crate) struct ArgumentValidator {
    schema: Schema,
    /// The top-level argument names, listed when an unknown one is sent.
    names: Vec<String>,
}

impl ArgumentValidator {
    pub(crate) fn new(schema: &Map<String, Value>) -> Result<Self, String> {
        Self::from_owned(schema.clone())
    }

    /// [`ArgumentValidator::new`] of a schema no longer needed otherwise.
    pub(crate) fn from_owned(schema: Map<String, Value>) -> Result<Self, String> {
        let names = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let schema = Schema::compile(&Value::Object(schema))?;
        Ok(ArgumentValidator { schema, names })
    }

    /// Checks `arguments`; on failure returns the text of an `isError` result.
    ///
    /// The problems are listed in the order of the tool's parameters (all
    /// the problems of one argument together), unknown arguments last, so
    /// the text does not depend on the validator's evaluation order.
    pub(crate) fn validate(&self, tool: &str, arguments: &Value) -> Result<(), String> {
        if self.schema.is_valid(arguments) {
            return Ok(());
        }
        let mut problems: Vec<(usize, String)> = self
            .schema
            .errors(arguments)
            .iter()
            .map(|error| {
                let root_additional = matches!(
                    error.kind,
                    ErrorKind::False {
                        root_additional: true,
                        ..
                    }
                );
                let text = if root_additional && error.path.is_empty() {
                    // `additionalProperties: false` with no `properties` (a
                    // tool without arguments): name every unknown one.
                    let unexpected: Vec<&str> = arguments
                        .as_object()
                        .map(|map| {
                            map.keys()
                                .filter(|k| !self.names.contains(k))
                                .map(String::as_str)
                                .collect()
                        })
                        .unwrap_or_default();
                    unknown_arguments(&unexpected, Valid::None)
                } else {
                    self.describe(error)
                };
                (self.rank(error), text)
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

    /// Where a problem goes in the list: the position of the argument it is
    /// about, or after all arguments for problems with the object as a whole.
    fn rank(&self, error: &Error<'_>) -> usize {
        let path = error.path.as_str();
        let argument = match (path, &error.kind) {
            ("", ErrorKind::Required { property }) => Some((*property).to_owned()),
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

    fn describe(&self, error: &Error<'_>) -> String {
        let path = error.path.as_str();
        match &error.kind {
            ErrorKind::Required { property } => {
                let name = property;
                if path.is_empty() {
                    format!("`/{name}`: missing required argument `{name}`")
                } else {
                    format!("`{path}/{name}`: missing required property `{name}`")
                }
            }
            ErrorKind::AdditionalProperties { unexpected }
            | ErrorKind::UnevaluatedProperties { unexpected, .. } => {
                if path.is_empty() {
                    // Those beside `additionalProperties`, or those that
                    // `unevaluatedProperties` sees for these arguments (the
                    // ones of the `oneOf` branch they match, for instance).
                    let valid = match &error.kind {
                        ErrorKind::UnevaluatedProperties { declared, .. } => backticked(declared),
                        _ => backticked(&self.names),
                    };
                    unknown_arguments(unexpected, Valid::Names(valid))
                } else {
                    format!(
                        "`{path}`: unknown propert{} {}",
                        if unexpected.len() == 1 { "y" } else { "ies" },
                        backticked(unexpected)
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

/// What a call may have in place of unknown arguments.
enum Valid {
    /// Nothing: the tool takes no arguments.
    None,
    /// These names, listed (if none, the message does not say: members may
    /// be allowed by `patternProperties`, or by branches that these
    /// arguments do not match).
    Names(String),
}

fn unknown_arguments<S: AsRef<str>>(unexpected: &[S], valid: Valid) -> String {
    let listed = backticked(unexpected);
    let noun = if unexpected.len() == 1 { "" } else { "s" };
    match valid {
        Valid::None => format!("unknown argument{noun} {listed} (this tool takes no arguments)"),
        Valid::Names(names) if names.is_empty() => format!("unknown argument{noun} {listed}"),
        Valid::Names(names) => {
            format!("unknown argument{noun} {listed} (valid arguments: {names})")
        }
    }
}

/// `a`, `b`, `c`: names as the messages list them.
fn backticked<S: AsRef<str>>(names: &[S]) -> String {
    let mut listed = String::new();
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            listed.push_str(", ");
        }
        listed.push('`');
        listed.push_str(name.as_ref());
        listed.push('`');
    }
    listed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn validator() -> ArgumentValidator {
        let schema = json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 2},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
                "opts": {"type": "object", "properties": {"x": {"type": "boolean"}},
                         "required": ["x"], "additionalProperties": false}
            },
            "required": ["city"],
            "additionalProperties": false
        });
        ArgumentValidator::new(schema.as_object().unwrap()).unwrap()
    }

    #[test]
    fn valid_arguments_pass() {
        assert!(
            validator()
                .validate("t", &json!({"city": "Paris", "days": 3}))
                .is_ok()
        );
    }

    #[test]
    fn every_violation_is_listed_with_its_path() {
        let text = validator()
            .validate(
                "get_forecast",
                &json!({"days": 9, "colour": "red", "opts": {"y": 1}}),
            )
            .unwrap_err();
        assert!(
            text.starts_with("Invalid arguments for tool `get_forecast`:\n"),
            "{text}"
        );
        assert!(
            text.contains("`/city`: missing required argument `city`"),
            "{text}"
        );
        assert!(
            text.contains("`/days`: 9 is greater than the maximum of 7"),
            "{text}"
        );
        assert!(
            text.contains("unknown argument `colour` (valid arguments: `city`, `days`, `opts`)"),
            "{text}"
        );
        assert!(
            text.contains("`/opts/x`: missing required property `x`"),
            "{text}"
        );
        assert!(text.contains("`/opts`: unknown property `y`"), "{text}");
    }

    #[test]
    fn problems_follow_the_parameter_order_with_unknown_arguments_last() {
        let text = validator()
            .validate("t", &json!({"colour": 1, "opts": {}, "days": 0}))
            .unwrap_err();
        assert_eq!(
            text,
            "Invalid arguments for tool `t`:\n\
             - `/city`: missing required argument `city`\n\
             - `/days`: 0 is less than the minimum of 1\n\
             - `/opts/x`: missing required property `x`\n\
             - unknown argument `colour` (valid arguments: `city`, `days`, `opts`)\n\
             Correct the arguments and call the tool again."
        );
    }

    #[test]
    fn every_unknown_argument_of_a_tool_without_arguments_is_named() {
        let schema = json!({"type": "object", "additionalProperties": false});
        let validator = ArgumentValidator::new(schema.as_object().unwrap()).unwrap();
        assert!(validator.validate("t", &json!({})).is_ok());
        assert_eq!(
            validator
                .validate("t", &json!({"a": 1, "b": null}))
                .unwrap_err(),
            "Invalid arguments for tool `t`:\n\
             - unknown arguments `a`, `b` (this tool takes no arguments)\n\
             Correct the arguments and call the tool again."
        );
    }

    fn text(schema: Value, arguments: Value) -> String {
        let validator = ArgumentValidator::new(schema.as_object().unwrap()).unwrap();
        validator.validate("t", &arguments).unwrap_err()
    }

    #[test]
    fn the_valid_arguments_of_a_flattened_enum_are_those_of_the_matching_branch() {
        // As `schema.rs` makes it for a flattened enum.
        let branches = json!([
            {"properties": {"kind": {"const": "a"}, "x": {"type": "integer"}}, "required": ["kind"]},
            {"properties": {"kind": {"const": "b"}, "y": {"type": "integer"}}, "required": ["kind"]}
        ]);
        let alone = json!({"type": "object", "oneOf": branches, "unevaluatedProperties": false});
        assert_eq!(
            text(alone.clone(), json!({"kind": "a", "z": 1})),
            "Invalid arguments for tool `t`:\n\
             - unknown argument `z` (valid arguments: `kind`, `x`)\n\
             Correct the arguments and call the tool again."
        );
        // No branch matches: no name to offer, and the tool does take some.
        assert_eq!(
            text(alone, json!({"kind": "c", "z": 1})),
            "Invalid arguments for tool `t`:\n\
             - `arguments`: {\"kind\":\"c\",\"z\":1} is not valid under any of the schemas \
             listed in the 'oneOf' keyword\n\
             - unknown arguments `kind`, `z`\n\
             Correct the arguments and call the tool again."
        );
        let with_common = json!({
            "type": "object",
            "properties": {"common": {"type": "string"}},
            "oneOf": branches,
            "unevaluatedProperties": false
        });
        assert_eq!(
            text(with_common, json!({"kind": "b", "x": 1})),
            "Invalid arguments for tool `t`:\n\
             - unknown argument `x` (valid arguments: `common`, `kind`, `y`)\n\
             Correct the arguments and call the tool again."
        );
    }

    #[test]
    fn arguments_that_a_schema_in_unevaluated_properties_rejects_are_not_unknown() {
        let schema = json!({
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "unevaluatedProperties": {"type": "integer"}
        });
        assert_eq!(
            text(schema, json!({"name": "n", "count": "2"})),
            "Invalid arguments for tool `t`:\n\
             - `/count`: \"2\" is not of type \"integer\"\n\
             Correct the arguments and call the tool again."
        );
    }

    #[test]
    fn a_tool_with_pattern_properties_is_not_said_to_take_no_arguments() {
        let schema = json!({
            "type": "object",
            "patternProperties": {"^x-": {"type": "string"}},
            "additionalProperties": false
        });
        assert_eq!(
            text(schema, json!({"y": "1"})),
            "Invalid arguments for tool `t`:\n\
             - unknown argument `y`\n\
             Correct the arguments and call the tool again."
        );
    }
}
