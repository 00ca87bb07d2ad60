//! The URI of a `#[resource]`: an absolute URI, or a URI template (RFC 6570)
//! with `{name}` and `{+name}` expressions only, the two forms the runtime
//! matches. Checked here so that a typo is an error under the literal, not
//! a resource no client can read.

use crate::common::uri::{check_characters, strip_scheme};

/// Checks the URI and returns its template variables in order (none for a
/// plain URI); the error says what is wrong and how to write it.
pub fn template_variables(uri: &str) -> Result<Vec<String>, String> {
    let rest = strip_scheme(uri)?;
    if rest.is_empty() {
        return Err(format!("{uri:?} has nothing after its scheme"));
    }
    check_characters(uri)?;
    let mut variables: Vec<String> = Vec::new();
    let mut open: Option<usize> = None;
    for (at, c) in uri.char_indices() {
        match (c, open) {
            ('{', None) => open = Some(at),
            ('{', Some(start)) => {
                return Err(format!(
                    "the `{{` at byte {at} is inside the expression opened at byte {start}; expressions cannot be nested"
                ));
            }
            ('}', None) => {
                return Err(format!(
                    "the `}}` at byte {at} closes no expression; a literal brace is written `%7D`"
                ));
            }
            ('}', Some(start)) => {
                let name = variable(&uri[start + 1..at])?;
                if variables.contains(&name) {
                    return Err(format!(
                        "the variable `{name}` appears twice; each variable binds the parameter of its name, so give them different names"
                    ));
                }
                variables.push(name);
                open = None;
            }
            _ => {}
        }
    }
    if let Some(start) = open {
        return Err(format!("the `{{` at byte {start} is never closed"));
    }
    Ok(variables)
}

/// The variable of one expression (the text between the braces).
fn variable(expression: &str) -> Result<String, String> {
    let supported =
        "only `{name}` (one path segment) and `{+name}` (which may contain `/`) are supported";
    let name = expression.strip_prefix('+').unwrap_or(expression);
    if let Some(operator) = name.chars().next().filter(|c| "#./;?&=,!@|+".contains(*c)) {
        return Err(format!(
            "`{{{expression}}}` uses the operator `{operator}`, which is not supported: {supported}"
        ));
    }
    if name.is_empty() {
        return Err(format!(
            "`{{{expression}}}` names no variable; write `{{name}}`"
        ));
    }
    if name.contains(',') {
        return Err(format!(
            "`{{{expression}}}` lists several variables, which is not supported: {supported}; write one expression per variable"
        ));
    }
    if name.contains(['*', ':']) {
        return Err(format!(
            "`{{{expression}}}` has a modifier (`*` or `:N`), which is not supported: {supported}"
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_'))
    {
        return Err(format!(
            "`{{{expression}}}`: {bad:?} cannot be part of a variable name; a name has ASCII letters, digits and `_`, like the parameter it binds"
        ));
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(uri: &str) -> Vec<String> {
        template_variables(uri).unwrap_or_else(|e| panic!("{uri}: {e}"))
    }

    fn error(uri: &str) -> String {
        template_variables(uri).expect_err(uri)
    }

    #[test]
    fn plain_uris_have_no_variables() {
        assert!(vars("config://app").is_empty());
        assert!(vars("file:///etc/hosts").is_empty());
    }

    #[test]
    fn variables_in_order() {
        assert_eq!(vars("users://{id}/profile"), ["id"]);
        assert_eq!(vars("file:///{+path}"), ["path"]);
        assert_eq!(
            vars("repo://{owner}/{name}/{+path}"),
            ["owner", "name", "path"]
        );
        assert_eq!(vars("x:{a_1}{B2}"), ["a_1", "B2"]);
    }

    #[test]
    fn refused_templates_say_why() {
        assert!(error("users://{id/profile").contains("never closed"));
        assert!(error("users://id}/profile").contains("closes no expression"));
        assert!(error("users://{a{b}}").contains("nested"));
        assert!(error("users://{}").contains("names no variable"));
        assert!(error("users://{+}").contains("names no variable"));
        assert!(error("search://x{?q}").contains("operator `?`"));
        assert!(error("x://{#frag}").contains("operator `#`"));
        assert!(error("x://{/seg}").contains("operator `/`"));
        assert!(error("x://{++a}").contains("operator `+`"));
        assert!(error("x://{a,b}").contains("several variables"));
        assert!(error("x://{list*}").contains("modifier"));
        assert!(error("x://{name:3}").contains("modifier"));
        assert!(error("x://{a-b}").contains("'-' cannot be part"));
        assert!(error("x://{id}/{id}").contains("appears twice"));
        assert!(error("x://{id}/{+id}").contains("appears twice"));
        assert!(error("{scheme}://x").contains("scheme"));
        assert!(error("users://{id} /x").contains("space"));
        assert!(error("users:").contains("nothing after"));
    }
}
