//! Argument validation against a tool's `inputSchema`, with messages a model
//! can act on: every violation at once, each with its JSON path.

use jsonschema::error::ValidationErrorKind;
use serde_json::{Map, Value};

/// A compiled input schema. Built once per tool at start-up.
pub(crate) struct ArgumentValidator {
    validator: jsonschema::Validator,
    /// The top-level argument names, listed when an unknown one is sent.
    names: Vec<String>,
}

impl ArgumentValidator {
    pub(crate) fn new(schema: &Map<String, Value>) -> Result<Self, String> {
        let schema = Value::Object(schema.clone());
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&schema)
            .map_err(|e| format!("the input schema is not valid JSON Schema: {e}"))?;
        let names = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        Ok(ArgumentValidator { validator, names })
    }

    /// Checks `arguments`; on failure returns the text of an `isError` result.
    pub(crate) fn validate(&self, tool: &str, arguments: &Value) -> Result<(), String> {
        if self.validator.is_valid(arguments) {
            return Ok(());
        }
        let mut problems: Vec<String> = self
            .validator
            .iter_errors(arguments)
            .map(|error| self.describe(error.instance_path().as_str(), error.kind(), &error))
            .collect();
        problems.dedup();
        let mut text = format!("Invalid arguments for tool `{tool}`:\n");
        for problem in &problems {
            text.push_str("- ");
            text.push_str(problem);
            text.push('\n');
        }
        text.push_str("Correct the arguments and call the tool again.");
        Err(text)
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
                let listed = unexpected
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let noun = if unexpected.len() == 1 { "" } else { "s" };
                if path.is_empty() {
                    let valid = if self.names.is_empty() {
                        "this tool takes no arguments".to_owned()
                    } else {
                        format!(
                            "valid arguments: {}",
                            self.names
                                .iter()
                                .map(|n| format!("`{n}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    };
                    format!("unknown argument{noun} {listed} ({valid})")
                } else {
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
}
