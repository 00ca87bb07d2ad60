//! The `scopes = ["weather:read", ...]` key every attribute takes: the
//! OAuth scopes a caller's token must carry to use the item. Each is an
//! RFC 6749 `scope-token` (section 3.3), checked here so that a typo is a
//! compile error rather than a tool no one can call.

use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;
use syn::meta::ParseNestedMeta;

use super::errors::Errors;
use super::lists::word_list;

/// Parses the value of `scopes`: a bracketed list of string literals.
pub fn parse_scopes(meta: &ParseNestedMeta) -> syn::Result<Vec<LitStr>> {
    word_list(meta, "scopes", "scopes", "scope", "weather:read")
}

/// Checks each scope: not empty, only `scope-token` characters, and not
/// listed twice. Every problem is recorded, at the scope's own span.
pub fn check_scopes(scopes: &[LitStr], errors: &mut Errors) {
    for (i, lit) in scopes.iter().enumerate() {
        let scope = lit.value();
        if let Err(why) = check_scope(&scope) {
            errors.at(lit.span(), why);
        } else if scopes[..i].iter().any(|earlier| earlier.value() == scope) {
            errors.at(
                lit.span(),
                format!("the scope {scope:?} is listed twice; remove one"),
            );
        }
    }
}

/// The `scopes` field of a definition: `&["a", "b"]`.
pub fn scopes_tokens(scopes: &[LitStr]) -> TokenStream {
    quote!(&[#(#scopes),*])
}

/// RFC 6749, section 3.3: `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`.
fn check_scope(scope: &str) -> Result<(), String> {
    if scope.is_empty() {
        return Err("a scope must not be empty".into());
    }
    let Some(bad) = scope.chars().find(|&c| !is_scope_char(c)) else {
        return Ok(());
    };
    let mut why = format!(
        "invalid scope {scope:?}: {bad:?} is not allowed; a scope is printable ASCII \
         without spaces, `\"` or `\\` (RFC 6749, section 3.3)"
    );
    if bad == ' ' {
        let parts: Vec<String> = scope
            .split(' ')
            .filter(|part| !part.is_empty())
            .map(|part| format!("{part:?}"))
            .collect();
        why.push_str(&format!(
            "; to require several scopes, list each one: scopes = [{}]",
            parts.join(", ")
        ));
    }
    Err(why)
}

fn is_scope_char(c: char) -> bool {
    matches!(c, '\x21' | '\x23'..='\x5b' | '\x5d'..='\x7e')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_tokens() {
        assert!(check_scope("weather:read").is_ok());
        assert!(check_scope("https://example.com/scope!#$[]{}~").is_ok());
        assert!(check_scope("").is_err());
        assert!(check_scope("weather read").is_err());
        assert!(check_scope("say\"hi").is_err());
        assert!(check_scope("back\\slash").is_err());
        assert!(check_scope("tab\t").is_err());
        assert!(check_scope("é").is_err());
        assert!(check_scope("\x7f").is_err());
    }

    #[test]
    fn a_space_suggests_a_list() {
        let why = check_scope("weather:read  weather:write").unwrap_err();
        assert!(
            why.ends_with("list each one: scopes = [\"weather:read\", \"weather:write\"]"),
            "{why}"
        );
    }
}
