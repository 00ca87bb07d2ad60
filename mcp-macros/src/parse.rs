//! Parsing of `#[tool(...)]` arguments and of the annotated function.
//!
//! Every problem found is recorded in [`Errors`] with the span of the user's
//! token, so one build reports all of them; the expansion then still emits
//! the user's function so the IDE and the rest of the crate keep working.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{
    Attribute, Expr, ExprLit, FnArg, Ident, ItemFn, Lit, LitBool, LitStr, Meta, Pat, Type,
    meta::ParseNestedMeta,
};

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
];

/// Accumulates errors so that one build reports every problem at once.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(existing) => existing.combine(error),
            None => self.0 = Some(error),
        }
    }

    pub fn spanned(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn at(&mut self, span: Span, message: impl std::fmt::Display) {
        self.push(syn::Error::new(span, message));
    }

    pub fn into_compile_errors(self) -> Option<TokenStream> {
        self.0.map(|e| e.to_compile_error())
    }
}

/// A hint flag such as `read_only` or `destructive = false`.
#[derive(Clone, Copy)]
pub struct Flag {
    pub value: bool,
    pub span: Span,
}

/// The parsed arguments of `#[tool(...)]`.
#[derive(Default)]
pub struct ToolArgs {
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub read_only: Option<Flag>,
    pub destructive: Option<Flag>,
    pub idempotent: Option<Flag>,
    pub open_world: Option<Flag>,
    /// The timeout in milliseconds.
    pub timeout_ms: Option<u64>,
}

impl ToolArgs {
    pub fn parse(attr: TokenStream, errors: &mut Errors) -> ToolArgs {
        let mut args = ToolArgs::default();
        let mut seen: Vec<String> = Vec::new();
        let parser = syn::meta::parser(|meta| {
            let key = meta.path.to_token_stream().to_string().replace(' ', "");
            if seen.contains(&key) {
                return Err(meta.error(format!("duplicate key `{key}` in #[tool(...)]")));
            }
            seen.push(key.clone());
            match key.as_str() {
                "name" => args.name = Some(meta.value()?.parse()?),
                "title" => args.title = Some(meta.value()?.parse()?),
                "description" => args.description = Some(meta.value()?.parse()?),
                "read_only" => args.read_only = Some(parse_flag(&meta)?),
                "destructive" => args.destructive = Some(parse_flag(&meta)?),
                "idempotent" => args.idempotent = Some(parse_flag(&meta)?),
                "open_world" => args.open_world = Some(parse_flag(&meta)?),
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
                _ => {
                    let valid = KEYS.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>();
                    return Err(meta.error(format!(
                        "unknown key `{key}` in #[tool(...)]; expected one of: {}",
                        valid.join(", ")
                    )));
                }
            }
            Ok(())
        });
        if let Err(e) = syn::parse::Parser::parse2(parser, attr) {
            errors.push(e);
        }
        args.check(errors);
        args
    }

