//! A form: the `requestedSchema` of an `elicitation/create` request built
//! from a type's fields, and the reading of the user's answer against it.

use serde_json::{Map, Value};

use crate::protocol::version::ProtocolVersion;
use crate::schema::validator::Schema;

/// A form a tool can ask its client's user to fill in with
/// [`Context::elicit`](crate::Context::elicit). Derive it:
///
/// ```
/// use mcp_runtime::Elicit;
///
/// #[derive(Elicit)]
/// enum Units {
///     #[elicit(title = "Celsius (°C)")]
///     Celsius,
///     #[elicit(title = "Fahrenheit (°F)")]
///     Fahrenheit,
/// }
///
/// #[derive(Elicit)]
/// struct Subscription {
///     /// Send the alerts?
///     confirm: bool,
///     /// Where to send them.
///     #[elicit(format = "email")]
///     email: Option<String>,
///     #[elicit(title = "Units", default = Units::Celsius)]
///     units: Units,
/// }
/// ```
///
/// The derive takes a struct with named fields whose types are listed at
/// [`ElicitField`](crate::ElicitField); a field of another type, or a key
/// that does not apply to its type, is a compile error under it. See the
/// derive's documentation for the keys.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a form a user can fill in",
    label = "not an elicitation form",
    note = "derive it on a struct with named fields: `#[derive(Elicit)] struct Answer {{ confirm: bool }}`"
)]
pub trait Elicit: Sized {
    /// The form, built once.
    #[doc(hidden)]
    fn form() -> &'static Result<Form, String>;

    /// The value of an answer [`Form::read`] accepted.
    #[doc(hidden)]
    fn from_answer(content: Map<String, Value>) -> Result<Self, String>;
}

/// A form's requested schema, compiled to check answers with.
#[doc(hidden)]
pub struct Form {
    /// `{"type": "object", "properties": .., "required": ..}`.
    schema: Value,
    /// The `default` of each property that has one.
    defaults: Vec<(String, Value)>,
    check: Schema,
}

/// Builds a [`Form`]: what `#[derive(Elicit)]` expands to.
#[doc(hidden)]
pub struct FormBuilder {
    properties: Map<String, Value>,
    required: Vec<Value>,
}

/// One property of a form being built.
#[doc(hidden)]
pub struct Field<'a>(&'a mut Map<String, Value>);

impl Form {
    /// An empty form.
    pub fn builder() -> FormBuilder {
        FormBuilder {
            properties: Map::new(),
            required: Vec::new(),
        }
    }

    /// The requested schema, in the form `version` knows: before
    /// 2025-11-25, a titled single choice is written with the older
    /// `enum`/`enumNames` pair.
    pub(crate) fn schema_for(&self, version: Option<ProtocolVersion>) -> Value {
        if version.is_none_or(|v| v >= ProtocolVersion::V2025_11_25) {
            return self.schema.clone();
        }
        let mut schema = self.schema.clone();
        if let Some(properties) = schema["properties"].as_object_mut() {
            for property in properties.values_mut() {
                with_enum_names(property);
            }
        }
        schema
    }

    /// The accepted `content` as the type reads it: properties sent as
    /// `null` count as left out, left-out properties get their defaults,
    /// and the whole is checked against the schema. On failure, every
    /// problem, each with the property it is about.
    pub fn read(&self, mut content: Map<String, Value>) -> Result<Map<String, Value>, String> {
        content.retain(|_, value| !value.is_null());
        for (name, default) in &self.defaults {
            if !content.contains_key(name) {
                content.insert(name.clone(), default.clone());
            }
        }
        let content = Value::Object(content);
        let errors = self.check.errors(&content);
        if !errors.is_empty() {
            let problems: Vec<String> = errors
                .iter()
                .map(|error| {
                    let path = error.path.as_str();
                    if path.is_empty() {
                        error.to_string()
                    } else {
                        format!("`{path}`: {error}")
                    }
                })
                .collect();
            return Err(problems.join("; "));
        }
        match content {
            Value::Object(map) => Ok(map),
            _ => unreachable!("built from a map"),
        }
    }
}

