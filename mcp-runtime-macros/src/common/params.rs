//! The annotated function and its parameters, as every attribute reads
//! them: the signature checks, the split into arguments (given by the
//! client) and injected values (`Context`, `State<T>`), each parameter's
//! docs, `#[complete(path)]` and `#[header("Name")]`.
//!
//! The three attributes differ only in what they say about a problem, so
//! each passes its own [`Rules`]: the reasons and fixes in the messages.

use syn::{Attribute, FnArg, Ident, ItemFn, Pat, Type};

use super::docs::{split_arguments_section, take_docs};
use super::errors::Errors;
use super::header::{check_unique, parse_header};
use super::types::{borrowed_hint, find_impl_trait, find_reference, is_injected};

/// What one attribute says about the problems [`parse_fn`] finds: each
/// field completes a sentence that starts the same for every attribute.
pub struct Rules {
    /// `tool`, `resource` or `prompt`, as in `#[tool]`.
    pub attr: &'static str,
    /// Why the function cannot be generic.
    pub not_generic: &'static str,
    /// Why the function must return a named type rather than `impl Trait`.
    pub named_return: &'static str,
    /// What to do instead of taking `self`.
    pub no_self: &'static str,
    /// Why parameters must be plain names.
    pub plain_names: &'static str,
    /// Why `#[cfg]` is refused on a parameter.
    pub no_cfg: &'static str,
    /// What to write instead of an `impl Trait` parameter.
    pub concrete_param: &'static str,
    /// Why parameters must be owned.
    pub owned_params: &'static str,
    /// `None`: `#[serde]` and `#[schemars]` on a parameter are forwarded
    /// (tools). `Some(message)`: they are refused with this message.
    pub serde_attrs: Option<&'static str>,
    /// `None`: `#[complete(path)]` is accepted on arguments.
    /// `Some(message)`: it is refused with this message.
    pub complete: Option<&'static str>,
    /// `None`: `#[header("Name")]` is accepted on arguments.
    /// `Some(message)`: it is refused with this message.
    pub header: Option<&'static str>,
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
    /// `#[serde(...)]` and `#[schemars(...)]` attributes, forwarded to a
    /// tool's args struct.
    pub forwarded: Vec<Attribute>,
    pub description: Option<String>,
    /// The completion function of `#[complete(path)]`.
    pub complete: Option<syn::Path>,
    /// The header name of `#[header("Name")]`: the argument is mirrored
    /// into `Mcp-Param-Name`.
    pub header: Option<syn::LitStr>,
}

impl Param {
    /// The parameter's name as the client sees it: without `r#`.
    pub fn name(&self) -> String {
        unraw(&self.ident)
    }

    /// The local the generated shim binds the parameter's value to. Not
    /// the parameter's own name, which could shadow the function's: a
    /// `fn user(user: String)` is called as `user(__mcp_param_user)`.
    pub fn binding(&self) -> Ident {
        quote::format_ident!("__mcp_param_{}", self.name())
    }
}

/// An identifier as the client sees it: without `r#`.
pub fn unraw(ident: &Ident) -> String {
    ident.to_string().trim_start_matches("r#").to_owned()
}

/// The annotated function, with what the expansion needs from it.
pub struct AnnotatedFn {
    /// The user's function, with the parameter attributes only the macro
    /// understands removed.
    pub item: ItemFn,
    pub params: Vec<Param>,
    /// The doc comment, without a `# Arguments` section; `None` if empty.
    pub description: Option<String>,
}

impl AnnotatedFn {
    /// The parameters the client gives, in order.
    pub fn arguments(&self) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(|p| p.kind == ParamKind::Argument)
    }
}

/// Reads the function, recording every misuse in `errors` in the words of
/// `rules`.
pub fn parse_fn(mut item: ItemFn, rules: &Rules, errors: &mut Errors) -> AnnotatedFn {
    let attr = rules.attr;
    let sig = &item.sig;
    if !sig.generics.params.is_empty() {
        errors.spanned(
            &sig.generics,
            format!(
                "#[{attr}] functions cannot be generic: {}",
                rules.not_generic
            ),
        );
    } else if let Some(where_clause) = &sig.generics.where_clause {
        errors.spanned(
            where_clause,
            format!("#[{attr}] functions cannot have a `where` clause"),
        );
    }
    if let Some(unsafety) = &sig.unsafety {
        errors.spanned(unsafety, format!("a #[{attr}] function cannot be `unsafe`"));
    }
    if let Some(variadic) = &sig.variadic {
        errors.spanned(variadic, format!("a #[{attr}] function cannot be variadic"));
    }
    if let syn::ReturnType::Type(_, ty) = &sig.output
        && let Some(found) = find_impl_trait(ty)
    {
        errors.spanned(
            found,
            format!(
                "#[{attr}] functions must return a named type, not `impl Trait`: {}",
                rules.named_return
            ),
        );
    }

    let (doc_text, _) = take_docs(&item.attrs, false);
    let (description, argument_docs) = split_arguments_section(&doc_text);

    let mut params = Vec::new();
    for input in item.sig.inputs.iter_mut() {
        match input {
            FnArg::Receiver(receiver) => errors.spanned(
                &*receiver,
                format!("#[{attr}] functions cannot take `self`: {}", rules.no_self),
            ),
            FnArg::Typed(pat_type) => {
                if let Some(param) = parse_param(pat_type, &argument_docs, rules, errors) {
                    params.push(param);
                }
            }
        }
    }
    check_unique(params.iter().filter_map(|p| p.header.as_ref()), errors);
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
    AnnotatedFn {
        item,
        params,
        description,
    }
}

