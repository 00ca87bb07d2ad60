//! The per-tool tables the chain's config (`[servers.tools.NAME]`) and the
//! gateway's `--transforms` file (`[tools."NAME"]`) share: what to change
//! about one tool, turned into a [`ToolTransform`].
//!
//! ```toml
//! name = "say"                    # served under this name instead
//! title = "Say"
//! description = "Repeats the text."
//! tags = ["core"]                 # replace the tool's tags
//! hidden = true                   # not served at all (alone in its table)
//!
//! [arguments.message]             # an argument of the tool, by its own name
//! name = "text"                   # renamed
//! description = "What to repeat." # re-described
//! # value = 1                     # hidden, always this value (no name then)
//! # hidden = true                 # hidden, never sent (an optional one)
//! ```
//!
//! Included by both examples with `#[path]`.

use std::collections::BTreeMap;

use mcp_runtime::ToolTransform;
use mcp_runtime::serde_json::Value;
use serde::Deserialize;

/// One tool's table as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolTable {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    tags: Option<Vec<String>>,
    #[serde(default)]
    hidden: bool,
    #[serde(default)]
    arguments: BTreeMap<String, ArgumentTable>,
}

/// One `arguments.NAME` table as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArgumentTable {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    value: Option<Value>,
    #[serde(default)]
    hidden: bool,
}

impl ToolTable {
    /// Checks the table of the tool `key` (named `path` in the messages,
    /// such as `tools.echo`): one sentence with the fix when it cannot be
    /// used.
    pub fn check(&self, key: &str, path: &str) -> Result<(), String> {
        if key.is_empty() {
            return Err(format!(
                "`{path}` names no tool: give the tool's name as the table's key"
            ));
        }
        if let Some(name) = &self.name
            && !valid_tool_name(name)
        {
            return Err(format!(
                "`{path}.name = {name:?}` is not a tool name: use 1 to 64 letters, digits, `_`, `-` or `.`"
            ));
        }
        if let Some(tags) = &self.tags
            && tags.iter().any(|tag| tag.trim().is_empty())
        {
            return Err(format!(
                "`{path}.tags` has an empty tag: remove it, or write the tag"
            ));
        }
        let changes = self.name.is_some()
            || self.title.is_some()
            || self.description.is_some()
            || self.tags.is_some()
            || !self.arguments.is_empty();
        if self.hidden && changes {
            return Err(format!(
                "`{path}` has `hidden = true` and other keys: a hidden tool is not served, so keep `hidden = true` alone"
            ));
        }
        if !self.hidden && !changes {
            return Err(format!(
                "`{path}` changes nothing: add `name`, `title`, `description`, `tags`, `hidden` or an `arguments` table, or remove it"
            ));
        }
        for (argument, table) in &self.arguments {
            let at = format!("{path}.arguments.{argument}");
            table.check(&at)?;
        }
        Ok(())
    }

    /// The transform of the tool served as `served`, with `extra_tags`
    /// before the table's own `tags` (when the table has some).
    pub fn transform(&self, served: &str, extra_tags: &[String]) -> ToolTransform {
        let mut transform = ToolTransform::new(served);
        if self.hidden {
            return transform.hide();
        }
        if let Some(name) = &self.name {
            transform = transform.rename(name);
        }
        if let Some(title) = &self.title {
            transform = transform.title(title);
        }
        if let Some(description) = &self.description {
            transform = transform.description(description);
        }
        if let Some(tags) = &self.tags {
            let mut all: Vec<String> = extra_tags.to_vec();
            all.extend(tags.iter().filter(|tag| !extra_tags.contains(tag)).cloned());
            transform = transform.tags(all);
        }
        // Every argument by its own name first, then the renames, so that
        // one table never sees another's new name.
        for (argument, table) in &self.arguments {
            if let Some(value) = &table.value {
                transform = transform.fix_arg(argument, value.clone());
            } else if table.hidden {
                transform = transform.hide_arg(argument);
            } else if let Some(description) = &table.description {
                transform = transform.describe_arg(argument, description);
            }
        }
        for (argument, table) in &self.arguments {
            if let Some(name) = &table.name {
                transform = transform.rename_arg(argument, name);
            }
        }
        transform
    }
}

