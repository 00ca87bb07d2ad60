//! Building a served [`Tool`] from what `#[tool]` submitted or from a
//! [`DynamicTool`]: schemas generated and shaped, the validator compiled,
//! the state it needs checked.

use std::sync::Arc;

use serde_json::Value;

use crate::apps::link;
use crate::context::StateMap;
use crate::location::Location;
use crate::meta::Metadata;
use crate::registry::catalog::Keyed;
use crate::registry::error::{Primitive, RegistryError, check_state};
use crate::schema::arguments::ArgumentValidator;
use crate::schema::generate as schema;
use crate::schema::headers;
use crate::tools::def::{Handler, Tool, ToolDef};
use crate::tools::dynamic::DynamicTool;

/// A tool before it is built: what `#[tool]` submitted, or one added to
/// the builder.
pub(crate) enum ToolSource<'a> {
    Static(&'static ToolDef),
    Dynamic(&'a DynamicTool),
}

impl Keyed for ToolSource<'_> {
    fn key(&self) -> &str {
        match self {
            ToolSource::Static(def) => def.name,
            ToolSource::Dynamic(tool) => &tool.name,
        }
    }

    fn location(&self) -> Location {
        match self {
            ToolSource::Static(def) => def.location,
            ToolSource::Dynamic(tool) => tool.location,
        }
    }
}

impl ToolSource<'_> {
    pub(crate) fn build(&self, state: &StateMap) -> Result<Tool, RegistryError> {
        match self {
            ToolSource::Static(def) => build_static(def, state),
            ToolSource::Dynamic(tool) => build_dynamic(tool),
        }
    }
}

pub(crate) fn build_static(def: &'static ToolDef, state: &StateMap) -> Result<Tool, RegistryError> {
    let invalid = |which: &'static str, reason: String| RegistryError::InvalidSchema {
        tool: def.name.to_owned(),
        location: def.location,
        which,
        reason,
    };
    check_state(
        def.requirements,
        state,
        Primitive::Tool,
        def.name,
        def.location,
    )?;
    // A fresh generator per tool: `root_schema_for` puts every definition
    // the generator has seen so far into `$defs`, so a shared one would leak
    // one tool's recursive types into the schemas of the tools after it.
    let raw_input = (def.input_schema)(&mut schema::input_generator());
    let (mut input_schema, mut checked_input) =
        schema::finish_inputs(raw_input).map_err(|r| invalid("input", r))?;
    headers::check(&input_schema).map_err(|r| invalid("input", r))?;
    headers::bound_integers(&mut input_schema);
    headers::bound_integers(&mut checked_input);
    let (output_schema, bare_output_schema) =
        match (def.output_schema)(&mut schema::output_generator()) {
            Some(schema) => {
                let (schema, bare) =
                    schema::finish_output(schema).map_err(|r| invalid("output", r))?;
                (Some(schema), bare)
            }
            None => (None, None),
        };
    let wrap_output = bare_output_schema.is_some();
    let validator =
        ArgumentValidator::from_owned(checked_input).map_err(|r| invalid("input", r))?;
    let invalid_tool = |reason| RegistryError::InvalidTool {
        name: def.name.to_owned(),
        location: def.location,
        reason,
    };
    let mut metadata =
        Metadata::from_attribute(def.icons, def.meta, def.scopes).map_err(invalid_tool)?;
    if let Some(ui) = &def.ui {
        // The macro writes no visibility as an empty list, and refuses an
        // empty one.
        let visibility = (!ui.visibility.is_empty()).then_some(ui.visibility);
        let meta = link::tool_meta(metadata.meta.take(), ui.resource_uri, visibility);
        metadata.meta = Some(meta.map_err(invalid_tool)?);
    }
    Ok(Tool {
        name: Arc::from(def.name),
        title: def.title.map(str::to_owned),
        description: def.description.to_owned(),
        hints: def.hints,
        timeout: def.timeout,
        task: def.task,
        input_schema,
        output_schema,
        wrap_output,
        bare_output_schema,
        validator,
        metadata,
        ui: def.ui.map(|ui| Arc::from(ui.resource_uri)),
        tags: def.tags.iter().map(|&tag| tag.to_owned()).collect(),
        handler: Handler::Static(def.call),
        location: def.location,
    })
}

