//! Reading `#[derive(Elicit)]`'s input: a struct with named fields (a
//! form) or a unit-only enum (choices), and their `#[elicit(...)]` keys.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Expr, Fields, Ident, LitInt, LitStr, Type};

use crate::common::docs::take_docs;
use crate::common::errors::Errors;
use crate::common::keys::parse_keys;

/// What the derive was given.
pub enum Input {
    Form(Form),
    Choices(Choices),
}

pub struct Form {
    pub ident: Ident,
    pub fields: Vec<Field>,
}

pub struct Field {
    pub ident: Ident,
    pub ty: Type,
    /// The property's name in the schema and the answer.
    pub name: String,
    pub description: String,
    pub title: Option<LitStr>,
    pub default: Option<Expr>,
    /// `(keyword, value, span of the key)`, each checked against the type.
    pub text: Vec<(&'static str, Constraint, Span)>,
    pub number: Vec<(&'static str, Expr, Span)>,
    pub choices: Vec<(&'static str, LitInt, Span)>,
}

/// A value of a text keyword.
pub enum Constraint {
    Count(LitInt),
    Text(LitStr),
}

pub struct Choices {
    pub ident: Ident,
    /// `enum_names`: titles as the deprecated `enumNames` list.
    pub enum_names: bool,
    pub variants: Vec<Variant>,
}

pub struct Variant {
    pub ident: Ident,
    pub value: String,
    pub title: Option<LitStr>,
}

const FIELD_KEYS: &[&str] = &[
    "rename",
    "title",
    "default",
    "min_length",
    "max_length",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "min_items",
    "max_items",
];

const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

const CASES: &[&str] = &[
    "lowercase",
    "UPPERCASE",
    "PascalCase",
    "camelCase",
    "snake_case",
    "SCREAMING_SNAKE_CASE",
    "kebab-case",
];

/// The `#[elicit(...)]` attributes of an item, each as its tokens.
fn elicit_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("elicit"))
}

fn attr_tokens(attr: &Attribute, errors: &mut Errors) -> Option<proc_macro2::TokenStream> {
    match attr.meta.require_list() {
        Ok(list) => Some(list.tokens.clone()),
        Err(e) => {
            errors.push(e);
            None
        }
    }
}

/// The container's keys: `rename_all` (checked), and on an enum
/// `enum_names`.
fn container(attrs: &[Attribute], is_enum: bool, errors: &mut Errors) -> (Option<String>, bool) {
    let mut case = None;
    let mut enum_names = false;
    let keys: &[&str] = if is_enum {
        &["rename_all", "enum_names"]
    } else {
        &["rename_all"]
    };
    for attr in elicit_attrs(attrs) {
        let Some(tokens) = attr_tokens(attr, errors) else {
            continue;
        };
        parse_keys("elicit", keys, tokens, errors, |key, meta| {
            if key == "enum_names" && is_enum {
                enum_names = true;
                return Ok(true);
            }
            if key != "rename_all" {
                return Ok(false);
            }
            let lit: LitStr = meta.value()?.parse()?;
            if !CASES.contains(&lit.value().as_str()) {
                return Err(syn::Error::new(
                    lit.span(),
                    format!(
                        "unknown case `{}`; expected one of: {}",
                        lit.value(),
                        CASES.join(", ")
                    ),
                ));
            }
            case = Some(lit.value());
            Ok(true)
        });
    }
    (case, enum_names)
}

/// `name` (a Rust identifier, `snake_case` or `PascalCase`) in `case`.
pub fn recase(name: &str, case: &str) -> String {
    // Split into words at `_` and before each capital.
    let mut words: Vec<String> = Vec::new();
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut word = String::new();
        for c in part.chars() {
            if c.is_uppercase() && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            word.push(c);
        }
        words.push(word);
    }
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let capital = |w: &String| {
        let mut chars = w.chars();
        chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect::<String>())
            .unwrap_or_default()
    };
    match case {
        "lowercase" => lower.concat(),
        "UPPERCASE" => lower.concat().to_uppercase(),
        "PascalCase" => lower.iter().map(capital).collect(),
        "camelCase" => lower
            .iter()
            .enumerate()
            .map(|(i, w)| if i == 0 { w.clone() } else { capital(w) })
            .collect(),
        "snake_case" => lower.join("_"),
        "SCREAMING_SNAKE_CASE" => lower.join("_").to_uppercase(),
        "kebab-case" => lower.join("-"),
        _ => name.to_owned(),
    }
}