impl ArgumentTable {
    fn check(&self, path: &str) -> Result<(), String> {
        let shown = self.name.is_some() || self.description.is_some();
        if !shown && self.value.is_none() && !self.hidden {
            return Err(format!(
                "`{path}` is empty: give it `name`, `description`, `value` or `hidden = true`, or remove it"
            ));
        }
        if self.value.is_some() && shown {
            let key = if self.name.is_some() {
                "name"
            } else {
                "description"
            };
            return Err(format!(
                "`{path}` has both `value` and `{key}`: a fixed argument is not shown, so it has no {key}; keep one"
            ));
        }
        if self.hidden && shown {
            return Err(format!(
                "`{path}` has `hidden = true` and a `name` or `description`: a hidden argument is not shown; keep one"
            ));
        }
        if let Some(name) = &self.name
            && name.is_empty()
        {
            return Err(format!(
                "`{path}.name` is empty: give the argument's new name"
            ));
        }
        Ok(())
    }
}

/// The tool-name rule: 1 to 64 of `A-Z a-z 0-9 _ - .`.
pub fn valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// "line L, column C" of a byte offset in `text` (both from 1).
pub fn line_column(text: &str, offset: usize) -> String {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |at| at + 1) + 1;
    format!("line {line}, column {column}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Result<ToolTable, String> {
        toml::from_str(text).map_err(|error| error.message().to_owned())
    }

    fn refusal(text: &str) -> String {
        let table = table(text).expect("parses");
        table.check("echo", "tools.echo").expect_err("refused")
    }

    #[test]
    fn a_table_with_every_key_is_accepted() {
        let table = table(
            "name = \"say\"\ntitle = \"Say\"\ndescription = \"Repeats.\"\ntags = [\"core\"]\n\
             [arguments.message]\nname = \"text\"\ndescription = \"What to repeat.\"\n\
             [arguments.b]\nvalue = 1\n[arguments.page]\nhidden = true\n",
        )
        .unwrap();
        table.check("echo", "tools.echo").unwrap();
        assert_eq!(table.transform("x_echo", &[]).name(), "x_echo");
    }

    #[test]
    fn a_bad_tool_name_is_refused() {
        let message = refusal("name = \"say it\"");
        assert!(
            message.contains("`tools.echo.name = \"say it\"` is not a tool name"),
            "{message}"
        );
        let long = format!("name = \"{}\"", "a".repeat(65));
        assert!(refusal(&long).contains("is not a tool name"));
    }

    #[test]
    fn an_empty_argument_table_is_refused() {
        let message = refusal("[arguments.message]\n");
        assert!(
            message.contains("`tools.echo.arguments.message` is empty"),
            "{message}"
        );
    }

    #[test]
    fn a_value_with_a_name_is_refused() {
        let message = refusal("[arguments.b]\nvalue = 1\nname = \"bee\"\n");
        assert!(
            message.contains("has both `value` and `name`: a fixed argument is not shown"),
            "{message}"
        );
    }

    #[test]
    fn hidden_with_other_keys_is_refused() {
        assert!(refusal("hidden = true\nname = \"say\"").contains("keep `hidden = true` alone"));
        assert!(
            refusal("[arguments.a]\nhidden = true\nname = \"x\"").contains("a hidden argument")
        );
    }

    #[test]
    fn an_empty_tool_table_is_refused() {
        assert!(refusal("").contains("changes nothing"));
    }

    #[test]
    fn unknown_keys_are_refused() {
        let message = table("nmae = \"say\"").unwrap_err();
        assert!(message.contains("unknown field `nmae`"), "{message}");
        let message = table("[arguments.a]\nfixed = 1").unwrap_err();
        assert!(message.contains("unknown field `fixed`"), "{message}");
    }
}
