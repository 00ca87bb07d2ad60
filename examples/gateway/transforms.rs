//! The gateway's `--transforms FILE`: what to change about the tools it
//! serves, by the names it serves them under, in TOML (or JSON, for a
//! file whose name ends in `.json`):
//!
//! ```toml
//! [tools."everything_echo"]
//! name = "say"
//! description = "Repeats the text."
//! tags = ["core"]
//! [tools."everything_echo".arguments.message]
//! name = "text"
//!
//! [tools."everything_get-sum".arguments.b]
//! value = 1                  # hidden, always 1
//!
//! [tools."everything_get-env"]
//! hidden = true              # not served at all
//! ```
//!
//! Each table takes the keys of `tool_tables.rs`.

use std::collections::BTreeMap;
use std::path::Path;

use mcp_runtime::{ToolTransform, serde_json};
use serde::Deserialize;

use crate::tool_tables::{ToolTable, line_column};

/// The file as written: `tools`, nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TransformsFile {
    #[serde(default)]
    tools: BTreeMap<String, ToolTable>,
}

/// Reads and checks the file at `path`: its transforms, each with its
/// table's name for the messages.
pub fn load(path: &Path) -> Result<Vec<ToolTransform>, String> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("--transforms: cannot read {file}: {error}"))?;
    let json = path
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("json"));
    parse(&text, &file, json)
}

/// Parses `text`, the contents of the file called `file`.
pub fn parse(text: &str, file: &str, json: bool) -> Result<Vec<ToolTransform>, String> {
    let parsed: TransformsFile = if json {
        serde_json::from_str(text).map_err(|error| {
            let message = error.to_string();
            let message = message
                .rfind(" at line ")
                .map_or(message.as_str(), |at| &message[..at]);
            format!(
                "--transforms {file} line {}, column {}: {message}",
                error.line(),
                error.column()
            )
        })?
    } else {
        toml::from_str(text).map_err(|error| {
            let place = match error.span() {
                Some(span) => format!("{file} {}", line_column(text, span.start)),
                None => file.to_owned(),
            };
            format!("--transforms {place}: {}", error.message().trim_end())
        })?
    };
    if parsed.tools.is_empty() {
        return Err(format!(
            "--transforms {file} changes no tool: add a [tools.\"NAME\"] table, NAME being a tool as the gateway serves it"
        ));
    }
    let mut transforms = Vec::new();
    for (name, table) in &parsed.tools {
        table
            .check(name, &format!("tools.{name:?}"))
            .map_err(|problem| format!("--transforms {file}: {problem}"))?;
        transforms.push(table.transform(name, &[]));
    }
    Ok(transforms)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn tables_by_served_names_become_transforms() {
        let transforms = parse(
            "[tools.\"everything_echo\"]\nname = \"say\"\n\
             [tools.\"everything_echo\".arguments.message]\nname = \"text\"\n\
             [tools.\"everything_get-env\"]\nhidden = true\n",
            "t.toml",
            false,
        )
        .unwrap();
        let names: Vec<&str> = transforms.iter().map(|t| t.name()).collect();
        assert_eq!(names, ["everything_echo", "everything_get-env"]);
        let json = parse(
            r#"{"tools": {"echo": {"arguments": {"b": {"value": 1}}}}}"#,
            "t.json",
            true,
        )
        .unwrap();
        assert_eq!(json[0].name(), "echo");
    }

    #[test]
    fn mistakes_are_one_sentence_with_the_place() {
        let error = parse("[tool.\"echo\"]\nname = \"say\"\n", "t.toml", false).unwrap_err();
        assert!(
            error.starts_with(
                "--transforms t.toml line 1, column 2: unknown field `tool`, expected `tools`"
            ),
            "{error}"
        );
        let error = parse(
            "[tools.echo.arguments.b]\nvalue = 1\nname = \"bee\"\n",
            "t.toml",
            false,
        )
        .unwrap_err();
        assert_eq!(
            error,
            "--transforms t.toml: `tools.\"echo\".arguments.b` has both `value` and `name`: a fixed argument is not shown, so it has no name; keep one"
        );
        let error = parse("[tools.echo.arguments.b]\n", "t.toml", false).unwrap_err();
        assert!(
            error.contains("`tools.\"echo\".arguments.b` is empty"),
            "{error}"
        );
        let error = parse("[tools.echo]\nname = \"\"\n", "t.toml", false).unwrap_err();
        assert!(error.contains("is not a tool name"), "{error}");
        let error = parse("", "t.toml", false).unwrap_err();
        assert!(error.contains("changes no tool"), "{error}");
        let error = parse(r#"{"tools": {"echo": {"nmae": "x"}}}"#, "t.json", true).unwrap_err();
        assert!(
            error.starts_with("--transforms t.json line 1, column ")
                && error.contains("unknown field `nmae`"),
            "{error}"
        );
    }
}