pub fn parse(input: DeriveInput, errors: &mut Errors) -> Option<Input> {
    if !input.generics.params.is_empty() {
        errors.spanned(
            &input.generics,
            "#[derive(Elicit)] does not take generic types: a form's fields are fixed",
        );
    }
    let (case, enum_names) = container(&input.attrs, matches!(input.data, Data::Enum(_)), errors);
    match input.data {
        Data::Struct(data) => match data.fields {
            Fields::Named(named) => {
                let fields = named
                    .named
                    .into_iter()
                    .filter_map(|f| field(f, case.as_deref(), errors))
                    .collect::<Vec<_>>();
                check_unique(
                    fields.iter().map(|f| (f.name.as_str(), f.ident.span())),
                    "field",
                    errors,
                );
                Some(Input::Form(Form {
                    ident: input.ident,
                    fields,
                }))
            }
            other => {
                errors.spanned(
                    &other,
                    "#[derive(Elicit)] needs named fields: each becomes a field of the form, \
                     named as in `struct Answer { confirm: bool }`",
                );
                None
            }
        },
        Data::Enum(data) => {
            let mut variants = Vec::new();
            for v in data.variants {
                if !matches!(v.fields, Fields::Unit) {
                    errors.spanned(
                        &v,
                        format!(
                            "variant `{}` carries data: a user picks among plain values, so \
                             #[derive(Elicit)] takes unit variants only",
                            v.ident
                        ),
                    );
                    continue;
                }
                variants.push(variant(v.ident, &v.attrs, case.as_deref(), errors));
            }
            if variants.is_empty() && errors.is_empty() {
                errors.at(
                    input.ident.span(),
                    "an enum to pick from needs at least one variant",
                );
            }
            check_unique(
                variants.iter().map(|v| (v.value.as_str(), v.ident.span())),
                "value",
                errors,
            );
            Some(Input::Choices(Choices {
                ident: input.ident,
                enum_names,
                variants,
            }))
        }
        Data::Union(u) => {
            errors.at(
                u.union_token.span,
                "#[derive(Elicit)] takes a struct (a form) or a unit-only enum (choices), not a union",
            );
            None
        }
    }
}

fn check_unique<'a>(names: impl Iterator<Item = (&'a str, Span)>, what: &str, errors: &mut Errors) {
    let mut seen: Vec<&str> = Vec::new();
    for (name, span) in names {
        if seen.contains(&name) {
            errors.at(
                span,
                format!("two of the {what}s are named `{name}`: rename one"),
            );
        }
        seen.push(name);
    }
}

fn variant(ident: Ident, attrs: &[Attribute], case: Option<&str>, errors: &mut Errors) -> Variant {
    let mut value = None;
    let mut title = None;
    for attr in elicit_attrs(attrs) {
        let Some(tokens) = attr_tokens(attr, errors) else {
            continue;
        };
        parse_keys(
            "elicit",
            &["rename", "title"],
            tokens,
            errors,
            |key, meta| {
                match key {
                    "rename" => value = Some(meta.value()?.parse::<LitStr>()?.value()),
                    "title" => title = Some(meta.value()?.parse::<LitStr>()?),
                    _ => return Ok(false),
                }
                Ok(true)
            },
        );
    }
    let name = ident.to_string();
    let value = value.unwrap_or_else(|| case.map_or(name.clone(), |c| recase(&name, c)));
    Variant {
        ident,
        value,
        title,
    }
}

fn field(f: syn::Field, case: Option<&str>, errors: &mut Errors) -> Option<Field> {
    let ident = f.ident?;
    let (description, _) = take_docs(&f.attrs, true);
    let raw = ident.to_string();
    let raw = raw.strip_prefix("r#").unwrap_or(&raw).to_owned();
    let mut field = Field {
        name: case.map_or(raw.clone(), |c| recase(&raw, c)),
        ident,
        ty: f.ty,
        description,
        title: None,
        default: None,
        text: Vec::new(),
        number: Vec::new(),
        choices: Vec::new(),
    };
    for attr in elicit_attrs(&f.attrs) {
        let Some(tokens) = attr_tokens(attr, errors) else {
            continue;
        };
        parse_keys("elicit", FIELD_KEYS, tokens, errors, |key, meta| {
            let span = meta.path.span();
            match key {
                "rename" => field.name = meta.value()?.parse::<LitStr>()?.value(),
                "title" => field.title = Some(meta.value()?.parse()?),
                "default" => field.default = Some(meta.value()?.parse()?),
                "min_length" => {
                    field
                        .text
                        .push(("minLength", Constraint::Count(meta.value()?.parse()?), span))
                }
                "max_length" => {
                    field
                        .text
                        .push(("maxLength", Constraint::Count(meta.value()?.parse()?), span))
                }
                "pattern" => {
                    field
                        .text
                        .push(("pattern", Constraint::Text(meta.value()?.parse()?), span))
                }
                "format" => {
                    let lit: LitStr = meta.value()?.parse()?;
                    if !FORMATS.contains(&lit.value().as_str()) {
                        return Err(syn::Error::new(
                            lit.span(),
                            format!(
                                "unknown format `{}`: the 2025-11-25 protocol allows {}",
                                lit.value(),
                                FORMATS.join(", ")
                            ),
                        ));
                    }
                    field.text.push(("format", Constraint::Text(lit), span));
                }
                "minimum" => field.number.push(("minimum", meta.value()?.parse()?, span)),
                "maximum" => field.number.push(("maximum", meta.value()?.parse()?, span)),
                "min_items" => field
                    .choices
                    .push(("minItems", meta.value()?.parse()?, span)),
                "max_items" => field
                    .choices
                    .push(("maxItems", meta.value()?.parse()?, span)),
                _ => return Ok(false),
            }
            Ok(true)
        });
    }
    Some(field)
}

#[cfg(test)]
mod tests {
    use super::recase;

    #[test]
    fn names_are_recased_like_serde() {
        assert_eq!(recase("untitled_single", "camelCase"), "untitledSingle");
        assert_eq!(recase("TitledMulti", "snake_case"), "titled_multi");
        assert_eq!(recase("InProgress", "kebab-case"), "in-progress");
        assert_eq!(recase("active", "UPPERCASE"), "ACTIVE");
        assert_eq!(recase("date_time", "PascalCase"), "DateTime");
    }
}
