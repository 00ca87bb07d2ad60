//! The `key = value` list of an attribute: duplicates and unknown keys
//! refused (the message lists the valid ones), and the keys every attribute
//! shares: `name`, `title`, `description`, `icons`, `meta` and `scopes`.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::LitStr;
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;

use super::call::option_str;
use super::errors::Errors;
use super::scopes::{check_scopes, parse_scopes, scopes_tokens};
use super::uri::check_absolute_uri;

/// Parses `tokens` as `key = value, flag, ...`. `each` handles one key and
/// returns whether it knows it; an unknown key is an error listing `valid`.
/// The first problem ends the parse, as the rest may not even be keys.
pub fn parse_keys(
    attr: &str,
    valid: &[&str],
    tokens: TokenStream,
    errors: &mut Errors,
    each: impl FnMut(&str, &ParseNestedMeta) -> syn::Result<bool>,
) {
    let context = format!("#[{attr}(...)]");
    let parser = syn::meta::parser(key_parser(&context, valid, each));
    if let Err(e) = syn::parse::Parser::parse2(parser, tokens) {
        errors.push(e);
    }
}

/// The same for a nested list such as `view(csp(...), ...)`, whose keys
/// `each` handles; `context` names the list in messages, such as
/// "`view(...)` of #[resource]".
pub fn parse_nested_keys(
    meta: &ParseNestedMeta,
    context: &str,
    valid: &[&str],
    each: impl FnMut(&str, &ParseNestedMeta) -> syn::Result<bool>,
) -> syn::Result<()> {
    meta.parse_nested_meta(key_parser(context, valid, each))
}

/// One key at a time: duplicates and unknown keys refused, each message
/// naming `context` (such as "#[tool(...)]") and, for an unknown key, the
/// keys in `valid`.
fn key_parser<'a>(
    context: &'a str,
    valid: &'a [&'a str],
    mut each: impl FnMut(&str, &ParseNestedMeta) -> syn::Result<bool> + 'a,
) -> impl FnMut(ParseNestedMeta) -> syn::Result<()> + 'a {
    let mut seen: Vec<String> = Vec::new();
    move |meta| {
        let key = meta.path.to_token_stream().to_string().replace(' ', "");
        if seen.contains(&key) {
            return Err(meta.error(format!("duplicate key `{key}` in {context}")));
        }
        seen.push(key.clone());
        if each(&key, &meta)? {
            return Ok(());
        }
        let valid = valid.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>();
        Err(meta.error(format!(
            "unknown key `{key}` in {context}; expected one of: {}",
            valid.join(", ")
        )))
    }
}

/// The keys every attribute takes: what a client shows of the item, and
/// the scopes a caller needs (which no client is shown).
#[derive(Default)]
pub struct Metadata {
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    /// `icons = ["https://...", ...]`: icon URLs.
    pub icons: Vec<LitStr>,
    /// `meta = r#"{...}"#`: JSON object text for `_meta`.
    pub meta: Option<LitStr>,
    /// `scopes = ["weather:read", ...]`: OAuth scopes a caller must have.
    pub scopes: Vec<LitStr>,
}

impl Metadata {
    /// Takes `key` if it is one of the shared keys; returns whether it was.
    pub fn parse_key(&mut self, key: &str, meta: &ParseNestedMeta) -> syn::Result<bool> {
        match key {
            "name" => self.name = Some(meta.value()?.parse()?),
            "title" => self.title = Some(meta.value()?.parse()?),
            "description" => self.description = Some(meta.value()?.parse()?),
            "icons" => self.icons = parse_icons(meta)?,
            "meta" => self.meta = Some(meta.value()?.parse()?),
            "scopes" => self.scopes = parse_scopes(meta)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Checks the values that can be checked at compile time. The `meta`
    /// text is parsed as JSON by the runtime at start-up; here only its
    /// outline is checked, which catches the common slip of a bare value.
    pub fn check(&self, errors: &mut Errors) {
        for lit in [&self.title, &self.description].into_iter().flatten() {
            if lit.value().trim().is_empty() {
                errors.at(lit.span(), "this must not be empty");
            }
        }
        for icon in &self.icons {
            if let Err(why) = check_absolute_uri(&icon.value()) {
                errors.at(
                    icon.span(),
                    format!("invalid icon URL: {why}; an icon is an `https:` or `data:` URL"),
                );
            }
        }
        if let Some(meta) = &self.meta {
            let text = meta.value();
            let text = text.trim();
            if !(text.starts_with('{') && text.ends_with('}')) {
                errors.at(
                    meta.span(),
                    "`meta` must be the text of a JSON object, such as meta = r#\"{\"team\": \"search\"}\"#",
                );
            }
        }
        check_scopes(&self.scopes, errors);
    }

    /// The name: the `name` key's value, else the function's name.
    pub fn name_or(&self, fn_name: &syn::Ident) -> String {
        match &self.name {
            Some(lit) => lit.value(),
            None => super::params::unraw(fn_name),
        }
    }

    /// The description: the `description` key's value, else the doc comment.
    pub fn description_or(&self, doc: Option<&String>) -> Option<String> {
        match (&self.description, doc) {
            (Some(lit), _) => Some(lit.value()),
            (None, doc) => doc.cloned(),
        }
    }

    /// The `title`, `icons` and `meta` fields of a definition, as tokens.
    pub fn field_tokens(&self) -> (TokenStream, TokenStream, TokenStream) {
        let title = option_str(self.title.as_ref().map(LitStr::value));
        let icons = self.icons.iter();
        let meta = option_str(self.meta.as_ref().map(LitStr::value));
        (title, quote!(&[#(#icons),*]), meta)
    }

    /// The `scopes` field of a definition, as tokens.
    pub fn scopes_tokens(&self) -> TokenStream {
        scopes_tokens(&self.scopes)
    }

    /// Checks the `name` key of a resource or prompt: any text but none.
    pub fn check_name_not_empty(&self, errors: &mut Errors) {
        if let Some(name) = &self.name
            && name.value().trim().is_empty()
        {
            errors.at(name.span(), "this must not be empty");
        }
    }
}

fn parse_icons(meta: &ParseNestedMeta) -> syn::Result<Vec<LitStr>> {
    let value = meta.value()?;
    if !value.peek(syn::token::Bracket) {
        return Err(value.error(
            "expected a list of icon URLs, such as icons = [\"https://example.com/icon.png\"]",
        ));
    }
    let content;
    syn::bracketed!(content in value);
    let icons = Punctuated::<LitStr, syn::Token![,]>::parse_terminated(&content)?;
    Ok(icons.into_iter().collect())
}