fn parse_param(
    pat_type: &mut syn::PatType,
    argument_docs: &[(String, String)],
    rules: &Rules,
    errors: &mut Errors,
) -> Option<Param> {
    let attr_name = rules.attr;
    let ident = match &*pat_type.pat {
        Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => Some(pat.ident.clone()),
        other => {
            errors.spanned(
                other,
                format!(
                    "#[{attr_name}] parameters must be plain names ({}); destructure inside the function instead",
                    rules.plain_names
                ),
            );
            None
        }
    };

    let (doc, _) = take_docs(&pat_type.attrs, true);
    let mut forwarded = Vec::new();
    let mut complete = Vec::new();
    let mut header = Vec::new();
    let mut kept = Vec::new();
    for attr in pat_type.attrs.drain(..) {
        let path = attr.path();
        if path.is_ident("doc") {
            continue;
        } else if path.is_ident("serde") || path.is_ident("schemars") {
            match rules.serde_attrs {
                None => forwarded.push(attr),
                Some(refusal) => errors.spanned(&attr, refusal),
            }
        } else if path.is_ident("cfg") || path.is_ident("cfg_attr") {
            errors.spanned(
                &attr,
                format!(
                    "#[cfg] is not supported on #[{attr_name}] parameters: {}",
                    rules.no_cfg
                ),
            );
        } else if path.is_ident("complete") {
            complete.push(attr);
        } else if path.is_ident("header") {
            header.push(attr);
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
            format!(
                "#[{attr_name}] parameters cannot be `impl Trait`: {}",
                rules.concrete_param
            ),
        );
        type_ok = false;
    } else if let Some(reference) = find_reference(&ty) {
        let hint = borrowed_hint(reference);
        errors.spanned(
            reference,
            format!(
                "#[{attr_name}] parameters cannot be borrowed: {}; {hint}",
                rules.owned_params
            ),
        );
        type_ok = false;
    }

    let kind = if is_injected(&ty) {
        ParamKind::Injected
    } else {
        ParamKind::Argument
    };
    let complete = parse_complete(&complete, kind, rules, errors);
    let injected = kind == ParamKind::Injected;
    let header = parse_header(&header, injected, rules.header, errors);
    let ident = ident?;
    if !type_ok {
        return None;
    }
    if kind == ParamKind::Injected
        && let Some(attr) = forwarded.first()
    {
        errors.spanned(
            attr,
            "this parameter is injected by the runtime and is not part of the input schema, so it takes no #[serde] or #[schemars] attributes",
        );
    }
    let description = if doc.is_empty() {
        let unraw = unraw(&ident);
        argument_docs
            .iter()
            .find(|(name, _)| *name == unraw)
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
        complete,
        header,
    })
}

/// The path of a parameter's `#[complete(path)]`, where the attribute
/// applies and is written once.
fn parse_complete(
    attrs: &[Attribute],
    kind: ParamKind,
    rules: &Rules,
    errors: &mut Errors,
) -> Option<syn::Path> {
    let first = attrs.first()?;
    if let Some(refusal) = rules.complete {
        errors.spanned(first, refusal);
        return None;
    }
    if kind == ParamKind::Injected {
        errors.spanned(
            first,
            format!(
                "#[complete] does not apply here: this parameter is injected by the runtime, not given by the client; put it on a #[{}] parameter that is not `Context` or `State<T>`",
                rules.attr
            ),
        );
        return None;
    }
    for extra in &attrs[1..] {
        errors.spanned(
            extra,
            "a parameter has one completion function: remove the second #[complete(...)]",
        );
    }
    match first.parse_args::<syn::Path>() {
        Ok(path) => Some(path),
        Err(_) => {
            errors.spanned(
                first,
                "#[complete(...)] takes the path of a completion function, such as #[complete(languages)], where `languages` is an async or plain fn taking `prefix: String`",
            );
            None
        }
    }
}
