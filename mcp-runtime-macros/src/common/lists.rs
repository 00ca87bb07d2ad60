//! Lists of string literals in brackets, `key = ["a", "b"]`, as several
//! keys take them (`scopes`, `tags`, `visibility`, a view's `csp(..)`
//! lists).

use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, LitStr};

/// Parses a bracketed list of string literals. `not_a_list` is the error
/// when the value has no brackets (made only then), `not_a_string` the one
/// at an item that is not a string literal.
pub fn string_list(
    value: ParseStream,
    not_a_list: impl FnOnce() -> String,
    not_a_string: &str,
) -> syn::Result<Vec<LitStr>> {
    if !value.peek(syn::token::Bracket) {
        return Err(value.error(not_a_list()));
    }
    let content;
    syn::bracketed!(content in value);
    let items = Punctuated::<Expr, syn::Token![,]>::parse_terminated(&content)?;
    items
        .into_iter()
        .map(|item| match item {
            Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) => Ok(lit),
            other => Err(syn::Error::new(other.span(), not_a_string)),
        })
        .collect()
}

/// Parses `key = ["..", ..]`, the value of a key that takes a list of
/// words (`scopes`, `tags`). The errors name the key, say what one item
/// is (`noun`, `nouns`), and show the fix with the value given (a single
/// string in brackets) or with `example`.
pub fn word_list(
    meta: &ParseNestedMeta,
    key: &str,
    nouns: &str,
    noun: &str,
    example: &str,
) -> syn::Result<Vec<LitStr>> {
    let value = meta.value()?;
    string_list(
        value,
        || {
            let shown = match value.fork().parse::<LitStr>() {
                Ok(lit) => format!("{:?}", lit.value()),
                Err(_) => format!("{example:?}"),
            };
            format!("expected a list of {nouns}, even for one: {key} = [{shown}]")
        },
        &format!("a {noun} must be a string literal, such as {example:?}"),
    )
}