/// Rewrites a titled single choice (`oneOf` of `const`/`title`) as the
/// `enum`/`enumNames` pair of protocol 2025-06-18.
fn with_enum_names(property: &mut Value) {
    let Some(choices) = property.get("oneOf").and_then(Value::as_array) else {
        return;
    };
    let values: Vec<Value> = choices.iter().map(|c| c["const"].clone()).collect();
    let names: Vec<Value> = choices.iter().map(|c| c["title"].clone()).collect();
    if let Some(property) = property.as_object_mut() {
        property.remove("oneOf");
        property.insert("enum".into(), Value::Array(values));
        property.insert("enumNames".into(), Value::Array(names));
    }
}

impl FormBuilder {
    /// Adds the property `name` with the schema of its type; `required`
    /// unless the type is an `Option` or the field has a default.
    pub fn field(
        &mut self,
        name: &'static str,
        schema: Map<String, Value>,
        required: bool,
    ) -> Field<'_> {
        if required {
            self.required.push(Value::from(name));
        }
        let slot = self.properties.entry(name).or_insert(Value::Object(schema));
        match slot {
            Value::Object(map) => Field(map),
            _ => unreachable!("inserted as an object"),
        }
    }

    /// The form, or why its schema cannot check answers (a `pattern` that
    /// is not a regular expression).
    pub fn finish(self) -> Result<Form, String> {
        let defaults = self
            .properties
            .iter()
            .filter_map(|(name, p)| Some((name.clone(), p.get("default")?.clone())))
            .collect();
        let schema = serde_json::json!({
            "type": "object",
            "properties": self.properties,
            "required": self.required,
        });
        let check = Schema::compile(&schema)?;
        Ok(Form {
            schema,
            defaults,
            check,
        })
    }
}

impl Field<'_> {
    /// Sets a keyword (`title`, `description`, `minimum`...).
    pub fn set(&mut self, keyword: &'static str, value: impl Into<Value>) -> &mut Self {
        self.0.insert(keyword.into(), value.into());
        self
    }

    /// Sets `default`, unless the value is an empty `Option`.
    pub fn default(&mut self, value: Option<Value>) -> &mut Self {
        if let Some(value) = value {
            self.0.insert("default".into(), value);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form() -> Form {
        let mut form = Form::builder();
        form.field(
            "name",
            json!({"type": "string"}).as_object().unwrap().clone(),
            true,
        )
        .set("minLength", 2);
        form.field(
            "age",
            json!({"type": "integer"}).as_object().unwrap().clone(),
            false,
        )
        .default(Some(json!(30)));
        form.field(
            "color",
            json!({"type": "string", "oneOf": [{"const": "r", "title": "Red"}]})
                .as_object()
                .unwrap()
                .clone(),
            false,
        );
        form.finish().unwrap()
    }

    #[test]
    fn an_answer_gets_defaults_and_is_checked() {
        let form = form();
        let read = form
            .read(
                json!({"name": "Ada", "color": null})
                    .as_object()
                    .unwrap()
                    .clone(),
            )
            .unwrap();
        assert_eq!(Value::Object(read), json!({"name": "Ada", "age": 30}));
        let error = form
            .read(
                json!({"name": "A", "age": "old"})
                    .as_object()
                    .unwrap()
                    .clone(),
            )
            .unwrap_err();
        assert!(error.contains("`/name`"), "{error}");
        assert!(error.contains("`/age`"), "{error}");
        let missing = form.read(Map::new()).unwrap_err();
        assert!(missing.contains("name"), "{missing}");
    }

    #[test]
    fn older_clients_get_enum_names_for_titled_choices() {
        let form = form();
        let old = form.schema_for(Some(ProtocolVersion::V2025_06_18));
        assert_eq!(
            old["properties"]["color"],
            json!({"type": "string", "enum": ["r"], "enumNames": ["Red"]})
        );
        let new = form.schema_for(Some(ProtocolVersion::V2025_11_25));
        assert_eq!(new["properties"]["color"]["oneOf"][0]["title"], "Red");
    }
}
