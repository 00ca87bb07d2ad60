//! Parsing of `#[tool(...)]` arguments, and what `#[tool]` says about a
//! misused function.
//!
//! Every problem found is recorded in [`Errors`] with the span of the user's
//! token, so one build reports all of them; the expansion then still emits
//! the user's function so the IDE and the rest of the crate keep working.

use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;
use syn::{LitBool, LitStr, meta::ParseNestedMeta};

use crate::common::errors::Errors;
use crate::common::keys::{Metadata, parse_keys};
use crate::common::lists::word_list;
use crate::common::params::Rules;

use super::ui::ToolUiArgs;

/// The keys `#[tool(...)]` accepts, in the order the error message lists them.
pub const KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "timeout",
    "task",
    "ui",
    "visibility",
    "icons",
    "meta",
    "scopes",
    "tags",
];

/// What `#[tool]` says about a misused function or parameter.
pub const RULES: Rules = Rules {
    attr: "tool",
    not_generic: "the schema is generated for one set of concrete types",
    named_return: "the output schema is generated from it",
    no_self: "a tool is a free function; share data with `State<T>` instead",
    plain_names: "the name becomes the argument's name in the schema",
    no_cfg: "the input schema must not depend on the build configuration",
    concrete_param: "name a concrete type that implements `Deserialize` and `JsonSchema`",
    owned_params: "arguments are deserialized into owned values",
    serde_attrs: None,
    complete: Some(
        "#[complete] applies to #[prompt] arguments and #[resource] template variables, not to #[tool] parameters: MCP completes only those",
    ),
    header: None,
};

/// The values `task = ".."` accepts, each with the `TaskSupport` variant
/// it names.
pub const TASK_VALUES: &[(&str, &str)] = &[
    ("forbidden", "Forbidden"),
    ("optional", "Optional"),
    ("required", "Required"),
];

/// The values `task` accepts and what each means, for its error messages.
const TASK_HELP: &str = "expected one of: \"forbidden\" (never run as a task; the default), \"optional\" (a client may run it as a task), \"required\" (a client must run it as a task)";

/// A hint flag such as `read_only` or `destructive = false`.
#[derive(Clone, Copy)]
pub struct Flag {
    pub value: bool,
    pub span: Span,
}

/// The parsed arguments of `#[tool(...)]`.
#[derive(Default)]
pub struct ToolArgs {
    pub metadata: Metadata,
    pub read_only: Option<Flag>,
    pub destructive: Option<Flag>,
    pub idempotent: Option<Flag>,
    pub open_world: Option<Flag>,
    /// The timeout in milliseconds.
    pub timeout_ms: Option<u64>,
    /// `task = ".."`: the `TaskSupport` variant it names.
    pub task: Option<&'static str>,
    /// `ui = "ui://.."` and `visibility = ..`: the tool's view.
    pub ui: ToolUiArgs,
    /// `tags = ["repos", "read"]`: words that group the tool.
    pub tags: Vec<LitStr>,
}

impl ToolArgs {
    pub fn parse(attr: TokenStream, errors: &mut Errors) -> ToolArgs {
        let mut args = ToolArgs::default();
        parse_keys("tool", KEYS, attr, errors, |key, meta| {
            match key {
                "read_only" => args.read_only = Some(parse_flag(meta)?),
                "destructive" => args.destructive = Some(parse_flag(meta)?),
                "idempotent" => args.idempotent = Some(parse_flag(meta)?),
                "open_world" => args.open_world = Some(parse_flag(meta)?),
                "timeout" => {
                    let lit: LitStr = meta.value()?.parse()?;
                    args.timeout_ms = Some(parse_timeout(&lit.value()).map_err(|why| {
                        syn::Error::new(
                            lit.span(),
                            format!(
                                "invalid timeout {:?}: {why}; write a duration such as \"30s\", \"500ms\", \"2m\" or \"1m30s\"",
                                lit.value()
                            ),
                        )
                    })?);
                }
                "task" => args.task = Some(parse_task(meta)?),
                "tags" => args.tags = parse_tags(meta)?,
                _ if args.ui.parse_key(key, meta)? => {}
                _ => return args.metadata.parse_key(key, meta),
            }
            Ok(true)
        });
        args.check(errors);
        args
    }

    fn check(&self, errors: &mut Errors) {
        if let Some(name) = &self.metadata.name
            && let Err(why) = check_tool_name(&name.value())
        {
            errors.at(name.span(), why);
        }
        if let (Some(ro), Some(d)) = (self.read_only, self.destructive)
            && ro.value
            && d.value
        {
            errors.at(
                d.span,
                "contradictory hints: a `read_only` tool cannot be `destructive`; remove one of them",
            );
        }
        check_tags(&self.tags, errors);
        self.metadata.check(errors);
        self.ui.check(self.metadata.meta.as_ref(), errors);
    }
}

