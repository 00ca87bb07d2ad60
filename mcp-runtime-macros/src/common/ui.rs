//! What `#[tool(ui = ..)]` and `#[resource(.., view)]` share (MCP Apps,
//! the `io.modelcontextprotocol/ui` extension): the check of a view's
//! `ui://` URI, the check that a `meta` does not set the `_meta` keys the
//! attribute writes itself, and the parsing of a list of strings.

use syn::LitStr;
use syn::parse::ParseStream;

use super::lists::string_list;
use super::uri::check_rfc3986_characters;

/// The scheme every view's URI has: hosts read views only from it.
pub const UI_SCHEME: &str = "ui://";

/// Checks `uri` names one view: `ui://` and something after it, only the
/// characters a URI may hold, and no template expression (a host reads a
/// view by its exact URI). The error is a sentence about `uri`.
pub fn check_view_uri(uri: &str) -> Result<(), String> {
    let Some(rest) = uri.strip_prefix(UI_SCHEME) else {
        return Err(format!(
            "{uri:?} is not a `ui://` URI: a host renders only views served from `ui://` resources; write one such as \"ui://weather/forecast\""
        ));
    };
    if rest.is_empty() {
        return Err(format!(
            "{uri:?} names no view: write something after `ui://`, such as \"ui://weather/forecast\""
        ));
    }
    if uri.contains(['{', '}']) {
        return Err(format!(
            "{uri:?} is a URI template, but a view is one fixed resource that a host reads by its exact URI; remove the `{{..}}` expression"
        ));
    }
    check_rfc3986_characters(uri)
}

/// The first of `keys` that the JSON object in `meta` has at its top
/// level, if any. Text that is not a JSON object may yield `None`: the
/// runtime reads `meta` at start-up, and refuses it there with a sentence
/// (it refuses these keys too, so this check only brings the error forward).
pub fn meta_sets<'k>(meta: &LitStr, keys: &[&'k str]) -> Option<&'k str> {
    let found = top_level_keys(&meta.value())?;
    keys.iter()
        .copied()
        .find(|key| found.iter().any(|k| k == key))
}

/// The keys of the JSON object `text` at its top level, or `None` when it
/// does not read as one. A small scanner rather than serde_json, which the
/// macros crate would otherwise wait for in every cold build.
fn top_level_keys(text: &str) -> Option<Vec<String>> {
    let mut chars = text.trim().chars().peekable();
    let mut keys = Vec::new();
    if chars.next()? != '{' {
        return None;
    }
    loop {
        while chars.next_if(|c| c.is_whitespace() || *c == ',').is_some() {}
        match chars.next()? {
            '}' => return Some(keys),
            '"' => keys.push(string(&mut chars)?),
            _ => return None,
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.next()? != ':' {
            return None;
        }
        // Skip the value: up to a `,` or the closing `}` at this depth.
        let mut depth = 0usize;
        loop {
            match chars.peek()? {
                '"' => {
                    chars.next();
                    string(&mut chars)?;
                }
                '{' | '[' => {
                    depth += 1;
                    chars.next();
                }
                '}' | ']' if depth > 0 => {
                    depth -= 1;
                    chars.next();
                }
                '}' | ',' if depth == 0 => break,
                _ => {
                    chars.next();
                }
            }
        }
    }
}

/// The rest of a JSON string whose opening quote was read, unescaped.
fn string(chars: &mut std::iter::Peekable<std::str::Chars>) -> Option<String> {
    let mut text = String::new();
    loop {
        match chars.next()? {
            '"' => return Some(text),
            '\\' => text.push(match chars.next()? {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                'b' => '\u{8}',
                'f' => '\u{c}',
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?
                }
                other => other,
            }),
            c => text.push(c),
        }
    }
}

/// Parses a bracketed list of string literals, such as `["a", "b"]`;
/// `example` is a whole `key = [..]` shown when the value is not a list or
/// an item not a string literal.
pub fn parse_str_list(value: ParseStream, example: &str) -> syn::Result<Vec<LitStr>> {
    string_list(
        value,
        || format!("expected a list of strings in brackets, even for one: {example}"),
        &format!("expected a string literal, as in {example}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_uris() {
        assert!(check_view_uri("ui://weather/forecast").is_ok());
        assert!(check_view_uri("ui://x").is_ok());
        assert!(check_view_uri("ui://a/b%20c?x=1#top").is_ok());
        assert!(
            check_view_uri("https://weather/forecast")
                .unwrap_err()
                .contains("not a `ui://` URI")
        );
        assert!(
            check_view_uri("UI://x")
                .unwrap_err()
                .contains("not a `ui://` URI")
        );
        assert!(check_view_uri("ui:/x").is_err());
        assert!(
            check_view_uri("ui://")
                .unwrap_err()
                .contains("names no view")
        );
        assert!(
            check_view_uri("ui://w/{city}")
                .unwrap_err()
                .contains("template")
        );
        assert!(
            check_view_uri("ui://w/my view")
                .unwrap_err()
                .contains("%20")
        );
        assert!(check_view_uri("ui://w/<x>").unwrap_err().contains("'<'"));
        assert!(check_view_uri("ui://w/é").is_err());
        assert!(check_view_uri("ui://w/100%").unwrap_err().contains("%25"));
        assert!(check_view_uri("ui://w/%zz").is_err());
    }

    #[test]
    fn meta_keys() {
        let lit = |text: &str| LitStr::new(text, proc_macro2::Span::call_site());
        let keys = ["ui", "ui/resourceUri"];
        assert_eq!(meta_sets(&lit(r#"{"ui": {}}"#), &keys), Some("ui"));
        assert_eq!(
            meta_sets(&lit(r#"{"a": 1, "ui/resourceUri": "ui://x"}"#), &keys),
            Some("ui/resourceUri")
        );
        assert_eq!(meta_sets(&lit(r#"{"a": {"ui": 1}}"#), &keys), None);
        assert_eq!(meta_sets(&lit(r#"{"uix": 1}"#), &keys), None);
        assert_eq!(meta_sets(&lit("not json"), &keys), None);
        assert_eq!(
            meta_sets(
                &lit(r#" { "a": "}\"", "b": [1, {"ui": 2}], "c": null, "\u0075i": true } "#),
                &keys
            ),
            Some("ui")
        );
        assert_eq!(
            meta_sets(&lit(r#"{"a": "x", "b": {"c": [1, 2]}}"#), &keys),
            None
        );
        assert_eq!(meta_sets(&lit(r#"{"a": "#), &keys), None);
    }
}
