//! Pieces of the generated code every attribute emits the same way:
//! injecting `Context` and `State<T>`, calling the user's function (async
//! or on the blocking pool), the start-up requirements, the location, and
//! the error for an attribute on something that is not a function.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, Signature};

use super::params::{Param, ParamKind};

/// The path every generated item names the runtime through.
pub fn rt() -> TokenStream {
    quote!(::mcp_runtime::__private)
}

/// `Some("...")` or `None`.
pub fn option_str(value: Option<String>) -> TokenStream {
    match value {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

/// The `Location` of the expansion.
pub fn location() -> TokenStream {
    let rt = rt();
    quote! {
        #rt::Location {
            file: ::core::file!(),
            line: ::core::line!(),
            module: ::core::module_path!(),
        }
    }
}

/// The function's return type, and where errors about it point.
pub fn return_type(sig: &Signature) -> (TokenStream, Span) {
    match &sig.output {
        syn::ReturnType::Default => (quote!(()), sig.ident.span()),
        syn::ReturnType::Type(_, ty) => (quote!(#ty), ty.span()),
    }
}

/// `let <binding> = <Context as Inject>::inject(&__mcp_ctx)` for each injected
/// parameter, spanned at its type so an `Inject` error points there.
/// `on_error` is the match arm for an `Err(..)`.
pub fn injections(params: &[Param], on_error: &TokenStream) -> Vec<TokenStream> {
    let rt = rt();
    params
        .iter()
        .filter(|p| p.kind == ParamKind::Injected)
        .map(|p| {
            let binding = p.binding();
            let ty = &p.ty;
            let inject = quote_spanned!(ty.span()=> <#ty as #rt::Inject>::inject(&__mcp_ctx));
            quote! {
                let #binding = match #inject {
                    ::core::result::Result::Ok(value) => value,
                    #on_error
                };
            }
        })
        .collect()
}

/// The state types the injected parameters need, checked at start-up.
pub fn requirements(params: &[Param]) -> Vec<TokenStream> {
    let rt = rt();
    params
        .iter()
        .filter(|p| p.kind == ParamKind::Injected)
        .map(|p| {
            let ty = &p.ty;
            quote_spanned!(ty.span()=> <#ty as #rt::Inject>::requirement)
        })
        .collect()
}

/// The call of the user's function with every parameter's binding: an
/// async fn awaited through `send_check` (spanned at the fn name, so a
/// future that is not `Send` is reported there), a plain fn run on the
/// blocking pool, `on_error` being the match arm for its `Err(..)`.
pub fn invoke(
    sig: &Signature,
    params: &[Param],
    send_check: &Ident,
    on_error: &TokenStream,
) -> TokenStream {
    let rt = rt();
    let fn_ident = &sig.ident;
    let call_args = params.iter().map(Param::binding);
    if sig.asyncness.is_some() {
        let call = quote_spanned!(fn_ident.span()=> #rt::#send_check(#fn_ident(#(#call_args),*)));
        quote!(#call.await)
    } else {
        quote! {
            match #rt::run_blocking(move || #fn_ident(#(#call_args),*)).await {
                ::core::result::Result::Ok(value) => value,
                #on_error
            }
        }
    }
}

/// Reads the annotated function, or answers the error for `#[attr]` on
/// something else. Only the attributes, visibility and signature are
/// parsed: the body is kept as the tokens it is, since every attribute
/// emits it unchanged and parsing every statement of every function (in a
/// proc macro built without optimizations, on every edit of the crate)
/// costs time the user waits for.
pub fn parse_fn_item(attr: &str, item: TokenStream) -> Result<ItemFn, TokenStream> {
    let read = |input: syn::parse::ParseStream| {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        let vis: syn::Visibility = input.parse()?;
        let sig: Signature = input.parse()?;
        let body: proc_macro2::Group = input.parse()?;
        if body.delimiter() != proc_macro2::Delimiter::Brace {
            return Err(syn::Error::new(body.span(), "expected a function body"));
        }
        let block = syn::Block {
            brace_token: syn::token::Brace {
                span: body.delim_span(),
            },
            stmts: vec![syn::Stmt::Item(syn::Item::Verbatim(body.stream()))],
        };
        Ok(ItemFn {
            attrs,
            vis,
            sig,
            block: Box::new(block),
        })
    };
    syn::parse::Parser::parse2(read, item.clone()).map_err(|_| not_a_fn(attr, item))
}

/// The error for `#[attr]` on an item that is not a function, under the
/// item's keyword, followed by the item unchanged.
pub fn not_a_fn(attr: &str, item: TokenStream) -> TokenStream {
    let span = item_keyword_span(&item);
    let error = syn::Error::new(
        span,
        format!("#[{attr}] can only be applied to a function (`async fn` or `fn`)"),
    )
    .to_compile_error();
    quote!(#error #item)
}

/// The span of an item's keyword (`struct`, `impl`, ...), past its
/// attributes and visibility, for errors about the item as a whole.
fn item_keyword_span(item: &TokenStream) -> Span {
    use proc_macro2::TokenTree;
    let mut tokens = item.clone().into_iter().peekable();
    while let Some(token) = tokens.next() {
        match &token {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                tokens.next(); // the attribute's [...] group
            }
            TokenTree::Ident(i) if i == "pub" => {
                if let Some(TokenTree::Group(g)) = tokens.peek()
                    && g.delimiter() == proc_macro2::Delimiter::Parenthesis
                {
                    tokens.next();
                }
            }
            _ => return token.span(),
        }
    }
    Span::call_site()
}
