//! Applying [`ToolTransform`]s: the table the registry keeps (one merged
//! transform per tool name), and the derived [`Tool`] it makes of a tool
//! (whose arguments map back with an `ArgMap`).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::location::Location;
use crate::registry::error::RegistryError;
use crate::schema::arguments::ArgumentValidator;
use crate::schema::{headers, reshape};
use crate::tools::argmap::ArgMap;
use crate::tools::build::check_name;
use crate::tools::def::{Derived, Handler, Tool};
use crate::tools::transform::{ArgChange, ToolTransform};

/// The transforms of a server, merged per tool name.
#[derive(Debug, Default)]
pub(crate) struct Transforms {
    by_name: BTreeMap<String, Merged>,
}

/// The transforms of one tool, in the order they were added.
#[derive(Debug)]
struct Merged {
    /// The first one, whose settings the later ones override.
    first: ToolTransform,
    /// Where the rename was given, if any.
    rename_at: Option<Location>,
    /// Each argument change, with where it was given.
    args: Vec<(ArgChange, Location)>,
}

impl Transforms {
    /// Merges `transforms` per name; renaming one tool twice is refused.
    pub(crate) fn new(transforms: &[ToolTransform]) -> Result<Transforms, RegistryError> {
        let mut by_name: BTreeMap<String, Merged> = BTreeMap::new();
        for t in transforms {
            let args = t.args.iter().map(|a| (a.clone(), t.location));
            let Some(merged) = by_name.get_mut(&t.name) else {
                let mut first = t.clone();
                first.args.clear();
                by_name.insert(
                    t.name.clone(),
                    Merged {
                        rename_at: t.rename.as_ref().map(|_| t.location),
                        args: args.collect(),
                        first,
                    },
                );
                continue;
            };
            let into = &mut merged.first;
            if let Some(name) = &t.rename {
                if let (Some(earlier), Some(at)) = (&into.rename, merged.rename_at) {
                    return Err(RegistryError::InvalidTransform {
                        tool: t.name.clone(),
                        location: t.location,
                        reason: format!(
                            "it renames the tool to `{name}`, but the transform at {at} renames \
                             it to `{earlier}` already; keep one of the two names"
                        ),
                    });
                }
                into.rename = Some(name.clone());
                merged.rename_at = Some(t.location);
            }
            if t.title.is_some() {
                into.title.clone_from(&t.title);
            }
            if t.description.is_some() {
                into.description.clone_from(&t.description);
            }
            if t.tags.is_some() {
                into.tags.clone_from(&t.tags);
            }
            into.hide |= t.hide;
            into.optional &= t.optional;
            merged.args.extend(args);
        }
        Ok(Transforms { by_name })
    }

    /// Whether there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// Whether the tool `name` is not served at all.
    pub(crate) fn hides(&self, name: &str) -> bool {
        self.by_name.get(name).is_some_and(|m| m.first.hide)
    }

    /// The name the tool `name` is served under, or `None` if hidden.
    pub(crate) fn served_name<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        match self.by_name.get(name) {
            Some(merged) if merged.first.hide => None,
            Some(merged) => Some(merged.first.rename.as_deref().unwrap_or(name)),
            None => Some(name),
        }
    }

    /// The transforms that must name a tool, with where each was given.
    pub(crate) fn required(&self) -> impl Iterator<Item = (&str, Location)> {
        self.by_name
            .iter()
            .filter(|(_, m)| !m.first.optional)
            .map(|(name, m)| (name.as_str(), m.first.location))
    }

    /// `tool` as served: `None` if hidden, itself if no transform names
    /// it, otherwise the derived tool.
    pub(crate) fn apply(&self, tool: Arc<Tool>) -> Result<Option<Arc<Tool>>, RegistryError> {
        match self.by_name.get(tool.name()) {
            None => Ok(Some(tool)),
            Some(merged) if merged.first.hide => Ok(None),
            Some(merged) => derive(tool, merged).map(|t| Some(Arc::new(t))),
        }
    }
}

/// The tool `inner` with `merged` applied.
fn derive(inner: Arc<Tool>, merged: &Merged) -> Result<Tool, RegistryError> {
    let t = &merged.first;
    let invalid = |location: Location, reason: String| RegistryError::InvalidTransform {
        tool: inner.name().to_owned(),
        location,
        reason,
    };
    let name: Arc<str> = match &t.rename {
        Some(name) => {
            check_name(name).map_err(|why| {
                invalid(
                    merged.rename_at.unwrap_or(t.location),
                    format!("it renames the tool to {name:?}, which is not a tool name: {why}"),
                )
            })?;
            Arc::from(name.as_str())
        }
        None => Arc::clone(&inner.name),
    };
    let mut schema = inner.input_schema.clone();
    let mut args = ArgMap::default();
    for (change, location) in &merged.args {
        let done = match change {
            ArgChange::Rename { from, to } => {
                reshape::rename_arg(&mut schema, from, to).map(|()| args.rename(from, to))
            }
            ArgChange::Describe { name, text } => reshape::describe_arg(&mut schema, name, text),
            ArgChange::Fix { name, value } => {
                reshape::fix_arg(&mut schema, name, value).map(|()| args.fix(name, value))
            }
            ArgChange::Hide { name } => {
                reshape::hide_arg(&mut schema, name).map(|()| args.hide(name))
            }
        };
        done.map_err(|reason| invalid(*location, reason))?;
    }
    headers::check(&schema).map_err(|reason| invalid(t.location, reason))?;
    let validator = if merged.args.is_empty() {
        None
    } else {
        match ArgumentValidator::new(&schema) {
            Ok(validator) => Some(validator),
            // The tool's own schema did not compile either (a mounted
            // tool's, checked upstream): the tool's run checks nothing
            // more, and neither does this.
            Err(reason) => {
                tracing::warn!(tool = %inner.name, "its transformed input schema is not checked here ({reason})");
                None
            }
        }
    };
    let location = match merged.rename_at {
        Some(at) => at,
        None => inner.location,
    };
    Ok(Tool {
        name,
        title: t.title.clone().or_else(|| inner.title.clone()),
        description: t
            .description
            .clone()
            .unwrap_or_else(|| inner.description.clone()),
        hints: inner.hints,
        timeout: inner.timeout,
        task: inner.task,
        input_schema: schema,
        output_schema: inner.output_schema.clone(),
        wrap_output: inner.wrap_output,
        bare_output_schema: inner.bare_output_schema.clone(),
        validator: match validator {
            Some(validator) => validator,
            None => ArgumentValidator::from_owned(Map::from_iter([(
                "type".to_owned(),
                Value::from("object"),
            )]))
            .map_err(|reason| invalid(t.location, reason))?,
        },
        metadata: inner.metadata.clone(),
        ui: inner.ui.clone(),
        tags: match &t.tags {
            Some(tags) => tags.iter().cloned().collect(),
            None => Arc::clone(&inner.tags),
        },
        handler: Handler::Derived(Arc::new(Derived {
            inner: Arc::clone(&inner),
            args,
        })),
        location,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_renames_of_one_tool_are_refused() {
        let error = Transforms::new(&[
            ToolTransform::new("echo").rename("say"),
            ToolTransform::new("echo").description("Says it."),
            ToolTransform::new("echo").rename("repeat"),
        ])
        .unwrap_err();
        let text = error.to_string();
        assert!(
            text.contains("renames the tool to `repeat`, but the transform at"),
            "{text}"
        );
        assert!(text.contains("renames it to `say` already"), "{text}");
    }
}