pub(crate) fn build_dynamic(tool: &DynamicTool) -> Result<Tool, RegistryError> {
    let invalid = |which: &'static str, reason: String| RegistryError::InvalidSchema {
        tool: tool.name.clone(),
        location: tool.location,
        which,
        reason,
    };
    if let Err(reason) = check_name(&tool.name) {
        return Err(RegistryError::InvalidName {
            name: tool.name.clone(),
            location: tool.location,
            reason,
        });
    }
    let mut input_schema =
        schema::check_dynamic_input(&tool.input_schema).map_err(|r| invalid("input", r))?;
    match headers::check(&input_schema) {
        Ok(()) => headers::bound_integers(&mut input_schema),
        // Not ours to fix, and clients drop a tool listed with a bad mark:
        // served without its marks, which are only a routing aid.
        Err(reason) if tool.checked_upstream => {
            tracing::warn!(
                tool = %tool.name,
                "its input schema has an invalid x-mcp-header ({reason}); it is served without \
                 its x-mcp-header marks, so clients keep it"
            );
            headers::strip(&mut input_schema);
        }
        Err(reason) => return Err(invalid("input", reason)),
    }
    let (output_schema, bare_output_schema) = match &tool.output_schema {
        Some(Value::Object(map)) if map.get("type") == Some(&Value::from("object")) => {
            (Some(map.clone()), None)
        }
        Some(Value::Object(map)) if tool.bare_output => {
            let (wrapped, bare) = schema::wrap_output_schema(map.clone());
            (Some(wrapped), bare)
        }
        Some(_) => {
            return Err(invalid(
                "output",
                "an output schema must be an object with `\"type\": \"object\"`".into(),
            ));
        }
        None => (None, None),
    };
    let validator = match ArgumentValidator::new(&input_schema) {
        Ok(validator) => validator,
        Err(reason) if tool.checked_upstream => {
            tracing::warn!(
                tool = %tool.name,
                "its input schema is served as is but not checked here ({reason}); the server it \
                 is forwarded to checks the arguments"
            );
            let object = serde_json::Map::from_iter([("type".to_owned(), Value::from("object"))]);
            ArgumentValidator::from_owned(object).map_err(|r| invalid("input", r))?
        }
        Err(reason) => return Err(invalid("input", reason)),
    };
    let invalid_tool = |reason| RegistryError::InvalidTool {
        name: tool.name.clone(),
        location: tool.location,
        reason,
    };
    let mut metadata = Metadata::from_dynamic(&tool.icons, tool.meta.as_ref(), &tool.scopes)
        .map_err(invalid_tool)?;
    match (&tool.ui, &tool.visibility) {
        (Some(uri), visibility) => {
            let meta = link::tool_meta(metadata.meta.take(), uri, visibility.as_deref());
            metadata.meta = Some(meta.map_err(invalid_tool)?);
        }
        (None, Some(_)) => {
            return Err(invalid_tool(
                "it has a visibility but links no view; a visibility says who may call a tool \
                 with a view: call `.ui(\"ui://..\")` too, or leave `.visibility(..)` out"
                    .into(),
            ));
        }
        (None, None) => {}
    }
    Ok(Tool {
        name: Arc::from(tool.name.as_str()),
        title: tool.title.clone(),
        description: tool.description.clone(),
        hints: tool.hints,
        timeout: tool.timeout,
        task: tool.task,
        input_schema,
        output_schema,
        wrap_output: bare_output_schema.is_some(),
        bare_output_schema,
        validator,
        metadata,
        ui: tool.ui.as_deref().map(Arc::from),
        tags: Arc::from(tool.tags.as_slice()),
        handler: Handler::Dynamic(Arc::clone(&tool.handler)),
        location: tool.location,
    })
}

/// The tool-name rule: `^[A-Za-z0-9_.-]{1,64}$`.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    match name.chars().count() {
        0 => return Err("it is empty; use 1 to 64 characters".into()),
        count @ 65.. => return Err(format!("it has {count} characters; use at most 64")),
        _ => {}
    }
    match name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        Some(bad) => Err(format!(
            "{bad:?} is not allowed; use only ASCII letters, digits, `_`, `.` and `-`"
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::context::Context;
    use crate::protocol::shape::tool_json;
    use crate::protocol::version::ProtocolVersion;
    use crate::tools::output::CallToolResult;

    /// A dynamic tool whose output is an array (as OpenAPI's are).
    fn numbers(bare_output: bool) -> DynamicTool {
        let mut tool = DynamicTool::new(
            "numbers",
            "Some numbers.",
            json!({"type": "object"}),
            |_arguments, _ctx| async move { CallToolResult::structured(json!([1, 2])) },
        )
        .output_schema(json!({"type": "array", "items": {"type": "integer"}}));
        tool.bare_output = bare_output;
        tool
    }

    #[tokio::test]
    async fn a_bare_output_is_wrapped_for_clients_before_2026_07_28() {
        let tool = build_dynamic(&numbers(true)).unwrap();
        let wrapped = json!({"type": "object", "properties": {"result": {"type": "array", "items": {"type": "integer"}}}, "required": ["result"]});
        for version in ProtocolVersion::ALL {
            let listed = tool_json(&tool, version);
            let expected = if version.is_modern() {
                json!({"type": "array", "items": {"type": "integer"}})
            } else {
                wrapped.clone()
            };
            if version.has_structured_output() {
                assert_eq!(listed["outputSchema"], expected, "{version}");
            }
        }
        // A call without a client's version is answered as to the legacy era.
        let ctx = Context::new(Arc::from("numbers"), Arc::new(StateMap::default()));
        let result = tool.call(json!({}), ctx, None).await.into_result();
        assert_eq!(result.structured_content, Some(json!({"result": [1, 2]})));
        assert!(!result.is_error);
        // Without the flag, only an object's schema is taken.
        assert!(build_dynamic(&numbers(false)).is_err());
    }
}