    fn check(&self, errors: &mut Errors) {
        if let Some(name) = &self.name
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
        for lit in [&self.title, &self.description].into_iter().flatten() {
            if lit.value().trim().is_empty() {
                errors.at(lit.span(), "this must not be empty");
            }
        }
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

/// What a parameter is: an argument the client sends, or a value the runtime injects.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    Argument,
    Injected,
}

pub struct Param {
    pub ident: Ident,
    pub ty: Type,
    pub kind: ParamKind,
    /// `#[serde(...)]` and `#[schemars(...)]` attributes, forwarded to the args struct.
    pub forwarded: Vec<Attribute>,
    pub description: Option<String>,
}

/// The annotated function, with what the expansion needs from it.
pub struct ToolFn {
    /// The user's function, with the attributes only `#[tool]` understands removed.
    pub item: ItemFn,
    pub params: Vec<Param>,
    pub description: Option<String>,
}

impl ToolFn {
    pub fn parse(mut item: ItemFn, errors: &mut Errors) -> ToolFn {
        let sig = &item.sig;
        if !sig.generics.params.is_empty() {
            errors.spanned(
                &sig.generics,
                "#[tool] functions cannot be generic: the schema is generated for one set of concrete types",
            );
        } else if let Some(where_clause) = &sig.generics.where_clause {
            errors.spanned(
                where_clause,
                "#[tool] functions cannot have a `where` clause",
            );
        }
        if let Some(unsafety) = &sig.unsafety {
            errors.spanned(unsafety, "a #[tool] function cannot be `unsafe`");
        }
        if let Some(variadic) = &sig.variadic {
            errors.spanned(variadic, "a #[tool] function cannot be variadic");
        }
        if let syn::ReturnType::Type(_, ty) = &sig.output
            && let Some(found) = find_impl_trait(ty)
        {
            errors.spanned(
                found,
                "#[tool] functions must return a named type, not `impl Trait`: the output schema is generated from it",
            );
        }

        let (doc_text, _) = take_docs(&item.attrs, false);
        let (description, argument_docs) = split_arguments_section(&doc_text);

        let mut params = Vec::new();
        for input in item.sig.inputs.iter_mut() {
            match input {
                FnArg::Receiver(receiver) => errors.spanned(
                    &*receiver,
                    "#[tool] functions cannot take `self`: a tool is a free function; share data with `State<T>` instead",
                ),
                FnArg::Typed(pat_type) => {
                    if let Some(param) = parse_param(pat_type, &argument_docs, errors) {
                        params.push(param);
                    }
                }
            }
        }
        for (name, _) in &argument_docs {
            if !params.iter().any(|p| p.ident == name) {
                errors.spanned(
                    &item.sig.ident,
                    format!("the `# Arguments` section documents `{name}`, which is not a parameter of this function"),
                );
            }
        }

        // The fn's own doc attributes stay for rustdoc; only the parameters'
        // attributes that rustc would reject were removed above.
        let description = (!description.is_empty()).then_some(description);
        ToolFn {
            item,
            params,
            description,
        }
    }
}

fn parse_param(
    pat_type: &mut syn::PatType,
    argument_docs: &[(String, String)],
    errors: &mut Errors,
) -> Option<Param> {
    let ident = match &*pat_type.pat {
        Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => Some(pat.ident.clone()),
        other => {
            errors.spanned(
                other,
                "#[tool] parameters must be plain names (the name becomes the argument's name in the schema); destructure inside the function instead",
            );
            None
        }
    };

    let (doc, _) = take_docs(&pat_type.attrs, true);
    let mut forwarded = Vec::new();
    let mut kept = Vec::new();
    for attr in pat_type.attrs.drain(..) {
        let path = attr.path();
        if path.is_ident("doc") {
            continue;
        } else if path.is_ident("serde") || path.is_ident("schemars") {
            forwarded.push(attr);
        } else if path.is_ident("cfg") || path.is_ident("cfg_attr") {
            errors.spanned(
                &attr,
                "#[cfg] is not supported on #[tool] parameters: the input schema must not depend on the build configuration",
            );
        } else {
            kept.push(attr);
        }
    }
    pat_type.attrs = kept;

    let ty = (*pat_type.ty).clone();
    let mut type_ok = true;
    if let Some(found) = find_impl_trait(&ty) {
        errors.spanned(
            found,
            "#[tool] parameters cannot be `impl Trait`: name a concrete type that implements `Deserialize` and `JsonSchema`",
        );
        type_ok = false;
    } else if let Some(reference) = find_reference(&ty) {
        let hint = borrowed_hint(reference);
        errors.spanned(
            reference,
            format!("#[tool] parameters cannot be borrowed: arguments are deserialized into owned values; {hint}"),
        );
        type_ok = false;
    }

    let ident = ident?;
    if !type_ok {
        return None;
    }
    let kind = if is_injected(&ty) {
        ParamKind::Injected
    } else {
        ParamKind::Argument
    };
    if kind == ParamKind::Injected
        && let Some(attr) = forwarded.first()
    {
        errors.spanned(
            attr,
            "this parameter is injected by the runtime and is not part of the input schema, so it takes no #[serde] or #[schemars] attributes",
        );
    }
    let description = if doc.is_empty() {
        let unraw = ident.to_string();
        let unraw = unraw.trim_start_matches("r#");
        argument_docs
            .iter()
            .find(|(name, _)| name == unraw)
            .map(|(_, text)| text.clone())
    } else {
        Some(doc)
    };
    Some(Param {
        ident,
        ty,
        kind,
        forwarded,
        description,
    })
}

/// `Context` and `State<T>` (by their last path segment) are injected.
fn is_injected(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    if path.qself.is_some() {
        return false;
    }
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    match &last.arguments {
        syn::PathArguments::None => last.ident == "Context",
        syn::PathArguments::AngleBracketed(_) => last.ident == "State",
        syn::PathArguments::Parenthesized(_) => false,
    }
}

fn borrowed_hint(reference: &syn::TypeReference) -> String {
    match &*reference.elem {
        Type::Path(p) if p.path.is_ident("str") => "use `String` instead of `&str`".into(),
        Type::Slice(s) => format!("use `Vec<{}>` instead", s.elem.to_token_stream()),
        other => format!("use `{}` instead", other.to_token_stream()),
    }
}

/// Finds the first `impl Trait` anywhere inside a type.
fn find_impl_trait(ty: &Type) -> Option<&syn::TypeImplTrait> {
    let mut found = None;
    visit_types(ty, &mut |t| {
        if let Type::ImplTrait(it) = t {
            found.get_or_insert(it);
        }
    });
    found
}

/// Finds the first reference anywhere inside a type.
fn find_reference(ty: &Type) -> Option<&syn::TypeReference> {
    let mut found = None;
    visit_types(ty, &mut |t| {
        if let Type::Reference(r) = t {
            found.get_or_insert(r);
        }
    });
    found
}

fn visit_types<'a>(ty: &'a Type, f: &mut impl FnMut(&'a Type)) {
    f(ty);
    match ty {
        Type::Array(a) => visit_types(&a.elem, f),
        Type::Group(g) => visit_types(&g.elem, f),
        Type::Paren(p) => visit_types(&p.elem, f),
        Type::Ptr(p) => visit_types(&p.elem, f),
        Type::Reference(r) => visit_types(&r.elem, f),
        Type::Slice(s) => visit_types(&s.elem, f),
        Type::Tuple(t) => t.elems.iter().for_each(|e| visit_types(e, f)),
        Type::Path(p) => {
            if let Some(q) = &p.qself {
                visit_types(&q.ty, f);
            }
            for segment in &p.path.segments {
                if let syn::PathArguments::AngleBracketed(args) = &segment.arguments {
                    for arg in &args.args {
                        if let syn::GenericArgument::Type(t) = arg {
                            visit_types(t, f);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// Collects the text of `#[doc = "..."]` attributes, with the common
/// indentation removed (as rustdoc does). With `flatten`, the result is one
/// line, as a property description should be.
pub fn take_docs(attrs: &[Attribute], flatten: bool) -> (String, Vec<Span>) {
    let mut lines = Vec::new();
    let mut spans = Vec::new();
    for attr in attrs {
        if let Meta::NameValue(nv) = &attr.meta
            && nv.path.is_ident("doc")
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
        {
            spans.push(attr.span());
            let value = s.value();
            // `///` alone is `#[doc = ""]`: a blank line that separates paragraphs.
            if value.is_empty() {
                lines.push(String::new());
            }
            lines.extend(value.lines().map(str::to_owned));
        }
    }
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let lines: Vec<&str> = lines
        .iter()
        .map(|l| {
            if l.len() >= indent {
                l[indent..].trim_end()
            } else {
                l.trim()
            }
        })
        .collect();
    let text = if flatten {
        lines
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        lines.join("\n").trim().to_owned()
    };
    (text, spans)
}

/// Splits a rustdoc `# Arguments` (or `# Parameters`) section out of a doc
/// text: returns the remaining description and `(name, description)` pairs
/// from list items such as ``* `city` - The city name.``.
pub fn split_arguments_section(doc: &str) -> (String, Vec<(String, String)>) {
    let mut description = Vec::new();
    let mut arguments: Vec<(String, String)> = Vec::new();
    let mut in_section = false;
    for line in doc.lines() {
        let trimmed = line.trim();
        if let Some(heading) = trimmed.strip_prefix('#') {
            let heading = heading.trim_start_matches('#').trim();
            in_section = heading.eq_ignore_ascii_case("arguments")
                || heading.eq_ignore_ascii_case("parameters");
            if in_section {
                continue;
            }
        }
        if !in_section {
            description.push(line);
            continue;
        }
        if let Some((name, text)) = parse_argument_item(trimmed) {
            arguments.push((name, text));
        } else if !trimmed.is_empty()
            && let Some((_, text)) = arguments.last_mut()
        {
            // A continuation line of the previous item.
            text.push(' ');
            text.push_str(trimmed);
        }
    }
    let description = description.join("\n").trim().to_owned();
    (description, arguments)
}

fn parse_argument_item(line: &str) -> Option<(String, String)> {
    let rest = line
        .strip_prefix("* ")
        .or_else(|| line.strip_prefix("- "))?
        .trim_start();
    let (name, rest) = if let Some(rest) = rest.strip_prefix('`') {
        let end = rest.find('`')?;
        (&rest[..end], &rest[end + 1..])
    } else {
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        (&rest[..end], &rest[end..])
    };
    if name.is_empty() {
        return None;
    }
    let text = rest
        .trim_start()
        .trim_start_matches(['-', ':', '–', '—'])
        .trim();
    Some((name.to_owned(), text.to_owned()))
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

    #[test]
    fn arguments_section() {
        let doc = "Get the forecast.\n\nMore text.\n\n# Arguments\n\n* `city` - The city,\n  for example Paris.\n* days: How many days.\n\n# Examples\n\nnone";
        let (description, args) = split_arguments_section(doc);
        assert_eq!(
            description,
            "Get the forecast.\n\nMore text.\n\n# Examples\n\nnone"
        );
        assert_eq!(
            args,
            vec![
                ("city".to_owned(), "The city, for example Paris.".to_owned()),
                ("days".to_owned(), "How many days.".to_owned()),
            ]
        );
    }
}