fn parse_flag(meta: &ParseNestedMeta) -> syn::Result<Flag> {
    let span = meta.path.span();
    if meta.input.peek(syn::Token![=]) {
        let lit: LitBool = meta.value()?.parse()?;
        Ok(Flag {
            value: lit.value,
            span,
        })
    } else {
        Ok(Flag { value: true, span })
    }
}

/// Parses the value of `tags`: a bracketed list of string literals.
fn parse_tags(meta: &ParseNestedMeta) -> syn::Result<Vec<LitStr>> {
    word_list(meta, "tags", "tags", "tag", "repos")
}

/// Checks each tag: not empty or blank, no space at either end, and not
/// listed twice. Every problem is recorded at the tag's own span.
fn check_tags(tags: &[LitStr], errors: &mut Errors) {
    for (i, lit) in tags.iter().enumerate() {
        let tag = lit.value();
        if tag.trim().is_empty() {
            errors.at(
                lit.span(),
                "a tag must not be empty; write a word such as \"repos\", or remove it",
            );
        } else if tag.trim() != tag {
            errors.at(
                lit.span(),
                format!(
                    "the tag {tag:?} starts or ends with a space; write {:?}",
                    tag.trim()
                ),
            );
        } else if tags[..i].iter().any(|earlier| earlier.value() == tag) {
            errors.at(
                lit.span(),
                format!("the tag {tag:?} is listed twice; remove one"),
            );
        }
    }
}

/// Parses `task = "optional"` (or `"required"`, `"forbidden"`) into the
/// `TaskSupport` variant it names.
fn parse_task(meta: &ParseNestedMeta) -> syn::Result<&'static str> {
    if !meta.input.peek(syn::Token![=]) {
        return Err(meta.error(format!(
            "`task` needs a value, such as task = \"optional\"; {TASK_HELP}"
        )));
    }
    let value = meta.value()?;
    if !value.peek(LitStr) {
        let token: proc_macro2::TokenTree = value.parse()?;
        let text = token.to_string();
        let message = if TASK_VALUES.iter().any(|(name, _)| *name == text) {
            format!("`task` takes a string: write task = \"{text}\", in quotes")
        } else {
            format!("`task` takes a string, such as task = \"optional\"; {TASK_HELP}")
        };
        return Err(syn::Error::new(token.span(), message));
    }
    let lit: LitStr = value.parse()?;
    let text = lit.value();
    TASK_VALUES
        .iter()
        .find(|(name, _)| *name == text)
        .map(|(_, variant)| *variant)
        .ok_or_else(|| {
            syn::Error::new(
                lit.span(),
                format!("unknown task support {text:?}; {TASK_HELP}"),
            )
        })
}

/// Parses a duration such as `30s`, `1500ms`, `2m` or `1h30m` into milliseconds.
pub fn parse_timeout(text: &str) -> Result<u64, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("it is empty".into());
    }
    let mut total: u64 = 0;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits == 0 {
            return Err(format!("expected a number at {rest:?}"));
        }
        let number: u64 = rest[..digits]
            .parse()
            .map_err(|_| "the number is too large".to_string())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        rest = &rest[unit_len..];
        let factor = match unit {
            "ms" => 1,
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            "" => return Err(format!("`{number}` has no unit (ms, s, m or h)")),
            other => return Err(format!("unknown unit `{other}` (expected ms, s, m or h)")),
        };
        total = number
            .checked_mul(factor)
            .and_then(|ms| total.checked_add(ms))
            .ok_or_else(|| "the duration is too large".to_string())?;
    }
    if total == 0 {
        return Err("a timeout must be longer than zero".into());
    }
    Ok(total)
}

/// Checks a tool name against `^[A-Za-z0-9_.-]{1,64}$`.
pub fn check_tool_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 64 {
        return Err(format!(
            "invalid tool name {name:?}: a name has 1 to 64 characters (this one has {})",
            name.chars().count()
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        return Err(format!(
            "invalid tool name {name:?}: {bad:?} is not allowed; use only ASCII letters, digits, `_`, `.` and `-`"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts() {
        assert_eq!(parse_timeout("30s"), Ok(30_000));
        assert_eq!(parse_timeout("500ms"), Ok(500));
        assert_eq!(parse_timeout("1m30s"), Ok(90_000));
        assert_eq!(parse_timeout("2h"), Ok(7_200_000));
        assert!(parse_timeout("").is_err());
        assert!(parse_timeout("0s").is_err());
        assert!(parse_timeout("30").is_err());
        assert!(parse_timeout("10 parsecs").is_err());
        assert!(parse_timeout("s").is_err());
        assert!(parse_timeout("99999999999999999999s").is_err());
    }

    #[test]
    fn tool_names() {
        assert!(check_tool_name("get_forecast").is_ok());
        assert!(check_tool_name("a.b-c_D9").is_ok());
        assert!(check_tool_name(&"x".repeat(64)).is_ok());
        assert!(check_tool_name(&"x".repeat(65)).is_err());
        assert!(check_tool_name("").is_err());
        assert!(check_tool_name("has space").is_err());
        assert!(check_tool_name("é").is_err());
    }
}
